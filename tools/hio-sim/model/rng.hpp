// SPDX-License-Identifier: MIT
// A small deterministic generator (splitmix64 seeding xoshiro256**) with the
// few distributions the models draw from, written out so that a seed gives
// the same run with any standard library.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

namespace hio::sim {

class Rng {
 public:
  explicit Rng(uint64_t seed = 1) {
    for (auto& w : s_) w = splitmix(seed);
  }
  uint64_t next() {
    uint64_t r = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return r;
  }
  // In [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // A stream of its own for one part of a model: what one part draws does
  // not shift another's draws.
  Rng fork(uint64_t salt) { return Rng(next() ^ (salt * 0x9e3779b97f4a7c15ull)); }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t s_[4];
};

// A distribution given by its quantiles at evenly spaced probabilities
// (q[0] at 0, q[n-1] at 1), sampled by interpolating the inverse CDF: how
// calibration records a measured latency.
class Quantiles {
 public:
  Quantiles() = default;
  explicit Quantiles(std::vector<double> q) : q_(std::move(q)) {}
  static Quantiles constant(double v) { return Quantiles({v, v}); }
  bool empty() const { return q_.empty(); }
  double sample(Rng& r) const { return at(r.uniform()); }
  double at(double p) const {
    if (q_.empty()) return 0;
    if (q_.size() == 1) return q_[0];
    double x = p * double(q_.size() - 1);
    size_t i = size_t(x);
    if (i + 1 >= q_.size()) return q_.back();
    return q_[i] + (x - double(i)) * (q_[i + 1] - q_[i]);
  }
  double mean() const;
  const std::vector<double>& values() const { return q_; }

 private:
  std::vector<double> q_;
};

inline double Quantiles::mean() const {
  if (q_.size() < 2) return q_.empty() ? 0 : q_[0];
  double s = 0;
  for (size_t i = 0; i + 1 < q_.size(); i++) s += (q_[i] + q_[i + 1]) / 2;
  return s / double(q_.size() - 1);
}

}  // namespace hio::sim
