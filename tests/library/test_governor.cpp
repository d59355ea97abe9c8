// SPDX-License-Identifier: MIT
// The governor and its pieces, driven by synthetic per-core signals: the
// kernel texts it reads, the 8 ms window over a core's intervals, the
// per-core picture and spin leases, adaptive's ticks over a test governor,
// the policy beside a bursty neighbour, and the objective through the C API.
// No timing is asserted: intervals and ticks carry made-up clocks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "adaptive/adaptive.hpp"
#include "adaptive/core_load.hpp"
#include "adaptive/governor.hpp"
#include "adaptive/policy.hpp"
#include "adaptive_devices.hpp"
#include "hybridio/hio_adaptive.h"
#include "pinned_signals.hpp"
#include "scripted_signals.hpp"
#include "test_util.hpp"
#include "util/clock.hpp"

using namespace hio;

// ---- the kernel's texts ---------------------------------------------------------------

namespace {

const char* kProcStat =
    "cpu  640392 408 154001 980116 66485 0 27081 8980 0 0\n"
    "cpu0 265623 237 34770 632971 7027 0 4100 2964 0 0\n"
    "cpu1 374769 171 119231 347144 59457 0 22980 6015 0 0\n"
    "intr 127638455 0 0\n"
    "ctxt 265416254\n";

}  // namespace

TEST(CoreLoad, ParsesIdleAndIowaitPerCpu) {
  std::vector<uint64_t> idle;
  ASSERT_TRUE(parse_proc_stat_idle(kProcStat, idle));
  ASSERT_EQ(idle.size(), 2u);
  EXPECT_EQ(idle[0], 632971u + 7027u);
  EXPECT_EQ(idle[1], 347144u + 59457u);
}

TEST(CoreLoad, CpusMissingFromTheTextStayZero) {
  // A CPU offline (or outside a container's view) has no line.
  std::vector<uint64_t> idle;
  ASSERT_TRUE(parse_proc_stat_idle("cpu  5000 0 0 9000 0 0 0 0 0 0\ncpu2 10 0 0 700 30 0 0 0 0 0\n", idle));
  ASSERT_EQ(idle.size(), 3u);
  EXPECT_EQ(idle[0], 0u);
  EXPECT_EQ(idle[1], 0u);
  EXPECT_EQ(idle[2], 730u);
}

TEST(CoreLoad, MalformedProcStatIsRefused) {
  std::vector<uint64_t> idle;
  EXPECT_FALSE(parse_proc_stat_idle("", idle));
  EXPECT_FALSE(parse_proc_stat_idle("intr 127638455 0 0\nctxt 265416254\n", idle));
  EXPECT_FALSE(parse_proc_stat_idle("cpu0 265623 237 34770\n", idle));  // too few fields
  EXPECT_FALSE(parse_proc_stat_idle("cpu0 265623 x 34770 632971 7027 0\n", idle));
  EXPECT_FALSE(parse_proc_stat_idle("cpux 1 2 3 4 5 6\n", idle));
}

// The aggregate "cpu " line is no CPU's, whatever its first count. On a
// freshly booted machine that count is small: it must not read as "cpuN".
TEST(CoreLoad, TheAggregateLineIsNoCpu) {
  std::vector<uint64_t> idle;
  EXPECT_FALSE(parse_proc_stat_idle("cpu  2061 0 1542 88321 120 0 33 0 0 0\n", idle));
  idle.clear();
  ASSERT_TRUE(
      parse_proc_stat_idle("cpu  2061 0 1542 88321 120 0 33 0 0 0\n"
                           "cpu0 1030 0 771 44160 60 0 16 0 0 0\n"
                           "cpu1 1031 0 771 44161 60 0 17 0 0 0\n",
                           idle));
  EXPECT_EQ(idle.size(), 2u);
  EXPECT_EQ(idle[1], 44161u + 60u);
}

TEST(CoreLoad, SourceNames) {
  EXPECT_EQ(std::string(core_source_name(CoreSource::cpuidle)), "cpuidle");
  EXPECT_EQ(std::string(core_source_name(CoreSource::proc_stat)), "proc_stat");
  EXPECT_EQ(std::string(core_source_name(CoreSource::none)), "none");
}

// ---- a core's window -------------------------------------------------------------------

namespace {

using hio::test::interval;

// Our sleeper alone: the core busy only while it runs.
CoreInterval alone() { return interval(0.3, 0.3); }
// A neighbour arrives and takes the whole core (busy - own = dt).
CoreInterval neighbour() { return interval(1.0, 0.0); }

}  // namespace

TEST(CoreWindow, EmptySaysNothing) {
  CoreWindow w;
  NeighbourView v = w.view();
  EXPECT_EQ(v.others, 0);
  EXPECT_EQ(v.demand, -1);
  EXPECT_EQ(v.window_ns, 0);
  w.add(CoreInterval{});  // no time: ignored
  EXPECT_EQ(w.view().window_ns, 0);
}

TEST(CoreWindow, SeesANeighbourArriveWithinOneInterval) {
  CoreWindow w;
  for (int i = 0; i < 20; i++) w.add(alone());
  ASSERT_EQ(w.view().others, 0);
  w.add(neighbour());
  EXPECT_GT(w.view().others, 0.05);  // one 1 ms interval of 8
  for (int i = 1; i < 8; i++) w.add(neighbour());
  EXPECT_NEAR(w.view().others, 1.0, 1e-9);  // after 8 ms, all of the window
  EXPECT_NEAR(w.view().window_ns, CoreWindow::kWindowNs, 1);
  EXPECT_NEAR(w.view().idle, 0.0, 1e-9);
}

TEST(CoreWindow, SeesANeighbourLeaveOnce8MsHavePassed) {
  CoreWindow w;
  for (int i = 0; i < 20; i++) w.add(neighbour());
  for (int i = 0; i < 7; i++) w.add(alone());
  EXPECT_GT(w.view().others, 0.05);  // 1 ms of 8 still holds it
  w.add(alone());
  EXPECT_NEAR(w.view().others, 0.0, 1e-9);
  EXPECT_NEAR(w.view().idle, 0.7, 1e-9);
}

// The last few samples read a departure the window holds for its length,
// and say whether our sleepers were all there was of ours meanwhile.
TEST(CoreWindow, ItsLastSamplesReadADepartureFirst) {
  CoreWindow w;
  EXPECT_EQ(w.view().recent, -1);
  for (int i = 0; i < 20; i++) w.add(neighbour());
  EXPECT_NEAR(w.view().recent, 1.0, 1e-9);
  EXPECT_TRUE(w.view().recent_sleeping);
  for (int i = 0; i < 3; i++) w.add(alone());
  NeighbourView v = w.view();
  EXPECT_NEAR(v.recent, 0.0, 1e-9);
  EXPECT_NEAR(v.recent_idle, 0.7, 1e-9);
  EXPECT_GT(v.others, 0.5);  // 5 ms of 8
  w.add(interval(0.3, 0.3, /*spinning=*/true));
  EXPECT_NEAR(w.view().recent, 0.0, 1e-9);
  EXPECT_FALSE(w.view().recent_sleeping);  // a spinner's turn may have kept the neighbour off
  for (int i = 0; i < 3; i++) w.add(alone());
  EXPECT_TRUE(w.view().recent_sleeping);
}

// Two of our threads sharing a core keep it busy: that is no neighbour.
TEST(CoreWindow, OurOwnRunTimeNeverCounts) {
  CoreWindow w;
  for (int i = 0; i < 20; i++) w.add(interval(1.0, 1.0));
  EXPECT_NEAR(w.view().others, 0.0, 1e-9);
  EXPECT_NEAR(w.view().idle, 0.0, 1e-9);
  // Nor does our run time above the busy time (a thread that moved mid-interval).
  for (int i = 0; i < 20; i++) w.add(interval(0.5, 0.8));
  EXPECT_NEAR(w.view().others, 0.0, 1e-9);
}

// Beside our spinner the neighbour's use is capped at the fair half: what
// it wanted is not known.
TEST(CoreWindow, DemandUnknownBesideOurSpinner) {
  CoreWindow w;
  for (int i = 0; i < 10; i++) w.add(interval(1.0, 0.5, /*spinning=*/true));
  NeighbourView v = w.view();
  EXPECT_NEAR(v.others, 0.5, 1e-9);
  EXPECT_EQ(v.demand, -1);
}

// Beside our sleepers the neighbour gets what it wants: its use is its demand.
TEST(CoreWindow, DemandIsTheUseBesideOurSleepers) {
  CoreWindow w;
  for (int i = 0; i < 10; i++) w.add(interval(0.7, 0.3));
  NeighbourView v = w.view();
  EXPECT_NEAR(v.others, 0.4, 1e-9);
  EXPECT_NEAR(v.demand, 0.4, 1e-9);
  EXPECT_NEAR(v.idle, 0.3, 1e-9);
}

// ---- the governor -------------------------------------------------------------------

TEST(Governor, ATestGovernorReadsNothing) {
  Governor g(4, hio::kernel_signals(), false);
  EXPECT_EQ(g.source(), CoreSource::none);
  EXPECT_EQ(std::string(g.fallback_reason()), "");
  int cpu = g.enter(1'000'000'000);
  EXPECT_GE(cpu, 0);
  EXPECT_LT(cpu, 4);
  EXPECT_EQ(g.samples(), 0u);
  for (int c = 0; c < 4; c++) EXPECT_EQ(g.neighbours(c).others, 0) << "cpu " << c;
}

// A flush or compaction thread of a database waits by interrupt: once an
// adaptive queue samples in the process, it is ours all the same, and its
// run time must never read as a neighbour's.
TEST(Governor, AThreadThatWaitsInAFixedModeIsOurs) {
  hio_engine* e = nullptr;
  ASSERT_EQ(hio_engine_create(&e), 0);
  hiotest::wait_adaptively_once(e);
  std::atomic<pid_t> waited{0}, idle{0};
  for (hio_wait_mode m : {HIO_WAIT_INTERRUPT, HIO_WAIT_POLL, HIO_WAIT_HYBRID}) {
    std::thread t([&] {
      hio_queue_opts o{};
      o.struct_size = sizeof o;
      o.depth = 4;
      o.strategy.mode = m;
      hio_queue* q = nullptr;
      ASSERT_EQ(hio_queue_create(e, &o, &q), 0);
      hio_open_opts oo{};
      oo.struct_size = sizeof oo;
      oo.size = 1 << 20;
      int t = hio_queue_open(q, "emu:lat_us=2000", &oo);
      ASSERT_GE(t, 0) << hio_last_error();
      char buf[4096];
      ASSERT_EQ(hio_read(q, t, buf, sizeof buf, 0), 4096) << hio_last_error();
      waited = pid_t(gettid());
      EXPECT_TRUE(Governor::get().is_own(waited)) << hio_wait_mode_name(m);
      hio_queue_destroy(q);
    });
    t.join();
  }
  std::thread other([&] { idle = pid_t(gettid()); });
  other.join();
  EXPECT_FALSE(Governor::get().is_own(idle));
  hio_engine_destroy(e);
}

// A thread whose handle's completions a completion thread delivers waits
// for that thread, not in a queue: it is ours all the same, or the
// completion thread would read it as a neighbour to leave the core to.
TEST(Governor, AThreadThatWaitsForACompletionThreadIsOurs) {
  hio_engine* e = nullptr;
  ASSERT_EQ(hio_engine_create(&e), 0);
  hiotest::wait_adaptively_once(e);
  hio_reaper_opts ro{};
  hio_reaper_opts_init(&ro, sizeof ro);
  ro.poll_period_ns = 50'000;
  hio_reaper* r = nullptr;
  ASSERT_EQ(hio_reaper_create(&ro, &r), 0) << hio_last_error();
  std::atomic<pid_t> waited{0};
  std::thread t([&] {
    hio_handle_opts o{};
    hio_handle_opts_init(&o, sizeof o);
    o.reaper = r;
    hio_handle* h = nullptr;
    ASSERT_EQ(hio_handle_open(e, "emu:lat_us=2000,size=1m", &o, &h), 0) << hio_last_error();
    char buf[4096];
    ASSERT_EQ(hio_handle_read(h, buf, sizeof buf, 0), 4096) << hio_last_error();
    waited = pid_t(gettid());
    EXPECT_TRUE(Governor::get().is_own(waited));
    hio_handle_close(h);
  });
  t.join();
  EXPECT_NE(waited.load(), 0);
  hio_reaper_destroy(r);
  hio_engine_destroy(e);
}

TEST(Governor, KeepsCoresApart) {
  Governor g(4, hio::kernel_signals(), false);
  for (int i = 0; i < 10; i++) {
    g.feed(1, neighbour());
    g.feed(2, alone());
  }
  EXPECT_NEAR(g.neighbours(1).others, 1.0, 1e-9);
  EXPECT_NEAR(g.neighbours(2).others, 0.0, 1e-9);
  EXPECT_NEAR(g.neighbours(2).idle, 0.7, 1e-9);
  EXPECT_EQ(g.neighbours(0).window_ns, 0);  // never fed
  EXPECT_EQ(g.neighbours(3).window_ns, 0);
  // CPUs it does not cover are ignored, and read as nobody.
  g.feed(4, neighbour());
  g.feed(-1, neighbour());
  EXPECT_EQ(g.neighbours(4).others, 0);
  EXPECT_EQ(g.neighbours(-1).others, 0);
  EXPECT_EQ(g.neighbours(0).others, 0);
}

TEST(Governor, PublishesDemandPerCore) {
  Governor g(4, hio::kernel_signals(), false);
  for (int i = 0; i < 10; i++) {
    g.feed(0, interval(0.9, 0.3));        // beside our sleeper
    g.feed(3, interval(1.0, 0.5, true));  // beside our spinner
  }
  EXPECT_NEAR(g.neighbours(0).demand, 0.6, 1e-9);
  EXPECT_EQ(g.neighbours(3).demand, -1);
}

namespace {
constexpr uint64_t kT0 = 1'000'000'000;
}  // namespace

TEST(Governor, OneSpinLeasePerCore) {
  Governor g(4, hio::kernel_signals(), false);
  int a = 0, b = 0;
  ASSERT_TRUE(g.claim_spin(1, &a, kT0));
  EXPECT_TRUE(g.spinning(1, kT0));
  EXPECT_FALSE(g.spinning(2, kT0));
  EXPECT_TRUE(g.claim_spin(1, &a, kT0 + 1));                        // its holder renews it
  EXPECT_FALSE(g.claim_spin(1, &b, kT0 + 2));                       // a second owner is refused...
  EXPECT_FALSE(g.claim_spin(1, &b, kT0 + Governor::kLeaseNs - 1));  // ...while the lease is live
  EXPECT_TRUE(g.claim_spin(2, &b, kT0 + 3));                        // another core is free
}

TEST(Governor, AnUnrenewedLeaseLapses) {
  Governor g(4, hio::kernel_signals(), false);
  int a = 0, b = 0;
  ASSERT_TRUE(g.claim_spin(1, &a, kT0));
  EXPECT_FALSE(g.claim_spin(1, &b, kT0 + Governor::kLeaseNs - 1));
  EXPECT_FALSE(g.spinning(1, kT0 + Governor::kLeaseNs + 1));
  EXPECT_TRUE(g.claim_spin(1, &b, kT0 + Governor::kLeaseNs + 1));
  // Now the first owner is the one refused.
  EXPECT_FALSE(g.claim_spin(1, &a, kT0 + Governor::kLeaseNs + 2));
}

TEST(Governor, AReleasedLeaseIsFreeAtOnce) {
  Governor g(4, hio::kernel_signals(), false);
  int a = 0, b = 0;
  ASSERT_TRUE(g.claim_spin(1, &a, kT0));
  ASSERT_FALSE(g.claim_spin(1, &b, kT0 + 1));
  g.release_spin(&a);
  EXPECT_FALSE(g.spinning(1, kT0 + 2));
  EXPECT_TRUE(g.claim_spin(1, &b, kT0 + 2));
  g.release_spin(nullptr);  // nobody's: nothing happens
  EXPECT_TRUE(g.spinning(1, kT0 + 3));
}

// A core taken out of the queue's affinity mask (or a thread the scheduler
// moved) shows as its owner claiming another core: the old lease goes.
TEST(Governor, AnOwnerThatMovesGivesUpItsOldLease) {
  Governor g(4, hio::kernel_signals(), false);
  int a = 0, b = 0;
  ASSERT_TRUE(g.claim_spin(1, &a, kT0));
  ASSERT_FALSE(g.claim_spin(1, &b, kT0 + 1));  // held
  ASSERT_TRUE(g.claim_spin(2, &a, kT0 + 2));   // a now waits on cpu 2
  EXPECT_FALSE(g.spinning(1, kT0 + 3));
  EXPECT_TRUE(g.claim_spin(1, &b, kT0 + 3));
  EXPECT_TRUE(g.spinning(2, kT0 + 3));
  EXPECT_FALSE(g.claim_spin(2, &b, kT0 + 4));  // b moving onto a's core is refused
  EXPECT_TRUE(g.spinning(1, kT0 + 4));         // and keeps its own lease
}

// Two of our queues on one core: the second polls beside the first until it
// knows the device; then it sleeps where the device is slow against a
// wake-up (a sleeper gives the spinner the core) and keeps polling where it
// is not (a sleeper's wake-ups would cost the spinner as much).
TEST(Governor, ASecondSpinnerSleepsOnlyWhereTheDeviceIsSlowAgainstAWakeUp) {
  for (double device_us : {500.0, 1.0}) {
    hio::test::PinnedSignals on_core0(0);
    Governor g(2, on_core0, false);
    Adaptive first({}, &g), second({}, &g);
    ASSERT_EQ(first.begin_wait(now_ns()), Mode::poll);
    first.end_wait(1000, now_ns(), false);
    ASSERT_EQ(second.begin_wait(now_ns()), Mode::poll) << "the device's latency is not known yet";
    for (int i = 0; i < 32; i++) second.completed(4096, uint64_t(device_us * 1000));
    second.end_wait(1000, now_ns(), false);
    first.begin_wait(now_ns());  // renews its lease
    Mode m = second.begin_wait(now_ns());
    hio_adaptive_view v{};
    v.struct_size = sizeof v;
    second.view(&v);
    if (device_us > 100) {
      EXPECT_NE(m, Mode::poll) << device_us << " us";
      EXPECT_GE(v.spin_denied, 1u);
    } else {
      EXPECT_EQ(m, Mode::poll) << device_us << " us";
      EXPECT_EQ(v.spin_denied, 0u);
    }
  }
}

// Beside another of our queues a hybrid sleep ends by the device's mean
// latency less the wake-up's lateness, not by its fast edge: a spin that
// starts earlier holds the core while the other's completions wait.
// However spread the latencies, hybrid stays a candidate while that leaves
// a sleep, even one shorter than a wake-up's CPU.
TEST(Adaptive, AHybridSleepEndsByTheMeanLatency) {
  hio::test::PinnedSignals on_core0(0);
  Governor g(2, on_core0, false);
  g.set_ours(0, 2);
  Adaptive first({}, &g), second({}, &g);
  first.begin_wait(now_ns());
  second.begin_wait(now_ns());
  for (int i = 0; i < 400; i++) second.completed(4096, i % 2 ? 2'000'000 : 6'000'000);  // mean 4 ms, spread 2 ms
  const double late = on_core0.wake_cost().late_ns;
  uint64_t t = now_ns();
  EXPECT_NEAR(double(second.hybrid_sleep_ns(WaitHint{t, 4096}, t)), 4'000'000 - late, 200'000);
  first.begin_wait(now_ns());  // renews its spin lease
  EXPECT_EQ(second.begin_wait(now_ns()), Mode::hybrid) << "denied the spin lease, it did not sleep by hybrid";
}

// Under light demand the others of ours seldom want the core when a wait
// ends, so a spin that starts early costs them little while a wake-up
// behind their turn costs the read its latency: the sleep ends at half the
// mean, as the kernel's hybrid polling does.
TEST(Adaptive, UnderLightDemandAHybridSleepBesideOthersOfOursEndsAtHalfTheMean) {
  hio::test::PinnedSignals on_core0(0);
  Governor g(2, on_core0, false);
  g.set_ours(0, 2);
  Adaptive q({}, &g);
  q.begin_wait(now_ns());
  for (int i = 0; i < 400; i++) q.completed(4096, 80'000);
  const double late = on_core0.wake_cost().late_ns;
  auto sleep = [&q] {
    uint64_t t = now_ns();
    return double(q.hybrid_sleep_ns(WaitHint{t, 4096}, t));
  };
  EXPECT_NEAR(sleep(), std::max(0.0, 80'000 - late), 2'000);
  g.set_core_light(0, true);
  EXPECT_NEAR(sleep(), 40'000, 2'000);
  g.set_ours(0, 1);
  EXPECT_NEAR(sleep(), std::max(0.0, 80'000 - late), 2'000) << "alone of ours, light demand halved the sleep";
}

// The lead reads light demand for its core where it waited little at the
// quiet level and the core stood idle at least half the time: a core kept
// busy by our own threads' work between their reads is not light.
TEST(Adaptive, TheLeadReadsLightDemandOnlyOnACoreThatStandsIdle) {
  auto light_after = [](double busy) {
    hio::test::ScriptedSignals src;
    Governor g(1, src, false);
    g.set_ours(0, 2);
    Adaptive lead({}, &g);
    constexpr uint64_t us = 1000;
    uint64_t t = 1'000'000;
    src.now = t;
    for (int i = 0; i < 2000; i++) {  // 200 ms of 20 us waits every 100 us
      lead.begin_wait(t);
      t += 20 * us;
      src.now = t;
      lead.completed(4096, 20 * us);
      lead.end_wait(20 * us, t, false);
      t += 80 * us;  // our threads' work, or the core idle
      src.now = t;
      src.cpu_ns += 20 * us;
      if (i % 10 == 9) g.feed(0, interval(busy, busy));  // each ms: busy with ours alone
    }
    return g.core_light(0);
  };
  EXPECT_TRUE(light_after(0.4));
  EXPECT_FALSE(light_after(0.8)) << "our own threads' work read as light demand";
}

// A hybrid wait learns the device's latency too: where several of ours
// share a core, the poller's completions wait behind the others' wake-ups
// and overstate it. A completion the wait spun for after its sleep is the
// device's latency; one found as the sleep ended only lowers the mean.
TEST(Adaptive, AHybridWaitLearnsTheLatencyItSpunFor) {
  hio::test::PinnedSignals on_core0(0);
  Governor g(2, on_core0, false);
  g.set_ours(0, 2);
  Adaptive first({}, &g), second({}, &g);
  first.begin_wait(now_ns());
  ASSERT_EQ(second.begin_wait(now_ns()), Mode::poll) << "the device's latency is not known yet";
  for (int i = 0; i < 32; i++) second.completed(4096, 6'000'000);  // held behind the other's wake-ups
  second.end_wait(1000, now_ns(), false);
  first.begin_wait(now_ns());  // renews its spin lease
  ASSERT_EQ(second.begin_wait(now_ns()), Mode::hybrid) << "denied the spin lease, it did not sleep by hybrid";
  const double late = on_core0.wake_cost().late_ns;
  auto sleep = [&second] {
    uint64_t t = now_ns();
    return double(second.hybrid_sleep_ns(WaitHint{t, 4096}, t));
  };
  EXPECT_NEAR(sleep(), 6'000'000 - late, 200'000);
  for (int i = 0; i < 20; i++) second.completed(4096, 9'000'000, true);  // found as a late sleep ended
  EXPECT_NEAR(sleep(), 6'000'000 - late, 200'000) << "a completion found at the wake-up lengthened the sleep";
  for (int i = 0; i < 200; i++) second.completed(4096, 2'000'000);  // spun for: the device's own
  EXPECT_NEAR(sleep(), 2'000'000 - late, 200'000);
  for (int i = 0; i < 200; i++) second.completed(4096, 1'000'000, true);  // found at the wake-up, sooner
  EXPECT_NEAR(sleep(), 1'000'000 - late, 200'000);
}

// Alone of ours on its core, an early wake-up costs only a longer spin and a
// late one every completion that came before it: the sleep ends a spread
// before the mean, less the lateness the queue's own sleeps measured (one
// held far longer is a preemption, not learned). Beside another of ours
// neither applies.
TEST(Adaptive, AloneAHybridSleepEndsASpreadEarlyAndLearnsItsLateness) {
  hio::test::PinnedSignals on_core0(0);
  Governor g(2, on_core0, false);
  Adaptive q({}, &g);
  q.begin_wait(now_ns());
  const double late = on_core0.wake_cost().late_ns;
  if (late <= 0) GTEST_SKIP() << "this machine's sleeps end on time: no lateness to learn";
  auto sleep = [&q] {
    uint64_t t = now_ns();
    return double(q.hybrid_sleep_ns(WaitHint{t, 4096}, t));
  };
  for (int i = 0; i < 400; i++) q.completed(4096, i % 2 ? 2'000'000 : 6'000'000);  // mean 4 ms, spread 2 ms
  EXPECT_NEAR(sleep(), 4'000'000 - 2'000'000 - late, 200'000);
  for (int i = 0; i < 400; i++) q.completed(4096, 4'000'000);  // the spread fades
  EXPECT_NEAR(sleep(), 4'000'000 - late, late / 4);
  for (int i = 0; i < 200; i++) q.hybrid_woke(uint64_t(3 * late));
  EXPECT_NEAR(sleep(), 4'000'000 - 3 * late, late / 4);
  for (int i = 0; i < 20; i++) q.hybrid_woke(uint64_t(100 * late));  // another thread's turn
  EXPECT_NEAR(sleep(), 4'000'000 - 3 * late, late / 4);
  g.set_ours(0, 2);
  EXPECT_NEAR(sleep(), 4'000'000 - late, late / 4) << "beside another of ours the sleep ends by the mean";
  for (int i = 0; i < 200; i++) q.hybrid_woke(uint64_t(late / 2));
  g.set_ours(0, 1);
  EXPECT_NEAR(sleep(), 4'000'000 - 3 * late, late / 4) << "a sleep beside another of ours taught its lateness";
}

// The queue's first tick holds the application's start (RocksDB opening its
// tables: a few reads in a long tick, hardly waiting): it is not learned,
// and the tick after it is.
TEST(Adaptive, TheQueuesFirstTickIsNotLearned) {
  hio::test::ScriptedSignals src;  // a tick's clock is read again with its count: the test's times must be the clock's
  Governor g(2, src, false);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 8; i++) g.feed(c, interval(1.0, 0.5, true));  // a neighbour beside our spinner: heavy
  Adaptive a({}, &g);
  const uint64_t ms = 1'000'000, t0 = 1000 * ms;
  auto at = [&src](uint64_t t) { return src.now = t; };
  auto run = [&a, &at](uint64_t t, uint64_t waited, bool slept) {
    for (int i = 0; i < 20; i++) a.completed(4096, 20'000);
    a.end_wait(waited, at(t), slept);
  };
  ASSERT_EQ(a.begin_wait(at(t0)), Mode::poll);
  run(t0 + 3 * ms, 40'000, false);
  Mode probe = a.begin_wait(at(t0 + 4 * ms));
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  a.view(&v);
  ASSERT_EQ(v.ticks, 1u);
  EXPECT_EQ(v.score[int(Mode::poll)], 0) << "the first tick was learned as polling's cost";
  ASSERT_NE(probe, Mode::poll) << "an unknown mode is probed at once beside a heavy neighbour";
  run(t0 + 10 * ms, 5 * ms, true);
  a.begin_wait(at(t0 + 11 * ms));  // the settling tick after the change of mode ends
  run(t0 + 19 * ms, 7 * ms, true);
  a.begin_wait(at(t0 + 20 * ms));
  a.view(&v);
  ASSERT_EQ(v.ticks, 2u);
  EXPECT_GT(v.score[int(probe)], 0) << "the probe was not learned";
}

// ---- the policy beside a bursty neighbour ----------------------------------------------

namespace {

// Beside adaptive_devices.hpp's disk, a fast device where interrupts lose most of the rate: polling at half the
// core keeps more (50K against 40K).
const Device kFast{{{40000, 8, 25, 1}, {100000, 10, 10, 0}, {40000, 8, 25, 1}}};

const PolicyParams kParams;

// A tick in mode m, alone or beside a CPU-bound neighbour: a poller gets
// half the core; a sleeper leaves the neighbour the rest.
TickSample tick(const Device& d, Mode m, bool neighbour, uint64_t wall) {
  const Truth& t = d[size_t(int(m))];
  TickSample s;
  s.wall_ns = wall;
  s.delay_share = neighbour && m == Mode::poll ? 0.5 : 0.0;
  s.completions = uint64_t(t.iops * (1 - s.delay_share) * double(wall) / 1e9);
  s.cpu_ns = uint64_t(t.cpu_us * 1000 * double(s.completions));
  s.lat_sum_ns = uint64_t(t.lat_us * 1000 * double(s.completions));
  s.sleeps = uint64_t(t.sleeps * double(s.completions));
  s.wait_ns = uint64_t(0.95 * double(wall));
  return s;
}

// What the governor reports at the end of that tick. The neighbour wants
// the whole core: beside the poller it uses half, its demand known from
// the window's ticks beside a sleeper; beside a sleeper it takes what is
// left.
Signals seen(const Device& d, Mode m, bool neighbour, Objective obj) {
  Signals g;
  g.objective = obj;
  g.wait_share = 0.95;
  g.wake_cpu_ns = 5000;
  if (!neighbour) return g;
  if (m == Mode::poll) {
    g.contention = 0.5;
    g.demand = 1.0;
  } else {
    g.contention = 1 - own_share(d, m, 0);  // ~0.65 beside the disk's interrupts
    g.demand = g.contention;                // beside a sleeper use is all the window shows
  }
  return g;
}

// Alternates 25 ticks alone and 25 beside the neighbour for `cycles`;
// after the first cycle, checks that from the second tick of each phase on
// the settled mode is `alone_mode` or `beside_mode`. Returns the first
// miss ("" if none).
std::string bursty(const Device& d, Objective obj, Mode alone_mode, Mode beside_mode, AdaptivePolicy& p,
                   int cycles = 8) {
  constexpr int kPhase = 25;
  uint64_t now = 0;
  Mode mode = Mode::poll;
  bool probing = false;
  for (int c = 0; c < cycles; c++)
    for (bool neighbour : {false, true})
      for (int i = 1; i <= kPhase; i++) {
        uint64_t wall = probing ? kParams.probe_tick_ns : kParams.tick_ns;
        now += wall;
        Decision dec = p.on_tick(now, mode, tick(d, mode, neighbour, wall), seen(d, mode, neighbour, obj));
        mode = dec.mode;
        probing = dec.probe;
        Mode want = neighbour ? beside_mode : alone_mode;
        if (c > 0 && i >= 2 && p.settled() != want) {
          std::ostringstream o;
          o << "cycle " << c << (neighbour ? ", neighbour on" : ", alone") << ", tick " << i << ": settled on mode "
            << int(p.settled()) << ", expected " << int(want);
          return o.str();
        }
      }
  return "";
}

}  // namespace

TEST(AdaptiveBursty, SharedFollowsTheNeighbourWithinTwoTicks) {
  AdaptivePolicy p;
  EXPECT_EQ(bursty(kDisk, Objective::shared, Mode::poll, Mode::interrupt, p), "");
  EXPECT_GE(p.switches(), 14u);  // two per cycle after the first
}

TEST(AdaptiveBursty, OwnTakesInterruptsWhereTheyKeepMoreOfOurRate) {
  AdaptivePolicy p;
  EXPECT_EQ(bursty(kDisk, Objective::own, Mode::poll, Mode::interrupt, p), "");
}

TEST(AdaptiveBursty, OwnKeepsPollingWhereItKeepsMoreOfOurRate) {
  AdaptivePolicy p;
  EXPECT_EQ(bursty(kFast, Objective::own, Mode::poll, Mode::poll, p), "");
  // Informed, not by default: the interrupt's rate beside the neighbour was measured.
  EXPECT_TRUE(p.cost(Mode::interrupt, 0.5).known);
  EXPECT_EQ(p.switches(), 0u);
}

// Own progress alone decides under Objective::own: the neighbour's share
// does not enter the score.
TEST(AdaptiveBursty, OwnScoresOnlyTheQueuesRate) {
  AdaptivePolicy p;
  bursty(kDisk, Objective::shared, Mode::poll, Mode::interrupt, p, 2);
  Signals own = seen(kDisk, Mode::poll, true, Objective::own);
  Signals shared = seen(kDisk, Mode::poll, true, Objective::shared);
  for (Mode m : {Mode::interrupt, Mode::poll}) {
    EXPECT_GT(p.score(m, own), 0) << int(m);
    EXPECT_LE(p.score(m, own), 1.0) << int(m);
    EXPECT_GT(p.score(m, shared), p.score(m, own)) << int(m);
  }
}

// ---- the objective through the C API -------------------------------------------------------

TEST(Objective, NamedAndParsed) {
  EXPECT_EQ(std::string(hio_objective_name(HIO_OBJECTIVE_SHARED)), "shared");
  EXPECT_EQ(std::string(hio_objective_name(HIO_OBJECTIVE_OWN)), "own");
  hio_objective o = HIO_OBJECTIVE_SHARED;
  ASSERT_EQ(hio_objective_parse("own", &o), 0);
  EXPECT_EQ(o, HIO_OBJECTIVE_OWN);
  ASSERT_EQ(hio_objective_parse("shared", &o), 0);
  EXPECT_EQ(o, HIO_OBJECTIVE_SHARED);
}

TEST(Objective, UnknownNameRefused) {
  hio_objective o = HIO_OBJECTIVE_OWN;
  EXPECT_EQ(hio_objective_parse("both", &o), -EINVAL);
  EXPECT_TRUE(hiotest::Contains(hio_last_error(), "'both'"));
  EXPECT_EQ(o, HIO_OBJECTIVE_OWN);  // untouched
  EXPECT_EQ(hio_objective_parse(nullptr, &o), -EINVAL);
  EXPECT_EQ(hio_objective_parse("own", nullptr), -EINVAL);
}

TEST(Objective, CarriedByTheStrategy) {
  hiotest::Engine e;
  hio_strategy s = hiotest::strat(HIO_WAIT_ADAPTIVE);
  s.objective = HIO_OBJECTIVE_OWN;
  hiotest::Queue q(e, 4, s);
  ASSERT_EQ(q.rc(), 0) << q.err();
  hio_strategy got;
  hio_strategy_init(&got, sizeof got);
  ASSERT_EQ(hio_queue_strategy_get(q, &got), 0);
  EXPECT_EQ(got.objective, HIO_OBJECTIVE_OWN);
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  ASSERT_EQ(hio_queue_adaptive_view_get(q, &v), 0) << hio_last_error();
  EXPECT_EQ(v.objective, HIO_OBJECTIVE_OWN);
  hio_strategy bad = s;
  bad.objective = hio_objective(7);
  EXPECT_EQ(hio_queue_strategy_set(q, &bad), -EINVAL);
  ASSERT_EQ(hio_queue_strategy_get(q, &got), 0);
  EXPECT_EQ(got.objective, HIO_OBJECTIVE_OWN);  // the previous one kept
}

// ---- one decision per core ----------------------------------------------------------------

TEST(Governor, TheFirstQueueToWaitOnACoreLeadsIt) {
  Governor g(4, hio::kernel_signals(), false);
  int a = 0, b = 0;
  ASSERT_TRUE(g.lead(1, &a, kT0));
  EXPECT_FALSE(g.lead(1, &b, kT0 + 1)) << "a second queue follows";
  EXPECT_TRUE(g.lead(1, &a, kT0 + Governor::kLeadNs - 1)) << "the leader renews its lead";
  EXPECT_FALSE(g.lead(1, &b, kT0 + Governor::kLeadNs)) << "...which then holds";
  EXPECT_TRUE(g.lead(1, &b, kT0 + 2 * Governor::kLeadNs)) << "an unrenewed lead lapses";
  g.release_lead(&b);
  EXPECT_TRUE(g.lead(1, &a, kT0 + 2 * Governor::kLeadNs + 1)) << "a released lead is free at once";
  EXPECT_TRUE(g.lead(2, &b, kT0)) << "another core has a lead of its own";
}

TEST(Governor, CountsOurCompletionsPerCore) {
  Governor g(2, hio::kernel_signals(), false);
  g.count(0, 1.0);
  g.count(0, 2.5);
  g.count(1, 1.0);
  EXPECT_EQ(g.counted(0).done, 2u);
  EXPECT_DOUBLE_EQ(g.counted(0).work, 3.5);
  EXPECT_EQ(g.counted(1).done, 1u);
}

// The others' run time and the time the samples covered are summed per
// core, so that a tick reads the others' share over its own span: three
// 4 ms turns, ours, ours, the neighbour's, read a third over the rotation
// where the last 8 ms read half.
TEST(Governor, SumsTheOthersOverEverySample) {
  Governor g(2, hio::kernel_signals(), false);
  Governor::Count c0 = g.counted(0);
  for (double own : {4e6, 4e6, 0.0}) g.feed(0, CoreInterval{4e6, 4e6, own});
  Governor::Count c = g.counted(0);
  EXPECT_DOUBLE_EQ(c.span_ns - c0.span_ns, 12e6);
  EXPECT_NEAR((c.others_ns - c0.others_ns) / (c.span_ns - c0.span_ns), 1.0 / 3, 1e-9);
  EXPECT_NEAR(g.neighbours(0).others, 0.5, 1e-9) << "the window";
  EXPECT_EQ(g.counted(1).span_ns, 0);
}

// Our threads' clocks are read after the interval's end: a sampler preempted
// in between reads a turn of our other thread into a 1 ms interval, and
// none into the next. The excess is the next interval's, not a neighbour's
// time in it: over both, nobody else ran.
TEST(Governor, OurRunTimeReadLateCountsInTheNextInterval) {
  hio::test::ScriptedSignals src;
  Governor g(1, src, true);
  src.cpu_ns = 10'000'000;
  g.enter(10'000'000);  // the first sample: where the intervals start
  src.cpu_ns += 4'000'000;
  g.enter(11'000'000);  // 1 ms busy, 4 ms of ours read
  g.enter(14'000'000);  // 3 ms busy, nothing more of ours
  EXPECT_NEAR(g.neighbours(0).others, 0.0, 1e-9);
  src.cpu_ns += 1'000'000;
  g.enter(16'000'000);  // 2 ms busy, 1 ms of ours: a neighbour had the other
  EXPECT_NEAR(g.neighbours(0).others, 1.0 / 6, 1e-9);
}

// A queue that finds another of ours leading its core waits in the leader's
// mode, without a policy of its own: our queues do not probe one another.
TEST(Adaptive, AQueueBesideOurLeaderTakesItsMode) {
  hio::test::PinnedSignals on_core0(0);
  Governor g(2, on_core0, false);
  Adaptive leader({}, &g), follower({}, &g);
  ASSERT_EQ(leader.begin_wait(now_ns()), Mode::poll);
  g.set_core_mode(0, int(Mode::interrupt));  // as if the leader had settled on interrupts
  EXPECT_EQ(follower.begin_wait(now_ns()), Mode::interrupt);
  g.set_core_mode(0, int(Mode::hybrid));
  EXPECT_EQ(follower.begin_wait(now_ns()), Mode::hybrid);
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  follower.view(&v);
  EXPECT_EQ(v.ticks, 0u) << "a follower ends no ticks of its own";
}
