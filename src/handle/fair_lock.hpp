// SPDX-License-Identifier: MIT
// A first-come, first-served (ticket) lock. A shared queue's threads take
// turns in the order they asked: with a plain mutex the thread that just
// released it takes it straight back, and one job of several sharing the
// queue gets most of its I/O. A waiter spins briefly (the holder's turn is
// usually a submission of a microsecond or two), then sleeps on a futex.
#pragma once
#include <atomic>
#include <cstdint>

namespace hio {

class FairLock {
 public:
  static constexpr int kSpins = 2000;

  // Sequentially consistent throughout: unlock() stores serving_ and then
  // reads next_ to see whether anyone waits, while lock() raises next_ and
  // then reads serving_. With release/acquire the two loads may both see
  // the old values (x86 lets a load pass an earlier store): the waiter
  // sleeps and is never woken.
  void lock() {
    uint32_t me = next_.fetch_add(1);
    for (int i = 0; i < kSpins; i++)
      if (serving_.load() == me) return;
    for (uint32_t s; (s = serving_.load()) != me;) serving_.wait(s);
  }
  bool try_lock() {
    uint32_t s = serving_.load();
    uint32_t expect = s;
    return next_.compare_exchange_strong(expect, s + 1);
  }
  void unlock() {
    uint32_t s = serving_.load(std::memory_order_relaxed) + 1;
    serving_.store(s);
    if (next_.load() != s) serving_.notify_all();
  }
  // Threads waiting for their turn.
  uint32_t waiting() const {
    uint32_t n = next_.load(std::memory_order_relaxed), s = serving_.load(std::memory_order_relaxed);
    return n - s - (n != s ? 1 : 0);
  }

 private:
  std::atomic<uint32_t> next_{0}, serving_{0};
};

}  // namespace hio
