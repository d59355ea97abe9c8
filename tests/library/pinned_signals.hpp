// SPDX-License-Identifier: MIT
// The kernel's signals as seen from one fixed core: tests whose queues must
// share a core (a spin lease) do not depend on where the scheduler puts the
// test's thread between two calls.
#pragma once
#include "adaptive/signal_source.hpp"

namespace hio::test {

class PinnedSignals final : public SignalSource {
 public:
  explicit PinnedSignals(int cpu) : cpu_(cpu), k_(kernel_signals()) {}
  uint64_t now_ns() override { return k_.now_ns(); }
  uint64_t thread_cpu_ns() override { return k_.thread_cpu_ns(); }
  uint64_t thread_cpu_ns(pid_t tid) override { return k_.thread_cpu_ns(tid); }
  pid_t thread_id() override { return k_.thread_id(); }
  int current_cpu() override { return cpu_; }
  bool idle_ns(int cpu, uint64_t* out) override { return k_.idle_ns(cpu, out); }
  CoreSource source() const override { return k_.source(); }
  const char* fallback_reason() const override { return k_.fallback_reason(); }
  Membership& membership() override { return k_.membership(); }
  const WakeCost& wake_cost() override {
    wake_cost_reads_++;
    return k_.wake_cost();
  }
  // How often the wake-up cost was asked for.
  int wake_cost_reads() const { return wake_cost_reads_; }
  TickLog* tick_log() override { return nullptr; }

 private:
  int cpu_;
  SignalSource& k_;
  int wake_cost_reads_ = 0;
};

}  // namespace hio::test
