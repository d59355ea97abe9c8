// SPDX-License-Identifier: MIT
// The block cache: page round trips, hit and miss counts, exact capacity,
// SLRU scan resistance, fill tickets, write-back through a recording writer,
// writer attachment, and mixed use by several threads.
#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cache/block_cache.hpp"
#include "hybridio/hio.h"

using hio::BlockCache;
using hio::kPage;
using hio::WritePolicy;

namespace {

using Page = std::array<uint64_t, kPage / 8>;

// Every word differs, so a torn or shifted copy shows; pat(0) is the
// contents of a page never written.
Page pat(uint64_t v) {
  Page p;
  for (size_t i = 0; i < p.size(); i++) p[i] = v ^ (i * 0x9e3779b97f4a7c15ull);
  return p;
}

// The value a page was made from by pat(), or -1 if it was not.
int64_t value_of(const Page& p) { return p == pat(p[0]) ? int64_t(p[0]) : -1; }

testing::AssertionResult Contains(const std::string& hay, const std::string& needle) {
  if (hay.find(needle) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << hay << "' does not contain '" << needle << "'";
}

std::unique_ptr<BlockCache> make(uint64_t pages, WritePolicy p) {
  auto c = BlockCache::create(pages * kPage, p);
  EXPECT_TRUE(c) << hio_last_error();
  return c;
}

// A device that records each write_pages call; fail makes the calls fail
// without storing anything.
class Recorder : public hio::PageWriter {
 public:
  struct Call {
    uint64_t idx;
    size_t npages;
    std::vector<Page> data;
  };

  int write_pages(uint64_t idx, const void* data, size_t npages) override {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % kPage, 0u);
    if (during) std::exchange(during, nullptr)();
    std::lock_guard g(mu_);
    Call c{idx, npages, std::vector<Page>(npages)};
    std::memcpy(c.data.data(), data, npages * kPage);
    calls_.push_back(c);
    if (fail) return fail;
    for (size_t i = 0; i < npages; i++) pages_[idx + i] = c.data[i];
    return 0;
  }

  Page read(uint64_t idx) const {
    std::lock_guard g(mu_);
    auto it = pages_.find(idx);
    return it == pages_.end() ? pat(0) : it->second;
  }
  std::vector<Call> calls() const {
    std::lock_guard g(mu_);
    return calls_;
  }

  int fail = 0;
  std::function<void()> during;  // run once, inside the next call

 private:
  mutable std::mutex mu_;
  std::vector<Call> calls_;
  std::map<uint64_t, Page> pages_;
};

bool has(BlockCache& c, uint64_t obj, uint64_t idx) {
  Page p;
  return c.peek(obj, idx, p.data());
}

Page get(BlockCache& c, uint64_t obj, uint64_t idx) {
  Page p{};
  EXPECT_TRUE(c.peek(obj, idx, p.data())) << "obj " << obj << " page " << idx;
  return p;
}

void fill(BlockCache& c, uint64_t obj, uint64_t idx, uint64_t v) {
  uint64_t t = c.ticket(obj, idx);
  Page p = pat(v);
  ASSERT_EQ(c.fill(obj, idx, p.data(), t), 0);
}

int write(BlockCache& c, uint64_t obj, uint64_t idx, uint64_t v, bool dirty) {
  Page p = pat(v);
  return c.write(obj, idx, p.data(), dirty);
}

TEST(Cache, RejectsLessThanOnePage) {
  EXPECT_FALSE(BlockCache::create(4095, WritePolicy::Back));
  EXPECT_TRUE(Contains(hio_last_error(), "4095 bytes"));
  EXPECT_FALSE(BlockCache::create(0, WritePolicy::Through));
  auto c = BlockCache::create(4096, WritePolicy::Through);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->capacity_pages(), 1u);
}

TEST(Cache, CapacityIsWholePages) {
  auto c = BlockCache::create(10 * kPage + 100, WritePolicy::Back);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->capacity_pages(), 10u);
  EXPECT_EQ(c->stats().capacity_pages, 10u);
  EXPECT_EQ(c->policy(), WritePolicy::Back);
  EXPECT_EQ(c->stats().pages, 0u);
}

TEST(Cache, ReadAfterWriteReturnsThePage) {
  auto c = make(64, WritePolicy::Through);
  ASSERT_EQ(write(*c, 1, 5, 42, false), 0);
  Page p{};
  ASSERT_TRUE(c->read(1, 5, p.data()));
  EXPECT_EQ(value_of(p), 42);
  // Overwriting replaces it in place; the same index of another obj is another page.
  ASSERT_EQ(write(*c, 1, 5, 43, false), 0);
  EXPECT_EQ(value_of(get(*c, 1, 5)), 43);
  EXPECT_FALSE(c->read(2, 5, p.data()));
  EXPECT_EQ(c->stats().pages, 1u);
}

TEST(Cache, FillThenReadReturnsThePage) {
  auto c = make(64, WritePolicy::Through);
  fill(*c, 3, 7, 99);
  Page p{};
  ASSERT_TRUE(c->read(3, 7, p.data()));
  EXPECT_EQ(value_of(p), 99);
  // A fill never replaces a cached page: the cache's copy is at least as new.
  fill(*c, 3, 7, 100);
  EXPECT_EQ(value_of(get(*c, 3, 7)), 99);
  EXPECT_EQ(c->stats().fills, 1u);
}

TEST(Cache, CountsHitsAndMissesOfReadsOnly) {
  auto c = make(64, WritePolicy::Through);
  Page p{};
  EXPECT_FALSE(c->read(1, 0, p.data()));
  EXPECT_FALSE(c->peek(1, 0, p.data()));
  fill(*c, 1, 0, 1);
  EXPECT_TRUE(c->read(1, 0, p.data()));
  EXPECT_TRUE(c->read(1, 0, p.data()));
  EXPECT_TRUE(c->peek(1, 0, p.data()));
  hio::CacheStats s = c->stats();
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.fills, 1u);
  EXPECT_EQ(s.pages, 1u);
}

TEST(Cache, HoldsExactlyItsCapacity) {
  auto c = make(8, WritePolicy::Through);
  for (uint64_t i = 0; i < 8; i++) fill(*c, 1, i, i + 1);
  for (uint64_t i = 0; i < 8; i++) EXPECT_EQ(value_of(get(*c, 1, i)), int64_t(i + 1));
  EXPECT_EQ(c->stats().pages, 8u);
  EXPECT_EQ(c->stats().evictions, 0u);

  // The ninth evicts the least recently used, and only it.
  fill(*c, 1, 8, 9);
  hio::CacheStats s = c->stats();
  EXPECT_EQ(s.pages, 8u);
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_FALSE(has(*c, 1, 0));
  for (uint64_t i = 1; i <= 8; i++) EXPECT_TRUE(has(*c, 1, i)) << i;
}

TEST(Cache, OnePageCacheHoldsOnePage) {
  auto c = make(1, WritePolicy::Through);
  fill(*c, 1, 0, 1);
  ASSERT_EQ(write(*c, 2, 0, 2, false), 0);
  EXPECT_FALSE(has(*c, 1, 0));
  EXPECT_EQ(value_of(get(*c, 2, 0)), 2);
  Page p{};
  EXPECT_TRUE(c->read(2, 0, p.data()));  // a hit with no room in protected
  EXPECT_EQ(c->stats().pages, 1u);
}

// Hot pages are filled, then read (twice used) or not; then a scan of ten
// times the capacity in one-touch pages. Returns how many hot pages survive.
int hot_pages_after_scan(bool touch_twice) {
  auto c = make(16, WritePolicy::Through);
  constexpr int kHot = 8;
  for (int i = 0; i < kHot; i++) fill(*c, 1, uint64_t(i), 1);
  Page p{};
  if (touch_twice) {
    for (int i = 0; i < kHot; i++) EXPECT_TRUE(c->read(1, uint64_t(i), p.data()));
  }
  for (uint64_t i = 0; i < 160; i++) fill(*c, 2, i, 2);
  int left = 0;
  for (int i = 0; i < kHot; i++) left += has(*c, 1, uint64_t(i));
  return left;
}

TEST(Cache, PagesUsedTwiceSurviveAScan) { EXPECT_EQ(hot_pages_after_scan(true), 8); }

TEST(Cache, PagesUsedOnceDoNotSurviveAScan) { EXPECT_EQ(hot_pages_after_scan(false), 0); }

TEST(Cache, FillIsRefusedAfterAWrite) {
  auto c = make(64, WritePolicy::Through);
  uint64_t t = c->ticket(1, 3);
  ASSERT_EQ(write(*c, 1, 3, 7, false), 0);
  Page old = pat(6);
  EXPECT_EQ(c->fill(1, 3, old.data(), t), 0);
  EXPECT_EQ(value_of(get(*c, 1, 3)), 7);
  // Refused even once the written page is gone.
  c->invalidate(1, 3);
  EXPECT_EQ(c->fill(1, 3, old.data(), t), 0);
  EXPECT_FALSE(has(*c, 1, 3));
  EXPECT_EQ(c->stats().stale_fills, 2u);
  EXPECT_EQ(c->stats().fills, 0u);
}

TEST(Cache, FillIsRefusedAfterAnInvalidate) {
  auto c = make(64, WritePolicy::Through);
  uint64_t t = c->ticket(1, 4);
  c->invalidate(1, 4);
  Page p = pat(5);
  EXPECT_EQ(c->fill(1, 4, p.data(), t), 0);
  EXPECT_FALSE(has(*c, 1, 4));
  EXPECT_EQ(c->stats().stale_fills, 1u);
  // A ticket taken afterwards is current.
  fill(*c, 1, 4, 5);
  EXPECT_EQ(value_of(get(*c, 1, 4)), 5);
}

TEST(Cache, DirtyWriteToAWriteThroughCacheIsRejected) {
  auto c = make(8, WritePolicy::Through);
  EXPECT_EQ(write(*c, 1, 0, 1, true), -EINVAL);
  EXPECT_FALSE(has(*c, 1, 0));
}

TEST(CacheWriteBack, DirtyPagesStayUntilFlushInCoalescedRuns) {
  auto c = make(64, WritePolicy::Back);
  Recorder rec;
  c->attach(1, &rec);
  for (uint64_t i : {10, 0, 6, 2, 1, 5}) ASSERT_EQ(write(*c, 1, i, 100 + i, true), 0);
  ASSERT_EQ(write(*c, 2, 3, 1, false), 0);  // another obj's clean page: not flushed
  EXPECT_EQ(c->stats().dirty, 6u);
  EXPECT_TRUE(rec.calls().empty());

  EXPECT_EQ(c->flush(1), 6);
  std::vector<Recorder::Call> calls = rec.calls();
  ASSERT_EQ(calls.size(), 3u);
  std::vector<std::pair<uint64_t, size_t>> runs;
  for (const auto& k : calls) {
    runs.emplace_back(k.idx, k.npages);
    for (size_t i = 0; i < k.npages; i++) EXPECT_EQ(value_of(k.data[i]), int64_t(100 + k.idx + i));
  }
  EXPECT_EQ(runs, (std::vector<std::pair<uint64_t, size_t>>{{0, 3}, {5, 2}, {10, 1}}));
  hio::CacheStats s = c->stats();
  EXPECT_EQ(s.dirty, 0u);
  EXPECT_EQ(s.writebacks, 6u);
  EXPECT_EQ(s.pages, 7u);  // clean now, still cached
  EXPECT_EQ(value_of(get(*c, 1, 6)), 106);

  EXPECT_EQ(c->flush(1), 0);
  EXPECT_EQ(rec.calls().size(), 3u);
  EXPECT_EQ(c->detach(1, &rec), 0);
}

TEST(CacheWriteBack, FlushRunsSpanShardsUpToTheRunLimit) {
  auto c = make(1024, WritePolicy::Back);  // 16 shards
  Recorder rec;
  c->attach(1, &rec);
  for (uint64_t i = 0; i < 70; i++) ASSERT_EQ(write(*c, 1, 1000 + i, i, true), 0);
  EXPECT_EQ(c->flush(1), 70);
  std::vector<Recorder::Call> calls = rec.calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].idx, 1000u);
  EXPECT_EQ(calls[0].npages, size_t(BlockCache::kMaxRun));
  EXPECT_EQ(calls[1].idx, 1000u + BlockCache::kMaxRun);
  EXPECT_EQ(calls[1].npages, 70u - BlockCache::kMaxRun);
  for (uint64_t i = 0; i < 70; i++) EXPECT_EQ(value_of(rec.read(1000 + i)), int64_t(i));
  EXPECT_EQ(c->detach(1, &rec), 0);
}

TEST(CacheWriteBack, FailedFlushLeavesPagesDirty) {
  auto c = make(64, WritePolicy::Back);
  Recorder rec;
  c->attach(1, &rec);
  for (uint64_t i = 0; i < 3; i++) ASSERT_EQ(write(*c, 1, i, i + 1, true), 0);
  rec.fail = -EIO;
  EXPECT_EQ(c->flush(1), -EIO);
  EXPECT_EQ(c->stats().dirty, 3u);
  EXPECT_EQ(c->stats().writebacks, 0u);
  rec.fail = 0;
  EXPECT_EQ(c->flush(1), 3);
  EXPECT_EQ(c->stats().dirty, 0u);
  for (uint64_t i = 0; i < 3; i++) EXPECT_EQ(value_of(rec.read(i)), int64_t(i + 1));
  EXPECT_EQ(c->detach(1, &rec), 0);
}

TEST(CacheWriteBack, PageWrittenDuringItsFlushStaysDirty) {
  auto c = make(64, WritePolicy::Back);
  Recorder rec;
  c->attach(1, &rec);
  ASSERT_EQ(write(*c, 1, 0, 1, true), 0);
  // Another thread writes the page while the flush is writing its old copy
  // (the flush holds no shard lock then).
  rec.during = [&] { std::thread([&] { EXPECT_EQ(write(*c, 1, 0, 2, true), 0); }).join(); };
  EXPECT_EQ(c->flush(1), 1);
  EXPECT_EQ(value_of(rec.read(0)), 1);
  EXPECT_EQ(c->stats().dirty, 1u);
  EXPECT_EQ(value_of(get(*c, 1, 0)), 2);
  EXPECT_EQ(c->flush(1), 1);
  EXPECT_EQ(value_of(rec.read(0)), 2);
  EXPECT_EQ(c->stats().dirty, 0u);
  EXPECT_EQ(c->detach(1, &rec), 0);
}

TEST(CacheWriteBack, EvictingADirtyPageWritesItBack) {
  auto c = make(4, WritePolicy::Back);
  Recorder rec;
  c->attach(1, &rec);
  for (uint64_t i = 0; i < 4; i++) ASSERT_EQ(write(*c, 1, i, 50 + i, true), 0);
  EXPECT_TRUE(rec.calls().empty());
  ASSERT_EQ(write(*c, 1, 4, 54, true), 0);
  std::vector<Recorder::Call> calls = rec.calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].idx, 0u);
  EXPECT_EQ(calls[0].npages, 1u);
  EXPECT_EQ(value_of(rec.read(0)), 50);
  EXPECT_FALSE(has(*c, 1, 0));
  hio::CacheStats s = c->stats();
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_EQ(s.writebacks, 1u);
  EXPECT_EQ(s.dirty, 4u);
  EXPECT_EQ(c->flush(1), 4);
  EXPECT_EQ(c->detach(1, &rec), 0);
}

TEST(CacheWriteBack, FillAfterAWriteBackIsRefused) {
  auto c = make(1, WritePolicy::Back);
  Recorder rec;
  c->attach(1, &rec);
  ASSERT_EQ(write(*c, 1, 0, 1, true), 0);
  // A read of page 0 that missed just before the write, its ticket taken
  // after: the device still had the old data when it was read.
  uint64_t t = c->ticket(1, 0);
  Page old = pat(0);
  ASSERT_EQ(write(*c, 2, 0, 2, false), 0);  // evicts page 0, writing it back
  EXPECT_EQ(c->fill(1, 0, old.data(), t), 0);
  EXPECT_FALSE(has(*c, 1, 0));
  EXPECT_EQ(c->stats().stale_fills, 1u);
  EXPECT_EQ(c->detach(1, &rec), 0);
}

TEST(CacheWriteBack, CleanPagesAreEvictedBeforeDirtyOnes) {
  auto c = make(8, WritePolicy::Back);
  Recorder rec;
  c->attach(1, &rec);
  // The dirty pages are the least recently used.
  for (uint64_t i = 0; i < 4; i++) ASSERT_EQ(write(*c, 1, i, i, true), 0);
  for (uint64_t i = 4; i < 8; i++) fill(*c, 1, i, i);
  for (uint64_t i = 8; i < 12; i++) fill(*c, 1, i, i);
  EXPECT_TRUE(rec.calls().empty());
  for (uint64_t i = 0; i < 4; i++) EXPECT_TRUE(has(*c, 1, i)) << i;
  for (uint64_t i = 4; i < 8; i++) EXPECT_FALSE(has(*c, 1, i)) << i;
  hio::CacheStats s = c->stats();
  EXPECT_EQ(s.evictions, 4u);
  EXPECT_EQ(s.writebacks, 0u);
  EXPECT_EQ(s.dirty, 4u);
  EXPECT_EQ(c->flush(1), 4);
  EXPECT_EQ(c->detach(1, &rec), 0);
}

TEST(CacheWriteBack, LastWriterCannotDetachWithDirtyPages) {
  auto c = make(16, WritePolicy::Back);
  Recorder a, b;
  c->attach(1, &a);
  c->attach(1, &b);
  ASSERT_EQ(write(*c, 1, 0, 1, true), 0);
  // The first attached serves; b may leave while a stays.
  EXPECT_EQ(c->detach(1, &b), 0);
  EXPECT_EQ(c->detach(1, &a), -EBUSY);
  EXPECT_TRUE(Contains(hio_last_error(), "dirty"));
  EXPECT_EQ(c->detach(1, &b), -EINVAL);  // no longer attached
  EXPECT_EQ(c->flush(1), 1);
  EXPECT_EQ(a.calls().size(), 1u);
  EXPECT_TRUE(b.calls().empty());
  EXPECT_EQ(c->detach(1, &a), 0);
}

TEST(CacheWriteBack, DiscardDropsOneObjectsDirtyPagesOnly) {
  auto c = make(16, WritePolicy::Back);
  Recorder a, b;
  c->attach(1, &a);
  c->attach(2, &b);
  for (uint64_t i = 0; i < 3; i++) ASSERT_EQ(write(*c, 1, i, i, true), 0);
  for (uint64_t i = 0; i < 2; i++) ASSERT_EQ(write(*c, 2, i, i, true), 0);
  EXPECT_EQ(c->discard_dirty(1), 3u);
  std::vector<uint8_t> buf(kPage);
  EXPECT_FALSE(c->peek(1, 0, buf.data()));
  EXPECT_TRUE(c->peek(2, 0, buf.data()));
  EXPECT_EQ(c->stats().dirty, 2u);
  EXPECT_EQ(c->detach(1, &a), 0);  // nothing of obj 1 is left to write
  EXPECT_EQ(c->flush(2), 2);
  EXPECT_TRUE(a.calls().empty());
}

TEST(CacheWriteBack, NextAttachedWriterServesAfterTheFirstLeaves) {
  auto c = make(16, WritePolicy::Back);
  Recorder a, b;
  c->attach(1, &a);
  c->attach(1, &b);
  c->attach(1, &a);  // a second reference: a serves until both are gone
  ASSERT_EQ(write(*c, 1, 0, 1, true), 0);
  EXPECT_EQ(c->detach(1, &a), 0);
  EXPECT_EQ(c->flush(1), 1);
  EXPECT_EQ(a.calls().size(), 1u);
  ASSERT_EQ(write(*c, 1, 0, 2, true), 0);
  EXPECT_EQ(c->detach(1, &a), 0);
  EXPECT_EQ(c->flush(1), 1);
  EXPECT_EQ(b.calls().size(), 1u);
  EXPECT_EQ(value_of(b.read(0)), 2);
  EXPECT_EQ(c->detach(1, &b), 0);
}

TEST(CacheWriteBack, DirtyVictimWithoutAWriterIsAnError) {
  auto c = make(1, WritePolicy::Back);
  ASSERT_EQ(write(*c, 7, 3, 1, true), 0);
  EXPECT_EQ(write(*c, 7, 4, 2, true), -EIO);
  std::string msg = hio_last_error();
  EXPECT_TRUE(Contains(msg, "page 3"));
  EXPECT_TRUE(Contains(msg, "object 7"));
  // Nothing was lost or installed.
  EXPECT_EQ(value_of(get(*c, 7, 3)), 1);
  EXPECT_FALSE(has(*c, 7, 4));
  EXPECT_EQ(c->stats().dirty, 1u);
  EXPECT_EQ(c->flush(7), -EIO);
}

TEST(CacheWriteBack, FailedEvictionWriteBackKeepsTheVictim) {
  auto c = make(1, WritePolicy::Back);
  Recorder rec;
  c->attach(1, &rec);
  ASSERT_EQ(write(*c, 1, 0, 1, true), 0);
  rec.fail = -EIO;
  uint64_t t = c->ticket(1, 1);
  Page p = pat(2);
  EXPECT_EQ(c->fill(1, 1, p.data(), t), -EIO);
  EXPECT_FALSE(has(*c, 1, 1));
  EXPECT_EQ(value_of(get(*c, 1, 0)), 1);
  EXPECT_EQ(c->stats().dirty, 1u);
  rec.fail = 0;
  EXPECT_EQ(c->flush(1), 1);
  EXPECT_EQ(c->detach(1, &rec), 0);
}

// Four threads on two objs: each writes its own pages (idx % 4 == thread)
// and reads, fills and peeks everyone's; some flush. Every copy seen must be
// whole, and at the end cache and device hold each page's last write.
TEST(ThreadsCache, MixedUseKeepsTheLastWrite) {
  constexpr int kThreads = 4, kObjs = 2;
  constexpr uint64_t kPages = 200;  // per obj: 400 in all, in a 256-page cache
  auto c = make(256, WritePolicy::Back);
  Recorder dev[kObjs];
  for (int o = 0; o < kObjs; o++) c->attach(uint64_t(o), &dev[o]);
  std::vector<std::array<std::vector<uint64_t>, kObjs>> last(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++)
    threads.emplace_back([&, t] {
      auto& mine = last[size_t(t)];
      for (auto& v : mine) v.assign(kPages, 0);
      uint64_t x = 0x2545f4914f6cdd1dull * uint64_t(t + 1), writes = 0;
      Page p;
      for (int op = 0; op < 4000; op++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int o = int(x % kObjs);
        uint64_t idx = (x >> 8) % kPages;
        unsigned kind = unsigned(x >> 32) % 100;
        if (kind < 40) {
          idx = idx / kThreads * kThreads + uint64_t(t);
          if (idx >= kPages) continue;
          uint64_t v = (uint64_t(t + 1) << 32) | ++writes;
          p = pat(v);
          ASSERT_EQ(c->write(uint64_t(o), idx, p.data(), true), 0) << hio_last_error();
          mine[size_t(o)][idx] = v;
        } else if (kind < 80) {
          uint64_t tk = c->ticket(uint64_t(o), idx);
          if (c->read(uint64_t(o), idx, p.data())) {
            ASSERT_GE(value_of(p), 0);
          } else {
            p = dev[o].read(idx);
            ASSERT_EQ(c->fill(uint64_t(o), idx, p.data(), tk), 0) << hio_last_error();
          }
        } else if (kind < 96) {
          if (c->peek(uint64_t(o), idx, p.data())) {
            ASSERT_GE(value_of(p), 0);
          }
        } else {
          ASSERT_GE(c->flush(uint64_t(o)), 0) << hio_last_error();
        }
      }
    });
  for (auto& th : threads) th.join();
  for (int o = 0; o < kObjs; o++) ASSERT_GE(c->flush(uint64_t(o)), 0);
  EXPECT_EQ(c->stats().dirty, 0u);
  for (int o = 0; o < kObjs; o++)
    for (uint64_t idx = 0; idx < kPages; idx++) {
      uint64_t want = last[idx % kThreads][size_t(o)][idx];
      EXPECT_EQ(value_of(dev[o].read(idx)), int64_t(want)) << "obj " << o << " page " << idx;
      Page p;
      if (c->peek(uint64_t(o), idx, p.data())) {
        EXPECT_EQ(value_of(p), int64_t(want)) << "obj " << o << " page " << idx;
      }
    }
  hio::CacheStats s = c->stats();
  EXPECT_GT(s.evictions, 0u);
  EXPECT_GT(s.writebacks, 0u);
  for (int o = 0; o < kObjs; o++) EXPECT_EQ(c->detach(uint64_t(o), &dev[o]), 0);
}

}  // namespace
