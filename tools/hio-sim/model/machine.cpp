// SPDX-License-Identifier: MIT
#include "model/machine.hpp"

#include <algorithm>
#include <stdexcept>

namespace hio::sim {

struct Machine::Core final : Handler {
  enum Kind { kTick, kIrq };
  Machine* m = nullptr;
  int id = 0;
  std::unique_ptr<FairScheduler> sched;
  Task* curr = nullptr;
  bool idle = true;
  Time idle_since = 0;
  uint64_t idle_total = 0;
  Time kernel_until = 0;  // handling interrupts (or leaving a halt) with no task running
  bool tick_armed = false;
  Time tick_offset = 0;
  // Pending interrupts, by slot (an event's gen names its slot).
  struct Irq {
    IrqSink* sink = nullptr;
    uint64_t arg = 0;
    Time cost = 0;
  };
  std::vector<Irq> irqs;
  std::vector<uint64_t> free_irqs;

  void fire(Time, int kind, uint64_t gen) override {
    if (kind == kTick) {
      m->tick(*this);
      return;
    }
    Irq in = irqs[gen];
    irqs[gen] = {};
    free_irqs.push_back(gen);
    if (kind == kIrq) m->irq_fire(*this, in.sink, in.arg, in.cost);
  }
};

// What happens once an interrupt's handler has run, or when a task is due
// to start: an event of its own, so that a handler's CPU is spent before
// its effect.
class Machine::Deferred final : public Handler {
 public:
  explicit Deferred(Machine& m) : m_(m) {}
  void later(Time at, Core* c, IrqSink* sink, uint64_t arg) {
    uint64_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
      pending_[slot] = {c, sink, arg};
    } else {
      slot = pending_.size();
      pending_.push_back({c, sink, arg});
    }
    m_.ev_.at(at, this, 0, slot);
  }
  void fire(Time now, int, uint64_t slot) override {
    Item d = pending_[slot];
    free_.push_back(slot);
    if (d.sink) d.sink->irq_done(now, d.arg);
    if (d.core) m_.after_handler(*d.core);
  }

 private:
  struct Item {
    Core* core;
    IrqSink* sink;
    uint64_t arg;
  };
  Machine& m_;
  std::vector<Item> pending_;
  std::vector<uint64_t> free_;
};

// The machine's own uses of an interrupt or a deferred event: a sleeping
// task's timer, the signals that stop and continue a task, a task's start.
class Machine::Signals final : public IrqSink {
 public:
  enum Op : uint64_t { wake_timer = 0, stop = 1, cont = 2 };
  explicit Signals(Machine& m) : m_(m) {}
  static uint64_t arg(Op op, const Task& t, uint64_t gen = 0) {
    return ((gen & 0x3fffffffu) << 34) | (uint64_t(t.id) << 2) | op;
  }
  void irq_done(Time, uint64_t arg) override {
    auto op = Op(arg & 3);
    Task& t = *m_.tasks_[(arg >> 2) & 0xffffffffu];
    if (op == wake_timer) {
      if (t.state == Task::blocked && (t.gen & 0x3fffffffu) == arg >> 34) {
        t.overhead += m_.cp_.timer.wake_ns;  // the way back out of the sleep, before its next step
        m_.wake(t);
      }
    } else if (op == stop) {
      m_.stop(t);
    } else {
      m_.cont(t);
    }
  }

 private:
  Machine& m_;
};

double IdleParams::exit(Time idle, Rng& r) const {
  if (exit_by_idle.empty()) return 0;
  double u = r.uniform();
  auto hi = std::lower_bound(exit_by_idle.begin(), exit_by_idle.end(), idle,
                             [](const auto& e, Time t) { return e.first < t; });
  if (hi == exit_by_idle.begin()) return hi->second.at(u);
  if (hi == exit_by_idle.end()) return std::prev(hi)->second.at(u);
  auto lo = std::prev(hi);
  // The same quantile of the two nearest idle times, in proportion.
  double f = double(idle - lo->first) / double(hi->first - lo->first);
  return lo->second.at(u) + f * (hi->second.at(u) - lo->second.at(u));
}

void Task::fire(Time now, int, uint64_t g) {
  if (g != gen || state != running) return;
  m->step_end(*this, now);
}

Machine::Machine(int ncores, const SchedulerParams& sched, const IdleParams& idle, const CoreParams& core,
                 uint64_t seed)
    : deferred_(std::make_unique<Deferred>(*this)),
      signals_(std::make_unique<Signals>(*this)),
      sp_(sched),
      ip_(idle),
      cp_(core),
      rng_(seed) {
  for (int i = 0; i < ncores; i++) {
    auto c = std::make_unique<Core>();
    c->m = this;
    c->id = i;
    c->sched = FairScheduler::make(sched);
    // Cores' ticks are not in step: each starts at its own point of the period.
    c->tick_offset = Time(rng_.uniform() * double(sched.tick_ns));
    cores_.push_back(std::move(c));
  }
}

Machine::~Machine() = default;

Task& Machine::spawn(const std::string& name, int core, Role role, Behaviour* b, Time at) {
  if (core < 0 || core >= ncores()) throw std::invalid_argument("task " + name + " on a core that does not exist");
  auto t = std::make_unique<Task>();
  t->id = int(tasks_.size());
  t->name = name;
  t->core = core;
  t->role = role;
  t->behaviour = b;
  t->m = this;
  t->se.id = t->id;
  t->state = Task::blocked;
  t->step = Step::cpu(0);
  Task& ref = *t;
  tasks_.push_back(std::move(t));
  deferred_->later(std::max(at, now_), nullptr, signals_.get(), Signals::arg(Signals::cont, ref));
  return ref;
}

void Machine::run_until(Time end) {
  while (!ev_.empty() && ev_.next_time() <= end) {
    now_ = ev_.next_time();
    ev_.fire_next();
    fired_++;
  }
  now_ = end;
}

void Machine::irq(int core, Time at, IrqSink* sink, uint64_t arg, Time cost) {
  Core& c = *cores_[size_t(core)];
  Core::Irq in{sink, arg, cost ? cost : cp_.irq_ns};
  uint64_t slot;
  if (!c.free_irqs.empty()) {
    slot = c.free_irqs.back();
    c.free_irqs.pop_back();
    c.irqs[slot] = in;
  } else {
    slot = c.irqs.size();
    c.irqs.push_back(in);
  }
  ev_.at(std::max(at, now_), &c, Core::kIrq, slot);
}

void Machine::irq_fire(Core& c, IrqSink* sink, uint64_t arg, Time cost) {
  Time start = now_;
  if (c.curr) {
    // The handler runs on the task's time and is charged to it.
    Task& t = *c.curr;
    account(t, now_);
    t.overhead += cost;
    arm(t);
  } else {
    if (c.idle) {
      Time idle_for = now_ - c.idle_since;
      Time exit = Time(idle_for < ip_.poll_window_ns ? ip_.poll_exit_ns.sample(rng_) : ip_.exit(idle_for, rng_));
      // cpuidle counts the way out of the state as idle time.
      c.idle_total += idle_for + exit;
      c.idle = false;
      start = now_ + exit;
    }
    start = std::max(start, c.kernel_until);
    c.kernel_until = start + cost;
  }
  deferred_->later(start + cost, c.curr ? nullptr : &c, sink, arg);
}

void Machine::after_handler(Core& c) {
  // The last handler done and nothing to run: the core is idle again.
  if (!c.curr && !c.idle && now_ >= c.kernel_until) {
    c.idle = true;
    c.idle_since = now_;
  }
}

void Machine::wake(Task& t) {
  if (t.state != Task::blocked) return;
  t.step = Step::cpu(0);
  make_runnable(t);
}

void Machine::end_spin(Task& t) {
  if (t.step.kind != Step::spin || t.step.value <= now_) return;
  t.step.value = now_;
  if (t.state == Task::running) {
    account(t, now_);
    arm(t);
  }
}

void Machine::stop(Task& t) {
  if (t.state == Task::running) {
    account(t, now_);
    leave_cpu(t, Task::stopped);
  } else if (t.state == Task::runnable) {
    Core& c = *cores_[size_t(t.core)];
    c.sched->dequeue_sleep(&t.se, now_);
    t.state = Task::stopped;
  } else if (t.state == Task::blocked) {
    t.stop_pending = true;
  }
}

void Machine::cont(Task& t) {
  t.stop_pending = false;
  // A stopped task, or one not yet started, becomes runnable.
  if (t.state == Task::stopped || (t.state == Task::blocked && !t.started)) make_runnable(t);
}

void Machine::make_runnable(Task& t) {
  if (t.stop_pending) {
    t.state = Task::stopped;
    t.stop_pending = false;
    return;
  }
  Core& c = *cores_[size_t(t.core)];
  t.state = Task::runnable;
  t.queued_at = now_;
  bool preempt = c.sched->enqueue(&t.se, now_);
  if (!c.curr || preempt) schedule(c);
}

void Machine::account(Task& t, Time now) {
  if (t.state != Task::running || now <= t.acct_at) return;
  Time elapsed = now - t.acct_at;
  t.acct_at = now;
  t.cpu_ns += elapsed;
  Time burn = std::min(elapsed, t.overhead);
  t.overhead -= burn;
  Time rest = elapsed - burn;
  t.progress_ns += rest;
  if (t.step.kind == Step::compute) t.remaining -= std::min(rest, t.remaining);
}

void Machine::arm(Task& t) {
  Time base = now_ + t.overhead;
  Time end = t.step.kind == Step::compute ? base + t.remaining : std::max(base, t.step.value);
  ev_.at(end, &t, 0, ++t.gen);
}

void Machine::step_end(Task& t, Time now) {
  account(t, now);
  advance(t);
}

void Machine::advance(Task& t) {
  if (t.arming) {
    // The way into a timed sleep is done: block unless its time has come.
    t.arming = false;
    if (now_ < t.sleep_until) {
      leave_cpu(t, Task::blocked);
      sleep_timer(t, t.sleep_until);
      return;
    }
    if (cp_.timer.unblock_ns) {
      t.unblocking = true;
      t.step = Step::cpu(cp_.timer.unblock_ns);
      t.remaining = t.step.value;
      arm(t);
      return;
    }
  }
  t.unblocking = false;
  for (int guard = 0;; guard++) {
    if (guard > 100000) throw std::logic_error("task " + t.name + " takes steps that never end");
    t.started = true;
    Step s = t.behaviour->next(t, now_);
    switch (s.kind) {
      case Step::compute:
        if (s.value == 0 && t.overhead == 0) continue;
        t.step = s;
        t.remaining = s.value;
        arm(t);
        return;
      case Step::spin:
        if (s.value <= now_ && t.overhead == 0) continue;
        t.step = s;
        arm(t);
        return;
      case Step::block: leave_cpu(t, Task::blocked); return;
      case Step::sleep: {
        if (s.value <= now_) continue;
        t.sleep_until = s.value + (s.slack ? Time(rng_.uniform() * double(s.slack)) : 0);
        if (cp_.timer.block_ns) {
          t.arming = true;
          t.step = Step::cpu(cp_.timer.block_ns);
          t.remaining = t.step.value;
          arm(t);
          return;
        }
        leave_cpu(t, Task::blocked);
        sleep_timer(t, t.sleep_until);
        return;
      }
      case Step::stop: leave_cpu(t, Task::stopped); return;
      case Step::exit: leave_cpu(t, Task::exited); return;
    }
  }
}

void Machine::sleep_timer(Task& t, Time at) {
  irq(t.core, at, signals_.get(), Signals::arg(Signals::wake_timer, t, t.gen));
}

void Machine::leave_cpu(Task& t, Task::State to) {
  Core& c = *cores_[size_t(t.core)];
  c.sched->dequeue_sleep(&t.se, now_);
  if (to == Task::exited) c.sched->remove(&t.se);
  t.state = to;
  t.gen++;
  if (c.curr == &t) schedule(c);
}

void Machine::schedule(Core& c) {
  Entity* e = c.sched->pick(now_);
  Task* next = e ? tasks_[size_t(e->id)].get() : nullptr;
  Task* prev = c.curr;
  if (next == prev) {
    if (prev) c.sched->switch_to(e, now_);
    return;
  }
  if (prev && prev->state == Task::running) {
    account(*prev, now_);
    prev->gen++;
    prev->state = Task::runnable;
    prev->queued_at = now_;
  }
  c.curr = next;
  c.sched->switch_to(e, now_);
  if (next) {
    if (c.idle) {
      c.idle_total += now_ - c.idle_since;
      c.idle = false;
    }
    next->state = Task::running;
    next->acct_at = now_;
    next->run_delay_ns += now_ - next->queued_at;
    next->overhead += cp_.switch_ns;
    switches_++;
    arm(*next);
    if (!c.tick_armed) {
      Time period = sp_.tick_ns;
      Time k = (now_ + period - c.tick_offset % period) / period;
      ev_.at(k * period + c.tick_offset % period, &c, Core::kTick);
      c.tick_armed = true;
    }
  } else if (now_ >= c.kernel_until && !c.idle) {
    c.idle = true;
    c.idle_since = now_;
  }
}

void Machine::tick(Core& c) {
  c.tick_armed = false;
  if (!c.curr) return;  // NO_HZ_IDLE: no tick on an idle core
  account(*c.curr, now_);
  if (c.sched->tick(now_)) schedule(c);
  if (c.curr && !c.tick_armed) {
    ev_.at(now_ + sp_.tick_ns, &c, Core::kTick);
    c.tick_armed = true;
  }
}

uint64_t Machine::task_cpu_ns(const Task& t) const {
  return t.cpu_ns + (t.state == Task::running && now_ > t.acct_at ? now_ - t.acct_at : 0);
}

uint64_t Machine::idle_ns(int core) const { return cores_[size_t(core)]->idle_total; }

uint64_t Machine::idle_now_ns(int core) const {
  const Core& c = *cores_[size_t(core)];
  return c.idle_total + (c.idle ? now_ - c.idle_since : 0);
}

}  // namespace hio::sim
