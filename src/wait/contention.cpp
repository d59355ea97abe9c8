#include "wait/contention.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "util/clock.hpp"

namespace hio {
namespace {

// A thread runnable (running or waiting to run) for more than this share of
// the window spun for it, so its delay share is others' demand.
constexpr double kSpinnerShare = 0.6;
// Wake-ups that wait less than this on average found the CPU idle: measured
// here at 20-30 ns per wake-up alone, 170 ns to 4 us beside a co-runner at 25-100 %.
constexpr double kQuietDelayPerSliceNs = 100;
constexpr double kCarryWeight = 0.25;

}  // namespace

bool parse_schedstat(const char* text, SchedReading& out) {
  unsigned long long run, delay, slices;
  if (std::sscanf(text, "%llu %llu %llu", &run, &delay, &slices) != 3) return false;
  out.run_ns = run;
  out.delay_ns = delay;
  out.slices = slices;
  return true;
}

ContentionView estimate(const SchedReading& a, const SchedReading& b, double carried) {
  ContentionView v;
  double wall = double(b.at_ns - a.at_ns);
  if (wall <= 0) {
    v.contention = carried;
    return v;
  }
  double run = double(b.run_ns - a.run_ns), delay = double(b.delay_ns - a.delay_ns);
  double slices = double(b.slices - a.slices);
  v.run_share = std::min(1.0, run / wall);
  v.delay_share = std::min(1.0, delay / wall);
  v.delay_per_slice_ns = slices > 0 ? delay / slices : 0;
  v.nivcsw_per_s = double(b.nivcsw - a.nivcsw) * 1e9 / wall;
  if (v.run_share + v.delay_share >= kSpinnerShare) {
    v.contention = std::min(1.0, delay / (run + delay));
    v.measured = true;
  } else if (v.delay_per_slice_ns < kQuietDelayPerSliceNs) {
    v.contention = 0;
    v.measured = true;
  } else {
    v.contention = carried;
  }
  return v;
}

ContentionMonitor& ContentionMonitor::this_thread() {
  thread_local ContentionMonitor m;
  return m;
}

bool ContentionMonitor::read(uint64_t now, SchedReading& r) {
  pid_t tid = pid_t(syscall(SYS_gettid));
  if (fd_ < 0 || tid != tid_) {
    if (fd_ >= 0) close(fd_);
    char path[64];
    std::snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", int(tid));
    fd_ = open(path, O_RDONLY | O_CLOEXEC);
    tid_ = tid;
    restart();
    if (fd_ < 0) return false;
  }
  char buf[128];
  ssize_t n = pread(fd_, buf, sizeof buf - 1, 0);
  if (n <= 0) return false;
  buf[n] = 0;
  if (!parse_schedstat(buf, r)) return false;
  rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) == 0) r.nivcsw = uint64_t(ru.ru_nivcsw);
  r.at_ns = now;
  return true;
}

ContentionView ContentionMonitor::sample(uint64_t now) {
  if (have_prev_ && now - prev_.at_ns < kMinGapNs) return last_;
  uint64_t t0 = now_ns();
  SchedReading r;
  // Without schedstat (a kernel without CONFIG_SCHED_INFO) nothing is
  // known, and the adaptive strategy says so in its view.
  if (!read(now, r)) return last_;
  if (have_prev_) {
    ContentionView v = estimate(prev_, r, carried_);
    // What a sleeper carries is the spinners' view smoothed over several
    // intervals: one short interval beside a neighbour with 3 ms slices
    // reads anything from 0 to 1. Quiet wake-ups reset it.
    if (v.measured) carried_ = v.contention == 0 ? 0 : carried_ + kCarryWeight * (v.contention - carried_);
    ring_[size_t(head_)] = v;
    head_ = (head_ + 1) % kWindow;
    count_ = std::min(count_ + 1, kWindow);
    ContentionView mean{};
    for (int i = 0; i < count_; i++) {
      const ContentionView& x = ring_[size_t(i)];
      mean.contention += x.contention / count_;
      mean.delay_share += x.delay_share / count_;
      mean.run_share += x.run_share / count_;
      mean.delay_per_slice_ns += x.delay_per_slice_ns / count_;
      mean.nivcsw_per_s += x.nivcsw_per_s / count_;
      mean.measured = mean.measured || x.measured;
    }
    last_ = mean;
  }
  spare_.sample(now, r.run_ns);
  last_.spare = spare_.spare();
  last_.others = spare_.others();
  prev_ = r;
  have_prev_ = true;
  samples_++;
  cost_ns_ += now_ns() - t0;
  return last_;
}

}  // namespace hio
