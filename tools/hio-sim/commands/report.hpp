// SPDX-License-Identifier: MIT
// The suite's report page: the answer first (adaptive against the best
// static strategy and the oracle), then heat maps of adaptive over the best
// static strategy across the grid, one per objective, the detail collapsed.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace hio::sim {

void write_suite_report(const nlohmann::json& suite, const std::string& path);

}  // namespace hio::sim
