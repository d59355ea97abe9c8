// SPDX-License-Identifier: MIT
// Emulated SSD timing over real files (hio_engine_emulate): the data is the
// file's, each completion is held until the emulated device would have
// finished it, one device model serves all of an engine's queues, kernel-side
// wait modes are refused, and NULL gives later opens their real timing back.
// The files live on tmpfs (/dev/shm), what the feature is meant for.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"

using namespace hiotest;

namespace {

constexpr uint32_t kPage = 4096;
// A custom device whose latency stands far above anything tmpfs does.
constexpr const char* kSlowSpec = "lat_us=300,jitter_us=0";
constexpr uint64_t kSlowNs = 300000;

uint64_t mono_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// /dev/shm if it is a writable tmpfs, else "".
const std::string& shm_dir() {
  static const std::string dir = [] {
    struct statfs sf {};
    if (statfs("/dev/shm", &sf) != 0 || sf.f_type != TMPFS_MAGIC) return std::string();
    std::string p = "/dev/shm/hio-emulate-probe-" + std::to_string(getpid());
    int fd = open(p.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return std::string();
    close(fd);
    unlink(p.c_str());
    return std::string("/dev/shm");
  }();
  return dir;
}

#define REQUIRE_SHM()                                                       \
  do {                                                                      \
    if (shm_dir().empty()) GTEST_SKIP() << "no writable tmpfs at /dev/shm"; \
  } while (0)

// A unique path under /dev/shm, removed at destruction.
struct ShmFile : TempFile {
  ShmFile() : TempFile(shm_dir()) {}
};

// Writes data to path (created or truncated) outside hybridio.
void write_file(const std::string& path, const void* data, size_t len) {
  int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  ASSERT_GE(fd, 0) << path << ": " << strerror(errno);
  ASSERT_EQ(write(fd, data, len), ssize_t(len));
  close(fd);
}

// The file's bytes, read outside hybridio.
std::vector<uint8_t> read_file(const std::string& path) {
  std::vector<uint8_t> out;
  int fd = open(path.c_str(), O_RDONLY);
  if (fd < 0) return out;
  uint8_t b[65536];
  for (ssize_t r; (r = read(fd, b, sizeof b)) > 0;) out.insert(out.end(), b, b + r);
  close(fd);
  return out;
}

// A file of `pages` 4 KiB pages of known data; returns the data.
std::vector<uint8_t> make_file(const ShmFile& f, uint32_t pages, uint64_t seed) {
  std::vector<uint8_t> d(size_t(pages) * kPage);
  fill(d.data(), d.size(), seed);
  write_file(f.path(), d.data(), d.size());
  return d;
}

// A handle on f, waiting in mode m, without read-ahead; nullptr (the test
// failed, with the message) if it does not open.
hio_handle* open_handle(hio_engine* e, const ShmFile& f, hio_wait_mode m) {
  hio_handle_opts o;
  hio_handle_opts_init(&o, sizeof o);
  o.strategy = strat(m);
  o.readahead = HIO_READAHEAD_OFF;
  hio_handle* h = nullptr;
  EXPECT_EQ(hio_handle_open(e, f.c_str(), &o, &h), 0) << hio_last_error();
  return h;
}

uint64_t median(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// `n` QD1 4 KiB reads over the first 16 pages of target t, each timed with
// CLOCK_MONOTONIC from before hio_submit to after hio_reap returns it.
// Fails the test on an error or a wrong byte count.
std::vector<uint64_t> timed_reads(hio_queue* q, int t, unsigned n, uint8_t* buf) {
  std::vector<uint64_t> out;
  for (unsigned i = 0; i < n; i++) {
    hio_io io{HIO_OP_READ, t, buf, kPage, uint64_t(i % 16) * kPage, i};
    uint64_t t0 = mono_ns();
    int r = hio_submit(q, &io, 1, 0);
    if (r != 1) {
      ADD_FAILURE() << "hio_submit = " << r << ": " << hio_last_error();
      break;
    }
    hio_completion c{};
    r = hio_reap(q, &c, 1, 1);
    uint64_t t1 = mono_ns();
    if (r != 1) {
      ADD_FAILURE() << "hio_reap = " << r << ": " << hio_last_error();
      break;
    }
    EXPECT_EQ(c.tag, i);
    EXPECT_EQ(c.res, int32_t(kPage)) << "read " << i;
    out.push_back(t1 - t0);
  }
  return out;
}

// The file's own timing on queue q: after a warm-up, the median of 200 reads
// is far below the emulated 300 us.
void expect_own_timing(hio_queue* q, int t, uint8_t* buf) {
  timed_reads(q, t, 10, buf);  // warm-up
  auto lat = timed_reads(q, t, 200, buf);
  ASSERT_EQ(lat.size(), 200u);
  EXPECT_LT(median(lat), kSlowNs / 2);
}

// Opens an existing file on q (buffered); the target id.
int open_file(hio_queue* q, const ShmFile& f) {
  hio_open_opts o{};
  o.struct_size = sizeof o;
  return hio_queue_open(q, f.c_str(), &o);
}

struct StratKind {
  const char* name;
  hio_strategy s;
};

std::string strat_name(const testing::TestParamInfo<StratKind>& info) { return info.param.name; }

// ---- data -----------------------------------------------------------------

class EmulatedTimingData : public testing::TestWithParam<StratKind> {};

// Written, read back and compared through a timed file target; the bytes
// are on the file itself, the end of the file gives a short read, and every
// completion carries the device's latency.
TEST_P(EmulatedTimingData, WriteReadBackAndShortReadAtEnd) {
  REQUIRE_SHM();
  constexpr uint32_t kN = 32;
  constexpr uint64_t kRegion = uint64_t(kN) * kPage;
  constexpr uint64_t kLatNs = 50000;
  Buf w = aligned_buf(kRegion + kPage), r = aligned_buf(kRegion + kPage);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, "lat_us=50,jitter_us=0"), 0) << hio_last_error();
  Queue q(e, 8, GetParam().s);
  ASSERT_EQ(q.rc(), 0) << q.err();
  ShmFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, kRegion};
  int t = hio_queue_open(q, f.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  hio_target_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(hio_target_info_get(q, t, &info), 0);
  EXPECT_EQ(info.growable, 1);  // a regular file, still
  EXPECT_EQ(info.size, kRegion);

  // Writes in a scattered order, reads back in another.
  fill(w.get(), kRegion, 7);
  std::vector<hio_io> ios(kN);
  for (uint32_t i = 0; i < kN; i++) {
    uint64_t off = uint64_t((i * 13) % kN) * kPage;
    ios[i] = hio_io{HIO_OP_WRITE, t, w.get() + off, kPage, off, i};
  }
  auto done = run_ios(q, ios, 8);
  for (uint32_t i = 0; i < kN; i++) {
    EXPECT_EQ(done[i].res, int32_t(kPage)) << "write " << i;
    EXPECT_GE(done[i].lat_ns, kLatNs) << "write " << i << " completed before the device's latency";
  }
  for (uint32_t i = 0; i < kN; i++) {
    uint64_t off = uint64_t(kN - 1 - (i * 7) % kN) * kPage;
    ios[i] = hio_io{HIO_OP_READ, t, r.get() + off, kPage, off, i};
  }
  done = run_ios(q, ios, 8);
  for (uint32_t i = 0; i < kN; i++) {
    EXPECT_EQ(done[i].res, int32_t(kPage)) << "read " << i;
    EXPECT_GE(done[i].lat_ns, kLatNs) << "read " << i << " completed before the device's latency";
  }
  EXPECT_EQ(std::memcmp(w.get(), r.get(), kRegion), 0);
  // The data went to the file, not to an emulated namespace.
  auto on_file = read_file(f.path());
  ASSERT_EQ(on_file.size(), kRegion);
  EXPECT_EQ(std::memcmp(on_file.data(), w.get(), kRegion), 0);

  // The sync helpers; a write past the end extends the file by 1808 bytes.
  fill(w.get() + kRegion, kPage, 8);
  EXPECT_EQ(hio_write(q, t, w.get() + kRegion, 1808, kRegion), 1808) << hio_last_error();
  EXPECT_EQ(hio_flush(q, t), 0) << hio_last_error();
  std::memset(r.get(), 0xee, kRegion + kPage);
  // A read of the last, partial page returns the bytes up to the end.
  EXPECT_EQ(hio_read(q, t, r.get(), kPage, kRegion), 1808) << hio_last_error();
  EXPECT_EQ(std::memcmp(r.get(), w.get() + kRegion, 1808), 0);
  // So does an asynchronous one, two pages long, after the device's latency.
  std::memset(r.get(), 0xee, kRegion + kPage);
  auto tail = run_ios(q, {hio_io{HIO_OP_READ, t, r.get(), 2 * kPage, kRegion - kPage, 0}}, 1);
  EXPECT_EQ(tail[0].res, int32_t(kPage + 1808));
  EXPECT_GE(tail[0].lat_ns, kLatNs);
  EXPECT_EQ(std::memcmp(r.get(), w.get() + kRegion - kPage, kPage + 1808), 0);
  EXPECT_EQ(read_file(f.path()).size(), kRegion + 1808);

  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.write_ios, kN + 1);
  EXPECT_EQ(st.read_ios, kN + 2);
  EXPECT_EQ(st.flush_ios, 1u);
  EXPECT_EQ(st.read_bytes, kRegion + 1808 + kPage + 1808);
  EXPECT_GE(st.read_lat.min_ns, kLatNs);
  // The 1808-byte write is quicker than a 4 KiB one by its smaller transfer,
  // (4096 - 1808) B at the default 7000 MB/s: 0.33 us.
  EXPECT_GE(st.write_lat.min_ns, kLatNs - 400);
  EXPECT_EQ(hio_queue_inflight_get(q), 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, EmulatedTimingData,
                         testing::Values(StratKind{"interrupt", strat(HIO_WAIT_INTERRUPT)},
                                         StratKind{"poll", strat(HIO_WAIT_POLL)},
                                         StratKind{"hybrid2us", strat(HIO_WAIT_HYBRID, 2000)},
                                         StratKind{"hybridfrac", strat(HIO_WAIT_HYBRID, 0, 0.5)},
                                         StratKind{"adaptive", strat(HIO_WAIT_ADAPTIVE)}),
                         strat_name);

// ---- timing ---------------------------------------------------------------

class EmulatedTimingLatency : public testing::TestWithParam<StratKind> {};

// No read completes sooner than the device's latency after its submission
// (a lower bound the mechanism guarantees; the upper bound is only a guard
// against a completion that is never seen).
TEST_P(EmulatedTimingLatency, EveryReadTakesAtLeastTheDeviceLatency) {
  REQUIRE_SHM();
  ShmFile f;
  auto data = make_file(f, 16, 3);
  Buf b = aligned_buf(kPage);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, kSlowSpec), 0) << hio_last_error();
  Queue q(e, 1, GetParam().s);
  ASSERT_EQ(q.rc(), 0) << q.err();
  int t = open_file(q, f);
  ASSERT_GE(t, 0) << hio_last_error();
  auto lat = timed_reads(q, t, 40, b.get());
  ASSERT_EQ(lat.size(), 40u);
  for (size_t i = 0; i < lat.size(); i++) EXPECT_GE(lat[i], kSlowNs) << "read " << i;
  EXPECT_LT(median(lat), 100 * 1000000ull);  // very loose
  EXPECT_EQ(std::memcmp(b.get(), data.data() + 39 % 16 * kPage, kPage), 0);
  // The sync helper waits as long.
  uint64_t t0 = mono_ns();
  EXPECT_EQ(hio_read(q, t, b.get(), kPage, 5 * kPage), int64_t(kPage)) << hio_last_error();
  EXPECT_GE(mono_ns() - t0, kSlowNs);
  EXPECT_EQ(std::memcmp(b.get(), data.data() + 5 * kPage, kPage), 0);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.read_ios, 41u);
  EXPECT_GE(st.read_lat.min_ns, kSlowNs);
}

INSTANTIATE_TEST_SUITE_P(Modes, EmulatedTimingLatency,
                         testing::Values(StratKind{"interrupt", strat(HIO_WAIT_INTERRUPT)},
                                         StratKind{"poll", strat(HIO_WAIT_POLL)}),
                         strat_name);

// The same reads of the same tmpfs file on an engine without emulated
// timing: what the 300 us above measures is the emulation, not the file.
TEST(EmulatedTiming, PlainEngineReadsTheSameFileFarFaster) {
  REQUIRE_SHM();
  ShmFile f;
  make_file(f, 16, 4);
  Buf b = aligned_buf(kPage);
  Engine e;
  Queue q(e, 1, strat(HIO_WAIT_INTERRUPT));
  int t = open_file(q, f);
  ASSERT_GE(t, 0) << hio_last_error();
  expect_own_timing(q, t, b.get());
}

// Writes wait for wlat_us, reads for lat_us.
TEST(EmulatedTiming, WritesTakeTheWriteLatency) {
  REQUIRE_SHM();
  ShmFile f;
  make_file(f, 16, 5);
  Buf b = aligned_buf(kPage);
  fill(b.get(), kPage, 6);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, "lat_us=20,wlat_us=400,jitter_us=0"), 0) << hio_last_error();
  Queue q(e, 1, strat(HIO_WAIT_POLL));
  int t = open_file(q, f);
  ASSERT_GE(t, 0) << hio_last_error();
  for (int i = 0; i < 10; i++) {
    uint64_t t0 = mono_ns();
    ASSERT_EQ(hio_write(q, t, b.get(), kPage, uint64_t(i) * kPage), int64_t(kPage)) << hio_last_error();
    EXPECT_GE(mono_ns() - t0, 400000u) << "write " << i;
  }
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_GE(st.write_lat.min_ns, 400000u);
  auto on_file = read_file(f.path());
  ASSERT_EQ(on_file.size(), 16u * kPage);
  EXPECT_EQ(std::memcmp(on_file.data() + 9 * kPage, b.get(), kPage), 0);
}

// ---- one device per engine ------------------------------------------------

// Two queues of one engine, driven from two threads, share one device and
// its IOPS ceiling: lat_us=50 at 2000 IOPS makes one channel, each command
// holding it 500 us, so 200 commands take at least ~100 ms whoever issues
// them (two devices would let them finish in ~50 ms).
TEST(ThreadsEmulatedTiming, IopsCeilingIsSharedByTheEnginesQueues) {
  REQUIRE_SHM();
  constexpr unsigned kPerQueue = 100;
  ShmFile f;
  make_file(f, 16, 9);
  Buf b0 = aligned_buf(kPage), b1 = aligned_buf(kPage);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, "lat_us=50,iops=2000,jitter_us=0"), 0) << hio_last_error();
  Queue q0(e, 1, strat(HIO_WAIT_INTERRUPT)), q1(e, 1, strat(HIO_WAIT_INTERRUPT));
  int t0 = open_file(q0, f), t1 = open_file(q1, f);
  ASSERT_GE(t0, 0) << hio_last_error();
  ASSERT_GE(t1, 0) << hio_last_error();
  std::vector<std::string> errors(2);
  auto worker = [&](unsigned k, hio_queue* q, int t, uint8_t* buf) {
    for (unsigned i = 0; i < kPerQueue; i++) {
      int64_t r = hio_read(q, t, buf, kPage, uint64_t(i % 16) * kPage);
      if (r != int64_t(kPage)) {
        errors[k] = "read " + std::to_string(i) + " = " + std::to_string(r) + ": " + hio_last_error();
        return;
      }
    }
  };
  uint64_t start = mono_ns();
  std::thread a(worker, 0u, static_cast<hio_queue*>(q0), t0, b0.get());
  std::thread c(worker, 1u, static_cast<hio_queue*>(q1), t1, b1.get());
  a.join();
  c.join();
  uint64_t wall = mono_ns() - start;
  EXPECT_EQ(errors[0], "");
  EXPECT_EQ(errors[1], "");
  // (200 / 2000) s, less 10%.
  EXPECT_GE(wall, uint64_t(2 * kPerQueue * 1e9 / 2000 * 0.9)) << "wall " << wall << " ns";
  hio_queue_stats s0{}, s1{};
  s0.struct_size = sizeof s0;
  s1.struct_size = sizeof s1;
  ASSERT_EQ(hio_queue_stats_get(q0, &s0), 0);
  ASSERT_EQ(hio_queue_stats_get(q1, &s1), 0);
  EXPECT_EQ(s0.read_ios + s1.read_ios, 2 * kPerQueue);
}

// ---- errors ---------------------------------------------------------------

TEST(EmulatedTiming, BadSpecsAreRefusedWithAMessage) {
  Engine e;
  struct BadSpec {
    const char* spec;
    std::vector<const char*> needles;
  };
  const std::vector<BadSpec> bad = {
      {"bogus", {"'bogus'"}},
      {"pcie4,lat_us=abc", {"'abc'", "lat_us"}},
      {"pcie4,colour=red", {"'colour'"}},
      {"pcie4,fail_rate=0.1", {"pcie4,fail_rate=0.1", "fail_rate", "emu:"}},
      {"pcie4,corrupt_offset=0", {"pcie4,corrupt_offset=0", "corrupt_offset"}},
      {"pcie4,short_offset=x", {"'x'", "short_offset"}},
      {"pcie4,size=1g", {"pcie4,size=1g", "size"}},
      {"pcie4,lba=4096", {"pcie4,lba=4096", "lba"}},
      {"pcie4,lba=512", {"pcie4,lba=512", "lba"}},  // the default value, given: refused all the same
  };
  for (const auto& b : bad) {
    EXPECT_EQ(hio_engine_emulate(e, b.spec), -EINVAL) << b.spec;
    std::string msg = hio_last_error();
    for (const char* n : b.needles) EXPECT_TRUE(Contains(msg, n)) << b.spec;
  }
  EXPECT_EQ(hio_engine_emulate(nullptr, "pcie4"), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "NULL"));
  // Good ones, and the two ways back.
  for (const char* good :
       std::vector<const char*>{"pcie4", "nand", "lat_us=200,iops=1000", "pcie3,slow_rate=0.1,slow_factor=3",
                                "pcie4,fail_offset=4096,fail_op=read", "pcie4,short_offset=8k", "", nullptr})
    EXPECT_EQ(hio_engine_emulate(e, good), 0) << (good ? good : "NULL") << ": " << hio_last_error();
}

// Faults over a file: a read or write covering fail_offset fails with EIO
// and moves nothing; one covering short_offset moves only the bytes before
// it, which a handle reports as EIO (the file goes on past it). Each names
// the operation, the file and the offset; the file keeps what was written.
TEST(EmulatedTiming, InjectedFaultsOverAFileNameTheOffset) {
  REQUIRE_SHM();
  ShmFile f;
  auto data = make_file(f, 16, 15);
  Buf b = aligned_buf(kPage);
  fill(b.get(), kPage, 16);
  struct Case {
    const char* spec;
    hio_op op;
  };
  for (Case c :
       {Case{"pcie4,fail_offset=8192,fail_op=read", HIO_OP_READ},
        Case{"pcie4,short_offset=8292,fail_op=read", HIO_OP_READ},
        Case{"pcie4,fail_offset=8192,fail_op=write", HIO_OP_WRITE}, Case{"pcie4,short_offset=8292", HIO_OP_WRITE}}) {
    SCOPED_TRACE(c.spec);
    Engine e;
    ASSERT_EQ(hio_engine_emulate(e, c.spec), 0) << hio_last_error();
    hio_handle* h = open_handle(e, f, HIO_WAIT_INTERRUPT);
    ASSERT_NE(h, nullptr);
    int64_t r = c.op == HIO_OP_READ ? hio_handle_read(h, b.get(), kPage, 2 * kPage)
                                    : hio_handle_write(h, b.get(), kPage, 2 * kPage);
    EXPECT_EQ(r, -EIO);
    std::string msg = hio_last_error();
    EXPECT_TRUE(Contains(msg, c.op == HIO_OP_READ ? "read at offset 8192" : "write at offset 8192")) << msg;
    EXPECT_TRUE(Contains(msg, f.path())) << msg;
    // The pages on either side are untouched by the fault.
    EXPECT_EQ(hio_handle_read(h, b.get(), kPage, kPage), int64_t(kPage)) << hio_last_error();
    EXPECT_EQ(std::memcmp(b.get(), data.data() + kPage, kPage), 0);
    EXPECT_EQ(hio_handle_close(h), 0) << hio_last_error();
  }
  // Nothing a failed or short write left behind is past the fault's byte:
  // the file reads back as made, except the first 100 bytes of page 2 that
  // the short write moved.
  std::vector<uint8_t> now = read_file(f.path());
  ASSERT_EQ(now.size(), data.size());
  EXPECT_EQ(std::memcmp(now.data(), data.data(), 2 * kPage), 0);
  EXPECT_EQ(std::memcmp(now.data() + 2 * kPage + 100, data.data() + 2 * kPage + 100, data.size() - 2 * kPage - 100), 0);
}

// A refused spec leaves the engine's timing as it was.
TEST(EmulatedTiming, RefusedSpecKeepsThePreviousTiming) {
  REQUIRE_SHM();
  ShmFile f;
  make_file(f, 16, 10);
  Buf b = aligned_buf(kPage);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, kSlowSpec), 0) << hio_last_error();
  ASSERT_EQ(hio_engine_emulate(e, "bogus"), -EINVAL);
  ASSERT_EQ(hio_engine_emulate(e, "pcie4,size=1g"), -EINVAL);
  Queue q(e, 1, strat(HIO_WAIT_POLL));
  int t = open_file(q, f);
  ASSERT_GE(t, 0) << hio_last_error();
  for (uint64_t l : timed_reads(q, t, 10, b.get())) EXPECT_GE(l, kSlowNs);
}

class EmulatedTimingKernelMode : public testing::TestWithParam<hio_wait_mode> {};

// A kernel-side mode cannot wait on a completion the kernel never sees: the
// open is refused naming the mode and the spec, and leaves the queue free
// to take a user-space mode.
TEST_P(EmulatedTimingKernelMode, OpenIsRefused) {
  REQUIRE_SHM();
  ShmFile f;
  make_file(f, 16, 11);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, kSlowSpec), 0) << hio_last_error();
  Queue q(e, 4, strat(GetParam()));
  ASSERT_EQ(q.rc(), 0) << q.err();
  EXPECT_EQ(open_file(q, f), -EOPNOTSUPP);
  std::string msg = hio_last_error();
  EXPECT_TRUE(Contains(msg, kSlowSpec));
  EXPECT_TRUE(Contains(msg, hio_wait_mode_name(GetParam())));
  EXPECT_TRUE(Contains(msg, f.path()));
  hio_strategy s = strat(HIO_WAIT_POLL);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0) << hio_last_error();
  int t = open_file(q, f);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(kPage);
  for (uint64_t l : timed_reads(q, t, 5, b.get())) EXPECT_GE(l, kSlowNs);
}

INSTANTIATE_TEST_SUITE_P(Modes, EmulatedTimingKernelMode,
                         testing::Values(HIO_WAIT_IOPOLL, HIO_WAIT_HYBRID_IOPOLL, HIO_WAIT_SQPOLL),
                         [](const auto& info) { return std::string(hio_wait_mode_name(info.param)); });

// ---- the way back -----------------------------------------------------------

class EmulatedTimingReset : public testing::TestWithParam<const char*> {};

// NULL or "" gives targets opened afterwards their real timing again; a
// target opened before keeps the timing it was opened with.
TEST_P(EmulatedTimingReset, LaterOpensGetRealTimingBack) {
  REQUIRE_SHM();
  ShmFile f;
  make_file(f, 16, 12);
  Buf b = aligned_buf(kPage);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, kSlowSpec), 0) << hio_last_error();
  Queue timed(e, 1, strat(HIO_WAIT_INTERRUPT));
  int tt = open_file(timed, f);
  ASSERT_GE(tt, 0) << hio_last_error();
  for (uint64_t l : timed_reads(timed, tt, 5, b.get())) EXPECT_GE(l, kSlowNs);

  ASSERT_EQ(hio_engine_emulate(e, GetParam()), 0) << hio_last_error();
  Queue real(e, 1, strat(HIO_WAIT_INTERRUPT));
  int rt = open_file(real, f);
  ASSERT_GE(rt, 0) << hio_last_error();
  expect_own_timing(real, rt, b.get());
  // Kernel-side modes are allowed again.
  Queue sq(e, 4, strat(HIO_WAIT_SQPOLL));
  EXPECT_GE(open_file(sq, f), 0) << hio_last_error();

  for (uint64_t l : timed_reads(timed, tt, 5, b.get())) EXPECT_GE(l, kSlowNs);
}

INSTANTIATE_TEST_SUITE_P(Ways, EmulatedTimingReset, testing::Values(nullptr, ""),
                         [](const auto& info) { return std::string(info.param ? "empty" : "null"); });

// ---- handles ----------------------------------------------------------------

// A handle opened on the engine gets the timing too, on its dedicated queue
// and on a queue given to it; the data round-trips through the file.
TEST(EmulatedTiming, HandlesTakeTheTiming) {
  REQUIRE_SHM();
  ShmFile f;
  make_file(f, 16, 13);
  Buf w = aligned_buf(4 * kPage), r = aligned_buf(4 * kPage);
  fill(w.get(), 4 * kPage, 14);
  Engine e;
  ASSERT_EQ(hio_engine_emulate(e, kSlowSpec), 0) << hio_last_error();

  hio_handle* h = open_handle(e, f, HIO_WAIT_POLL);
  ASSERT_NE(h, nullptr);
  uint64_t t0 = mono_ns();
  ASSERT_EQ(hio_handle_write(h, w.get(), 4 * kPage, 8 * kPage), int64_t(4 * kPage)) << hio_last_error();
  EXPECT_GE(mono_ns() - t0, kSlowNs);
  for (int i = 0; i < 4; i++) {
    t0 = mono_ns();
    ASSERT_EQ(hio_handle_read(h, r.get() + i * kPage, kPage, uint64_t(8 + i) * kPage), int64_t(kPage))
        << hio_last_error();
    EXPECT_GE(mono_ns() - t0, kSlowNs) << "read " << i;
  }
  EXPECT_EQ(std::memcmp(w.get(), r.get(), 4 * kPage), 0);
  // Asynchronously: the completion's latency is the device's.
  hio_io io{HIO_OP_READ, 0, r.get(), kPage, 9 * kPage, 77};
  ASSERT_EQ(hio_handle_submit(h, &io, 1), 1) << hio_last_error();
  hio_completion c{};
  ASSERT_EQ(hio_handle_reap(h, &c, 1, 1), 1) << hio_last_error();
  EXPECT_EQ(c.tag, 77u);
  EXPECT_EQ(c.res, int32_t(kPage));
  EXPECT_GE(c.lat_ns, kSlowNs);
  hio_handle_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_handle_stats_get(h, &st), 0);
  EXPECT_EQ(st.read_ios, 5u);
  EXPECT_GE(st.read_lat.min_ns, kSlowNs);
  EXPECT_GE(st.write_lat.min_ns, kSlowNs);
  EXPECT_EQ(hio_handle_close(h), 0);
  auto on_file = read_file(f.path());
  ASSERT_EQ(on_file.size(), 16u * kPage);
  EXPECT_EQ(std::memcmp(on_file.data() + 8 * kPage, w.get(), 4 * kPage), 0);

  // A handle on a queue of the engine's that the caller made.
  Queue q(e, 4, strat(HIO_WAIT_INTERRUPT));
  hio_handle_opts so{};
  so.struct_size = sizeof so;
  so.queue = q;
  ASSERT_EQ(hio_handle_open(e, f.c_str(), &so, &h), 0) << hio_last_error();
  t0 = mono_ns();
  ASSERT_EQ(hio_handle_read(h, r.get(), kPage, 0), int64_t(kPage)) << hio_last_error();
  EXPECT_GE(mono_ns() - t0, kSlowNs);
  EXPECT_EQ(hio_handle_close(h), 0);
}

}  // namespace
