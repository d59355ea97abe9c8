// SPDX-License-Identifier: MIT
// A queue: one submission/completion ring, its in-flight slots, its wait
// strategy and its statistics. A dedicated queue takes no lock; a shared
// queue serialises every call on one mutex, the baseline it exists to be.
#pragma once
#include <pthread.h>
#include <sys/types.h>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "emu/devices.hpp"
#include "queue/io_counters.hpp"
#include "queue/io_trace.hpp"
#include "util/page.hpp"
#include "wait/waiter.hpp"

namespace hio {

// The most commands a queue holds in flight.
constexpr unsigned kMaxDepth = 4096;

// A read of a regular file of `size` bytes that starts before its end and
// stops within its last, partial page: O_DIRECT and whole-page caches read
// that page whole, and get the bytes up to the end.
inline bool reads_file_tail(const hio_io& io, bool growable, uint64_t size) {
  return io.op == HIO_OP_READ && growable && io.offset < size &&
         io.offset + io.len <= (size + kPage - 1) / kPage * kPage;
}

// A queue's options: the C API's hio_queue_opts, without its ABI framing.
struct QueueOptions {
  unsigned depth = 64;
  unsigned flags = 0;  // HIO_QUEUE_*
  hio_strategy strategy{};
};

class Queue {
 public:
  // Returns nullptr with the message set for bad options.
  static std::unique_ptr<Queue> create(const QueueOptions& opts, Devices devices);
  // Waits for the commands still in flight: the device may write into
  // their buffers until they complete.
  ~Queue();

  int open(const std::string& spec, const OpenOptions& opts);
  // Closes a target with nothing in flight (its id may be reused).
  void close_target(int target);
  int target_info(int target, hio_target_info* out);
  // An open target's description (target must be valid).
  TargetInfo target(int t) const { return targets_[size_t(t)]; }
  int register_buffer(void* base, size_t len);
  int set_strategy(const hio_strategy& s);
  hio_strategy strategy() const { return waiter_.get(); }
  unsigned depth() const { return depth_; }

  int submit(const hio_io* ios, unsigned n, unsigned flags);
  int reap(hio_completion* out, unsigned max, unsigned min);
  unsigned inflight();
  int64_t sync_io(hio_op op, int target, void* buf, uint32_t len, uint64_t offset);
  // A lone read or write waited for by interrupt (also in an adaptive tick
  // that waits so), done as one blocking system call on the file: through
  // io_uring it costs about 5 µs more CPU here. Returns 1 with *out filled,
  // 0 where it does not apply (another strategy, anything in flight, a
  // target that is no plain file), or -errno.
  int blocking_io(const hio_io& io, hio_completion* out);
  std::string describe(const hio_completion& c);

  int stats(hio_queue_stats* out);
  void stats_reset();
  int percentiles(hio_op op, const double* pcts, size_t n, uint64_t* out);
  int adaptive_view(hio_adaptive_view* out);

 private:
  Queue(const QueueOptions& opts, Devices devices);
  struct Slot {
    uint64_t tag;
    uint64_t submit_ns;
    uint64_t offset;
    uint32_t len;
    int target;
    hio_op op;
    bool busy;
  };
  WaitHint oldest() const;
  int validate(const hio_io& io);
  int blocking_io_locked(const hio_io& io, hio_completion* out);
  int submit_locked(const hio_io* ios, unsigned n, unsigned flags);
  int reap_locked(hio_completion* out, unsigned max, unsigned min);
  std::unique_lock<std::mutex> guard();
  void reset_counters();

  unsigned depth_;
  bool shared_;
  std::mutex mu_;
  Devices devices_;
  std::unique_ptr<Backend> be_;
  std::vector<TargetInfo> targets_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;
  std::vector<Cqe> cqes_;
  unsigned unsubmitted_ = 0;
  std::deque<hio_completion> stash_;  // completions a sync helper set aside
  uint64_t next_sync_tag_ = 0;
  Waiter waiter_;
  hio_wait_mode ring_mode_ = HIO_WAIT_INTERRUPT;  // kernel mode the ring was built for

  // statistics
  WaitStats wait_;
  IoCounters io_;
  std::atomic<uint64_t> mode_changes_{0};  // set_strategy may come from any thread
  struct {
    uint64_t ns[kModes], switches, probes;
  } adaptive_base_{};  // the adaptive counters at the last reset
  uint64_t start_ns_ = 0, start_cpu_ns_ = 0;
  pid_t owner_ = 0;            // the thread whose CPU time is accounted
  uint64_t owner_cpu_ns_ = 0;  // its last reading

  // HIO_IO_TRACE: this queue's number in the trace, and when it last returned from a reap.
  IoTrace* trace_ = IoTrace::get();
  unsigned trace_queue_ = trace_ ? trace_->next_queue() : 0;
  uint64_t returned_ns_ = 0;
  void trace_read(const hio_io& io, uint64_t now) {
    if (trace_ && io.op == HIO_OP_READ) trace_->read(trace_queue_, io.len, returned_ns_ ? now - returned_ns_ : 0);
  }
};

}  // namespace hio
