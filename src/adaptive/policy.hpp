// SPDX-License-Identifier: MIT
// The adaptive strategy's decision: which of interrupt, poll and hybrid a
// queue uses for its next tick, from what each mode was measured to cost,
// what the other tenants of its core use and want, and the objective. Pure logic: it is fed
// measurements and returns a mode, so tests drive it with synthetic signals.
// docs/adaptive.md explains the model and every constant.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hio {

enum class Mode : int { interrupt = 0, poll = 1, hybrid = 2 };
constexpr int kModes = 3;

// What one tick in one mode measured on the queue's thread.
struct TickSample {
  uint64_t wall_ns = 0;
  uint64_t wait_ns = 0;  // inside wait(): asleep or spinning
  uint64_t cpu_ns = 0;   // the thread's CPU time
  uint64_t completions = 0;
  double work = 0;          // the completions weighed by their size (LatencyEstimator::weight); 0: as counted
  uint64_t lat_sum_ns = 0;  // sum of the completions' latencies
  uint64_t sleeps = 0;      // times the thread went to sleep
  double delay_share = 0;   // share of the tick spent runnable but not running
  bool whole = true;        // false: it straddled a change of level, or held the application's start
  // Of the completions, the measuring queue's own (where several of our
  // queues share the core and its decision, completions count all of
  // theirs): what the thread's CPU, latency and sleeps are per.
  uint64_t own_completions = 0;  // 0: as completions
  double own_work = 0;           // 0: as work
  // The completions in units of the queue's usual size.
  double done() const { return work > 0 ? work : double(completions); }
  double own_done() const { return own_work > 0 ? own_work : own_completions ? double(own_completions) : done(); }
  uint64_t own_count() const { return own_completions ? own_completions : completions; }
};

// What the policy maximises beside other tenants: this queue's own
// progress, or both tenants' combined progress (each relative to alone).
enum class Objective : int { shared = 0, own = 1 };

// A mode's time per completion over every whole tick against that over its
// measured ticks, over about the last `tau_ns` spent in the mode: what the
// application's pauses between its waits add to the mode's measured rate.
struct PauseTally {
  double whole_ns = 0, whole_done = 0, measured_ns = 0, measured_done = 0;
  void add(double wall_ns, double done, bool measured, double tau_ns);
  // 1 until the mode's measured ticks span min_ns.
  double factor(double min_ns) const;
};

// What the policy learned of one mode.
struct ModeCost {
  bool known = false;
  double iops = 0;        // completions per second, weighed by size, as measured (under that contention)
  double iops_free = 0;   // the same over the time the thread could run: as if alone
  double cpu_ns = 0;      // thread CPU per completion
  double lat_ns = 0;      // mean completion latency
  double sleeps = 0;      // sleeps per completion
  double others = 0;      // cores the other tenants used meanwhile
  double demand = -1;     // and wanted (-1: not known)
  uint64_t at_ns = 0;     // when it was last measured
  double span_ns = 0;     // how long it was measured: the first memory_ns average as one
  bool borrowed = false;  // copied from the nearest level, not measured here
  // Last measured in use or by a recheck, not by one probe alone.
  bool confirmed = false;
  PauseTally pauses;
};

// The situation at the end of a tick.
struct Signals {
  double contention = 0;    // cores (0..1) the other tenants use on the queue's core
  double tick_others = -1;  // the same over the tick itself, where several of ours share the core (-1: not read)
  int level = -1;           // the contention level acted on (LevelHold); -1: contention's own
  double demand = -1;       // what they want there: use + waiting (-1: not known)
  Objective objective = Objective::shared;
  double wait_share = 0;      // share of the last tick the queue spent waiting
  double wake_cpu_ns = 0;     // measured CPU cost of one sleep and wake-up
  bool hybrid_viable = true;  // a hybrid sleep would save more CPU than the wake-up costs
  int ours = 1;               // our threads that run on the queue's core (they share its decision)
};

struct PolicyParams {
  uint64_t tick_ns = 2'000'000;        // decision cadence
  uint64_t probe_tick_ns = 8'000'000;  // a probe's measured length: a few scheduler slices
  uint64_t settle_ns = 1'500'000;      // after a change of mode, not measured: the scheduler's memory of the last one
  uint64_t arrival_ns = 10'000'000;    // a level reached this recently is a change, not a steady level;
                                       // below heavy, it is not probed yet
  double light_wait_share = 0.5;       // waiting less than this: light demand
  double light_lat_slack = 1.10;       // light demand may cost this much latency
  double light_idle_share = 0.5;       // under light demand, a core idle this share of the window: the others
                                       // of ours seldom want it when a wait ends
  double switch_gain = 1.03;           // a switch must promise this much more score
  uint64_t probe_min_ns = 50'000'000;  // probe interval at first
  uint64_t probe_max_ns = 2'000'000'000;  // and at most, once things are steady
  double probe_rise = 1.25;               // a probe that read this much above its mode's figure is repeated soon
  double far_behind = 0.8;                // a mode scoring below this share of the best backs off faster
  double hidden_wake_share = 0.5;         // wake-up CPU not charged to the thread, per sleep
  double hidden_wake_cap = 0.5;           // and at most this share of what the others read: on a fast device
                                          // the estimate can exceed a light neighbour's whole reading
  uint64_t level_hold_ns = 3'000'000;     // below heavy, the window must stay outside a level this long to leave
                                          // it (LevelHold): longer than the gaps of a neighbour in short slices
  double level_full_idle = 0.1;           // below this, a lower figure beside a sleeper keeps the level (LevelHold):
                                          // a full core beside a clock-paced neighbour and our sleeper shows some idle
  double pause_share = 0.5;               // a tick that waited less than this share of the mode's last
                                          // tick's wait share ran the application, not the mode: not learned
  uint64_t memory_ns = 500'000'000;       // a mode's figures average over about this long in the mode,
                                          // and an old one's weight against a newer one fades over as long
  double slow_spell = 0.5;                // a tick's rate counts as at least this share of its mode's
  double recheck_weight = 0.5;            // a recheck counts for at least this: follows the disk's drift,
                                          // while one probe in an unlucky phase of the application does not decide
  double spin_lease_wakes = 4;            // a second spinner on a core sleeps where the device takes at least
                                          // this many wake-ups' CPU to complete a command
};

// Each parameter by name, to read and set it as a number: for tools that
// measure how much each matters (hio-sim sensitivity) or try a value.
struct PolicyKnob {
  const char* name;
  double (*get)(const PolicyParams&);
  void (*set)(PolicyParams&, double);
};
const std::vector<PolicyKnob>& policy_knobs();
// Sets "name=value"; false (with the reason) if the name or value is bad.
bool set_policy_knob(PolicyParams& p, const std::string& assignment, std::string* why);

struct Decision {
  Mode mode = Mode::poll;              // for the next tick
  bool probe = false;                  // a short visit to another mode, to measure it
  bool learned = false;                // the tick that ended was measured into its level's table
  bool light = false;                  // light demand (AdaptivePolicy::light_demand)
  std::array<double, kModes> score{};  // predicted progress under the objective (0: unknown)
};

// Contention levels, each with its own table of what the modes cost: a
// co-runner that comes and goes finds the policy already calibrated for it.
constexpr int kLevels = 4;
constexpr double kLevelEdges[kLevels - 1] = {0.05, 0.15, 0.3};
int contention_level(double contention);

// Beside a heavy neighbour one tick says enough of a mode: it runs in the
// neighbour's slices whatever their phase. Not for a lone queue under
// `own`, whose first ticks in a mode are held off by the scheduler's memory
// of the last one, and where only its own rate counts.
inline bool one_tick_decides(int level, Objective objective, int ours) {
  return level == kLevels - 1 && (objective == Objective::shared || ours > 1);
}

// How the queue itself waited while the governor's window was read: its own
// mode moves what the others are seen to use.
enum class Waiting {
  spinning,       // the others get what the scheduler gives them beside a spinner
  sleeping,       // the core had idle time: the others had what they wanted
  sleeping_full,  // the core was full: the others may have had less than they wanted
};

// The level a queue acts on. A neighbour that runs in slices shorter than
// the governor's window swings the window's figure across a level edge and
// back within a tick: acting on every swing would cut each tick short and
// leave the modes unmeasured at either level. Among the quiet, light and
// medium levels the level changes once the window has been outside it for
// the hold. The heavy level is entered and left at once: a CPU-bound
// neighbour's arrival or departure changes which mode wins, and a tick that
// straddles it measures neither. Its departure is read from the last few
// samples beside our sleepers with the core idle, not the window: a
// CPU-bound neighbour takes all a sleeper leaves it, so a quiet reading
// there means it has gone (on a full core, our own threads held it off),
// where the window would take most of its length to fall through the levels.
// Until the window has fallen as low, the last samples stand for it. A
// heavy level entered within the arrival time is a neighbour in short
// bursts, which the window averages to one level: it is left by the window.
//
// A level is a key to what each mode costs beside that neighbour, so it must
// not move with the queue's own mode:
// - beside our sleeper, a rise from quiet to light is our own wake-ups: their
//   interrupts, idle exits and switches run outside our thread's clock and
//   read as a light neighbour;
// - beside our sleeper on a full core the others may have had less than they
//   wanted (a neighbour that paces itself by the clock loses what our
//   wake-ups take), and a lower figure says nothing of them unless it reads
//   quiet: nobody was there.
// The others' use as a contention level should read it. Beside our sleeper
// the core's busy time also holds our own wake-ups (interrupt handling, idle
// exits), which no thread of ours is charged for: left in, they read as a
// neighbour that grows when our queue sleeps, and move the level with our
// own mode. sleeps_per_s: our queue's, lately.
double others_without_our_wakeups(double others, double sleeps_per_s, double wake_cpu_ns, const PolicyParams& p);

class LevelHold {
 public:
  explicit LevelHold(const PolicyParams& p = {}) : hold_ns_(p.level_hold_ns), arrival_ns_(p.arrival_ns) {}
  // recent: the others' use over the last few samples (-1: not known), and
  // how the queue waited over them (NeighbourView).
  int update(uint64_t now_ns, double contention, Waiting ours = Waiting::spinning, double recent = -1,
             Waiting recent_ours = Waiting::spinning);
  int level() const { return level_; }
  // The window is outside the level, for less than the hold so far: a tick
  // ending now may straddle a change, and is not measured.
  bool away() const { return away_; }

 private:
  uint64_t hold_ns_, arrival_ns_;
  int level_ = -1;
  uint64_t since_ = 0;  // when the level was entered
  bool away_ = false;
  bool departed_ = false;  // left heavy by the last samples; the window still holds the neighbour
  uint64_t away_since_ = 0;
};

class AdaptivePolicy {
 public:
  explicit AdaptivePolicy(PolicyParams p = {}) : p_(p) {}

  // The tick that ran in `ran` has ended at now_ns; returns the next tick's mode.
  Decision on_tick(uint64_t now_ns, Mode ran, const TickSample& s, const Signals& sig);

  // The mode the queue settles on between probes.
  Mode settled() const { return cur_; }
  const ModeCost& cost(Mode m, double contention) const { return cost_at(contention_level(contention), m); }
  const ModeCost& cost_at(int level, Mode m) const { return tab_[size_t(level)].cost[size_t(int(m))]; }
  // Predicted progress in mode m under sig's objective (0 if unknown).
  double score(Mode m, const Signals& sig) const;
  uint64_t switches() const { return switches_; }
  uint64_t probes() const { return probes_; }
  const PolicyParams& params() const { return p_; }

 private:
  struct Table {
    std::array<ModeCost, kModes> cost{};
    std::array<uint64_t, kModes> probe_every{}, last_probe{};
    // The rate of the mode in use when each mode's last probe was measured.
    std::array<double, kModes> probed_beside{};
  };
  // Whether the tick was measured into t.
  bool learn(uint64_t now, Mode m, const TickSample& s, const Signals& sig, Table& t);
  // Whether the tick hardly waited against m's usual share (a pause), which it updates.
  bool paused(Mode m, const TickSample& s);
  // A measurement's weight against c's, aging and extending the span c was measured over.
  double weight(uint64_t now, double wall, bool fresh, bool recheck, ModeCost& c) const;
  // What the others got of the core while c's mode ran, mixed in at weight w.
  static void learn_others(const Signals& sig, double w, ModeCost& c);
  void borrow(uint64_t now, int level);
  Mode best(const Signals& sig, std::array<double, kModes>& score) const;
  // A light demand's score of m: polling's CPU over m's, within the latency slack (else 0).
  double light_score(const Table& t, Mode m) const;
  void cheapest_of_rivals(const Table& t, std::array<double, kModes>& score) const;
  Mode next_probe(uint64_t now, const Signals& sig, const std::array<double, kModes>& score);
  bool alone_polls(const Signals& sig) const;
  // Nobody else wants the core and the queue is mostly not waiting.
  bool light_demand(const Signals& sig) const { return level(sig) == 0 && sig.wait_share < p_.light_wait_share; }
  // What the others want of the core, from what each mode measured at a level.
  double wanted(const Table& t) const;
  // Whether polling's score at this level is predicted rather than measured.
  bool predicts_poll(const Signals& sig) const;
  // Polling's rate alone, as far as measured; 0 if not.
  double poll_alone() const;

  static int level(const Signals& sig) { return sig.level >= 0 ? sig.level : contention_level(sig.contention); }
  Table& table(const Signals& sig) { return tab_[size_t(level(sig))]; }
  const Table& table(const Signals& sig) const { return tab_[size_t(level(sig))]; }

  PolicyParams p_;
  std::array<Table, kLevels> tab_{};
  Mode cur_ = Mode::poll;
  int level_ = -1;            // the last tick's contention level
  int recheck_ = -1;          // a mode to measure again before switching to it
  int rechecking_ = -1;       // the mode being measured again: its next measurement replaces the old
  uint64_t level_since_ = 0;  // when the level last changed
  // The share of each mode's last whole tick spent waiting (-1: none yet).
  std::array<double, kModes> wait_share_{-1, -1, -1};
  uint64_t switches_ = 0, probes_ = 0;
};

}  // namespace hio
