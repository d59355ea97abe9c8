// SPDX-License-Identifier: MIT
// The governor: one per process. It keeps the picture of the other tenants
// on every core our threads run on (each core's busy time less what our own
// threads ran there, over the last few milliseconds) and hands out the one
// spin lease per core. It has no thread of its own: whichever of our threads
// waits next takes the sample that is due.
#pragma once
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "adaptive/core_load.hpp"
#include "adaptive/signal_source.hpp"

namespace hio {

// One of our threads, as the governor knows it. Slots are reused once their
// thread has ended.
struct GovernorMember {
  std::atomic<pid_t> tid{0};
  std::atomic<int> cpu{-1};
  std::atomic<uint64_t> run_ns{0};  // CPU time at its last accounting
  std::atomic<uint64_t> waited{0};  // when it last began an adaptive wait
  std::atomic<uint64_t> ended{0};   // when that wait ended (0: it has not yet)
};

// One core between two samples.
struct CoreInterval {
  double dt_ns = 0;
  double busy_ns = 0;         // not idle
  double own_ns = 0;          // run time of our own threads there
  bool own_spinning = false;  // one of our queues held the spin lease throughout
};

// What the other tenants did with a core over the window.
struct NeighbourView {
  double others = 0;     // cores they used, 0..1 (our threads excluded)
  double demand = -1;    // what they wanted: their use beside our sleepers (-1: not known)
  double idle = 0;       // share of the window the core was idle
  double window_ns = 0;  // how much time the figures cover
  // Their use over the last kRecentNs (-1: not covered yet), the core's idle
  // share then, and whether all of it was beside our sleepers: a CPU-bound
  // neighbour takes all the idle time a sleeper leaves it, so there this
  // reads its departure before the window does.
  double recent = -1, recent_idle = 0;
  bool recent_sleeping = false;
  int ours = 0;  // our threads waiting adaptively there now or within the last lease
};

// A core's recent intervals. Pure: tests feed it synthetic intervals.
class CoreWindow {
 public:
  static constexpr double kWindowNs = 8e6;  // a few scheduler slices: a steady share beside a CPU-bound task
  static constexpr double kRecentNs = 3e6;  // a few samples
  void add(const CoreInterval& in);
  NeighbourView view() const;

 private:
  static constexpr int kSlots = 64;
  CoreInterval ring_[kSlots]{};
  int next_ = 0, count_ = 0;
};

class Governor {
 public:
  static constexpr uint64_t kSampleNs = 1'000'000;  // at most one sample per this
  static constexpr uint64_t kCostEvery = 16;        // samples per reading of their cost
  static constexpr uint64_t kLeaseNs = 10'000'000;  // an unrenewed spin lease lapses after this
  // An unrenewed lead lapses after this: longer than our pollers' turns on a
  // core they share, so that the lead does not pass at each turn.
  static constexpr uint64_t kLeadNs = 100'000'000;

  // The process's governor, over the kernel's signals.
  static Governor& get();
  // A governor over `ncpu` CPUs that sees them through `src`; with sample
  // false it reads no core and is fed by hand (tests).
  Governor(int ncpu, SignalSource& src, bool sample = true);
  ~Governor();
  SignalSource& signals() const { return src_; }

  // Called by each of our threads as it starts to wait: registers it as ours
  // (once), records the core it is on, and takes a sample if one is due.
  // Returns that core.
  int enter(uint64_t now_ns);
  // Called by our threads as they wait in a fixed mode (interrupt, poll,
  // hybrid): once an adaptive wait has entered, registers the thread as ours
  // (once) and records its core, so that its run time there is never taken
  // for a neighbour's, without the cost of a sample. A database's flush and
  // compaction threads are ours.
  void note_own_thread();
  // The calling thread's adaptive wait has ended (enter() began it).
  void left(uint64_t now_ns);
  // Whether thread tid is registered as ours (tests, diagnostics).
  bool is_own(pid_t tid) const;
  // The other tenants on `cpu`, as last sampled.
  NeighbourView neighbours(int cpu) const;
  // How many of our threads wait on `cpu`: NeighbourView::ours alone.
  int ours(int cpu) const;

  // At most one of our queues spins on a core. True if `owner` holds (or
  // now takes) the lease of `cpu`; it is renewed on every call.
  bool claim_spin(int cpu, const void* owner, uint64_t now_ns);
  void release_spin(const void* owner);
  // Whether someone of ours holds a live lease on cpu.
  bool spinning(int cpu, uint64_t now_ns) const;

  // One decision per core: the first of our adaptive queues to wait on a
  // core decides how all of them there wait, and the others take its mode,
  // so that our own queues neither probe one another nor each poll while
  // the others wait. True if `who` leads `cpu` (taken, or renewed); a lead
  // not renewed for kLeadNs lapses.
  bool lead(int cpu, const void* who, uint64_t now_ns);
  void release_lead(const void* who);
  // The leader's mode for the core's next waits (an int of Mode; 0 before any).
  int core_mode(int cpu) const;
  void set_core_mode(int cpu, int mode);
  // Whether the leader last read light demand there.
  bool core_light(int cpu) const;
  void set_core_light(int cpu, bool light);
  // Our adaptive queues' completions on each core, weighed by size: what
  // the lead measures its decision by; and the others' run time there as
  // sampled, summed over every interval, so that a tick reads its own share.
  struct Count {
    uint64_t done = 0;
    double work = 0;
    double others_ns = 0, span_ns = 0;  // the others' run time, and the time the samples covered
  };
  void count(int cpu, double weight);
  Count counted(int cpu) const;

  // Feeds one core's interval directly (tests; and the sampler).
  void feed(int cpu, const CoreInterval& in);
  // Sets how many of our threads wait adaptively on cpu (tests; and the sampler).
  void set_ours(int cpu, int ours);

  CoreSource source() const { return sample_ ? src_.source() : CoreSource::none; }
  const char* fallback_reason() const { return sample_ ? src_.fallback_reason() : ""; }
  uint64_t samples() const { return samples_.load(std::memory_order_relaxed); }
  uint64_t cost_ns() const { return cost_ns_.load(std::memory_order_relaxed); }

 private:
  using Member = GovernorMember;
  // A token one of our queues holds on a core, renewed at each call and
  // lapsing `ttl` after the last.
  struct Lease {
    std::atomic<const void*> owner{nullptr};
    std::atomic<uint64_t> until{0};
  };
  // A core's picture, and the state of its sampler (under `sampling`).
  struct Core {
    std::mutex sampling;
    CoreWindow window;
    uint64_t at = 0, idle_total = 0;
    bool have = false;
    double own_ahead = 0;  // our run time read past an interval's busy time: the next one's

    std::atomic<uint64_t> last_sample{0};
    std::atomic<double> others{0}, demand{-1}, idle{0}, window_ns{0}, recent{-1}, recent_idle{0};
    std::atomic<bool> recent_sleeping{false};
    std::atomic<int> ours{0};
    Lease spin;  // the one spinner of ours
    std::atomic<uint64_t> spin_since{0};
    Lease lead;  // the one queue of ours that decides
    std::atomic<int> mode{0};
    std::atomic<bool> light{false};
    std::atomic<uint64_t> done{0}, work_milli{0};
    std::atomic<double> others_sum{0}, span_sum{0};  // over every interval fed (one sampler at a time)
  };
  static constexpr int kMaxMembers = 4096;
  Member* member();
  Member* join();
  void leave(Member* m);
  void sample(int cpu, uint64_t now);
  // sample's steps. Our threads on cpu: their run time since the last
  // sample (the caller's is t0), and in *ours how many wait there.
  double charge_members(int cpu, uint64_t now, uint64_t t0, int* ours);
  enum class Took { refused, renewed, taken };
  Took take(Lease Core::*which, int cpu, const void* who, uint64_t now, uint64_t ttl);
  void drop(Lease Core::*which, const void* who);

  int ncpu_;
  SignalSource& src_;
  bool sample_;
  std::unique_ptr<Core[]> cores_;
  std::mutex join_mu_;
  std::unique_ptr<Member[]> members_;
  std::atomic<int> nmembers_{0};
  std::atomic<uint64_t> samples_{0}, cost_ns_{0};
  std::atomic<bool> sampling_{false};  // an adaptive wait has entered: samples are taken
  friend struct Membership;
};

}  // namespace hio
