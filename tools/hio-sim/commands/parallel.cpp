// SPDX-License-Identifier: MIT
#include "commands/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hio::sim {

void parallel_for(size_t n, int jobs, const std::string& what, const std::string& unit, bool progress,
                  const std::function<void(size_t)>& body) {
  if (jobs <= 0) jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<size_t> next{0}, done{0};
  std::exception_ptr err;
  std::mutex mu;
  auto worker = [&] {
    for (size_t i; (i = next++) < n;) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> l(mu);
        if (!err) err = std::current_exception();
        next = n;
      }
      size_t d = ++done;
      if (progress && (d % 20 == 0 || d == n)) {
        std::lock_guard<std::mutex> l(mu);
        std::fprintf(stderr, "\r%s: %zu/%zu %s", what.c_str(), d, n, unit.c_str());
        if (d == n) std::fprintf(stderr, "\n");
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(size_t(jobs));
  for (int j = 0; j < jobs; j++) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (err) std::rethrow_exception(err);
}

}  // namespace hio::sim
