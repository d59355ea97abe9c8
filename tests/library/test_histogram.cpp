// SPDX-License-Identifier: MIT
// The latency histogram: bucket mapping, percentiles, merge, summaries.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "queue/histogram.hpp"

using hio::Histogram;

TEST(Histogram, SmallValuesAreExact) {
  for (uint64_t v = 0; v < 2 * Histogram::kPerGroup; v++) {
    EXPECT_EQ(Histogram::index(v), v);
    EXPECT_EQ(Histogram::bucket_value(Histogram::index(v)), v);
  }
}

TEST(Histogram, BucketValueWithinOneSixtyFourthOverAllMagnitudes) {
  // Values from 1 ns to just under the 2^48 clamp, several per power of two.
  for (unsigned msb = 0; msb < Histogram::kMaxMsb + 1; msb++) {
    uint64_t base = uint64_t(1) << msb;
    for (uint64_t v : {base, base + base / 3, base + base / 2, 2 * base - 1}) {
      unsigned i = Histogram::index(v);
      ASSERT_LT(i, Histogram::kBuckets) << v;
      uint64_t b = Histogram::bucket_value(i);
      EXPECT_LE(std::fabs(double(b) - double(v)), double(v) / 64.0) << "value " << v << " bucket " << i;
      // The representative value lands back in its own bucket.
      EXPECT_EQ(Histogram::index(b), i) << v;
    }
  }
}

TEST(Histogram, IndexIsMonotonic) {
  unsigned prev = 0;
  for (uint64_t v = 1; v < (uint64_t(1) << 40); v = v * 3 / 2 + 1) {
    unsigned i = Histogram::index(v);
    EXPECT_GE(i, prev) << v;
    prev = i;
  }
}

TEST(Histogram, HugeValuesAreClampedIntoTheLastBucket) {
  EXPECT_EQ(Histogram::index(UINT64_MAX), Histogram::kBuckets - 1);
  EXPECT_EQ(Histogram::index(uint64_t(1) << 60), Histogram::kBuckets - 1);
}

TEST(Histogram, EmptyIsAllZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  for (double p : {0.0, 50.0, 99.9, 100.0}) EXPECT_EQ(h.percentile(p), 0u) << p;
}

TEST(Histogram, PercentilesOfUniformOneToTenThousand) {
  Histogram h;
  for (uint64_t v = 1; v <= 10000; v++) h.add(v);
  EXPECT_EQ(h.count(), 10000u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_EQ(h.max(), 10000u);
  EXPECT_NEAR(h.mean(), 5000.5, 1e-6);
  EXPECT_NEAR(h.stddev(), std::sqrt(10000.0 * 10001.0 / 12.0), 0.01);
  for (double p : {1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9}) {
    double want = p * 100.0;
    EXPECT_NEAR(double(h.percentile(p)), want, want * 0.02) << "p" << p;
  }
  EXPECT_NEAR(double(h.percentile(100)), 10000.0, 10000.0 / 64);
  EXPECT_EQ(h.percentile(0), 1u);
}

TEST(Histogram, PercentilesAreMonotonicAndWithinMinMax) {
  Histogram h;
  // A skewed, multi-magnitude distribution.
  for (uint64_t i = 1; i <= 5000; i++) h.add(1000 + (i * i * 7919) % 2000000);
  uint64_t prev = 0;
  for (double p = 0; p <= 100; p += 0.5) {
    uint64_t v = h.percentile(p);
    EXPECT_GE(v, prev) << p;
    EXPECT_GE(v, h.min());
    EXPECT_LE(v, h.max());
    prev = v;
  }
}

TEST(Histogram, OutOfRangePercentilesAreClamped) {
  Histogram h;
  for (uint64_t v = 100; v <= 200; v++) h.add(v);
  EXPECT_EQ(h.percentile(-5), h.percentile(0));
  EXPECT_EQ(h.percentile(250), h.percentile(100));
}

TEST(Histogram, SingleValue) {
  Histogram h;
  h.add(123456);
  EXPECT_EQ(h.min(), 123456u);
  EXPECT_EQ(h.max(), 123456u);
  EXPECT_EQ(h.stddev(), 0.0);
  // Clamped to [min, max], so exact despite the bucket width.
  EXPECT_EQ(h.percentile(50), 123456u);
}

TEST(Histogram, MergeEqualsAddingEverything) {
  Histogram a, b, all;
  for (uint64_t v = 1; v <= 3000; v++) {
    (v % 3 ? a : b).add(v * 17);
    all.add(v * 17);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_NEAR(a.mean(), all.mean(), 1e-6);
  EXPECT_NEAR(a.stddev(), all.stddev(), 1e-6);
  for (double p : {1.0, 50.0, 90.0, 99.0, 100.0}) EXPECT_EQ(a.percentile(p), all.percentile(p)) << p;
}

TEST(Histogram, MergeWithEmpty) {
  Histogram a, empty;
  a.add(50);
  a.add(500);
  a.merge(empty);
  EXPECT_EQ(a.count(), 2u);
  EXPECT_EQ(a.min(), 50u);
  EXPECT_EQ(a.max(), 500u);
  empty.merge(a);
  EXPECT_EQ(empty.count(), 2u);
  EXPECT_EQ(empty.min(), 50u);
}

TEST(Histogram, ResetEmpties) {
  Histogram h;
  for (uint64_t v = 1; v < 100; v++) h.add(v);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.percentile(50), 0u);
  h.add(7);
  EXPECT_EQ(h.min(), 7u);
  EXPECT_EQ(h.max(), 7u);
}
