// SPDX-License-Identifier: MIT
// The simulated machine: cores, each with a fair scheduler, an idle state
// and the interrupts it handles; tasks that compute, spin, block and sleep;
// and the counters the kernel keeps of them (each core's idle time, each
// task's CPU clock and run delay). Tasks are driven by
// Behaviours: each time a task's step ends while it runs, its behaviour
// says what it does next.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/events.hpp"
#include "model/rng.hpp"
#include "model/scheduler.hpp"

namespace hio::sim {

class Machine;
struct Task;

// What a running task does next.
struct Step {
  enum Kind { compute, spin, block, sleep, stop, exit };
  Kind kind = compute;
  Time value = 0;  // compute: CPU ns; spin: until this time; sleep: until this time
  Time slack = 0;  // sleep: the timer may fire this late (select()'s 50 us)
  static Step cpu(Time ns) { return {compute, ns, 0}; }
  static Step spin_until(Time t) { return {spin, t, 0}; }
  static Step block_now() { return {block, 0, 0}; }
  static Step sleep_until(Time t, Time slack = 0) { return {sleep, t, slack}; }
  static Step done() { return {exit, 0, 0}; }
};

class Behaviour {
 public:
  virtual ~Behaviour() = default;
  // The task's last step is over and it runs at `now` (first: it just
  // started; after block or sleep: it was woken and got the core).
  virtual Step next(Task& t, Time now) = 0;
};

// Who is told when an interrupt's handler has run.
class IrqSink {
 public:
  virtual ~IrqSink() = default;
  virtual void irq_done(Time now, uint64_t arg) = 0;
};

// ours: our I/O threads; neighbour: the other tenants; helper: a thread of
// our process that is neither (io_uring's SQPOLL kernel thread).
enum class Role { ours, neighbour, helper };

struct Task final : Handler {
  enum State { runnable, running, blocked, stopped, exited };
  int id = 0;
  std::string name;
  int core = 0;
  Role role = Role::ours;
  Behaviour* behaviour = nullptr;
  Machine* m = nullptr;
  Entity se;
  State state = runnable;
  Step step;
  Time remaining = 0;         // of a compute step
  Time overhead = 0;          // CPU to burn before the step progresses: switching in, interrupts that hit it
  Time acct_at = 0;           // charged up to here while running
  uint64_t cpu_ns = 0;        // its CPU clock (interrupts that hit it included, as without IRQ_TIME_ACCOUNTING)
  uint64_t progress_ns = 0;   // of that, the time its own steps advanced: no switch, no interrupt
  uint64_t run_delay_ns = 0;  // time runnable but not running
  Time queued_at = 0;
  uint64_t gen = 0;      // cancels its pending step end
  bool started = false;  // its behaviour has been asked once
  bool stop_pending = false;
  // A timed sleep on its way in: the deadline, and whether the block is being undone.
  Time sleep_until = 0;
  bool arming = false, unblocking = false, timer_woken = false;
  void fire(Time now, int kind, uint64_t gen) override;
};

struct IdleParams {
  Time poll_window_ns = 0;  // guest halt-poll / idle poll before halting
  // Leaving the idle state, by how long the core had been idle: a bare-metal
  // core goes deeper the longer it idles; a guest's vCPU is woken through
  // its host, which answers a short halt sooner than a long one.
  std::vector<std::pair<Time, Quantiles>> exit_by_idle;  // sorted by idle time
  Quantiles poll_exit_ns;                                // leaving the poll window
  // A draw of the exit latency after `idle` ns of idle time.
  double exit(Time idle, Rng& r) const;
};

// What going to sleep costs the thread that does it: the CPU to get ready
// to block (arming a timer, the wait's bookkeeping); if what it waits for
// arrives meanwhile it does not block and spends unblock_ns undoing it;
// once woken it spends wake_ns before it is back where it slept.
struct SleepCost {
  Time block_ns = 0, unblock_ns = 0, wake_ns = 0;
};

struct CoreParams {
  Time irq_ns = 1000;     // an interrupt's handler, on whatever runs
  Time switch_ns = 1000;  // a context switch, charged to the task switched in
  SleepCost timer;        // a timed sleep (nanosleep, select)
};

class Machine {
 public:
  Machine(int ncores, const SchedulerParams& sched, const IdleParams& idle, const CoreParams& core, uint64_t seed);
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  // A task pinned to `core` that starts at `at`.
  Task& spawn(const std::string& name, int core, Role role, Behaviour* b, Time at = 0);
  void run_until(Time end);
  Time now() const { return now_; }
  EventQueue& events() { return ev_; }
  Rng& rng() { return rng_; }
  int ncores() const { return int(cores_.size()); }
  const CoreParams& core_params() const { return cp_; }

  // An interrupt on `core` at `at` whose handler takes `cost` of CPU (0: the
  // machine's irq_ns); the sink hears when its handler is done.
  void irq(int core, Time at, IrqSink* sink, uint64_t arg, Time cost = 0);
  // Wakes a blocked or sleeping task (from an interrupt handler, at now).
  void wake(Task& t);
  // Ends a task's spin now (or, if it is not running, as soon as it runs):
  // what it spins for has arrived.
  void end_spin(Task& t);
  // SIGSTOP / SIGCONT, as sent from another core.
  void stop(Task& t);
  void cont(Task& t);

  // The kernel's counters.
  uint64_t task_cpu_ns(const Task& t) const;
  // Completed idle periods (cpuidle residency: a core idle now counts up to the start of that period).
  uint64_t idle_ns(int core) const;
  // The whole idle time up to now, the current period included (for results, not for the policy).
  uint64_t idle_now_ns(int core) const;
  uint64_t switches() const { return switches_; }
  uint64_t events_fired() const { return fired_; }
  const std::vector<std::unique_ptr<Task>>& tasks() const { return tasks_; }

 private:
  friend struct Task;
  struct Core;
  class Deferred;
  class Signals;
  void step_end(Task& t, Time now);
  void advance(Task& t);
  void account(Task& t, Time now);
  void arm(Task& t);
  void leave_cpu(Task& t, Task::State to);
  void make_runnable(Task& t);
  void schedule(Core& c);
  void preempt_check(Core& c, bool resched);
  void set_idle(Core& c, bool idle);
  void tick(Core& c);
  void irq_fire(Core& c, IrqSink* sink, uint64_t arg, Time cost);
  void after_handler(Core& c);
  void sleep_timer(Task& t, Time at);

  std::vector<std::unique_ptr<Core>> cores_;
  std::vector<std::unique_ptr<Task>> tasks_;
  std::unique_ptr<Deferred> deferred_;
  std::unique_ptr<Signals> signals_;
  SchedulerParams sp_;
  IdleParams ip_;
  CoreParams cp_;
  EventQueue ev_;
  Rng rng_;
  Time now_ = 0;
  uint64_t switches_ = 0, fired_ = 0;
};

}  // namespace hio::sim
