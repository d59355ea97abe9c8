// SPDX-License-Identifier: MIT
#include "util/sleep.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <cerrno>

#include "util/clock.hpp"

namespace hio {

void sleep_ns(uint64_t ns) {
  thread_local bool no_slack = false;
  if (!no_slack) {
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    no_slack = true;
  }
  timespec ts = ns_to_ts(ns);
  while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
  }
}

}  // namespace hio
