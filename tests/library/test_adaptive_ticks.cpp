// SPDX-License-Identifier: MIT
// What an adaptive queue's ticks measure, read from its tick log, under a
// clock and a CPU clock scripted by the test: a leader that shares its core
// with others of ours and is preempted between reading the wait's clock
// and counting the core's completions.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "adaptive/adaptive.hpp"
#include "adaptive/governor.hpp"
#include "adaptive/tick_log.hpp"
#include "scripted_signals.hpp"

using namespace hio;

namespace {

// A tick log's lines, split into their fields.
std::vector<std::vector<std::string>> tick_lines(std::FILE* log) {
  std::vector<std::vector<std::string>> out;
  std::fflush(log);
  std::rewind(log);
  char line[512];
  bool header = true;
  while (std::fgets(line, sizeof line, log)) {
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    out.push_back(f);
  }
  return out;
}

// Each tick's completions per millisecond of its wall time, from a tick log.
std::vector<double> tick_rates(std::FILE* log) {
  std::vector<double> out;
  for (const auto& f : tick_lines(log)) {
    double completions = std::stod(f.at(9)), wall_us = std::stod(f.at(10));
    out.push_back(wall_us > 0 ? completions / wall_us * 1000 : 0);
  }
  return out;
}

}  // namespace

// Four of ours spin in turns on one core: the leader runs 2 ms, completing
// 100 reads a millisecond, then waits 6 ms for its turn while the others
// complete as many. It is preempted after reading its next wait's clock
// and before the tick that wait ends counts the core's completions. Each
// tick then still measures the core's rate, 100 a millisecond: the others'
// completions during the preemption are counted with its time.
TEST(AdaptiveTicks, APreemptionBeforeTheCountKeepsATicksCompletionsWithTheirTime) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::tmpfile(), std::fclose);
  ASSERT_NE(file, nullptr);
  TickLog log(file.get(), 0);
  hio::test::ScriptedSignals src(&log);
  Governor g(1, src, false);
  g.set_ours(0, 4);
  Adaptive leader({}, &g);
  leader.set_objective(HIO_OBJECTIVE_OWN);
  constexpr uint64_t us = 1000, ms = 1'000'000;
  uint64_t t = 1 * ms;
  src.now = t;
  for (int turn = 0; turn < 40; turn++) {
    for (int w = 0; w < 20; w++) {  // its turn: twenty 100 us waits of ten completions each
      leader.begin_wait(t);
      t += 100 * us;
      src.now = t;
      src.cpu_ns += 100 * us;
      for (int i = 0; i < 10; i++) leader.completed(4096, 10 * us);
      leader.end_wait(100 * us, t, false);
    }
    // The next wait's clock is read, then the others' turns.
    uint64_t read_at = t;
    for (int i = 0; i < 600; i++) g.count(0, 1.0);
    t += 6 * ms;
    src.now = t;
    leader.begin_wait(read_at);
    leader.end_wait(0, t, false);
  }
  std::vector<double> rates = tick_rates(file.get());
  ASSERT_GE(rates.size(), 20u);
  for (size_t i = 0; i < rates.size(); i++)
    EXPECT_NEAR(rates[i], 100, 20) << "tick " << i << " measured " << rates[i] << " completions a millisecond";
}

// Beside a heavy neighbour one tick says enough of a mode (AdaptivePolicy
// switches on it), and a neighbour in bursts shorter than a probe's 8 ms
// would end every probe unmeasured: there a probe lasts one tick. A lone
// queue under `own` still judges a mode over a probe's length.
TEST(AdaptiveTicks, BesideAHeavyNeighbourAProbeLastsOneTick) {
  auto probe_walls_us = [](hio_objective objective) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::tmpfile(), std::fclose);
    TickLog log(file.get(), 0);
    hio::test::ScriptedSignals src(&log);
    Governor g(1, src, false);
    Adaptive q({}, &g);
    q.set_objective(objective);
    constexpr uint64_t us = 1000;
    uint64_t t = 1'000'000;
    src.now = t;
    for (int i = 0; i < 4000; i++) {  // 400 ms of 100 us waits
      bool spun = q.begin_wait(t) == Mode::poll;
      t += 100 * us;
      src.now = t;
      src.cpu_ns += spun ? 50 * us : 10 * us;
      q.completed(4096, 90 * us);
      q.end_wait(90 * us, t, !spun);
      // Each ms the CPU-bound neighbour takes half the core beside our
      // spinner, and all but our sleeper's wake-ups beside a sleeper.
      if (i % 10 == 9) g.feed(0, hio::test::interval(1.0, spun ? 0.5 : 0.1, spun));
    }
    std::vector<double> walls;
    auto lines = tick_lines(file.get());
    for (size_t i = 1; i < lines.size(); i++)
      if (std::stoi(lines[i - 1].at(17)) == 1) walls.push_back(std::stod(lines[i].at(10)));
    return walls;
  };
  auto shared = probe_walls_us(HIO_OBJECTIVE_SHARED);
  ASSERT_FALSE(shared.empty()) << "no probe beside the neighbour";
  for (double w : shared) EXPECT_LT(w, 2'600) << "a probe beside a heavy neighbour ran past one tick";
  auto own = probe_walls_us(HIO_OBJECTIVE_OWN);
  ASSERT_FALSE(own.empty());
  for (double w : own) EXPECT_GT(w, 7'500) << "a lone queue under own judged a probe in one tick";
}

// A lone queue beside a CPU-bound neighbour that takes half the core in
// every mode (the application computes between its reads, as RocksDB's
// does). Polling alone completes a read per 10 us it runs, and here runs
// half the time: 50K a second, interrupts 20K. Its first 10 ms of
// polling fall in the neighbour's slices: it runs a tenth of the time
// (its CPU clock says so) while the window still reads half. Corrected by
// the window, polling's rate alone reads 20K, interrupts look as fast, and
// polling, then predicted rather than probed, is never tried again.
// Corrected by the spinner's own clock it reads 100K, and the queue polls.
TEST(AdaptiveTicks, ASpinnersTimeOffTheCoreIsReadFromItsOwnClock) {
  hio::test::ScriptedSignals src;
  Governor g(1, src, false);
  Adaptive q({}, &g);
  constexpr uint64_t us = 1000;
  uint64_t t = 1'000'000;
  src.now = t;
  int spun_waits = 0;
  for (int i = 0; i < 4000; i++) {  // 400 ms of 100 us waits
    bool spun = q.begin_wait(t) == Mode::poll;
    bool in_slice = spun && spun_waits++ < 100;
    t += 100 * us;
    src.now = t;
    src.cpu_ns += spun ? (in_slice ? 10 : 50) * us : 10 * us;
    int reads = spun ? (in_slice ? 1 : 5) : 2;
    for (int r = 0; r < reads; r++) q.completed(4096, 90 * us);
    q.end_wait(90 * us, t, !spun);
    if (i % 10 == 9) g.feed(0, hio::test::interval(1.0, 0.5, spun));
  }
  EXPECT_EQ(q.settled(), Mode::poll);
}
