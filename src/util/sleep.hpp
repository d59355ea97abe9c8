// SPDX-License-Identifier: MIT
// A precise short sleep: the thread's timer slack set to 1 ns first.
#pragma once
#include <cstdint>

namespace hio {

// A sleeping thread is woken up to timer_slack_ns late (50 us by default),
// which would swamp a sleep of a few microseconds. Linux's own hybrid
// polling sleeps on an hrtimer without slack; this does the same.
void sleep_ns(uint64_t ns);

}  // namespace hio
