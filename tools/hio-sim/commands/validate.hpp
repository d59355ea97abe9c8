// SPDX-License-Identifier: MIT
// hio-sim validate: predicts every cell of a contention study (make study's
// output: summary.csv and bursty.json) on the profile of the machine it ran
// on, and writes validate.json: each cell measured against predicted (our
// IOPS over the best alone, the co-runner's progress), the best static
// strategy measured and predicted per target and load, and the totals
// best_static_agreement and median_abs_log_error.
#pragma once
#include <string>

namespace hio::sim {

struct ValidateArgs {
  std::string study, out, profiles, profile = "here-virtio";
  uint64_t seed = 1;
  int seeds = 5;  // each cell's prediction is the median over this many seeds
};

int validate(const ValidateArgs& a);

}  // namespace hio::sim
