// SPDX-License-Identifier: MIT
#include "adaptive/policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace hio {

int contention_level(double c) {
  int l = 0;
  while (l < kLevels - 1 && c >= kLevelEdges[l]) l++;
  return l;
}

double others_without_our_wakeups(double others, double sleeps_per_s, double wake_cpu_ns, const PolicyParams& p) {
  double ours = sleeps_per_s * p.hidden_wake_share * wake_cpu_ns / 1e9;
  return others - std::min(ours, p.hidden_wake_cap * others);
}

int LevelHold::update(uint64_t now, double contention, Waiting ours, double recent, Waiting recent_ours) {
  constexpr int heavy = kLevels - 1;
  int raw = contention_level(contention);
  int lately = recent >= 0 ? contention_level(recent) : -1;
  if (level_ == heavy && now - since_ > arrival_ns_ && recent_ours == Waiting::sleeping && lately == 0)
    departed_ = true;
  if (departed_ && (raw <= lately || lately == heavy || lately < 0))
    departed_ = false;
  else if (departed_)
    raw = lately;
  if (ours != Waiting::spinning && level_ == 0 && raw == 1) raw = 0;
  if (ours == Waiting::sleeping_full && raw > 0 && raw < level_) raw = level_;
  bool at_once = level_ < 0 || raw == level_ || raw == heavy || level_ == heavy;
  if (!at_once && !away_) {
    away_ = true;
    away_since_ = now;
  } else if (at_once || now - away_since_ >= hold_ns_) {
    if (raw != level_) since_ = now;
    level_ = raw;
    away_ = false;
  }
  return level_;
}

void PauseTally::add(double wall_ns, double done, bool measured, double tau_ns) {
  double fade = std::exp(-wall_ns / tau_ns);
  whole_ns = whole_ns * fade + wall_ns;
  whole_done = whole_done * fade + done;
  measured_ns *= fade;
  measured_done *= fade;
  if (!measured) return;
  measured_ns += wall_ns;
  measured_done += done;
}

double PauseTally::factor(double min_ns) const {
  if (measured_ns < min_ns || measured_done <= 0 || whole_done <= 0) return 1.0;
  return std::max(1.0, (whole_ns / whole_done) / (measured_ns / measured_done));
}

bool AdaptivePolicy::paused(Mode m, const TickSample& s) {
  // A tick in which the queue hardly waited measured the application
  // between its reads, not the mode: learned, one such tick can keep the
  // queue off that mode for good. Each mode against its own last tick, as a
  // wake-up lengthens every wait; and a poller starved by a neighbour still
  // waits (it spins, or is preempted while it spins), so its slow ticks are
  // kept. What such ticks add to each mode's time is tallied apart
  // (PauseTally).
  double share = double(s.wait_ns) / double(s.wall_ns);
  double& last = wait_share_[size_t(int(m))];
  bool pause = last > 0 && share < p_.pause_share * last;
  last = share;
  return pause;
}

double AdaptivePolicy::weight(uint64_t now, double wall, bool fresh, bool recheck, ModeCost& c) const {
  // Ticks and probes are short and a neighbour's slices and the
  // application's own phases make each one noisy: a measurement weighs by its
  // length, the average running over the memory's length of time in this
  // mode. Until a mode has been measured that long, its measurements average
  // as one, so that its first short probe does not stand for it until it has
  // run that long. What a level's table holds is kept across absences (a
  // neighbour in bursts finds it ready), but its weight against a new
  // measurement fades with its age: the application's start is not its
  // steady state, and must not hold a mode's figure down. Where a switch was
  // held back to measure the mode again, that measurement counts for at
  // least half, as one borrowed from another level is replaced.
  if (fresh) {
    c.span_ns = 0;
  } else {
    double age = double(now) - wall - double(c.at_ns);
    if (age > 0) c.span_ns *= std::exp(-age / double(p_.memory_ns));
  }
  double w = fresh ? 1.0 : std::max(1.0 - std::exp(-wall / double(p_.memory_ns)), wall / (c.span_ns + wall));
  if (recheck) w = std::max(w, p_.recheck_weight);
  c.span_ns = std::min(c.span_ns + wall, double(p_.memory_ns));
  return w;
}

void AdaptivePolicy::learn_others(const Signals& sig, double w, ModeCost& c) {
  auto mix = [w](double old, double v) { return old + w * (v - old); };
  // What the others got in this mode: their share of each tick, where the
  // tick has its own figure (several of ours on the core), by its length.
  // The window at a tick's end is shorter than a rotation of more than two
  // CPU-bound tasks: the lead's ticks end as it gets the core back, just
  // after the neighbour's turn, which the window then holds whole and so
  // overstates.
  double others = sig.tick_others >= 0 ? sig.tick_others : sig.contention;
  c.others = c.known && !c.borrowed ? mix(c.others, others) : others;
  if (sig.demand >= 0) c.demand = c.demand >= 0 && !c.borrowed ? mix(c.demand, sig.demand) : sig.demand;
}

bool AdaptivePolicy::learn(uint64_t now, Mode m, const TickSample& s, const Signals& sig, Table& t) {
  if (s.completions == 0 || !s.whole || s.wall_ns == 0) return false;
  if (paused(m, s)) return false;
  // Rates and costs per completion of the queue's usual size: a tick's mix
  // of sizes is the application's, not the mode's.
  double n = s.done();
  // Time other threads held the CPU is not this mode's doing: measure the
  // rate over the time the thread could have run.
  double wall_s = double(s.wall_ns) / 1e9;
  double active_s = wall_s * std::clamp(1.0 - s.delay_share, 0.05, 1.0);
  ModeCost& c = t.cost[size_t(int(m))];
  bool recheck = int(m) == rechecking_;
  if (recheck) rechecking_ = -1;
  bool fresh = !c.known || c.borrowed;
  double wall = double(s.wall_ns);
  double w = weight(now, wall, fresh, recheck, c);
  auto mix = [w](double old, double v) { return old + w * (v - old); };
  // A tick far below the mode's rate is most often the device or the
  // application in a slow spell (the queue waiting, in either mode), and
  // such spells fall on the mode in use while a probe mostly misses them:
  // counted whole, they push the queue off whichever mode it uses. Counted
  // at half the mode's rate at most, a slow spell that lasts still brings
  // the figure down, tick by tick.
  // Beside a heavy neighbour slow ticks are the neighbour's slices, the
  // mode's real cost, in every mode: raised, they lift the mode's figure
  // above what its ticks did.
  bool spells = !fresh && level(sig) != kLevels - 1;
  auto spell = [&](double old, double v) { return spells ? std::max(v, p_.slow_spell * old) : v; };
  // A probe that read more than a quarter above its mode's figure found it
  // still moving: the application's start, or the disk's drift. Where it
  // read near enough the mode in use to overtake it, the mode is probed
  // again at the shortest interval: the doubling interval lets a mode that
  // is still warming up overtake too late.
  double rate = n / wall_s;
  const ModeCost& now_cost = t.cost[size_t(int(cur_))];
  bool rival = !now_cost.known || rate >= p_.far_behind * now_cost.iops;
  if (!fresh && m != cur_ && rival && rate > p_.probe_rise * c.iops) t.probe_every[size_t(int(m))] = p_.probe_min_ns;
  if (m != cur_) t.probed_beside[size_t(int(m))] = now_cost.known ? now_cost.iops : 0;
  c.iops = mix(c.iops, spell(c.iops, rate));
  c.iops_free = mix(c.iops_free, spell(c.iops_free, n / active_s));
  c.cpu_ns = mix(c.cpu_ns, double(s.cpu_ns) / s.own_done());
  c.lat_ns = mix(c.lat_ns, double(s.lat_sum_ns) / double(s.own_count()));
  c.sleeps = mix(c.sleeps, double(s.sleeps) / s.own_done());
  learn_others(sig, w, c);
  c.known = true;
  c.borrowed = false;
  c.confirmed = recheck || m == cur_;
  c.at_ns = now;
  return true;
}

void AdaptivePolicy::borrow(uint64_t now, int level) {
  Table& t = tab_[size_t(level)];
  for (const ModeCost& c : t.cost)
    if (c.known) return;
  // A level never seen starts from the nearest one seen, as measurements
  // due for a probe on the usual schedule rather than unknowns to probe now.
  for (int d = 1; d < kLevels; d++)
    for (int l : {level - d, level + d}) {
      if (l < 0 || l >= kLevels) continue;
      bool any = false;
      for (const ModeCost& c : tab_[size_t(l)].cost) any = any || c.known;
      if (!any) continue;
      t.cost = tab_[size_t(l)].cost;
      for (size_t i = 0; i < t.cost.size(); i++) {
        ModeCost& c = t.cost[i];
        c.borrowed = c.known;
        if (!c.known) continue;
        t.last_probe[i] = now;
        t.probe_every[i] = p_.probe_min_ns;
      }
      return;
    }
}

double AdaptivePolicy::wanted(const Table& t) const {
  // The most they used in any mode, or what they were seen to want while
  // the queue polled (known just after a switch to polling, while the
  // governor's window still holds intervals beside our sleeper).
  double want = 0;
  for (const ModeCost& k : t.cost)
    if (k.known) want = std::max(want, k.others);
  const ModeCost& poll = t.cost[size_t(int(Mode::poll))];
  if (poll.known && poll.demand >= 0) want = std::max(want, poll.demand);
  return want;
}

bool AdaptivePolicy::predicts_poll(const Signals& sig) const {
  // Beside a heavy neighbour a spinner gets what the neighbour leaves of the
  // fair half, and its rate follows: its score is predicted from its rate
  // alone, not probed. A probe of polling would cost more than its own
  // ticks: the spinner's debt to the scheduler outlives it, and the
  // sleeper's wake-ups wait behind the neighbour until it is paid.
  return level(sig) == kLevels - 1 && cur_ != Mode::poll && sig.ours <= 1 && poll_alone() > 0;
}

double AdaptivePolicy::poll_alone() const {
  // Measured alone, or else as its rate over the time it could run.
  const ModeCost& quiet = tab_[0].cost[size_t(int(Mode::poll))];
  if (quiet.known && !quiet.borrowed) return quiet.iops;
  double best = 0;
  for (const Table& t : tab_) {
    const ModeCost& c = t.cost[size_t(int(Mode::poll))];
    if (c.known && !c.borrowed) best = std::max(best, c.iops_free);
  }
  return best;
}

double AdaptivePolicy::score(Mode m, const Signals& sig) const {
  const Table& t = table(sig);
  const ModeCost& c = t.cost[size_t(int(m))];
  if (m == Mode::poll && predicts_poll(sig)) {
    double alone = poll_alone(), best_solo = alone;
    for (const ModeCost& k : tab_[0].cost)
      if (k.known) best_solo = std::max(best_solo, k.iops);
    double want = wanted(t), left = 1 - std::min(want, 0.5);
    double ours = alone * left / best_solo;
    // Under own the application's pauses beside the spinner count, as measured ones do.
    if (sig.objective == Objective::own) return ours / c.pauses.factor(double(p_.probe_tick_ns));
    return ours + (want > 0 ? std::min(want, 0.5) / want : 1.0);
  }
  if (!c.known) return 0;
  // The best rate alone: measured alone if it was, else corrected for the
  // time others held the CPU.
  double best_solo = 0;
  for (const ModeCost& k : tab_[0].cost)
    if (k.known) best_solo = std::max(best_solo, k.iops);
  if (best_solo == 0)
    for (const ModeCost& k : t.cost)
      if (k.known) best_solo = std::max(best_solo, k.iops_free);
  double ours = best_solo > 0 ? c.iops / best_solo : 0;
  // Under `own` the application's time between its waits counts too, and a
  // mode decides how much CPU that work is left: beside a CPU-bound
  // neighbour a spinner's used-up share holds the thread off the CPU longer
  // than a sleeper's, so the pauses take more of polling's time.
  if (sig.objective == Objective::own)
    return best_solo > 0 ? c.iops / c.pauses.factor(double(p_.probe_tick_ns)) / best_solo : 0;
  if (level(sig) == 0) return ours;
  // The other tenants' progress relative to alone is the share of what
  // they want that they get. What they get in each mode is measured: their
  // use of the core then, less what our wake-ups cost them outside our
  // thread (interrupt handling, the switches: half a wake-up's CPU each),
  // which the core's busy time counts as theirs; the same estimate, and
  // the same cap, as the level's. What they want is wanted(t).
  double want = wanted(t);
  // A wake-up never interrupts the thread it wakes, which sleeps; where
  // several of ours share the core, it lands on another of them running as
  // often as they run, and is then charged to that one's clock.
  double ours_running = sig.ours > 1 ? std::min(1.0, c.iops * c.cpu_ns / 1e9) * (sig.ours - 1) / sig.ours : 0;
  double got = others_without_our_wakeups(c.others, c.iops * c.sleeps * (1 - ours_running), sig.wake_cpu_ns, p_);
  double theirs = want > 0 ? std::clamp(got / want, 0.0, 1.0) : 1.0;
  return ours + theirs;
}

Mode AdaptivePolicy::best(const Signals& sig, std::array<double, kModes>& obj) const {
  const Table& t = table(sig);
  const ModeCost& poll = t.cost[size_t(int(Mode::poll))];
  // A light demand has its rate whatever the mode, so the mode is chosen by
  // its cost, where the queue is alone on its core: with several of ours,
  // one spinning holds the core while the others' completions wait, and the
  // mode moves the rate they reach (cheapest_of_rivals).
  bool light = light_demand(sig) && poll.known;
  for (int i = 0; i < kModes; i++) {
    Mode m = Mode(i);
    const ModeCost& c = t.cost[size_t(i)];
    if (alone_polls(sig)) {
      // Nothing reacts to a completion sooner than a thread spinning on a
      // core nobody else wants, so there is nothing to measure or weigh.
      obj[size_t(i)] = m == Mode::poll ? 1 : 0;
    } else if ((!c.known && !(m == Mode::poll && predicts_poll(sig))) || (m == Mode::hybrid && !sig.hybrid_viable)) {
      obj[size_t(i)] = 0;
    } else if (light && sig.ours <= 1) {
      obj[size_t(i)] = light_score(t, m);
    } else {
      obj[size_t(i)] = score(m, sig);
    }
  }
  if (light && sig.ours > 1 && sig.objective == Objective::shared) cheapest_of_rivals(t, obj);
  // Ties go to the mode in use, then to poll (the fastest alone).
  Mode b = cur_;
  for (Mode m : {Mode::poll, Mode::interrupt, Mode::hybrid})
    if (obj[size_t(int(m))] > obj[size_t(int(b))]) b = m;
  return b;
}

double AdaptivePolicy::light_score(const Table& t, Mode m) const {
  // Nobody else wants the CPU and the queue is mostly idle: keep polling's
  // latency (within the slack) for the least CPU. The mode in use keeps its
  // place up to the switch gain beyond the slack, so that a few slow
  // completions do not throw it out.
  const ModeCost &c = t.cost[size_t(int(m))], &poll = t.cost[size_t(int(Mode::poll))];
  double slack = p_.light_lat_slack * (m == cur_ ? p_.switch_gain : 1.0);
  return c.lat_ns <= slack * poll.lat_ns && c.cpu_ns > 0 ? poll.cpu_ns / c.cpu_ns : 0;
}

void AdaptivePolicy::cheapest_of_rivals(const Table& t, std::array<double, kModes>& obj) const {
  // Where several of ours share the core, a light demand's rate can still
  // move with the mode: only the modes within the switch gain of the best
  // score are ranked by their cost (under `shared`: under `own` the CPU left
  // is nobody's gain).
  double top = *std::max_element(obj.begin(), obj.end());
  std::array<double, kModes> cheap{};
  bool any = false;
  for (int i = 0; i < kModes; i++) {
    if (obj[size_t(i)] <= 0 || obj[size_t(i)] * p_.switch_gain < top) continue;
    cheap[size_t(i)] = light_score(t, Mode(i));
    any = any || cheap[size_t(i)] > 0;
  }
  if (any) obj = cheap;
}

bool AdaptivePolicy::alone_polls(const Signals& sig) const {
  // Under `own` the queue's throughput is all that counts, and alone nothing
  // serves it sooner than a spinning thread, however little it waits: for
  // an application that computes between its waits, the cheapest mode
  // within polling's latency slack costs it reads.
  // Several of our threads on the core take turns at spinning: alone is not
  // a reason to poll then, it is measured like any other situation.
  return level(sig) == 0 && sig.ours <= 1 && (sig.wait_share >= p_.light_wait_share || sig.objective == Objective::own);
}

Mode AdaptivePolicy::next_probe(uint64_t now, const Signals& sig, const std::array<double, kModes>& score) {
  Mode pick = cur_;
  if (alone_polls(sig)) return pick;
  // A light or medium level just entered may be a neighbour's passing (the
  // window crossing it on the way to or from heavy): a probe there is cut
  // short by the next level, and such probes only add time in a slower mode.
  // The heavy level is a CPU-bound neighbour's arrival: it is met at once.
  if (level(sig) < kLevels - 1 && now - level_since_ <= p_.arrival_ns) return pick;
  if (recheck_ >= 0) {
    pick = Mode(recheck_);
    recheck_ = -1;
    if (pick != cur_) {
      rechecking_ = int(pick);
      return pick;
    }
  }
  Table& t = table(sig);
  uint64_t most_overdue = 0;
  for (int i = 0; i < kModes; i++) {
    Mode m = Mode(i);
    if (m == cur_ || (m == Mode::hybrid && !sig.hybrid_viable) || (m == Mode::poll && predicts_poll(sig))) continue;
    bool known = t.cost[size_t(i)].known;
    // A mode used or probed recently at this level is known well enough. A
    // mode never measured here is probed at once, and again on the backing-off
    // schedule while its probes end unmeasured: a level shorter than a probe
    // with its settling would otherwise be probed at each return to it, and
    // keep the queue off its best mode.
    uint64_t last = std::max(t.last_probe[size_t(i)], t.cost[size_t(i)].at_ns);
    // A mode measured beside a rate the mode in use has since left (the
    // application's start, a phase) was measured in another situation: it is
    // due at the shortest interval.
    double beside = t.probed_beside[size_t(i)], rate = t.cost[size_t(int(cur_))].iops;
    bool moved = known && beside > 0 && (rate > p_.probe_rise * beside || rate * p_.probe_rise < beside);
    bool due = now - last >= (moved ? p_.probe_min_ns : t.probe_every[size_t(i)]);
    uint64_t overdue = !known ? UINT64_MAX : now - last;
    if (due && overdue >= most_overdue) {
      pick = m;
      most_overdue = overdue;
    }
  }
  if (pick != cur_) {
    t.last_probe[size_t(int(pick))] = now;
    uint64_t& every = t.probe_every[size_t(int(pick))];
    // A mode far behind is unlikely to overtake soon: look at it less often,
    // from its first measurement here (one borrowed from another level is
    // not one). With several of ours, whose probe moves them all, it waits
    // the longest interval at once. A mode still warming up is caught by its
    // probes reading above its figure (learn), or by the mode in use moving.
    const ModeCost& pc = t.cost[size_t(int(pick))];
    bool far = pc.known && !pc.borrowed && score[size_t(int(pick))] < p_.far_behind * score[size_t(int(cur_))];
    every = far && sig.ours > 1 ? p_.probe_max_ns
                                : std::min(std::max(every * (far ? 4 : 2), p_.probe_min_ns), p_.probe_max_ns);
  }
  return pick;
}

Decision AdaptivePolicy::on_tick(uint64_t now, Mode ran, const TickSample& s, const Signals& sig) {
  int level = AdaptivePolicy::level(sig);
  if (level != level_) level_since_ = now;
  level_ = level;
  // A neighbour's arrival or departure crosses levels over a few ticks.
  bool arrived = now - level_since_ <= p_.arrival_ns;
  borrow(now, level);
  Table& here = table(sig);
  Decision d;
  d.learned = learn(now, ran, s, sig, here);
  if (s.whole && s.wall_ns > 0)
    here.cost[size_t(int(ran))].pauses.add(double(s.wall_ns), s.done(), d.learned, double(p_.memory_ns));
  Mode cand = best(sig, d.score);
  if (cand != cur_) {
    double now_obj = d.score[size_t(int(cur_))], cand_obj = d.score[size_t(int(cand))];
    // Alone (and busy, or under `own`), poll is right by construction: a quiet tick switches
    // to it (the governor's whole window has then been without a neighbour).
    // Otherwise the other mode must lead by the switch gain. A mode in use
    // but not yet measured at this level is measured by the ticks that
    // come: compare once they span a probe's length, as the probe that
    // measured the rival did: one tick may fall in a neighbour's slice.
    // Beside a heavy neighbour one tick says enough (one_tick_decides), and
    // a burst's arrival is met at once.
    bool alone = alone_polls(sig);
    const ModeCost& cc_now = here.cost[size_t(int(cur_))];
    bool one_tick = one_tick_decides(level, sig.objective, sig.ours);
    bool cur_known = cc_now.known && (cc_now.span_ns >= double(p_.probe_tick_ns) || one_tick);
    bool ahead = alone || (cur_known && cand_obj >= p_.switch_gain * now_obj);
    // At a steady level a lead that rests on one probe may have fallen in a
    // fast phase of the application: measure it again first. Where the level
    // just changed, the table is what the switch is for.
    const ModeCost& cc = here.cost[size_t(int(cand))];
    if (ahead && !alone && !arrived && !cc.confirmed) {
      recheck_ = int(cand);
    } else if (ahead) {
      cur_ = cand;
      switches_++;
    }
  }
  Mode pr = next_probe(now, sig, d.score);
  d.mode = pr;
  d.probe = pr != cur_;
  d.light = light_demand(sig);
  probes_ += d.probe;
  return d;
}

#define HIO_KNOB(f)                                                                                                   \
  PolicyKnob {                                                                                                        \
#f, [](const PolicyParams& p) { return double(p.f); }, [](PolicyParams & p, double v) { p.f = decltype(p.f)(v); } \
  }

const std::vector<PolicyKnob>& policy_knobs() {
  static const std::vector<PolicyKnob> knobs = {
      HIO_KNOB(tick_ns),           HIO_KNOB(probe_tick_ns),   HIO_KNOB(settle_ns),        HIO_KNOB(arrival_ns),
      HIO_KNOB(light_wait_share),  HIO_KNOB(light_lat_slack), HIO_KNOB(light_idle_share), HIO_KNOB(switch_gain),
      HIO_KNOB(probe_min_ns),      HIO_KNOB(probe_max_ns),    HIO_KNOB(probe_rise),       HIO_KNOB(far_behind),
      HIO_KNOB(hidden_wake_share), HIO_KNOB(hidden_wake_cap), HIO_KNOB(level_hold_ns),    HIO_KNOB(level_full_idle),
      HIO_KNOB(pause_share),       HIO_KNOB(memory_ns),       HIO_KNOB(slow_spell),       HIO_KNOB(recheck_weight),
      HIO_KNOB(spin_lease_wakes),
  };
  return knobs;
}

#undef HIO_KNOB

bool set_policy_knob(PolicyParams& p, const std::string& a, std::string* why) {
  size_t eq = a.find('=');
  std::string name = a.substr(0, eq);
  for (const PolicyKnob& k : policy_knobs()) {
    if (name != k.name) continue;
    char* end = nullptr;
    double v = eq == std::string::npos ? 0 : std::strtod(a.c_str() + eq + 1, &end);
    if (eq == std::string::npos || end == a.c_str() + eq + 1 || *end || !(v >= 0)) {
      *why = "'" + a + "': expected " + name + "=a number >= 0";
      return false;
    }
    k.set(p, v);
    return true;
  }
  *why = "'" + a + "': no policy parameter '" + name + "'";
  return false;
}

}  // namespace hio
