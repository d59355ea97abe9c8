// SPDX-License-Identifier: MIT
#include "crc32c.hpp"

#include <array>
#include <cstring>

namespace hiobench {
namespace {

constexpr uint32_t kPoly = 0x82F63B78;  // 0x1EDC6F41, bit-reversed

constexpr std::array<uint32_t, 256> make_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ kPoly : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kTable = make_table();

}  // namespace

uint32_t crc32c_table(const void* data, size_t len) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < len; i++) c = kTable[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const void* data, size_t len) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t c = 0xffffffffu;
  for (; len >= 8; p += 8, len -= 8) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    c = __builtin_ia32_crc32di(c, w);
  }
  auto c32 = uint32_t(c);
  for (; len > 0; p++, len--) c32 = __builtin_ia32_crc32qi(c32, *p);
  return ~c32;
}

bool crc32c_has_sse42() { return __builtin_cpu_supports("sse4.2"); }
#else
uint32_t crc32c_sse42(const void* data, size_t len) { return crc32c_table(data, len); }
bool crc32c_has_sse42() { return false; }
#endif

uint32_t crc32c(const void* data, size_t len) {
  static const bool hw = crc32c_has_sse42();
  return hw ? crc32c_sse42(data, len) : crc32c_table(data, len);
}

}  // namespace hiobench
