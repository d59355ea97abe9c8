// SPDX-License-Identifier: MIT
#include "workload/neighbour.hpp"

#include <algorithm>

namespace hio::sim {
namespace {

constexpr Time kSlice = 1'000'000;     // --cpu-load-slice=1: 1 ms of CPU
constexpr Time kSelectSlack = 50'000;  // select() sleeps with the default timer slack
enum Kind { kChange = 0, kCheck = 1 };

}  // namespace

Step StressCpu::next(Task& t, Time now) {
  if (load_ >= 100) return Step::cpu(1'000'000'000);
  Machine& m = *t.m;
  if (!bursting_) {
    if (asked_) bias_ = double(now - sleep_from_) - double(asked_);
    bursting_ = true;
    burst_cpu0_ = m.task_cpu_ns(t);
    return Step::cpu(kSlice);
  }
  bursting_ = false;
  double burst = double(m.task_cpu_ns(t) - burst_cpu0_);
  double delay = (100 - load_) * burst / load_ - bias_;
  if (delay < 0) {
    bias_ = 0;
    asked_ = 0;
    return next(t, now);
  }
  sleep_from_ = now;
  asked_ = Time(delay);
  return Step::sleep_until(now + asked_, kSelectSlack);
}

OnOff::OnOff(Machine& m, Task& t, Time on, Time off, bool random, uint64_t seed)
    : m_(m), t_(t), on_(on), off_(off), random_(random), rng_(seed) {}

Time OnOff::length(Time mean) { return random_ ? std::max<Time>(1'000, Time(rng_.exponential(double(mean)))) : mean; }

void OnOff::start(Time at) {
  changes_.emplace_back(at, true);
  if (off_ > 0) m_.events().at(at + length(on_), this, kChange);
}

void OnOff::fire(Time now, int, uint64_t) {
  running_ = !running_;
  changes_.emplace_back(now, running_);
  // The signal takes effect at once (its IPI's cost is left out).
  if (running_)
    m_.cont(t_);
  else
    m_.stop(t_);
  m_.events().at(now + length(running_ ? on_ : off_), this, kChange);
}

CpuLimit::CpuLimit(Machine& m, Task& t, double pct) : m_(m), t_(t), pct_(pct) {}

void CpuLimit::start(Time at) { m_.events().at(at, this, kChange); }

void CpuLimit::fire(Time now, int kind, uint64_t gen) {
  Time budget = Time(double(kPeriod) * pct_ / 100);
  if (kind == kChange) {
    period_++;
    cpu0_ = m_.task_cpu_ns(t_);
    if (stopped_) m_.cont(t_);
    stopped_ = false;
    m_.events().at(now + kPeriod, this, kChange);
    m_.events().at(now + budget, this, kCheck, period_);
    return;
  }
  if (stopped_ || gen != period_) return;  // a check of an earlier period
  uint64_t used = m_.task_cpu_ns(t_) - cpu0_;
  if (used >= budget) {
    m_.stop(t_);
    stopped_ = true;
  } else {
    m_.events().at(now + (budget - used), this, kCheck, period_);
  }
}

}  // namespace hio::sim
