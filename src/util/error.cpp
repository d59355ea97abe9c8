// SPDX-License-Identifier: MIT
#include "util/error.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace hio {
namespace {
thread_local std::string t_last;
}

int fail(int err, std::string msg) {
  t_last = std::move(msg);
  return -err;
}

int failf(int err, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return fail(err, buf);
}

const char* last_error() { return t_last.c_str(); }

std::string errno_text(int err) {
  char buf[128];
  // GNU strerror_r returns the message pointer.
  const char* s = strerror_r(err, buf, sizeof buf);
  return std::string(s) + " (errno " + std::to_string(err) + ")";
}

}  // namespace hio
