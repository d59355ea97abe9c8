// SPDX-License-Identifier: MIT
// A queue with handles bound to it: one lock serialises the queue for all
// the threads of all its handles (the cost a shared queue exists to show,
// measured as lock wait), and each completion is delivered to the inbox of
// the handle whose target it is for.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "handle/fair_lock.hpp"
#include "handle/inbox.hpp"
#include "queue/queue.hpp"

namespace hio {

// Time a caller spent waiting for a queue's lock.
struct LockWait {
  uint64_t ns = 0, count = 0;
};

// What a reap delivered: count, summed latency and bytes.
struct ReapTally {
  uint64_t n = 0, lat_ns = 0, bytes = 0;
};

class BoundQueue {
 public:
  explicit BoundQueue(std::shared_ptr<Queue> q) : q_(std::move(q)), cqs_(q_->depth()) {}

  // Opens spec on the queue for a handle; its completions go to inbox as
  // queue index qi. Returns the target id or -errno.
  int bind(const std::string& spec, const OpenOptions& opts, Inbox* inbox, int qi);
  // The handle's commands on this queue have all been delivered: closes
  // the target, whose id a later bind may reuse.
  void unbind(int target);

  // flags: HIO_SUBMIT_DEFER leaves it for the next reap's system call.
  int submit(const hio_io& io, LockWait& lw, unsigned flags = 0);
  // Queue::blocking_io under the lock.
  int blocking_io(const hio_io& io, hio_completion* out, LockWait& lw);
  // Reaps and delivers what has completed. With wait, and nothing yet in
  // `mine` (the caller's inbox), waits under the queue's strategy for at
  // least one completion first. Returns the number delivered or -errno.
  int reap(Inbox* mine, bool wait, LockWait& lw, ReapTally* tally = nullptr);
  // Runs f with the queue under the lock (statistics, strategy).
  template <class F>
  auto locked(F&& f) {
    std::lock_guard<FairLock> g(mu_);
    return f(*q_);
  }
  // Commands submitted and not yet delivered, over all its handles.
  unsigned inflight() const { return inflight_.load(); }

  void set_priority(bool high) { high_ = high; }
  bool high_priority() const { return high_; }

 private:
  std::unique_lock<FairLock> lock(LockWait& lw);
  struct Route {
    Inbox* inbox = nullptr;
    int qi = 0;
  };
  FairLock mu_;
  std::shared_ptr<Queue> q_;
  std::vector<Route> routes_;  // by target id
  std::vector<hio_completion> cqs_;
  std::atomic<unsigned> inflight_{0};
  bool high_ = false;
};

}  // namespace hio
