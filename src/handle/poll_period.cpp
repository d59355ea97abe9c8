// SPDX-License-Identifier: MIT
#include "handle/poll_period.hpp"

#include <algorithm>

namespace hio {
namespace {

// Sleeps, in ns; 0 spins. A spinning completion thread takes the queue's
// lock on every pass: on a fast device it delivers the most, on a slower
// one it starves the submitters (docs/handles.md).
constexpr uint64_t kLadder[] = {0,      2'000,   5'000,   10'000,  15'000,  20'000,  30'000,  50'000,
                                70'000, 100'000, 150'000, 200'000, 300'000, 500'000, 700'000, 1'000'000};
constexpr size_t kSteps = sizeof kLadder / sizeof kLadder[0];

bool moved(double now, double ref) {
  return ref > 0 && (now > PollPeriodTuner::kMoved * ref || now < ref / PollPeriodTuner::kMoved);
}

// The longest step not past ns (the first if none is).
size_t step_at(double ns) {
  size_t s = 0;
  while (s + 1 < kSteps && double(kLadder[s + 1]) <= ns) s++;
  return s;
}

}  // namespace

const uint64_t* PollPeriodTuner::ladder(size_t* n) {
  *n = kSteps;
  return kLadder;
}

uint64_t PollPeriodTuner::period_ns() const { return kLadder[step_]; }

// The longest period not past the latency: waiting longer than an I/O
// takes only delays it.
size_t PollPeriodTuner::cap(const Window& w) const { return step_at(w.mean_lat_ns); }

// Beside other work the thread sleeps at least a fifth of the latency: the
// CPU it gives up is the neighbour's.
size_t PollPeriodTuner::floor(const Window& w) const {
  if (w.contention < kContended) return 0;
  return std::min(step_at(w.mean_lat_ns * kFloorShare), cap(w));
}

// Starts at a quarter of the latency, then looks at the bottom of the
// ladder (and, unless it wins, the steps just below the start) before
// climbing.
void PollPeriodTuner::restart(const Window& w) {
  step_ = std::clamp(step_at(w.mean_lat_ns * kStartShare), floor(w), std::max(floor(w), cap(w)));
  phase_ = Phase::first;
  best_ = 0;
  nrates_ = 0;
  hold_ = 0;
  ref_bytes_ = w.mean_bytes;
  ref_lat_ = w.mean_lat_ns;
  ref_step_ = step_;
}

uint64_t PollPeriodTuner::next(const Window& in) {
  if (in.completions <= 0 || in.ns <= 0) return period_ns();  // nothing to learn from
  // The latency without the delay this window's own period added to it.
  Window w = in;
  w.mean_lat_ns = std::max(in.mean_lat_ns - double(period_ns()) / 2, 1.0);
  // A period also moves the latency past that delay: with many commands in
  // flight the latency follows the rate (Little's law), and a spin can
  // double the rate. A change of latency says the device changed only
  // against a window at the same step.
  bool lat_moved = step_ == ref_step_ && moved(w.mean_lat_ns, ref_lat_);
  if (ref_bytes_ == 0 || moved(w.mean_bytes, ref_bytes_) || lat_moved) {
    restart(w);
    return period_ns();
  }
  size_t lo = floor(w), hi = std::max(lo, cap(w));
  if (step_ < lo || step_ > hi) {
    step_ = std::clamp(step_, lo, hi);
    nrates_ = 0;
    best_ = 0;
    phase_ = Phase::climb;
    return period_ns();
  }
  rates_[nrates_++] = w.completions * 1e9 / w.ns;
  if (nrates_ < kSamples) return period_ns();
  nrates_ = 0;
  std::sort(rates_, rates_ + kSamples);
  double rate = rates_[kSamples / 2];
  ref_lat_ = w.mean_lat_ns;
  ref_step_ = step_;
  switch (phase_) {
    case Phase::first: first(rate, lo, hi); break;
    case Phase::down: down(rate, lo, hi); break;
    case Phase::below: below(rate, lo); break;
    case Phase::climb: climb(rate, lo, hi); break;
  }
  return period_ns();
}

void PollPeriodTuner::first(double rate, size_t lo, size_t hi) {
  best_ = rate;
  start_ = step_;
  if (step_ > lo) {
    step_ = lo;
    phase_ = Phase::down;
  } else {
    phase_ = Phase::climb;
    if (step_ < hi) step_++;
  }
}

// The rate need not fall steadily between the two (the lock a shorter
// period takes more often): the bottom is compared with the start, not
// approached step by step. Clearly better, the climb starts from it; else
// the steps below the start are tried.
void PollPeriodTuner::down(double rate, size_t lo, size_t hi) {
  if (rate > best_ / kKeep) {
    phase_ = Phase::climb;
    best_ = rate;
    if (step_ < hi) step_++;
  } else if (start_ > lo + 1) {
    phase_ = Phase::below;
    step_ = start_ - 1;
  } else {
    phase_ = Phase::climb;
    step_ = start_;
  }
}

// Between the bottom and the start the rate can peak: each step down from
// the start that is clearly better is kept, and the first that is not
// sends the search back up to the last one kept. From the start it climbs
// as before; from a step below, which the step above it lost to, it holds
// first.
void PollPeriodTuner::below(double rate, size_t lo) {
  if (rate > best_ / kKeep) {
    best_ = rate;
    if (step_ > lo + 1) {
      step_--;
      return;
    }
  } else if (++step_ == start_) {
    phase_ = Phase::climb;
    return;
  }
  phase_ = Phase::climb;
  hold();
}

// Stays at the step for kHoldRounds judgements; the first sets best_.
void PollPeriodTuner::hold() {
  best_ = 0;
  hold_ = kHoldRounds;
}

void PollPeriodTuner::climb(double rate, size_t lo, size_t hi) {
  if (hold_ > 0) {
    // The held step's rate, averaged over the hold, is what the next step
    // up must keep; when the hold ends, try it.
    best_ += (rate - best_) / double(kHoldRounds - hold_ + 1);
    if (--hold_ == 0 && step_ < hi) step_++;
    return;
  }
  if (best_ > 0 && rate < kKeep * best_ && step_ > lo) {
    // This step loses completions: back to the one below, and stay.
    step_--;
    hold();
    return;
  }
  best_ = std::max(best_, rate);
  if (step_ < hi) step_++;
}

}  // namespace hio
