// SPDX-License-Identifier: MIT
// The block cache: 4 KiB pages of one or more targets, shared by their
// handles, in sharded segmented-LRU lists over one preallocated buffer;
// write-through (clean copies) or write-back (dirty pages flushed later).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "util/page.hpp"

namespace hio {

enum class WritePolicy { Through, Back };

// Writes dirty pages of one object to its device, synchronously. Supplied by
// the handle layer; must not call back into the cache.
class PageWriter {
 public:
  virtual ~PageWriter() = default;
  // npages contiguous pages starting at page idx; returns 0 or -errno.
  virtual int write_pages(uint64_t idx, const void* data, size_t npages) = 0;
};

struct CacheStats {
  uint64_t hits = 0, misses = 0;                      // read() lookups
  uint64_t fills = 0;                                 // pages installed by fill()
  uint64_t stale_fills = 0;                           // fills refused because a write came after their ticket
  uint64_t evictions = 0;                             // pages evicted
  uint64_t writebacks = 0;                            // dirty pages written by eviction or flush
  uint64_t pages = 0, dirty = 0, capacity_pages = 0;  // now
};

class BlockCache {
 public:
  static constexpr uint32_t kMaxShards = 16;
  static constexpr uint32_t kMinShardPages = 64;  // smaller caches get fewer shards, down to one
  static constexpr uint32_t kMaxRun = 64;         // pages per write_pages call of a flush

  // Returns nullptr and sets the error (hio::fail, EINVAL) for bytes < 4096;
  // ENOMEM if the storage cannot be allocated.
  static std::unique_ptr<BlockCache> create(uint64_t bytes, WritePolicy policy);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  WritePolicy policy() const { return policy_; }
  uint64_t capacity_pages() const { return capacity_; }

  // A dirty page of obj can be written back only through its writer: a
  // write-back handle attaches before writing and detaches (after flush) when
  // it closes. Attach counts references per obj; the first writer attached
  // serves until it detaches, then the next one attached for that obj.
  // detach() of the last writer of an obj with dirty pages left returns
  // -EBUSY and keeps it attached (flush first); -EINVAL if w is not attached.
  // Once detach() returns, the cache no longer calls w.
  void attach(uint64_t obj, PageWriter* w);
  int detach(uint64_t obj, PageWriter* w);

  // Copies the cached page into dst (4096 bytes) and counts a hit; false (a
  // miss, counted) if absent. A hit refreshes recency (probation -> protected).
  bool read(uint64_t obj, uint64_t idx, void* dst);
  // Same without counting and without touching recency.
  bool peek(uint64_t obj, uint64_t idx, void* dst);

  // Taken before a device read of page idx; fill() installs the read's data
  // only if no write(), invalidate() or write-back of that page happened in
  // between (else the device data may be older than the cache's). Counting
  // write-backs makes a ticket taken after the lookup that missed as good as
  // one taken before it. Conservative: pages of a shard share 64 sequence
  // numbers, so a write to another page may refuse a fill too.
  uint64_t ticket(uint64_t obj, uint64_t idx);
  // Installs a clean page if absent and the ticket is current; returns 0 or
  // -errno of a failed write-back of a dirty victim.
  int fill(uint64_t obj, uint64_t idx, const void* src, uint64_t ticket);
  // Installs or overwrites; the page is dirty if `dirty` (write-back), clean
  // otherwise (write-through). Returns 0 or -errno from a dirty victim's
  // write-back; -EINVAL for a dirty write to a write-through cache.
  int write(uint64_t obj, uint64_t idx, const void* src, bool dirty);
  // Drops the page (e.g. a write-through whose device write failed).
  void invalidate(uint64_t obj, uint64_t idx);
  // Drops obj's dirty pages: they could not be written (a failed flush)
  // and their last writer is going away. Returns how many were lost.
  uint64_t discard_dirty(uint64_t obj);

  // Writes every dirty page of obj through its writer, contiguous runs in one
  // write_pages call each (up to kMaxRun pages), and marks them clean; a page
  // written again while its old contents were being written stays dirty.
  // Returns the number of pages written or -errno of the first failure (that
  // run's pages and the ones not tried yet stay dirty). No shard lock is held
  // while the writer runs.
  int64_t flush(uint64_t obj);

  CacheStats stats() const;

 private:
  struct Shard;
  struct Writers;
  struct Free {
    void operator()(void* p) const;
  };

  BlockCache(uint64_t pages, WritePolicy policy);
  Shard& shard_of(uint64_t h) const;
  // Returns 0 with *f set to a frame free for a new page: a free one, else the
  // victim's (written back first if dirty); or -errno. *f is kNil when it
  // waited for a flush instead, and the shard may have changed meanwhile.
  int take_frame(Shard& s, std::unique_lock<std::mutex>& lk, uint32_t* f);
  std::shared_ptr<Writers> writers_of(uint64_t obj);
  // Calls obj's serving writer; -EIO with a message if it has none.
  int write_back(const std::shared_ptr<Writers>& w, uint64_t obj, uint64_t idx, const void* data, size_t n);
  uint64_t dirty_pages(uint64_t obj) const;
  // flush's steps: the object's dirty pages, sorted; one run of them (in
  // the writer's buffer) written back and marked clean where unchanged.
  std::vector<uint64_t> dirty_indices(uint64_t obj);
  int write_run(const std::shared_ptr<Writers>& w, uint64_t obj, uint64_t start, size_t n, const uint64_t* versions);

  const WritePolicy policy_;
  const uint64_t capacity_;
  uint32_t nshards_ = 1;
  std::unique_ptr<Shard[]> shards_;
  std::unique_ptr<uint8_t, Free> storage_;
  std::mutex writers_mu_;  // guards the map; each entry has its own locks
  std::unordered_map<uint64_t, std::shared_ptr<Writers>> writers_;
};

}  // namespace hio
