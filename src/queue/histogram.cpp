// SPDX-License-Identifier: MIT
#include "queue/histogram.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "hybridio/hio.h"
#include "util/error.hpp"

namespace hio {

unsigned Histogram::index(uint64_t v) {
  if (v < 2 * uint64_t(kPerGroup)) return unsigned(v);
  v = std::min<uint64_t>(v, (uint64_t(1) << (kMaxMsb + 1)) - 1);
  unsigned msb = 63 - unsigned(__builtin_clzll(v));
  unsigned shift = msb - kBits;
  return (shift + 1) * kPerGroup + unsigned((v >> shift) & (kPerGroup - 1));
}

uint64_t Histogram::bucket_value(unsigned i) {
  if (i < 2 * kPerGroup) return i;
  unsigned shift = i / kPerGroup - 1;
  uint64_t low = uint64_t(kPerGroup + i % kPerGroup) << shift;
  return low + ((uint64_t(1) << shift) - 1) / 2;
}

void Histogram::add(uint64_t v) {
  buckets_[index(v)]++;
  count_++;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  double d = double(v);
  sum_ += d;
  sumsq_ += d * d;
}

void Histogram::merge(const Histogram& o) {
  for (unsigned i = 0; i < kBuckets; i++) buckets_[i] += o.buckets_[i];
  count_ += o.count_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
  sum_ += o.sum_;
  sumsq_ += o.sumsq_;
}

void Histogram::reset() { *this = Histogram(); }

double Histogram::mean() const { return count_ ? sum_ / double(count_) : 0.0; }

double Histogram::stddev() const {
  if (count_ < 2) return 0.0;
  double m = mean();
  double var = (sumsq_ - double(count_) * m * m) / double(count_ - 1);
  return var > 0 ? std::sqrt(var) : 0.0;
}

uint64_t Histogram::percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // Smallest bucket whose cumulative count reaches p% of the samples.
  uint64_t want = std::max<uint64_t>(1, uint64_t(std::ceil(p / 100.0 * double(count_))));
  uint64_t seen = 0;
  for (unsigned i = 0; i < kBuckets; i++) {
    seen += buckets_[i];
    if (seen >= want) return std::clamp(bucket_value(i), min(), max_);
  }
  return max_;
}

int Histogram::percentiles(const Histogram& reads, const Histogram& writes, int op, const double* pcts, size_t n,
                           uint64_t* out) {
  if (op != HIO_OP_READ && op != HIO_OP_WRITE) return failf(EINVAL, "percentiles exist for reads and writes only");
  const Histogram& h = op == HIO_OP_READ ? reads : writes;
  for (size_t i = 0; i < n; i++) {
    if (!(pcts[i] >= 0 && pcts[i] <= 100)) return failf(EINVAL, "percentile %g is outside 0..100", pcts[i]);
    out[i] = h.percentile(pcts[i]);
  }
  return 0;
}

}  // namespace hio
