// SPDX-License-Identifier: MIT
// hio-sim calibrate: measures this machine into a profile — timer wake-ups
// from an idle and from a busy core, the CPU a sleep costs, what the kernel's
// counters cost to read, the interfaces' CPU per I/O, and a disk file's
// latency per size and its ceiling — and records the facts that decide them
// (the kernel, the idle driver and its states, the guest halt-poll window,
// the clock source).
#pragma once
#include <string>

namespace hio::sim {

struct CalibrateArgs {
  std::string out;  // the profile to write
  std::string name = "here";
  std::string file;        // a file on the disk to measure (created if missing)
  uint64_t file_mb = 256;  // of a file it writes
  int cpu = -1;            // the core to measure on; -1: the last
  double seconds = 1.0;    // per disk measurement
  bool quiet = false;
};

// Returns the process exit status; writes progress to stderr.
int calibrate(const CalibrateArgs& a);

}  // namespace hio::sim
