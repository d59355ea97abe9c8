// SPDX-License-Identifier: MIT
// hio-bench's options: fio's names, one table for the command line and for
// job files, each value checked with a message naming it.
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "hybridio/hio.h"

namespace hiobench {

// Bad input: main prints "hio-bench: <what>" and exits with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Rw { Read, Write, RandRead, RandWrite, ReadWrite, RandRw };
// dedicated: a queue of the job's own; shared: one queue for all such jobs;
// split_rw: one queue for their reads and another for their writes.
enum class QueueMode { Dedicated, Shared, SplitRw };

struct JobOptions {
  std::string name;
  std::string filename;
  std::string emulate;  // a file target's emulated SSD timing (as after emu:); "" its own
  uint64_t size = 0;    // 0: the whole target
  Rw rw = Rw::Read;
  unsigned rwmixread = 50;
  uint32_t bs = 4096;
  unsigned iodepth = 1;
  unsigned numjobs = 1;
  double runtime_s = 0;  // 0: until size bytes are done
  bool time_based = false;
  bool norandommap = false;  // random offsets drawn with replacement, as fio's norandommap
  double ramp_time_s = 0;
  bool direct = false;
  std::vector<int> cpus;  // empty: any
  uint64_t rate_iops = 0;
  bool verify = false;
  hio_wait_mode completion = HIO_WAIT_INTERRUPT;
  double hybrid_sleep_us = 0;    // 0: half the moving-average latency
  uint64_t adaptive_log_ns = 0;  // a timeline sample this often in the JSON (0: none)
  hio_objective objective = HIO_OBJECTIVE_SHARED;
  QueueMode queue = QueueMode::Dedicated;
  bool high_priority = false;  // a queue of its own, reaped first
  uint64_t cache_mb = 0;       // 0: no block cache
  hio_cache_write cache_policy = HIO_CACHE_WRITE_THROUGH;
  hio_readahead readahead = HIO_READAHEAD_AUTO;
  bool reaper_thread = false;  // a completion thread reaps the job's queue
  uint64_t poll_period_ns = HIO_POLL_PERIOD_AUTO;
  int reaper_cpu = -1;                       // the completion thread's CPU; -1: any
  std::map<std::string, std::string> given;  // as written, for the JSON "job options"
};

struct Invocation {
  std::vector<JobOptions> jobs;  // numjobs already expanded
  std::string output_format = "normal";
  std::string output;  // file; empty: stdout
  bool help = false, version = false, list_strategies = false;
};

// Parses argv (job files are positional). Throws UsageError.
Invocation parse_invocation(int argc, char** argv);

bool rw_reads(Rw rw);
bool rw_writes(Rw rw);
bool rw_random(Rw rw);
const char* rw_name(Rw rw);
const char* queue_mode_name(QueueMode m);
const char* readahead_name(hio_readahead r);

const char* usage_text();

}  // namespace hiobench
