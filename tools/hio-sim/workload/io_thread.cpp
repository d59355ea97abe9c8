// SPDX-License-Identifier: MIT
#include "workload/io_thread.hpp"

#include <algorithm>
#include <chrono>

namespace hio::sim {
namespace {

constexpr uint64_t kTimerArg = UINT64_MAX;
// A rate-limited application sleeps as fio's rate_iops does: usleep, with
// the kernel's default timer slack; and, as fio's, its schedule is the
// n-th read at n periods from the first, so a sleep that ends late is made
// up by the reads after it.
constexpr Time kUsleepSlack = 50'000;

}  // namespace

const char* wait_name(Wait w) {
  switch (w) {
    case Wait::interrupt: return "interrupt";
    case Wait::poll: return "poll";
    case Wait::hybrid: return "hybrid";
    case Wait::hybrid_min: return "hybrid_min";
    case Wait::sqpoll: return "sqpoll";
    case Wait::reaper: return "reaper";
    case Wait::adaptive: return "adaptive";
  }
  return "?";
}

bool parse_wait(const std::string& s, Wait* out) {
  for (Wait w :
       {Wait::interrupt, Wait::poll, Wait::hybrid, Wait::hybrid_min, Wait::sqpoll, Wait::reaper, Wait::adaptive})
    if (s == wait_name(w)) {
      *out = w;
      return true;
    }
  return false;
}

IoThread::IoThread(Machine& m, Device& dev, const Interface& io, const IoSpec& spec, SimSignals& sig, Governor& gov,
                   Time bin_ns)
    : m_(m), dev_(dev), io_(io), spec_(spec), sig_(sig), gov_(gov), bin_ns_(bin_ns), slots_(std::max(1u, spec.depth)) {
  if (spec_.wait == Wait::adaptive) {
    adaptive_ = std::make_unique<Adaptive>(spec_.policy, &gov_);
    adaptive_->set_objective(spec_.objective);
    if (spec_.measures_wake) wake_sleeps_ = kWakeSleeps;
  }
  next_rec_ = spec_.trace ? spec_.trace_start % spec_.trace->records.size() : 0;
}

std::array<uint64_t, kModes> IoThread::mode_ns() const {
  std::array<uint64_t, kModes> out{};
  if (adaptive_) adaptive_->mode_ns(out.data());
  return out;
}

Time IoThread::head_visible() const {
  Time t = kNever;
  for (const Slot& s : slots_)
    if (s.busy) t = std::min(t, s.visible);
  return t;
}

bool IoThread::any_visible(Time now) const { return head_visible() <= now; }

void IoThread::count(Time now, uint32_t n) {
  size_t b = size_t(now / bin_ns_);
  if (bins_.size() <= b) bins_.resize(b + 1, 0);
  bins_[b] += n;
}

Step IoThread::next(Task& t, Time now) {
  task_ = &t;
  for (;;) {
    switch (phase_) {
      case Phase::submit: return submit(now);
      case Phase::wait: return wait(t, now);
      case Phase::asleep:
        if (blocked_) {
          // Woken: back out of the wait first.
          blocked_ = false;
          phase_ = Phase::reap;
          if (io_.wait.wake_ns) return Step::cpu(io_.wait.wake_ns);
          continue;
        }
        // About to block: a completion may already be there (the kernel
        // checks before it sleeps, so no wake-up is lost).
        if (!any_visible(now)) {
          blocked_ = true;
          return Step::block_now();
        }
        phase_ = Phase::reap;
        if (io_.wait.unblock_ns) return Step::cpu(io_.wait.unblock_ns);
        continue;
      case Phase::hybrid_sleep: phase_ = Phase::hybrid_woke; return Step::sleep_until(sleep_until_);
      case Phase::hybrid_woke:
        // The sleep is over: a look at the ring, then spin.
        if (adaptive_) adaptive_->hybrid_woke(now > sleep_until_ ? now - sleep_until_ : 0);
        found_after_sleep_ = 0;
        for (const Slot& s : slots_) found_after_sleep_ += s.busy && s.visible <= now;
        phase_ = Phase::spun;
        t.overhead += io_.peek_ns;
        return Step::spin_until(head_visible());
      case Phase::spun: phase_ = Phase::reap; continue;
      case Phase::reap: return reap(t, now);
    }
  }
}

Time IoThread::issue(uint32_t len, Time at) {
  auto slot =
      size_t(std::find_if(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.busy; }) - slots_.begin());
  inflight_++;
  if (sq_) {
    // The kernel thread hands it to the device when it next runs.
    slots_[slot] = Slot{.submit = at - io_.io_ns, .visible = kNever, .len = len, .busy = true};
    sq_->push(this, slot);
  } else {
    slots_[slot] = Slot{.submit = at - io_.io_ns, .len = len, .busy = true};
    issued(slot, at);
  }
  if (spec_.rate_iops > 0) next_due_ = (next_due_ ? next_due_ : at) + Time(1e9 / spec_.rate_iops);
  if (reaper_) reaper_->submitted();
  return io_.io_ns;
}

void IoThread::issued(size_t slot, Time at) {
  Slot& s = slots_[slot];
  Time done = dev_.deadline(false, s.len, at);
  s.done = done + io_.irq_ns;
  // Under a completion thread it is ours once delivered.
  s.visible = reaper_ ? kNever : s.done;
  if (io_.irq_ns) m_.irq(task_->core, done, this, slot, io_.irq_ns);
}

Step IoThread::submit(Time now) {
  if (wake_sleeps_ > 0) {
    wake_sleeps_--;
    return Step::sleep_until(now + kWakeAskNs);
  }
  if (spec_.rate_iops > 0 && now < next_due_) return Step::sleep_until(next_due_, kUsleepSlack);
  if (spec_.trace) {
    // One read at a time, each after the application's work that preceded it.
    const TraceRecord& rec = spec_.trace->records[next_rec_];
    if (rec.gap_ns && !gap_paid_) {
      gap_paid_ = true;
      return Step::cpu(rec.gap_ns);
    }
    gap_paid_ = false;
    next_rec_ = (next_rec_ + 1) % spec_.trace->records.size();
    Time cost = issue(rec.len, now + io_.io_ns);
    if (inflight_ >= spec_.depth || spec_.rate_iops > 0) phase_ = Phase::wait;
    return Step::cpu(cost);
  }
  Time cost = 0;
  while (inflight_ < spec_.depth) {
    cost += issue(spec_.bs, now + cost + io_.io_ns);
    if (spec_.rate_iops > 0) break;
  }
  phase_ = Phase::wait;
  return Step::cpu(cost);
}

uint64_t IoThread::hybrid_sleep(Time now) {
  if (spec_.wait == Wait::adaptive) {
    WaitHint h{};
    for (const Slot& s : slots_)
      if (s.busy && (h.submit_ns == 0 || s.submit < h.submit_ns)) h = WaitHint{s.submit, s.len};
    return adaptive_->hybrid_sleep_ns(h, now);
  }
  return uint64_t((spec_.wait == Wait::hybrid_min ? min_ns_ : ewma_ns_) * 0.5);
}

Step IoThread::wait(Task& t, Time now) {
  if (any_visible(now)) {
    // Enough completions already: no wait, and adaptive is not asked.
    waited_ = false;
    phase_ = Phase::reap;
    return reap(t, now);
  }
  waited_ = true;
  wait_start_ = now;
  slept_ = false;
  found_after_sleep_ = 0;
  Time cost = 0;
  sig_.enter(t);
  // As in the library, a thread that waits in a fixed mode, or for the
  // completion thread, is ours to the governor (adaptive's begin_wait says so).
  if (spec_.wait != Wait::adaptive) gov_.note_own_thread();
  switch (spec_.wait) {
    case Wait::interrupt:
    case Wait::sqpoll:
    case Wait::reaper: mode_ = Mode::interrupt; break;
    case Wait::poll: mode_ = Mode::poll; break;
    case Wait::hybrid:
    case Wait::hybrid_min: mode_ = Mode::hybrid; break;
    case Wait::adaptive: {
      auto h0 = std::chrono::steady_clock::now();
      mode_ = adaptive_->begin_wait(now);
      adaptive_host_ns_ += uint64_t(std::chrono::nanoseconds(std::chrono::steady_clock::now() - h0).count());
      adaptive_waits_++;
      Mode s = adaptive_->settled();
      if (settled_.empty() || settled_.back().second != s) settled_.emplace_back(now, s);
      break;
    }
  }
  cost += sig_.take_cost();
  if (mode_ == Mode::hybrid) {
    uint64_t s = hybrid_sleep(now);
    if (s > 0) {
      slept_ = true;
      sleeps_++;
      // The sleep starts once the way into it is done.
      sleep_until_ = now + cost + s;
      phase_ = Phase::hybrid_sleep;
      return Step::cpu(cost);
    }
    mode_ = Mode::poll;  // no sleep worth taking: spin
  }
  if (mode_ == Mode::poll) {
    phase_ = Phase::spun;
    t.overhead += cost;
    return Step::spin_until(head_visible());
  }
  slept_ = true;
  sleeps_++;
  // The wait's timer at the head's deadline, where no interrupt or completion thread wakes it.
  if (!io_.irq_ns && !sq_ && !reaper_) m_.irq(t.core, head_visible(), this, kTimerArg);
  phase_ = Phase::asleep;
  return Step::cpu(cost + io_.wait.block_ns);
}

Step IoThread::reap(Task& t, Time now) {
  if (waited_ && adaptive_) {
    sig_.enter(t);
    adaptive_->end_wait(now - wait_start_, now, slept_);
  }
  unsigned i = 0, n = 0;
  for (Slot& s : slots_) {
    if (!s.busy || s.visible > now) continue;
    Time lat = now - s.submit;
    // As the library's Waiter: a completion found when a hybrid sleep ended
    // only lowers the average (its lateness is the sleep's, not the device's).
    bool upper = i++ < found_after_sleep_;
    if (!upper || double(lat) < ewma_ns_)
      ewma_ns_ = ewma_ns_ == 0 ? double(lat) : ewma_ns_ + (double(lat) - ewma_ns_) / 16;
    min_ns_ = min_ns_ == 0 ? double(lat) : std::min(min_ns_, double(lat));
    if (adaptive_) adaptive_->completed(s.len, lat, upper);
    lat_sum_ += double(lat);
    s.busy = false;
    n++;
  }
  inflight_ -= n;
  done_ += n;
  count(now, n);
  waited_ = false;
  phase_ = Phase::submit;
  Time cost = sig_.take_cost();
  if (cost) return Step::cpu(cost);
  return submit(now);
}

void IoThread::irq_done(Time, uint64_t) {
  // A completion's interrupt, or the wait's timer: wake the thread if it
  // sleeps in a wait (a spinner only finds the completion on the ring).
  if (phase_ == Phase::asleep && task_) m_.wake(*task_);
}

unsigned IoThread::undelivered() const {
  unsigned n = 0;
  for (const Slot& s : slots_) n += s.busy && s.visible == kNever;
  return n;
}

unsigned IoThread::deliver(Time now, double* lat_sum, double* bytes_sum) {
  unsigned n = 0;
  for (Slot& s : slots_) {
    if (!s.busy || s.visible != kNever || s.done > now) continue;
    s.visible = now;
    *lat_sum += double(now - s.submit);
    *bytes_sum += s.len;
    n++;
  }
  if (n && phase_ == Phase::asleep && task_) m_.wake(*task_);
  return n;
}

Reaper::Reaper(Machine& m, SimSignals& sig, Governor& gov, const Interface& io, Time period_ns)
    : m_(m), sig_(sig), gov_(gov), io_(io), auto_(period_ns == HIO_POLL_PERIOD_AUTO), period_(auto_ ? 0 : period_ns) {}

void Reaper::submitted() {
  if (idle_ && task_) {
    idle_ = false;
    m_.wake(*task_);
  }
}

Step Reaper::next(Task& t, Time now) {
  if (sleep_until_) {
    Time until = sleep_until_;
    sleep_until_ = 0;
    sleeps_++;
    slept_ += period_;
    return Step::sleep_until(until);
  }
  if (auto_ && period_ == 0) period_ = tuner_.period_ns();
  unsigned got = 0;
  for (IoThread* q : queues_) got += q->deliver(now, &win_lat_, &win_bytes_);
  win_n_ += got;
  Time cost = io_.peek_ns * queues_.size() + io_.io_ns * got / 2;
  if (auto_ && now - win_start_ >= PollPeriodTuner::kWindowNs) {
    PollPeriodTuner::Window w;
    w.ns = double(now - win_start_);
    w.completions = win_n_;
    w.mean_lat_ns = win_n_ ? win_lat_ / win_n_ : 0;
    w.mean_bytes = win_n_ ? win_bytes_ / win_n_ : 0;
    sig_.enter(t);
    w.contention = gov_.neighbours(gov_.enter(now)).others;
    cost += sig_.take_cost();
    period_ = tuner_.next(w);
    win_start_ = now;
    win_n_ = win_lat_ = win_bytes_ = 0;
  }
  // All delivered: nothing to reap until the next submission.
  unsigned pending = 0;
  for (IoThread* q : queues_) pending += q->undelivered();
  if (!pending) {
    idle_ = true;
    return Step::block_now();
  }
  sleep_until_ = now + cost + period_;
  return Step::cpu(cost);
}

void SqThread::push(IoThread* io, size_t slot) {
  ring_.emplace_back(io, slot);
  m_.end_spin(*task_);
}

Step SqThread::next(Task&, Time now) {
  if (!taken_.empty()) {
    for (auto [io, slot] : taken_) io->issued(slot, now);
    taken_.clear();
  }
  if (!ring_.empty()) {
    taken_.swap(ring_);
    return Step::cpu(submit_ns_ * taken_.size());
  }
  return Step::spin_until(kNever);
}

}  // namespace hio::sim
