// SPDX-License-Identifier: MIT
// Concurrency (the Threads* suites, also run under TSan): queues on many
// threads sharing one emulated device, a shared queue used by several
// threads, and strategy changes from another thread during I/O.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "test_util.hpp"

using namespace hiotest;

namespace {

constexpr uint32_t kBlock = 4096;

// Writes `blocks` blocks at `base` through q (async, depth-deep), reads them
// back through r, and compares. Returns a description of the first problem.
std::string write_read_verify(hio_queue* q, int tq, hio_queue* r, int tr, uint64_t base, uint32_t blocks,
                              unsigned depth, uint64_t seed) {
  Buf w = aligned_buf(uint64_t(blocks) * kBlock), got = aligned_buf(uint64_t(blocks) * kBlock);
  fill(w.get(), uint64_t(blocks) * kBlock, seed);
  std::vector<hio_io> ios(blocks);
  for (uint32_t i = 0; i < blocks; i++)
    ios[i] = hio_io{HIO_OP_WRITE, tq, w.get() + uint64_t(i) * kBlock, kBlock, base + uint64_t(i) * kBlock, i};
  run_ios_ok(q, ios, depth);
  for (uint32_t i = 0; i < blocks; i++)
    ios[i] = hio_io{HIO_OP_READ, tr, got.get() + uint64_t(i) * kBlock, kBlock, base + uint64_t(i) * kBlock, i};
  run_ios_ok(r, ios, depth);
  if (std::memcmp(w.get(), got.get(), uint64_t(blocks) * kBlock) != 0)
    return "data mismatch in region at " + std::to_string(base);
  return "";
}

}  // namespace

// 4 threads x 2 queues each (different strategies) on one device, each
// thread on its own region; writes go through one queue and are read back
// through the other, then checked again from the main thread's queue.
TEST(ThreadsSharedDevice, ManyQueuesWriteAndReadBack) {
  constexpr unsigned kThreads = 4, kRounds = 4;
  constexpr uint32_t kBlocks = 64;  // 256 KiB per thread and round
  const char* spec = "emu:lat_us=5,iops=400000,size=16m";
  Engine e;
  Queue keeper(e, 8);  // holds the device for the whole test
  int tk = hio_queue_open(keeper, spec, nullptr);
  ASSERT_GE(tk, 0) << hio_last_error();

  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < kThreads; i++) {
    threads.emplace_back([&, i] {
      Queue a(e, 16, strat(i % 2 ? HIO_WAIT_HYBRID : HIO_WAIT_INTERRUPT, 2000));
      Queue b(e, 16, strat(i % 2 ? HIO_WAIT_INTERRUPT : HIO_WAIT_POLL));
      int ta = hio_queue_open(a, spec, nullptr), tb = hio_queue_open(b, spec, nullptr);
      if (ta < 0 || tb < 0) {
        errors[i] = std::string("open: ") + hio_last_error();
        return;
      }
      for (unsigned r = 0; r < kRounds && errors[i].empty(); r++)
        errors[i] = write_read_verify(a, ta, b, tb, uint64_t(i) * MiB, kBlocks, r % 2 ? 16 : 8, i * 100 + r);
    });
  }
  for (auto& t : threads) t.join();
  for (unsigned i = 0; i < kThreads; i++) EXPECT_EQ(errors[i], "") << "thread " << i;

  // What each thread wrote last is on the device for everyone.
  Buf want = aligned_buf(kBlocks * kBlock), got = aligned_buf(kBlocks * kBlock);
  for (unsigned i = 0; i < kThreads; i++) {
    fill(want.get(), kBlocks * kBlock, i * 100 + kRounds - 1);
    ASSERT_EQ(hio_read(keeper, tk, got.get(), kBlocks * kBlock, uint64_t(i) * MiB), int64_t(kBlocks * kBlock))
        << hio_last_error();
    EXPECT_EQ(std::memcmp(want.get(), got.get(), kBlocks * kBlock), 0) << "region of thread " << i;
  }
}

// Two writers and a reader on their own queues, all on the same 64 KiB of
// one device: every read returns one write whole, never a mix of two, as an
// SSD executes each command atomically against the others on its blocks.
TEST(ThreadsSharedDevice, OverlappingCommandsAreEachWhole) {
  constexpr uint32_t kLen = 64 * 1024;
  constexpr unsigned kOps = 1500;
  const char* spec = "emu:lat_us=1,iops=4000000,size=1m";
  Engine e;
  Queue keeper(e, 2);
  ASSERT_GE(hio_queue_open(keeper, spec, nullptr), 0) << hio_last_error();
  std::atomic<unsigned> writers_left{2};
  std::vector<std::string> errors(3);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < 3; i++) {
    threads.emplace_back([&, i] {
      Queue q(e, 2);
      int t = hio_queue_open(q, spec, nullptr);
      Buf b = aligned_buf(kLen);
      auto* words = reinterpret_cast<uint32_t*>(b.get());
      for (unsigned k = 0; t >= 0 && errors[i].empty(); k++) {
        if (i < 2) {
          if (k == kOps) break;
          std::fill(words, words + kLen / 4, (i + 1) << 24 | k);
          if (hio_write(q, t, b.get(), kLen, 0) != kLen) errors[i] = std::string("write: ") + hio_last_error();
        } else {
          bool last = writers_left.load() == 0;
          if (hio_read(q, t, b.get(), kLen, 0) != kLen) errors[i] = std::string("read: ") + hio_last_error();
          auto first = words[0];
          auto* odd = std::find_if(words, words + kLen / 4, [first](uint32_t w) { return w != first; });
          if (odd != words + kLen / 4)
            errors[i] = "read " + std::to_string(k) + ": word " + std::to_string(odd - words) + " is " +
                        std::to_string(*odd) + ", word 0 is " + std::to_string(first);
          if (last) break;
        }
      }
      if (t < 0) errors[i] = std::string("open: ") + hio_last_error();
      if (i < 2) writers_left--;
    });
  }
  for (auto& t : threads) t.join();
  for (unsigned i = 0; i < 3; i++) EXPECT_EQ(errors[i], "") << "thread " << i;
}

// Queues created and destroyed concurrently, each opening the same device
// spec: the engine's device registry under contention.
TEST(ThreadsSharedDevice, ConcurrentOpenAndClose) {
  Engine e;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < 4; i++) {
    threads.emplace_back([&, i] {
      Buf b = aligned_buf(4096);
      for (int k = 0; k < 50; k++) {
        Queue q(e, 2);
        int t = hio_queue_open(q, "emu:pcie4,size=8m", nullptr);
        if (t < 0 || hio_write(q, t, b.get(), 4096, i * 4096ull) != 4096) failures++;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
}

// One HIO_QUEUE_SHARED queue, 4 threads using the sync helpers at once:
// every thread reads back its own data, whichever thread does the waiting
// (adaptive: each waiting thread's own contention monitor).
class ThreadsSharedQueueModes : public testing::TestWithParam<hio_wait_mode> {};

TEST_P(ThreadsSharedQueueModes, SyncHelpersFromFourThreads) {
  constexpr unsigned kThreads = 4, kOps = 150;
  Engine e;
  Queue q(e, 8, strat(GetParam()), HIO_QUEUE_SHARED);
  ASSERT_EQ(q.rc(), 0) << q.err();
  int t = hio_queue_open(q, "emu:lat_us=5,iops=400000,size=16m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();

  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < kThreads; i++) {
    threads.emplace_back([&, i] {
      Buf w = aligned_buf(kBlock), r = aligned_buf(kBlock);
      for (unsigned k = 0; k < kOps; k++) {
        uint64_t off = uint64_t(i) * MiB + (k % 64) * kBlock;
        fill(w.get(), kBlock, i * 100000 + k);
        int64_t rc = hio_write(q, t, w.get(), kBlock, off);
        if (rc == kBlock) rc = hio_read(q, t, r.get(), kBlock, off);
        if (rc != kBlock) {
          errors[i] = "op " + std::to_string(k) + ": " + std::to_string(rc) + " " + hio_last_error();
          return;
        }
        if (std::memcmp(w.get(), r.get(), kBlock) != 0) {
          errors[i] = "mismatch at op " + std::to_string(k);
          return;
        }
        if (k % 50 == 0 && hio_flush(q, t) != 0) {
          errors[i] = std::string("flush: ") + hio_last_error();
          return;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (unsigned i = 0; i < kThreads; i++) EXPECT_EQ(errors[i], "") << "thread " << i;
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.write_ios, kThreads * kOps);
  EXPECT_EQ(st.read_ios, kThreads * kOps);
  EXPECT_EQ(st.flush_ios, kThreads * 3u);
  EXPECT_EQ(hio_queue_inflight_get(q), 0u);
}

INSTANTIATE_TEST_SUITE_P(ThreadsByMode, ThreadsSharedQueueModes, testing::Values(HIO_WAIT_INTERRUPT, HIO_WAIT_ADAPTIVE),
                         [](const auto& info) { return std::string(hio_wait_mode_name(info.param)); });

// A shared queue with threads mixing async submit/reap: each thread reaps
// with min_complete 1 and collects completions, which may be anyone's; in
// total every tag comes back exactly once.
TEST(ThreadsSharedQueue, AsyncSubmitAndReapFromFourThreads) {
  constexpr unsigned kThreads = 4, kPerThread = 200;
  Engine e;
  Queue q(e, 16, strat(HIO_WAIT_POLL), HIO_QUEUE_SHARED);
  int t = hio_queue_open(q, "emu:lat_us=5,iops=400000,size=16m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(kThreads * kBlock);
  std::vector<std::atomic<int>> seen(kThreads * kPerThread);
  std::atomic<unsigned> reaped{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < kThreads; i++) {
    threads.emplace_back([&, i] {
      hio_completion cs[16];
      unsigned sent = 0;
      while (reaped.load() < kThreads * kPerThread && failures.load() == 0) {
        if (sent < kPerThread) {
          hio_io io{HIO_OP_READ,          t, b.get() + i * kBlock, kBlock, (i * kPerThread + sent) * uint64_t(kBlock),
                    i * kPerThread + sent};
          int r = hio_submit(q, &io, 1, 0);
          if (r == 1)
            sent++;
          else if (r != -EBUSY)
            failures++;
        }
        // Never wait for more than is in flight, or this thread could wait
        // for completions another thread takes.
        int r = hio_reap(q, cs, 16, 0);
        if (r == 0 && hio_queue_inflight_get(q) > 0) r = hio_reap(q, cs, 1, 1);
        if (r < 0) failures++;
        for (int k = 0; k < r; k++) {
          if (cs[k].tag >= seen.size() || cs[k].res != int(kBlock))
            failures++;
          else
            seen[cs[k].tag]++;
        }
        if (r > 0) reaped += unsigned(r);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  for (size_t k = 0; k < seen.size(); k++) EXPECT_EQ(seen[k].load(), 1) << "tag " << k;
}

// Another thread cycles the strategy while the owner keeps 32 commands in
// flight and reaps; no completion is lost and every change is counted.
TEST(ThreadsStrategy, ChangeFromAnotherThreadDuringIo) {
  Engine e;
  Queue q(e, 32, strat(HIO_WAIT_INTERRUPT));
  int t = hio_queue_open(q, "emu:lat_us=20,iops=400000,size=16m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  std::atomic<bool> done{false};
  std::atomic<uint64_t> changes{0};
  std::atomic<int> change_errors{0};
  std::thread changer([&] {
    const hio_strategy cycle[] = {strat(HIO_WAIT_POLL), strat(HIO_WAIT_HYBRID, 3000), strat(HIO_WAIT_INTERRUPT),
                                  strat(HIO_WAIT_ADAPTIVE), strat(HIO_WAIT_HYBRID, 0, 0.5)};
    for (unsigned k = 0; !done.load(); k++) {
      if (hio_queue_strategy_set(q, &cycle[k % 5]) == 0)
        changes++;
      else
        change_errors++;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  });
  Buf b = aligned_buf(32 * kBlock);
  std::vector<hio_io> ios;
  for (uint32_t i = 0; i < 256; i++)
    ios.push_back(
        {i % 3 ? HIO_OP_READ : HIO_OP_WRITE, t, b.get() + (i % 32) * kBlock, kBlock, i * uint64_t(kBlock), i});
  // Keep the I/O going until the changer has switched modes a few dozen
  // times, so the changes land amid reaps (bounded, should it stall).
  unsigned rounds = 0;
  for (; rounds < 2000 && (rounds < 4 || changes.load() < 40); rounds++) run_ios_ok(q, ios, 32);
  done = true;
  changer.join();
  EXPECT_EQ(change_errors.load(), 0);
  EXPECT_GE(changes.load(), 40u);
  hio_queue_stats st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(hio_queue_stats_get(q, &st), 0);
  EXPECT_EQ(st.mode_changes, changes.load());  // each step of the cycle changes the mode
  EXPECT_EQ(st.completed, 256u * rounds);
}

// A queue's statistics outlive the thread that used it (a database's
// worker threads come and go): its CPU time stays at the last reading.
TEST(ThreadsQueueOwner, StatsAfterTheOwnerThreadEnded) {
  Engine e;
  Queue q(e, 4, strat(HIO_WAIT_POLL));
  int t = hio_queue_open(q, "emu:pcie4,size=1m", nullptr);
  ASSERT_GE(t, 0) << hio_last_error();
  Buf b = aligned_buf(4096);
  hio_queue_stats before{};
  before.struct_size = sizeof before;
  std::thread([&] {
    hio_queue_stats_reset(q);  // this thread becomes the owner
    for (int i = 0; i < 200; i++) ASSERT_EQ(hio_read(q, t, b.get(), 4096, 0), 4096) << hio_last_error();
    hio_queue_stats_get(q, &before);
  }).join();
  hio_queue_stats after{};
  after.struct_size = sizeof after;
  ASSERT_EQ(hio_queue_stats_get(q, &after), 0) << hio_last_error();
  EXPECT_EQ(after.completed, 200u);
  EXPECT_GT(before.cpu_ns, 0u);
  EXPECT_GE(after.cpu_ns, before.cpu_ns);
}
