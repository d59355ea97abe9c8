// SPDX-License-Identifier: MIT
// The seam between the adaptive strategy and the world it measures: the
// clock, the calling thread (its id, CPU clock and core), each core's idle
// time, and what a sleep costs. The library reads them from
// the kernel (kernel_signals()); hio-sim synthesises them from its simulated
// schedule. The governor and the adaptive strategy see the world only through
// this, so the policy decided in the simulator is the one that ships.
#pragma once
#include <sys/types.h>

#include <cstdint>

#include "adaptive/core_load.hpp"

namespace hio {

class Governor;
struct GovernorMember;
struct WakeCost;
class TickLog;

// A thread's place among a governor's members: it joins on its first wait
// and leaves when the Membership is destroyed (the thread ends).
struct Membership {
  Governor* gov = nullptr;
  GovernorMember* m = nullptr;
  Membership() = default;
  Membership(const Membership&) = delete;
  Membership& operator=(const Membership&) = delete;
  ~Membership();
};

class SignalSource {
 public:
  virtual ~SignalSource() = default;
  virtual uint64_t now_ns() = 0;
  // The calling thread's CPU time.
  virtual uint64_t thread_cpu_ns() = 0;
  // A thread of ours by id; 0 once it has ended.
  virtual uint64_t thread_cpu_ns(pid_t tid) = 0;
  virtual pid_t thread_id() = 0;
  // The core the calling thread runs on; -1 if unknown.
  virtual int current_cpu() = 0;
  // A core's idle time since an arbitrary origin; false if unreadable.
  virtual bool idle_ns(int cpu, uint64_t* out) = 0;
  virtual CoreSource source() const = 0;
  // Why the finer idle source was not used ("" when it was).
  virtual const char* fallback_reason() const = 0;
  // The calling thread's membership slot.
  virtual Membership& membership() = 0;
  // What one sleep and wake-up costs the calling thread.
  virtual const WakeCost& wake_cost() = 0;
  // Where adaptive queues log their ticks; null for none.
  virtual TickLog* tick_log() = 0;
};

// The process's view of the kernel: clocks, cpuidle or /proc/stat.
SignalSource& kernel_signals();

}  // namespace hio
