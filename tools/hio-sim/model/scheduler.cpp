// SPDX-License-Identifier: MIT
#include "model/scheduler.hpp"

#include <algorithm>
#include <cmath>

namespace hio::sim {
namespace {

int scale_factor(int cpus) {
  int n = std::clamp(cpus, 1, 8), f = 1;
  while (n > 1) {
    n >>= 1;
    f++;
  }
  return f;
}

// Virtual time for ns of real time at this weight.
double vdelta(double ns, const Entity* e) { return ns * 1024.0 / e->weight; }

// EEVDF as in Linux 6.18: each task has a virtual deadline one slice past
// its vruntime; the core goes to the eligible task (vruntime <= the queue's
// weighted average V) with the earliest deadline; a task keeps its lag
// (V - vruntime) across a sleep, and one that sleeps owing time (negative
// lag) stays queued until it is eligible (DELAY_DEQUEUE), which forgets a
// positive lag then (DELAY_ZERO). The running task is protected from a
// waking one until it reaches the deadline it had when it got the core
// (RUN_TO_PARITY); the tick, without HRTICK, is the only other point that
// takes the core back.
class Eevdf final : public FairScheduler {
 public:
  explicit Eevdf(const SchedulerParams& p) : p_(p) {}

  bool update_curr(Time now) override {
    Entity* c = curr_;
    if (!c || now <= c->exec_start) return false;
    c->v += vdelta(double(now - c->exec_start), c);
    c->exec_start = now;
    bool renewed = false;
    if (c->v >= c->deadline) {
      c->deadline = c->v + vslice(c);
      renewed = true;
    }
    return queued() > 1 && (renewed || c->v >= c->vprot);
  }

  bool enqueue(Entity* e, Time now) override {
    bool resched = false;
    if (e->delayed) {
      // Woken while still queued: its lag against the average the queue
      // last computed (the running task not charged since), and a positive
      // one is forgotten; a negative one keeps its place and deadline.
      double lag = clamp_lag(avg_v() - e->v, e);
      if (lag > 0) {
        take(e);
        e->vlag = 0;
        place(e);
        put(e);
      }
      e->delayed = false;
      resched = update_curr(now);
    } else {
      resched = update_curr(now);
      place(e);
      put(e);
    }
    return resched || pick_eevdf(true) == e;
  }

  void dequeue_sleep(Entity* e, Time now) override {
    update_curr(now);
    if (!eligible(e)) {
      e->delayed = true;  // stays queued, and in the average, until eligible
      return;
    }
    e->vlag = clamp_lag(avg_v() - e->v, e);
    take(e);
  }

  Entity* pick(Time now) override {
    update_curr(now);
    for (;;) {
      Entity* e = pick_eevdf(true);
      if (!e || !e->delayed) return e;
      // A sleeper that became eligible: its dequeue finishes, a positive lag forgotten.
      e->vlag = std::min(0.0, clamp_lag(avg_v() - e->v, e));
      take(e);
      e->delayed = false;
    }
  }

  void switch_to(Entity* e, Time now) override {
    if (curr_ == e) return;
    curr_ = e;
    if (!e) return;
    e->exec_start = now;
    e->vprot = e->deadline;  // default slices: protected to its deadline
  }

 private:
  double vslice(const Entity* e) const { return vdelta(double(p_.base_slice_ns), e); }
  double clamp_lag(double lag, const Entity* e) const {
    double limit = vdelta(double(std::max(2 * p_.base_slice_ns, p_.tick_ns)), e);
    return std::clamp(lag, -limit, limit);
  }
  double total_weight() const {
    double w = 0;
    for (const Entity* x : rq_) w += x->weight;
    return w;
  }
  double avg_v() const {
    if (rq_.empty()) return curr_ ? curr_->v : 0;
    double w = 0, s = 0;
    for (const Entity* x : rq_) {
      w += x->weight;
      s += x->weight * x->v;
    }
    return s / w;
  }
  bool eligible(const Entity* e) const { return e->v <= avg_v() * (1 + 1e-15) + 1e-9; }
  void place(Entity* e) {
    double V = avg_v();
    double W = total_weight();
    double lag = 0;
    if (!rq_.empty() && e->vlag != 0) lag = e->vlag * (W + e->weight) / W;
    e->v = V - lag;
    e->deadline = e->v + vslice(e);
  }
  void put(Entity* e) {
    e->on_rq = true;
    if (std::find(rq_.begin(), rq_.end(), e) == rq_.end()) rq_.push_back(e);
  }
  void take(Entity* e) {
    e->on_rq = false;
    rq_.erase(std::remove(rq_.begin(), rq_.end(), e), rq_.end());
  }
  Entity* pick_eevdf(bool protect) {
    if (rq_.empty()) return nullptr;
    if (rq_.size() == 1) return rq_[0];
    double V = avg_v();
    auto ok = [V](const Entity* x) { return x->v <= V * (1 + 1e-15) + 1e-9; };
    Entity* c = curr_ && curr_->on_rq && !curr_->delayed && ok(curr_) ? curr_ : nullptr;
    if (c && protect && c->v < c->vprot) return c;
    Entity* best = nullptr;
    for (Entity* x : rq_) {
      if (x == curr_ || !ok(x)) continue;
      if (!best || x->deadline < best->deadline || (x->deadline == best->deadline && x->id < best->id)) best = x;
    }
    if (c && (!best || c->deadline < best->deadline)) return c;
    return best ? best : c;
  }

  SchedulerParams p_;
};

// CFS as in Linux 5.4-6.5: the core goes to the least vruntime; a waking
// sleeper is placed no further back than half the scheduling latency behind
// the queue's minimum (GENTLE_FAIR_SLEEPERS) and takes the core if it is
// more than the wake-up granularity behind the running task; the tick takes
// it back once the running task had its share of the period.
class Cfs final : public FairScheduler {
 public:
  explicit Cfs(const SchedulerParams& p) : p_(p) {}

  bool update_curr(Time now) override {
    Entity* c = curr_;
    if (!c || now <= c->exec_start) return false;
    c->v += vdelta(double(now - c->exec_start), c);
    c->exec_start = now;
    update_min_v();
    if (queued() <= 1) return false;
    double ran = double(now - c->picked_at);
    double ideal = ideal_slice(c);
    if (ran > ideal) return true;
    if (ran < double(p_.min_granularity_ns)) return false;
    const Entity* left = leftmost(c);
    return left && c->v - left->v > ideal;
  }

  bool enqueue(Entity* e, Time now) override {
    update_curr(now);
    e->v = std::max(e->v, min_v_ - double(p_.latency_ns) / 2);
    e->on_rq = true;
    rq_.push_back(e);
    Entity* c = curr_;
    if (!c || c == e) return true;
    return c->v - e->v > vdelta(double(p_.wakeup_granularity_ns), e);
  }

  void dequeue_sleep(Entity* e, Time now) override {
    update_curr(now);
    e->on_rq = false;
    rq_.erase(std::remove(rq_.begin(), rq_.end(), e), rq_.end());
  }

  Entity* pick(Time now) override {
    update_curr(now);
    return leftmost(nullptr);
  }

  void switch_to(Entity* e, Time now) override {
    if (curr_ == e) return;
    curr_ = e;
    if (!e) return;
    e->exec_start = now;
    e->picked_at = now;
  }

 private:
  double ideal_slice(const Entity* e) const {
    double n = double(queued());
    double period = std::max(double(p_.latency_ns), n * double(p_.min_granularity_ns));
    double w = 0;
    for (const Entity* x : rq_) w += x->weight;
    return period * e->weight / w;
  }
  Entity* leftmost(const Entity* except) const {
    Entity* best = nullptr;
    for (Entity* x : rq_)
      if (x != except && (!best || x->v < best->v || (x->v == best->v && x->id < best->id))) best = x;
    return best;
  }
  void update_min_v() {
    const Entity* l = leftmost(nullptr);
    if (l) min_v_ = std::max(min_v_, l->v);
  }

  SchedulerParams p_;
  double min_v_ = 0;
};

}  // namespace

SchedulerParams SchedulerParams::for_kernel(const std::string& kind, int online_cpus, Time tick_ns) {
  SchedulerParams p;
  p.kind = kind;
  p.tick_ns = tick_ns;
  Time f = Time(scale_factor(online_cpus));
  p.base_slice_ns = 700'000 * f;
  p.latency_ns = 6'000'000 * f;
  p.min_granularity_ns = 750'000 * f;
  p.wakeup_granularity_ns = 1'000'000 * f;
  return p;
}

void FairScheduler::remove(Entity* e) {
  e->on_rq = false;
  e->delayed = false;
  rq_.erase(std::remove(rq_.begin(), rq_.end(), e), rq_.end());
}

std::unique_ptr<FairScheduler> FairScheduler::make(const SchedulerParams& p) {
  if (p.kind == "cfs") return std::make_unique<Cfs>(p);
  return std::make_unique<Eevdf>(p);
}

}  // namespace hio::sim
