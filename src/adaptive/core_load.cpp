// SPDX-License-Identifier: MIT
#include "adaptive/core_load.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hio {
namespace {

bool read_text(int fd, char* buf, size_t size) {
  ssize_t n = pread(fd, buf, size - 1, 0);
  if (n <= 0) return false;
  buf[n] = 0;
  return true;
}

}  // namespace

const char* core_source_name(CoreSource s) {
  switch (s) {
    case CoreSource::cpuidle: return "cpuidle";
    case CoreSource::proc_stat: return "proc_stat";
    case CoreSource::none: return "none";
  }
  return "none";
}

bool parse_proc_stat_idle(const char* text, std::vector<uint64_t>& idle) {
  bool any = false;
  for (const char* line = text; line && *line; line = std::strchr(line, '\n'), line = line ? line + 1 : nullptr) {
    unsigned cpu;
    unsigned long long user, nice, sys, idl, iow;
    // "cpu " is the sum over all CPUs: %u would skip its blanks and read a count as a CPU number.
    if (std::strncmp(line, "cpu", 3) != 0 || line[3] < '0' || line[3] > '9') continue;
    if (std::sscanf(line, "cpu%u %llu %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idl, &iow) != 6) continue;
    if (cpu >= 4096) continue;
    if (idle.size() <= cpu) idle.resize(cpu + 1, 0);
    idle[cpu] = idl + iow;
    any = true;
  }
  return any;
}

CoreLoad::CoreLoad(int ncpu) {
  state_fds_.resize(size_t(ncpu));
  bool all = ncpu > 0;
  for (int c = 0; c < ncpu && all; c++) {
    for (int s = 0;; s++) {
      char path[96];
      std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/time", c, s);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) break;
      state_fds_[size_t(c)].push_back(fd);
    }
    all = !state_fds_[size_t(c)].empty();
  }
  if (all) {
    source_ = CoreSource::cpuidle;
  } else {
    for (auto& fds : state_fds_)
      for (int fd : fds) close(fd);
    state_fds_.clear();
    why_ = "no cpuidle states in /sys/devices/system/cpu/cpu*/cpuidle: busy time from /proc/stat's 10 ms ticks";
    stat_fd_ = open("/proc/stat", O_RDONLY | O_CLOEXEC);
    if (stat_fd_ >= 0)
      source_ = CoreSource::proc_stat;
    else
      why_ = "neither cpuidle nor /proc/stat can be read: other tenants cannot be seen";
  }
}

CoreLoad::~CoreLoad() {
  for (auto& fds : state_fds_)
    for (int fd : fds) close(fd);
  if (stat_fd_ >= 0) close(stat_fd_);
}

bool CoreLoad::idle_ns(int cpu, uint64_t* out) {
  if (source_ == CoreSource::cpuidle) {
    if (cpu < 0 || size_t(cpu) >= state_fds_.size()) return false;
    char buf[32];
    uint64_t us = 0;
    for (int fd : state_fds_[size_t(cpu)]) {
      if (!read_text(fd, buf, sizeof buf)) return false;
      us += std::strtoull(buf, nullptr, 10);
    }
    *out = us * 1000;
    return true;
  }
  if (source_ == CoreSource::proc_stat) {
    char buf[16384];
    if (!read_text(stat_fd_, buf, sizeof buf) || !parse_proc_stat_idle(buf, ticks_)) return false;
    if (cpu < 0 || size_t(cpu) >= ticks_.size()) return false;
    *out = uint64_t(double(ticks_[size_t(cpu)]) * 1e9 / double(sysconf(_SC_CLK_TCK)));
    return true;
  }
  return false;
}

}  // namespace hio
