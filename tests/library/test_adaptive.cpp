// SPDX-License-Identifier: MIT
// The adaptive strategy's pieces, driven by synthetic signals: the decision
// in every regime, its hysteresis and probing, the latency estimator. No
// timing is asserted: ticks carry made-up clocks. The governor's picture of
// the other tenants is tested in test_governor.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "adaptive/latency.hpp"
#include "adaptive/policy.hpp"
#include "adaptive_devices.hpp"
#include "hybridio/hio.hpp"
#include "test_util.hpp"

using namespace hio;

namespace {

// Beside adaptive_devices.hpp's disk: an emulated PCIe 4.0 SSD where an
// interrupt costs as much CPU as a polled I/O; a PCIe 3.0 one where a
// hybrid sleep saves half the CPU at polling's latency.
const Device kPcie4{{{67000, 8.3, 14.4, 1}, {117000, 8.5, 8.3, 0}, {67000, 7.9, 14.4, 1}}};
const Device kPcie3{{{45000, 8.7, 21.6, 1}, {64000, 15.5, 15.3, 0}, {62000, 8.6, 15.7, 1}}};

const PolicyParams kParams;
const uint64_t kTick = kParams.tick_ns;             // 2 ms
const uint64_t kProbeTick = kParams.probe_tick_ns;  // 8 ms

// What the governor sees the neighbour use.
double use(const Device& d, Mode m, double want) {
  return m == Mode::poll ? std::min(want, 0.5) : std::min(want, 1 - own_share(d, m, 0));
}

// A tick in mode m on device d beside a neighbour wanting `want`.
TickSample tick(const Device& d, Mode m, double want, double wait_share = 0.95, uint64_t wall = kTick) {
  const Truth& t = d[size_t(int(m))];
  TickSample s;
  s.wall_ns = wall;
  s.delay_share = delay(m, want);
  s.completions = uint64_t(t.iops * (1 - s.delay_share) * double(wall) / 1e9);
  s.cpu_ns = uint64_t(t.cpu_us * 1000 * double(s.completions));
  s.lat_sum_ns = uint64_t(t.lat_us * 1000 * double(s.completions));
  s.sleeps = uint64_t(t.sleeps * double(s.completions));
  s.wait_ns = uint64_t(wait_share * double(wall));
  return s;
}

// Hand-made signals: others using `contention`.
Signals sig(double contention, double wait_share = 0.95, bool hybrid_viable = true) {
  Signals g;
  g.contention = contention;
  g.wait_share = wait_share;
  g.wake_cpu_ns = 5000;
  g.hybrid_viable = hybrid_viable;
  return g;
}

// What the queue sees at the end of a tick in mode m beside a neighbour
// wanting `want`, with that demand known beside the poller too (as it is
// just after a switch to polling, while the window holds ticks beside a
// sleeper).
Signals sig(const Device& d, Mode m, double want, double wait_share = 0.95, bool hybrid_viable = true) {
  Signals g = sig(use(d, m, want), wait_share, hybrid_viable);
  if (m == Mode::poll) g.demand = want;
  return g;
}

// Runs the policy for n ticks in a steady situation; returns the last decision.
struct Driver {
  AdaptivePolicy p;
  uint64_t now = 0;
  Mode mode = Mode::poll;
  bool probing = false;
  int probes_seen = 0;
  Objective objective = Objective::shared;
  Decision run(const Device& d, double want, int n, double wait_share = 0.95, bool viable = true) {
    Decision last;
    for (int i = 0; i < n; i++) {
      uint64_t wall = probing ? kProbeTick : kTick;
      now += wall;
      Signals s = sig(d, mode, want, wait_share, viable);
      s.objective = objective;
      last = p.on_tick(now, mode, tick(d, mode, want, wait_share, wall), s);
      probes_seen += last.probe;
      mode = last.mode;
      probing = last.probe;
    }
    return last;
  }
};

}  // namespace

TEST(AdaptivePolicy, AloneAndBusyPollsWithoutProbing) {
  Driver d;
  Decision last = d.run(kDisk, 0.0, 300);
  EXPECT_EQ(last.mode, Mode::poll);
  EXPECT_EQ(d.p.settled(), Mode::poll);
  EXPECT_EQ(d.p.probes(), 0u);
  EXPECT_EQ(d.p.switches(), 0u);
}

TEST(AdaptivePolicy, ContentionProbesTheUnknownModesFirst) {
  Driver d;
  d.run(kDisk, 0.0, 5);
  Decision a = d.run(kDisk, 1.0, 1);
  EXPECT_TRUE(a.probe);
  Decision b = d.run(kDisk, 1.0, 1);
  EXPECT_TRUE(b.probe);
  EXPECT_NE(a.mode, b.mode);
  d.run(kDisk, 1.0, 1);  // the second probe's tick is learned when it ends
  EXPECT_TRUE(d.p.cost(Mode::interrupt, 1.0).known);
  EXPECT_TRUE(d.p.cost(Mode::hybrid, 1.0).known);
}

// The disk: polling pays alone and beside a light co-runner; interrupts pay
// from half the core on (the crossover lies between, near 0.4).
TEST(AdaptivePolicy, DiskCrossesOverToInterrupts) {
  for (double c : {0.5, 1.0}) {
    Driver d;
    d.run(kDisk, c, 40);
    EXPECT_EQ(d.p.settled(), Mode::interrupt) << "contention " << c;
  }
  Driver d;
  d.run(kDisk, 0.08, 40);
  EXPECT_EQ(d.p.settled(), Mode::poll);
}

// When a wake-up costs as much CPU as the I/O, sleeping frees nothing for
// the co-runner: poll at every load.
TEST(AdaptivePolicy, Pcie4PollsAtEveryLoad) {
  for (double c : {0.05, 0.1, 0.25, 0.5, 1.0}) {
    Driver d;
    d.run(kPcie4, c, 40);
    EXPECT_EQ(d.p.settled(), Mode::poll) << "contention " << c;
  }
}

TEST(AdaptivePolicy, Pcie3SleepsThroughPartOfEachIoUnderLoad) {
  Driver d;
  d.run(kPcie3, 1.0, 40);
  EXPECT_EQ(d.p.settled(), Mode::hybrid);
  EXPECT_GT(d.p.score(Mode::hybrid, sig(1.0)), d.p.score(Mode::poll, sig(1.0)));
}

TEST(AdaptivePolicy, HybridNeverTriedWhereItCannotSleep) {
  Driver d;
  d.run(kPcie3, 1.0, 200, 0.95, /*viable=*/false);
  EXPECT_NE(d.p.settled(), Mode::hybrid);
  EXPECT_FALSE(d.p.cost(Mode::hybrid, 1.0).known);
}

// A light demand on a free core: polling's latency (within 10 %) for the
// least CPU. pcie3's hybrid keeps it at half the CPU; the disk's modes all
// cost latency, so it polls.
TEST(AdaptivePolicy, LightDemandTakesTheCheapestModeThatKeepsLatency) {
  Driver a;
  a.run(kPcie3, 0.0, 100, /*wait_share=*/0.15);
  EXPECT_EQ(a.p.settled(), Mode::hybrid);
  Driver b;
  b.run(kDisk, 0.0, 100, 0.15);
  EXPECT_EQ(b.p.settled(), Mode::poll);
}

// Under `own` only the queue's throughput counts, and alone nothing serves
// it sooner than a spinning thread, however little it waits: the cheaper
// mode of a light demand (pcie3's hybrid, above) is neither taken nor probed.
TEST(AdaptivePolicy, UnderOwnAloneAlwaysPolls) {
  Driver a;
  a.objective = Objective::own;
  a.run(kPcie3, 0.0, 100, 0.15);
  EXPECT_EQ(a.p.settled(), Mode::poll);
  EXPECT_EQ(a.p.probes(), 0u);
}

// In use, a light-demand choice survives latency noise up to the switch gain.
TEST(AdaptivePolicy, LightDemandChoiceIsSticky) {
  Device d = kDisk;
  d[size_t(int(Mode::interrupt))].lat_us = 22 * 1.08;  // within the slack
  Driver a;
  a.run(d, 0.0, 100, 0.15);
  ASSERT_EQ(a.p.settled(), Mode::interrupt);
  d[size_t(int(Mode::interrupt))].lat_us = 22 * 1.12;  // beyond it, within slack x gain
  a.run(d, 0.0, 100, 0.15);
  EXPECT_EQ(a.p.settled(), Mode::interrupt);
  d[size_t(int(Mode::interrupt))].lat_us = 22 * 1.3;  // beyond both
  a.run(d, 0.0, 100, 0.15);
  EXPECT_EQ(a.p.settled(), Mode::poll);
}

// Returning to poll when the neighbour goes takes one quiet tick: the
// governor reads quiet only once its 8 ms window has held no neighbour, so
// a second tick would only delay the return. (It took two ticks while the
// contention signal was a single thread's noisy delay share.)
TEST(AdaptivePolicy, ReturnsToPollAtTheFirstQuietTick) {
  Driver d;
  d.run(kDisk, 1.0, 20);
  ASSERT_EQ(d.p.settled(), Mode::interrupt);
  d.run(kDisk, 0.0, 1);
  EXPECT_EQ(d.p.settled(), Mode::poll);
}

TEST(AdaptivePolicy, FollowsTheCoRunnerOnAndOff) {
  Driver d;
  d.run(kDisk, 0.0, 20);
  d.run(kDisk, 1.0, 10);
  EXPECT_EQ(d.p.settled(), Mode::interrupt);
  d.run(kDisk, 0.0, 3);
  EXPECT_EQ(d.p.settled(), Mode::poll);
  EXPECT_GE(d.p.switches(), 2u);
}

// ---- hysteresis -------------------------------------------------------------------

namespace {

// A policy settled on poll with interrupt known, where interrupt's score
// beats poll's by `gain` (the heavy level: the co-runner wants the whole core
// and gets half of it beside the poller).
struct Settled {
  AdaptivePolicy p;
  uint64_t now = kTick;
  explicit Settled(double gain) {
    // poll: 100K IOPS (the best), and the co-runner keeps half the core: 1.5.
    p.on_tick(now, Mode::poll, sample(100000, 10000), sig(0.5));
    // interrupt: no CPU, so the co-runner keeps the core; its I/O rate sets the gain.
    interrupt_iops = (1.5 * gain - 1.0) * 100000;
    now += kTick;
    p.on_tick(now, Mode::interrupt, sample(interrupt_iops, 0), sig(1.0));
  }
  static TickSample sample(double iops, double cpu_ns, uint64_t wall = kTick) {
    TickSample s;
    s.wall_ns = wall;
    s.completions = uint64_t(iops * double(wall) / 1e9);
    s.cpu_ns = uint64_t(cpu_ns * double(s.completions));
    s.lat_sum_ns = 10000 * s.completions;
    s.wait_ns = wall;
    return s;
  }
  Decision step() {
    now += kTick;
    return p.on_tick(now, p.settled(), TickSample{}, sig(1.0));
  }
  double interrupt_iops;
};

}  // namespace

TEST(AdaptivePolicy, SmallGainNeverSwitches) {
  Settled s(1.02);
  for (int i = 0; i < 20; i++) s.step();
  EXPECT_EQ(s.p.settled(), Mode::poll);
}

// A lead of the switch gain switches on the tick that shows it, and the
// new mode holds while the lead does.
TEST(AdaptivePolicy, TheSwitchGainSwitchesOnTheTickThatShowsIt) {
  Settled s(1.04);
  EXPECT_EQ(s.p.settled(), Mode::interrupt);
  for (int i = 0; i < 20; i++) s.step();
  EXPECT_EQ(s.p.settled(), Mode::interrupt);
  EXPECT_EQ(s.p.switches(), 1u);
}

// Beside a heavy neighbour one tick of the mode in use is enough to compare.
TEST(AdaptivePolicy, LargeGainSwitchesAtOnce) {
  AdaptivePolicy p;
  p.on_tick(kTick, Mode::poll, Settled::sample(100000, 10000), sig(0.5));
  p.on_tick(2 * kTick, Mode::interrupt, Settled::sample(85000, 0), sig(1.0));  // 1.85 against 1.5
  EXPECT_EQ(p.settled(), Mode::interrupt);
}

// Below the heavy level, a lead over the mode in use counts once that
// mode has been measured there for as long as the probe that measured its
// rival: one 2 ms tick may fall in a neighbour's 1 ms slice. Traced beside
// a 10% neighbour in 1 ms slices on the disk: interrupts at 13.5K reads/s
// from an 8 ms probe, then poll's first tick at the level at 9.4K (its
// others: 20K).
TEST(AdaptivePolicy, OneUnluckyTickDoesNotOutweighAProbe) {
  AdaptivePolicy p;
  Signals light = sig(0.1);
  light.objective = Objective::own;
  uint64_t now = kProbeTick;
  p.on_tick(now, Mode::interrupt, Settled::sample(13500, 9000, kProbeTick), light);
  p.on_tick(now += kTick, Mode::poll, Settled::sample(9400, 10000), light);
  EXPECT_EQ(p.settled(), Mode::poll) << "one tick against an 8 ms probe";
  for (int i = 0; i < 3; i++) p.on_tick(now += kTick, Mode::poll, Settled::sample(20000, 10000), light);
  EXPECT_EQ(p.settled(), Mode::poll);
  EXPECT_EQ(p.switches(), 0u);
  // Where poll stays that slow, the lead holds once it is measured as long,
  // and a second probe of interrupts confirms it.
  Mode next = Mode::poll;
  for (int i = 0; i < 16 && p.settled() == Mode::poll; i++) {
    bool probe = next == Mode::interrupt;
    TickSample s = probe ? Settled::sample(13500, 9000, kProbeTick) : Settled::sample(9400, 10000);
    next = p.on_tick(now += s.wall_ns, next, s, light).mode;
  }
  EXPECT_EQ(p.settled(), Mode::interrupt);
}

// At a steady level a lead that rests on one probe is measured again before
// the queue switches: an 8 ms probe may fall in a fast phase of the
// application (mixgraph beside a full core on emu:pcie3: interrupts read
// 17K reads/s in one, 10K in their ticks, and the queue left polling, 1.2x
// interrupts' ops/s, for the rest of the run). The switch follows if the
// second probe holds the lead.
TEST(AdaptivePolicy, ALeadFromOneProbeIsConfirmedBeforeASwitch) {
  Signals heavy = sig(0.6);
  heavy.objective = Objective::own;
  heavy.hybrid_viable = false;
  for (bool holds : {true, false}) {
    AdaptivePolicy p;
    uint64_t now = 0;
    Mode next = Mode::poll;
    int interrupt_probes = 0;
    while (now < 400'000'000 && interrupt_probes < 3) {
      bool probe = next == Mode::interrupt;
      // Interrupts' usual rate is 0.7 of polling's; their third probe reads 2x.
      double iops = !probe ? 10000 : ++interrupt_probes == 3 ? 20000 : 7000;
      TickSample s = Settled::sample(iops, 10000, probe ? kProbeTick : kTick);
      next = p.on_tick(now += s.wall_ns, next, s, heavy).mode;
    }
    ASSERT_EQ(interrupt_probes, 3);
    EXPECT_EQ(p.settled(), Mode::poll) << "one fast probe";
    EXPECT_EQ(next, Mode::interrupt) << "measured again at once";
    TickSample again = Settled::sample(holds ? 20000 : 7000, 10000, kProbeTick);
    next = p.on_tick(now += kProbeTick, Mode::interrupt, again, heavy).mode;
    for (int i = 0; i < 4; i++) {
      TickSample s = Settled::sample(p.settled() == Mode::poll ? 10000 : 20000, 10000);
      next = p.on_tick(now += kTick, p.settled(), s, heavy).mode;
    }
    EXPECT_EQ(p.settled(), holds ? Mode::interrupt : Mode::poll) << (holds ? "the lead held" : "one fast probe");
  }
}

// Under the shared objective the neighbour's part of a sleeping mode's
// score is its reading less our wake-ups' estimated cost, and as for the
// level that estimate never takes more than the cap of the reading: at 45K
// sleeps/s and 15 us a wake-up it alone exceeds a 20% neighbour's reading,
// which would leave the neighbour nothing beside our sleeper.
TEST(AdaptivePolicy, OurWakeUpsNeverHideTheNeighbourInTheScore) {
  AdaptivePolicy p;
  Signals beside = sig(0.2);
  beside.wake_cpu_ns = 15000;
  TickSample s = Settled::sample(45000, 10000);
  s.sleeps = s.completions;
  p.on_tick(kTick, Mode::interrupt, s, beside);
  ASSERT_TRUE(p.cost(Mode::interrupt, 0.2).known);
  Signals own = beside;
  own.objective = Objective::own;
  double theirs = p.score(Mode::interrupt, beside) - p.score(Mode::interrupt, own);
  // Nothing but the sleeper measured: they want what they used beside it.
  EXPECT_NEAR(theirs, 1 - kParams.hidden_wake_cap, 1e-9);
}

// A wake-up never interrupts the thread it wakes, which sleeps; with four
// of ours on the core it mostly lands on another of them, and is charged to
// that one's clock, not read as the neighbour's use. Four of ours beside a
// neighbour wanting a quarter of the core: interrupts complete more and
// leave it more than polling does, and the lead settles on them. Counting
// every wake-up as hidden in the neighbour's reading took away half of it
// and kept the queue polling (hio-sim, bare-metal wake-ups on this
// machine's disk: 0.76 of interrupts' score).
TEST(AdaptivePolicy, OurWakeUpsOnAnotherOfOursAreNotHiddenInTheNeighbour) {
  const int ours = 4;
  auto sample = [&](Mode m, uint64_t wall) {
    bool sleeps = m != Mode::poll;
    double iops = sleeps ? 45700 : 34700;  // all of ours on the core
    TickSample s;
    s.wall_ns = wall;
    s.completions = uint64_t(iops * double(wall) / 1e9);
    s.own_completions = s.completions / ours;
    s.cpu_ns = uint64_t((sleeps ? 16000.0 : 47000.0) * double(s.own_completions));
    s.lat_sum_ns = uint64_t((sleeps ? 75000.0 : 110000.0) * double(s.own_completions));
    s.sleeps = sleeps ? s.own_completions : 0;
    s.wait_ns = uint64_t(0.8 * double(wall));
    s.delay_share = sleeps ? 0 : 0.2;
    return s;
  };
  AdaptivePolicy p;
  uint64_t now = 0;
  Mode next = Mode::poll;
  bool probing = false;
  while (now < 400'000'000) {
    uint64_t wall = probing ? kProbeTick : kTick;
    Signals g = sig(0.2, 0.8, false);
    g.level = 2;
    g.ours = ours;
    g.wake_cpu_ns = 4500;
    g.tick_others = next == Mode::poll ? 0.20 : 0.212;
    g.demand = 0.26;
    Decision d = p.on_tick(now += wall, next, sample(next, wall), g);
    next = d.mode;
    probing = d.probe;
  }
  EXPECT_EQ(p.settled(), Mode::interrupt);
}

// At a steady level, a lead that rests on one probe of the other mode (the
// device may have drifted since, or the probe fell in a fast phase of the
// application) is checked by measuring that mode again before switching;
// the switch follows only if it holds.
TEST(AdaptivePolicy, ALeadOnOneProbeIsMeasuredAgainBeforeASwitch) {
  PolicyParams no_scheduled_probes;
  no_scheduled_probes.probe_min_ns = no_scheduled_probes.probe_max_ns = 3'600'000'000'000;
  const Signals beside_poll = sig(0.5, 0.95, false), beside_sleeper = sig(0.65, 0.95, false);
  for (bool holds : {true, false}) {
    AdaptivePolicy p(no_scheduled_probes);
    uint64_t now = kTick;
    p.on_tick(now, Mode::poll, Settled::sample(100000, 10000), beside_poll);
    now += kTick;
    p.on_tick(now, Mode::interrupt, Settled::sample(60000, 0), beside_sleeper);  // 1.25 against poll's 1.5
    for (int i = 0; i < 40; i++) {  // 80 ms on poll: interrupt's figure grows old
      now += kTick;
      p.on_tick(now, Mode::poll, Settled::sample(100000, 10000), beside_poll);
    }
    ASSERT_EQ(p.settled(), Mode::poll);
    // Then poll's rate sinks (the device slows): interrupt's old figure comes to lead.
    Decision d;
    for (int i = 0; i < 100 && !d.probe; i++) {
      now += kTick;
      d = p.on_tick(now, Mode::poll, Settled::sample(30000, 10000), beside_poll);
      ASSERT_EQ(p.settled(), Mode::poll) << "switched on one probe, tick " << i;
    }
    ASSERT_TRUE(d.probe) << "the leading mode was never measured again";
    EXPECT_EQ(d.mode, Mode::interrupt);
    // The probe: interrupt kept its rate (the lead holds), or slowed down as much (it was the device).
    now += kProbeTick;
    p.on_tick(now, Mode::interrupt, Settled::sample(holds ? 60000 : 18000, 0), beside_sleeper);
    for (int i = 0; i < 4; i++) {  // each mode runs as it now does
      now += kTick;
      bool on_poll = p.settled() == Mode::poll;
      p.on_tick(now, p.settled(), on_poll ? Settled::sample(30000, 10000) : Settled::sample(holds ? 60000 : 18000, 0),
                on_poll ? beside_poll : beside_sleeper);
    }
    EXPECT_EQ(p.settled(), holds ? Mode::interrupt : Mode::poll)
        << (holds ? "the lead held" : "the lead was the device");
  }
}

// ---- probing ------------------------------------------------------------------------

TEST(AdaptivePolicy, ProbesBackOffWhileSteady) {
  Driver d;
  d.run(kDisk, 1.0, 20);  // settle on interrupt
  ASSERT_EQ(d.p.settled(), Mode::interrupt);
  int before = d.probes_seen;
  d.run(kDisk, 1.0, 800);  // over 1.6 s steady
  int steady = d.probes_seen - before;
  EXPECT_GE(steady, 2);   // still probes...
  EXPECT_LE(steady, 10);  // ...but backs off (every tick would be 800)
}

namespace {

// A queue beside a heavy neighbour under `own`, polling, with interrupts far
// behind or catching up: when it probes interrupts (the first n probes, or
// those before `until`). rate(mode, k) is a tick's rate, k counting the
// ticks in interrupts. It stays on poll throughout.
template <class Rate>
std::vector<uint64_t> interrupt_probes(size_t n, uint64_t until, Rate rate, int ours = 1) {
  AdaptivePolicy p;
  Signals s = sig(0.6);
  s.objective = Objective::own;
  s.hybrid_viable = false;
  s.ours = ours;
  uint64_t now = 0;
  Mode mode = Mode::poll;
  bool probing = false;
  int interrupt_ticks = 0;
  std::vector<uint64_t> probes;
  while (now < until && probes.size() < n) {
    uint64_t wall = probing ? kProbeTick : kTick;
    now += wall;
    double iops = rate(mode, mode == Mode::interrupt ? interrupt_ticks++ : interrupt_ticks);
    Decision d = p.on_tick(now, mode, Settled::sample(iops, 10000, wall), s);
    if (d.probe && d.mode == Mode::interrupt) probes.push_back(now);
    mode = d.mode;
    probing = d.probe;
  }
  EXPECT_EQ(p.settled(), Mode::poll);
  return probes;
}

}  // namespace

// A mode far behind backs off fourfold per probe from its first
// measurement: in the regret suite, waiting until it had been measured for
// memory_ns kept probing modes that never came near.
TEST(AdaptivePolicy, AModeFarBehindBacksOffFourfoldFromItsFirstProbe) {
  auto probes = interrupt_probes(4, 5'000'000'000, [](Mode m, int) { return m == Mode::poll ? 10000.0 : 2500.0; });
  ASSERT_EQ(probes.size(), 4u);
  for (size_t i = 2; i < probes.size(); i++)
    EXPECT_GE(probes[i] - probes[i - 1], 3 * (probes[i - 1] - probes[i - 2])) << "probe " << i;
}

// With several of ours on the core a probe moves all of them, and a mode
// far behind waits the longest interval from its first measurement (four
// of ours polling alone spent 5% of a 1 s run in probes of interrupts at
// half polling's rate). A mode within reach still doubles from 50 ms.
TEST(AdaptivePolicy, WithSeveralOfOursAModeFarBehindWaitsTheLongestInterval) {
  const int ours = 2;
  auto far = interrupt_probes(
      3, 10'000'000'000, [](Mode m, int) { return m == Mode::poll ? 10000.0 : 2500.0; }, ours);
  ASSERT_EQ(far.size(), 3u);
  EXPECT_LT(far[1] - far[0], kParams.probe_max_ns / 4) << "the first measurement is checked once soon";
  EXPECT_GE(far[2] - far[1], kParams.probe_max_ns) << "then, far behind, it waits the longest interval";
  auto near = interrupt_probes(
      4, 10'000'000'000, [](Mode m, int) { return m == Mode::poll ? 10000.0 : 9000.0; }, ours);
  ASSERT_EQ(near.size(), 4u);
  EXPECT_LT(near[3] - near[2], kParams.probe_max_ns / 4) << "a mode within reach backs off by doubling";
}

// A mode's probe is compared with the mode in use at the time: once that
// mode's rate has moved past probe_rise, the far mode is measured again at
// the shortest interval. RocksDB's start beside a full core on the disk:
// interrupts' first probes read 2.0K reads/s beside polling at 3.1K, and
// were not probed again until polling had risen to 3.8K, 1 s later. A mode
// in use that holds its rate leaves the far mode on its interval. Two of
// ours, so that the interval left is the longest one: the rule is the same
// for a lone queue.
TEST(AdaptivePolicy, AModeFarBehindIsProbedAgainOnceTheModeInUseHasMoved) {
  auto second_gap = [](bool rises) {
    auto probes = interrupt_probes(
        3, 10'000'000'000,
        [rises](Mode m, int k) {
          if (m == Mode::interrupt) return k < 2 ? 2500.0 : 9000.0;
          return rises && k >= 2 ? 10000.0 : 4000.0;
        },
        2);
    EXPECT_EQ(probes.size(), 3u);
    return probes.size() == 3 ? probes[2] - probes[1] : 0;
  };
  EXPECT_LT(second_gap(true), kParams.probe_max_ns / 4) << "polling rose 2.5x since";
  EXPECT_GE(second_gap(false), kParams.probe_max_ns) << "polling held its rate";
}

// A probe that read more than a quarter above its mode's figure, near
// enough the mode in use to overtake it, found the mode still moving
// (RocksDB warming up beside a full core: interrupts' figure rose 4.8K,
// 5.4K, 7.6K, 9.5K, then 10-12K): the next comes at the shortest interval,
// not after the doubled one. A figure that holds still backs off.
TEST(AdaptivePolicy, AProbeAboveItsModesFigureIsRepeatedSoon) {
  auto gaps = [](bool rising) {
    // Rising: warming up from a quarter of polling's rate to 0.85 of it.
    auto probes = interrupt_probes(5, 5'000'000'000, [rising](Mode m, int k) {
      return m == Mode::poll ? 10000.0 : rising && k > 0 ? 8500.0 : 2500.0;
    });
    std::vector<uint64_t> g;
    for (size_t i = 1; i < probes.size(); i++) g.push_back(probes[i] - probes[i - 1]);
    return g;
  };
  const uint64_t soon = kParams.probe_min_ns + kProbeTick + kTick;
  auto rising = gaps(true);
  ASSERT_EQ(rising.size(), 4u);
  for (size_t i = 1; i < 3; i++) EXPECT_LE(rising[i], soon) << "after probe " << i + 1 << " read above";
  auto steady = gaps(false);
  ASSERT_EQ(steady.size(), 4u);
  for (size_t i = 1; i < steady.size(); i++) EXPECT_GE(steady[i], 3 * steady[i - 1] / 2) << "after steady probe " << i;
}

// A level that never lasts as long as a probe: stress-ng at 5% in 1 ms
// slices every 20 ms reads light for a few ms of each period and quiet for
// the rest. A light level that lasts less than a level's arrival (10 ms) is
// never probed. One that lasts a little longer is, but every probe of
// interrupts there ends, cut short by the return to quiet, without a
// measurement: the mode stays unknown there, yet is probed on the
// backing-off schedule, not at each return.
TEST(AdaptivePolicy, AProbeCutShortIsNotRetriedAtOnce) {
  auto probes_at_light = [](int light_ticks) {
    AdaptivePolicy p;
    uint64_t now = 0;
    std::array<int, kModes> probes{};
    while (now < 1'000'000'000) {
      for (int i = 0; i < 6; i++) {  // 12 ms quiet: alone and busy, polling
        now += kTick;
        p.on_tick(now, Mode::poll, tick(kPcie3, Mode::poll, 0.0), sig(0.0));
      }
      for (int i = 0; i < light_ticks; i++) {
        now += kTick;
        Decision d = p.on_tick(now, Mode::poll, tick(kPcie3, Mode::poll, 0.1), sig(0.1));
        if (!d.probe) continue;
        probes[size_t(int(d.mode))]++;
        now += kProbeTick;  // the level fell back to quiet before the probe's tick ended
        p.on_tick(now, d.mode, TickSample{}, sig(0.0));
        break;
      }
    }
    EXPECT_FALSE(p.cost(Mode::interrupt, 0.1).known);
    return probes;
  };
  for (int n : probes_at_light(1)) EXPECT_EQ(n, 0);
  auto longer = probes_at_light(7);  // 14 ms
  for (Mode m : {Mode::interrupt, Mode::hybrid}) {
    EXPECT_GE(longer[size_t(int(m))], 2);  // still tried: the level might last next time...
    EXPECT_LE(longer[size_t(int(m))], 6);  // ...but not at each of its returns (after 50 ms, then twice as long)
  }
}

// Each level of contention keeps its own measurements. A level never seen
// starts from the nearest one's (probed on the usual schedule, not at once);
// a level seen before is used at once.
TEST(AdaptivePolicy, ContentionLevelsKeepTheirOwnMeasurements) {
  Driver d;
  d.run(kDisk, 1.0, 20);
  ASSERT_EQ(d.p.settled(), Mode::interrupt);
  int before = d.probes_seen;
  d.run(kDisk, 0.2, 2);  // medium: borrowed from heavy
  EXPECT_EQ(d.probes_seen, before);
  EXPECT_TRUE(d.p.cost(Mode::poll, 0.2).known);
  d.run(kDisk, 0.2, 150);  // then probed on schedule (300 ms: past the first probe interval)
  EXPECT_GT(d.probes_seen, before);
  EXPECT_FALSE(d.p.cost(Mode::poll, 0.2).borrowed);
  d.run(kDisk, 0.0, 5);
  ASSERT_EQ(d.p.settled(), Mode::poll);
  ASSERT_TRUE(d.p.cost(Mode::interrupt, 1.0).known);
  uint64_t switches = d.p.switches();
  d.run(kDisk, 1.0, 1);  // back to a known level: switch on the first tick
  EXPECT_EQ(d.p.settled(), Mode::interrupt);
  EXPECT_EQ(d.p.switches(), switches + 1);
}

// A tick without a completion has no rate or cost per completion to teach;
// one completion does, weighed by the tick's length like any other.
TEST(AdaptivePolicy, OnlyATickWithoutCompletionsTeachesNothing) {
  AdaptivePolicy p;
  TickSample s = Settled::sample(100000, 10000);
  s.completions = 0;
  p.on_tick(kTick, Mode::poll, s, sig(1.0));
  EXPECT_FALSE(p.cost(Mode::poll, 1.0).known);
  s = Settled::sample(500, 10000);
  ASSERT_EQ(s.completions, 1u);
  p.on_tick(2 * kTick, Mode::poll, s, sig(1.0));
  EXPECT_TRUE(p.cost(Mode::poll, 1.0).known);
  EXPECT_NEAR(p.cost(Mode::poll, 1.0).iops, 500, 1);
}

TEST(AdaptivePolicy, RatesAreMeasuredOverTheTimeTheThreadCouldRun) {
  AdaptivePolicy p;
  TickSample s = Settled::sample(50000, 20000);  // 100 completions in 2 ms...
  s.delay_share = 0.5;                           // ...while running half of it
  p.on_tick(kTick, Mode::poll, s, sig(0.5));
  EXPECT_NEAR(p.cost(Mode::poll, 0.5).iops, 50000, 1);
  EXPECT_NEAR(p.cost(Mode::poll, 0.5).iops_free, 100000, 1);
  EXPECT_NEAR(p.cost(Mode::poll, 0.5).cpu_ns, 20000, 1);
}

// ---- the level acted on ---------------------------------------------------------------

namespace {

constexpr uint64_t kMs = 1'000'000;

// The governor's 8 ms window beside a neighbour that runs one 1 ms slice
// in every 10 ms: the slice is in the window for `held` ms of each period.
double slices(uint64_t t, uint64_t held) { return t % (10 * kMs) < held * kMs ? 0.125 : 0.0; }

// The window as a CPU-bound neighbour arrives at `at` beside our poller:
// it fills by an eighth per millisecond up to the poller's fair half.
double arrival(uint64_t t, uint64_t at) { return t < at ? 0.0 : std::min(0.5, double(t - at) / double(8 * kMs)); }

}  // namespace

TEST(LevelHold, ANeighbourInShortSlicesIsOneLevel) {
  for (uint64_t held : {9, 8}) {  // gaps of 1 and 2 ms
    LevelHold h;
    int raw_changes = 0, held_changes = 0, raw = -1, level = -1;
    for (uint64_t t = 0; t < 200 * kMs; t += kMs / 4) {  // a wait every 250 us
      int r = contention_level(slices(t, held));
      int l = h.update(t, slices(t, held));
      raw_changes += raw >= 0 && r != raw;
      held_changes += level >= 0 && l != level;
      raw = r;
      level = l;
    }
    EXPECT_GE(raw_changes, 39) << held;  // the window's own figure swings twice a period
    EXPECT_EQ(held_changes, 0) << held;
    EXPECT_EQ(level, 1) << held;
  }
}

TEST(LevelHold, AHeavyNeighbourIsReadAtOnce) {
  LevelHold h;
  const uint64_t at = 20 * kMs;
  uint64_t t = 0;
  for (; t < at; t += kMs / 4) ASSERT_EQ(h.update(t, arrival(t, at)), 0);
  while (h.update(t, arrival(t, at)) == 0) t += kMs / 4;
  EXPECT_EQ(h.level(), 3);     // light and medium are passed through, not acted on
  EXPECT_LE(t - at, 3 * kMs);  // as soon as the window reads 0.3
  for (; t < 100 * kMs; t += kMs / 4) h.update(t, 0.5);
  EXPECT_EQ(h.update(t, 0.0), 0);  // and its departure once the window has emptied
}

TEST(LevelHold, ALightNeighbourLeavesOnceTheHoldHasPassed) {
  LevelHold h;
  uint64_t t = 0;
  for (; t < 100 * kMs; t += kMs / 4) h.update(t, 0.1);
  ASSERT_EQ(h.level(), 1);
  const uint64_t gone = t;
  while (h.update(t, 0.0) == 1) t += kMs / 4;
  EXPECT_EQ(h.level(), 0);
  EXPECT_GE(t - gone, kParams.level_hold_ns);
  EXPECT_LE(t - gone, kParams.level_hold_ns + kMs);
}

TEST(LevelHold, AReturnWithinTheHoldStartsItAgain) {
  LevelHold h;
  h.update(0, 0.2);
  h.update(1 * kMs, 0.0);  // away...
  EXPECT_TRUE(h.away());
  h.update(2 * kMs, 0.2);  // ...and back before the hold
  EXPECT_FALSE(h.away());
  h.update(4 * kMs, 0.0);  // away again: the hold counts from here
  EXPECT_EQ(h.update(6 * kMs, 0.0), 2);
  EXPECT_EQ(h.update(7 * kMs, 0.0), 0);
}

// Heavy is left as it is entered, at once: below its edge the window's
// figure is the level, with no hold.
TEST(LevelHold, HeavyIsLeftAtOnceBelowItsEdge) {
  LevelHold h;
  uint64_t t = 0;
  h.update(t, 0.5);
  EXPECT_EQ(h.update(t += kMs, 0.31), 3);
  EXPECT_EQ(h.update(t += kMs, 0.29), 2);
  EXPECT_EQ(h.update(t += kMs, 0.45), 3);
  EXPECT_EQ(h.update(t += kMs, 0.10), 1);
}

// Beside our sleeper a CPU-bound neighbour takes all the core it leaves: a
// quiet reading over the last samples is its departure, read at once, where
// the window falls through medium and light (and their hold) over its
// length. A spinner's quiet samples may be its own turn, and say nothing.
// A neighbour in bursts shorter than the arrival time is one level, the
// window's.
TEST(LevelHold, AHeavyNeighboursDepartureIsReadFromTheLastSamplesBesideOurSleeper) {
  constexpr Waiting spin = Waiting::spinning, sleep = Waiting::sleeping, full = Waiting::sleeping_full;
  LevelHold h;
  uint64_t t = 0;
  h.update(t, 0.0, sleep, 0.0, sleep);
  h.update(t += kMs, 0.7, full, 0.7, full);
  EXPECT_EQ(h.update(t += kMs, 0.6, sleep, 0.0, sleep), 3) << "entered within the arrival time: short bursts";
  EXPECT_EQ(h.update(t = kParams.arrival_ns + 2 * kMs, 0.7, full, 0.7, full), 3);
  EXPECT_EQ(h.update(t += kMs, 0.6, spin, 0.0, spin), 3);
  EXPECT_EQ(h.update(t += kMs, 0.6, full, 0.0, full), 3) << "on a full core our own threads held it off";
  EXPECT_EQ(h.update(t += kMs, 0.5, sleep, 0.0, sleep), 0);
  // Polling now, the window still holds the neighbour: the samples stand for it.
  EXPECT_EQ(h.update(t += kMs, 0.4, spin, 0.01, spin), 0);
  EXPECT_FALSE(h.away());
  EXPECT_EQ(h.update(t += kMs, 0.35, spin, 0.5, spin), 3) << "and its return is read from them";
  EXPECT_EQ(h.update(t += kMs, 0.5, sleep, 0.0, sleep), 3) << "back within the arrival time: short bursts";
  EXPECT_EQ(h.update(t += kParams.arrival_ns, 0.5, sleep, 0.0, sleep), 0);
  // Once the window has fallen as low, it is the level again.
  EXPECT_EQ(h.update(t += kMs, 0.02, spin, 0.0, spin), 0);
  EXPECT_EQ(h.update(t += kMs, 0.2, spin, 0.0, spin), 0);
  EXPECT_TRUE(h.away());
}

// The level must not follow the queue's own mode. Alone, a queue on
// interrupts reads a light "neighbour": its own wake-ups, outside its
// thread's clock. A spinner reading the same is beside a light neighbour.
// A 10% neighbour beside RocksDB on the disk (12.5K reads/s) read 0.13
// beside our poller and 0.20 beside our sleeper: the difference was our own
// wake-ups. Without them both modes see the same level, light.
TEST(LevelHold, OurWakeUpsBesideOurSleeperDoNotMoveTheLevel) {
  const PolicyParams p;
  constexpr double kWakeCpuNs = 15000;  // this VM's measured sleep
  double beside_sleeper = others_without_our_wakeups(0.20, 12500, kWakeCpuNs, p);
  EXPECT_NEAR(beside_sleeper, 0.20 - 12500 * p.hidden_wake_share * kWakeCpuNs / 1e9, 1e-12);
  EXPECT_EQ(contention_level(0.20), 2) << "the reading as it was";
  EXPECT_EQ(contention_level(beside_sleeper), contention_level(0.13));
  EXPECT_EQ(others_without_our_wakeups(0.20, 0, kWakeCpuNs, p), 0.20) << "a poller's reading is left alone";
  EXPECT_EQ(contention_level(others_without_our_wakeups(0.02, 12500, kWakeCpuNs, p)), 0) << "nobody stays nobody";
  EXPECT_GE(contention_level(others_without_our_wakeups(1.0, 12500, kWakeCpuNs, p)), 3) << "a full core stays heavy";
}

// On emu:pcie4 a queue on interrupts sleeps 45K times a second: the estimate
// of its wake-ups' hidden share (0.34 of a core) exceeded what a 10%
// neighbour read beside it (0.15-0.3). The level read quiet beside our
// sleeper and light or medium beside our poller, so no tick was ever
// measured at one level and the queue cycled between polling and a probe
// of interrupts (37% of the time polling, 0.67 of poll's ops/s). The
// discount takes at most half of the reading: both modes see a neighbour.
TEST(LevelHold, OurWakeUpsNeverHideTheWholeNeighbour) {
  const PolicyParams p;
  constexpr double kWakeCpuNs = 15000;
  for (double reading : {0.15, 0.2, 0.3}) {
    double beside_sleeper = others_without_our_wakeups(reading, 45000, kWakeCpuNs, p);
    EXPECT_DOUBLE_EQ(beside_sleeper, reading * (1 - p.hidden_wake_cap)) << reading;
    EXPECT_GE(contention_level(beside_sleeper), 1) << reading;
  }
}

TEST(LevelHold, OurOwnWakeUpsAreNotALightNeighbour) {
  for (Waiting ours : {Waiting::sleeping, Waiting::sleeping_full, Waiting::spinning}) {
    LevelHold h;
    uint64_t t = 0;
    h.update(t, 0.0, ours);
    for (int i = 0; i < 40; i++) h.update(t += kMs / 4, 0.12, ours);  // 10 ms, past the hold
    EXPECT_EQ(h.level(), ours == Waiting::spinning ? 1 : 0) << int(ours);
    EXPECT_FALSE(h.away());  // and the ticks meanwhile are measured
    EXPECT_EQ(h.update(t += kMs, 0.35, ours), 3) << "a heavy arrival is seen whatever the queue does";
  }
}

// Beside our sleeper on a full core a neighbour that paces itself by the
// clock gets less than it wants: its lower figure keeps the level, unless
// the window reads quiet (it left). With idle time on the core, the lower
// figure is what it wants, and is taken.
TEST(LevelHold, ALowerFigureOnAFullCoreBesideOurSleeperKeepsTheLevel) {
  LevelHold h;
  uint64_t t = 0;
  h.update(t, 0.5);
  for (int i = 0; i < 40; i++) EXPECT_EQ(h.update(t += kMs / 4, 0.26, Waiting::sleeping_full), 3);
  for (int i = 0; i < 40; i++) h.update(t += kMs / 4, 0.10, Waiting::sleeping_full);
  EXPECT_EQ(h.level(), 3);
  EXPECT_EQ(h.update(t += kMs, 0.0, Waiting::sleeping_full), 0);
  LevelHold spare;
  spare.update(0, 0.5);
  EXPECT_EQ(spare.update(kMs, 0.1, Waiting::sleeping), 1);
}

// A mode measured once briefly (a probe in an unlucky phase of the
// application) and later for longer: the measurements average by their
// length, instead of the first one standing until the mode has run memory_ns.
TEST(AdaptivePolicy, AModesFirstMeasurementsAverageByLength) {
  AdaptivePolicy p;
  const Signals beside = sig(0.5);
  TickSample slow = Settled::sample(4000, 10000), fast = Settled::sample(10000, 10000);
  slow.wall_ns = 8 * kMs;
  slow.completions = 32;
  fast.wall_ns = 16 * kMs;
  fast.completions = 160;
  p.on_tick(slow.wall_ns, Mode::poll, slow, beside);
  p.on_tick(slow.wall_ns + fast.wall_ns, Mode::poll, fast, beside);
  EXPECT_NEAR(p.cost(Mode::poll, 0.5).iops, (8 * 4000.0 + 16 * 10000.0) / 24, 1);
  // Once it has run memory_ns, a measurement weighs by its length against that.
  uint64_t now = 24 * kMs;
  for (uint64_t i = 0; i < kParams.memory_ns / kTick; i++)
    p.on_tick(now += kTick, Mode::poll, Settled::sample(10000, 10000), beside);
  TickSample one = Settled::sample(0, 10000);
  one.completions = 14;
  one.wall_ns = kTick;
  double before = p.cost(Mode::poll, 0.5).iops;
  p.on_tick(now += kTick, Mode::poll, one, beside);
  double w = 1 - std::exp(-double(kTick) / double(PolicyParams{}.memory_ns));
  EXPECT_NEAR(p.cost(Mode::poll, 0.5).iops, before + w * (14 / (double(kTick) / 1e9) - before), 1);
}

// RocksDB's start beside a neighbour on the disk measured polling at 1.8K
// reads/s; its later probes read 6.6-7.6K. An old measurement's
// weight against a new one fades with its age, so the later probe is most of
// the figure, where averaged by length the start would be half of it.
TEST(AdaptivePolicy, AnOldMeasurementWeighsLessAgainstANewOne) {
  AdaptivePolicy p;
  Signals beside = sig(0.5);
  beside.objective = Objective::own;
  auto measured = [](double iops, uint64_t wall) {
    TickSample s = Settled::sample(iops, 10000, wall);
    s.wait_ns = wall * 9 / 10;
    return s;
  };
  uint64_t now = kProbeTick;
  p.on_tick(now, Mode::poll, measured(1800, kProbeTick), beside);
  const double start = p.cost(Mode::poll, 0.5).iops;
  for (int i = 0; i < 500; i++) p.on_tick(now += kTick, Mode::interrupt, measured(6000, kTick), beside);
  const uint64_t age = now - kProbeTick;  // 1 s
  p.on_tick(now += kProbeTick, Mode::poll, measured(7000, kProbeTick), beside);
  double kept = double(kProbeTick) * std::exp(-double(age) / double(kParams.memory_ns));
  double w = double(kProbeTick) / (kept + double(kProbeTick));
  EXPECT_NEAR(p.cost(Mode::poll, 0.5).iops, start + w * (7000 - start), 1);
  EXPECT_GT(p.cost(Mode::poll, 0.5).iops, p.cost(Mode::interrupt, 0.5).iops) << "the probe a second later decides";
}

namespace {

// n completions in wall, waiting 90% of it.
TickSample waited(uint64_t n, uint64_t wall) {
  TickSample s = Settled::sample(0, 10000, wall);
  s.completions = n;
  s.wait_ns = wall * 9 / 10;
  return s;
}

}  // namespace

// RocksDB's reads come in slow spells (8 reads in 5-6 ms, waiting all the
// while, in either mode): they fall on the mode in use, while a probe's 8 ms
// mostly misses them. A tick far below its mode's rate counts at half that
// rate, so a spell of three such ticks does not send the queue to a mode
// measured 13% slower; a spell that lasts still brings the figure down.
TEST(AdaptivePolicy, ASlowSpellCountsAtHalfItsModesRate) {
  auto ticked = [](double iops, uint64_t wall = kTick) { return waited(uint64_t(iops * double(wall) / 1e9), wall); };
  Signals beside = sig(0.2);
  beside.objective = Objective::own;
  AdaptivePolicy p;
  uint64_t now = 0;
  for (uint64_t i = 0; i < kParams.memory_ns / kTick; i++) p.on_tick(now += kTick, Mode::poll, ticked(10000), beside);
  p.on_tick(now += kProbeTick, Mode::interrupt, ticked(8700, kProbeTick), beside);
  const uint64_t spell = 5'700'000;  // 5.7 ms
  double before = p.cost(Mode::poll, 0.2).iops;
  p.on_tick(now += spell, Mode::poll, ticked(1410, spell), beside);
  double w = std::max(1 - std::exp(-double(spell) / double(kParams.memory_ns)),
                      double(spell) / double(kParams.memory_ns + spell));
  EXPECT_NEAR(p.cost(Mode::poll, 0.2).iops, before + w * (0.5 * before - before), 1);
  for (int i = 0; i < 2; i++) p.on_tick(now += spell, Mode::poll, ticked(1410, spell), beside);
  for (int i = 0; i < 5; i++) p.on_tick(now += kTick, Mode::poll, ticked(10000), beside);
  EXPECT_EQ(p.settled(), Mode::poll);
  for (uint64_t i = 0; i < 4 * kParams.memory_ns / spell; i++)
    p.on_tick(now += spell, Mode::poll, ticked(1410, spell), beside);
  EXPECT_LT(p.cost(Mode::poll, 0.2).iops, 2000) << "a lasting spell is the mode's rate";
}

// Beside a heavy neighbour a mode's ticks alternate between its slice and
// the neighbour's (a poller: 30 reads in 2 ms, then 8 in 8 ms; a sleeper's
// wake-ups wait out the neighbour's slices alike): its slow ticks are the
// mode's cost there, not a spell, and its figure is what the ticks did.
TEST(AdaptivePolicy, SlicesBesideAHeavyNeighbourAreNotSlowSpellsInAnyMode) {
  Signals heavy = sig(0.5);
  heavy.objective = Objective::own;
  for (Mode m : {Mode::poll, Mode::interrupt}) {
    AdaptivePolicy p;
    uint64_t now = 0;
    for (int i = 0; i < 200; i++) {
      p.on_tick(now += kTick, m, waited(30, kTick), heavy);
      p.on_tick(now += 4 * kTick, m, waited(8, 4 * kTick), heavy);
    }
    EXPECT_NEAR(p.cost(m, 0.5).iops, 38 / 0.010, 0.1 * 38 / 0.010) << "mode " << int(m);
  }
}

// Mixgraph did 8 reads in an 11 ms polling tick beside a neighbour, where
// polling's ticks around it did 5-10K a second: the application ran between
// its reads and hardly waited. Such a tick measures the application, not the
// mode, and is not learned; a poller that a neighbour starves still waits
// (it spins, or is preempted while spinning), and its slow tick is learned.
TEST(AdaptivePolicy, ATickThatHardlyWaitedMeasuresTheApplicationNotTheMode) {
  auto polled = [](double iops, double wait_share, uint64_t wall = kTick) {
    TickSample s = Settled::sample(iops, 10000);
    s.wall_ns = wall;
    s.completions = std::max<uint64_t>(8, uint64_t(iops * double(wall) / 1e9));
    s.wait_ns = uint64_t(wait_share * double(wall));
    return s;
  };
  const Signals beside = sig(0.2);
  AdaptivePolicy p;
  uint64_t now = 0;
  for (int i = 0; i < 40; i++) p.on_tick(now += kTick, Mode::poll, polled(8000, 0.5), beside);
  const double usual = p.cost(Mode::poll, 0.2).iops;
  ASSERT_NEAR(usual, 8000, 100);
  EXPECT_FALSE(p.on_tick(now += 11 * kMs, Mode::poll, polled(720, 0.04, 11 * kMs), beside).learned);
  EXPECT_DOUBLE_EQ(p.cost(Mode::poll, 0.2).iops, usual) << "a pause of the application";
  EXPECT_TRUE(p.on_tick(now += kTick, Mode::poll, polled(2000, 0.9), beside).learned);
  EXPECT_LT(p.cost(Mode::poll, 0.2).iops, usual) << "a starved poller is measured";
  // Each mode against its own usual share: interrupts, whose every wait
  // holds a wake-up, wait a larger share than polling; a poll tick is not a
  // pause for waiting half as much as interrupts do.
  AdaptivePolicy q;
  now = 0;
  for (int i = 0; i < 40; i++) q.on_tick(now += kTick, Mode::interrupt, polled(6000, 0.6), beside);
  q.on_tick(now += kTick, Mode::poll, polled(9000, 0.25), beside);
  EXPECT_TRUE(q.cost(Mode::poll, 0.2).known);
}

// Under `own` the application's time between its waits counts too, and a
// mode decides how much CPU that work is left: beside a CPU-bound neighbour
// on the disk RocksDB's pauses took 18-33% of polling's time and 3-11% of
// interrupts', and polling's waits, measured at 0.99 of interrupts' rate,
// gave 0.85 of its ops/s. Pauses that both modes take alike change nothing.
TEST(AdaptivePolicy, UnderOwnAModesScoreHoldsThePausesItTakes) {
  auto scores = [](int poll_pause_every, int interrupt_pause_every) {
    Signals heavy = sig(0.5);
    heavy.objective = Objective::own;
    auto pause = [] {
      TickSample s = waited(2, 3 * kMs);
      s.wait_ns = s.wall_ns / 10;
      return s;
    };
    AdaptivePolicy p;
    uint64_t now = 0;
    Decision d;
    for (int round = 0; round < 8; round++)
      for (auto [m, iops, every] : {std::tuple{Mode::poll, 8000.0, poll_pause_every},
                                    std::tuple{Mode::interrupt, 7600.0, interrupt_pause_every}})
        for (int i = 1; i <= 20; i++) {
          TickSample s = waited(uint64_t(iops * double(kTick) / 1e9), kTick);
          // A spinner waits to run while the others run, as the run time says.
          if (m == Mode::poll) s.delay_share = 0.5;
          d = p.on_tick(now += kTick, m, s, heavy);
          if (i % every == 0) {
            EXPECT_FALSE(p.on_tick(now += 3 * kMs, m, pause(), heavy).learned);
          }
        }
    EXPECT_NEAR(p.cost(Mode::poll, 0.5).iops, 8000, 1) << "a pause is not a wait";
    return d.score;
  };
  auto held = scores(4, 20);  // poll: 3 ms in 11; interrupts: 3 ms in 43
  EXPECT_GT(held[size_t(int(Mode::interrupt))], 1.05 * held[size_t(int(Mode::poll))]);
  auto alike = scores(4, 4);
  EXPECT_GT(alike[size_t(int(Mode::poll))], 1.03 * alike[size_t(int(Mode::interrupt))]);
}

// A tick that straddled a change of level, or held the application's
// start, teaches nothing, its pauses neither.
TEST(AdaptivePolicy, ATickThatIsNotWholeTeachesNothing) {
  AdaptivePolicy p;
  Signals heavy = sig(0.5);
  TickSample s = waited(16, kTick);
  s.whole = false;
  EXPECT_FALSE(p.on_tick(kTick, Mode::poll, s, heavy).learned);
  EXPECT_FALSE(p.cost(Mode::poll, 0.5).known);
  EXPECT_EQ(p.cost(Mode::poll, 0.5).pauses.whole_ns, 0);
  s.whole = true;
  EXPECT_TRUE(p.on_tick(2 * kTick, Mode::poll, s, heavy).learned);
  EXPECT_EQ(p.cost(Mode::poll, 0.5).pauses.whole_ns, double(kTick));
}

// The policy keeps the level the queue acts on, not the window's momentary
// figure: beside the neighbour in short slices a tick whose window read 0
// is still the light level's, measured there and never "alone".
TEST(AdaptivePolicy, ActsOnTheHeldLevel) {
  AdaptivePolicy p;
  Signals s = sig(0.0);
  s.level = 1;
  Decision d;
  for (uint64_t now = kTick; now <= kParams.arrival_ns + 2 * kTick && !d.probe; now += kTick)
    d = p.on_tick(now, Mode::poll, Settled::sample(100000, 10000), s);
  EXPECT_TRUE(p.cost(Mode::poll, 0.1).known);
  EXPECT_FALSE(p.cost(Mode::poll, 0.0).known);
  EXPECT_TRUE(d.probe);  // not alone and busy: the other modes are measured, once the level has lasted
}

// ---- the latency estimator --------------------------------------------------------------

TEST(LatencyEstimator, SizeClasses) {
  EXPECT_EQ(LatencyEstimator::size_class(512), 0);
  EXPECT_EQ(LatencyEstimator::size_class(4096), 3);
  EXPECT_EQ(LatencyEstimator::size_class(4097), 4);
  EXPECT_EQ(LatencyEstimator::size_class(1u << 30), LatencyEstimator::kClasses - 1);
}

TEST(LatencyEstimator, TracksMeanAndSpreadPerSize) {
  LatencyEstimator e;
  for (int i = 0; i < 2000; i++) {
    e.add(4096, i % 2 ? 9000 : 11000);
    e.add(65536, 40000);
  }
  EXPECT_NEAR(e.mean_ns(4096), 10000, 200);
  EXPECT_NEAR(e.stddev_ns(4096), 1000, 150);
  EXPECT_NEAR(e.mean_ns(65536), 40000, 1);
  EXPECT_EQ(e.mean_ns(8192), 0);
}

TEST(LatencyEstimator, IgnoresPreemptedSamples) {
  LatencyEstimator e;
  for (int i = 0; i < 100; i++) e.add(4096, 10000);
  e.add(4096, 3'000'000);  // descheduled for 3 ms: not the device
  EXPECT_NEAR(e.mean_ns(4096), 10000, 1);
}

// Two of our pollers taking turns on a core: a queue's second read waited
// out the other's whole turn. Among the first reads it moves neither the
// mean nor the spread, and the queue does not take the device for slow.
TEST(LatencyEstimator, APreemptionAmongTheFirstReadsIsNotTheDevice) {
  LatencyEstimator e;
  e.add(4096, 13'800);
  e.add(4096, 1'741'000);
  EXPECT_NEAR(e.mean_ns(4096), 13'800, 1);
  EXPECT_NEAR(e.stddev_ns(4096), 0, 1);
  for (int i = 0; i < 3; i++) e.add(4096, 8'000);
  EXPECT_NEAR(e.mean_ns(4096), 8'000, 1);
  EXPECT_LT(e.stddev_ns(4096), 4'000);
}

// A size's weight is its latency over the most frequent size's: RocksDB's
// 256 KiB readahead against its 4 KiB blocks, 10x on the disk here.
TEST(LatencyEstimator, WeighsASizeByItsLatencyAgainstTheUsualOne) {
  LatencyEstimator e;
  EXPECT_DOUBLE_EQ(e.weight(4096), 1.0);  // nothing known
  for (int i = 0; i < 100; i++) e.add(4096, 40000);
  for (int i = 0; i < 4; i++) e.add(262144, 400000);
  EXPECT_DOUBLE_EQ(e.weight(262144), 1.0) << "too few samples of that size yet";
  for (int i = 0; i < 20; i++) e.add(262144, 400000);
  EXPECT_NEAR(e.weight(262144), 10.0, 1e-9);
  EXPECT_NEAR(e.weight(4096), 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(e.weight(65536), 1.0) << "a size never seen";
  e.add(262144, 40'000'000);  // preempted for 40 ms: not the device
  EXPECT_NEAR(e.weight(262144), 10.0, 1e-9);
  for (int i = 0; i < 200; i++) e.add(262144, 400000);  // now the most frequent size
  EXPECT_NEAR(e.weight(4096), 0.1, 1e-9);
}

// A tick counts its completions by their size's weight: two ticks that kept
// the device equally busy, one with a few large reads, measure one rate.
TEST(AdaptivePolicy, RatesCountCompletionsBySize) {
  const Signals beside = sig(0.5);
  TickSample small = Settled::sample(10000, 10000, 8 * kMs);  // 80 reads of the usual size
  TickSample mixed = small;
  mixed.completions = 44;  // 40 of the usual size and 4 ten times as long
  mixed.work = 40 + 4 * 10.0;
  AdaptivePolicy a, b;
  a.on_tick(8 * kMs, Mode::poll, small, beside);
  b.on_tick(8 * kMs, Mode::poll, mixed, beside);
  EXPECT_NEAR(b.cost(Mode::poll, 0.5).iops, a.cost(Mode::poll, 0.5).iops, 1);
  EXPECT_NEAR(b.cost(Mode::poll, 0.5).lat_ns, double(mixed.lat_sum_ns) / 44, 1) << "latency stays per completion";
}

TEST(WakeCost, MeasuresASleep) {
  WakeCost w = measure_wake_cost(4);
  EXPECT_GT(w.cpu_ns, 0);
  EXPECT_GE(w.late_ns, 0);
}

// ---- the strategy through the API ----------------------------------------------------------

namespace {

// A QD1 read loop long enough for several ticks on the emulated SSD.
hio_queue_stats read_loop(hio_queue* q, int t, unsigned n) {
  hiotest::Buf b = hiotest::aligned_buf(4096);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < n; i++) ios.push_back({HIO_OP_READ, t, b.get(), 4096, (i % 256) * 4096ull, i});
  hiotest::run_ios_ok(q, ios, 1);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  EXPECT_EQ(hio_queue_stats_get(q, &st), 0);
  return st;
}

}  // namespace

TEST(AdaptiveApi, NamedAndParsed) {
  EXPECT_EQ(std::string(hio_wait_mode_name(HIO_WAIT_ADAPTIVE)), "adaptive");
  hio_wait_mode m;
  ASSERT_EQ(hio_wait_mode_parse("adaptive", &m), 0);
  EXPECT_EQ(m, HIO_WAIT_ADAPTIVE);
}

TEST(AdaptiveApi, ViewRefusedForAStaticStrategy) {
  hiotest::Engine e;
  hiotest::Queue q(e, 4, hiotest::strat(HIO_WAIT_POLL));
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  EXPECT_EQ(hio_queue_adaptive_view_get(q, &v), -EINVAL);
  EXPECT_TRUE(hiotest::Contains(hio_last_error(), "'poll', not 'adaptive'"));
  EXPECT_EQ(hio_queue_adaptive_view_get(q, nullptr), -EINVAL);
}

TEST(AdaptiveApi, ViewAndStatsAfterIo) {
  hiotest::Engine e;
  hiotest::Queue q(e, 4, hiotest::strat(HIO_WAIT_ADAPTIVE));
  int t = hio_queue_open(q, "emu:lat_us=20,iops=200000,size=4m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  hio_queue_stats st = read_loop(q, t, 3000);  // about 60 ms: a dozen ticks
  uint64_t in_modes = st.adaptive_ns[0] + st.adaptive_ns[1] + st.adaptive_ns[2];
  EXPECT_GT(in_modes, 0u);
  EXPECT_LE(in_modes, st.wall_ns);
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  ASSERT_EQ(hio_queue_adaptive_view_get(q, &v), 0) << hio_last_error();
  EXPECT_GT(v.ticks, 0u);
  EXPECT_GT(v.monitor_samples, 0u);
  EXPECT_GE(v.contention, 0.0);
  EXPECT_LE(v.contention, 1.0);
  EXPECT_DOUBLE_EQ(v.cpu_available, 1.0 - v.contention);
  EXPECT_EQ(v.objective, HIO_OBJECTIVE_SHARED);
  EXPECT_GE(v.idle_share, 0.0);
  EXPECT_LE(v.idle_share, 1.0);
  ASSERT_NE(v.monitor_source, nullptr);
  EXPECT_TRUE(v.mode == HIO_WAIT_INTERRUPT || v.mode == HIO_WAIT_POLL || v.mode == HIO_WAIT_HYBRID);
  EXPECT_GT(v.wake_cpu_ns, 0.0);
  EXPECT_EQ(v.switches, st.adaptive_switches);
  EXPECT_EQ(v.probes, st.adaptive_probes);
}

// The time in modes covers the run even when it ends before its first tick
// does, and for a queue that follows another's decision on its core.
TEST(AdaptiveApi, TimeInModesCoversShortRunsAndFollowers) {
  hiotest::Engine e;
  hiotest::Queue a(e, 4, hiotest::strat(HIO_WAIT_ADAPTIVE));
  hiotest::Queue b(e, 4, hiotest::strat(HIO_WAIT_ADAPTIVE));
  int ta = hio_queue_open(a, "emu:lat_us=20,iops=200000,size=4m", nullptr);
  int tb = hio_queue_open(b, "emu:lat_us=20,iops=200000,size=4m", nullptr);
  ASSERT_GE(ta, 0) << hio_last_error();
  ASSERT_GE(tb, 0) << hio_last_error();
  hio_queue_stats short_run = read_loop(a, ta, 5);  // about 100 us: no tick has ended
  uint64_t in_modes = short_run.adaptive_ns[0] + short_run.adaptive_ns[1] + short_run.adaptive_ns[2];
  EXPECT_GT(in_modes, 0u);
  EXPECT_LE(in_modes, short_run.wall_ns);
  for (int i = 0; i < 200; i++) {  // interleaved on one thread: one queue leads the core, the other follows
    read_loop(a, ta, 5);
    read_loop(b, tb, 5);
  }
  for (hio_queue* q : {static_cast<hio_queue*>(a), static_cast<hio_queue*>(b)}) {
    hio_queue_stats st{};
    st.struct_size = sizeof st;
    ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
    in_modes = st.adaptive_ns[0] + st.adaptive_ns[1] + st.adaptive_ns[2];
    EXPECT_GT(in_modes, st.wall_ns / 4) << "a queue's time in modes is missing";
    EXPECT_LE(in_modes, st.wall_ns);
  }
}

TEST(AdaptiveApi, LearnsTheDeviceLatencyWhilePolling) {
  hiotest::Engine e;
  hiotest::Queue q(e, 4, hiotest::strat(HIO_WAIT_ADAPTIVE));
  int t = hio_queue_open(q, "emu:lat_us=40,iops=200000,size=4m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  read_loop(q, t, 1000);
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  ASSERT_EQ(hio_queue_adaptive_view_get(q, &v), 0);
  EXPECT_GT(v.latency_ns, 36000.0);  // the device's 40 us, within the estimate's smoothing
  EXPECT_LT(v.latency_ns, 400000.0);
}

TEST(AdaptiveApi, StatsResetZeroesItsCounters) {
  hiotest::Engine e;
  hiotest::Queue q(e, 4, hiotest::strat(HIO_WAIT_ADAPTIVE));
  int t = hio_queue_open(q, "emu:lat_us=20,iops=200000,size=4m", nullptr);
  ASSERT_GE(t, 0);
  hio_queue_stats before = read_loop(q, t, 2000);
  ASSERT_EQ(hio_queue_stats_reset(q), 0);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  // Only the moment since the reset counts, in the mode the queue is in.
  EXPECT_LE(st.adaptive_ns[0] + st.adaptive_ns[1] + st.adaptive_ns[2], st.wall_ns);
  EXPECT_LT(st.wall_ns, before.wall_ns);
  EXPECT_EQ(st.adaptive_switches, 0u);
  EXPECT_EQ(st.adaptive_probes, 0u);
}

TEST(AdaptiveApi, CppWrapper) {
  hybridio::Engine e;
  hybridio::Queue q(e, 4, HIO_WAIT_ADAPTIVE);
  int t = q.open("emu:lat_us=10,iops=200000,size=4m");
  hiotest::Buf b = hiotest::aligned_buf(4096);
  for (int i = 0; i < 200; i++) q.read(t, b.get(), 4096, 0);
  EXPECT_NO_THROW(q.adaptive_view());
  hybridio::Queue p(e, 4, HIO_WAIT_POLL);
  EXPECT_THROW(p.adaptive_view(), hybridio::Error);
}

// Runs a policy for 400 probe-long ticks with `ours` of our queues on the
// core, where tick(m) is what a tick in mode m measures; returns the mode it
// settles on.
template <typename Tick>
Mode settled_with_ours(int ours, Signals g, Tick tick) {
  AdaptivePolicy p;
  g.ours = ours;
  uint64_t now = 0;
  Mode m = Mode::poll;
  for (int i = 0; i < 400; i++) {
    TickSample s = tick(m);
    s.wall_ns = kProbeTick;
    now += kProbeTick;
    m = p.on_tick(now, m, s, g).mode;
  }
  return p.settled();
}

// Alone, one queue polls without measuring; several of ours on a core take
// turns at spinning, so there it measures and compares like anywhere else.
TEST(AdaptivePolicy, AloneIsNotAReasonToPollWhenSeveralOfOursShareTheCore) {
  // Polling does a quarter of what sleeping does (the other spinners hold the core).
  auto tick = [](Mode m) {
    TickSample s;
    s.completions = m == Mode::poll ? 100 : 400;
    s.cpu_ns = s.completions * 5000;
    s.lat_sum_ns = s.completions * 20000;
    s.wait_ns = kProbeTick * 95 / 100;
    return s;
  };
  EXPECT_EQ(settled_with_ours(1, sig(0.0), tick), Mode::poll) << "alone, one queue polls";
  EXPECT_NE(settled_with_ours(3, sig(0.0), tick), Mode::poll) << "3 of ours on the core";
}

// With several of ours on the core, one spinner holds it while the others'
// completions wait, so a light demand's rate can move with the mode: the
// rate decides first. Sleeping here does twice polling's rate at four times
// its latency and more CPU per read.
TEST(AdaptivePolicy, WithSeveralOfOursALightDemandIsScoredByItsRate) {
  auto tick = [](Mode m) {
    TickSample s;
    bool polled = m == Mode::poll;
    s.completions = polled ? 100 : 200;
    s.cpu_ns = s.completions * (polled ? 10000 : 15000);
    s.lat_sum_ns = s.completions * (polled ? 10000 : 40000);
    s.wait_ns = kProbeTick * 3 / 10;
    return s;
  };
  Signals light = sig(0.0, /*wait_share=*/0.3);
  EXPECT_EQ(settled_with_ours(1, light, tick), Mode::poll) << "alone, a light demand keeps polling's latency";
  EXPECT_NE(settled_with_ours(2, light, tick), Mode::poll) << "2 of ours on the core";
}

// Where no mode moves the rate of several of ours, a light demand is served
// as a lone queue's is: polling's latency, within the slack, for the least
// CPU. Hybrid keeps the latency at 0.4 of polling's CPU; interrupts cost a
// third more latency.
TEST(AdaptivePolicy, WithSeveralOfOursALightDemandAtOneRateTakesTheCheapestModeThatKeepsLatency) {
  auto tick = [](Mode m) {
    TickSample s;
    s.completions = 100;
    s.cpu_ns = s.completions * (m == Mode::poll ? 10000 : m == Mode::hybrid ? 4000 : 2000);
    s.lat_sum_ns = s.completions * (m == Mode::interrupt ? 13000 : m == Mode::hybrid ? 10300 : 10000);
    s.wait_ns = kProbeTick * 3 / 10;
    return s;
  };
  Signals light = sig(0.0, /*wait_share=*/0.3);
  EXPECT_EQ(settled_with_ours(2, light, tick), Mode::hybrid);
  EXPECT_EQ(settled_with_ours(4, light, tick), Mode::hybrid);
  Signals busy = sig(0.0, /*wait_share=*/0.9);
  EXPECT_EQ(settled_with_ours(2, busy,
                              [&tick](Mode m) {
                                TickSample s = tick(m);
                                s.wait_ns = kProbeTick * 9 / 10;
                                return s;
                              }),
            Mode::poll)
      << "not light: the rate decides, and the mode in use keeps its place";
}

// Under `own`, a lone queue that has just moved to polling beside a heavy
// neighbour is held off the core by the scheduler's memory of its sleeping
// mode for its first ticks (in the simulator, 37K reads/s in the first tick
// where steady polling did 75K). One such tick must not send it back to
// the mode it left: the mode in use is judged over a probe's length.
TEST(AdaptivePolicy, UnderOwnALoneQueueBesideAHeavyNeighbourJudgesItsModeOverAProbe) {
  AdaptivePolicy p;
  Signals heavy = sig(0.5, 0.95, false);
  heavy.objective = Objective::own;
  uint64_t now = kProbeTick;
  p.on_tick(now, Mode::interrupt, waited(48000 * kProbeTick / 1'000'000'000, kProbeTick), heavy);  // a probe: 48K
  Decision d = p.on_tick(now += kTick, Mode::poll, waited(37000 * kTick / 1'000'000'000, kTick), heavy);  // held off
  EXPECT_EQ(d.mode, Mode::poll) << "one held-off tick decided";
  EXPECT_EQ(p.settled(), Mode::poll);
  for (int i = 0; i < 3; i++) d = p.on_tick(now += kTick, Mode::poll, waited(150, kTick), heavy);  // 75K
  EXPECT_EQ(p.settled(), Mode::poll);
  EXPECT_EQ(p.switches(), 0u);
}

// Beside a heavy neighbour a spinner gets what the neighbour leaves of the
// fair half, so polling's score there comes from its rate alone, and the
// queue on interrupts does not probe it: a probe of polling leaves the
// thread in the scheduler's debt, and its wake-ups then wait behind the
// neighbour long after the probe.
TEST(AdaptivePolicy, BesideAHeavyNeighbourPollingIsPredictedNotProbed) {
  AdaptivePolicy p;
  uint64_t now = 0;
  // A device too fast for a hybrid sleep: polling against interrupts.
  Signals quiet = sig(0.0, 0.95, false), heavy = sig(0.6, 0.95, false);
  for (int i = 0; i < 40; i++) p.on_tick(now += kTick, Mode::poll, waited(40, kTick), quiet);  // 20K alone
  // At the heavy level, interrupts measured at 15K: better than polling's half of 20K.
  Mode m = Mode::poll;
  int poll_ticks_after_switch = 0;
  bool switched = false;
  for (int i = 0; i < 2000; i++) {
    TickSample s = waited(m == Mode::poll ? 20 : 30, kTick);
    if (m == Mode::poll) s.delay_share = 0.6;
    Decision d = p.on_tick(now += kTick, m, s, heavy);
    switched = switched || p.settled() == Mode::interrupt;
    if (switched && d.mode == Mode::poll) poll_ticks_after_switch++;
    m = d.mode;
  }
  EXPECT_EQ(p.settled(), Mode::interrupt);
  EXPECT_EQ(poll_ticks_after_switch, 0) << "polling was probed beside the heavy neighbour";
  std::array<double, kModes> score = p.on_tick(now += kTick, Mode::interrupt, waited(30, kTick), heavy).score;
  // The neighbour used 0.6 beside the sleeper and would get the fair half
  // beside the spinner; the spinner the other half of its rate alone.
  EXPECT_NEAR(score[size_t(int(Mode::poll))], 0.5 + 0.5 / 0.6, 0.02) << "polling's predicted score";
}

// Two of our spinners and a CPU-bound neighbour take the core in turns of a
// scheduler tick each: the lead's ticks alternate between one inside its
// own turn (the others ran none of it) and one that spans the other two
// turns. The governor's 8 ms window at each tick's end then holds the
// neighbour's whole turn and reads half the core, where it gets a third.
// What the others get in a mode is learned from the ticks' own figures,
// each by its length, and the queue leaves polling for the interrupts that
// give the neighbour more and its own queues 1.5x the rate.
TEST(AdaptivePolicy, WithSeveralOfOursTheOthersAreLearnedOverTheTicksThemselves) {
  AdaptivePolicy p;
  uint64_t now = 0;
  auto heavy = [](double tick_others) {
    Signals g = sig(0.5, 0.95, /*hybrid_viable=*/false);  // the window at each tick's end
    g.ours = 2;
    g.demand = 1.0;
    g.tick_others = tick_others;
    return g;
  };
  // Polling: 16K completions a second over the core, in ticks of 2 and 10 ms.
  auto poll_tick = [&](int i) {
    bool spans = i % 2 == 1;
    TickSample s = waited(spans ? 160 : 32, spans ? 5 * kTick : kTick);
    s.delay_share = 0.5;
    return p.on_tick(now += s.wall_ns, Mode::poll, s, heavy(spans ? 0.4 : 0.0)).mode;
  };
  for (int i = 0; i < 40; i++) poll_tick(i);
  EXPECT_NEAR(p.cost_at(kLevels - 1, Mode::poll).others, 1.0 / 3, 0.02) << "not the window's 0.5";
  // Interrupts: 24K a second, and beside our sleepers the neighbour gets 0.46.
  Mode m = Mode::poll;
  for (int i = 0; i < 400; i++) {
    if (m == Mode::poll) {
      m = poll_tick(i);
      continue;
    }
    Signals g = heavy(0.46);
    g.contention = 0.46;
    TickSample s = waited(192, kProbeTick);
    m = p.on_tick(now += s.wall_ns, m, s, g).mode;
  }
  EXPECT_EQ(p.settled(), Mode::interrupt);
}
