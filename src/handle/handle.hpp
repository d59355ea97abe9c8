// SPDX-License-Identifier: MIT
// A handle: one target opened through one queue, or a read queue and a
// write queue, with an optional block cache and read-ahead, reaped by its
// callers or by a completion thread. Any thread may call it; its own lock
// guards only its bookkeeping, never a wait.
#pragma once
#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cache/block_cache.hpp"
#include "handle/bound_queue.hpp"
#include "handle/inbox.hpp"
#include "handle/readahead.hpp"
#include "handle/reaper.hpp"
#include "queue/io_counters.hpp"

namespace hio {

struct HandleConfig {
  OpenOptions open;
  std::shared_ptr<BoundQueue> read_q, write_q;  // write_q: null, or apart from read_q (moved into the handle)
  bool high_priority = false;
  BlockCache* cache = nullptr;
  hio_readahead readahead = HIO_READAHEAD_AUTO;
  Reaper* reaper = nullptr;
  // A private queue for writing dirty cache pages back (write-back caches).
  std::function<std::unique_ptr<Queue>()> private_queue;
};

class Handle : public PageWriter {
 public:
  // Returns nullptr with the message set.
  static std::unique_ptr<Handle> open(const std::string& spec, HandleConfig cfg);
  ~Handle() override;
  // Waits for what is in flight, writes dirty pages back, unbinds.
  int close();

  TargetInfo info() const {
    TargetInfo t = info_;
    t.size = size_.load(std::memory_order_relaxed);
    return t;
  }
  int submit(const hio_io* ios, unsigned n);
  int reap(hio_completion* out, unsigned max, unsigned min);
  int64_t sync_io(hio_op op, void* buf, uint32_t len, uint64_t offset);
  std::string describe(const hio_completion& c);

  void stats(hio_handle_stats* out);
  void stats_reset();
  int percentiles(hio_op op, const double* pcts, size_t n, uint64_t* out);

  // PageWriter: dirty pages of this target, written synchronously.
  int write_pages(uint64_t idx, const void* data, size_t npages) override;

 private:
  explicit Handle(const std::string& spec, HandleConfig cfg);
  // One command of the handle on its way through a queue.
  struct Ctx {
    uint64_t tag = 0, offset = 0, submit_ns = 0;
    void* buf = nullptr;
    uint32_t len = 0;
    hio_op op = HIO_OP_READ;
    int qi = 0;
    uint64_t dev_offset = 0;
    uint32_t dev_len = 0;  // > len when it reads ahead
    bool cached_write = false;
    bool tail = false;              // a read covering the end of the file: may come back short
    std::vector<uint64_t> tickets;  // cache tickets of the pages read
    std::unique_ptr<uint8_t, void (*)(void*)> bounce{nullptr, &std::free};
  };
  int validate(const hio_io& io) const;
  int submit_one(const hio_io& io, uint64_t now, bool defer);
  // submit_one's steps, each under mu_ (held in g where it is passed).
  void write_to_cache(const hio_io& io, uint64_t now);
  // false: the write-back failed and its completion is posted.
  bool flush_cache(const hio_io& io, uint64_t now, std::unique_lock<std::mutex>& g);
  uint32_t take_slot(const hio_io& io, uint64_t now);
  // Read-ahead into the bounce buffer, and the cache's tickets for the pages.
  void plan_cached_read(Ctx& x, const hio_io& io, hio_io& dev);
  // Takes the slot, submits with mu_ released, and undoes the slot on refusal.
  int hand_to_queue(const hio_io& io, const hio_io& dev, uint32_t slot, bool defer, std::unique_lock<std::mutex>& g);
  bool cache_read(const hio_io& io, uint64_t now);
  void post(const hio_io& io, int32_t res, uint64_t now);
  hio_completion finish(const hio_completion& raw, uint64_t now);
  // reap's steps: the completions a synchronous call set aside, and those
  // in the inbox, each into out, up to max.
  unsigned take_stashed(hio_completion* out, unsigned max);
  unsigned take_inbox(hio_completion* out, unsigned max);
  // The queue with commands outstanding, reads first; -1 if none.
  int busy_queue() const;
  // Reaps queue qi (and the write queue beside the read queue) into the inbox.
  int reap_queues(int qi, bool wait);
  void grow(uint64_t end) {
    uint64_t s = size_.load(std::memory_order_relaxed);
    while (end > s && !size_.compare_exchange_weak(s, end, std::memory_order_relaxed)) {
    }
  }
  int qi_for(hio_op op) const { return op != HIO_OP_READ && q_[1] ? 1 : 0; }

  std::string spec_;
  HandleConfig cfg_;
  std::shared_ptr<BoundQueue> q_[2];
  int target_[2] = {-1, -1};
  TargetInfo info_;
  std::atomic<uint64_t> size_{0};  // grows with writes past the end of a file
  uint64_t obj_ = 0;               // the target's identity in the cache
  Inbox inbox_;
  bool attached_ = false, closed_ = false;

  std::atomic<uint64_t> next_sync_tag_{0};  // taken without mu_: every synchronous call takes one
  std::mutex mu_;                           // everything below
  std::deque<Ctx> ctx_;
  std::vector<uint32_t> free_;
  std::deque<hio_completion> stash_;  // completions a sync helper set aside
  ReadAhead ra_;
  IoCounters io_;
  uint64_t hits_ = 0, misses_ = 0, ra_ios_ = 0, ra_pages_ = 0;
  LockWait lock_;
  std::string wb_error_;  // why the last write-back before a flush failed

  std::mutex wb_mu_;  // the write-back queue
  std::unique_ptr<Queue> wb_q_;
  int wb_target_ = -1;
  std::unique_ptr<uint8_t, void (*)(void*)> wb_buf_{nullptr, &std::free};
};

}  // namespace hio
