// SPDX-License-Identifier: MIT
// A handle's inbox: the raw completions of its commands, delivered by
// whichever thread reaped its queues (one of the handle's callers, another
// handle's thread on a shared queue, or the completion thread), and the
// count of its commands still in each of its queues.
#pragma once
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "hybridio/hio.h"

namespace hio {

class Inbox {
 public:
  static constexpr int kMaxQueues = 2;
  struct Item {
    hio_completion c;
    bool finished;  // made by the handle itself (no device command behind it)
  };

  void submitted(int qi) { queued_[qi].fetch_add(1, std::memory_order_relaxed); }
  // The queue refused the command after submitted(qi).
  void refused(int qi) { queued_[qi].fetch_sub(1, std::memory_order_relaxed); }
  // Called with the queue's lock held: the reaping thread hands over n
  // completions of queue qi.
  void deliver(int qi, const hio_completion* c, unsigned n) {
    std::lock_guard<std::mutex> g(mu_);
    for (unsigned i = 0; i < n; i++) items_.push_back(Item{c[i], false});
    queued_[qi].fetch_sub(n, std::memory_order_relaxed);
    if (sleepers_) cv_.notify_all();
  }
  // Commands of this handle in queue qi, submitted and not yet delivered.
  unsigned queued(int qi) const { return queued_[qi].load(std::memory_order_relaxed); }
  bool empty() {
    std::lock_guard<std::mutex> g(mu_);
    return items_.empty();
  }
  unsigned take(Item* out, unsigned max) {
    std::lock_guard<std::mutex> g(mu_);
    unsigned n = 0;
    while (n < max && !items_.empty()) {
      out[n++] = items_.front();
      items_.pop_front();
    }
    return n;
  }
  // Sleeps until something is delivered (the completion thread's case).
  void wait() {
    std::unique_lock<std::mutex> g(mu_);
    sleepers_++;
    cv_.wait(g, [&] { return !items_.empty(); });
    sleepers_--;
  }
  // A completion made without the device (a cache hit): straight in.
  void post(const hio_completion& c) {
    std::lock_guard<std::mutex> g(mu_);
    items_.push_back(Item{c, true});
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> items_;
  unsigned sleepers_ = 0;
  std::atomic<unsigned> queued_[kMaxQueues]{};
};

}  // namespace hio
