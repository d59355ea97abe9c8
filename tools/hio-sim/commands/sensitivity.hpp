// SPDX-License-Identifier: MIT
// hio-sim sensitivity: how much each of the adaptive policy's parameters
// matters — the regret suite's score with each halved and doubled, against
// the library's values (docs/adaptive.md quotes it).
#pragma once
#include <string>
#include <vector>

namespace hio::sim {

struct SensitivityArgs {
  std::string out, profiles, traces;
  std::string grid = "medium";  // the suite's grid: medium (504 scenarios, 20 s a run here), full or quick
  int seeds = 1;                // each value's score is the mean over this many seeds
  uint64_t seed = 1;
  int jobs = 0;
  std::vector<std::string> only;  // these parameters (default: every one)
};

// Throws std::invalid_argument naming the first of `only` that is no parameter.
void check_only(const std::vector<std::string>& only);
// `a.only` has passed check_only (the command line checks it before --out is made).
int sensitivity(const SensitivityArgs& a);

}  // namespace hio::sim
