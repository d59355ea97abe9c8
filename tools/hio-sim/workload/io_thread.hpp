// SPDX-License-Identifier: MIT
// One of our I/O threads: it keeps `depth` reads in flight on a device (a
// closed loop, a rate, or a recorded trace's sizes and compute gaps) and
// waits for them by interrupt, by polling, by hybrid polling, or as the
// library's adaptive strategy decides, through the library's own Adaptive
// class reading the simulated machine (SimSignals). The wait itself follows
// the library's Waiter: a look at the ring first, then the mode's way.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "adaptive/adaptive.hpp"
#include "adaptive/governor.hpp"
#include "handle/poll_period.hpp"
#include "hybridio/hio.h"
#include "hybridio/hio_adaptive.h"
#include "model/device.hpp"
#include "model/interface.hpp"
#include "model/machine.hpp"
#include "model/sim_signals.hpp"
#include "workload/trace.hpp"

namespace hio::sim {

// reaper: a completion thread reaps the queue and delivers to the thread,
// which waits for it asleep (hybridio's --reaper=thread).
enum class Wait { interrupt, poll, hybrid, hybrid_min, sqpoll, reaper, adaptive };
const char* wait_name(Wait w);
bool parse_wait(const std::string& s, Wait* out);

struct IoSpec {
  Wait wait = Wait::poll;
  hio_objective objective = HIO_OBJECTIVE_SHARED;
  unsigned depth = 1;
  uint32_t bs = 4096;
  const Trace* trace = nullptr;  // sizes and compute gaps; null: bs and no gap
  size_t trace_start = 0;
  double rate_iops = 0;  // 0: as fast as it completes
  PolicyParams policy;   // adaptive's
  // The process's first adaptive queue measures a wake-up's cost before its
  // first read: kWakeSleeps short sleeps, each a wake-up on its core.
  bool measures_wake = false;
};

class SqThread;
class Reaper;

class IoThread final : public Behaviour, public IrqSink {
 public:
  IoThread(Machine& m, Device& dev, const Interface& io, const IoSpec& spec, SimSignals& sig, Governor& gov,
           Time bin_ns);
  Step next(Task& t, Time now) override;
  void irq_done(Time now, uint64_t arg) override;

  uint64_t completions() const { return done_; }
  double mean_latency_ns() const { return done_ ? lat_sum_ / double(done_) : 0; }
  uint64_t sleeps() const { return sleeps_; }
  // Completions per bin of bin_ns, from time 0.
  const std::vector<uint32_t>& bins() const { return bins_; }
  // Adaptive: when its settled mode changed, and to what.
  const std::vector<std::pair<Time, Mode>>& settled() const { return settled_; }
  // Adaptive: time the ticks ran in each mode.
  std::array<uint64_t, kModes> mode_ns() const;
  const Adaptive* adaptive() const { return adaptive_.get(); }
  uint64_t adaptive_waits() const { return adaptive_waits_; }
  // This program's own time inside the library's adaptive code (host ns).
  uint64_t adaptive_host_ns() const { return adaptive_host_ns_; }
  // Under sqpoll: the kernel thread that takes its submissions.
  void set_sq(SqThread* sq) { sq_ = sq; }
  // Under reaper: the completion thread that delivers its completions.
  void set_reaper(Reaper* r) { reaper_ = r; }
  // The completion thread's pass: hands over what the device has finished;
  // returns how many, and adds their latencies and sizes to the sums.
  unsigned deliver(Time now, double* lat_sum, double* bytes_sum);
  // Commands the completion thread has yet to deliver.
  unsigned undelivered() const;
  // The sq thread handed a command to the device at `at`.
  void issued(size_t slot, Time at);

 private:
  enum class Phase { submit, wait, asleep, hybrid_sleep, hybrid_woke, spun, reap };
  struct Slot {
    Time submit = 0, visible = 0, done = 0;  // done: on the ring (reaper's case)
    uint32_t len = 0;
    bool busy = false;
  };
  Step submit(Time now);
  Time issue(uint32_t len, Time at);
  Step wait(Task& t, Time now);
  Step reap(Task& t, Time now);
  Time head_visible() const;
  bool any_visible(Time now) const;
  uint64_t hybrid_sleep(Time now);
  void count(Time now, uint32_t n);

  Machine& m_;
  Device& dev_;
  Interface io_;
  IoSpec spec_;
  SimSignals& sig_;
  Governor& gov_;
  std::unique_ptr<Adaptive> adaptive_;
  Time bin_ns_;
  Phase phase_ = Phase::submit;
  std::vector<Slot> slots_;
  Task* task_ = nullptr;
  SqThread* sq_ = nullptr;
  Reaper* reaper_ = nullptr;
  unsigned inflight_ = 0;
  size_t next_rec_ = 0;
  bool gap_paid_ = false;  // the next record's compute gap is done
  int wake_sleeps_ = 0;    // of the wake-up cost's measurement, still to take
  Time next_due_ = 0;      // rate limit: the next submission's time
  Time sleep_until_ = 0;   // a hybrid wait's sleep
  // The current wait.
  Time wait_start_ = 0;
  bool waited_ = false, slept_ = false, blocked_ = false;
  Mode mode_ = Mode::poll;
  unsigned found_after_sleep_ = 0;
  // The static hybrid strategy's moving average, as the library's Waiter keeps it.
  double ewma_ns_ = 0, min_ns_ = 0;
  // Results.
  uint64_t done_ = 0, sleeps_ = 0, adaptive_waits_ = 0, adaptive_host_ns_ = 0;
  double lat_sum_ = 0;
  std::vector<uint32_t> bins_;
  std::vector<std::pair<Time, Mode>> settled_;
};

// IORING_SETUP_SQPOLL's kernel thread, on its queue's core (it inherits the
// thread's affinity): it spins on the submission ring and hands each command
// to the device when it runs; completions are waited for by interrupt.
class SqThread final : public Behaviour {
 public:
  SqThread(Machine& m, Time submit_ns) : m_(m), submit_ns_(submit_ns) {}
  void bind(Task& t) { task_ = &t; }
  // A command placed on the ring by `io`.
  void push(IoThread* io, size_t slot);
  Step next(Task& t, Time now) override;

 private:
  Machine& m_;
  Time submit_ns_;
  Task* task_ = nullptr;
  std::vector<std::pair<IoThread*, size_t>> ring_, taken_;
};

// The completion thread (hybridio's Reaper): passes over its queues,
// delivers what has completed, then sleeps the poll period — fixed, or
// chosen by the library's own PollPeriodTuner from each 20 ms window — or,
// with nothing in flight, waits for a submission.
class Reaper final : public Behaviour {
 public:
  // period_ns: fixed (0 spins), or HIO_POLL_PERIOD_AUTO for the tuner's.
  Reaper(Machine& m, SimSignals& sig, Governor& gov, const Interface& io, Time period_ns);
  void bind(Task& t) { task_ = &t; }
  void add(IoThread* q) { queues_.push_back(q); }
  // A submission: wakes the thread if it waits for one.
  void submitted();
  Step next(Task& t, Time now) override;
  double mean_period_ns() const { return sleeps_ ? double(slept_) / double(sleeps_) : 0; }
  Time period_ns() const { return period_; }

 private:
  Machine& m_;
  SimSignals& sig_;
  Governor& gov_;
  Interface io_;
  bool auto_;
  Time period_;
  Task* task_ = nullptr;
  std::vector<IoThread*> queues_;
  PollPeriodTuner tuner_;
  bool idle_ = false;
  Time sleep_until_ = 0;  // the period's sleep, once the pass's CPU is spent
  Time win_start_ = 0, slept_ = 0;
  uint64_t sleeps_ = 0;
  double win_n_ = 0, win_lat_ = 0, win_bytes_ = 0;
};

}  // namespace hio::sim
