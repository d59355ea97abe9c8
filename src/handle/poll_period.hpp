// SPDX-License-Identifier: MIT
// The completion thread's automatic poll period. It starts at a quarter of
// the observed latency and looks at the ladder's bottom (a spin); unless
// the bottom wins it steps down from the start while each step is clearly
// better. Then it climbs the ladder of periods while the completions
// delivered per window hold (a longer period costs less CPU), steps back
// down when they fall, and holds there for a while before trying again.
// Each step is judged by the median of a few windows: one window's rate
// moves by 5-10% on a shared machine.
// The ladder is capped at the observed latency (a period past it only adds
// latency); a new I/O size, or a new latency at the same step, restarts the
// search; beside other work (contention) it sleeps at least a fifth of the
// latency.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hio {

class PollPeriodTuner {
 public:
  static constexpr uint64_t kWindowNs = 20'000'000;  // one measurement
  static constexpr int kSamples = 3;                 // windows per judgement
  static constexpr double kKeep = 0.96;              // a step must keep this share of the best rate
  static constexpr int kHoldRounds = 16;             // after a step back: ~1 s before climbing again
  static constexpr double kContended = 0.3;          // contention above which spinning is off
  static constexpr double kFloorShare = 0.2;         // of the latency: the shortest sleep beside contention
  static constexpr double kStartShare = 0.25;        // of the latency: the first step judged
  static constexpr double kMoved = 2;                // a size or latency this many times over or under restarts

  struct Window {
    double completions = 0;
    double ns = 0;           // the window's length
    double mean_lat_ns = 0;  // submission to delivery
    double mean_bytes = 0;
    double contention = 0;  // the completion thread's, 0..1
  };

  // Feeds one window and returns the period for the next.
  uint64_t next(const Window& w);
  uint64_t period_ns() const;
  // The ladder, for tests and docs.
  static const uint64_t* ladder(size_t* n);

 private:
  void restart(const Window& w);
  size_t cap(const Window& w) const;
  size_t floor(const Window& w) const;
  // One judgement's rate in each phase of the search; lo and hi bound the steps.
  void first(double rate, size_t lo, size_t hi);
  void down(double rate, size_t lo, size_t hi);
  void below(double rate, size_t lo);
  void climb(double rate, size_t lo, size_t hi);
  void hold();
  enum class Phase { first, down, below, climb };
  Phase phase_ = Phase::first;
  size_t step_ = 0, start_ = 0;
  double best_ = 0;  // completions per second of the steps kept so far
  double rates_[kSamples] = {};
  int nrates_ = 0;
  int hold_ = 0;
  double ref_bytes_ = 0, ref_lat_ = 0;
  size_t ref_step_ = 0;  // the step ref_lat_ was read at
};

}  // namespace hio
