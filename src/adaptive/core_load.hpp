// SPDX-License-Identifier: MIT
// Each core's busy time as the kernel counts it: cpuidle residency in µs
// (/sys/devices/system/cpu/cpuN/cpuidle/state*/time) where the kernel has
// cpuidle, else /proc/stat's idle + iowait in 10 ms ticks.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hio {

enum class CoreSource { cpuidle, proc_stat, none };
const char* core_source_name(CoreSource s);

// Idle + iowait ticks per CPU from /proc/stat's text, indexed by CPU number
// (CPUs absent from the text stay 0); false if no "cpuN" line is there.
bool parse_proc_stat_idle(const char* text, std::vector<uint64_t>& idle_ticks);

class CoreLoad {
 public:
  // Picks the finest source this kernel offers for CPUs 0..ncpu-1.
  explicit CoreLoad(int ncpu);
  ~CoreLoad();
  CoreLoad(const CoreLoad&) = delete;
  CoreLoad& operator=(const CoreLoad&) = delete;

  CoreSource source() const { return source_; }
  // Why the finer source was not used ("" when it was).
  const std::string& fallback_reason() const { return why_; }
  // Idle time of `cpu`, in ns, since an arbitrary origin; false
  // if it cannot be read. With cpuidle a CPU that is idle now reports the
  // idle time up to the start of that idle period.
  bool idle_ns(int cpu, uint64_t* out);

 private:
  CoreSource source_ = CoreSource::none;
  std::string why_;
  std::vector<std::vector<int>> state_fds_;  // per CPU, its idle states' time files
  int stat_fd_ = -1;
  std::vector<uint64_t> ticks_;
};

}  // namespace hio
