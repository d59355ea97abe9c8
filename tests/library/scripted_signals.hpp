// SPDX-License-Identifier: MIT
// One thread of ours on core 0, which is never idle, with its clocks set by
// the test: a governor or an adaptive queue driven through exact times,
// including a preemption between two reads; and the core's intervals a test
// feeds its governor.
#pragma once
#include "adaptive/governor.hpp"
#include "adaptive/signal_source.hpp"
#include "adaptive/tick_log.hpp"

namespace hio::test {

// 1 ms on a core: busy `busy` of it, our threads `own` of it (shares of the interval).
inline CoreInterval interval(double busy, double own, bool spinning = false) {
  CoreInterval in;
  in.dt_ns = 1e6;
  in.busy_ns = busy * 1e6;
  in.own_ns = own * 1e6;
  in.own_spinning = spinning;
  return in;
}

class ScriptedSignals final : public SignalSource {
 public:
  uint64_t now = 0, cpu_ns = 0;
  // log: where adaptive queues write their ticks (null: nowhere).
  explicit ScriptedSignals(TickLog* log = nullptr) : log_(log) {}
  ~ScriptedSignals() override { member_.gov = nullptr; }  // the governor is gone first
  ScriptedSignals(const ScriptedSignals&) = delete;
  ScriptedSignals& operator=(const ScriptedSignals&) = delete;
  uint64_t now_ns() override { return now; }
  uint64_t thread_cpu_ns() override { return cpu_ns; }
  uint64_t thread_cpu_ns(pid_t) override { return cpu_ns; }
  pid_t thread_id() override { return 1; }
  int current_cpu() override { return 0; }
  bool idle_ns(int, uint64_t* out) override {
    *out = 0;
    return true;
  }
  CoreSource source() const override { return CoreSource::cpuidle; }
  const char* fallback_reason() const override { return ""; }
  Membership& membership() override { return member_; }
  const WakeCost& wake_cost() override { return hio::wake_cost(); }
  TickLog* tick_log() override { return log_; }

 private:
  TickLog* log_;
  Membership member_;
};

}  // namespace hio::test
