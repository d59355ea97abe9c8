// SPDX-License-Identifier: MIT
// Failures: injected device faults and every rejected call, each with the
// errno and a message naming what was wrong.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_util.hpp"

using namespace hiotest;

namespace {

struct StratKind {
  const char* name;
  hio_strategy s;
};

// An injected EIO completes (it does not hang the reaper) in every strategy.
class FaultInjection : public testing::TestWithParam<StratKind> {
 protected:
  void open(const char* spec) {
    t_ = hio_queue_open(q_, spec, nullptr);
    ASSERT_GE(t_, 0) << hio_last_error();
  }
  // One 4 KiB command per block 0..n-1, op per block.
  std::vector<hio_completion> run(hio_op op, unsigned n) {
    std::vector<hio_io> ios;
    for (uint32_t i = 0; i < n; i++) ios.push_back({op, t_, buf_.get() + i * 4096, 4096, i * 4096ull, i});
    return run_ios(q_, ios, 8);
  }
  Engine e_;
  Queue q_{e_, 8, GetParam().s};
  int t_ = -1;
  Buf buf_ = aligned_buf(16 * 4096);
};

TEST_P(FaultInjection, FailOffsetFailsOnlyTheCommandCoveringIt) {
  const char* spec = "emu:pcie4,fail_offset=8192,size=16m";
  open(spec);
  for (hio_op op : {HIO_OP_WRITE, HIO_OP_READ}) {
    auto cs = run(op, 8);
    for (uint32_t i = 0; i < 8; i++) EXPECT_EQ(cs[i].res, i == 2 ? -EIO : 4096) << "block " << i << " op " << op;
    // The completion names the command.
    EXPECT_EQ(cs[2].offset, 8192u);
    EXPECT_EQ(cs[2].op, op);
    EXPECT_EQ(cs[2].len, 4096u);
    EXPECT_EQ(cs[2].target, t_);
  }
  // A command covering the offset without starting there fails too.
  hio_io io{HIO_OP_READ, t_, buf_.get(), 8192, 4096, 0};
  auto cs = run_ios(q_, {io}, 1);
  EXPECT_EQ(cs[0].res, -EIO);

  // The sync helpers return -EIO with a message naming op, offset, target, errno.
  EXPECT_EQ(hio_read(q_, t_, buf_.get(), 4096, 8192), -EIO);
  std::string msg = hio_last_error();
  for (const char* m : {"read", "offset 8192", spec, "errno 5"}) EXPECT_TRUE(Contains(msg, m));
  EXPECT_EQ(hio_write(q_, t_, buf_.get(), 4096, 8192), -EIO);
  msg = hio_last_error();
  for (const char* m : {"write", "offset 8192", spec, "errno 5"}) EXPECT_TRUE(Contains(msg, m));
  EXPECT_EQ(hio_read(q_, t_, buf_.get(), 4096, 12288), 4096) << hio_last_error();

  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q_, &st), 0);
  EXPECT_EQ(st.errors, 5u);
  EXPECT_EQ(st.completed, 8u + 8u + 1u + 3u);
  EXPECT_EQ(st.write_ios, 7u);  // failed commands are not in the latency stats
  EXPECT_EQ(st.read_ios, 8u);
  EXPECT_EQ(st.read_bytes, 8u * 4096);
}

TEST_P(FaultInjection, FailRateOneFailsEverything) {
  open("emu:pcie4,fail_rate=1,size=16m");
  for (hio_op op : {HIO_OP_WRITE, HIO_OP_READ})
    for (const auto& c : run(op, 16)) EXPECT_EQ(c.res, -EIO) << "op " << op << " tag " << c.tag;
  EXPECT_EQ(hio_flush(q_, t_), -EIO);
  EXPECT_TRUE(Contains(hio_last_error(), "flush"));
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q_, &st), 0);
  EXPECT_EQ(st.errors, 33u);
  EXPECT_EQ(st.read_ios + st.write_ios + st.flush_ios, 0u);
}

TEST_P(FaultInjection, FailOpWriteFailsOnlyWrites) {
  open("emu:pcie4,fail_op=write,fail_rate=1,size=16m");
  for (const auto& c : run(HIO_OP_WRITE, 8)) EXPECT_EQ(c.res, -EIO);
  for (const auto& c : run(HIO_OP_READ, 8)) EXPECT_EQ(c.res, 4096);
  EXPECT_EQ(hio_flush(q_, t_), 0) << hio_last_error();
}

TEST_P(FaultInjection, FailOpWithFailOffsetSparesOtherOps) {
  open("emu:pcie4,fail_op=read,fail_offset=0,size=16m");
  EXPECT_EQ(hio_write(q_, t_, buf_.get(), 4096, 0), 4096) << hio_last_error();
  EXPECT_EQ(hio_read(q_, t_, buf_.get(), 4096, 0), -EIO);
}

TEST_P(FaultInjection, FailOpFlush) {
  open("emu:pcie4,fail_op=flush,fail_rate=1,size=16m");
  EXPECT_EQ(hio_write(q_, t_, buf_.get(), 4096, 0), 4096) << hio_last_error();
  EXPECT_EQ(hio_flush(q_, t_), -EIO);
  EXPECT_TRUE(Contains(hio_last_error(), "flush"));
  EXPECT_TRUE(Contains(hio_last_error(), "errno 5"));
}

TEST_P(FaultInjection, SlowCommandsStillCarryTheRightData) {
  open("emu:pcie4,slow_rate=0.5,slow_factor=20,size=16m");
  Buf w = aligned_buf(16 * 4096);
  fill(w.get(), 16 * 4096, 21);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 16; i++) ios.push_back({HIO_OP_WRITE, t_, w.get() + i * 4096, 4096, i * 4096ull, i});
  run_ios_ok(q_, ios, 8);
  for (const auto& c : run(HIO_OP_READ, 16)) EXPECT_EQ(c.res, 4096);
  EXPECT_EQ(std::memcmp(w.get(), buf_.get(), 16 * 4096), 0);
}

INSTANTIATE_TEST_SUITE_P(Strategies, FaultInjection,
                         testing::Values(StratKind{"interrupt", strat(HIO_WAIT_INTERRUPT)},
                                         StratKind{"poll", strat(HIO_WAIT_POLL)},
                                         StratKind{"hybrid2us", strat(HIO_WAIT_HYBRID, 2000)},
                                         StratKind{"hybridfrac", strat(HIO_WAIT_HYBRID, 0, 0.5)}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace

// A write covering corrupt_offset stores that byte with its low bit flipped.
TEST(Fault, CorruptOffsetFlipsOneStoredBit) {
  Engine e;
  Queue q(e, 4);
  int t = hio_queue_open(q, "emu:pcie4,corrupt_offset=4100,size=4m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf w = aligned_buf(8192), r = aligned_buf(8192);
  fill(w.get(), 8192, 1);
  ASSERT_EQ(hio_write(q, t, w.get(), 8192, 0), 8192) << hio_last_error();
  ASSERT_EQ(hio_read(q, t, r.get(), 8192, 0), 8192) << hio_last_error();
  for (size_t i = 0; i < 8192; i++) EXPECT_EQ(r[i], i == 4100 ? uint8_t(w[i] ^ 1) : w[i]) << i;
}

TEST(Describe, FailedAndSuccessfulCompletions) {
  Engine e;
  Queue q(e, 4);
  const char* spec = "emu:pcie4,fail_offset=4096,size=4m";
  int t = hio_queue_open(q, spec, nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(8192);
  auto cs = run_ios(q, {{HIO_OP_READ, t, b.get(), 4096, 0, 0}, {HIO_OP_READ, t, b.get() + 4096, 4096, 4096, 1}}, 2);
  char buf[256];
  int n = hio_completion_describe(q, &cs[1], buf, sizeof buf);
  EXPECT_EQ(n, int(strlen(buf)));
  EXPECT_EQ(std::string(buf), std::string("read at offset 4096 of ") + spec + ": Input/output error (errno 5)");
  hio_completion_describe(q, &cs[0], buf, sizeof buf);
  EXPECT_EQ(std::string(buf), std::string("read at offset 0 of ") + spec + ": 4096 bytes");
  // Truncated to the buffer, still terminated; the full length is returned.
  char small[8];
  int full = hio_completion_describe(q, &cs[1], small, sizeof small);
  EXPECT_EQ(std::string(small), "read at");
  EXPECT_GT(full, 8);
  EXPECT_EQ(hio_completion_describe(q, &cs[1], nullptr, 10), -EINVAL);
}

TEST(OpenError, MissingFileNamesPath) {
  Engine e;
  Queue q(e, 4);
  const char* path = "/nonexistent-hio-dir/missing.dat";
  EXPECT_EQ(hio_queue_open(q, path, nullptr), -ENOENT);
  EXPECT_TRUE(Contains(hio_last_error(), path));
}

TEST(OpenError, UnknownFlags) {
  Engine e;
  Queue q(e, 4);
  hio_open_opts o{sizeof(hio_open_opts), 0x80, 0};
  EXPECT_EQ(hio_queue_open(q, "emu:pcie4", &o), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "0x80"));
}

TEST(OpenError, BadEmuSpecNamesKey) {
  Engine e;
  Queue q(e, 4);
  EXPECT_EQ(hio_queue_open(q, "emu:pcie4,lat_us=fast", nullptr), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "'fast'"));
  EXPECT_TRUE(Contains(hio_last_error(), "lat_us"));
  EXPECT_EQ(hio_queue_open(q, "emu:pcie4,speed=1", nullptr), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "'speed'"));
  EXPECT_EQ(hio_queue_open(q, "emu:ssd", nullptr), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "'ssd'"));
}

TEST(OpenError, OneBackendPerQueue) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 4);
  ASSERT_GE(hio_queue_open(q, "emu:pcie4,size=1m", nullptr), 0) << hio_last_error();
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 4096};
  EXPECT_EQ(hio_queue_open(q, f.c_str(), &o), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "one backend"));
}

// The backend a spec needs is the one the queue opened it on.
TEST(OpenError, SpecBackendNamesTheQueuesBackend) {
  REQUIRE_SCRATCH();
  EXPECT_STREQ(hio_spec_backend("emu:pcie4,size=1m"), "emu");
  EXPECT_STREQ(hio_spec_backend("/dev/nvme0n1"), "uring");
  EXPECT_STREQ(hio_spec_backend("emu"), "uring");  // a file named emu
  EXPECT_STREQ(hio_spec_backend(nullptr), "uring");
  Engine e;
  Queue emu(e, 4), files(e, 4);
  hio_target_info info{};
  info.struct_size = sizeof info;
  ASSERT_GE(hio_queue_open(emu, "emu:pcie4,size=1m", nullptr), 0) << hio_last_error();
  ASSERT_EQ(hio_target_info_get(emu, 0, &info), 0);
  EXPECT_STREQ(info.backend, hio_spec_backend("emu:pcie4,size=1m"));
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 4096};
  ASSERT_GE(hio_queue_open(files, f.c_str(), &o), 0) << hio_last_error();
  ASSERT_EQ(hio_target_info_get(files, 0, &info), 0);
  EXPECT_STREQ(info.backend, hio_spec_backend(f.c_str()));
}

// "The first target fixes the queue's backend": an open that failed opened
// no target, so it must not fix the backend.
TEST(OpenError, FailedFirstOpenDoesNotFixBackend) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 4);
  EXPECT_EQ(hio_queue_open(q, "emu:pcie5", nullptr), -EINVAL);  // a typo
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 4096};
  EXPECT_GE(hio_queue_open(q, f.c_str(), &o), 0) << hio_last_error();
}

TEST(QueueError, BadDepthAndFlags) {
  Engine e;
  for (unsigned d : {0u, 5000u}) {
    Queue q(e, d);
    EXPECT_EQ(q.rc(), -EINVAL) << d;
    EXPECT_TRUE(Contains(q.err(), std::to_string(d)));
    EXPECT_EQ(static_cast<hio_queue*>(q), nullptr);
  }
  for (unsigned d : {1u, 4096u}) {
    Queue q(e, d);
    EXPECT_EQ(q.rc(), 0) << q.err();
  }
  Queue bad_flags(e, 4, {}, 0x10);
  EXPECT_EQ(bad_flags.rc(), -EINVAL);
  EXPECT_TRUE(Contains(bad_flags.err(), "0x10"));
}

TEST(QueueError, BadStrategyAtCreate) {
  Engine e;
  // 7: outside the modes, inside the enum's range (no UB in C++).
  Queue mode(e, 4, strat(hio_wait_mode(7)));
  EXPECT_EQ(mode.rc(), -EINVAL);
  EXPECT_TRUE(Contains(mode.err(), "wait mode 7"));
  Queue frac(e, 4, strat(HIO_WAIT_HYBRID, 0, 11));
  EXPECT_EQ(frac.rc(), -EINVAL);
  EXPECT_TRUE(Contains(frac.err(), "11"));
  Queue sleep(e, 4, strat(HIO_WAIT_HYBRID, 2000000000ull));
  EXPECT_EQ(sleep.rc(), -EINVAL);
  EXPECT_TRUE(Contains(sleep.err(), "2000000000"));
}

TEST(QueueError, UnknownWaitModeString) {
  hio_wait_mode m = HIO_WAIT_POLL;
  EXPECT_EQ(hio_wait_mode_parse("turbo", &m), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "'turbo'"));
  EXPECT_EQ(m, HIO_WAIT_POLL);
  EXPECT_EQ(hio_wait_mode_parse("", &m), -EINVAL);
  EXPECT_EQ(hio_wait_mode_parse("Poll", &m), -EINVAL);  // names are exact
  EXPECT_EQ(hio_wait_mode_parse(nullptr, &m), -EINVAL);
  for (int i = HIO_WAIT_INTERRUPT; i <= HIO_WAIT_ADAPTIVE; i++) {
    ASSERT_EQ(hio_wait_mode_parse(hio_wait_mode_name(hio_wait_mode(i)), &m), 0);
    EXPECT_EQ(m, i);
  }
  EXPECT_STREQ(hio_wait_mode_name(HIO_WAIT_HYBRID_IOPOLL), "hybrid_iopoll");
  EXPECT_STREQ(hio_wait_mode_name(hio_wait_mode(7)), "unknown");
}

// Commands the queue must refuse before they reach a device.
class SubmitError : public testing::Test {
 protected:
  Engine e_;
  Queue q_{e_, 4};
  Buf buf_ = aligned_buf(16 * KiB);
};

TEST_F(SubmitError, NoTargetOpen) {
  hio_io io{HIO_OP_READ, 0, buf_.get(), 4096, 0, 0};
  EXPECT_EQ(hio_submit(q_, &io, 1, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "no target"));
}

TEST_F(SubmitError, BadTargetId) {
  int t = hio_queue_open(q_, "emu:pcie4,size=1m", nullptr);
  ASSERT_EQ(t, 0) << hio_last_error();
  hio_io io{HIO_OP_READ, 3, buf_.get(), 4096, 0, 0};
  EXPECT_EQ(hio_submit(q_, &io, 1, 0), -EBADF);
  EXPECT_TRUE(Contains(hio_last_error(), "no target 3"));
  EXPECT_EQ(hio_read(q_, -1, buf_.get(), 4096, 0), -EBADF);
  EXPECT_TRUE(Contains(hio_last_error(), "-1"));
  EXPECT_EQ(hio_flush(q_, 7), -EBADF);
  hio_target_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(hio_target_info_get(q_, 9, &info), -EBADF);
  EXPECT_EQ(hio_queue_inflight_get(q_), 0u);
}

TEST_F(SubmitError, EmuAlignmentAndRange) {
  const char* spec = "emu:pcie4,size=1m";
  int t = hio_queue_open(q_, spec, nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 100), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "offset 100"));
  EXPECT_TRUE(Contains(hio_last_error(), "512"));
  EXPECT_EQ(hio_write(q_, t, buf_.get(), 1000, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "length 1000"));
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 0, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "empty"));
  EXPECT_EQ(hio_read(q_, t, nullptr, 4096, 0), -EINVAL);
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 1 * MiB), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "past the end"));
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 8192, 1 * MiB - 4096), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "past the end"));
  // An emulated device does not grow.
  EXPECT_EQ(hio_write(q_, t, buf_.get(), 4096, 1 * MiB), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "past the end"));
  // The last block is fine.
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 1 * MiB - 4096), 4096) << hio_last_error();
  EXPECT_EQ(hio_queue_inflight_get(q_), 0u);
}

TEST_F(SubmitError, EmuLargeBlockSize) {
  int t = hio_queue_open(q_, "emu:pcie4,lba=4096,size=1m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 512, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "4096"));
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 512), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "offset 512"));
}

// offset + len must not wrap around 2^64 and slip past the range check.
TEST_F(SubmitError, OffsetNearTheTopOfTheRangeIsPastTheEnd) {
  int t = hio_queue_open(q_, "emu:pcie4,size=1m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  uint64_t off = UINT64_MAX - 4095;  // a multiple of 512; off + 4096 wraps to 0
  int64_t rr = hio_read(q_, t, buf_.get(), 4096, off);
  EXPECT_EQ(rr, -EINVAL) << "a read at offset " << off << " of a 1 MiB device was accepted";
  if (rr == -EINVAL) {
    EXPECT_TRUE(Contains(hio_last_error(), "past the end"));
  }
  hio_io io{HIO_OP_READ, t, buf_.get(), 4096, off, 0};
  int r = hio_submit(q_, &io, 1, 0);
  EXPECT_EQ(r, -EINVAL);
  if (r > 0) reap_n(q_, unsigned(r));
}

// The same for a write, which would store its data outside the device's
// memory: run in a child process, so that a crash fails only this test.
TEST(SubmitErrorDeathTest, WriteNearTheTopOfTheRangeIsRefused) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        Engine e;
        Queue q(e, 4);
        int t = hio_queue_open(q, "emu:pcie4,size=1m", nullptr);
        Buf b = aligned_buf(4096);
        int r = t < 0 ? t : int(hio_write(q, t, b.get(), 4096, UINT64_MAX - 4095));
        std::fprintf(stderr, "hio_write returned %d\n", r);
        std::exit(r == -EINVAL ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

TEST_F(SubmitError, QueueFull) {
  int t = hio_queue_open(q_, "emu:nand,size=1m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 5; i++) ios.push_back({HIO_OP_READ, t, buf_.get() + (i % 4) * 4096, 4096, i * 4096ull, i});
  // More than the depth at once: nothing is accepted.
  EXPECT_EQ(hio_submit(q_, ios.data(), 5, 0), -EBUSY);
  EXPECT_TRUE(Contains(hio_last_error(), "queue full"));
  EXPECT_EQ(hio_queue_inflight_get(q_), 0u);
  ASSERT_EQ(hio_submit(q_, ios.data(), 4, 0), 4);
  EXPECT_EQ(hio_submit(q_, &ios[4], 1, 0), -EBUSY);
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 0), -EBUSY);  // the sync helpers need a slot too
  EXPECT_EQ(hio_queue_inflight_get(q_), 4u);
  reap_n(q_, 4);
  EXPECT_EQ(hio_submit(q_, &ios[4], 1, 0), 1) << hio_last_error();
  reap_n(q_, 1);
}

// A bad command in a batch rejects the whole batch.
TEST_F(SubmitError, BadCommandRejectsBatch) {
  int t = hio_queue_open(q_, "emu:pcie4,size=1m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  hio_io ios[3] = {{HIO_OP_READ, t, buf_.get(), 4096, 0, 0},
                   {HIO_OP_READ, t, buf_.get() + 4096, 4096, 77, 1},
                   {HIO_OP_READ, t, buf_.get() + 8192, 4096, 8192, 2}};
  EXPECT_EQ(hio_submit(q_, ios, 3, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "offset 77"));
  EXPECT_EQ(hio_queue_inflight_get(q_), 0u);
  hio_io unknown{hio_op(3), t, buf_.get(), 4096, 0, 0};
  EXPECT_EQ(hio_submit(q_, &unknown, 1, 0), -EINVAL);
  EXPECT_EQ(hio_submit(q_, ios, 1, 0x40), -EINVAL);  // unknown submit flag
  hio_completion c;
  EXPECT_EQ(hio_reap(q_, &c, 1, 2), -EINVAL);  // min_complete > max
}

TEST_F(SubmitError, DirectIoAlignment) {
  REQUIRE_SCRATCH();
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 64 * KiB};
  int t = hio_queue_open(q_, f.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  hio_target_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(hio_target_info_get(q_, t, &info), 0);
  ASSERT_GT(info.offset_align, 1u);
  ASSERT_GT(info.mem_align, 1u);
  uint32_t oa = info.offset_align;
  std::string a = std::to_string(oa);
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, oa / 2), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "offset " + std::to_string(oa / 2)));
  EXPECT_TRUE(Contains(hio_last_error(), "O_DIRECT"));
  EXPECT_EQ(hio_write(q_, t, buf_.get(), oa + 1, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "length " + std::to_string(oa + 1)));
  EXPECT_EQ(hio_read(q_, t, buf_.get() + info.mem_align / 2, 4096, 0), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "not aligned to " + std::to_string(info.mem_align)));
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 64 * KiB), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "past the end"));
  EXPECT_TRUE(Contains(hio_last_error(), f.path()));
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 60 * KiB), 4096) << hio_last_error();
}

TEST_F(SubmitError, ReadOnlyTargetRejectsWrites) {
  REQUIRE_SCRATCH();
  TempFile f;
  {
    Queue w(e_, 1);
    hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 8 * KiB};
    ASSERT_GE(hio_queue_open(w, f.c_str(), &o), 0) << hio_last_error();
  }
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_RDONLY, 0};
  int t = hio_queue_open(q_, f.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  EXPECT_EQ(hio_read(q_, t, buf_.get(), 4096, 0), 4096) << hio_last_error();
  EXPECT_EQ(hio_write(q_, t, buf_.get(), 4096, 0), -EBADF);
  EXPECT_TRUE(Contains(hio_last_error(), "write"));
  EXPECT_TRUE(Contains(hio_last_error(), "errno 9"));
}

TEST(ApiError, NullArguments) {
  EXPECT_EQ(hio_engine_create(nullptr), -EINVAL);
  Engine e;
  hio_queue* q = nullptr;
  EXPECT_EQ(hio_queue_create(e, nullptr, &q), -EINVAL);
  Queue qq(e, 4);
  EXPECT_EQ(hio_queue_open(qq, nullptr, nullptr), -EINVAL);
  EXPECT_EQ(hio_queue_strategy_set(qq, nullptr), -EINVAL);
  EXPECT_EQ(hio_queue_stats_get(qq, nullptr), -EINVAL);
  EXPECT_EQ(hio_queue_inflight_get(nullptr), 0u);
  EXPECT_EQ(hio_queue_register_buffer(qq, nullptr, 4096), -EINVAL);
  // Nothing open yet: there is no ring to register a buffer with.
  Buf b = aligned_buf(4096);
  EXPECT_EQ(hio_queue_register_buffer(qq, b.get(), 4096), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "open a target"));
}
