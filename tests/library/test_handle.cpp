// SPDX-License-Identifier: MIT
// Handles through the C API: data intact through dedicated, shared and
// split queues in every user-space wait mode, self-reaped or by a
// completion thread; the block cache's coherence and write-back
// durability; read-ahead; and every refusal with its message.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "hybridio/hio.hpp"
#include "test_util.hpp"

using namespace hiotest;

namespace {

constexpr uint32_t kPage = 4096;

class Handle {
 public:
  Handle(hio_engine* e, const std::string& spec, hio_handle_opts o) {
    rc_ = hio_handle_open(e, spec.c_str(), &o, &h_);
    if (rc_ < 0) err_ = hio_last_error();
  }
  ~Handle() { close(); }
  int close() {
    int r = h_ ? hio_handle_close(h_) : 0;
    h_ = nullptr;
    return r;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  operator hio_handle*() const { return h_; }
  int rc() const { return rc_; }
  const std::string& err() const { return err_; }

 private:
  hio_handle* h_ = nullptr;
  int rc_ = 0;
  std::string err_;
};

struct Cache {
  explicit Cache(uint64_t bytes, hio_cache_write p = HIO_CACHE_WRITE_THROUGH) {
    EXPECT_EQ(hio_cache_create(bytes, p, &c), 0) << hio_last_error();
  }
  ~Cache() { hio_cache_destroy(c); }
  hio_cache* c = nullptr;
};

struct Reaper {
  explicit Reaper(uint64_t period_ns) {
    hio_reaper_opts o{sizeof(hio_reaper_opts), period_ns, -1};
    EXPECT_EQ(hio_reaper_create(&o, &r), 0) << hio_last_error();
  }
  ~Reaper() { hio_reaper_destroy(r); }
  hio_reaper* r = nullptr;
};

hio_handle_opts opts(hio_wait_mode m = HIO_WAIT_INTERRUPT, unsigned depth = 16) {
  hio_handle_opts o{};
  o.struct_size = sizeof o;
  o.depth = depth;
  o.strategy = strat(m);
  return o;
}

// Completions of a handle go to whichever thread reaps it: each thread's
// tags carry its number, and a thread that reaps another's completion puts
// it in that thread's mailbox.
struct Mailboxes {
  std::mutex mu;
  std::vector<std::vector<hio_completion>> box;
  explicit Mailboxes(size_t n) : box(n) {}
  void put(const hio_completion& c) {
    std::lock_guard<std::mutex> g(mu);
    box[c.tag >> 32].push_back(c);
  }
  std::vector<hio_completion> take(size_t who) {
    std::lock_guard<std::mutex> g(mu);
    return std::exchange(box[who], {});
  }
};

// Thread `me` writes `pages` pages from `first` with data from seed, `depth`
// in flight, through w, then reads them back through r and compares; every
// tag must come back once. "" or what went wrong.
std::string shared_write_read(Mailboxes& mb, size_t me, hio_handle* w, hio_handle* r, uint64_t first, uint32_t pages,
                              unsigned depth, uint64_t seed) {
  size_t len = size_t(pages) * kPage;
  Buf data = aligned_buf(len), got = aligned_buf(len);
  fill(data.get(), len, seed);
  for (hio_op op : {HIO_OP_WRITE, HIO_OP_READ}) {
    hio_handle* h = op == HIO_OP_WRITE ? w : r;
    uint8_t* base = op == HIO_OP_WRITE ? data.get() : got.get();
    uint32_t next = 0, done = 0, inflight = 0;
    std::vector<hio_completion> cs(depth);
    std::vector<int> seen(pages, 0);
    while (done < pages) {
      while (inflight < depth && next < pages) {
        hio_io io{op, 0, base + size_t(next) * kPage, kPage, (first + next) * kPage, (uint64_t(me) << 32) | next};
        int r = hio_handle_submit(h, &io, 1);
        if (r == -EBUSY) break;  // other threads filled the queue: reap first
        if (r != 1) return "submit: " + std::string(hio_last_error());
        next++;
        inflight++;
      }
      int n = hio_handle_reap(h, cs.data(), depth, 0);
      if (n < 0) return "reap: " + std::string(hio_last_error());
      for (int i = 0; i < n; i++) mb.put(cs[size_t(i)]);
      auto mine = mb.take(me);
      for (const auto& c : mine) {
        uint64_t page = c.tag & 0xffffffff;
        if (page >= pages || seen[page]++) return "tag " + std::to_string(c.tag) + " unknown or twice";
        if (c.res != int32_t(kPage)) return "page " + std::to_string(page) + ": res " + std::to_string(c.res);
      }
      inflight -= unsigned(mine.size());
      done += unsigned(mine.size());
      if (n == 0 && mine.empty()) std::this_thread::yield();
    }
  }
  return std::memcmp(data.get(), got.get(), len) == 0 ? "" : "data read back differs";
}

// The same for a thread alone on its handles.
std::string write_read(hio_handle* w, hio_handle* r, uint64_t first, uint32_t pages, unsigned depth, uint64_t seed) {
  Mailboxes mb(1);
  return shared_write_read(mb, 0, w, r, first, pages, depth, seed);
}
// ---- round trips by wait mode and queue arrangement ----

enum class Arr { Dedicated, Shared, Split, Thread };

struct HandleRoundTrip : testing::TestWithParam<std::tuple<hio_wait_mode, Arr>> {};

TEST_P(HandleRoundTrip, DataIntact) {
  auto [mode, arr] = GetParam();
  Engine e;
  Queue shared(e, 32, strat(mode), HIO_QUEUE_SHARED), wq(e, 32, strat(mode), HIO_QUEUE_SHARED);
  Reaper reaper(arr == Arr::Thread ? 0 : 10'000);
  hio_handle_opts o = opts(mode);
  if (arr == Arr::Shared || arr == Arr::Split) o.queue = shared;
  if (arr == Arr::Split) o.write_queue = wq;
  if (arr == Arr::Thread) o.reaper = reaper.r;
  Handle a(e, "emu:pcie4,size=64m", o), b(e, "emu:pcie4,size=64m", o);
  ASSERT_EQ(a.rc(), 0) << a.err();
  ASSERT_EQ(b.rc(), 0) << b.err();
  EXPECT_EQ(write_read(a, b, 0, 64, 8, 1), "");
  EXPECT_EQ(write_read(b, a, 100, 33, 4, 2), "");
  hio_handle_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_handle_stats_get(a, &st), 0);
  EXPECT_EQ(st.write_ios, 64u);
  EXPECT_EQ(st.read_ios, 33u);
  EXPECT_EQ(st.queues, arr == Arr::Split ? 2u : 1u);
}

INSTANTIATE_TEST_SUITE_P(ByMode, HandleRoundTrip,
                         testing::Combine(testing::Values(HIO_WAIT_INTERRUPT, HIO_WAIT_POLL, HIO_WAIT_HYBRID,
                                                          HIO_WAIT_ADAPTIVE),
                                          testing::Values(Arr::Dedicated, Arr::Shared, Arr::Split, Arr::Thread)));

TEST(Handle, FileRoundTripWithCacheAndThread) {
  REQUIRE_SCRATCH();
  Engine e;
  TempFile f;
  Cache c(1 << 20);
  Reaper r(HIO_POLL_PERIOD_AUTO);
  hio_handle_opts o = opts();
  o.open = hio_open_opts{0, HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 8 << 20};
  o.cache = c.c;
  o.reaper = r.r;
  Handle h(e, f.path(), o);
  ASSERT_EQ(h.rc(), 0) << h.err();
  EXPECT_EQ(write_read(h, h, 0, 512, 16, 3), "");  // 2 MiB through a 1 MiB cache
  hio_reaper_stats rs{};
  rs.struct_size = sizeof rs;
  ASSERT_EQ(hio_reaper_stats_get(r.r, &rs), 0);
  EXPECT_GE(rs.completions, 512u);  // writes reach the device; reads partly
}

TEST(Handle, SplitSendsReadsAndWritesToTheirQueues) {
  Engine e;
  Queue rq(e, 8), wq(e, 8);
  hio_handle_opts o = opts();
  o.queue = rq;
  o.write_queue = wq;
  Handle h(e, "emu:pcie4,size=16m", o);
  ASSERT_EQ(h.rc(), 0) << h.err();
  ASSERT_EQ(write_read(h, h, 0, 10, 4, 4), "");
  hio_queue_stats rs{}, ws{};
  rs.struct_size = sizeof rs;
  ws.struct_size = sizeof ws;
  ASSERT_EQ(hio_queue_stats_get(rq, &rs), 0);
  ASSERT_EQ(hio_queue_stats_get(wq, &ws), 0);
  EXPECT_EQ(rs.read_ios, 10u);
  EXPECT_EQ(rs.write_ios, 0u);
  EXPECT_EQ(ws.write_ios, 10u);
  EXPECT_EQ(ws.read_ios, 0u);
  EXPECT_EQ(hio_handle_queue_get(h, HIO_HANDLE_READS), (hio_queue*)rq);
  EXPECT_EQ(hio_handle_queue_get(h, HIO_HANDLE_WRITES), (hio_queue*)wq);
  EXPECT_EQ(hio_handle_queue_get(h, hio_handle_queue_role(2)), nullptr);
}

// ---- refusals ----

TEST(Handle, BoundQueueRefusesDirectIo) {
  Engine e;
  Queue q(e, 8, {}, HIO_QUEUE_SHARED);
  hio_handle_opts o = opts();
  o.queue = q;
  Handle h(e, "emu:pcie4,size=16m", o);
  ASSERT_EQ(h.rc(), 0) << h.err();
  Buf b = aligned_buf(kPage);
  hio_io io{HIO_OP_READ, 0, b.get(), kPage, 0, 0};
  EXPECT_EQ(hio_submit(q, &io, 1, 0), -EBUSY);
  EXPECT_TRUE(Contains(hio_last_error(), "bound to handles"));
  hio_completion c[1];
  EXPECT_EQ(hio_reap(q, c, 1, 0), -EBUSY);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  EXPECT_EQ(hio_queue_stats_get(q, &st), 0);  // reading it is fine
}

TEST(Handle, BadOptionsAreNamed) {
  Engine e;
  Queue q(e, 8);
  hio_handle_opts o = opts();
  o.flags = HIO_HANDLE_HIGH_PRIORITY;
  o.queue = q;
  Handle hp(e, "emu:pcie4", o);
  EXPECT_EQ(hp.rc(), -EINVAL);
  EXPECT_TRUE(Contains(hp.err(), "high-priority handle gets queues of its own"));

  o = opts();
  o.write_queue = q;
  Handle wq(e, "emu:pcie4", o);
  EXPECT_EQ(wq.rc(), -EINVAL);
  EXPECT_TRUE(Contains(wq.err(), "needs a read queue"));

  o = opts();
  o.flags = 0x80;
  Handle fl(e, "emu:pcie4", o);
  EXPECT_TRUE(Contains(fl.err(), "unknown handle flags 0x80"));

  o = opts();
  o.readahead = hio_readahead(7);
  Handle ra(e, "emu:pcie4", o);
  EXPECT_TRUE(Contains(ra.err(), "unknown read-ahead mode 7"));

  Handle bad(e, "emu:nosuch", opts());
  EXPECT_EQ(bad.rc(), -EINVAL);
  EXPECT_TRUE(Contains(bad.err(), "emu:nosuch"));

  hio_cache* c = nullptr;
  EXPECT_EQ(hio_cache_create(100, HIO_CACHE_WRITE_THROUGH, &c), -EINVAL);
  EXPECT_EQ(hio_cache_create(1 << 20, hio_cache_write(9), &c), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "unknown cache write policy 9"));
  hio_reaper* r = nullptr;
  hio_reaper_opts ro{sizeof(hio_reaper_opts), 2'000'000'000ull, -1};
  EXPECT_EQ(hio_reaper_create(&ro, &r), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "exceeds one second"));
}

TEST(Handle, CachedIoMustBeWholePages) {
  Engine e;
  Cache c(1 << 20);
  hio_handle_opts o = opts();
  o.cache = c.c;
  Handle h(e, "emu:pcie4,size=16m", o);
  ASSERT_EQ(h.rc(), 0) << h.err();
  Buf b = aligned_buf(2 * kPage);
  hio_io io{HIO_OP_READ, 0, b.get(), 512, 4096, 0};
  EXPECT_EQ(hio_handle_submit(h, &io, 1), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "offset 4096, length 512"));
  io = hio_io{HIO_OP_READ, 0, b.get(), kPage, 16 << 20, 0};
  EXPECT_EQ(hio_handle_submit(h, &io, 1), -EINVAL);
  EXPECT_TRUE(Contains(hio_last_error(), "past the end"));
}

TEST(Handle, DeviceErrorNamesOperationAndOffset) {
  Engine e;
  Handle h(e, "emu:pcie4,size=16m,fail_offset=8192,fail_op=read", opts());
  ASSERT_EQ(h.rc(), 0) << h.err();
  Buf b = aligned_buf(kPage);
  EXPECT_EQ(hio_handle_read(h, b.get(), kPage, 8192), -EIO);
  EXPECT_TRUE(Contains(hio_last_error(), "read at offset 8192"));
  EXPECT_EQ(hio_handle_read(h, b.get(), kPage, 0), int64_t(kPage));
  hio_handle_stats st{};
  st.struct_size = sizeof st;
  hio_handle_stats_get(h, &st);
  EXPECT_EQ(st.errors, 1u);
}

// ---- the cache through handles ----

TEST(HandleCache, TwoHandlesSeeEachOthersWrites) {
  for (hio_cache_write p : {HIO_CACHE_WRITE_THROUGH, HIO_CACHE_WRITE_BACK}) {
    Engine e;
    Cache c(1 << 20, p);
    hio_handle_opts o = opts();
    o.cache = c.c;
    Handle a(e, "emu:pcie4,size=16m", o), b(e, "emu:pcie4,size=16m", o);
    ASSERT_EQ(a.rc(), 0) << a.err();
    ASSERT_EQ(b.rc(), 0) << b.err();
    Buf w = aligned_buf(kPage), r = aligned_buf(kPage);
    for (uint64_t round = 0; round < 3; round++) {
      fill(w.get(), kPage, 10 + round);
      ASSERT_EQ(hio_handle_write(a, w.get(), kPage, 8 * kPage), int64_t(kPage)) << hio_last_error();
      ASSERT_EQ(hio_handle_read(b, r.get(), kPage, 8 * kPage), int64_t(kPage)) << hio_last_error();
      EXPECT_EQ(std::memcmp(w.get(), r.get(), kPage), 0) << "policy " << p << " round " << round;
    }
    hio_handle_stats sb{};
    sb.struct_size = sizeof sb;
    hio_handle_stats_get(b, &sb);
    EXPECT_GE(sb.cache_hits, 2u) << "b's reads came from the shared cache";
  }
}

TEST(HandleCache, WriteBackIsDurableAfterFlushAndClose) {
  REQUIRE_SCRATCH();
  TempFile f;
  Buf w = aligned_buf(64 * kPage), r = aligned_buf(64 * kPage);
  fill(w.get(), 64 * kPage, 77);
  for (bool explicit_flush : {true, false}) {
    {
      Engine e;
      Cache c(16 * kPage, HIO_CACHE_WRITE_BACK);  // smaller than the data: evictions write back too
      hio_handle_opts o = opts();
      o.open = hio_open_opts{0, HIO_OPEN_CREATE | HIO_OPEN_DIRECT, 64 * kPage};
      o.cache = c.c;
      Handle h(e, f.path(), o);
      ASSERT_EQ(h.rc(), 0) << h.err();
      for (uint32_t p = 0; p < 64; p++)
        ASSERT_EQ(hio_handle_write(h, w.get() + size_t(p) * kPage, kPage, uint64_t(p) * kPage), int64_t(kPage));
      if (explicit_flush) {
        ASSERT_EQ(hio_handle_flush(h), 0) << hio_last_error();
      }
      hio_cache_stats cs{};
      cs.struct_size = sizeof cs;
      hio_cache_stats_get(c.c, &cs);
      EXPECT_GT(cs.writebacks, 0u);
      ASSERT_EQ(h.close(), 0) << hio_last_error();
    }
    Engine e;  // a fresh engine and an uncached handle: only the file remains
    hio_handle_opts o = opts();
    o.open = hio_open_opts{0, HIO_OPEN_DIRECT | HIO_OPEN_RDONLY, 0};
    Handle h(e, f.path(), o);
    ASSERT_EQ(h.rc(), 0) << h.err();
    std::memset(r.get(), 0, 64 * kPage);
    ASSERT_EQ(hio_handle_read(h, r.get(), 64 * kPage, 0), int64_t(64 * kPage)) << hio_last_error();
    EXPECT_EQ(std::memcmp(w.get(), r.get(), 64 * kPage), 0) << (explicit_flush ? "after flush" : "after close");
    fill(w.get(), 64 * kPage, 78);  // the second pass writes something else
  }
}

TEST(HandleCache, CloseReportsDirtyPagesItCouldNotWrite) {
  Engine e;
  Cache c(1 << 20, HIO_CACHE_WRITE_BACK);
  hio_handle_opts o = opts();
  o.cache = c.c;
  hio_handle* h = nullptr;
  ASSERT_EQ(hio_handle_open(e, "emu:pcie4,size=16m,fail_offset=8192,fail_op=write", &o, &h), 0) << hio_last_error();
  Buf w = aligned_buf(kPage);
  fill(w.get(), kPage, 3);
  ASSERT_EQ(hio_handle_write(h, w.get(), kPage, 8192), int64_t(kPage));  // completes in the cache
  EXPECT_EQ(hio_handle_flush(h), -EIO);
  EXPECT_TRUE(Contains(hio_last_error(), "write at offset 8192")) << hio_last_error();
  EXPECT_EQ(hio_handle_close(h), -EIO);
  EXPECT_TRUE(Contains(hio_last_error(), "1 dirty cache pages could not be written back and are lost"));
  hio_cache_stats cs{};
  cs.struct_size = sizeof cs;
  hio_cache_stats_get(c.c, &cs);
  EXPECT_EQ(cs.dirty, 0u);
  // The cache serves the next handle on that device (no writer of the old one is left in it).
  Handle again(e, "emu:pcie4,size=16m", o);
  ASSERT_EQ(again.rc(), 0) << again.err();
  ASSERT_EQ(hio_handle_write(again, w.get(), kPage, 0), int64_t(kPage));
  EXPECT_EQ(again.close(), 0) << hio_last_error();
}

TEST(HandleCache, WriteBackStaysInCacheUntilFlush) {
  Engine e;
  Cache c(1 << 20, HIO_CACHE_WRITE_BACK);
  hio_handle_opts o = opts();
  o.cache = c.c;
  Handle cached(e, "emu:pcie4,size=16m", o), raw(e, "emu:pcie4,size=16m", opts());
  ASSERT_EQ(cached.rc(), 0) << cached.err();
  Buf w = aligned_buf(kPage), r = aligned_buf(kPage), zero = aligned_buf(kPage);
  fill(w.get(), kPage, 5);
  ASSERT_EQ(hio_handle_write(cached, w.get(), kPage, 0), int64_t(kPage));
  ASSERT_EQ(hio_handle_read(raw, r.get(), kPage, 0), int64_t(kPage));
  EXPECT_EQ(std::memcmp(r.get(), zero.get(), kPage), 0) << "the device has it before any flush";
  ASSERT_EQ(hio_handle_flush(cached), 0) << hio_last_error();
  ASSERT_EQ(hio_handle_read(raw, r.get(), kPage, 0), int64_t(kPage));
  EXPECT_EQ(std::memcmp(r.get(), w.get(), kPage), 0);
}

TEST(HandleCache, ReadAheadOnSequentialStreamsOnly) {
  Engine e;
  Handle writer(e, "emu:pcie4,size=16m", opts());
  ASSERT_EQ(writer.rc(), 0);
  ASSERT_EQ(write_read(writer, writer, 0, 1024, 16, 9), "");  // known data in the first 4 MiB
  Buf expect = aligned_buf(1024 * kPage);
  fill(expect.get(), 1024 * kPage, 9);
  for (hio_readahead ra : {HIO_READAHEAD_AUTO, HIO_READAHEAD_ON, HIO_READAHEAD_OFF}) {
    for (bool seq : {true, false}) {
      Cache c(8 << 20);
      hio_handle_opts o = opts();
      o.cache = c.c;
      o.readahead = ra;
      Handle h(e, "emu:pcie4,size=16m", o);
      ASSERT_EQ(h.rc(), 0) << h.err();
      Buf b = aligned_buf(kPage);
      for (uint32_t i = 0; i < 256; i++) {
        uint32_t p = seq ? i : (i * 397u) % 1024u;
        ASSERT_EQ(hio_handle_read(h, b.get(), kPage, uint64_t(p) * kPage), int64_t(kPage));
        ASSERT_EQ(std::memcmp(b.get(), expect.get() + size_t(p) * kPage, kPage), 0) << "page " << p;
      }
      hio_handle_stats st{};
      st.struct_size = sizeof st;
      hio_handle_stats_get(h, &st);
      bool expect_ra = ra == HIO_READAHEAD_ON || (ra == HIO_READAHEAD_AUTO && seq);
      EXPECT_EQ(st.readahead_ios > 0, expect_ra) << "mode " << ra << (seq ? " sequential" : " random");
      if (expect_ra && seq) {
        EXPECT_GT(st.cache_hits, 200u);
      }
    }
  }
}

// ---- many threads, handles and queues (also under TSan) ----

TEST(ThreadsHandles, HammerWithVerify) {
  Engine e;
  Queue shared(e, 64, strat(HIO_WAIT_POLL), HIO_QUEUE_SHARED);
  Queue rq(e, 64, strat(HIO_WAIT_INTERRUPT), HIO_QUEUE_SHARED), wq(e, 64, strat(HIO_WAIT_INTERRUPT), HIO_QUEUE_SHARED);
  Reaper reaper(HIO_POLL_PERIOD_AUTO);
  Cache cache(256 * kPage, HIO_CACHE_WRITE_BACK);
  constexpr int kHandles = 8, kThreads = 6;
  std::vector<std::unique_ptr<Handle>> hs;
  for (int i = 0; i < kHandles; i++) {
    hio_handle_opts o = opts(i % 2 ? HIO_WAIT_HYBRID : HIO_WAIT_ADAPTIVE, 8);
    if (i % 4 == 1) o.queue = shared;
    if (i % 4 == 2) o.queue = rq, o.write_queue = wq;
    if (i % 3 == 0) o.reaper = reaper.r;
    if (i == 5) o.flags = HIO_HANDLE_HIGH_PRIORITY, o.queue = nullptr, o.write_queue = nullptr;
    if (i >= 6) o.cache = cache.c;
    hs.push_back(std::make_unique<Handle>(e, "emu:pcie4,size=64m", o));
    ASSERT_EQ(hs.back()->rc(), 0) << hs.back()->err();
  }
  // Each thread writes through one handle and reads back through another,
  // on a region of its own; threads share handles, handles share queues.
  Mailboxes mb(kThreads);
  std::vector<std::string> errs(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; t++)
    ts.emplace_back([&, t] {
      for (int round = 0; round < 4 && errs[size_t(t)].empty(); round++) {
        size_t wi = size_t(t + round) % kHandles, ri = size_t(t + 3 * round + 1) % kHandles;
        // A cached handle and an uncached one disagree until a flush: pair
        // cached handles with each other.
        if (wi >= 6 || ri >= 6) wi = ri = 6 + size_t(t % 2);
        errs[size_t(t)] = shared_write_read(mb, size_t(t), *hs[wi], *hs[ri], uint64_t(t) * 2048 + uint64_t(round) * 256,
                                            128, 8, uint64_t(t * 100 + round));
      }
    });
  for (auto& th : ts) th.join();
  for (int t = 0; t < kThreads; t++) EXPECT_EQ(errs[size_t(t)], "") << "thread " << t;
}

}  // namespace

namespace {

TEST(HandleCxx, WrapperRoundTripAndErrors) {
  hybridio::Engine e;
  hybridio::Cache c(1 << 20, HIO_CACHE_WRITE_BACK);
  hybridio::Reaper r(HIO_POLL_PERIOD_AUTO);
  hio_handle_opts o{};
  o.struct_size = sizeof o;
  o.cache = c.get();
  o.reaper = r.get();
  hybridio::Handle h(e, "emu:pcie4,size=16m", o);
  Buf w = aligned_buf(kPage), got = aligned_buf(kPage);
  fill(w.get(), kPage, 42);
  EXPECT_EQ(h.write(w.get(), kPage, 0), kPage);
  EXPECT_EQ(h.read(got.get(), kPage, 0), kPage);
  EXPECT_EQ(std::memcmp(w.get(), got.get(), kPage), 0);
  h.flush();
  EXPECT_EQ(c.stats().dirty, 0u);
  EXPECT_EQ(h.stats().cache_hits, 1u);
  try {
    h.read(got.get(), 100, 0);
    ADD_FAILURE() << "a partial page on a cached handle was accepted";
  } catch (const hybridio::Error& err) {
    EXPECT_EQ(err.code(), -EINVAL);
    EXPECT_TRUE(Contains(err.what(), "whole 4096-byte pages"));
  }
  h.close();
}

}  // namespace

// A synchronous read on a handle with an asynchronous command of the
// caller's still in flight: the sync read returns, and the other
// completion is left for the caller's next reap (a sync helper once
// stashed it and took it straight back, forever).
TEST(Handle, SyncReadBesideAnAsyncCommandInFlight) {
  Engine e;
  Handle h(e, "emu:pcie4,size=16m", opts(HIO_WAIT_INTERRUPT));
  ASSERT_EQ(h.rc(), 0) << h.err();
  Buf a = aligned_buf(kPage), b = aligned_buf(kPage);
  hio_io io{HIO_OP_READ, 0, a.get(), kPage, 0, 42};
  ASSERT_EQ(hio_handle_submit(h, &io, 1), 1) << hio_last_error();
  EXPECT_EQ(hio_handle_read(h, b.get(), kPage, kPage), int64_t(kPage)) << hio_last_error();
  hio_completion c{};
  ASSERT_EQ(hio_handle_reap(h, &c, 1, 1), 1) << hio_last_error();
  EXPECT_EQ(c.tag, 42u);
  EXPECT_EQ(c.res, int32_t(kPage));
}
