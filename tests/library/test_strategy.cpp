// SPDX-License-Identifier: MIT
// Wait strategies: kernel-side modes and where they are refused, changing
// the strategy with commands in flight, and the statistics the queue keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "adaptive/governor.hpp"
#include "pinned_signals.hpp"
#include "test_util.hpp"
#include "wait/waiter.hpp"

using namespace hiotest;

// ---- kernel-side modes --------------------------------------------------------

// This machine's disks have no kernel poll queues (io_poll = 0), so the
// polling kernel modes are refused when the first file is opened.
class KernelPollModes : public testing::TestWithParam<hio_wait_mode> {};

TEST_P(KernelPollModes, RefusedWithoutPollQueues) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 8, strat(GetParam()));
  ASSERT_EQ(q.rc(), 0) << q.err();
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 64 * KiB};
  EXPECT_EQ(hio_queue_open(q, f.c_str(), &o), -EOPNOTSUPP);
  std::string msg = hio_last_error();
  EXPECT_TRUE(Contains(msg, "poll queues"));
  EXPECT_TRUE(Contains(msg, hio_wait_mode_name(GetParam())));
}

// Polling the device needs O_DIRECT: a buffered open is refused too.
TEST_P(KernelPollModes, RefusedForBufferedFiles) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 8, strat(GetParam()));
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 64 * KiB};
  EXPECT_LT(hio_queue_open(q, f.c_str(), &o), 0);
  EXPECT_TRUE(Contains(hio_last_error(), "O_DIRECT"));
}

INSTANTIATE_TEST_SUITE_P(Modes, KernelPollModes, testing::Values(HIO_WAIT_IOPOLL, HIO_WAIT_HYBRID_IOPOLL),
                         [](const auto& info) { return std::string(hio_wait_mode_name(info.param)); });

class KernelModesOnEmu : public testing::TestWithParam<hio_wait_mode> {};

TEST_P(KernelModesOnEmu, Refused) {
  Engine e;
  Queue q(e, 8, strat(GetParam()));
  ASSERT_EQ(q.rc(), 0) << q.err();
  EXPECT_EQ(hio_queue_open(q, "emu:pcie4,size=1m", nullptr), -EOPNOTSUPP);
  EXPECT_TRUE(Contains(hio_last_error(), hio_wait_mode_name(GetParam())));
  EXPECT_TRUE(Contains(hio_last_error(), "emu:pcie4"));
}

INSTANTIATE_TEST_SUITE_P(Modes, KernelModesOnEmu,
                         testing::Values(HIO_WAIT_IOPOLL, HIO_WAIT_HYBRID_IOPOLL, HIO_WAIT_SQPOLL),
                         [](const auto& info) { return std::string(hio_wait_mode_name(info.param)); });

TEST(KernelModes, CannotEnterAfterOpen) {
  Engine e;
  Queue q(e, 8);
  ASSERT_GE(hio_queue_open(q, "emu:pcie4,size=1m", nullptr), 0) << hio_last_error();
  for (hio_wait_mode m : {HIO_WAIT_IOPOLL, HIO_WAIT_HYBRID_IOPOLL, HIO_WAIT_SQPOLL}) {
    hio_strategy s = strat(m);
    EXPECT_EQ(hio_queue_strategy_set(q, &s), -EINVAL) << hio_wait_mode_name(m);
    EXPECT_TRUE(Contains(hio_last_error(), hio_wait_mode_name(m)));
  }
  hio_strategy cur;
  hio_strategy_init(&cur, sizeof cur);
  ASSERT_EQ(hio_queue_strategy_get(q, &cur), 0);
  EXPECT_EQ(cur.mode, HIO_WAIT_INTERRUPT);
}

TEST(KernelModes, PlainUringQueueCannotSwitchToIopoll) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 8, strat(HIO_WAIT_POLL));
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 64 * KiB};
  ASSERT_GE(hio_queue_open(q, f.c_str(), &o), 0) << hio_last_error();
  hio_strategy s = strat(HIO_WAIT_IOPOLL);
  EXPECT_EQ(hio_queue_strategy_set(q, &s), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "iopoll"));
  // The user-side modes remain interchangeable.
  for (hio_wait_mode m : {HIO_WAIT_INTERRUPT, HIO_WAIT_HYBRID, HIO_WAIT_POLL}) {
    s = strat(m);
    EXPECT_EQ(hio_queue_strategy_set(q, &s), 0) << hio_last_error();
  }
}

TEST(KernelModes, SqpollQueueCannotLeaveSqpoll) {
  REQUIRE_SCRATCH();
  Engine e;
  Queue q(e, 8, strat(HIO_WAIT_SQPOLL));
  TempFile f;
  hio_open_opts o{sizeof(hio_open_opts), HIO_OPEN_CREATE, 64 * KiB};
  ASSERT_GE(hio_queue_open(q, f.c_str(), &o), 0) << hio_last_error();
  for (hio_wait_mode m : {HIO_WAIT_INTERRUPT, HIO_WAIT_POLL, HIO_WAIT_HYBRID, HIO_WAIT_IOPOLL}) {
    hio_strategy s = strat(m);
    EXPECT_EQ(hio_queue_strategy_set(q, &s), -EINVAL) << hio_wait_mode_name(m);
    EXPECT_TRUE(Contains(hio_last_error(), "sqpoll"));
  }
  hio_strategy s = strat(HIO_WAIT_SQPOLL);
  EXPECT_EQ(hio_queue_strategy_set(q, &s), 0) << hio_last_error();
}

// Before the first open there is no ring: any mode may be chosen.
TEST(KernelModes, FreeToChooseBeforeOpen) {
  Engine e;
  Queue q(e, 8);
  for (int m = HIO_WAIT_INTERRUPT; m <= HIO_WAIT_ADAPTIVE; m++) {
    hio_strategy s = strat(hio_wait_mode(m));
    EXPECT_EQ(hio_queue_strategy_set(q, &s), 0) << hio_last_error();
  }
  hio_strategy s = strat(HIO_WAIT_POLL);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  EXPECT_GE(hio_queue_open(q, "emu:pcie4,size=1m", nullptr), 0) << hio_last_error();
}

// ---- strategy parameters ----------------------------------------------------------

TEST(Strategy, GetReturnsWhatWasSet) {
  Engine e;
  Queue q(e, 8);
  hio_strategy s = strat(HIO_WAIT_HYBRID, 2500), got = strat(HIO_WAIT_INTERRUPT);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  ASSERT_EQ(hio_queue_strategy_get(q, &got), 0);
  EXPECT_EQ(got.mode, HIO_WAIT_HYBRID);
  EXPECT_EQ(got.hybrid_sleep_ns, 2500u);
  s = strat(HIO_WAIT_HYBRID, 0, 0.25);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  ASSERT_EQ(hio_queue_strategy_get(q, &got), 0);
  EXPECT_EQ(got.hybrid_sleep_ns, 0u);
  EXPECT_EQ(got.hybrid_fraction, 0.25);
  // A fraction of 0 means Linux's 0.5.
  s = strat(HIO_WAIT_HYBRID);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  ASSERT_EQ(hio_queue_strategy_get(q, &got), 0);
  EXPECT_EQ(got.hybrid_fraction, 0.5);
}

TEST(Strategy, InvalidValuesRefusedAndPreviousKept) {
  Engine e;
  Queue q(e, 8, strat(HIO_WAIT_POLL));
  for (hio_strategy s : {strat(hio_wait_mode(7)), strat(hio_wait_mode(-1)), strat(HIO_WAIT_HYBRID, 0, -0.5),
                         strat(HIO_WAIT_HYBRID, 0, 10.5), strat(HIO_WAIT_HYBRID, 1000000001ull)}) {
    EXPECT_EQ(hio_queue_strategy_set(q, &s), -EINVAL);
    EXPECT_NE(std::string(hio_last_error()), "");
  }
  hio_strategy got;
  hio_strategy_init(&got, sizeof got);
  ASSERT_EQ(hio_queue_strategy_get(q, &got), 0);
  EXPECT_EQ(got.mode, HIO_WAIT_POLL);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.mode_changes, 0u);
}

// ---- changing strategy with commands in flight ------------------------------------------

// Each order of the three user-side modes: start in the first, switch to the
// next between partial reaps, and lose no completion on the way.
class StrategyChange : public testing::TestWithParam<std::vector<hio_wait_mode>> {};

TEST_P(StrategyChange, LosesNoCompletion) {
  const auto& modes = GetParam();
  auto to = [](hio_wait_mode m) { return m == HIO_WAIT_HYBRID ? strat(m, 0, 0.5) : strat(m); };
  Engine e;
  Queue q(e, 32, to(modes[0]));
  int t = hio_queue_open(q, "emu:nand,size=16m", nullptr);  // slow: commands stay in flight
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(32 * 4096);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 32; i++)
    ios.push_back({i % 2 ? HIO_OP_READ : HIO_OP_WRITE, t, b.get() + i * 4096, 4096, i * 4096ull, i});
  ASSERT_EQ(hio_submit(q, ios.data(), 32, 0), 32) << hio_last_error();

  std::vector<int> seen(32, 0);
  hio_completion cs[32];
  auto reap = [&](unsigned max, unsigned min) {
    int r = hio_reap(q, cs, max, min);
    ASSERT_GE(r, int(min)) << hio_last_error();
    for (int i = 0; i < r; i++) {
      ASSERT_LT(cs[i].tag, 32u);
      seen[cs[i].tag]++;
      EXPECT_EQ(cs[i].res, 4096);
    }
  };
  uint64_t changes = 0;
  // Change once before any reap, then between partial reaps of 5.
  for (size_t k = 1; k < modes.size() * 2; k++) {
    hio_strategy s = to(modes[k % modes.size()]);
    ASSERT_EQ(hio_queue_strategy_set(q, &s), 0) << hio_last_error();
    changes++;
    if (k > 1) reap(5, 5);
  }
  while (hio_queue_inflight_get(q) > 0) reap(32, 1);
  for (uint32_t i = 0; i < 32; i++) EXPECT_EQ(seen[i], 1) << "tag " << i;
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.mode_changes, changes);
  EXPECT_EQ(st.completed, 32u);
}

INSTANTIATE_TEST_SUITE_P(Orders, StrategyChange,
                         testing::Values(std::vector{HIO_WAIT_INTERRUPT, HIO_WAIT_POLL, HIO_WAIT_HYBRID},
                                         std::vector{HIO_WAIT_INTERRUPT, HIO_WAIT_HYBRID, HIO_WAIT_POLL},
                                         std::vector{HIO_WAIT_POLL, HIO_WAIT_INTERRUPT, HIO_WAIT_HYBRID},
                                         std::vector{HIO_WAIT_POLL, HIO_WAIT_HYBRID, HIO_WAIT_INTERRUPT},
                                         std::vector{HIO_WAIT_HYBRID, HIO_WAIT_INTERRUPT, HIO_WAIT_POLL},
                                         std::vector{HIO_WAIT_HYBRID, HIO_WAIT_POLL, HIO_WAIT_INTERRUPT}),
                         [](const auto& info) {
                           std::string n;
                           for (auto m : info.param) n += std::string(n.empty() ? "" : "_") + hio_wait_mode_name(m);
                           return n;
                         });

// Only a change of mode counts; new hybrid parameters are not a mode change.
TEST(Strategy, SameModeIsNotCountedAsAChange) {
  Engine e;
  Queue q(e, 4, strat(HIO_WAIT_HYBRID, 1000));
  hio_strategy s = strat(HIO_WAIT_HYBRID, 3000);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  s = strat(HIO_WAIT_POLL);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.mode_changes, 1u);
}

// ---- statistics -------------------------------------------------------------

namespace {

// n sync writes then n sync reads of 4 KiB on an emulated device.
void do_io(hio_queue* q, int t, unsigned n) {
  Buf b = aligned_buf(4096);
  for (unsigned i = 0; i < n; i++) ASSERT_EQ(hio_write(q, t, b.get(), 4096, i * 4096ull), 4096) << hio_last_error();
  for (unsigned i = 0; i < n; i++) ASSERT_EQ(hio_read(q, t, b.get(), 4096, i * 4096ull), 4096) << hio_last_error();
}

}  // namespace

TEST(Stats, CountsMatchTheWorkDone) {
  Engine e;
  Queue q(e, 16);
  int t = hio_queue_open(q, "emu:lat_us=5,iops=200000,jitter_us=4,size=16m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(64 * KiB);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 40; i++) ios.push_back({HIO_OP_WRITE, t, b.get(), 8192, i * 8192ull, i});
  run_ios_ok(q, ios, 16);
  for (uint32_t i = 0; i < 25; i++) ios[i] = {HIO_OP_READ, t, b.get(), 65536, i * 65536ull, i};
  ios.resize(25);
  run_ios_ok(q, ios, 16);
  ASSERT_EQ(hio_flush(q, t), 0);
  ASSERT_EQ(hio_flush(q, t), 0);

  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.submitted, 67u);
  EXPECT_EQ(st.completed, 67u);
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.write_ios, 40u);
  EXPECT_EQ(st.write_bytes, 40u * 8192);
  EXPECT_EQ(st.read_ios, 25u);
  EXPECT_EQ(st.read_bytes, 25u * 65536);
  EXPECT_EQ(st.flush_ios, 2u);
  EXPECT_EQ(st.read_lat.count, 25u);
  EXPECT_EQ(st.write_lat.count, 40u);
  for (const auto& l : {st.read_lat, st.write_lat}) {
    EXPECT_GT(l.min_ns, 0u);
    EXPECT_LE(l.min_ns, l.max_ns);
    EXPECT_GE(l.mean_ns, double(l.min_ns));
    EXPECT_LE(l.mean_ns, double(l.max_ns));
    EXPECT_GE(l.stddev_ns, 0.0);
  }
  EXPECT_GT(st.waits, 0u);
  EXPECT_GT(st.cpu_us_per_io, 0.0);

  const double p[] = {0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100};
  constexpr size_t np = sizeof p / sizeof p[0];
  for (hio_op op : {HIO_OP_READ, HIO_OP_WRITE}) {
    const hio_lat_summary& l = op == HIO_OP_READ ? st.read_lat : st.write_lat;
    uint64_t v[np];
    ASSERT_EQ(hio_queue_percentiles_get(q, op, p, np, v), 0) << hio_last_error();
    for (size_t i = 0; i < np; i++) {
      EXPECT_GE(v[i], l.min_ns) << "p" << p[i];
      EXPECT_LE(v[i], l.max_ns) << "p" << p[i];
      if (i) {
        EXPECT_GE(v[i], v[i - 1]) << "p" << p[i];
      }
    }
    // p100 is the maximum's bucket: within 1/64 of it.
    EXPECT_NEAR(double(v[np - 1]), double(l.max_ns), double(l.max_ns) / 64);
  }
}

TEST(Stats, PercentileArguments) {
  Engine e;
  Queue q(e, 4);
  double p[] = {50, 101};
  uint64_t v[2] = {9, 9};
  EXPECT_EQ(hio_queue_percentiles_get(q, HIO_OP_READ, p, 1, v), 0);
  EXPECT_EQ(v[0], 0u);  // no samples yet
  EXPECT_EQ(hio_queue_percentiles_get(q, HIO_OP_READ, p, 2, v), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "101"));
  EXPECT_EQ(hio_queue_percentiles_get(q, HIO_OP_FLUSH, p, 1, v), -EINVAL);
  EXPECT_EQ(hio_queue_percentiles_get(q, HIO_OP_READ, nullptr, 1, v), -EINVAL);
  EXPECT_EQ(hio_queue_percentiles_get(q, HIO_OP_READ, nullptr, 0, nullptr), 0);
}

TEST(Stats, ResetZeroes) {
  Engine e;
  Queue q(e, 4, strat(HIO_WAIT_POLL));
  int t = hio_queue_open(q, "emu:pcie4,size=4m,fail_offset=2m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(4096);
  EXPECT_EQ(hio_read(q, t, b.get(), 4096, 2 * MiB), -EIO);
  do_io(q, t, 10);
  hio_strategy s = strat(HIO_WAIT_INTERRUPT);
  ASSERT_EQ(hio_queue_strategy_set(q, &s), 0);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  ASSERT_GT(st.completed, 0u);
  ASSERT_EQ(st.errors, 1u);
  ASSERT_EQ(st.mode_changes, 1u);

  ASSERT_EQ(hio_queue_stats_reset(q), 0);
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.submitted, 0u);
  EXPECT_EQ(st.completed, 0u);
  EXPECT_EQ(st.errors, 0u);
  EXPECT_EQ(st.read_ios + st.write_ios + st.flush_ios, 0u);
  EXPECT_EQ(st.read_bytes + st.write_bytes, 0u);
  EXPECT_EQ(st.sleep_ns + st.spin_ns + st.waits, 0u);
  EXPECT_EQ(st.mode_changes, 0u);
  EXPECT_EQ(st.read_lat.count + st.write_lat.count, 0u);
  EXPECT_EQ(st.read_lat.max_ns, 0u);
  EXPECT_EQ(st.cpu_us_per_io, 0.0);
  double p = 50;
  uint64_t v = 9;
  ASSERT_EQ(hio_queue_percentiles_get(q, HIO_OP_READ, &p, 1, &v), 0);
  EXPECT_EQ(v, 0u);
  // Counting resumes after a reset.
  do_io(q, t, 3);
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.completed, 6u);
  EXPECT_EQ(st.read_ios, 3u);
}

// The wait counters say how each strategy waited (counters, not timings).
namespace {
hio_queue_stats stats_after_io(hio_strategy s, const char* spec) {
  Engine e;
  Queue q(e, 4, s);
  int t = hio_queue_open(q, spec, nullptr);
  EXPECT_GE(t, 0) << hio_last_error();
  do_io(q, t, 20);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  EXPECT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_GT(st.waits, 0u);
  return st;
}
}  // namespace

TEST(Stats, PollSpinsAndNeverSleeps) {
  hio_queue_stats st = stats_after_io(strat(HIO_WAIT_POLL), "emu:lat_us=5,iops=200000,size=4m");
  EXPECT_GT(st.spin_ns, 0u);
  EXPECT_EQ(st.sleep_ns, 0u);
}

TEST(Stats, InterruptSleepsAndNeverSpins) {
  hio_queue_stats st = stats_after_io(strat(HIO_WAIT_INTERRUPT), "emu:lat_us=5,iops=200000,size=4m");
  EXPECT_GT(st.sleep_ns, 0u);
  EXPECT_EQ(st.spin_ns, 0u);
}

TEST(Stats, HybridSleepsFirst) {
  hio_queue_stats st = stats_after_io(strat(HIO_WAIT_HYBRID, 2000), "emu:lat_us=20,iops=200000,size=4m");
  EXPECT_GT(st.sleep_ns, 0u);
}

// The hybrid sleep follows the device, not its own lateness: a completion
// found when a sleep ended (an upper bound of its latency) may lower the
// moving average but never raise it, or a sleep that ends late under
// contention would lengthen the next one, and the next.
TEST(HybridSleep, LateFindsOnlyLowerTheAverage) {
  hio::Waiter w;
  w.set(strat(HIO_WAIT_HYBRID, 0, 0.5));
  w.observe(4096, 40000, false);
  EXPECT_EQ(w.hybrid_sleep_ns(), 20000u);
  for (int i = 0; i < 50; i++) w.observe(4096, 2000000, true);  // sleeps that ended 2 ms late
  EXPECT_EQ(w.hybrid_sleep_ns(), 20000u);
  w.observe(4096, 8000, true);  // found at once after a sleep: the device is faster
  EXPECT_LT(w.hybrid_sleep_ns(), 20000u);
  uint64_t low = w.hybrid_sleep_ns();
  w.observe(4096, 2000000, false);  // seen by spinning: the device did slow down
  EXPECT_GT(w.hybrid_sleep_ns(), low);
}

// The wake-up cost is measured by short sleeps. Taken inside the first wait,
// they were read as the first command's latency: beside another of our
// queues spinning on the core, tens of milliseconds, and the queue then
// judged the device slow and slept beside the spinner for the whole run.
// Choosing adaptive measures it, before any command is in flight.
TEST(AdaptiveStrategy, MeasuresTheWakeUpCostBeforeAnyCommandIsInFlight) {
  hio::test::PinnedSignals on_core0(0);
  hio::Governor g(2, on_core0, false);
  hio::Waiter w(&g);
  w.set(strat(HIO_WAIT_INTERRUPT));
  EXPECT_EQ(on_core0.wake_cost_reads(), 0) << "a queue that does not adapt measured it";
  w.set(strat(HIO_WAIT_ADAPTIVE));
  EXPECT_EQ(on_core0.wake_cost_reads(), 1);
}
