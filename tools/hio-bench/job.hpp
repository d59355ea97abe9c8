// SPDX-License-Identifier: MIT
// One job: its thread, its queue, the I/O loop, the verify pass, and what
// it measured.
#pragma once
#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "hybridio/hio_adaptive.h"
#include "options.hpp"
#include "shared.hpp"

namespace hiobench {

// Counters the progress line reads while the job runs.
struct JobProgress {
  std::atomic<uint64_t> read_ios{0}, write_ios{0};
  std::atomic<bool> done{false};
};

struct DirResult {
  uint64_t ios = 0, bytes = 0;
  hio_lat_summary lat{};
  std::vector<std::pair<double, uint64_t>> pct;  // percentile -> ns
};

// One --adaptive_log sample: the interval that ended at t_ms.
struct TimelinePoint {
  double t_ms = 0;
  double iops = 0;
  bool adaptive = false;  // view is filled
  hio_adaptive_view view{};
};

struct JobResult {
  std::string name;
  int error = 0;          // errno of the first I/O error, 0 if none
  std::string error_msg;  // operation, offset, target and errno
  double runtime_ms = 0;
  DirResult read, write;
  double usr_pct = 0, sys_pct = 0;
  uint64_t ctx = 0, majf = 0, minf = 0;
  hio_queue_stats qs{};                                                       // the job's (read) queue, shared or not
  hio_handle_stats hs{};                                                      // the job's handle: its own I/O only
  hio_cache_stats cs{};                                                       // --cache_mb
  double reaper_cpu_pct = 0, reaper_period_us = 0, reaper_period_now_us = 0;  // --reaper=thread
  uint64_t reaper_rounds = 0;
  double reaper_contention = 0;  // the completion thread's, at the end (auto)
  std::string target, backend;
  bool emulated = false;
  uint64_t verified = 0, mismatches = 0;
  std::string first_mismatch;
  std::vector<TimelinePoint> timeline;
  double start_unix_ms = 0;    // wall clock when the measured run began
  uint64_t pacing_cpu_ns = 0;  // --rate_iops: the thread's CPU inside the pacing sleeps
  bool has_view = false;       // --completion=adaptive: what it saw at the end
  hio_adaptive_view view{};
};

// An I/O failure outside a job's measured run (laying out its file):
// main reports it and exits with status 1.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The percentiles fio reports.
const std::vector<double>& fio_percentiles();

// Runs one job to the end on the calling thread. Throws UsageError for
// problems found before any I/O (bad target, alignment, range).
JobResult run_job(hio_engine* engine, const JobOptions& o, unsigned index, JobProgress& progress,
                  const SharedResources& shared);

// Checks the target and, for a missing file, creates it and writes it out
// to --size (as fio lays out its files). Throws UsageError for bad input,
// RunError for an I/O error while laying out.
void prepare_target(hio_engine* engine, const JobOptions& o);

}  // namespace hiobench
