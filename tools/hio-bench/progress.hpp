// SPDX-License-Identifier: MIT
// fio's live status line on a terminal: jobs, percent done, IOPS, ETA.
#pragma once
#include <vector>

#include "job.hpp"

namespace hiobench {

// Prints to stderr every 500 ms until every job is done, if stderr is a
// terminal and the run is expected to last more than a few seconds.
void show_progress(const std::vector<JobOptions>& jobs, std::vector<JobProgress>& progress);

}  // namespace hiobench
