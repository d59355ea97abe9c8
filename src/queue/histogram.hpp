// SPDX-License-Identifier: MIT
// Log-bucket latency histogram (64 linear buckets per power of two, as fio's),
// with exact min/max/mean/stddev and percentiles within 1/64 of the value.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hio {

class Histogram {
 public:
  static constexpr unsigned kBits = 6;
  static constexpr unsigned kPerGroup = 1u << kBits;
  static constexpr unsigned kMaxMsb = 47;  // values are clamped below 2^48 ns
  static constexpr unsigned kBuckets = (kMaxMsb - kBits + 1) * kPerGroup + kPerGroup;

  void add(uint64_t v);
  void merge(const Histogram& o);
  void reset();

  uint64_t count() const { return count_; }
  uint64_t min() const { return count_ ? min_ : 0; }
  uint64_t max() const { return max_; }
  double mean() const;
  double stddev() const;
  // p in [0, 100]; 0 when empty.
  uint64_t percentile(double p) const;
  // The percentiles of reads (op READ) or writes of one of two histograms,
  // as the C API returns them: 0, or -EINVAL naming a bad op or percentile.
  static int percentiles(const Histogram& reads, const Histogram& writes, int op, const double* pcts, size_t n,
                         uint64_t* out);

  static unsigned index(uint64_t v);
  // Middle of the values that land in bucket i.
  static uint64_t bucket_value(unsigned i);

 private:
  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0, min_ = UINT64_MAX, max_ = 0;
  double sum_ = 0, sumsq_ = 0;
};

}  // namespace hio
