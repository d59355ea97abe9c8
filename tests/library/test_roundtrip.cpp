// SPDX-License-Identifier: MIT
// Write, read back, compare: every backend x wait strategy x size x offset
// pattern x queue depth, through hio_submit/hio_reap and the sync helpers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace hiotest;

namespace {

struct TargetKind {
  const char* name;
  const char* spec;  // nullptr: a temporary regular file through io_uring
  bool direct;
};

struct StratKind {
  const char* name;
  hio_strategy s;
};

const TargetKind kUringDirect{"uring_direct", nullptr, true};
const TargetKind kUringBuffered{"uring_buffered", nullptr, false};
const TargetKind kEmuPcie4{"emu_pcie4", "emu:pcie4,size=64m", false};
const TargetKind kEmuCustom{"emu_custom", "emu:lat_us=5,iops=200000,size=64m", false};

const StratKind kInterrupt{"interrupt", strat(HIO_WAIT_INTERRUPT)};
const StratKind kPoll{"poll", strat(HIO_WAIT_POLL)};
const StratKind kHybridFixed{"hybrid2us", strat(HIO_WAIT_HYBRID, 2000)};
const StratKind kHybridFrac{"hybridfrac", strat(HIO_WAIT_HYBRID, 0, 0.5)};
const StratKind kSqpoll{"sqpoll", strat(HIO_WAIT_SQPOLL)};
const StratKind kAdaptive{"adaptive", strat(HIO_WAIT_ADAPTIVE)};

struct Config {
  TargetKind t;
  StratKind s;
};

std::vector<Config> configs() {
  std::vector<Config> out;
  for (const auto& t : {kUringDirect, kUringBuffered, kEmuPcie4, kEmuCustom}) {
    for (const auto& s : {kInterrupt, kPoll, kHybridFixed, kHybridFrac, kAdaptive}) out.push_back({t, s});
    // SQPOLL is a kernel-side mode: io_uring only.
    if (!t.spec) out.push_back({t, kSqpoll});
  }
  return out;
}

std::string config_name(const Config& c) { return std::string(c.t.name) + "_" + c.s.name; }

// Opens the target of kind t on q, sized for `bytes`; returns its id.
int open_target(hio_queue* q, const TargetKind& t, const TempFile& f, uint64_t bytes) {
  if (t.spec) return hio_queue_open(q, t.spec, nullptr);
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | (t.direct ? HIO_OPEN_DIRECT : 0u), bytes};
  return hio_queue_open(q, f.c_str(), &o);
}

struct Case {
  Config c;
  uint32_t size;
  bool random;
  unsigned depth;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& c : configs())
    for (uint32_t size : {512u, 4096u, 65536u, 1u << 20})
      for (bool random : {false, true})
        for (unsigned depth : {1u, 32u}) out.push_back({c, size, random, depth});
  return out;
}

std::string size_name(uint32_t s) {
  return s >= MiB ? std::to_string(s / MiB) + "m" : s >= KiB ? std::to_string(s / KiB) + "k" : std::to_string(s);
}

class RoundTrip : public testing::TestWithParam<Case> {};

TEST_P(RoundTrip, WriteReadCompare) {
  const Case& k = GetParam();
  if (!k.c.t.spec) REQUIRE_SCRATCH();
  // Enough commands to keep a 32-deep queue full for small sizes, without
  // moving more than 8 MiB each way.
  uint32_t n = uint32_t(std::clamp<uint64_t>(8 * MiB / k.size, 4, 64));
  uint64_t region = uint64_t(n) * k.size;
  // Buffers before the queue: should a failure leave I/O in flight, the
  // ring is torn down before the memory it targets is freed.
  Buf w = aligned_buf(region), r = aligned_buf(region);
  Engine e;
  Queue q(e, k.depth, k.c.s.s);
  ASSERT_EQ(q.rc(), 0) << q.err();
  TempFile f;
  int t = open_target(q, k.c.t, f, region);
  ASSERT_GE(t, 0) << hio_last_error();

  // Each command owns one block, so commands in flight never overlap.
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(k.size * 31 + k.depth);
  if (k.random) std::shuffle(order.begin(), order.end(), rng);

  fill(w.get(), region, k.size + k.depth);
  std::vector<hio_io> ios(n);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t off = uint64_t(order[i]) * k.size;
    ios[i] = hio_io{HIO_OP_WRITE, t, w.get() + off, k.size, off, i};
  }
  run_ios_ok(q, ios, k.depth);
  // Read back in a different order than written.
  if (k.random)
    std::shuffle(order.begin(), order.end(), rng);
  else
    std::reverse(order.begin(), order.end());
  for (uint32_t i = 0; i < n; i++) {
    uint64_t off = uint64_t(order[i]) * k.size;
    ios[i] = hio_io{HIO_OP_READ, t, r.get() + off, k.size, off, i};
  }
  run_ios_ok(q, ios, k.depth);
  EXPECT_EQ(std::memcmp(w.get(), r.get(), region), 0);

  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.submitted, 2u * n);
  EXPECT_EQ(st.completed, 2u * n);
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.write_ios, n);
  EXPECT_EQ(st.read_ios, n);
  EXPECT_EQ(st.write_bytes, region);
  EXPECT_EQ(st.read_bytes, region);
  EXPECT_EQ(st.write_lat.count, n);
  EXPECT_EQ(st.read_lat.count, n);
}

INSTANTIATE_TEST_SUITE_P(Matrix, RoundTrip, testing::ValuesIn(cases()), [](const auto& info) {
  const Case& k = info.param;
  return config_name(k.c) + "_" + size_name(k.size) + (k.random ? "_rand" : "_seq") + "_qd" + std::to_string(k.depth);
});

// The sync helpers, over the same backends and strategies.
class SyncRoundTrip : public testing::TestWithParam<Config> {};

TEST_P(SyncRoundTrip, WriteReadFlush) {
  const Config& c = GetParam();
  if (!c.t.spec) REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 4, c.s.s);
  ASSERT_EQ(q.rc(), 0) << q.err();
  TempFile f;
  int t = open_target(q, c.t, f, 4 * MiB);
  ASSERT_GE(t, 0) << hio_last_error();
  hio_target_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(hio_target_info_get(q, t, &info), 0);
  EXPECT_EQ(info.emulated, c.t.spec ? 1 : 0);
  EXPECT_EQ(info.growable, c.t.spec ? 0 : 1);  // only a regular file grows
  EXPECT_STREQ(info.backend, c.t.spec ? "emu" : "uring");
  EXPECT_GE(info.size, 4 * MiB);

  uint64_t off = 0, ops = 0;
  for (uint32_t size : {512u, 4096u, 65536u, 1u << 20}) {
    Buf w = aligned_buf(size), r = aligned_buf(size);
    fill(w.get(), size, size);
    EXPECT_EQ(hio_write(q, t, w.get(), size, off), int64_t(size)) << hio_last_error();
    EXPECT_EQ(hio_read(q, t, r.get(), size, off), int64_t(size)) << hio_last_error();
    EXPECT_EQ(std::memcmp(w.get(), r.get(), size), 0) << size;
    off += size;
    ops++;
  }
  EXPECT_EQ(hio_flush(q, t), 0) << hio_last_error();
  EXPECT_EQ(hio_queue_inflight_get(q), 0u);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.write_ios, ops);
  EXPECT_EQ(st.read_ios, ops);
  EXPECT_EQ(st.flush_ios, 1u);
  EXPECT_EQ(st.completed, 2 * ops + 1);
}

INSTANTIATE_TEST_SUITE_P(Matrix, SyncRoundTrip, testing::ValuesIn(configs()),
                         [](const auto& info) { return config_name(info.param); });

}  // namespace

// Buffered files take any offset and length.
TEST(RoundTripUring, BufferedUnalignedOffsetsAndLengths) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 8);
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 64 * KiB};
  int t = hio_queue_open(q, f.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  std::vector<uint8_t> w(1000), r(1000);
  for (uint64_t off : {3ull, 517ull, 4095ull, 60001ull}) {
    fill(w.data(), w.size(), off);
    ASSERT_EQ(hio_write(q, t, w.data(), 1000, off), 1000) << hio_last_error();
    ASSERT_EQ(hio_read(q, t, r.data(), 1000, off), 1000) << hio_last_error();
    EXPECT_EQ(w, r) << off;
  }
}

// A write past the end of a regular file extends it, after which the new
// range can be read.
TEST(RoundTripUring, WritePastEndExtendsFile) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 4);
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 16 * KiB};
  int t = hio_queue_open(q, f.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf w = aligned_buf(8192), r = aligned_buf(8192);
  fill(w.get(), 8192, 5);
  ASSERT_EQ(hio_write(q, t, w.get(), 8192, 12 * KiB), 8192) << hio_last_error();
  hio_target_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(hio_target_info_get(q, t, &info), 0);
  EXPECT_EQ(info.size, 20 * KiB);
  ASSERT_EQ(hio_read(q, t, r.get(), 8192, 12 * KiB), 8192) << hio_last_error();
  EXPECT_EQ(std::memcmp(w.get(), r.get(), 8192), 0);
}

// I/O inside a registered buffer goes through io_uring's fixed-buffer path.
TEST(RoundTripUring, RegisteredBuffer) {
  REQUIRE_SCRATCH();
  Buf mem = aligned_buf(2 * 256 * KiB);  // outlives the queue
  Engine e;
  Queue q(e, 16);
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 1 * MiB};
  int t = hio_queue_open(q, f.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  ASSERT_EQ(hio_queue_register_buffer(q, mem.get(), 2 * 256 * KiB), 0) << hio_last_error();
  uint8_t* w = mem.get();
  uint8_t* r = mem.get() + 256 * KiB;
  fill(w, 256 * KiB, 77);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 16; i++) ios.push_back({HIO_OP_WRITE, t, w + i * 16 * KiB, 16 * KiB, i * 16 * KiB, i});
  run_ios_ok(q, ios, 16);
  for (auto& io : ios) io.op = HIO_OP_READ, io.buf = static_cast<uint8_t*>(io.buf) + 256 * KiB;
  run_ios_ok(q, ios, 16);
  EXPECT_EQ(std::memcmp(w, r, 256 * KiB), 0);
}

// Queues of one engine share an emulated device: what one writes, another
// reads. Another engine has a device of its own.
TEST(RoundTripEmu, DeviceSharedByQueuesOfOneEngine) {
  Engine e, other;
  Queue q1(e, 4), q2(e, 4), q3(other, 4);
  const char* spec = "emu:pcie4,size=16m";
  int t1 = hio_queue_open(q1, spec, nullptr), t2 = hio_queue_open(q2, spec, nullptr),
      t3 = hio_queue_open(q3, spec, nullptr);
  ASSERT_GE(t1, 0) << hio_last_error();
  ASSERT_GE(t2, 0) << hio_last_error();
  ASSERT_GE(t3, 0) << hio_last_error();
  Buf w = aligned_buf(4096), r = aligned_buf(4096), zero = aligned_buf(4096);
  fill(w.get(), 4096, 3);
  ASSERT_EQ(hio_write(q1, t1, w.get(), 4096, 1 * MiB), 4096) << hio_last_error();
  ASSERT_EQ(hio_read(q2, t2, r.get(), 4096, 1 * MiB), 4096) << hio_last_error();
  EXPECT_EQ(std::memcmp(w.get(), r.get(), 4096), 0);
  ASSERT_EQ(hio_read(q3, t3, r.get(), 4096, 1 * MiB), 4096) << hio_last_error();
  EXPECT_EQ(std::memcmp(zero.get(), r.get(), 4096), 0) << "another engine's device holds the data";
}

TEST(RoundTripEmu, CapacityFromSpecOrOpenOptions) {
  Engine e;
  Queue q(e, 4);
  hio_open_opts o{sizeof(hio_open_opts), 0, 2 * MiB};
  int a = hio_queue_open(q, "emu:pcie4", &o);
  int b = hio_queue_open(q, "emu:nand,size=8m,lba=4096", &o);
  ASSERT_GE(a, 0) << hio_last_error();
  ASSERT_GE(b, 0) << hio_last_error();
  EXPECT_NE(a, b);
  hio_target_info ia{}, ib{};
  ia.struct_size = sizeof ia;
  ib.struct_size = sizeof ib;
  ASSERT_EQ(hio_target_info_get(q, a, &ia), 0);
  ASSERT_EQ(hio_target_info_get(q, b, &ib), 0);
  EXPECT_EQ(ia.size, 2 * MiB);
  EXPECT_EQ(ia.offset_align, 512u);
  EXPECT_EQ(ia.emulated, 1);
  EXPECT_STREQ(ia.backend, "emu");
  EXPECT_EQ(ib.size, 8 * MiB);
  EXPECT_EQ(ib.offset_align, 4096u);
}

// Never-written blocks of an emulated device read as zeros.
TEST(RoundTripEmu, UnwrittenBlocksReadZero) {
  Engine e;
  Queue q(e, 4);
  int t = hio_queue_open(q, "emu:pcie4,size=4m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf r = aligned_buf(64 * KiB), zero = aligned_buf(64 * KiB);
  std::memset(r.get(), 0xab, 64 * KiB);
  ASSERT_EQ(hio_read(q, t, r.get(), 64 * KiB, 1 * MiB), int64_t(64 * KiB)) << hio_last_error();
  EXPECT_EQ(std::memcmp(r.get(), zero.get(), 64 * KiB), 0);
}

// A sync helper called while async commands are in flight sets their
// completions aside; the next hio_reap returns every one of them.
TEST(RoundTripEmu, SyncHelperAmidAsyncCommands) {
  Engine e;
  Queue q(e, 16);
  int t = hio_queue_open(q, "emu:nand,size=16m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf w = aligned_buf(8 * 4096), r = aligned_buf(4096);
  fill(w.get(), 8 * 4096, 11);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 8; i++) ios.push_back({HIO_OP_WRITE, t, w.get() + i * 4096, 4096, i * 4096, 100 + i});
  ASSERT_EQ(hio_submit(q, ios.data(), 8, 0), 8) << hio_last_error();
  ASSERT_EQ(hio_read(q, t, r.get(), 4096, 1 * MiB), 4096) << hio_last_error();
  EXPECT_EQ(hio_queue_inflight_get(q), 8u);
  auto cs = reap_n(q, 8, 3);
  std::vector<int> seen(8, 0);
  for (const auto& c : cs) {
    ASSERT_GE(c.tag, 100u);
    ASSERT_LT(c.tag, 108u);
    seen[c.tag - 100]++;
    EXPECT_EQ(c.res, 4096);
    EXPECT_EQ(c.op, HIO_OP_WRITE);
    EXPECT_EQ(c.offset, (c.tag - 100) * 4096);
  }
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_EQ(hio_queue_inflight_get(q), 0u);
}

// hio_reap with min_complete 0 never waits, but returns what has completed.
TEST(Reap, NonBlockingReapReturnsCompletions) {
  Engine e;
  Queue q(e, 4);
  int t = hio_queue_open(q, "emu:pcie4,size=4m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(4096);
  hio_io io{HIO_OP_READ, t, b.get(), 4096, 0, 42};
  ASSERT_EQ(hio_submit(q, &io, 1, 0), 1) << hio_last_error();
  // The device needs microseconds; give it up to a second of polls.
  hio_completion c{};
  int got = 0;
  for (int i = 0; i < 1000 && got == 0; i++) {
    got = hio_reap(q, &c, 1, 0);
    ASSERT_GE(got, 0) << hio_last_error();
    if (!got) usleep(1000);
  }
  ASSERT_EQ(got, 1) << "a non-blocking hio_reap never returned the completed command";
  EXPECT_EQ(c.tag, 42u);
  EXPECT_EQ(c.res, 4096);
}

// Deferred commands go to the device at the next hio_reap, even one that
// finds other completions already there. Seen from a second queue on the
// same emulated device, which holds a write's data once it is handed over.
TEST(Reap, DeferredCommandsReachDeviceAtNextReap) {
  Engine e;
  Queue q(e, 4), other(e, 4);
  const char* spec = "emu:pcie4,size=4m";
  int t = hio_queue_open(q, spec, nullptr), t2 = hio_queue_open(other, spec, nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  ASSERT_GE(t2, 0) << hio_last_error();
  Buf b = aligned_buf(4096), w = aligned_buf(4096), r = aligned_buf(4096);
  fill(w.get(), 4096, 9);
  hio_io a{HIO_OP_READ, t, b.get(), 4096, 0, 1};
  hio_io d{HIO_OP_WRITE, t, w.get(), 4096, 8192, 2};
  ASSERT_EQ(hio_submit(q, &a, 1, 0), 1) << hio_last_error();
  usleep(2000);  // let `a` complete, so the next reap finds it without waiting
  ASSERT_EQ(hio_submit(q, &d, 1, HIO_SUBMIT_DEFER), 1) << hio_last_error();
  hio_completion c{};
  ASSERT_EQ(hio_reap(q, &c, 1, 1), 1) << hio_last_error();
  EXPECT_EQ(c.tag, 1u);
  ASSERT_EQ(hio_read(other, t2, r.get(), 4096, 8192), 4096) << hio_last_error();
  EXPECT_EQ(std::memcmp(w.get(), r.get(), 4096), 0) << "the deferred write was not handed to the device by hio_reap";
  ASSERT_EQ(hio_reap(q, &c, 1, 1), 1) << hio_last_error();
  EXPECT_EQ(c.tag, 2u);
  EXPECT_EQ(c.res, 4096);
}

// A batch submitted with HIO_SUBMIT_DEFER completes under a blocking reap.
TEST(Reap, DeferredBatchCompletesUnderBlockingReap) {
  Engine e;
  Queue q(e, 32);
  int t = hio_queue_open(q, "emu:pcie4,size=4m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(32 * 4096);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 32; i++) ios.push_back({HIO_OP_READ, t, b.get() + i * 4096, 4096, i * 4096, i});
  for (uint32_t i = 0; i < 32; i += 8) ASSERT_EQ(hio_submit(q, &ios[i], 8, HIO_SUBMIT_DEFER), 8);
  EXPECT_EQ(hio_queue_inflight_get(q), 32u);
  auto cs = reap_n(q, 32, 32);
  std::vector<int> seen(32, 0);
  for (const auto& c : cs) {
    ASSERT_LT(c.tag, 32u);
    seen[c.tag]++;
    EXPECT_EQ(c.res, 4096);
  }
  for (int s : seen) EXPECT_EQ(s, 1);
}

// Asking for more completions than are in flight returns what there is
// instead of waiting forever.
TEST(Reap, MinCompleteBeyondInflightDoesNotHang) {
  Engine e;
  Queue q(e, 8);
  int t = hio_queue_open(q, "emu:pcie4,size=4m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(2 * 4096);
  hio_io ios[2] = {{HIO_OP_READ, t, b.get(), 4096, 0, 0}, {HIO_OP_READ, t, b.get() + 4096, 4096, 4096, 1}};
  ASSERT_EQ(hio_submit(q, ios, 2, 0), 2);
  hio_completion cs[8];
  int got = 0;
  while (got < 2) {
    int r = hio_reap(q, cs, 8, 8);
    ASSERT_GT(r, 0) << hio_last_error();
    got += r;
  }
  EXPECT_EQ(got, 2);
  EXPECT_EQ(hio_reap(q, cs, 8, 8), 0);  // nothing in flight: returns at once
}
