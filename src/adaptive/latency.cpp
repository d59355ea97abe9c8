// SPDX-License-Identifier: MIT
#include "adaptive/latency.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "util/clock.hpp"

namespace hio {

int LatencyEstimator::size_class(uint32_t bytes) {
  int c = 0;
  for (uint32_t b = 512; b < bytes && c < kClasses - 1; b <<= 1) c++;
  return c;
}

void LatencyEstimator::add(uint32_t bytes, uint64_t ns) {
  int k = size_class(bytes);
  Class& c = cls_[size_t(k)];
  double x = double(ns);
  if (c.n < kSettled) {
    c.first[c.n++] = x;
    start(c);
  } else {
    if (x > kOutlier * c.mean) return;
    double d = x - c.mean;
    c.mean += kWeight * d;
    c.var = (1 - kWeight) * (c.var + kWeight * d * d);
    c.n++;
  }
  if (usual_ < 0 || c.n > cls_[size_t(usual_)].n) usual_ = k;
}

void LatencyEstimator::start(Class& c) {
  // The median, and the spread about it of the reads that are not
  // preemptions: a read held over another thread's turn among the first few
  // moves neither. Taken for the device's latency, it could make the queue
  // sleep, and a sleeper adds no reads to correct it.
  std::array<double, kSettled> s = c.first;
  auto n = ptrdiff_t(c.n);
  std::sort(s.begin(), s.begin() + n);
  double med = s[size_t((n - 1) / 2)];
  double sum = 0;
  int k = 0;
  for (ptrdiff_t i = 0; i < n && s[size_t(i)] <= kOutlier * med; i++, k++)
    sum += (s[size_t(i)] - med) * (s[size_t(i)] - med);
  c.mean = med;
  c.var = sum / k;
}

double LatencyEstimator::weight(uint32_t bytes) const {
  const Class& c = cls_[size_t(size_class(bytes))];
  if (usual_ < 0 || c.n < kSettled) return 1.0;
  const Class& u = cls_[size_t(usual_)];
  return u.n >= kSettled && u.mean > 0 ? c.mean / u.mean : 1.0;
}

double LatencyEstimator::stddev_ns(uint32_t bytes) const { return std::sqrt(cls_[size_t(size_class(bytes))].var); }

WakeCost measure_wake_cost(int sleeps) {
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  timespec ts = ns_to_ts(kWakeAskNs);
  uint64_t c0 = thread_cpu_ns(), t0 = now_ns();
  for (int i = 0; i < sleeps; i++)
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, nullptr) == EINTR) {
    }
  uint64_t c1 = thread_cpu_ns(), t1 = now_ns();
  WakeCost w;
  w.cpu_ns = double(c1 - c0) / sleeps;
  w.late_ns = std::max(0.0, double(t1 - t0) / sleeps - double(kWakeAskNs));
  return w;
}

const WakeCost& wake_cost() {
  static const WakeCost w = measure_wake_cost(kWakeSleeps);
  return w;
}

}  // namespace hio
