// Spare capacity: how much of the thread's CPUs stays idle while the thread
// sleeps, and how much the others use then, from /proc/stat. A spinner sees
// a neighbour's demand only up to the fair half the scheduler gives it;
// whether the neighbour wants more shows only when the thread steps aside:
// a neighbour that leaves the core idle had all it wanted.
#pragma once
#include <sched.h>

#include <cstdint>

namespace hio {

// Idle + iowait time, in USER_HZ ticks, summed over the CPUs in `allowed`,
// from /proc/stat's text; false if no such CPU line is there.
bool parse_proc_stat(const char* text, const cpu_set_t& allowed, uint64_t* idle_ticks, int* cpus);

class SpareCapacity {
 public:
  static constexpr uint64_t kMinGapNs = 20'000'000;  // /proc/stat counts in 10 ms ticks
  static constexpr double kHalfLifeNs = 300e6;       // memory of the estimate
  static constexpr double kSleeperShare = 0.6;       // on the CPU less than this: the thread slept
  static constexpr double kEnoughNs = 100e6;         // sleeping time before the estimate counts

  // At most every kMinGapNs: reads /proc/stat and, if the thread was on the
  // CPU less than kSleeperShare of the interval, folds the interval into the
  // estimate. run_ns is the thread's total. (Time spent waiting to run
  // counts as asleep: the others held the CPU then.)
  void sample(uint64_t now_ns, uint64_t run_ns);
  // Folds an interval in: wall, idle (summed over cpus) and the thread's run time, in ns.
  void add(double wall_ns, double idle_ns, double run_ns, int cpus);

  bool known() const { return wall_ >= kEnoughNs; }
  double spare() const { return known() ? idle_ / wall_ : -1; }  // idle cores
  double others() const;  // cores the others used; -1 unknown
  uint64_t reads() const { return reads_; }

 private:
  int fd_ = -1;
  bool have_ = false;
  uint64_t at_ = 0, idle_ticks_ = 0, run_ = 0;
  double wall_ = 0, idle_ = 0, ran_ = 0;
  int cpus_ = 1;
  uint64_t reads_ = 0;
};

}  // namespace hio
