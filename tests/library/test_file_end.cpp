// SPDX-License-Identifier: MIT
// The end of a regular file: a read may cover its last, partial page (as
// O_DIRECT and a cached handle must) and returns the bytes up to the end;
// a read that starts past the end, or reaches past the last page, is refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "hybridio/hio.hpp"
#include "test_util.hpp"

using namespace hiotest;

namespace {

constexpr uint32_t kPage = 4096;
constexpr uint32_t kSize = 2 * kPage + 1808;  // the last page holds 1808 bytes

std::vector<uint8_t> pattern() {
  std::vector<uint8_t> v(kSize);
  for (uint32_t i = 0; i < kSize; i++) v[i] = uint8_t(i * 7 + 3);
  return v;
}

void write_file(const std::string& path, const std::vector<uint8_t>& data) {
  int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, data.data(), data.size()), ssize_t(data.size()));
  close(fd);
}

struct Case {
  bool direct, cached;
};

class FileEnd : public ::testing::TestWithParam<Case> {};

TEST_P(FileEnd, HandleReadsTheLastPartialPage) {
  REQUIRE_SCRATCH();
  TempFile f;
  auto data = pattern();
  write_file(f.path(), data);
  Engine e;
  hio_cache* cache = nullptr;
  if (GetParam().cached) {
    ASSERT_EQ(hio_cache_create(1 << 20, HIO_CACHE_WRITE_THROUGH, &cache), 0);
  }
  hio_handle_opts o{};
  o.struct_size = sizeof o;
  o.open.flags = GetParam().direct ? HIO_OPEN_DIRECT : 0;
  o.cache = cache;
  o.readahead = HIO_READAHEAD_OFF;
  hio_handle* h = nullptr;
  ASSERT_EQ(hio_handle_open(e, f.c_str(), &o, &h), 0) << hio_last_error();
  Buf b = aligned_buf(2 * kPage);
  // Twice: from the device, then (cached) from the cache.
  for (int pass = 0; pass < 2; pass++) {
    std::memset(b.get(), 0xee, 2 * kPage);
    ASSERT_EQ(hio_handle_read(h, b.get(), kPage, 2 * kPage), 1808) << hio_last_error();
    EXPECT_EQ(std::memcmp(b.get(), data.data() + 2 * kPage, 1808), 0) << "pass " << pass;
    // Two pages, the second partial, in one command.
    ASSERT_EQ(hio_handle_read(h, b.get(), 2 * kPage, kPage), kPage + 1808) << hio_last_error();
    EXPECT_EQ(std::memcmp(b.get(), data.data() + kPage, kPage + 1808), 0) << "pass " << pass;
  }
  if (cache) {
    hio_handle_stats st{};
    st.struct_size = sizeof st;
    hio_handle_stats_get(h, &st);
    EXPECT_EQ(st.cache_hits, 3u);  // the second pass hit every page
  }
  // Past the last page, or starting at the end: refused.
  EXPECT_EQ(hio_handle_read(h, b.get(), 2 * kPage, 2 * kPage), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "past the end")) << hio_last_error();
  EXPECT_EQ(hio_handle_read(h, b.get(), kPage, 3 * kPage), -EINVAL);
  EXPECT_EQ(hio_handle_close(h), 0);
  if (cache) hio_cache_destroy(cache);
}

INSTANTIATE_TEST_SUITE_P(Modes, FileEnd,
                         ::testing::Values(Case{true, false}, Case{true, true}, Case{false, false}, Case{false, true}),
                         [](const auto& i) {
                           return std::string(i.param.direct ? "Direct" : "Buffered") +
                                  (i.param.cached ? "Cached" : "Uncached");
                         });

TEST(FileEndQueue, SyncReadReturnsTheBytesUpToTheEnd) {
  REQUIRE_SCRATCH();
  TempFile f;
  auto data = pattern();
  write_file(f.path(), data);
  Engine e;
  Queue q(e, 4);
  hio_open_opts oo{sizeof(hio_open_opts), HIO_OPEN_DIRECT, 0};
  int t = hio_queue_open(q, f.c_str(), &oo);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(kPage);
  EXPECT_EQ(hio_read(q, t, b.get(), kPage, 2 * kPage), 1808) << hio_last_error();
  EXPECT_EQ(std::memcmp(b.get(), data.data() + 2 * kPage, 1808), 0);
  EXPECT_EQ(hio_read(q, t, b.get(), kPage, 3 * kPage), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "past the end")) << hio_last_error();
}

}  // namespace
