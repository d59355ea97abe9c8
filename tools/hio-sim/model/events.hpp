// SPDX-License-Identifier: MIT
// Virtual time and the event queue: events fire in time order, ties in the
// order they were scheduled, so a run is a function of its inputs alone.
#pragma once
#include <cstdint>
#include <queue>
#include <vector>

namespace hio::sim {

using Time = uint64_t;  // ns of virtual time
constexpr Time kNever = UINT64_MAX;

// Whatever an event is for. gen lets the owner cancel an event cheaply: an
// event whose generation is older than the owner's current one is stale.
class Handler {
 public:
  virtual ~Handler() = default;
  virtual void fire(Time now, int kind, uint64_t gen) = 0;
};

class EventQueue {
 public:
  void at(Time t, Handler* h, int kind, uint64_t gen = 0) { q_.push(Event{t, seq_++, h, kind, gen}); }
  bool empty() const { return q_.empty(); }
  Time next_time() const { return q_.empty() ? kNever : q_.top().t; }
  // Fires the earliest event; returns its time.
  Time fire_next() {
    Event e = q_.top();
    q_.pop();
    e.h->fire(e.t, e.kind, e.gen);
    return e.t;
  }
  uint64_t scheduled() const { return seq_; }

 private:
  struct Event {
    Time t;
    uint64_t seq;
    Handler* h;
    int kind;
    uint64_t gen;
    bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<>> q_;
  uint64_t seq_ = 0;
};

}  // namespace hio::sim
