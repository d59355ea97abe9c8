// SPDX-License-Identifier: MIT
// hio-sim periods: the completion thread's automatic poll period
// (PollPeriodTuner) against every fixed period of its ladder, over a grid of
// devices, wake-up costs, read sizes and neighbours. Each cell is judged as
// the study judges it: auto's IOPS at least 0.95 of the best fixed period's,
// at no more than 1.25 times the CPU of the cheapest fixed period that
// reaches 0.95 of it. Writes periods.json.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace hio::sim {

struct PeriodsArgs {
  std::string out;
  std::string profiles;       // the folder of machine profiles
  std::string grid = "full";  // full or quick
  uint64_t seed = 1;
  int jobs = 0;  // 0: every core
  bool progress = true;
};

int periods(const PeriodsArgs& a);

// The cells, judged, without writing anything.
nlohmann::json run_periods(const PeriodsArgs& a);

}  // namespace hio::sim
