// SPDX-License-Identifier: MIT
// The measured device's model: what a command's deadline depends on.
#include <gtest/gtest.h>

#include "model/device.hpp"

namespace hio::sim {
namespace {

constexpr Time us = 1000, ms = 1000 * us;

MeasuredDeviceParams drifting() {
  MeasuredDeviceParams p;
  p.latency_ns = {{4096, Quantiles::constant(double(100 * us))}};
  p.channels = 64;
  p.drift_sd = 0.2;
  p.drift_corr_1s = 0.5;
  return p;
}

// Strategies are compared on one seed; if the drift moved with the number of
// commands issued before, each would run on a disk of its own speed.
TEST(MeasuredDevice, ItsDriftIsAFunctionOfTimeNotOfTheCommandsBefore) {
  MeasuredDevice busy(drifting(), 7), idle(drifting(), 7);
  for (Time t = 0; t < 2000 * ms; t += ms) busy.deadline(false, 4096, t);
  Time at = 2000 * ms;
  EXPECT_EQ(busy.deadline(false, 4096, at), idle.deadline(false, 4096, at));
}

TEST(MeasuredDevice, ItsSpeedDriftsOverTime) {
  MeasuredDevice d(drifting(), 7);
  Time first = d.deadline(false, 4096, 0);
  int differ = 0;
  for (Time t = 100 * ms; t <= 2000 * ms; t += 100 * ms) differ += d.deadline(false, 4096, t) - t != first;
  EXPECT_GT(differ, 15);
}

}  // namespace
}  // namespace hio::sim
