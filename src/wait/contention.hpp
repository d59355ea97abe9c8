// The contention monitor: how much of the CPU other work wants from the
// calling thread, from the thread's run-queue delay (/proc/thread-self/
// schedstat) and its involuntary context switches (getrusage), over a
// sliding window of samples. One per thread; queues on a thread share it.
#pragma once
#include <sys/types.h>

#include <array>
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
  double delay_per_slice_ns = 0;
  double nivcsw_per_s = 0;
  bool measured = false;        // contention comes from this window (not carried over)
  double spare = -1;            // idle cores while the thread slept (-1: not known yet)
  double others = -1;           // cores others used meanwhile (-1: not known yet)
};

// Turns a window's totals into a view. A thread that was runnable most of
// the window (a spinner) sees others' demand directly as its delay share. A
// thread that mostly slept cannot: it sees only whether its wake-ups found
// the CPU idle, so it reports 0 then, and otherwise carries the last value a
// spinner measured.
ContentionView estimate(const SchedReading& first, const SchedReading& last, double carried);

class ContentionMonitor {
 public:
  static constexpr int kWindow = 8;          // intervals in the window
  static constexpr uint64_t kMinGapNs = 2'000'000;  // samples closer than this are skipped

  // The calling thread's monitor.
  static ContentionMonitor& this_thread();

  // Takes a sample (if the last is older than kMinGapNs) and returns the
  // window's view: the mean of its intervals' views.
  ContentionView sample(uint64_t now_ns);
  // The latest interval alone (the window's newest part).
  const ContentionView& last_interval() const { return ring_[size_t((head_ + kWindow - 1) % kWindow)]; }
  // Restarts the window, e.g. after the thread changed what it does.
  void restart() { count_ = 0, have_prev_ = false; }
  uint64_t samples() const { return samples_; }
  uint64_t cost_ns() const { return cost_ns_; }  // time spent sampling

 private:
  bool read(uint64_t now_ns, SchedReading& r);
  int fd_ = -1;
  pid_t tid_ = 0;
  SchedReading prev_{};
  bool have_prev_ = false;
  std::array<ContentionView, kWindow> ring_{};
  int count_ = 0, head_ = 0;
  double carried_ = 0;
  ContentionView last_{};
  uint64_t samples_ = 0, cost_ns_ = 0;
  SpareCapacity spare_;
};

}  // namespace hio
