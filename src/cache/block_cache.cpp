// SPDX-License-Identifier: MIT
// The block cache: shards, each with an open-addressing page index, SLRU
// lists and a dirty list over its frames; victim choice, write-back, flush.
#include "cache/block_cache.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace hio {
namespace {

constexpr uint32_t kNil = UINT32_MAX;
constexpr uint32_t kSeqSlots = 64;  // write sequence numbers per shard: fewer needless fill refusals
constexpr int kCleanScan = 8;       // candidates per segment a write-back victim search checks for a clean page
constexpr uint32_t kProtectedPct = 80;

uint64_t fmix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

// The top bits choose the shard, the next ones the sequence slot, the low
// ones the index slot.
uint64_t hash_key(uint64_t obj, uint64_t idx) { return fmix(idx ^ fmix(obj + 0x9e3779b97f4a7c15ull)); }

enum class Seg : uint8_t { Probation, Protected };

struct Frame {
  uint64_t obj = 0, idx = 0;
  uint64_t version = 0;                 // new on every write: flush marks clean only what it wrote
  uint32_t prev = kNil, next = kNil;    // segment list, towards its MRU / LRU end
  uint32_t dprev = kNil, dnext = kNil;  // the shard's dirty list
  Seg seg = Seg::Probation;
  bool dirty = false;
};

struct List {
  uint32_t mru = kNil, lru = kNil, n = 0;
};

using Key = std::pair<uint64_t, uint64_t>;

}  // namespace

struct BlockCache::Shard {
  std::mutex mu;
  std::condition_variable released;  // a flush let go of pages a victim search had to skip
  uint8_t* data = nullptr;           // this shard's frames in the shared storage
  std::vector<Frame> frames;
  std::vector<uint32_t> table;  // linear probing; frame or kNil
  uint64_t mask = 0;
  std::vector<uint32_t> free;
  List prob, prot;
  uint32_t prot_max = 0;
  uint32_t dirty_head = kNil;
  // Pages whose copy a flush is writing: evicting one could let the flush's
  // older copy land on the device after the newer one.
  std::vector<Key> flushing;
  std::array<uint64_t, kSeqSlots> wseq{};
  uint64_t next_version = 0;
  uint64_t hits = 0, misses = 0, fills = 0, stale_fills = 0, evictions = 0, writebacks = 0, ndirty = 0;

  void init(uint64_t n, uint8_t* storage) {
    data = storage;
    frames.resize(n);
    uint64_t size = 1;
    while (size < 2 * n) size <<= 1;
    table.assign(size, kNil);
    mask = size - 1;
    free.reserve(n);
    for (uint64_t f = n; f-- > 0;) free.push_back(uint32_t(f));
    prot_max = uint32_t(n * kProtectedPct / 100);
  }

  uint8_t* page(uint32_t f) const { return data + uint64_t(f) * kPage; }
  uint64_t& seq(uint64_t h) { return wseq[(h >> 52) & (kSeqSlots - 1)]; }

  uint32_t find(uint64_t obj, uint64_t idx, uint64_t h) const {
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
      uint32_t f = table[i];
      if (f == kNil || (frames[f].obj == obj && frames[f].idx == idx)) return f;
    }
  }

  void index(uint32_t f, uint64_t h) {
    uint64_t i = h & mask;
    while (table[i] != kNil) i = (i + 1) & mask;
    table[i] = f;
  }

  // Backward-shift deletion: no tombstones, so lookups stay short.
  void unindex(uint32_t f) {
    uint64_t i = hash_key(frames[f].obj, frames[f].idx) & mask;
    while (table[i] != f) i = (i + 1) & mask;
    for (uint64_t j = (i + 1) & mask; table[j] != kNil; j = (j + 1) & mask) {
      const Frame& o = frames[table[j]];
      uint64_t home = hash_key(o.obj, o.idx) & mask;
      // The entry at j moves into the hole if its probe sequence passes it.
      if (((j - home) & mask) >= ((j - i) & mask)) {
        table[i] = table[j];
        i = j;
      }
    }
    table[i] = kNil;
  }

  List& list(Seg s) { return s == Seg::Protected ? prot : prob; }

  void link(uint32_t f, Seg s) {
    Frame& fr = frames[f];
    List& l = list(s);
    fr.seg = s;
    fr.prev = kNil;
    fr.next = l.mru;
    (l.mru != kNil ? frames[l.mru].prev : l.lru) = f;
    l.mru = f;
    l.n++;
  }

  void unlink(uint32_t f) {
    Frame& fr = frames[f];
    List& l = list(fr.seg);
    (fr.prev != kNil ? frames[fr.prev].next : l.mru) = fr.next;
    (fr.next != kNil ? frames[fr.next].prev : l.lru) = fr.prev;
    l.n--;
  }

  // A hit: to protected's MRU end; protected's overflow goes back to probation.
  void touch(uint32_t f) {
    unlink(f);
    link(f, Seg::Protected);
    while (prot.n > prot_max) {
      uint32_t g = prot.lru;
      unlink(g);
      link(g, Seg::Probation);
    }
  }

  void set_dirty(uint32_t f, bool d) {
    Frame& fr = frames[f];
    if (fr.dirty == d) return;
    fr.dirty = d;
    if (d) {
      fr.dprev = kNil;
      fr.dnext = dirty_head;
      if (dirty_head != kNil) frames[dirty_head].dprev = f;
      dirty_head = f;
      ndirty++;
    } else {
      (fr.dprev != kNil ? frames[fr.dprev].dnext : dirty_head) = fr.dnext;
      if (fr.dnext != kNil) frames[fr.dnext].dprev = fr.dprev;
      ndirty--;
    }
  }

  void install(uint32_t f, uint64_t obj, uint64_t idx, uint64_t h, const void* src, bool dirty) {
    Frame& fr = frames[f];
    fr.obj = obj;
    fr.idx = idx;
    fr.version = ++next_version;
    std::memcpy(page(f), src, kPage);
    index(f, h);
    link(f, Seg::Probation);
    set_dirty(f, dirty);
  }

  void remove(uint32_t f) {
    set_dirty(f, false);
    unlink(f);
    unindex(f);
  }

  bool in_flight(uint32_t f) const {
    return !flushing.empty() &&
           std::find(flushing.begin(), flushing.end(), Key{frames[f].obj, frames[f].idx}) != flushing.end();
  }

  // Probation's LRU end first, then protected's. Write-back prefers a clean
  // page among the first few candidates of each, to spare a device write.
  uint32_t victim(bool write_back) const {
    const List* lists[] = {&prob, &prot};
    if (write_back)
      for (const List* l : lists) {
        int seen = 0;
        for (uint32_t f = l->lru; f != kNil && seen < kCleanScan; f = frames[f].prev, seen++)
          if (!frames[f].dirty && !in_flight(f)) return f;
      }
    for (const List* l : lists)
      for (uint32_t f = l->lru; f != kNil; f = frames[f].prev)
        if (!in_flight(f)) return f;
    return kNil;
  }
};

struct BlockCache::Writers {
  std::mutex flush_mu;  // one flush of the obj at a time: its copies reach the device in the order they were taken
  std::mutex call_mu;   // guards list; held across write_pages so that detach waits out a call in progress
  std::vector<std::pair<PageWriter*, uint32_t>> list;  // attach order, with references
  // A flush's run, copied out; page-aligned for writers that use O_DIRECT.
  std::unique_ptr<uint8_t, Free> buf;
};

std::unique_ptr<BlockCache> BlockCache::create(uint64_t bytes, WritePolicy policy) {
  if (bytes < kPage) {
    failf(EINVAL, "block cache of %llu bytes: smaller than one %u-byte page", (unsigned long long)bytes, kPage);
    return nullptr;
  }
  uint64_t pages = bytes / kPage;
  try {
    std::unique_ptr<BlockCache> c(new BlockCache(pages, policy));
    if (c->storage_) return c;
  } catch (const std::bad_alloc&) {
  }
  failf(ENOMEM, "block cache of %llu pages: cannot allocate its storage", (unsigned long long)pages);
  return nullptr;
}

BlockCache::BlockCache(uint64_t pages, WritePolicy policy)
    : policy_(policy), capacity_(pages), storage_(static_cast<uint8_t*>(std::aligned_alloc(kPage, pages * kPage))) {
  if (!storage_) return;  // create() reports it
  while (nshards_ < kMaxShards && pages / (uint64_t(nshards_) * 2) >= kMinShardPages) nshards_ *= 2;
  shards_.reset(new Shard[nshards_]);
  uint64_t first = 0;
  for (uint32_t i = 0; i < nshards_; i++) {
    uint64_t n = pages / nshards_ + (i < pages % nshards_ ? 1 : 0);
    shards_[i].init(n, storage_.get() + first * kPage);
    first += n;
  }
}

BlockCache::~BlockCache() = default;

void BlockCache::Free::operator()(void* p) const { std::free(p); }

BlockCache::Shard& BlockCache::shard_of(uint64_t h) const { return shards_[(h >> 60) & (nshards_ - 1)]; }

std::shared_ptr<BlockCache::Writers> BlockCache::writers_of(uint64_t obj) {
  std::lock_guard g(writers_mu_);
  auto it = writers_.find(obj);
  return it == writers_.end() ? nullptr : it->second;
}

void BlockCache::attach(uint64_t obj, PageWriter* w) {
  std::lock_guard g(writers_mu_);
  std::shared_ptr<Writers>& e = writers_[obj];
  if (!e) e = std::make_shared<Writers>();
  std::lock_guard c(e->call_mu);
  auto it = std::find_if(e->list.begin(), e->list.end(), [&](const auto& p) { return p.first == w; });
  if (it != e->list.end())
    it->second++;
  else
    e->list.emplace_back(w, 1);
}

int BlockCache::detach(uint64_t obj, PageWriter* w) {
  // Counted before taking writers_mu_: shard locks come first in eviction.
  // Only an attached writer may dirty obj's pages, so none can appear
  // meanwhile if w is the last.
  uint64_t dirty = dirty_pages(obj);
  std::lock_guard g(writers_mu_);
  auto e = writers_.find(obj);
  if (e != writers_.end()) {
    auto& list = e->second->list;
    auto it = std::find_if(list.begin(), list.end(), [&](const auto& p) { return p.first == w; });
    if (it != list.end()) {
      if (list.size() == 1 && it->second == 1 && dirty)
        return failf(EBUSY, "block cache: object %llu has %llu dirty pages: flush before its last writer detaches",
                     (unsigned long long)obj, (unsigned long long)dirty);
      {
        std::lock_guard c(e->second->call_mu);  // waits out a call in progress
        if (--it->second == 0) list.erase(it);
      }
      if (list.empty()) writers_.erase(e);
      return 0;
    }
  }
  return failf(EINVAL, "block cache: writer %p is not attached to object %llu", static_cast<void*>(w),
               (unsigned long long)obj);
}

int BlockCache::write_back(const std::shared_ptr<Writers>& w, uint64_t obj, uint64_t idx, const void* data, size_t n) {
  if (w) {
    std::lock_guard g(w->call_mu);
    if (!w->list.empty()) return w->list.front().first->write_pages(idx, data, n);
  }
  return failf(EIO, "block cache: dirty page %llu of object %llu has no writer attached", (unsigned long long)idx,
               (unsigned long long)obj);
}

int BlockCache::take_frame(Shard& s, std::unique_lock<std::mutex>& lk, uint32_t* f) {
  if (!s.free.empty()) {
    *f = s.free.back();
    s.free.pop_back();
    return 0;
  }
  uint32_t v = s.victim(policy_ == WritePolicy::Back);
  if (v == kNil) {  // every page of the shard is being flushed
    s.released.wait(lk);
    *f = kNil;
    return 0;
  }
  const Frame& fr = s.frames[v];
  if (fr.dirty) {
    // Under the shard lock: the page stays readable until it is on the device.
    int r = write_back(writers_of(fr.obj), fr.obj, fr.idx, s.page(v), 1);
    if (r < 0) return r;
    s.writebacks++;
    s.seq(hash_key(fr.obj, fr.idx))++;
  }
  s.remove(v);
  s.evictions++;
  *f = v;
  return 0;
}

bool BlockCache::read(uint64_t obj, uint64_t idx, void* dst) {
  uint64_t h = hash_key(obj, idx);
  Shard& s = shard_of(h);
  std::lock_guard g(s.mu);
  uint32_t f = s.find(obj, idx, h);
  if (f == kNil) {
    s.misses++;
    return false;
  }
  std::memcpy(dst, s.page(f), kPage);
  s.hits++;
  s.touch(f);
  return true;
}

bool BlockCache::peek(uint64_t obj, uint64_t idx, void* dst) {
  uint64_t h = hash_key(obj, idx);
  Shard& s = shard_of(h);
  std::lock_guard g(s.mu);
  uint32_t f = s.find(obj, idx, h);
  if (f == kNil) return false;
  std::memcpy(dst, s.page(f), kPage);
  return true;
}

uint64_t BlockCache::ticket(uint64_t obj, uint64_t idx) {
  uint64_t h = hash_key(obj, idx);
  Shard& s = shard_of(h);
  std::lock_guard g(s.mu);
  return s.seq(h);
}

int BlockCache::fill(uint64_t obj, uint64_t idx, const void* src, uint64_t ticket) {
  uint64_t h = hash_key(obj, idx);
  Shard& s = shard_of(h);
  std::unique_lock lk(s.mu);
  for (;;) {
    if (s.seq(h) != ticket) {
      s.stale_fills++;
      return 0;
    }
    if (s.find(obj, idx, h) != kNil) return 0;
    uint32_t f;
    if (int r = take_frame(s, lk, &f); r < 0) return r;
    if (f != kNil) {
      s.install(f, obj, idx, h, src, false);
      s.fills++;
      return 0;
    }
  }
}

int BlockCache::write(uint64_t obj, uint64_t idx, const void* src, bool dirty) {
  if (dirty && policy_ == WritePolicy::Through)
    return failf(EINVAL, "block cache: dirty write of page %llu of object %llu to a write-through cache",
                 (unsigned long long)idx, (unsigned long long)obj);
  uint64_t h = hash_key(obj, idx);
  Shard& s = shard_of(h);
  std::unique_lock lk(s.mu);
  for (;;) {
    uint32_t f = s.find(obj, idx, h);
    if (f != kNil) {
      std::memcpy(s.page(f), src, kPage);
      s.frames[f].version = ++s.next_version;
      s.set_dirty(f, dirty);
      s.touch(f);
    } else {
      if (int r = take_frame(s, lk, &f); r < 0) return r;
      if (f == kNil) continue;
      s.install(f, obj, idx, h, src, dirty);
    }
    // In the same lock hold as the copy: a ticket taken any earlier, even
    // while take_frame waited, cannot fill over this page.
    s.seq(h)++;
    return 0;
  }
}

void BlockCache::invalidate(uint64_t obj, uint64_t idx) {
  uint64_t h = hash_key(obj, idx);
  Shard& s = shard_of(h);
  std::lock_guard g(s.mu);
  s.seq(h)++;
  uint32_t f = s.find(obj, idx, h);
  if (f == kNil) return;
  s.remove(f);
  s.free.push_back(f);
}

uint64_t BlockCache::discard_dirty(uint64_t obj) {
  uint64_t n = 0;
  for (uint32_t i = 0; i < nshards_; i++) {
    Shard& s = shards_[i];
    std::lock_guard g(s.mu);
    for (uint32_t f = s.dirty_head; f != kNil;) {
      uint32_t next = s.frames[f].dnext;
      if (s.frames[f].obj == obj) {
        s.seq(hash_key(obj, s.frames[f].idx))++;
        s.remove(f);
        s.free.push_back(f);
        n++;
      }
      f = next;
    }
  }
  return n;
}

uint64_t BlockCache::dirty_pages(uint64_t obj) const {
  uint64_t n = 0;
  for (uint32_t i = 0; i < nshards_; i++) {
    Shard& s = shards_[i];
    std::lock_guard g(s.mu);
    for (uint32_t f = s.dirty_head; f != kNil; f = s.frames[f].dnext) n += s.frames[f].obj == obj;
  }
  return n;
}

std::vector<uint64_t> BlockCache::dirty_indices(uint64_t obj) {
  std::vector<uint64_t> idxs;
  for (uint32_t i = 0; i < nshards_; i++) {
    Shard& s = shards_[i];
    std::lock_guard g(s.mu);
    for (uint32_t f = s.dirty_head; f != kNil; f = s.frames[f].dnext)
      if (s.frames[f].obj == obj) idxs.push_back(s.frames[f].idx);
  }
  std::sort(idxs.begin(), idxs.end());
  return idxs;
}

int BlockCache::write_run(const std::shared_ptr<Writers>& w, uint64_t obj, uint64_t start, size_t n,
                          const uint64_t* versions) {
  int r = write_back(w, obj, start, w->buf.get(), n);
  for (size_t i = 0; i < n; i++) {
    uint64_t h = hash_key(obj, start + i);
    Shard& s = shard_of(h);
    {
      std::lock_guard g(s.mu);
      auto it = std::find(s.flushing.begin(), s.flushing.end(), Key{obj, start + i});
      *it = s.flushing.back();
      s.flushing.pop_back();
      if (r == 0) {
        s.writebacks++;
        s.seq(h)++;
        uint32_t f = s.find(obj, start + i, h);
        if (f != kNil && s.frames[f].version == versions[i]) s.set_dirty(f, false);
      }
    }
    s.released.notify_all();
  }
  return r;
}

int64_t BlockCache::flush(uint64_t obj) {
  std::shared_ptr<Writers> w = writers_of(obj);
  if (!w) {
    uint64_t dirty = dirty_pages(obj);
    if (!dirty) return 0;
    return failf(EIO, "block cache: object %llu has %llu dirty pages and no writer attached", (unsigned long long)obj,
                 (unsigned long long)dirty);
  }
  std::lock_guard fl(w->flush_mu);
  std::vector<uint64_t> idxs = dirty_indices(obj);
  if (idxs.empty()) return 0;
  if (!w->buf) {
    w->buf.reset(static_cast<uint8_t*>(std::aligned_alloc(kPage, size_t(kMaxRun) * kPage)));
    if (!w->buf) return failf(ENOMEM, "block cache: no memory for a flush buffer");
  }
  // The run being gathered: pages start.. start+n-1, copied into buf.
  uint64_t start = 0;
  size_t n = 0;
  std::array<uint64_t, kMaxRun> versions;
  int64_t written = 0;
  for (uint64_t idx : idxs) {
    if (n && (idx != start + n || n == kMaxRun)) {
      if (int r = write_run(w, obj, start, n, versions.data()); r < 0) return r;
      written += int64_t(n);
      n = 0;
    }
    uint64_t h = hash_key(obj, idx);
    Shard& s = shard_of(h);
    std::lock_guard g(s.mu);
    uint32_t f = s.find(obj, idx, h);
    if (f == kNil || !s.frames[f].dirty) continue;  // evicted or flushed meanwhile: the run ends here
    if (n == 0) start = idx;
    std::memcpy(w->buf.get() + n * kPage, s.page(f), kPage);
    versions[n++] = s.frames[f].version;
    s.flushing.emplace_back(obj, idx);
  }
  if (n)
    if (int r = write_run(w, obj, start, n, versions.data()); r < 0) return r;
  return written + int64_t(n);
}

CacheStats BlockCache::stats() const {
  CacheStats st;
  st.capacity_pages = capacity_;
  for (uint32_t i = 0; i < nshards_; i++) {
    Shard& s = shards_[i];
    std::lock_guard g(s.mu);
    st.hits += s.hits;
    st.misses += s.misses;
    st.fills += s.fills;
    st.stale_fills += s.stale_fills;
    st.evictions += s.evictions;
    st.writebacks += s.writebacks;
    st.pages += s.frames.size() - s.free.size();
    st.dirty += s.ndirty;
  }
  return st;
}

}  // namespace hio
