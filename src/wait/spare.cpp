#include "wait/spare.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hio {

bool parse_proc_stat(const char* text, const cpu_set_t& allowed, uint64_t* idle_ticks, int* cpus) {
  uint64_t idle = 0;
  int n = 0;
  for (const char* line = text; line && *line; line = std::strchr(line, '\n'), line = line ? line + 1 : nullptr) {
    unsigned cpu;
    unsigned long long user, nice, sys, idl, iow;
    if (std::sscanf(line, "cpu%u %llu %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idl, &iow) != 6) continue;
    if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) continue;
    idle += idl + iow;
    n++;
  }
  *idle_ticks = idle;
  *cpus = n;
  return n > 0;
}

void SpareCapacity::add(double wall, double idle, double run, int cpus) {
  double keep = std::exp2(-wall / kHalfLifeNs);
  wall_ = wall_ * keep + wall;
  idle_ = idle_ * keep + idle;
  ran_ = ran_ * keep + run;
  cpus_ = cpus;
}

double SpareCapacity::others() const {
  if (!known()) return -1;
  double o = double(cpus_) - idle_ / wall_ - ran_ / wall_;
  return o > 0 ? o : 0;
}

void SpareCapacity::sample(uint64_t now, uint64_t run_ns) {
  if (have_ && now - at_ < kMinGapNs) return;
  if (fd_ < 0) {
    fd_ = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return;
  }
  char buf[8192];
  ssize_t len = pread(fd_, buf, sizeof buf - 1, 0);
  if (len <= 0) return;
  buf[len] = 0;
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
  uint64_t idle;
  int cpus;
  if (!parse_proc_stat(buf, allowed, &idle, &cpus)) return;
  reads_++;
  if (have_ && idle >= idle_ticks_ && run_ns >= run_) {
    double wall = double(now - at_);
    double idle_ns = double(idle - idle_ticks_) * 1e9 / double(sysconf(_SC_CLK_TCK));
    double ran = double(run_ns - run_);
    if (ran < kSleeperShare * wall) add(wall, idle_ns, ran, cpus);
  }
  have_ = true;
  at_ = now;
  idle_ticks_ = idle;
  run_ = run_ns;
}

}  // namespace hio
