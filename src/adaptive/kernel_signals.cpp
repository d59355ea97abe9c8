// SPDX-License-Identifier: MIT
// The library's signal source: the kernel's clocks, each core's idle time
// (CoreLoad), read as the process's threads wait.
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

#include "adaptive/latency.hpp"
#include "adaptive/signal_source.hpp"
#include "adaptive/tick_log.hpp"
#include "util/clock.hpp"

namespace hio {
namespace {

class KernelSignals final : public SignalSource {
 public:
  KernelSignals() : load_(int(std::max(1L, sysconf(_SC_NPROCESSORS_CONF)))) {}
  uint64_t now_ns() override { return hio::now_ns(); }
  uint64_t thread_cpu_ns() override { return hio::thread_cpu_ns(); }
  uint64_t thread_cpu_ns(pid_t tid) override { return thread_cpu_ns_tid(tid); }
  pid_t thread_id() override { return pid_t(syscall(SYS_gettid)); }
  int current_cpu() override { return sched_getcpu(); }
  bool idle_ns(int cpu, uint64_t* out) override { return load_.idle_ns(cpu, out); }
  CoreSource source() const override { return load_.source(); }
  const char* fallback_reason() const override { return load_.fallback_reason().c_str(); }
  Membership& membership() override {
    thread_local Membership m;
    return m;
  }
  const WakeCost& wake_cost() override { return hio::wake_cost(); }
  TickLog* tick_log() override { return TickLog::get(); }

 private:
  CoreLoad load_;
};

}  // namespace

SignalSource& kernel_signals() {
  // Never destroyed: threads may still wait while the process exits.
  static KernelSignals* s = new KernelSignals();
  return *s;
}

}  // namespace hio
