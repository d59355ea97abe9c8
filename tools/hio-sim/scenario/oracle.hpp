// SPDX-License-Identifier: MIT
// How a comparison reads against hindsight: the oracle that picks the best
// static strategy for every 10 ms interval (charged for each switch), and how
// long adaptive took to settle on the right mode after each change of its
// neighbour (the best static strategy over the phase that followed).
#pragma once
#include <optional>
#include <vector>

#include "scenario/compare.hpp"

namespace hio::sim {

struct OracleResult {
  double score = 0;
  int switches = 0;
};

// interval_ns: its decision interval; switch_charge: what a switch costs, as
// a share of one interval's average progress under the best static strategy.
OracleResult oracle(const Comparison& c, const Scenario& s, bool own_objective, Time interval_ns = 10'000'000,
                    double switch_charge = 0.1);

// Only the changes after which the mode in use was no longer right count.
struct Reactions {
  std::vector<double> ms;  // per such change that settled
  int never = 0;           // such changes after which it never settled on a right mode within the phase
};

// tie: static strategies within this share of the phase's best are right too.
Reactions reactions(const Comparison& c, const Scenario& s, const std::string& adaptive, bool own_objective,
                    double tie = 0.02);

double percentile(std::vector<double> v, double p);

}  // namespace hio::sim
