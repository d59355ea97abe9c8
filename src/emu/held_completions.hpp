// SPDX-License-Identifier: MIT
// Completions held until their deadlines, as an emulated device finishes
// them: a poller sees one by comparing the clock with the earliest deadline;
// a waiter sleeps in the kernel on an absolute io_uring timeout at it, so the
// timer interrupt wakes it as a device interrupt would, and no thread of ours
// burns CPU to deliver them.
#pragma once
#include <liburing.h>

#include <cstdint>
#include <memory>
#include <queue>
#include <vector>

#include "backend/backend.hpp"

namespace hio {

class HeldCompletions {
 public:
  // nullptr with the message set if the timer ring cannot be made; `who`
  // names the owner in messages.
  static std::unique_ptr<HeldCompletions> create(const char* who);
  ~HeldCompletions();
  HeldCompletions(const HeldCompletions&) = delete;
  HeldCompletions& operator=(const HeldCompletions&) = delete;

  void hold(uint64_t deadline_ns, const Cqe& c) { heap_.push(Held{deadline_ns, c}); }
  // The completions whose deadline has passed, without blocking.
  unsigned take_due(Cqe* out, unsigned max);
  // Sleeps until at least one is due and takes them; 0 if none is held.
  int wait(Cqe* out, unsigned max);

 private:
  explicit HeldCompletions(const char* who) : who_(who) {}
  int sleep_until(uint64_t deadline_ns);
  struct Held {
    uint64_t deadline_ns;
    Cqe cqe;
    bool operator>(const Held& o) const { return deadline_ns > o.deadline_ns; }
  };
  const char* who_;
  std::priority_queue<Held, std::vector<Held>, std::greater<Held>> heap_;
  io_uring timer_{};
};

}  // namespace hio
