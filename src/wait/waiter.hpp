// Wait strategies: how a queue waits for completions. interrupt blocks in
// the kernel; poll spins on the completion ring; hybrid sleeps (a fixed
// time or a fraction of the moving-average latency) and then spins; the
// kernel-side modes let the kernel do the waiting. The strategy can change
// from any thread at any time; it applies from the next wait.
#pragma once
#include <atomic>
#include <cstdint>

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
  // Returns 0 or -EINVAL naming the bad field.
  static int validate(const hio_strategy& s);
  void set(const hio_strategy& s);
  hio_strategy get() const;

  // Collects completions into out until at least min are there (min <= the
  // number in flight, or this never returns). Commands still queued in the
  // backend (pending) reach the device whether or not it has to wait.
  // Returns the count or -errno.
  int wait(Backend& be, Cqe* out, unsigned max, unsigned min, bool pending, WaitStats& st);

  // Feeds the moving average that a fractional hybrid sleep is based on.
  void observe_latency(uint64_t ns) {
    ewma_ns_ = ewma_ns_ == 0 ? double(ns) : ewma_ns_ + (double(ns) - ewma_ns_) / 16.0;
  }
  // The sleep a hybrid wait would take now.
  uint64_t hybrid_sleep_ns() const;

 private:
  int spin(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, WaitStats& st);
  std::atomic<int> mode_{HIO_WAIT_INTERRUPT};
  std::atomic<uint64_t> fixed_sleep_ns_{0};
  std::atomic<double> fraction_{0.5};
  double ewma_ns_ = 0;
};

}  // namespace hio
