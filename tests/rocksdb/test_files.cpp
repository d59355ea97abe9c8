// SPDX-License-Identifier: MIT
// The plugin's files through the FileSystem API, in every wait mode and with
// and without O_DIRECT and the block cache: appends of odd sizes read back
// intact at any offset (MultiRead, ReadAsync, sequential), the file ends at
// its size, a reopened file continues, a sync reaches the file, and errors
// name the file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "hybridio/rocksdb.h"
#include "test_util.hpp"

namespace rdb = ::rocksdb;
using hiotest::Contains;

namespace {

struct Setup {
  const char* uri;
  const char* name;
  bool direct_writes;  // RocksDB's use_direct_io_for_flush_and_compaction
};

std::string read_plain(const std::string& path) {
  std::string s;
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return s;
  char b[65536];
  for (ssize_t n; (n = read(fd, b, sizeof b)) > 0;) s.append(b, size_t(n));
  close(fd);
  return s;
}

std::string random_bytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = char(rng());
  return s;
}

class Files : public ::testing::TestWithParam<Setup> {
 protected:
  void SetUp() override {
    REQUIRE_SCRATCH();
    ASSERT_TRUE(hybridio::rocksdb::NewFileSystem(GetParam().uri, &fs_).ok());
    path_ = file_.path();
  }
  // Writes data in appends of 1..9000 bytes with a Flush every few and a
  // Sync halfway, and closes.
  rdb::FileOptions WriteOptions() const {
    rdb::FileOptions fo;
    fo.use_direct_writes = GetParam().direct_writes;
    return fo;
  }
  void Write(const std::string& data, bool reopen = false) {
    std::unique_ptr<rdb::FSWritableFile> w;
    rdb::IOStatus s = reopen ? fs_->ReopenWritableFile(path_, WriteOptions(), &w, nullptr)
                             : fs_->NewWritableFile(path_, WriteOptions(), &w, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
    std::mt19937 rng(7);
    uint64_t start = w->GetFileSize(io_, nullptr);
    for (size_t off = 0, k = 0; off < data.size(); k++) {
      size_t n = std::min<size_t>(data.size() - off, 1 + rng() % 9000);
      ASSERT_TRUE(w->Append(rdb::Slice(data.data() + off, n), io_, nullptr).ok());
      off += n;
      if (k % 5 == 4) {
        ASSERT_TRUE(w->Flush(io_, nullptr).ok());
      }
      if (k == 20) {
        ASSERT_TRUE(w->Sync(io_, nullptr).ok());
      }
    }
    EXPECT_EQ(w->GetFileSize(io_, nullptr), start + data.size());
    s = w->Close(io_, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::unique_ptr<rdb::FSRandomAccessFile> Reader() {
    std::unique_ptr<rdb::FSRandomAccessFile> r;
    rdb::IOStatus s = fs_->NewRandomAccessFile(path_, rdb::FileOptions(), &r, nullptr);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return r;
  }

  hiotest::TempFile file_;
  std::string path_;
  std::shared_ptr<rdb::FileSystem> fs_;
  rdb::IOOptions io_;
};

TEST_P(Files, AppendsReadBackIntactAtAnyOffset) {
  std::string data = random_bytes(300000 + 1234, 1);
  Write(data);
  ASSERT_EQ(read_plain(path_), data) << "the file on disk differs (size " << read_plain(path_).size() << ")";
  auto r = Reader();
  ASSERT_TRUE(r);
  std::mt19937 rng(3);
  std::vector<char> scratch(70000);
  for (int i = 0; i < 200; i++) {
    uint64_t off = rng() % (data.size() + 100);
    size_t n = 1 + rng() % 65536;
    rdb::Slice got;
    ASSERT_TRUE(r->Read(off, n, io_, &got, scratch.data(), nullptr).ok());
    size_t want = off >= data.size() ? 0 : std::min<size_t>(n, data.size() - off);
    ASSERT_EQ(got.size(), want) << "read " << n << " at " << off;
    ASSERT_EQ(got.ToString(), data.substr(std::min<size_t>(off, data.size()), want)) << "read " << n << " at " << off;
  }
}

TEST_P(Files, MultiReadAndReadAsync) {
  std::string data = random_bytes(200000 + 77, 2);
  Write(data);
  auto r = Reader();
  ASSERT_TRUE(r);
  std::vector<rdb::FSReadRequest> reqs(12);
  std::vector<std::vector<char>> bufs(reqs.size(), std::vector<char>(9000));
  for (size_t i = 0; i < reqs.size(); i++) {
    reqs[i].offset = i * 16411;  // odd offsets; the last one crosses the end
    reqs[i].len = 9000;
    reqs[i].scratch = bufs[i].data();
  }
  ASSERT_TRUE(r->MultiRead(reqs.data(), reqs.size(), io_, nullptr).ok());
  for (size_t i = 0; i < reqs.size(); i++) {
    ASSERT_TRUE(reqs[i].status.ok()) << reqs[i].status.ToString();
    size_t want = std::min<size_t>(9000, data.size() - reqs[i].offset);
    EXPECT_EQ(reqs[i].result.ToString(), data.substr(reqs[i].offset, want)) << "request " << i;
  }
  // Three asynchronous reads in flight at once, completed by Poll.
  std::vector<std::string> got(3);
  std::vector<void*> handles;
  std::vector<rdb::IOHandleDeleter> dels(3);
  std::vector<std::vector<char>> big(3, std::vector<char>(20000));
  for (int i = 0; i < 3; i++) {
    rdb::FSReadRequest req;  // RocksDB's may be gone before Poll: so is this one
    req.offset = 1000 + i * 50000;
    req.len = 20000;
    req.scratch = big[i].data();
    void* h = nullptr;
    auto cb = [&got, i](const rdb::FSReadRequest& done, void*) {
      ASSERT_TRUE(done.status.ok()) << done.status.ToString();
      got[i] = done.result.ToString();
    };
    ASSERT_TRUE(r->ReadAsync(req, io_, cb, nullptr, &h, &dels[i], nullptr).ok());
    ASSERT_NE(h, nullptr);
    handles.push_back(h);
  }
  ASSERT_TRUE(fs_->Poll(handles, handles.size()).ok());
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(got[i], data.substr(1000 + i * 50000, 20000)) << "async read " << i;
    dels[i](handles[i]);
  }
  hybridio::rocksdb::Stats st;
  ASSERT_TRUE(hybridio::rocksdb::GetStats(fs_.get(), &st));
  EXPECT_EQ(st.multi_reads, 1u);
  EXPECT_EQ(st.async_reads, 3u);
  EXPECT_GE(st.reads, 15u);
  // Syncs are hybridio's only where it writes.
  if (Contains(GetParam().uri, "writes=hybridio"))
    EXPECT_GT(st.syncs, 0u);
  else
    EXPECT_EQ(st.syncs, 0u);
}

TEST_P(Files, SequentialReadAndReopenedAppend) {
  std::string a = random_bytes(5000, 4), b = random_bytes(70001, 5);
  Write(a);
  Write(b, /*reopen=*/true);
  std::string all = a + b;
  ASSERT_EQ(read_plain(path_), all);
  std::unique_ptr<rdb::FSSequentialFile> sf;
  ASSERT_TRUE(fs_->NewSequentialFile(path_, rdb::FileOptions(), &sf, nullptr).ok());
  std::string back;
  std::vector<char> scratch(10000);
  for (;;) {
    rdb::Slice got;
    ASSERT_TRUE(sf->Read(scratch.size(), io_, &got, scratch.data(), nullptr).ok());
    back += got.ToString();
    if (got.size() < scratch.size()) break;
  }
  EXPECT_EQ(back, all);
}

// What Sync acknowledges is in the file, whatever the cache policy, before Close.
TEST_P(Files, SyncReachesTheFile) {
  std::unique_ptr<rdb::FSWritableFile> w;
  ASSERT_TRUE(fs_->NewWritableFile(path_, WriteOptions(), &w, nullptr).ok());
  std::string data = random_bytes(10000, 6);
  ASSERT_TRUE(w->Append(data, io_, nullptr).ok());
  ASSERT_TRUE(w->Sync(io_, nullptr).ok());
  std::string disk = read_plain(path_);
  ASSERT_GE(disk.size(), data.size());  // up to a page of zeros until Close
  EXPECT_EQ(disk.substr(0, data.size()), data);
  EXPECT_EQ(disk.find_first_not_of('\0', data.size()), std::string::npos);
  ASSERT_TRUE(w->Close(io_, nullptr).ok());
  EXPECT_EQ(read_plain(path_), data);
}

INSTANTIATE_TEST_SUITE_P(
    Setups, Files,
    ::testing::Values(Setup{"hybridio://?completion=interrupt", "InterruptPosixWrites", false},
                      Setup{"hybridio://?completion=poll&emulate=pcie4", "PollEmulatedPosixWrites", false},
                      Setup{"hybridio://?completion=interrupt&writes=hybridio", "InterruptDirect", true},
                      Setup{"hybridio://?completion=interrupt&writes=hybridio", "InterruptDirectReadsOnly", false},
                      Setup{"hybridio://?completion=poll&cache_mb=4&writes=hybridio", "PollDirectCached", false},
                      Setup{"hybridio://?completion=hybrid&direct=0&writes=hybridio", "HybridBuffered", false},
                      Setup{"hybridio://?completion=adaptive&cache_mb=4&cache_policy=writeback&writes=hybridio",
                            "AdaptiveWriteBack", true},
                      Setup{"hybridio://?completion=poll&direct=0&cache_mb=1&cache_policy=writeback&readahead=on&"
                            "writes=hybridio",
                            "PollBufferedWriteBackReadahead", false}),
    [](const auto& i) { return std::string(i.param.name); });

// What hybridio's own probe says O_DIRECT needs for path (0 on failure).
uint32_t direct_alignment(const std::string& path) {
  hio_engine* e = nullptr;
  hio_queue* q = nullptr;
  hio_queue_opts qo{};
  qo.struct_size = sizeof qo;
  qo.depth = 1;
  hio_open_opts oo{};
  oo.struct_size = sizeof oo;
  oo.flags = HIO_OPEN_DIRECT;
  hio_target_info info{};
  info.struct_size = sizeof info;
  int t = -1;
  if (hio_engine_create(&e) == 0 && hio_queue_create(e, &qo, &q) == 0) t = hio_queue_open(q, path.c_str(), &oo);
  bool ok = t >= 0 && hio_target_info_get(q, t, &info) == 0;
  if (q) hio_queue_destroy(q);
  if (e) hio_engine_destroy(e);
  return ok ? std::max(info.offset_align, info.mem_align) : 0;
}

// O_DIRECT reads ask RocksDB for the device's alignment, as its own Posix
// files do, not for whole pages: a 4 KiB block spanning two pages would
// read 8 KiB. The block cache works in pages; buffered files need none.
TEST(FilesAlignment, DirectReadsTakeTheDevicesAlignment) {
  REQUIRE_SCRATCH();
  hiotest::TempFile f;
  int fd = open(f.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  std::string data = random_bytes(20000, 4);
  ASSERT_EQ(write(fd, data.data(), data.size()), ssize_t(data.size()));
  close(fd);
  uint32_t device = direct_alignment(f.path());
  ASSERT_GT(device, 0u);
  struct Case {
    const char* uri;
    size_t align;
    bool direct;
  };
  for (Case c : {Case{"hybridio://?completion=interrupt", device, true},
                 Case{"hybridio://?completion=poll&cache_mb=4&writes=hybridio", 4096, true},
                 Case{"hybridio://?completion=interrupt&direct=0", 4096, false}}) {
    std::shared_ptr<rdb::FileSystem> fs;
    rdb::Status made = hybridio::rocksdb::NewFileSystem(c.uri, &fs);
    ASSERT_TRUE(made.ok()) << c.uri << ": " << made.ToString();
    std::unique_ptr<rdb::FSRandomAccessFile> r;
    rdb::IOStatus s = fs->NewRandomAccessFile(f.path(), rdb::FileOptions(), &r, nullptr);
    ASSERT_TRUE(s.ok()) << c.uri << ": " << s.ToString();
    EXPECT_EQ(r->GetRequiredBufferAlignment(), c.align) << c.uri;
    EXPECT_EQ(r->use_direct_io(), c.direct) << c.uri;
    // RocksDB's direct reads: an aligned buffer, offsets and lengths at that alignment.
    size_t a = r->GetRequiredBufferAlignment();
    std::unique_ptr<char, void (*)(void*)> buf(static_cast<char*>(std::aligned_alloc(a, 8192)), &std::free);
    for (uint64_t off : {uint64_t(0), uint64_t(a), uint64_t(3 * a), uint64_t(16384 - a)}) {
      rdb::Slice got;
      ASSERT_TRUE(r->Read(off, a, rdb::IOOptions(), &got, buf.get(), nullptr).ok()) << c.uri << " at " << off;
      EXPECT_EQ(got.ToString(), data.substr(off, a)) << c.uri << " at " << off;
    }
  }
}

TEST(FilesErrors, MissingFileAndNoDirectIo) {
  std::shared_ptr<rdb::FileSystem> fs;
  ASSERT_TRUE(hybridio::rocksdb::NewFileSystem("hybridio://?completion=interrupt", &fs).ok());
  std::unique_ptr<rdb::FSRandomAccessFile> r;
  rdb::IOStatus s = fs->NewRandomAccessFile("/nonexistent/hio-file", rdb::FileOptions(), &r, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsPathNotFound() || s.IsNotFound()) << s.ToString();
  EXPECT_FALSE(r);
  // tmpfs has no O_DIRECT: the open says so and names the file.
  std::string shm = "/dev/shm/hio-rocksdb-test-" + std::to_string(getpid());
  int fd = open(shm.c_str(), O_CREAT | O_WRONLY, 0600);
  if (fd < 0) GTEST_SKIP() << "no /dev/shm here";
  ASSERT_EQ(write(fd, "abc", 3), 3);
  close(fd);
  s = fs->NewRandomAccessFile(shm, rdb::FileOptions(), &r, nullptr);
  int probe = open(shm.c_str(), O_RDONLY | O_DIRECT);
  if (probe >= 0) {
    close(probe);
    EXPECT_TRUE(s.ok()) << s.ToString();  // this kernel's tmpfs takes O_DIRECT
  } else {
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(Contains(s.ToString(), shm)) << s.ToString();
  }
  unlink(shm.c_str());
}

TEST(FilesErrors, BadUriIsInvalidArgument) {
  std::shared_ptr<rdb::FileSystem> fs;
  rdb::Status s = hybridio::rocksdb::NewFileSystem("hybridio://?depth=0", &fs);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_TRUE(Contains(s.ToString(), "bad value '0' for depth")) << s.ToString();
  EXPECT_FALSE(fs);
  // The emulated device is checked when the file system is made.
  s = hybridio::rocksdb::NewFileSystem("hybridio://?emulate=bogus", &fs);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_TRUE(Contains(s.ToString(), "bad value 'bogus' for emulate")) << s.ToString();
  EXPECT_TRUE(Contains(s.ToString(), "unknown profile 'bogus'")) << s.ToString();
  EXPECT_FALSE(fs);
  hybridio::rocksdb::Stats st;
  EXPECT_FALSE(hybridio::rocksdb::GetStats(rdb::FileSystem::Default().get(), &st));
}

}  // namespace
