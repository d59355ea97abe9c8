// SPDX-License-Identifier: MIT
#include "queue/io_trace.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hio {
namespace {

IoTrace* open_from_env() {
  const char* path = std::getenv("HIO_IO_TRACE");
  if (!path || !*path) return nullptr;
  std::FILE* f = std::fopen(path, "w");
  if (!f) {
    std::fprintf(stderr, "hybridio: HIO_IO_TRACE=%s: %s; no I/O trace\n", path, std::strerror(errno));
    return nullptr;
  }
  return new IoTrace(f);
}

}  // namespace

IoTrace* IoTrace::get() {
  static IoTrace* t = open_from_env();
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
