// SPDX-License-Identifier: MIT
// hio-sim suite: the regret suite. A fixed grid of scenarios (device x
// wake-up cost x neighbour x our threads per core x workload x objective),
// each run under every static strategy, adaptive, and the hindsight oracle;
// adaptive against the best static strategy and the oracle, its reaction
// after each change of neighbour, and the CPU each way of waiting spends per
// I/O. Writes suite.json and suite.html (a heat map of adaptive over the best
// static strategy across the grid).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "adaptive/policy.hpp"
#include "model/profile.hpp"

namespace hio::sim {

struct SuiteArgs {
  std::string out;
  std::string profiles;       // the folder of machine profiles
  std::string traces;         // the folder of recorded traces
  std::string grid = "full";  // full, medium or quick
  uint64_t seed = 1;
  int jobs = 0;  // 0: every core
  bool progress = true;
  PolicyParams policy;  // adaptive's parameters
};

int suite(const SuiteArgs& a);

// The suite's scenarios, scored, without writing anything: what
// `hio-sim sensitivity` runs once per parameter value.
nlohmann::json run_suite(const SuiteArgs& a);

// The suite's two machines: this one, and bare metal given this machine's
// measured disk; a scenario names one by its wake-up cost ("here" or not).
struct Machines {
  Profile here, bare;
  const Profile& of(const std::string& wake) const { return wake == "here" ? here : bare; }
};
Machines load_machines(const std::string& profiles);

// Ratios across a grid: their count, geometric mean, median, 10th
// percentile, lowest, and the shares at least 0.95 and 1.
nlohmann::json summary_of(const std::vector<double>& v);

}  // namespace hio::sim
