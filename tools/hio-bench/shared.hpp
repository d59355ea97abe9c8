// SPDX-License-Identifier: MIT
// What jobs share in one hio-bench run: the shared queue (queue=shared),
// the read and write queues (queue=split_rw), one of each per backend, and
// the completion threads (reaper=thread), one per poll period and CPU.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "hybridio/hio.h"
#include "options.hpp"

namespace hiobench {

class SharedResources {
 public:
  // Creates what the jobs will share. Throws UsageError.
  SharedResources(hio_engine* e, const std::vector<JobOptions>& jobs);
  ~SharedResources();
  SharedResources(const SharedResources&) = delete;
  SharedResources& operator=(const SharedResources&) = delete;

  // The queues the job's handle binds to (nullptr, nullptr: its own).
  std::pair<hio_queue*, hio_queue*> queues_for(const JobOptions& o) const;
  // nullptr: the job reaps its own queues.
  hio_reaper* reaper_for(const JobOptions& o) const;
  hio_reaper_stats reaper_stats(const JobOptions& o) const;

 private:
  std::map<std::string, hio_queue*> queues_;                 // "shared:emu", "read:uring", ...
  std::map<std::pair<uint64_t, int>, hio_reaper*> reapers_;  // by poll period and CPU
};

}  // namespace hiobench
