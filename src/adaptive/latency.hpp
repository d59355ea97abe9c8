// SPDX-License-Identifier: MIT
// The latency estimator: moving average and spread of the device's
// completion latency per I/O size class, and the measured cost of one
// sleep and wake-up on this machine. The adaptive strategy sizes its hybrid
// sleep from the mean and the wake-up's lateness.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace hio {

class LatencyEstimator {
 public:
  static constexpr int kClasses = 12;  // 512 B, 1 KiB, ... 1 MiB and larger

  static int size_class(uint32_t bytes);
  // A completion's latency, as seen by a thread that was polling for it.
  void add(uint32_t bytes, uint64_t ns);
  // 0 while the class has no sample.
  double mean_ns(uint32_t bytes) const { return cls_[size_t(size_class(bytes))].mean; }
  double stddev_ns(uint32_t bytes) const;
  uint64_t samples(uint32_t bytes) const { return cls_[size_t(size_class(bytes))].n; }
  // What a completion of this size costs the device against one of the most
  // frequent size: the ratio of their means, once both have kSettled samples
  // (1 until then). The adaptive strategy counts a tick's completions by it,
  // so that the tick's mix of sizes does not pass for a mode's speed: a few
  // large reads among small ones move a short probe's rate.
  double weight(uint32_t bytes) const;
  static constexpr uint64_t kSettled = 16;
  // A sample this far above the mean is a preemption, not the device.
  static constexpr double kOutlier = 4.0;
  // A new sample's weight: about the last 16 I/O, as the plain hybrid
  // strategy's moving average.
  static constexpr double kWeight = 1.0 / 16;

 private:
  struct Class {
    double mean = 0, var = 0;
    uint64_t n = 0;
    std::array<double, kSettled> first{};  // the first reads, until the mean has settled
  };
  // The mean and spread from the first reads alone (fewer than kSettled).
  static void start(Class& c);
  std::array<Class, kClasses> cls_{};
  int usual_ = -1;  // the class with the most samples
};

// What a timed sleep costs the calling thread: CPU time, and how late it
// wakes up past the time asked for.
struct WakeCost {
  double cpu_ns = 0;
  double late_ns = 0;
};
// Measured once per process, by kWakeSleeps sleeps of kWakeAskNs each.
const WakeCost& wake_cost();
constexpr int kWakeSleeps = 32;
constexpr uint64_t kWakeAskNs = 1000;
WakeCost measure_wake_cost(int sleeps);

}  // namespace hio
