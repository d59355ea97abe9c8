// SPDX-License-Identifier: MIT
// One core's fair scheduler: which runnable task runs, and when a waking
// task or the tick takes the core from the one running. Two are modelled:
// EEVDF (Linux 6.6 on, this machine's kernel) and CFS (before it, the
// thesis's 5.4 and 6.0 kernels). docs/simulator.md says what each keeps of
// the kernel's and what it leaves out.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/events.hpp"

namespace hio::sim {

// A task as the scheduler sees it.
struct Entity {
  double weight = 1024;  // nice 0
  double v = 0;          // vruntime, ns of virtual time
  double deadline = 0;   // EEVDF: virtual deadline
  double vlag = 0;       // EEVDF: lag kept while dequeued
  double vprot = 0;      // EEVDF: protected until v reaches this
  bool on_rq = false;    // queued (runnable, or delayed on the queue)
  bool delayed = false;  // EEVDF: asleep but kept queued until eligible
  Time exec_start = 0;   // when its time was last charged
  Time picked_at = 0;    // CFS: when it last got the core
  int id = 0;            // ties and tests
};

struct SchedulerParams {
  std::string kind = "eevdf";      // eevdf or cfs
  Time tick_ns = 4'000'000;        // CONFIG_HZ=250
  Time base_slice_ns = 1'400'000;  // EEVDF: 0.7 ms x (1 + ilog2(min(cpus, 8)))
  Time latency_ns = 12'000'000;    // CFS: sched_latency, scaled as base_slice
  Time min_granularity_ns = 1'500'000;
  Time wakeup_granularity_ns = 2'000'000;
  // The CPUs the kernel scales its tunables by (1 + ilog2(min(n, 8))).
  static SchedulerParams for_kernel(const std::string& kind, int online_cpus, Time tick_ns);
};

class FairScheduler {
 public:
  virtual ~FairScheduler() = default;
  // The running entity (null: idle); the Machine sets it through switch_to.
  Entity* curr() const { return curr_; }
  int queued() const { return int(rq_.size()); }
  // Charges the running entity up to now. True if it should give the core up.
  virtual bool update_curr(Time now) = 0;
  // A task wakes (or starts) on this core. True if it takes the core from curr.
  virtual bool enqueue(Entity* e, Time now) = 0;
  // The running entity blocks.
  virtual void dequeue_sleep(Entity* e, Time now) = 0;
  // Which entity runs next (curr itself, another, or null: idle). Finishes
  // the dequeue of sleepers it meets.
  virtual Entity* pick(Time now) = 0;
  // The periodic tick while a task runs. True: reschedule.
  bool tick(Time now) { return update_curr(now); }
  // The core now runs e (null: idle) from now.
  virtual void switch_to(Entity* e, Time now) = 0;
  // For a task that exits (or is stopped) while queued but not running.
  void remove(Entity* e);
  // Whether e is runnable on this queue (not a delayed sleeper).
  static bool runnable(const Entity* e) { return e->on_rq && !e->delayed; }

  static std::unique_ptr<FairScheduler> make(const SchedulerParams& p);

 protected:
  Entity* curr_ = nullptr;
  std::vector<Entity*> rq_;  // every queued entity, curr included while it is queued
};

}  // namespace hio::sim
