// SPDX-License-Identifier: MIT
#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace hiobench {

void show_progress(const std::vector<JobOptions>& jobs, std::vector<JobProgress>& progress) {
  double expected_s = 0;
  for (const auto& j : jobs) expected_s = std::max(expected_s, j.ramp_time_s + j.runtime_s);
  bool show = isatty(2) && (expected_s == 0 || expected_s > 3);
  auto all_done = [&] {
    return std::all_of(progress.begin(), progress.end(), [](const JobProgress& p) { return p.done.load(); });
  };
  auto start = std::chrono::steady_clock::now();
  uint64_t last_r = 0, last_w = 0;
  auto last_t = start;
  while (!all_done()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    auto now = std::chrono::steady_clock::now();
    double dt = std::chrono::duration<double>(now - last_t).count();
    if (!show || dt < 0.5) continue;
    uint64_t r = 0, w = 0;
    unsigned running = 0;
    for (auto& p : progress) {
      r += p.read_ios.load();
      w += p.write_ios.load();
      running += !p.done.load();
    }
    double el = std::chrono::duration<double>(now - start).count();
    char eta[32] = "--";
    if (expected_s > 0) {
      int left = int(std::max(0.0, expected_s - el));
      std::snprintf(eta, sizeof eta, "%02dm:%02ds", left / 60, left % 60);
    }
    double pct = expected_s > 0 ? std::min(100.0, 100.0 * el / expected_s) : 0;
    std::fprintf(stderr, "\rJobs: %u (running) [%4.1f%% done] [r=%.1fk, w=%.1fk IOPS] [eta %s]   ", running, pct,
                 double(r - last_r) / dt / 1e3, double(w - last_w) / dt / 1e3, eta);
    last_r = r;
    last_w = w;
    last_t = now;
  }
  if (show) std::fprintf(stderr, "\r%80s\r", "");
}

}  // namespace hiobench
