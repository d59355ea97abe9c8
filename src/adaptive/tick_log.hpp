// SPDX-License-Identifier: MIT
// The adaptive strategy's tick log: one CSV line per tick of every adaptive
// queue in the process, to the file HIO_ADAPTIVE_TICKS names, so that a
// choice can be read after the fact beside what the queue saw.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>

#include "adaptive/policy.hpp"

namespace hio {

struct TickLine {
  uint64_t now_ns = 0;
  unsigned queue = 0;  // a number per adaptive queue, in the order they started
  Mode ran = Mode::poll;
  bool learned = false;  // the tick was measured into the level's table
  int level = 0;
  double others = 0, others_level = 0, idle = 0;  // others_level: what the level followed
  double sleeps_per_s = 0;
  uint64_t completions = 0, wall_ns = 0;
  uint64_t wait_ns = 0, cpu_ns = 0;   // of the wall time: inside wait(); the thread's CPU
  std::array<double, kModes> iops{};  // the level's table; -1 where not measured
  Mode next = Mode::poll;
  bool probe = false;
};

class TickLog {
 public:
  // The process's log, or null where HIO_ADAPTIVE_TICKS is unset or its file
  // cannot be opened (said once on stderr). It is never destroyed: queues may
  // end ticks while the process exits, and each line is flushed as written.
  static TickLog* get();
  // t0_ns: the clock's reading that the log's times count from.
  TickLog(std::FILE* f, uint64_t t0_ns);
  TickLog(const TickLog&) = delete;
  TickLog& operator=(const TickLog&) = delete;
  unsigned next_queue();
  void write(const TickLine& l);

 private:
  std::FILE* f_;
  uint64_t t0_;
  std::atomic<unsigned> queues_{0};
};

}  // namespace hio
