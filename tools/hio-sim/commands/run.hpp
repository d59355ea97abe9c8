// SPDX-License-Identifier: MIT
// hio-sim run: one scenario under one or more strategies, printed as a
// table or, with --output-format=json, as JSON (one object per strategy).
#pragma once
#include <string>
#include <vector>

#include "adaptive/policy.hpp"

namespace hio::sim {

struct RunArgs {
  std::string profile = "here-virtio", device = "pcie4", interface, neighbour = "none", trace, format = "normal";
  std::string tick_log;
  std::string profiles, traces;
  std::vector<std::string> strategies = {"interrupt", "poll", "adaptive"};
  int cores = 1, threads = 1;
  unsigned depth = 1;
  uint32_t bs = 4096;
  double rate = 0, seconds = 1.0;
  std::string poll_period_us = "auto";  // strategy reaper: auto, or microseconds (0 spins)
  uint64_t seed = 1;
  PolicyParams policy;  // adaptive's parameters
};

int run_command(const RunArgs& a);

}  // namespace hio::sim
