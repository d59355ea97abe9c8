// SPDX-License-Identifier: MIT
// A lone read or write waited for by interrupt is one blocking system call on
// the file (Queue::blocking_io), through the queue API and through handles;
// anything else goes through the ring. The thread's read/write system calls
// (/proc/thread-self/io: syscr, syscw) tell the two apart: io_uring's are
// not counted there.
#include <gtest/gtest.h>

#include <unistd.h>
#include <atomic>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "adaptive/governor.hpp"
#include "hybridio/hio_adaptive.h"
#include "pinned_signals.hpp"
#include "test_util.hpp"
#include "util/clock.hpp"
#include "wait/waiter.hpp"

using namespace hiotest;

namespace {

struct SysCalls {
  uint64_t reads = 0, writes = 0;
};

SysCalls syscalls() {
  SysCalls s;
  std::ifstream f("/proc/thread-self/io");
  std::string k;
  uint64_t v;
  while (f >> k >> v) {
    if (k == "syscr:") s.reads = v;
    if (k == "syscw:") s.writes = v;
  }
  return s;
}

constexpr uint32_t kLen = 4096;

class Blocking : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_SCRATCH();
    if (syscalls().reads == 0) GTEST_SKIP() << "no /proc/thread-self/io here";
  }
  Engine e_;
  TempFile f_;
};

TEST_F(Blocking, ALoneSyncCommandByInterruptIsOneSystemCall) {
  Queue q(e_, 8, strat(HIO_WAIT_INTERRUPT));
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 64 * KiB};
  int t = hio_queue_open(q, f_.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf w = aligned_buf(kLen), r = aligned_buf(kLen);
  SysCalls before = syscalls();
  for (uint64_t i = 0; i < 8; i++) {
    fill(w.get(), kLen, i);
    ASSERT_EQ(hio_write(q, t, w.get(), kLen, i * kLen), kLen) << hio_last_error();
    ASSERT_EQ(hio_read(q, t, r.get(), kLen, i * kLen), kLen) << hio_last_error();
    EXPECT_EQ(std::memcmp(w.get(), r.get(), kLen), 0) << i;
  }
  SysCalls after = syscalls();
  EXPECT_GE(after.reads - before.reads, 8u);
  EXPECT_GE(after.writes - before.writes, 8u);
  // Counted as the ring's completions are.
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.completed, 16u);
  EXPECT_EQ(st.submitted, 16u);
  EXPECT_GT(st.sleep_ns, 0u);
  EXPECT_EQ(st.spin_ns, 0u);
  uint64_t p50 = 0;
  const double pct = 50;
  ASSERT_EQ(hio_queue_percentiles_get(q, HIO_OP_READ, &pct, 1, &p50), 0);
  EXPECT_GT(p50, 0u);
  // A write past the end grew the target.
  hio_target_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(hio_target_info_get(q, t, &info), 0);
  EXPECT_EQ(info.size, 64 * KiB);
  ASSERT_EQ(hio_write(q, t, w.get(), kLen, 64 * KiB), kLen);
  ASSERT_EQ(hio_target_info_get(q, t, &info), 0);
  EXPECT_EQ(info.size, 64 * KiB + kLen);
}

TEST_F(Blocking, PollingAndCommandsInFlightGoThroughTheRing) {
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 64 * KiB};
  Buf w = aligned_buf(kLen), r = aligned_buf(kLen), r2 = aligned_buf(kLen);
  fill(w.get(), kLen, 7);
  {
    Queue q(e_, 8, strat(HIO_WAIT_POLL));
    int t = hio_queue_open(q, f_.c_str(), &o);
    ASSERT_GE(t, 0) << hio_last_error();
    SysCalls before = syscalls();
    for (int i = 0; i < 8; i++) ASSERT_EQ(hio_read(q, t, r.get(), kLen, 0), kLen) << hio_last_error();
    EXPECT_LT(syscalls().reads - before.reads, 8u) << "polling reads went through read system calls";
  }
  Queue q(e_, 8, strat(HIO_WAIT_INTERRUPT));
  int t = hio_queue_open(q, f_.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  ASSERT_EQ(hio_write(q, t, w.get(), kLen, kLen), kLen);
  // One command in flight: the synchronous read queues behind it, and both complete.
  hio_io io{HIO_OP_READ, t, r2.get(), kLen, kLen, 42};
  ASSERT_EQ(hio_submit(q, &io, 1, 0), 1) << hio_last_error();
  // Reading the counters is itself a read system call or two.
  SysCalls a = syscalls(), b = syscalls();
  SysCalls before = syscalls();
  ASSERT_EQ(hio_read(q, t, r.get(), kLen, kLen), kLen) << hio_last_error();
  EXPECT_EQ(syscalls().reads - before.reads, b.reads - a.reads) << "a read beside one in flight was a read system call";
  hio_completion c{};
  ASSERT_EQ(hio_reap(q, &c, 1, 1), 1) << hio_last_error();
  EXPECT_EQ(c.tag, 42u);
  EXPECT_EQ(c.res, int32_t(kLen));
  EXPECT_EQ(std::memcmp(w.get(), r.get(), kLen), 0);
  EXPECT_EQ(std::memcmp(w.get(), r2.get(), kLen), 0);
}

TEST_F(Blocking, HandlesWithoutACacheTakeItAndAReadOfThePartialLastPageComesBackShort) {
  hio_handle_opts o{};
  o.struct_size = sizeof o;
  o.open = hio_open_opts{0, HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 16 * KiB + 100};
  o.strategy = strat(HIO_WAIT_INTERRUPT);
  hio_handle* h = nullptr;
  ASSERT_EQ(hio_handle_open(e_, f_.c_str(), &o, &h), 0) << hio_last_error();
  Buf w = aligned_buf(kLen), r = aligned_buf(kLen);
  fill(w.get(), kLen, 3);
  SysCalls before = syscalls();
  ASSERT_EQ(hio_handle_write(h, w.get(), kLen, 0), kLen) << hio_last_error();
  ASSERT_EQ(hio_handle_read(h, r.get(), kLen, 0), kLen) << hio_last_error();
  EXPECT_EQ(std::memcmp(w.get(), r.get(), kLen), 0);
  SysCalls after = syscalls();
  EXPECT_GE(after.reads - before.reads, 1u);
  EXPECT_GE(after.writes - before.writes, 1u);
  // The file's last page holds 100 bytes: a read of it returns them, as through the ring.
  EXPECT_EQ(hio_handle_read(h, r.get(), kLen, 16 * KiB), 100) << hio_last_error();
  hio_handle_stats hs{};
  hs.struct_size = sizeof hs;
  ASSERT_EQ(hio_handle_stats_get(h, &hs), 0);
  EXPECT_EQ(hs.completed, 3u);
  EXPECT_EQ(hio_handle_close(h), 0) << hio_last_error();
}

// A thread whose reads all take the blocking path never reaches the
// waiter, and is ours all the same (a database's compaction thread) once an
// adaptive queue samples in the process.
TEST_F(Blocking, ItsThreadIsOurs) {
  wait_adaptively_once(e_);
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 64 * KiB};
  std::atomic<pid_t> tid{0};
  std::thread t([&] {
    Queue q(e_, 4, strat(HIO_WAIT_INTERRUPT));
    int tg = hio_queue_open(q, f_.c_str(), &o);
    ASSERT_GE(tg, 0) << hio_last_error();
    Buf r = aligned_buf(kLen);
    SysCalls a = syscalls(), b = syscalls(), before = syscalls();
    ASSERT_EQ(hio_read(q, tg, r.get(), kLen, 0), kLen) << hio_last_error();
    ASSERT_GT(syscalls().reads - before.reads, b.reads - a.reads) << "the read did not take the blocking path";
    tid = pid_t(gettid());
    EXPECT_TRUE(hio::Governor::get().is_own(tid));
  });
  t.join();
  EXPECT_NE(tid.load(), 0);
}

// The emulated SSD and a file under emulated timing have no plain descriptor:
// their completions must wait for the model.
TEST_F(Blocking, EmulatedTimingIsNeverBypassed) {
  ASSERT_EQ(hio_engine_emulate(e_, "lat_us=300,jitter_us=0"), 0) << hio_last_error();
  Queue q(e_, 4, strat(HIO_WAIT_INTERRUPT));
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 64 * KiB};
  int t = hio_queue_open(q, f_.c_str(), &o);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf r = aligned_buf(kLen);
  uint64_t t0 = hio::now_ns();
  ASSERT_EQ(hio_read(q, t, r.get(), kLen, 0), kLen) << hio_last_error();
  EXPECT_GE(hio::now_ns() - t0, 300000u);
}

}  // namespace

namespace adaptive_blocking {

// A device whose commands are done by the second look at them: the first
// look, the waiter's own before it waits, finds nothing, so each wait is a
// real one.
class Instant final : public hio::Backend {
 public:
  const char* name() const override { return "instant"; }
  int open(const std::string&, const hio::OpenOptions&, hio::TargetInfo*) override { return 0; }
  int register_buffer(void*, size_t) override { return 0; }
  void prepare(const hio::Command&) override { queued_++; }
  int submit() override { return 0; }
  unsigned peek(hio::Cqe* out, unsigned max) override {
    if (!queued_ || !max) return 0;
    if (!looked_) {
      looked_ = true;
      return 0;
    }
    looked_ = false;
    queued_--;
    out[0] = hio::Cqe{0, int32_t(kLen)};
    return 1;
  }
  int wait(hio::Cqe* out, unsigned max) override { return int(peek(out, max)); }

 private:
  unsigned queued_ = 0;
  bool looked_ = false;
};

void wait_once(hio::Waiter& w, Instant& be) {
  hio::Cqe c[1];
  hio::WaitStats st;
  be.prepare(hio::Command{});
  ASSERT_EQ(w.wait(be, c, 1, 1, false, {}, st), 1);
  ASSERT_EQ(st.waits, 1u);
}

}  // namespace adaptive_blocking

// Adaptive takes the blocking path exactly while its tick waits by
// interrupt; a poller is never asked. Here the queue follows another of our
// queues, which leads the core and publishes the mode.
TEST(AdaptiveBlocking, OnlyWhileItsTickWaitsByInterrupt) {
  using namespace adaptive_blocking;
  hio::test::PinnedSignals on_core0(0);
  hio::Governor g(2, on_core0, false);
  hio::Waiter w(&g);
  hio_strategy s{};
  s.mode = HIO_WAIT_ADAPTIVE;
  w.set(s);
  Instant be;
  EXPECT_FALSE(w.begin_blocking(hio::now_ns())) << "before its first wait adaptive polls";
  hio::Adaptive lead({}, &g);
  ASSERT_EQ(lead.begin_wait(hio::now_ns()), hio::Mode::poll);
  wait_once(w, be);
  EXPECT_FALSE(w.begin_blocking(hio::now_ns())) << "a polling tick took the blocking path";
  g.set_core_mode(0, int(hio::Mode::interrupt));
  wait_once(w, be);
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  w.adaptive().view(&v);
  ASSERT_EQ(v.mode, HIO_WAIT_INTERRUPT) << "the queue did not follow the lead to interrupts";
  ASSERT_TRUE(w.begin_blocking(hio::now_ns()));
  w.end_blocking(50'000);
  lead.begin_wait(hio::now_ns());  // publishes its own mode again: poll
  wait_once(w, be);
  EXPECT_FALSE(w.begin_blocking(hio::now_ns())) << "following a poller, adaptive took the blocking path";
  w.adaptive().view(&v);
  EXPECT_EQ(v.mode, HIO_WAIT_POLL);
}
