// SPDX-License-Identifier: MIT
// The completion thread: reaps the queues bound to it without blocking,
// high-priority queues first, delivers to the handles' inboxes, then sleeps
// a poll period (fixed, 0 to spin, or tuned by PollPeriodTuner) before the
// next pass; with nothing in flight it sleeps until a submission.
#pragma once
#include <pthread.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "handle/bound_queue.hpp"
#include "handle/poll_period.hpp"
#include "hybridio/hio.h"

namespace hio {

class Governor;

// The completion thread's options: the C API's hio_reaper_opts, without its ABI framing.
struct ReaperOptions {
  uint64_t poll_period_ns = HIO_POLL_PERIOD_AUTO;  // between reaps; 0 spins
  int cpu = -1;                                    // pin to this CPU; -1: any
};

class Reaper {
 public:
  // Returns nullptr with the message set for bad options. gov is the
  // process's view of the cores, which the automatic period reads.
  static std::unique_ptr<Reaper> create(const ReaperOptions& o, Governor& gov);
  ~Reaper();

  // Handles bind and unbind queues; a queue stays while any handle has it.
  void add(const std::shared_ptr<BoundQueue>& q);
  void remove(const std::shared_ptr<BoundQueue>& q);
  // A command was submitted to one of its queues: wake it if idle.
  void kick() {
    if (idle_.load()) {
      std::lock_guard<std::mutex> g(mu_);
      work_ = true;
      cv_.notify_one();
    }
  }
  void stats(hio_reaper_stats* out);

 private:
  Reaper(const ReaperOptions& o, Governor& gov);
  void run();
  bool pass(uint64_t& delivered);
  void idle_wait();

  bool auto_;
  Governor& gov_;
  std::mutex mu_;  // the queue list and the idle handshake
  std::condition_variable cv_;
  std::vector<std::shared_ptr<BoundQueue>> queues_;  // high priority first
  std::vector<unsigned> refs_;                       // handles per queue
  std::atomic<uint64_t> version_{0};                 // queues_ changed
  bool stop_ = false, work_ = false;
  std::atomic<bool> idle_{false};
  std::thread thread_;
  pthread_t tid_{};
  uint64_t start_ns_ = 0;

  // Counters the thread updates and stats() reads.
  std::atomic<uint64_t> rounds_{0}, sleeps_{0}, idle_waits_{0}, completions_{0}, slept_ns_{0};
  std::atomic<uint64_t> period_ns_{0};
  std::atomic<double> contention_{0};
};

}  // namespace hio
