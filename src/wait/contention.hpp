// The contention monitor: how much of the CPU other work wants from the
// calling thread, from the thread's run-queue delay (/proc/self/task/TID/
// schedstat) and its involuntary context switches (getrusage), over an
// exponentially weighted window of samples. One per thread; queues on a
// thread share it.
#pragma once
#include <sys/types.h>

#include <cstdint>

#include "wait/spare.hpp"

namespace hio {

// One reading of the thread's scheduler counters.
struct SchedReading {
  uint64_t at_ns = 0;
  uint64_t run_ns = 0;     // time on the CPU
  uint64_t delay_ns = 0;   // time runnable, waiting for the CPU
  uint64_t slices = 0;     // times it was given the CPU
  uint64_t nivcsw = 0;     // times it was preempted
};

// "run delay slices\n" as the kernel prints it; false if malformed.
bool parse_schedstat(const char* text, SchedReading& out);

// What an interval between two samples, or the window of them, says.
struct ContentionView {
  double contention = 0;        // CPU other work wants from us, in cores (0..1)
  double delay_share = 0;       // share of the window spent runnable, not running
  double run_share = 0;         // share of the window spent running
  double nivcsw_per_s = 0;
  bool measured = false;        // contention comes from this window (not carried over)
  double spare = -1;            // idle cores while the thread slept (-1: not known yet)
  double others = -1;           // cores others used meanwhile (-1: not known yet)
};

// Turns an interval's totals into a view. A thread that was runnable most
// of the interval (a spinner) sees others' demand directly as its delay
// share (measured). A thread that mostly slept cannot: its view says only
// how long it waited to run.
ContentionView estimate(const SchedReading& first, const SchedReading& last);

// The window: intervals' views, exponentially weighted by their length, so
// that a short probe counts for less than a tick. Contention follows the
// spinning intervals; while the thread sleeps it stays where they left it,
// unless the thread's wake-ups have stopped waiting to run (over the
// window): then it is 0.
class ContentionWindow {
 public:
  static constexpr double kTimeConstantNs = 20e6;  // an interval this long weighs 63%
  void add(const ContentionView& interval, double dt_ns);
  const ContentionView& view() const { return v_; }

 private:
  ContentionView v_{};
};

class ContentionMonitor {
 public:
  static constexpr uint64_t kMinGapNs = 2'000'000;  // samples closer than this are skipped

  // The calling thread's monitor.
  static ContentionMonitor& this_thread();

  // Takes a sample (if the last is older than kMinGapNs) and returns the
  // window's view.
  ContentionView sample(uint64_t now_ns);
  // The latest interval alone.
  const ContentionView& last_interval() const { return latest_; }
  // Restarts the window, e.g. after the thread changed what it does.
  void restart() { have_prev_ = false, window_ = ContentionWindow{}, last_ = ContentionView{}; }
  uint64_t samples() const { return samples_; }
  uint64_t cost_ns() const { return cost_ns_; }  // time spent sampling

 private:
  bool read(uint64_t now_ns, SchedReading& r);
  int fd_ = -1;
  pid_t tid_ = 0;
  SchedReading prev_{};
  bool have_prev_ = false;
  ContentionWindow window_;
  ContentionView latest_{}, last_{};
  uint64_t samples_ = 0, cost_ns_ = 0;
  SpareCapacity spare_;
};

}  // namespace hio
