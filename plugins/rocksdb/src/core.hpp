// SPDX-License-Identifier: MIT
// What a hybridio file system shares among its files: the engine, the block
// cache, one queue per thread that does I/O, and the statistics.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config.hpp"
#include "hybridio/hio.h"
#include "hybridio/rocksdb.h"

namespace hybridio::rocksdb {

class Core;

// Counted by one thread, read by any: a plain load and store, no locked add.
struct Counters {
  std::atomic<uint64_t> reads{0}, read_bytes{0}, multi_reads{0}, async_reads{0};
  std::atomic<uint64_t> writes{0}, write_bytes{0}, syncs{0};
  static void add(std::atomic<uint64_t>& c, uint64_t n) {
    c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  void add_to(Stats* s) const;
};

// A thread's queue: RocksDB calls a file from many threads, and each thread
// waits for its own I/O under the strategy, so that the adaptive strategy
// measures the contention of the thread that waits.
struct ThreadQueue {
  ThreadQueue(std::shared_ptr<Core> c, hio_queue* q, bool background)
      : core(std::move(c)), q(q), background(background) {}
  ~ThreadQueue();
  std::shared_ptr<Core> core;
  hio_queue* q;
  bool background;    // a RocksDB flush or compaction thread's
  Counters counters;  // this thread's I/O through the core
};

class Core : public std::enable_shared_from_this<Core> {
 public:
  // nullptr with *err set when the engine or the cache cannot be made.
  static std::shared_ptr<Core> Create(const Config& cfg, std::string* err);
  ~Core();

  const Config& config() const { return cfg_; }
  hio_engine* engine() const { return engine_; }
  hio_cache* cache() const { return cache_; }

  // The calling thread's queue, made on its first I/O; nullptr with *err set.
  std::shared_ptr<ThreadQueue> ThisThreadQueue(std::string* err);
  Stats Collect();
  // Writes the statistics where the URI's stats key says, once.
  void Report();

 private:
  friend struct ThreadQueue;
  explicit Core(const Config& cfg) : cfg_(cfg) {}
  void Retire(const ThreadQueue& tq);

  Config cfg_;
  hio_engine* engine_ = nullptr;
  hio_cache* cache_ = nullptr;
  std::atomic<bool> reported_{false};
  std::mutex mu_;  // below
  std::vector<std::weak_ptr<ThreadQueue>> live_;
  Stats retired_;  // queues whose threads have ended
};

}  // namespace hybridio::rocksdb
