// SPDX-License-Identifier: MIT
// The library's adaptive policy, unmodified, deciding on a simulated machine
// through the signal source seam; and the scenario runner's own guarantees.
#include <gtest/gtest.h>

#include "adaptive/governor.hpp"
#include "model/sim_signals.hpp"
#include "scenario/compare.hpp"
#include "scenario/oracle.hpp"
#include "sim_profile.hpp"
#include "workload/neighbour.hpp"

namespace hio::sim {
namespace {

constexpr Time ms = 1'000'000;

Scenario scenario(const std::string& device, const std::string& strategy, const std::string& neighbour) {
  Scenario s;
  s.device = device;
  s.io = with_strategy(s.io, strategy);
  s.neighbour = NeighbourSpec::parse(neighbour);
  s.duration_ns = 1000 * ms;
  return s;
}

TEST(Policy, PollsAloneOnAFastDevice) {
  Profile p = test::profile();
  Result r = run(scenario("pcie4", "adaptive", "none"), p);
  EXPECT_GT(r.mode_share[int(Mode::poll)], 0.95);
  Result poll = run(scenario("pcie4", "poll", "none"), p);
  EXPECT_NEAR(r.iops / poll.iops, 1.0, 0.02);
}

TEST(Policy, SleepsBesideAFullNeighbourOnASlowDevice) {
  Profile p = test::profile();
  Result r = run(scenario("disk", "adaptive", "busy"), p);
  EXPECT_GT(r.mode_share[int(Mode::interrupt)] + r.mode_share[int(Mode::hybrid)], 0.8)
      << "poll " << r.mode_share[int(Mode::poll)];
  Result poll = run(scenario("disk", "poll", "busy"), p);
  EXPECT_GT(r.neighbour_cores, poll.neighbour_cores + 0.2) << "sleeping gives the neighbour its core back";
}

// Four of our threads on one core: one of them decides for all, by what all
// of them complete, so they neither all poll, taking turns at the core, nor
// probe one another.
TEST(Policy, SeveralOfOurThreadsOnACoreShareOneDecision) {
  Profile p = test::profile();
  Scenario s = scenario("pcie3", "poll", "none");
  s.threads_per_core = 4;
  Comparison c = compare(s, p, {"interrupt", "poll", "adaptive"});
  double best = std::max(c.shared("interrupt"), c.shared("poll"));
  EXPECT_GT(c.shared("adaptive"), 0.85 * best) << "adaptive " << c.shared("adaptive") << ", interrupt "
                                               << c.shared("interrupt") << ", poll " << c.shared("poll");
}

// As the library, the process's first adaptive queue measures a wake-up's
// cost before its first read: 32 short sleeps, each a wake-up from idle here.
TEST(Policy, TheFirstAdaptiveQueueMeasuresAWakeUpBeforeItsFirstRead) {
  Profile p = test::profile();
  Scenario s = scenario("pcie4", "adaptive", "none");
  s.duration_ns = 200 * ms;
  Result a = run(s, p);
  s.io = with_strategy(s.io, "poll");
  Result poll = run(s, p);
  ASSERT_GT(poll.io_bins[0], 50);
  EXPECT_LT(a.io_bins[0], 0.6 * poll.io_bins[0]) << "32 wake-ups from idle take 0.6 ms or more";
  EXPECT_NEAR(a.io_bins[3], poll.io_bins[3], 0.05 * poll.io_bins[3]) << "then it polls";
}

// As fio's and hio-bench's rate limits: the n-th read is due n periods after
// the first, so the timer slack that makes each sleep end up to 50 us late
// does not lower the rate. On this machine two such threads polling on one
// core keep 36.7K reads/s each on emu:pcie4 (hio-bench --rate_iops).
TEST(Scenario, ARateLimitedThreadKeepsItsPace) {
  Profile p = test::profile();
  Scenario s = scenario("pcie4", "poll", "none");
  s.io.rate_iops = 20000;
  EXPECT_NEAR(run(s, p).iops, 20000, 200);
  s.threads_per_core = 2;
  s.io.rate_iops = 36700;
  EXPECT_NEAR(run(s, p).iops, 2 * 36700, 2 * 367);
}

// The governor, fed by the simulated core, sees what the neighbour uses.
struct Waits final : Behaviour {
  Governor* gov = nullptr;
  SimSignals* sig = nullptr;
  NeighbourView seen{};
  Step next(Task& t, Time now) override {
    sig->enter(t);
    int cpu = gov->enter(now);
    seen = gov->neighbours(cpu);
    return Step::sleep_until(now + ms / 4);
  }
};

TEST(Seam, TheGovernorSeesTheNeighboursShareOfTheCore) {
  Profile p = test::profile();
  for (double pct : {25.0, 50.0}) {
    Machine m(2, p.sched, p.idle, p.core, 1);
    SimSignals sig(m, p.reads, p.library_wake);
    Governor gov(2, sig);
    Waits w;
    w.gov = &gov;
    w.sig = &sig;
    StressCpu stress(pct);
    m.spawn("ours", 0, Role::ours, &w);
    m.spawn("stress", 0, Role::neighbour, &stress);
    m.run_until(500 * ms);
    EXPECT_NEAR(w.seen.others, pct / 100, 0.1) << pct << "%";
    EXPECT_GT(gov.samples(), 200u) << "at most one sample a millisecond, taken as our thread waits";
    EXPECT_GT(gov.cost_ns(), 0u) << "a sample's reads cost the simulated thread CPU";
  }
}

// The completion thread's period comes from the library's PollPeriodTuner,
// fed by the simulated windows, as in the library's Reaper.
TEST(Reaper, TheLibrarysTunerSetsThePeriod) {
  Profile p = test::profile();
  auto with = [&](Time period) {
    Scenario s = scenario("pcie4", "reaper", "none");
    s.threads_per_core = 2;
    s.io.depth = 8;
    s.reaper_period_ns = period;
    return run(s, p);
  };
  Result a = with(HIO_POLL_PERIOD_AUTO), slow = with(200'000);
  size_t n;
  const uint64_t* ladder = PollPeriodTuner::ladder(&n);
  EXPECT_GE(a.reaper_period_ns, double(ladder[0]));
  EXPECT_LE(a.reaper_period_ns, double(ladder[n - 1]));
  EXPECT_GT(a.iops, slow.iops) << "a period past the device's latency only delays completions";
  EXPECT_LT(slow.reaper_cores, a.reaper_cores) << "a longer period costs the thread less CPU";
  EXPECT_NEAR(slow.reaper_period_ns, 200'000, 1) << "a fixed period is kept";
}

// Beside our thread and a CPU-bound neighbour, a spinning completion thread
// shares their core: the scheduler gives it less of the core than a core of
// its own, and our reads wait for it.
TEST(Reaper, BesideOurThreadsItSharesTheirCore) {
  Profile p = test::profile();
  auto with = [&](bool beside) {
    Scenario s = scenario("pcie4", "reaper", "busy");
    s.io.depth = 8;
    s.reaper_period_ns = 0;
    s.reaper_beside = beside;
    return run(s, p);
  };
  Result apart = with(false), beside = with(true);
  EXPECT_GT(apart.reaper_cores, 0.4);
  EXPECT_LT(beside.reaper_cores, 0.8 * apart.reaper_cores);
  EXPECT_LT(beside.iops, 0.8 * apart.iops);
}

TEST(Scenario, IsAFunctionOfItsSeed) {
  Profile p = test::profile();
  Scenario s = scenario("disk", "adaptive", "random:20");
  Result a = run(s, p), b = run(s, p);
  EXPECT_EQ(a.iops, b.iops);
  EXPECT_EQ(a.io_bins, b.io_bins);
  EXPECT_EQ(a.settled.size(), b.settled.size());
  s.seed = 2;
  Result c = run(s, p);
  EXPECT_NE(c.lat_mean_ns, a.lat_mean_ns);
  EXPECT_NE(c.io_bins, a.io_bins);
}

TEST(Scenario, TheDevicesCeilingHolds) {
  Profile p = test::profile();
  Scenario s = scenario("emu:lat_us=20,iops=100000", "poll", "none");
  s.cores = 2;
  s.io.depth = 16;
  Result r = run(s, p);
  EXPECT_LT(r.iops, 100000 * 1.01);
  EXPECT_GT(r.iops, 100000 * 0.95);
}

TEST(Scenario, ABadNeighbourIsNamed) {
  EXPECT_THROW(NeighbourSpec::parse("steady:150"), std::invalid_argument);
  EXPECT_THROW(NeighbourSpec::parse("wobbly"), std::invalid_argument);
  try {
    NeighbourSpec::parse("bursts:x");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
}

TEST(Oracle, IsNeverBelowTheBestStaticStrategy) {
  Profile p = test::profile();
  Scenario s = scenario("disk", "poll", "bursts:50");
  Comparison c = compare(s, p, {"interrupt", "poll", "adaptive"});
  for (bool own : {false, true}) {
    OracleResult o = oracle(c, s, own);
    EXPECT_GE(o.score, c.score(c.best_static(own), own) * 0.999) << own;
  }
  Reactions r = reactions(c, s, "adaptive", false);
  EXPECT_GT(r.ms.size() + size_t(r.never), 10u) << "each change of the neighbour is a reaction to time";
}

}  // namespace
}  // namespace hio::sim
