// SPDX-License-Identifier: MIT
// The report: fio's JSON layout (plus a "hybridio" key per job) or fio's
// human-readable summary.
#pragma once
#include <string>
#include <vector>

#include "job.hpp"

namespace hiobench {

std::string report_json(const std::vector<JobOptions>& jobs, const std::vector<JobResult>& results);
std::string report_normal(const std::vector<JobOptions>& jobs, const std::vector<JobResult>& results);

}  // namespace hiobench
