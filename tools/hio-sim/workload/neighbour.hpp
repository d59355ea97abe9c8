// SPDX-License-Identifier: MIT
// The other tenants of a core: a CPU-bound loop (the thesis's mcf, the
// bursty experiment's busy loop, db_stress); stress-ng's CPU stressor held
// to a load by its own pacing (the study's co-runner); and the controllers
// that stop and continue a task: on/off bursts of fixed or random lengths
// (the bursty experiment), and cpulimit (the thesis's Fig 16).
#pragma once
#include <vector>

#include "model/machine.hpp"

namespace hio::sim {

struct BusyLoop final : Behaviour {
  Step next(Task&, Time) override { return Step::cpu(1'000'000'000); }
};

// stress-ng 0.15.06's --cpu-load=L --cpu-load-slice=1: a burst until the
// process has used 1 ms of CPU, then a select() sleep of (100-L)/L times
// that burst's CPU time less the last sleep's overshoot. A burst stretched
// by preemption is not made up: beside other work it gets less than L%.
class StressCpu final : public Behaviour {
 public:
  explicit StressCpu(double load_pct) : load_(load_pct) {}
  Step next(Task& t, Time now) override;

 private:
  double load_;
  bool bursting_ = false;
  uint64_t burst_cpu0_ = 0;
  Time sleep_from_ = 0, asked_ = 0;
  double bias_ = 0;
};

// Stops and continues a task in turn: on for `on`, off for `off` (each
// drawn from an exponential of that mean where `random`), as the bursty
// experiment's SIGSTOP/SIGCONT does. Records each change.
class OnOff final : public Handler {
 public:
  OnOff(Machine& m, Task& t, Time on, Time off, bool random, uint64_t seed);
  void start(Time at);
  void fire(Time now, int kind, uint64_t gen) override;
  // (time, on) for every change, the first at start.
  const std::vector<std::pair<Time, bool>>& changes() const { return changes_; }

 private:
  Time length(Time mean);
  Machine& m_;
  Task& t_;
  Time on_, off_;
  bool random_, running_ = true;
  Rng rng_;
  std::vector<std::pair<Time, bool>> changes_;
};

// Holds a task to `pct` of a CPU in each 100 ms period: continued at the
// period's start, stopped once it has used its share.
class CpuLimit final : public Handler {
 public:
  CpuLimit(Machine& m, Task& t, double pct);
  void start(Time at);
  void fire(Time now, int kind, uint64_t gen) override;

 private:
  static constexpr Time kPeriod = 100'000'000;
  Machine& m_;
  Task& t_;
  double pct_;
  uint64_t period_ = 0;
  uint64_t cpu0_ = 0;
  bool stopped_ = false;
};

}  // namespace hio::sim
