// SPDX-License-Identifier: MIT
#include "adaptive/adaptive.hpp"

#include <algorithm>

namespace hio {
namespace {

hio_wait_mode api_mode(Mode m) {
  switch (m) {
    case Mode::interrupt: return HIO_WAIT_INTERRUPT;
    case Mode::poll: return HIO_WAIT_POLL;
    case Mode::hybrid: return HIO_WAIT_HYBRID;
  }
  return HIO_WAIT_POLL;
}

}  // namespace

Adaptive::~Adaptive() {
  if (!started_) return;
  gov().release_spin(this);
  gov().release_lead(this);
}

bool Adaptive::hybrid_viable() const {
  // Worth measuring wherever there is a sleep to take; whether its CPU and
  // latency pay is what the policy measures.
  return wake_due_ns(last_len_) > 0;
}

Waiting Adaptive::waiting(bool spinning, double idle) const {
  if (spinning) return Waiting::spinning;
  return idle < policy_.params().level_full_idle ? Waiting::sleeping_full : Waiting::sleeping;
}

double Adaptive::level_others(const NeighbourView& seen) const {
  if (ran_ == Mode::poll) return seen.others;
  return others_without_our_wakeups(seen.others, sleeps_per_s_, wake_->cpu_ns, policy_.params());
}

int Adaptive::update_level(uint64_t now, const NeighbourView& seen) {
  double recent =
      seen.recent >= 0 ? others_without_our_wakeups(seen.recent, sleeps_per_s_, wake_->cpu_ns, policy_.params()) : -1;
  return level_.update(now, level_others(seen), waiting(ran_ == Mode::poll, seen.idle), recent,
                       waiting(!seen.recent_sleeping, seen.recent_idle));
}

bool Adaptive::sleeping_frees_core() const {
  // A second spinner only takes turns with the first. A sleeper instead
  // gives it the core but for its wake-ups, and each wake-up preempts it:
  // that pays where the device's latency is long against a wake-up's CPU,
  // not where they are alike.
  // Until the device's latency is known, poll beside it and learn it.
  double lat = lat_.mean_ns(last_len_);
  return lat > 0 && lat >= policy_.params().spin_lease_wakes * wake_->cpu_ns;
}

void Adaptive::prepare() {
  if (!wake_) wake_ = &gov().signals().wake_cost();
}

Mode Adaptive::begin_wait(uint64_t now) {
  Governor& g = gov();
  cpu_ = g.enter(now);
  // Time counts in the mode the queue last waited in, leading or following,
  // in whole ticks or not.
  if (started_ && now > accounted_) mode_ns_[int(ran_)] += now - accounted_;
  accounted_ = now;
  if (!started_) {
    SignalSource& src = g.signals();
    prepare();
    monitor_samples0_ = g.samples();
    monitor_ns0_ = g.cost_ns();
    log_ = src.tick_log();
    if (log_) log_queue_ = log_->next_queue();
    started_ = true;
    tick_start_ = counted_at(now, &tick_cpu_, &core0_);
    seen_ = g.neighbours(cpu_);
    tick_level_ = update_level(now, seen_);
    following_ = !g.lead(cpu_, this, now);
    if (following_) mode_ = Mode(g.core_mode(cpu_));
  } else if (!g.lead(cpu_, this, now)) {
    // Another of our queues decides for this core.
    following_ = true;
    mode_ = Mode(g.core_mode(cpu_));
  } else if (following_) {
    // The lead just passed to this queue: its tick starts afresh, unmeasured.
    following_ = false;
    start_tick(now);
    settling_ = true;
    seen_ = g.neighbours(cpu_);
    tick_level_ = update_level(now, seen_);
  } else {
    uint64_t age = since_tick_start(now);
    const PolicyParams& p = policy_.params();
    // A neighbour that arrives or leaves ends the tick once the level has
    // moved (LevelHold): the level it leads to has its own table of what
    // each mode costs. Such a tick straddles the change, so it teaches nothing.
    NeighbourView seen = g.neighbours(cpu_);
    // A probe lasts as long as its mode must run to be judged: beside a
    // heavy neighbour in bursts shorter than a probe, a longer one would
    // end unmeasured at every burst's end.
    bool one_tick = one_tick_decides(tick_level_, objective_.load(std::memory_order_relaxed), seen.ours);
    uint64_t tick = last_.probe && !one_tick ? p.probe_tick_ns : p.tick_ns;
    bool moved = update_level(now, seen) != tick_level_ && age >= p.tick_ns / 4;
    if (moved)
      end_tick(now, seen, false);
    else if (settling_ && age >= p.settle_ns)
      settled(now);
    else if (!settling_ && age >= tick)
      end_tick(now, seen, !level_.away());
  }
  if (!following_) g.set_core_mode(cpu_, int(mode_));
  ran_ = mode_;
  if (mode_ == Mode::poll && !g.claim_spin(cpu_, this, now) && sleeping_frees_core()) {
    // Another of our queues spins on this core: one spinner is enough.
    ran_ = hybrid_viable() ? Mode::hybrid : Mode::interrupt;
    spin_denied_++;
  }
  return ran_;
}

uint64_t Adaptive::counted_at(uint64_t now, uint64_t* cpu, Governor::Count* count) const {
  // The wait's clock was read before the core's sampling, whose system
  // calls are where a thread is preempted: a tick that ended at that clock
  // but counted the core's completions after the preemption would hold
  // the other queues' completions meanwhile without their time, and the
  // next tick the time without them. The clock is read again with the count.
  *cpu = gov().signals().thread_cpu_ns();
  now = std::max(now, gov().signals().now_ns());
  *count = gov().counted(cpu_);
  return now;
}

void Adaptive::start_tick(uint64_t now) {
  tick_ = TickSample{};
  tick_start_ = counted_at(now, &tick_cpu_, &core0_);
}

void Adaptive::settled(uint64_t now) {
  if (uint64_t span = since_tick_start(now)) sleeps_per_s_ = double(tick_.sleeps) * 1e9 / double(span);
  start_tick(now);
  settling_ = false;
}

void Adaptive::end_tick(uint64_t now, const NeighbourView& seen, bool learn) {
  uint64_t cpu = 0;
  Governor::Count now_count;
  now = counted_at(now, &cpu, &now_count);
  seen_ = seen;
  tick_.wall_ns = since_tick_start(now);
  // A queue reaped from several threads ends ticks on different threads,
  // whose CPU clocks do not continue each other's (docs/adaptive.md, Limits).
  tick_.cpu_ns = cpu > tick_cpu_ ? cpu - tick_cpu_ : 0;
  // A spinner waits to run exactly while the others run. Alone of ours,
  // that is the tick's time its CPU clock did not count: a tick that fell
  // in a neighbour's slice ran far less than the window's share says.
  tick_.delay_share = ran_ == Mode::poll ? seen_.others : 0;
  if (ran_ == Mode::poll && seen_.ours <= 1 && tick_.cpu_ns > 0 && tick_.cpu_ns <= tick_.wall_ns)
    tick_.delay_share = 1.0 - double(tick_.cpu_ns) / double(tick_.wall_ns);
  sleeps_per_s_ = tick_.wall_ns ? double(tick_.sleeps) * 1e9 / double(tick_.wall_ns) : 0;
  Signals sig;
  sig.contention = seen_.others;
  sig.level = level_.level();  // updated with this view by the caller
  sig.demand = seen_.demand;
  sig.objective = objective_.load(std::memory_order_relaxed);
  sig.wait_share = tick_.wall_ns ? double(tick_.wait_ns) / double(tick_.wall_ns) : 0;
  sig.wake_cpu_ns = wake_->cpu_ns;
  sig.hybrid_viable = hybrid_viable();
  sig.ours = std::max(1, seen_.ours);
  // Several of ours take the core in turns with the others: the tick's own
  // share of the others' use, not the last window's (AdaptivePolicy::learn).
  double span = now_count.span_ns - core0_.span_ns;
  if (sig.ours > 1 && span > 0) sig.tick_others = std::clamp((now_count.others_ns - core0_.others_ns) / span, 0.0, 1.0);
  if (sig.ours > 1) {
    // The core's decision is measured by all our queues' completions there.
    tick_.own_completions = tick_.completions;
    tick_.own_work = tick_.work;
    tick_.completions = now_count.done - core0_.done;
    tick_.work = now_count.work - core0_.work;
  }
  core0_ = now_count;
  const uint64_t done = tick_.completions;
  // The queue's first tick holds the application's start, not a mode's
  // cost: learned as its mode's first figure, it can keep the queue off
  // that mode for the whole run.
  tick_.whole = learn && ticks_ != 0;
  last_ = policy_.on_tick(now, ran_, tick_, sig);
  if (log_) log_tick(now, sig.level, done);
  // The scheduler remembers the last mode for a while (a spinner's used-up
  // share delays a sleeper's next wake-ups), so the first tick in a new
  // mode is not measured.
  settling_ = last_.mode != ran_;
  mode_ = last_.mode;
  gov().set_core_light(cpu_, last_.light && seen_.idle >= policy_.params().light_idle_share);
  if (mode_ != Mode::poll) gov().release_spin(this);
  tick_ = TickSample{};
  tick_start_ = now;
  tick_cpu_ = cpu;
  tick_level_ = sig.level;
  ticks_++;
}

void Adaptive::log_tick(uint64_t now, int level, uint64_t completions) const {
  TickLine l;
  l.now_ns = now;
  l.queue = log_queue_;
  l.ran = ran_;
  l.learned = last_.learned;
  l.level = level;
  l.others = seen_.others;
  l.others_level = level_others(seen_);
  l.idle = seen_.idle;
  l.sleeps_per_s = sleeps_per_s_;
  l.completions = completions;
  l.wall_ns = tick_.wall_ns;
  l.wait_ns = tick_.wait_ns;
  l.cpu_ns = tick_.cpu_ns;
  for (int m = 0; m < kModes; m++) {
    const ModeCost& c = policy_.cost_at(level, Mode(m));
    l.iops[size_t(m)] = c.known ? c.iops : -1;
  }
  l.next = last_.mode;
  l.probe = last_.probe;
  log_->write(l);
}

double Adaptive::wake_due_ns(uint32_t len) const {
  // Where others of ours share the core, a spin that starts earlier holds
  // it while their completions wait: the wake-up aims at the device's mean
  // latency. Under light demand they seldom want the core then, and a
  // wake-up behind one of their turns costs the read its latency: the sleep
  // ends at half the mean, as the kernel's hybrid polling's does.
  if (!alone_of_ours()) return gov().core_light(cpu_) ? lat_.mean_ns(len) / 2 : lat_.mean_ns(len) - wake_->late_ns;
  // Alone, an early wake-up costs only a longer spin, and a late one every
  // completion that came before it: the wake-up aims a spread before the
  // mean, and at the lateness this queue's own sleeps measured.
  return lat_.mean_ns(len) - lat_.stddev_ns(len) - (late_ns_ >= 0 ? late_ns_ : wake_->late_ns);
}

bool Adaptive::alone_of_ours() const { return gov().ours(cpu_) <= 1; }

void Adaptive::hybrid_woke(uint64_t late_ns) {
  // The process's wake-up cost is measured on 1 us sleeps; a sleep as long
  // as a device's latency can end later (a deeper idle state to leave). A
  // moving average as the latency's. Beside others of ours, a sleep also
  // ends late by their turns on the core, which is not the timer's lateness.
  if (!alone_of_ours()) return;
  double x = double(late_ns);
  if (late_ns_ < 0) late_ns_ = wake_->late_ns;
  if (x > LatencyEstimator::kOutlier * std::max(late_ns_, wake_->late_ns)) return;
  late_ns_ += LatencyEstimator::kWeight * (x - late_ns_);
}

uint64_t Adaptive::hybrid_sleep_ns(const WaitHint& h, uint64_t now) const {
  double due = double(h.submit_ns ? h.submit_ns : now) + wake_due_ns(h.len);
  return due > double(now) ? uint64_t(due - double(now)) : 0;
}

void Adaptive::end_wait(uint64_t waited_ns, uint64_t now, bool slept) {
  // The first wait began before the queue's first tick (the wake-up cost is
  // measured in between): only its part inside the tick is the tick's.
  tick_.wait_ns += std::min(waited_ns, since_tick_start(now));
  tick_.sleeps += slept ? 1 : 0;
  gov().left(now);
}

void Adaptive::completed(uint32_t len, uint64_t lat_ns, bool upper_bound) {
  tick_.completions++;
  tick_.lat_sum_ns += lat_ns;
  last_len_ = len;
  // A poller sees the device's own latency, as does a hybrid wait that
  // still had to spin after its sleep. A completion found when the sleep
  // ended completed at most that long after its submission: it only lowers
  // the mean, or a late wake-up would lengthen the next sleep. Where several
  // of ours share a core, a poller's completions wait behind the others'
  // wake-ups: the hybrid waits keep the mean near the device's.
  if (ran_ == Mode::poll || (ran_ == Mode::hybrid && (!upper_bound || double(lat_ns) < lat_.mean_ns(len))))
    lat_.add(len, lat_ns);
  double w = lat_.weight(len);
  tick_.work += w;
  gov().count(cpu_, w);
}

void Adaptive::mode_ns(uint64_t out[kModes]) const {
  uint64_t now = started_ ? gov().signals().now_ns() : 0;
  for (int i = 0; i < kModes; i++) out[i] = mode_ns_[i];
  if (started_ && now > accounted_) out[int(ran_)] += now - accounted_;
}

void Adaptive::view(hio_adaptive_view* o) const {
  *o = hio_adaptive_view{};
  o->mode = api_mode(ran_);
  o->settled = api_mode(policy_.settled());
  o->probing = last_.probe;
  o->objective = objective();
  o->cpu = cpu_;
  o->contention = seen_.others;
  o->cpu_available = 1.0 - seen_.others;
  o->others_cores = seen_.others;
  o->demand_cores = seen_.demand;
  o->idle_share = seen_.idle;
  o->latency_ns = lat_.mean_ns(last_len_);
  o->latency_stddev_ns = lat_.stddev_ns(last_len_);
  o->wake_cpu_ns = wake_ ? wake_->cpu_ns : 0;
  o->wake_late_ns = late_ns_ >= 0 ? late_ns_ : wake_ ? wake_->late_ns : 0;
  o->hybrid_sleep_ns = wake_ ? hybrid_sleep_ns(WaitHint{1, last_len_}, 1) : 0;
  static_assert(kModes <= HIO_ADAPTIVE_MODES_MAX, "the public per-mode arrays must hold every mode");
  for (int i = 0; i < kModes; i++) o->score[i] = last_.score[size_t(i)];
  o->ticks = ticks_;
  o->switches = policy_.switches();
  o->probes = policy_.probes();
  o->spin_denied = spin_denied_;
  // The governor is the process's: its cost since this queue started.
  const Governor& g = gov_ ? *gov_ : Governor::get();
  o->monitor_samples = g.samples() > monitor_samples0_ ? g.samples() - monitor_samples0_ : 0;
  o->monitor_ns = g.cost_ns() > monitor_ns0_ ? g.cost_ns() - monitor_ns0_ : 0;
  o->monitor_source = core_source_name(g.source());
}

}  // namespace hio
