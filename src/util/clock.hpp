// SPDX-License-Identifier: MIT
// Monotonic and per-thread CPU clocks in nanoseconds.
#pragma once
#include <pthread.h>
#include <time.h>

#include <cstdint>

namespace hio {

inline uint64_t ts_ns(const timespec& ts) { return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec); }

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts_ns(ts);
}

inline uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts_ns(ts);
}

// CPU time of another (live) thread of this process.
inline uint64_t thread_cpu_ns(pthread_t t) {
  clockid_t cid;
  if (pthread_getcpuclockid(t, &cid) != 0) return 0;
  timespec ts;
  if (clock_gettime(cid, &ts) != 0) return 0;
  return ts_ns(ts);
}

// CPU time of a thread of this process by its kernel id; 0 once it has
// ended (unlike a pthread_t, a tid cannot point at freed memory).
inline uint64_t thread_cpu_ns_tid(pid_t tid) {
  // The kernel's per-thread CPU clock id: MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED).
  clockid_t cid = clockid_t((~unsigned(tid) << 3) | 6u);
  timespec ts;
  if (clock_gettime(cid, &ts) != 0) return 0;
  return ts_ns(ts);
}

inline timespec ns_to_ts(uint64_t ns) { return timespec{time_t(ns / 1000000000ull), long(ns % 1000000000ull)}; }

}  // namespace hio
