// SPDX-License-Identifier: MIT
// Wait strategies: how a queue waits for completions. interrupt blocks in
// the kernel; poll spins on the completion ring; hybrid sleeps (a fixed
// time or a fraction of the moving-average latency) and then spins; the
// kernel-side modes let the kernel do the waiting. The strategy can change
// from any thread at any time; it applies from the next wait.
#pragma once
#include <atomic>
#include <cstdint>

#include "adaptive/adaptive.hpp"
#include "backend/backend.hpp"
#include "hybridio/hio.h"

namespace hio {

struct WaitStats {
  uint64_t sleep_ns = 0;
  uint64_t spin_ns = 0;
  uint64_t waits = 0;
};

bool is_kernel_mode(hio_wait_mode m);

class Waiter {
 public:
  // gov: adaptive's governor (tests); the process's by default.
  explicit Waiter(Governor* gov = nullptr) : adaptive_({}, gov) {}
  // Returns 0 or -EINVAL naming the bad field.
  static int validate(const hio_strategy& s);
  void set(const hio_strategy& s);
  hio_strategy get() const;

  // Collects completions into out until at least min are there (min <= the
  // number in flight, or this never returns). Commands still queued in the
  // backend (pending) reach the device whether or not it has to wait.
  // Returns the count or -errno.
  // hint names the oldest command in flight (for the adaptive hybrid sleep).
  int wait(Backend& be, Cqe* out, unsigned max, unsigned min, bool pending, const HintSource& hint, WaitStats& st);

  // Whether a lone command may be done now as one blocking system call in
  // place of a wait: under interrupt, and under adaptive while its tick
  // waits by interrupt. A true answer is owed an end_blocking with the
  // call's time, which counts as the wait.
  bool begin_blocking(uint64_t now);
  void end_blocking(uint64_t waited_ns);

  // A successful completion: feeds the moving average that a fractional
  // hybrid sleep is based on, and the adaptive strategy's measurements.
  // upper_bound: it was found when a hybrid sleep ended, so it completed at
  // most ns after its submission. Such a sample only lowers the average:
  // under contention a sleep ends late, and taking its lateness for the
  // device's latency would lengthen the next sleep, and the next.
  void observe(uint32_t len, uint64_t ns, bool upper_bound) {
    if (!upper_bound || double(ns) < ewma_ns_)
      ewma_ns_ = ewma_ns_ == 0 ? double(ns) : ewma_ns_ + (double(ns) - ewma_ns_) / 16.0;
    if (mode_.load(std::memory_order_relaxed) == HIO_WAIT_ADAPTIVE) adaptive_.completed(len, ns, upper_bound);
  }
  // How many of the last wait's completions were found when a hybrid sleep ended.
  unsigned found_after_sleep() const { return found_after_sleep_; }
  const Adaptive& adaptive() const { return adaptive_; }
  // The sleep a hybrid wait would take now.
  uint64_t hybrid_sleep_ns() const;

 private:
  int spin(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, WaitStats& st);
  int block(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, WaitStats& st);
  int hybrid(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, uint64_t sleep, WaitStats& st);
  int adaptive_wait(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, const HintSource& hint,
                    WaitStats& st);
  std::atomic<int> mode_{HIO_WAIT_INTERRUPT};
  std::atomic<uint64_t> fixed_sleep_ns_{0};
  std::atomic<double> fraction_{0.5};
  double ewma_ns_ = 0;
  unsigned found_after_sleep_ = 0;
  bool adaptive_blocking_ = false;  // between begin_blocking and end_blocking
  Adaptive adaptive_;
};

}  // namespace hio
