// SPDX-License-Identifier: MIT
// The adaptive strategy at run time: cuts a queue's waiting into ticks,
// measures each tick (time, CPU, completions), takes the other tenants of
// its core from the governor, asks the policy which mode the next tick uses,
// holds the core's spin lease while it polls, and sizes hybrid sleeps from
// the latency estimator. Lives in the Waiter; runs on the thread that waits.
#pragma once
#include <atomic>
#include <cstdint>

#include "adaptive/governor.hpp"
#include "adaptive/latency.hpp"
#include "adaptive/policy.hpp"
#include "adaptive/tick_log.hpp"
#include "hybridio/hio_adaptive.h"

namespace hio {

// What the queue knows of the command a wait is for: the oldest in flight.
struct WaitHint {
  uint64_t submit_ns = 0;  // 0: unknown
  uint32_t len = 4096;
};

// Finds the hint on demand: only a hybrid wait needs it, and finding it
// scans the queue's slots.
struct HintSource {
  WaitHint (*fn)(const void* ctx) = nullptr;
  const void* ctx = nullptr;
  WaitHint operator()() const { return fn ? fn(ctx) : WaitHint{}; }
};

class Adaptive {
 public:
  explicit Adaptive(PolicyParams p = {}, Governor* gov = nullptr) : policy_(p), gov_(gov), level_(p) {}
  ~Adaptive();
  Adaptive(const Adaptive&) = delete;
  Adaptive& operator=(const Adaptive&) = delete;
  // From any thread; applies from the next tick.
  void set_objective(hio_objective o) {
    objective_.store(o == HIO_OBJECTIVE_OWN ? Objective::own : Objective::shared, std::memory_order_relaxed);
  }
  hio_objective objective() const {
    return objective_.load(std::memory_order_relaxed) == Objective::own ? HIO_OBJECTIVE_OWN : HIO_OBJECTIVE_SHARED;
  }

  // Measures what the strategy needs before the queue's first command is in
  // flight: the wake-up cost's short sleeps, taken inside the first wait,
  // would read as that command's latency.
  void prepare();
  // The mode for a wait starting now; ends the current tick if it is over.
  Mode begin_wait(uint64_t now);
  // How long a hybrid wait for this command sleeps before polling.
  uint64_t hybrid_sleep_ns(const WaitHint& h, uint64_t now) const;
  // A wait of waited_ns ended at now_ns.
  void end_wait(uint64_t waited_ns, uint64_t now_ns, bool slept);
  // A hybrid sleep ended late_ns past the time it asked for.
  void hybrid_woke(uint64_t late_ns);
  // The current tick waits by interrupt.
  bool sleeping() const { return started_ && ran_ == Mode::interrupt; }
  // upper_bound: found when a hybrid sleep ended, so done at most lat_ns after its submission.
  void completed(uint32_t len, uint64_t lat_ns, bool upper_bound = false);

  void view(hio_adaptive_view* out) const;
  // The time spent in each mode so far: the mode of the last wait counts up to now.
  void mode_ns(uint64_t out[kModes]) const;
  // The mode the queue settles on between probes.
  Mode settled() const { return policy_.settled(); }
  uint64_t switches() const { return policy_.switches(); }
  uint64_t probes() const { return policy_.probes(); }

 private:
  // seen: the other tenants now, the level already updated with them;
  // learn: the tick measured one situation (no change of level within it).
  void end_tick(uint64_t now, const NeighbourView& seen, bool learn);
  // The first tick after a change of mode is over: measuring starts.
  void settled(uint64_t now);
  // A new tick starts at now: its samples, its clocks and the core's count.
  void start_tick(uint64_t now);
  // The thread's CPU time and the core's count, and the time they were read
  // at (now, or later where the thread was preempted since).
  uint64_t counted_at(uint64_t now, uint64_t* cpu, Governor::Count* count) const;
  // The time from the tick's start to now: 0 for a clock read before the
  // start, which counted_at may have read later than the wait's.
  uint64_t since_tick_start(uint64_t now) const { return now > tick_start_ ? now - tick_start_ : 0; }
  // One line in the tick log (HIO_ADAPTIVE_TICKS) for the tick that just ended.
  void log_tick(uint64_t now, int level, uint64_t completions) const;

  bool hybrid_viable() const;
  // When a hybrid sleep for a command of len bytes ends, after its submission.
  double wake_due_ns(uint32_t len) const;
  // How our waiting shaped the governor's view of the others over a span:
  // one of ours spun, or the core was this idle beside our sleepers.
  Waiting waiting(bool spinning, double idle) const;
  // The others' use that the contention level follows (others_without_our_wakeups).
  double level_others(const NeighbourView& seen) const;
  // The level, updated with what the governor sees now.
  int update_level(uint64_t now, const NeighbourView& seen);
  // Whether a queue that finds another of ours spinning on its core should sleep.
  bool sleeping_frees_core() const;
  // Whether no other queue of ours waits on this core.
  bool alone_of_ours() const;
  Governor& gov() const { return gov_ ? *gov_ : Governor::get(); }

  AdaptivePolicy policy_;
  Governor* gov_;
  std::atomic<Objective> objective_{Objective::shared};
  LatencyEstimator lat_;
  const WakeCost* wake_ = nullptr;
  Decision last_{};
  Mode mode_ = Mode::poll;  // the policy's choice for this tick
  Mode ran_ = Mode::poll;   // what this tick runs: poll turns to a sleeping mode when another queue spins here
  bool started_ = false;
  bool settling_ = false;   // this tick follows a change of mode and is not measured
  bool following_ = false;  // another of our queues on this core decides its mode
  int cpu_ = -1, tick_level_ = 0;
  uint64_t tick_start_ = 0, tick_cpu_ = 0, ticks_ = 0, spin_denied_ = 0;
  TickSample tick_{};
  Governor::Count core0_{};  // the core's count at the tick's start
  NeighbourView seen_{};
  LevelHold level_;
  uint32_t last_len_ = 4096;
  double sleeps_per_s_ = 0;  // the last tick's
  double late_ns_ = -1;      // how late the hybrid's sleeps end where the queue is alone on its core (-1: none yet)
  TickLog* log_ = nullptr;
  unsigned log_queue_ = 0;  // this queue's number in the log
  uint64_t mode_ns_[kModes] = {};
  uint64_t accounted_ = 0;  // mode_ns_ holds the time up to here
  uint64_t monitor_samples0_ = 0, monitor_ns0_ = 0;
};

}  // namespace hio
