// SPDX-License-Identifier: MIT
// The I/O trace: where HIO_IO_TRACE names a file, every read a queue
// submits is one CSV line — the queue's number, the read's size, and the
// time since that queue last returned from a reap (the application's own
// work between its reads). hio-sim replays such a trace as an application's
// thread (docs/simulator.md).
#pragma once
#include <atomic>
#include <cstdint>
#include <cstdio>

namespace hio {

class IoTrace {
 public:
  // The process's trace, or null where HIO_IO_TRACE is unset or its file
  // cannot be opened (said once on stderr). Never destroyed; each line is
  // written whole, so queues on several threads do not mix.
  static IoTrace* get();
  explicit IoTrace(std::FILE* f);
  IoTrace(const IoTrace&) = delete;
  IoTrace& operator=(const IoTrace&) = delete;
  unsigned next_queue() { return ++queues_; }
  void read(unsigned queue, uint32_t len, uint64_t gap_ns);

 private:
  std::FILE* f_;
  std::atomic<unsigned> queues_{0};
};

}  // namespace hio
