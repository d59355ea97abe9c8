// SPDX-License-Identifier: MIT
#include "adaptive/governor.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

namespace hio {

void CoreWindow::add(const CoreInterval& in) {
  if (in.dt_ns <= 0) return;
  ring_[next_] = in;
  next_ = (next_ + 1) % kSlots;
  count_ = std::min(count_ + 1, kSlots);
}

NeighbourView CoreWindow::view() const {
  // The most recent intervals that make up the window; the oldest of them
  // counts only for the part that falls inside it.
  double dt = 0, others = 0, idle = 0, demand = 0, demand_dt = 0, recent = 0, recent_idle = 0;
  bool recent_sleeping = true;
  for (int i = 0; i < count_ && dt < kWindowNs; i++) {
    const CoreInterval& in = ring_[(next_ - 1 - i + kSlots) % kSlots];
    double part = std::min(1.0, (kWindowNs - dt) / in.dt_ns);
    double o = std::clamp(in.busy_ns - in.own_ns, 0.0, in.dt_ns);
    if (dt < kRecentNs) {
      double recent_part = std::min(1.0, (kRecentNs - dt) / in.dt_ns);
      recent += recent_part * o;
      recent_idle += recent_part * std::max(0.0, in.dt_ns - in.busy_ns);
      recent_sleeping = recent_sleeping && !in.own_spinning;
    }
    others += part * o;
    idle += part * std::max(0.0, in.dt_ns - in.busy_ns);
    dt += part * in.dt_ns;
    // Beside our sleepers the others get what they want: their use is their
    // demand. Beside our spinner their use is capped by the share the
    // scheduler gives them: it is no measure of what they wanted.
    if (!in.own_spinning) {
      demand += part * o;
      demand_dt += part * in.dt_ns;
    }
  }
  NeighbourView v;
  if (dt <= 0) return v;
  v.others = others / dt;
  v.idle = idle / dt;
  v.window_ns = dt;
  // Known when it covers most of the window.
  v.demand = demand_dt >= 0.5 * dt ? std::max(v.others, demand / demand_dt) : -1;
  if (dt >= kRecentNs) {
    v.recent = recent / kRecentNs;
    v.recent_idle = recent_idle / kRecentNs;
    v.recent_sleeping = recent_sleeping;
  }
  return v;
}

Membership::~Membership() {
  if (gov && m) gov->leave(m);
}

Governor& Governor::get() {
  static Governor* g = new Governor(int(std::max(1L, sysconf(_SC_NPROCESSORS_CONF))), kernel_signals());
  return *g;
}

Governor::Governor(int ncpu, SignalSource& src, bool sample)
    : ncpu_(std::max(1, ncpu)),
      src_(src),
      sample_(sample),
      cores_(new Core[size_t(ncpu_)]),
      members_(new Member[kMaxMembers]) {}

Governor::~Governor() = default;

Governor::Member* Governor::join() {
  pid_t tid = src_.thread_id();
  std::lock_guard<std::mutex> g(join_mu_);
  int n = nmembers_.load(std::memory_order_relaxed);
  Member* slot = nullptr;
  for (int i = 0; i < n && !slot; i++)
    if (members_[i].tid.load(std::memory_order_relaxed) == 0) slot = &members_[i];
  if (!slot) {
    if (n == kMaxMembers) return nullptr;  // not counted as ours: at worst it reads as a neighbour
    slot = &members_[n];
    nmembers_.store(n + 1, std::memory_order_release);
  }
  slot->run_ns.store(src_.thread_cpu_ns(), std::memory_order_relaxed);
  slot->cpu.store(-1, std::memory_order_relaxed);
  slot->tid.store(tid, std::memory_order_release);
  return slot;
}

void Governor::leave(Member* m) {
  m->cpu.store(-1, std::memory_order_relaxed);
  m->tid.store(0, std::memory_order_release);
}

Governor::Member* Governor::member() {
  Membership& ms = src_.membership();
  if (!ms.m || ms.gov != this) {
    ms.gov = this;
    ms.m = join();
  }
  return ms.m;
}

void Governor::note_own_thread() {
  // Only a sample reads where our threads are: until an adaptive wait takes
  // the first, a fixed-mode reap need not say (it does from its next reap).
  if (!sample_ || !sampling_.load(std::memory_order_relaxed)) return;
  int cpu = src_.current_cpu();
  if (Member* m = member(); m && cpu >= 0 && cpu < ncpu_) m->cpu.store(cpu, std::memory_order_relaxed);
}

void Governor::left(uint64_t now) {
  if (!sample_) return;
  if (Member* m = member()) m->ended.store(std::max<uint64_t>(now, 1), std::memory_order_relaxed);
}

bool Governor::is_own(pid_t tid) const {
  int n = nmembers_.load(std::memory_order_acquire);
  for (int i = 0; i < n; i++)
    if (members_[i].tid.load(std::memory_order_acquire) == tid) return true;
  return false;
}

int Governor::enter(uint64_t now) {
  int cpu = src_.current_cpu();
  if (cpu < 0 || cpu >= ncpu_) cpu = 0;
  if (!sample_) return cpu;  // a test's governor: fed by hand
  if (!sampling_.load(std::memory_order_relaxed)) sampling_.store(true, std::memory_order_relaxed);
  if (Member* m = member()) {
    m->cpu.store(cpu, std::memory_order_relaxed);
    m->waited.store(now, std::memory_order_relaxed);
    m->ended.store(0, std::memory_order_relaxed);
  }
  if (now - cores_[cpu].last_sample.load(std::memory_order_relaxed) >= kSampleNs) sample(cpu, now);
  return cpu;
}

double Governor::charge_members(int cpu, uint64_t now, uint64_t t0, int* ours) {
  const Member* self = member();
  // Our threads' run time since their last accounting, charged to the core
  // each is on now (a thread that moved is charged to where it went).
  double own = 0;
  int n = nmembers_.load(std::memory_order_acquire);
  for (int i = 0; i < n; i++) {
    Member& m = members_[i];
    pid_t tid = m.tid.load(std::memory_order_acquire);
    if (tid == 0 || m.cpu.load(std::memory_order_relaxed) != cpu) continue;
    uint64_t run = &m == self ? t0 : src_.thread_cpu_ns(tid);
    if (run == 0) continue;
    uint64_t before = m.run_ns.exchange(run, std::memory_order_relaxed);
    if (run > before) own += double(run - before);
    uint64_t ended = m.ended.load(std::memory_order_relaxed);
    *ours += m.waited.load(std::memory_order_relaxed) && (ended == 0 || now - ended < kLeaseNs);
  }
  return own;
}

void Governor::sample(int cpu, uint64_t now) {
  Core& c = cores_[cpu];
  std::unique_lock<std::mutex> g(c.sampling, std::try_to_lock);
  if (!g.owns_lock()) return;
  if (now - c.last_sample.load(std::memory_order_relaxed) < kSampleNs) return;
  // Its cost is the CPU it takes: wall time would count preemptions by the
  // very neighbours it measures. The caller's CPU time is also its own run
  // time below: each clock read is a system call, much of a sample's cost.
  uint64_t t0 = src_.thread_cpu_ns();
  c.last_sample.store(now, std::memory_order_relaxed);
  // This core's cpuidle counter is current: the sampler runs on it, so it
  // is not in an idle period the kernel has yet to account.
  uint64_t idle = 0;
  bool ok = src_.idle_ns(cpu, &idle);
  int ours = 0;
  double own = charge_members(cpu, now, t0, &ours) + c.own_ahead;
  c.own_ahead = 0;
  bool spinner = spinning(cpu, now) && c.spin_since.load(std::memory_order_relaxed) <= c.at;
  if (ok && c.have && now > c.at && idle >= c.idle_total) {
    CoreInterval in;
    in.dt_ns = double(now - c.at);
    in.busy_ns = std::max(0.0, in.dt_ns - double(idle - c.idle_total));
    // Our threads' clocks are read after `now`, where the interval ends: a
    // sampler preempted in between reads another of ours' turn into this
    // interval and none into the next. What exceeds the busy time is the
    // next interval's, not lost to a clamp that would leave it to the others.
    in.own_ns = std::min(own, in.busy_ns);
    c.own_ahead = std::min(own - in.own_ns, CoreWindow::kWindowNs);
    in.own_spinning = spinner;
    feed(cpu, in);
  }
  set_ours(cpu, ours);
  c.have = ok;
  if (ok) c.idle_total = idle;
  c.at = now;
  // The cost is read on one sample in kCostEvery and stands for them all.
  if (samples_.fetch_add(1, std::memory_order_relaxed) % kCostEvery == 0)
    cost_ns_.fetch_add((src_.thread_cpu_ns() - t0) * kCostEvery, std::memory_order_relaxed);
}

void Governor::feed(int cpu, const CoreInterval& in) {
  if (cpu < 0 || cpu >= ncpu_) return;
  Core& c = cores_[cpu];
  c.window.add(in);
  if (in.dt_ns > 0) {
    double o = std::clamp(in.busy_ns - in.own_ns, 0.0, in.dt_ns);
    c.others_sum.store(c.others_sum.load(std::memory_order_relaxed) + o, std::memory_order_relaxed);
    c.span_sum.store(c.span_sum.load(std::memory_order_relaxed) + in.dt_ns, std::memory_order_relaxed);
  }
  NeighbourView v = c.window.view();
  c.others.store(v.others, std::memory_order_relaxed);
  c.demand.store(v.demand, std::memory_order_relaxed);
  c.idle.store(v.idle, std::memory_order_relaxed);
  c.window_ns.store(v.window_ns, std::memory_order_relaxed);
  c.recent.store(v.recent, std::memory_order_relaxed);
  c.recent_idle.store(v.recent_idle, std::memory_order_relaxed);
  c.recent_sleeping.store(v.recent_sleeping, std::memory_order_relaxed);
}

void Governor::set_ours(int cpu, int ours) {
  if (cpu >= 0 && cpu < ncpu_) cores_[cpu].ours.store(ours, std::memory_order_relaxed);
}

int Governor::ours(int cpu) const {
  return cpu >= 0 && cpu < ncpu_ ? cores_[cpu].ours.load(std::memory_order_relaxed) : 0;
}

NeighbourView Governor::neighbours(int cpu) const {
  NeighbourView v;
  if (cpu < 0 || cpu >= ncpu_) return v;
  const Core& c = cores_[cpu];
  v.others = c.others.load(std::memory_order_relaxed);
  v.demand = c.demand.load(std::memory_order_relaxed);
  v.idle = c.idle.load(std::memory_order_relaxed);
  v.window_ns = c.window_ns.load(std::memory_order_relaxed);
  v.recent = c.recent.load(std::memory_order_relaxed);
  v.recent_idle = c.recent_idle.load(std::memory_order_relaxed);
  v.recent_sleeping = c.recent_sleeping.load(std::memory_order_relaxed);
  v.ours = c.ours.load(std::memory_order_relaxed);
  return v;
}

Governor::Took Governor::take(Lease Core::*which, int cpu, const void* who, uint64_t now, uint64_t ttl) {
  if (cpu < 0 || cpu >= ncpu_) return Took::renewed;
  Lease& l = cores_[cpu].*which;
  const void* cur = l.owner.load(std::memory_order_acquire);
  Took took = Took::renewed;
  if (cur != who) {
    if (cur && l.until.load(std::memory_order_relaxed) > now) return Took::refused;
    if (!l.owner.compare_exchange_strong(cur, who, std::memory_order_acq_rel)) return Took::refused;
    took = Took::taken;
    // A queue that held this on another core gives that up.
    for (int k = 0; k < ncpu_; k++) {
      const void* o = who;
      if (k != cpu) (cores_[k].*which).owner.compare_exchange_strong(o, nullptr, std::memory_order_acq_rel);
    }
  }
  l.until.store(now + ttl, std::memory_order_relaxed);
  return took;
}

void Governor::drop(Lease Core::*which, const void* who) {
  if (!who) return;
  for (int k = 0; k < ncpu_; k++) {
    const void* o = who;
    (cores_[k].*which).owner.compare_exchange_strong(o, nullptr, std::memory_order_acq_rel);
  }
}

bool Governor::claim_spin(int cpu, const void* owner, uint64_t now) {
  Took got = take(&Core::spin, cpu, owner, now, kLeaseNs);
  if (got == Took::taken) cores_[cpu].spin_since.store(now, std::memory_order_relaxed);
  return got != Took::refused;
}

void Governor::release_spin(const void* owner) { drop(&Core::spin, owner); }

bool Governor::spinning(int cpu, uint64_t now) const {
  if (cpu < 0 || cpu >= ncpu_) return false;
  const Lease& l = cores_[cpu].spin;
  return l.owner.load(std::memory_order_acquire) != nullptr && l.until.load(std::memory_order_relaxed) > now;
}

bool Governor::lead(int cpu, const void* who, uint64_t now) {
  return take(&Core::lead, cpu, who, now, kLeadNs) != Took::refused;
}

void Governor::release_lead(const void* who) { drop(&Core::lead, who); }

void Governor::count(int cpu, double weight) {
  if (cpu < 0 || cpu >= ncpu_) return;
  Core& c = cores_[cpu];
  c.done.fetch_add(1, std::memory_order_relaxed);
  c.work_milli.fetch_add(uint64_t(std::llround(weight * 1000)), std::memory_order_relaxed);
}

Governor::Count Governor::counted(int cpu) const {
  if (cpu < 0 || cpu >= ncpu_) return {};
  const Core& c = cores_[cpu];
  return {c.done.load(std::memory_order_relaxed), double(c.work_milli.load(std::memory_order_relaxed)) / 1000,
          c.others_sum.load(std::memory_order_relaxed), c.span_sum.load(std::memory_order_relaxed)};
}

int Governor::core_mode(int cpu) const {
  return cpu < 0 || cpu >= ncpu_ ? 0 : cores_[cpu].mode.load(std::memory_order_relaxed);
}

void Governor::set_core_mode(int cpu, int mode) {
  if (cpu >= 0 && cpu < ncpu_) cores_[cpu].mode.store(mode, std::memory_order_relaxed);
}

bool Governor::core_light(int cpu) const {
  return cpu >= 0 && cpu < ncpu_ && cores_[cpu].light.load(std::memory_order_relaxed);
}

void Governor::set_core_light(int cpu, bool light) {
  if (cpu >= 0 && cpu < ncpu_) cores_[cpu].light.store(light, std::memory_order_relaxed);
}

}  // namespace hio
