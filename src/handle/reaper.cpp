// SPDX-License-Identifier: MIT
#include "handle/reaper.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>

#include "adaptive/governor.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/sleep.hpp"

namespace hio {

std::unique_ptr<Reaper> Reaper::create(const ReaperOptions& o, Governor& gov) {
  if (o.poll_period_ns != HIO_POLL_PERIOD_AUTO && o.poll_period_ns > 1'000'000'000ull) {
    failf(EINVAL, "poll period of %llu ns exceeds one second", (unsigned long long)o.poll_period_ns);
    return nullptr;
  }
  if (o.cpu < -1 || o.cpu >= CPU_SETSIZE) {
    failf(EINVAL, "completion thread CPU %d is not a CPU number", o.cpu);
    return nullptr;
  }
  std::unique_ptr<Reaper> r(new Reaper(o, gov));
  if (o.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(o.cpu, &set);
    if (pthread_setaffinity_np(r->tid_, sizeof set, &set) != 0) {
      failf(EINVAL, "cannot pin the completion thread to CPU %d: it is not available", o.cpu);
      return nullptr;
    }
  }
  return r;
}

Reaper::Reaper(const ReaperOptions& o, Governor& gov) : auto_(o.poll_period_ns == HIO_POLL_PERIOD_AUTO), gov_(gov) {
  period_ns_ = auto_ ? 0 : o.poll_period_ns;
  start_ns_ = now_ns();
  thread_ = std::thread([this] { run(); });
  tid_ = thread_.native_handle();
}

Reaper::~Reaper() {
  {
    std::lock_guard<std::mutex> g(mu_);
    stop_ = true;
    cv_.notify_one();
  }
  thread_.join();
}

void Reaper::add(const std::shared_ptr<BoundQueue>& q) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = std::find(queues_.begin(), queues_.end(), q);
  if (it != queues_.end()) {
    refs_[size_t(it - queues_.begin())]++;
    return;
  }
  // High-priority queues go before the others: each pass reaps them first.
  size_t at =
      q->high_priority()
          ? size_t(std::count_if(queues_.begin(), queues_.end(), [](const auto& x) { return x->high_priority(); }))
          : queues_.size();
  queues_.insert(queues_.begin() + long(at), q);
  refs_.insert(refs_.begin() + long(at), 1);
  version_++;
}

void Reaper::remove(const std::shared_ptr<BoundQueue>& q) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = std::find(queues_.begin(), queues_.end(), q);
  if (it == queues_.end()) return;
  size_t i = size_t(it - queues_.begin());
  if (--refs_[i] > 0) return;
  queues_.erase(it);
  refs_.erase(refs_.begin() + long(i));
  version_++;
}

void Reaper::idle_wait() {
  std::unique_lock<std::mutex> g(mu_);
  idle_.store(true);  // sequentially consistent: see BoundQueue::submit
  idle_waits_++;
  // A submission between the last pass and idle_ = true has already
  // raised the queue's in-flight count: look once more before sleeping.
  bool busy = std::any_of(queues_.begin(), queues_.end(), [](const auto& q) { return q->inflight() > 0; });
  if (!busy) cv_.wait(g, [&] { return stop_ || work_; });
  work_ = false;
  idle_.store(false);
}

void Reaper::run() {
  std::vector<std::shared_ptr<BoundQueue>> snap;
  uint64_t seen = UINT64_MAX;
  PollPeriodTuner tuner;
  PollPeriodTuner::Window w;
  ReapTally win;  // this window's deliveries
  uint64_t win_start = now_ns();
  for (;;) {
    {
      std::lock_guard<std::mutex> g(mu_);
      if (stop_) return;
      if (version_ != seen) {
        snap = queues_;
        seen = version_;
      }
    }
    bool busy = false;
    ReapTally tally;
    for (auto& q : snap) {
      LockWait lw;
      q->reap(nullptr, false, lw, &tally);
      busy |= q->inflight() > 0;
    }
    uint64_t got = tally.n;
    rounds_.fetch_add(1, std::memory_order_relaxed);
    completions_.fetch_add(got, std::memory_order_relaxed);
    if (auto_) {
      win.n += tally.n;
      win.lat_ns += tally.lat_ns;
      win.bytes += tally.bytes;
      uint64_t now = now_ns();
      if (now - win_start >= PollPeriodTuner::kWindowNs) {
        w.ns = double(now - win_start);
        w.completions = double(win.n);
        w.mean_lat_ns = win.n ? double(win.lat_ns) / double(win.n) : 0;
        w.mean_bytes = win.n ? double(win.bytes) / double(win.n) : 0;
        w.contention = gov_.neighbours(gov_.enter(now)).others;
        contention_.store(w.contention, std::memory_order_relaxed);
        period_ns_.store(tuner.next(w), std::memory_order_relaxed);
        win = ReapTally{};
        win_start = now;
      }
    }
    if (!busy) {
      uint64_t t0 = now_ns();
      idle_wait();
      // A short wait (the submitter refilling) is part of the window; after
      // a long one the window says nothing about the period: restart it.
      if (now_ns() - t0 > PollPeriodTuner::kWindowNs) {
        win_start = now_ns();
        win = ReapTally{};
      }
      continue;
    }
    uint64_t p = period_ns_.load(std::memory_order_relaxed);
    if (p > 0) {
      uint64_t t0 = now_ns();
      sleep_ns(p);
      slept_ns_.fetch_add(now_ns() - t0, std::memory_order_relaxed);
      sleeps_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

void Reaper::stats(hio_reaper_stats* o) {
  *o = hio_reaper_stats{};
  o->rounds = rounds_.load();
  o->sleeps = sleeps_.load();
  o->idle_waits = idle_waits_.load();
  o->completions = completions_.load();
  o->wall_ns = now_ns() - start_ns_;
  o->cpu_ns = thread_cpu_ns(tid_);
  o->period_ns_mean = o->sleeps ? double(slept_ns_.load()) / double(o->sleeps) : 0;
  o->period_ns = period_ns_.load();
  o->contention = contention_.load();
}

}  // namespace hio
