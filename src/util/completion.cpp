// SPDX-License-Identifier: MIT
#include "util/completion.hpp"

#include <cerrno>
#include <cstdio>

#include "util/error.hpp"

namespace hio {

const char* op_name(hio_op op) {
  switch (op) {
    case HIO_OP_READ: return "read";
    case HIO_OP_WRITE: return "write";
    case HIO_OP_FLUSH: return "flush";
  }
  return "?";
}

std::string describe_completion(const hio_completion& c, const std::string& target) {
  char buf[512];
  if (c.res < 0)
    std::snprintf(buf, sizeof buf, "%s at offset %llu of %s: %s", op_name(c.op), (unsigned long long)c.offset,
                  target.c_str(), errno_text(-c.res).c_str());
  else
    std::snprintf(buf, sizeof buf, "%s at offset %llu of %s: %d bytes", op_name(c.op), (unsigned long long)c.offset,
                  target.c_str(), c.res);
  return buf;
}

int64_t sync_result(const hio_completion& c, uint32_t len, const std::string& target) {
  if (c.res < 0) return fail(-c.res, describe_completion(c, target));
  // A read returns fewer bytes only where it covers the end of a file.
  if (c.op == HIO_OP_WRITE && uint32_t(c.res) != len)
    return failf(EIO, "%s at offset %llu of %s: short transfer (%d of %u bytes)", op_name(c.op),
                 (unsigned long long)c.offset, target.c_str(), c.res, len);
  return c.res;
}

}  // namespace hio
