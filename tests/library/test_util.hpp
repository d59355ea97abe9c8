// SPDX-License-Identifier: MIT
// Helpers shared by the unit tests: RAII handles for the C API, aligned
// buffers, a scratch directory where O_DIRECT works, and an I/O driver that
// checks every tag comes back exactly once.
#pragma once
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "hybridio/hio.h"
#include "hybridio/hio_adaptive.h"

namespace hiotest {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

inline testing::AssertionResult Contains(const std::string& hay, const std::string& needle) {
  if (hay.find(needle) != std::string::npos) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "'" << hay << "' does not contain '" << needle << "'";
}

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};
using Buf = std::unique_ptr<uint8_t[], FreeDeleter>;

// Page-aligned, zeroed, rounded up to whole pages (aligned_alloc needs that).
inline Buf aligned_buf(size_t len) {
  size_t n = std::max<size_t>(4096, (len + 4095) / 4096 * 4096);
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(4096, n));
  std::memset(p, 0, n);
  return Buf(p);
}

// Deterministic bytes; a different seed gives different data everywhere.
inline void fill(void* buf, size_t len, uint64_t seed) {
  auto* b = static_cast<uint8_t*>(buf);
  uint64_t x = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
  for (size_t i = 0; i < len; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b[i] = uint8_t(x >> 24);
  }
}

inline hio_strategy strat(hio_wait_mode m, uint64_t sleep_ns = 0, double frac = 0) {
  hio_strategy s;
  hio_strategy_init(&s, sizeof s);
  s.mode = m;
  s.hybrid_sleep_ns = sleep_ns;
  s.hybrid_fraction = frac;
  return s;
}

class Engine {
 public:
  Engine() { EXPECT_EQ(hio_engine_create(&e_), 0) << hio_last_error(); }
  ~Engine() { hio_engine_destroy(e_); }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  operator hio_engine*() const { return e_; }

 private:
  hio_engine* e_ = nullptr;
};

class Queue {
 public:
  Queue(hio_engine* e, unsigned depth, hio_strategy s = strat(HIO_WAIT_INTERRUPT), unsigned flags = 0) {
    hio_queue_opts o{sizeof(hio_queue_opts), depth, flags, s};
    rc_ = hio_queue_create(e, &o, &q_);
    if (rc_ < 0) err_ = hio_last_error();
  }
  ~Queue() {
    if (q_) hio_queue_destroy(q_);
  }
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  operator hio_queue*() const { return q_; }
  int rc() const { return rc_; }
  const std::string& err() const { return err_; }

 private:
  hio_queue* q_ = nullptr;
  int rc_ = 0;
  std::string err_;
};

// Reads on a queue that waits adaptively until one has waited: the
// process's governor then samples, and reads our threads' cores from their
// waits.
inline void wait_adaptively_once(hio_engine* e) {
  Queue q(e, 1, strat(HIO_WAIT_ADAPTIVE));
  ASSERT_EQ(q.rc(), 0) << q.err();
  hio_open_opts o{};
  o.struct_size = sizeof o;
  o.size = 1 << 20;
  int t = hio_queue_open(q, "emu:lat_us=200", &o);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(4096);
  // A read already done when the queue first looks never waits, and so never
  // samples: on a loaded machine that happens, so read until one has waited.
  hio_adaptive_view v{};
  v.struct_size = sizeof v;
  for (int i = 0; i < 100 && v.monitor_samples == 0; i++) {
    ASSERT_EQ(hio_read(q, t, b.get(), 4096, 0), 4096) << hio_last_error();
    ASSERT_EQ(hio_queue_adaptive_view_get(q, &v), 0) << hio_last_error();
  }
  ASSERT_GT(v.monitor_samples, 0u) << "no adaptive wait sampled in 100 reads";
}

// A directory on a real file system where O_DIRECT works: $TMPDIR, then
// /var/tmp, then /tmp, skipping tmpfs (no O_DIRECT there on older kernels,
// and no block device behind it). "" if there is none.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::vector<std::string> cands;
    if (const char* t = std::getenv("TMPDIR"); t && *t) cands.push_back(t);
    cands.push_back("/var/tmp");
    cands.push_back("/tmp");
    for (const auto& d : cands) {
      struct statfs sf {};
      if (statfs(d.c_str(), &sf) != 0 || sf.f_type == TMPFS_MAGIC) continue;
      std::string p = d + "/hio-probe-" + std::to_string(getpid());
      int fd = open(p.c_str(), O_CREAT | O_EXCL | O_RDWR | O_DIRECT, 0600);
      if (fd < 0) continue;
      close(fd);
      unlink(p.c_str());
      return d;
    }
    return std::string();
  }();
  return dir;
}

#define REQUIRE_SCRATCH()                                                                        \
  do {                                                                                           \
    if (::hiotest::scratch_dir().empty()) GTEST_SKIP() << "no directory here supports O_DIRECT"; \
  } while (0)

// A unique path in dir (default scratch_dir()), removed at destruction.
class TempFile {
 public:
  explicit TempFile(const std::string& dir = scratch_dir()) {
    static std::atomic<unsigned> n{0};
    path_ = dir + "/hio-unit-" + std::to_string(getpid()) + "-" + std::to_string(n++);
  }
  ~TempFile() { unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  const char* c_str() const { return path_.c_str(); }

 private:
  std::string path_;
};

// Submits ios (tags must be 0..n-1) keeping at most depth in flight, reaps
// them all, and fails the test if a tag is unknown, comes back twice, or
// the queue still reports commands in flight. Returns the completions by tag.
inline std::vector<hio_completion> run_ios(hio_queue* q, const std::vector<hio_io>& ios, unsigned depth) {
  std::vector<hio_completion> done(ios.size());
  std::vector<int> seen(ios.size(), 0);
  std::vector<hio_completion> cs(depth);
  size_t next = 0, got = 0;
  unsigned inflight = 0;
  while (got < ios.size()) {
    unsigned n = unsigned(std::min<size_t>(depth - inflight, ios.size() - next));
    if (n) {
      int r = hio_submit(q, &ios[next], n, 0);
      if (r != int(n)) {
        ADD_FAILURE() << "hio_submit(" << n << ") = " << r << ": " << hio_last_error();
        return done;
      }
      next += n;
      inflight += n;
    }
    int r = hio_reap(q, cs.data(), depth, 1);
    if (r <= 0) {
      ADD_FAILURE() << "hio_reap = " << r << ": " << hio_last_error();
      return done;
    }
    for (int i = 0; i < r; i++) {
      uint64_t t = cs[size_t(i)].tag;
      if (t >= ios.size()) {
        ADD_FAILURE() << "unknown tag " << t;
        continue;
      }
      if (seen[t]++) ADD_FAILURE() << "tag " << t << " came back twice";
      done[t] = cs[size_t(i)];
    }
    inflight -= unsigned(r);
    got += unsigned(r);
  }
  EXPECT_EQ(hio_queue_inflight_get(q), 0u);
  return done;
}

// run_ios, expecting every command to transfer its whole length.
inline void run_ios_ok(hio_queue* q, const std::vector<hio_io>& ios, unsigned depth) {
  auto done = run_ios(q, ios, depth);
  for (size_t i = 0; i < done.size(); i++)
    EXPECT_EQ(done[i].res, int32_t(ios[i].len)) << "tag " << i << " at offset " << ios[i].offset;
}

// Reaps until `want` completions are in, in calls of at most `max`.
inline std::vector<hio_completion> reap_n(hio_queue* q, unsigned want, unsigned max = 64) {
  std::vector<hio_completion> out, cs(max);
  while (out.size() < want) {
    unsigned m = std::min<unsigned>(max, want - unsigned(out.size()));
    int r = hio_reap(q, cs.data(), m, m);
    if (r <= 0) {
      ADD_FAILURE() << "hio_reap = " << r << ": " << hio_last_error();
      break;
    }
    out.insert(out.end(), cs.begin(), cs.begin() + r);
  }
  return out;
}

}  // namespace hiotest
