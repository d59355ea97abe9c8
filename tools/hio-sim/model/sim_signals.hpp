// SPDX-License-Identifier: MIT
// The simulated machine seen through the library's seam (SignalSource):
// the adaptive policy and the governor read the virtual clock, the calling
// task's CPU clock and core, each core's idle time from the simulated
// schedule. Each read costs the CPU calibration measured for it;
// the caller is charged that CPU once the library's call returns.
#pragma once
#include <memory>
#include <vector>

#include "adaptive/latency.hpp"
#include "adaptive/signal_source.hpp"
#include "model/machine.hpp"

namespace hio::sim {

struct ReadCosts {
  Time clock_ns = 50;          // CLOCK_MONOTONIC (vDSO)
  Time thread_clock_ns = 400;  // a thread's CPU clock (a system call)
  Time idle_read_ns = 1500;    // one cpuidle state's time file
  int idle_states = 2;         // files read per core
};

class SimSignals final : public SignalSource {
 public:
  SimSignals(Machine& m, ReadCosts costs, WakeCost wake);
  ~SimSignals() override;
  // The task whose code calls into the library now.
  void enter(Task& t) { current_ = &t; }
  // The CPU the calls since enter() cost the task.
  Time take_cost() {
    Time c = pending_;
    pending_ = 0;
    return c;
  }
  uint64_t reads() const { return reads_; }

  uint64_t now_ns() override;
  uint64_t thread_cpu_ns() override;
  uint64_t thread_cpu_ns(pid_t tid) override;
  pid_t thread_id() override { return pid_t(current_->id + 1); }
  int current_cpu() override { return current_->core; }
  bool idle_ns(int cpu, uint64_t* out) override;
  CoreSource source() const override { return CoreSource::cpuidle; }
  const char* fallback_reason() const override { return ""; }
  Membership& membership() override;
  const WakeCost& wake_cost() override { return wake_; }
  TickLog* tick_log() override { return log_; }
  // Adaptive queues log their ticks here (virtual time from 0); null: none.
  void set_tick_log(TickLog* log) { log_ = log; }

 private:
  Machine& m_;
  ReadCosts costs_;
  WakeCost wake_;
  Task* current_ = nullptr;
  TickLog* log_ = nullptr;
  Time pending_ = 0;
  uint64_t reads_ = 0;
  std::vector<std::unique_ptr<Membership>> members_;  // by task id
};

}  // namespace hio::sim
