// SPDX-License-Identifier: MIT
#include "queue/io_trace.hpp"

#include "util/env_file.hpp"

namespace hio {

IoTrace* IoTrace::get() {
  static IoTrace* t = [] {
    std::FILE* f = open_env_file("HIO_IO_TRACE", "I/O trace");
    return f ? new IoTrace(f) : nullptr;
  }();
  return t;
}

IoTrace::IoTrace(std::FILE* f) : f_(f) {
  std::fputs("queue,len,gap_ns\n", f_);
  std::fflush(f_);
}

void IoTrace::read(unsigned queue, uint32_t len, uint64_t gap_ns) {
  // Buffered, one fprintf a line (stdio locks the stream): a trace of
  // millions of reads must not cost a system call each.
  std::fprintf(f_, "%u,%u,%llu\n", queue, len, static_cast<unsigned long long>(gap_ns));
}

}  // namespace hio
