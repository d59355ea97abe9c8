// SPDX-License-Identifier: MIT
// Runs a grid's scenarios on several threads, with progress on stderr.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace hio::sim {

// body(i) for each i below n on `jobs` threads (0: every core); the first
// exception stops the others from starting more, and is rethrown. With
// progress, "what: done/n unit" on stderr.
void parallel_for(size_t n, int jobs, const std::string& what, const std::string& unit, bool progress,
                  const std::function<void(size_t)>& body);

}  // namespace hio::sim
