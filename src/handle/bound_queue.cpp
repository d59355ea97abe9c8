// SPDX-License-Identifier: MIT
#include "handle/bound_queue.hpp"

#include "util/clock.hpp"
#include "util/error.hpp"

namespace hio {

std::unique_lock<FairLock> BoundQueue::lock(LockWait& lw) {
  std::unique_lock<FairLock> g(mu_, std::try_to_lock);
  if (g.owns_lock()) return g;
  uint64_t t0 = now_ns();
  g.lock();
  lw.ns += now_ns() - t0;
  lw.count++;
  return g;
}

int BoundQueue::bind(const std::string& spec, const OpenOptions& opts, Inbox* inbox, int qi) {
  std::lock_guard<FairLock> g(mu_);
  int t = q_->open(spec, opts);
  if (t < 0) return t;
  if (size_t(t) >= routes_.size()) routes_.resize(size_t(t) + 1);
  routes_[size_t(t)] = Route{inbox, qi};
  return t;
}

void BoundQueue::unbind(int target) {
  std::lock_guard<FairLock> g(mu_);
  routes_[size_t(target)] = Route{};
  q_->close_target(target);
}

int BoundQueue::submit(const hio_io& io, LockWait& lw, unsigned flags) {
  auto g = lock(lw);
  int r = q_->submit(&io, 1, flags);
  // Sequentially consistent, as the completion thread's idle flag: either
  // it sees this command in flight or the submitter sees it idle and wakes it.
  if (r > 0) inflight_.fetch_add(1);
  return r;
}

int BoundQueue::blocking_io(const hio_io& io, hio_completion* out, LockWait& lw) {
  auto g = lock(lw);
  return inflight_.load(std::memory_order_relaxed) > 0 ? 0 : q_->blocking_io(io, out);
}

int BoundQueue::reap(Inbox* mine, bool wait, LockWait& lw, ReapTally* tally) {
  auto g = lock(lw);
  // Another thread may have delivered ours while we waited for the lock.
  unsigned min = wait && inflight_.load(std::memory_order_relaxed) > 0 && (!mine || mine->empty()) ? 1 : 0;
  int n = q_->reap(cqs_.data(), unsigned(cqs_.size()), min);
  if (n < 0) return n;
  // Runs of completions for the same handle go over in one delivery.
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && cqs_[size_t(j)].target == cqs_[size_t(i)].target) j++;
    const Route& r = routes_[size_t(cqs_[size_t(i)].target)];
    if (r.inbox) r.inbox->deliver(r.qi, &cqs_[size_t(i)], unsigned(j - i));
    i = j;
  }
  if (tally)
    for (int i = 0; i < n; i++) {
      tally->n++;
      tally->lat_ns += cqs_[size_t(i)].lat_ns;
      tally->bytes += cqs_[size_t(i)].len;
    }
  inflight_.fetch_sub(unsigned(n), std::memory_order_relaxed);
  return n;
}

}  // namespace hio
