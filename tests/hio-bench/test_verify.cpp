// SPDX-License-Identifier: MIT
// hio-bench's --verify=crc32c blocks: checksum, fill, and detection of any
// single flipped bit or a block read from the wrong place.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "verify.hpp"

using hiotest::aligned_buf;
using hiotest::Buf;

TEST(Verify, Crc32cCheckValue) {
  // The standard CRC-32C (Castagnoli) check value.
  EXPECT_EQ(hiobench::crc32c("123456789", 9), 0xE3069283u);
  EXPECT_EQ(hiobench::crc32c("", 0), 0u);
  // RFC 3720 B.4: 32 bytes of zeros, and of 0xff.
  std::vector<uint8_t> z(32, 0), f(32, 0xff);
  EXPECT_EQ(hiobench::crc32c(z.data(), z.size()), 0x8A9136AAu);
  EXPECT_EQ(hiobench::crc32c(f.data(), f.size()), 0x62A8AB43u);
}

TEST(Verify, Crc32cInstructionAndTableAgreeAtEveryLengthAndAlignment) {
  if (!hiobench::crc32c_has_sse42()) GTEST_SKIP() << "this CPU has no SSE4.2: only the table runs";
  std::vector<uint8_t> b(4096 + 64);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (auto& v : b) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = uint8_t(x);
  }
  for (size_t start = 0; start < 8; start++)
    for (size_t len : {size_t(0), size_t(1), size_t(7), size_t(8), size_t(9), size_t(63), size_t(4096), size_t(4099)})
      EXPECT_EQ(hiobench::crc32c_sse42(b.data() + start, len), hiobench::crc32c_table(b.data() + start, len))
          << "start " << start << " len " << len;
  EXPECT_EQ(hiobench::crc32c_table("123456789", 9), 0xE3069283u);
}

class VerifyLen : public testing::TestWithParam<uint32_t> {};

TEST_P(VerifyLen, FillThenCheckIsClean) {
  uint32_t len = GetParam();
  Buf b = aligned_buf(len);
  hiobench::verify_fill(b.get(), len, 1 * hiotest::MiB, 42);
  EXPECT_EQ(hiobench::verify_check(b.get(), len, 1 * hiotest::MiB), "");
}

TEST(Verify, FillDependsOnOffsetAndSeed) {
  for (uint32_t len : {512u, 4096u, 1u << 20}) {
    Buf a = aligned_buf(len), b = aligned_buf(len), c = aligned_buf(len);
    hiobench::verify_fill(a.get(), len, 0, 1);
    hiobench::verify_fill(b.get(), len, 4096, 1);
    hiobench::verify_fill(c.get(), len, 0, 2);
    // Compare the data after the 32-byte header, which names offset and seed.
    EXPECT_NE(std::memcmp(a.get() + 32, b.get() + 32, len - 32), 0) << len;
    EXPECT_NE(std::memcmp(a.get() + 32, c.get() + 32, len - 32), 0) << len;
  }
}

TEST_P(VerifyLen, AnySingleBitFlipIsDetected) {
  uint32_t len = GetParam();
  Buf b = aligned_buf(len);
  const uint64_t off = 8192;
  hiobench::verify_fill(b.get(), len, off, 7);
  // Every field of the header (magic, crc, offset, length, pad, seed), the
  // first data byte, the middle and the very last bit.
  std::vector<size_t> bits = {0, 31, 32, 63, 64, 127, 128, 159, 160, 191, 192, 255};
  for (size_t bit : {size_t(256), size_t(len) * 4, size_t(len) * 8 - 1}) bits.push_back(bit);
  for (size_t bit : bits) {
    if (bit >= size_t(len) * 8) continue;
    b[bit / 8] ^= uint8_t(1u << (bit % 8));
    EXPECT_NE(hiobench::verify_check(b.get(), len, off), "") << "bit " << bit << " of " << len;
    b[bit / 8] ^= uint8_t(1u << (bit % 8));
  }
  EXPECT_EQ(hiobench::verify_check(b.get(), len, off), "");
}

TEST_P(VerifyLen, WrongOffsetIsDetected) {
  uint32_t len = GetParam();
  Buf b = aligned_buf(len);
  hiobench::verify_fill(b.get(), len, 1 << 20, 3);
  std::string msg = hiobench::verify_check(b.get(), len, (1 << 20) + len);
  EXPECT_NE(msg, "");
  EXPECT_TRUE(hiotest::Contains(msg, std::to_string(1 << 20)));  // names the offset it holds
}

INSTANTIATE_TEST_SUITE_P(Lengths, VerifyLen, testing::Values(32u, 33u, 512u, 4096u, 1u << 20),
                         [](const auto& info) { return std::to_string(info.param); });

TEST(Verify, ZeroedBlockHasBadMagic) {
  Buf b = aligned_buf(4096);
  EXPECT_TRUE(hiotest::Contains(hiobench::verify_check(b.get(), 4096, 0), "magic"));
}

TEST(Verify, BlockOfAnotherLength) {
  Buf b = aligned_buf(8192);
  hiobench::verify_fill(b.get(), 8192, 0, 1);
  EXPECT_TRUE(hiotest::Contains(hiobench::verify_check(b.get(), 4096, 0), "length 8192"));
}
