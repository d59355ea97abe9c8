#include "handle/poll_period.hpp"

#include <algorithm>

namespace hio {
namespace {

// 0 spins; the rest are sleeps, in ns.
constexpr uint64_t kLadder[] = {0,       2'000,   5'000,   10'000,  15'000,  20'000,  30'000,  50'000,
                                70'000,  100'000, 150'000, 200'000, 300'000, 500'000, 700'000, 1'000'000};
constexpr size_t kSteps = sizeof kLadder / sizeof kLadder[0];

bool moved(double now, double ref) { return ref > 0 && (now > 2 * ref || now < ref / 2); }

}  // namespace

const uint64_t* PollPeriodTuner::ladder(size_t* n) {
  *n = kSteps;
  return kLadder;
}

uint64_t PollPeriodTuner::period_ns() const { return kLadder[step_]; }

// The longest period not past the latency: waiting longer than an I/O
// takes only delays it.
size_t PollPeriodTuner::cap(const Window& w) const {
  size_t s = 0;
  while (s + 1 < kSteps && double(kLadder[s + 1]) <= std::max(w.mean_lat_ns, 1.0)) s++;
  return s;
}

// Beside other work the thread sleeps at least a fifth of the latency
// (and at least the first sleep step): a spinner would take their CPU.
size_t PollPeriodTuner::floor(const Window& w) const {
  if (w.contention < kContended) return 0;
  size_t s = 1;
  while (s + 1 < kSteps && double(kLadder[s + 1]) <= w.mean_lat_ns / 5) s++;
  return std::min(s, cap(w) == 0 ? size_t(1) : cap(w));
}

void PollPeriodTuner::restart(const Window& w) {
  step_ = floor(w);
  best_ = 0;
  nrates_ = 0;
  hold_ = 0;
  ref_bytes_ = w.mean_bytes;
  ref_lat_ = w.mean_lat_ns;
}

uint64_t PollPeriodTuner::next(const Window& in) {
  if (in.completions <= 0 || in.ns <= 0) return period_ns();  // nothing to learn from
  // The latency without the delay this window's own period added to it.
  Window w = in;
  w.mean_lat_ns = std::max(in.mean_lat_ns - double(period_ns()) / 2, 1.0);
  if (ref_bytes_ == 0 || moved(w.mean_bytes, ref_bytes_) || moved(w.mean_lat_ns, ref_lat_)) {
    restart(w);
    return period_ns();
  }
  size_t lo = floor(w), hi = std::max(lo, cap(w));
  if (step_ < lo || step_ > hi) {
    step_ = std::clamp(step_, lo, hi);
    nrates_ = 0;
    best_ = 0;
    return period_ns();
  }
  rates_[nrates_++] = w.completions * 1e9 / w.ns;
  if (nrates_ < kSamples) return period_ns();
  nrates_ = 0;
  std::sort(rates_, rates_ + kSamples);
  double rate = rates_[kSamples / 2];
  if (hold_ > 0) {
    // The held step's rate, averaged over the hold, is what the next step
    // up must keep; when the hold ends, try it.
    best_ += (rate - best_) / double(kHoldRounds - hold_ + 1);
    if (--hold_ == 0 && step_ < hi) step_++;
    return period_ns();
  }
  if (best_ > 0 && rate < kKeep * best_ && step_ > lo) {
    // This step loses completions: back to the one below, and stay.
    step_--;
    best_ = 0;
    hold_ = kHoldRounds;  // the first round of the hold sets best_
    return period_ns();
  }
  best_ = std::max(best_, rate);
  if (step_ < hi) step_++;
  return period_ns();
}

}  // namespace hio
