// SPDX-License-Identifier: MIT
// An I/O interface as a profile describes it: what it costs the thread that
// uses it (io_uring on a disk, the emulated backend, libaio, SPDK, Posix).
#pragma once
#include "model/machine.hpp"

namespace hio::sim {

// What the I/O interface costs our thread, beyond waiting.
struct Interface {
  Time io_ns = 2000;  // per I/O in every mode: prepare, submit, reap
  SleepCost wait;     // a wait that sleeps until the completion
  Time irq_ns = 0;    // a completion's interrupt handler; 0: the device raises none, a sleeping wait arms a timer
  Time peek_ns = 50;  // one look at the completion ring
};

}  // namespace hio::sim
