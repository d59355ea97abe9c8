#include "wait/contention.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "util/clock.hpp"

namespace hio {
namespace {

// A thread runnable (running or waiting to run) for more than this share of
// an interval spun for it, so its delay share is others' demand.
constexpr double kSpinnerShare = 0.6;
// A sleeper waiting to run less than this share of the window finds the CPU
// idle when it wakes: measured here at 0.1% alone, 16-35% beside a
// co-runner at 50-100%. (Per 5 ms interval the delay comes in whole
// slices: two thirds of the intervals beside a CPU-bound co-runner have
// none, so one interval says nothing.)
constexpr double kQuietDelayShare = 0.02;

}  // namespace

bool parse_schedstat(const char* text, SchedReading& out) {
  unsigned long long run, delay, slices;
  if (std::sscanf(text, "%llu %llu %llu", &run, &delay, &slices) != 3) return false;
  out.run_ns = run;
  out.delay_ns = delay;
  out.slices = slices;
  return true;
}

ContentionView estimate(const SchedReading& a, const SchedReading& b) {
  ContentionView v;
  double wall = double(b.at_ns - a.at_ns);
  if (wall <= 0) return v;
  double run = double(b.run_ns - a.run_ns), delay = double(b.delay_ns - a.delay_ns);
  v.run_share = std::min(1.0, run / wall);
  v.delay_share = std::min(1.0, delay / wall);
  v.nivcsw_per_s = double(b.nivcsw - a.nivcsw) * 1e9 / wall;
  if (v.run_share + v.delay_share >= kSpinnerShare) {
    v.contention = std::min(1.0, delay / (run + delay));
    v.measured = true;
  }
  return v;
}

void ContentionWindow::add(const ContentionView& x, double dt_ns) {
  double w = 1.0 - std::exp(-dt_ns / kTimeConstantNs);
  auto mix = [w](double& avg, double v) { avg += w * (v - avg); };
  mix(v_.delay_share, x.delay_share);
  mix(v_.run_share, x.run_share);
  mix(v_.nivcsw_per_s, x.nivcsw_per_s);
  if (x.measured) {
    mix(v_.contention, x.contention);
    v_.measured = true;
  } else if (v_.delay_share < kQuietDelayShare) {
    // Already smoothed by the window: the neighbour has gone.
    v_.contention = 0;
    v_.measured = true;
  }
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
  // known: the view then counts no monitor samples.
  if (!read(now, r)) return last_;
  if (have_prev_) {
    latest_ = estimate(prev_, r);
    window_.add(latest_, double(r.at_ns - prev_.at_ns));
    last_ = window_.view();
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
