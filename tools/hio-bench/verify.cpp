// SPDX-License-Identifier: MIT
#include "verify.hpp"

#include "crc32c.hpp"

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace hiobench {
namespace {

constexpr uint32_t kMagic = 0x766f6968;  // "hiov"

struct Header {
  uint32_t magic;
  uint32_t crc;  // crc32c of the block from `offset` to its end
  uint64_t offset;
  uint32_t len;
  uint32_t pad;
  uint64_t seed;
};
static_assert(sizeof(Header) == 32);
constexpr size_t kCrcFrom = offsetof(Header, offset);

}  // namespace

void verify_fill(void* buf, uint32_t len, uint64_t offset, uint64_t seed) {
  auto* b = static_cast<uint8_t*>(buf);
  uint64_t x = seed ^ (offset * 0x9e3779b97f4a7c15ull) ^ 0x5851f42d4c957f2dull;
  for (uint32_t i = sizeof(Header); i + 8 <= len; i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(b + i, &x, 8);
  }
  for (uint32_t i = len - len % 8; i < len && i >= sizeof(Header); i++) b[i] = uint8_t(x >> (i % 8));
  Header h{kMagic, 0, offset, len, 0, seed};
  std::memcpy(b, &h, sizeof h);
  h.crc = crc32c(b + kCrcFrom, len - kCrcFrom);
  std::memcpy(b, &h, sizeof h);
}

std::string verify_check(const void* buf, uint32_t len, uint64_t offset) {
  auto* b = static_cast<const uint8_t*>(buf);
  Header h;
  std::memcpy(&h, b, sizeof h);
  char msg[200];
  if (h.magic != kMagic) {
    std::snprintf(msg, sizeof msg, "bad header magic 0x%08x (expected 0x%08x)", h.magic, kMagic);
    return msg;
  }
  if (h.offset != offset || h.len != len) {
    std::snprintf(msg, sizeof msg, "header names offset %llu length %u (expected offset %llu length %u)",
                  (unsigned long long)h.offset, h.len, (unsigned long long)offset, len);
    return msg;
  }
  uint32_t got = crc32c(b + kCrcFrom, len - kCrcFrom);
  if (got != h.crc) {
    std::snprintf(msg, sizeof msg, "crc32c 0x%08x, header says 0x%08x", got, h.crc);
    return msg;
  }
  return "";
}

}  // namespace hiobench
