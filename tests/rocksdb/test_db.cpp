// SPDX-License-Identifier: MIT
// A small database through the plugin in every wait mode: written, flushed,
// compacted, read back by key and by scan, and again after a reopen.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include <cstdlib>
#include <string>

#include "hybridio/rocksdb.h"
#include "test_util.hpp"

namespace rdb = ::rocksdb;

namespace {

std::string key(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "key%08d", i);
  return b;
}
std::string value(int i) { return std::string(100 + i % 900, char('a' + i % 26)) + std::to_string(i); }

class Db : public ::testing::TestWithParam<const char*> {};

TEST_P(Db, WrittenFlushedCompactedAndReopened) {
  REQUIRE_SCRATCH();
  std::string dir = hiotest::scratch_dir() + "/hio-rocksdb-db-" + std::to_string(getpid()) + "-" +
                    std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                    std::to_string(std::hash<std::string>{}(GetParam()));
  std::shared_ptr<rdb::FileSystem> fs;
  ASSERT_TRUE(hybridio::rocksdb::NewFileSystem(GetParam(), &fs).ok());
  std::unique_ptr<rdb::Env> env = rdb::NewCompositeEnv(fs);
  rdb::Options o;
  o.env = env.get();
  o.create_if_missing = true;
  o.write_buffer_size = 64 << 10;  // several flushes and a compaction
  // RocksDB's own direct I/O on top: aligned requests, tables written with O_DIRECT.
  if (std::string(GetParam()).find("interrupt") != std::string::npos)
    o.use_direct_reads = o.use_direct_io_for_flush_and_compaction = true;
  ASSERT_TRUE(rdb::DestroyDB(dir, o).ok());
  constexpr int kKeys = 3000;
  for (int round = 0; round < 2; round++) {
    rdb::DB* db = nullptr;
    rdb::Status s = rdb::DB::Open(o, dir, &db);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (round == 0) {
      rdb::WriteOptions wo;
      for (int i = 0; i < kKeys; i++) {
        wo.sync = i % 500 == 0;
        ASSERT_TRUE(db->Put(wo, key(i), value(i)).ok());
      }
      s = db->Flush(rdb::FlushOptions());
      ASSERT_TRUE(s.ok()) << s.ToString();
      s = db->CompactRange(rdb::CompactRangeOptions(), nullptr, nullptr);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    rdb::ReadOptions ro;
    ro.verify_checksums = true;
    for (int i = 0; i < kKeys; i += 7) {
      std::string v;
      s = db->Get(ro, key(i), &v);
      ASSERT_TRUE(s.ok()) << key(i) << " round " << round << ": " << s.ToString();
      ASSERT_EQ(v, value(i));
    }
    std::unique_ptr<rdb::Iterator> it(db->NewIterator(ro));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), n++) ASSERT_EQ(it->key().ToString(), key(n));
    EXPECT_TRUE(it->status().ok()) << it->status().ToString();
    EXPECT_EQ(n, kKeys) << "round " << round;
    it.reset();
    ASSERT_TRUE(db->Close().ok());
    delete db;
  }
  hybridio::rocksdb::Stats st;
  ASSERT_TRUE(hybridio::rocksdb::GetStats(fs.get(), &st));
  EXPECT_GT(st.reads, 0u);
  if (std::string(GetParam()).find("writes=hybridio") != std::string::npos) {
    EXPECT_GT(st.writes, 0u);
    EXPECT_GT(st.syncs, 0u);
  } else {  // RocksDB's Posix files wrote
    EXPECT_EQ(st.writes, 0u);
    EXPECT_EQ(st.syncs, 0u);
  }
  EXPECT_GT(st.completed, 0u);
  // The flushes and the compaction ran on RocksDB's own threads, whose
  // queues wait by interrupt (the default background mode); the test's
  // thread waited under the URI's strategy.
  EXPECT_GE(st.background_queues, 1u);
  EXPECT_GT(st.queues, st.background_queues);
  if (std::string(GetParam()).find("completion=poll") != std::string::npos) {
    EXPECT_GT(st.mode_ns[HIO_WAIT_POLL], 0u);
    EXPECT_EQ(st.mode_ns[HIO_WAIT_INTERRUPT], 0u);
    EXPECT_NEAR(st.mode_ios[HIO_WAIT_POLL], double(st.completed), 1.0);
  }
  rdb::DestroyDB(dir, o).PermitUncheckedError();
}

INSTANTIATE_TEST_SUITE_P(Modes, Db,
                         ::testing::Values("hybridio://?completion=interrupt",
                                           "hybridio://?completion=poll&emulate=pcie3",
                                           "hybridio://?completion=interrupt&writes=hybridio",
                                           "hybridio://?completion=poll&cache_mb=8&writes=hybridio",
                                           "hybridio://?completion=hybrid&direct=0&writes=hybridio",
                                           "hybridio://?completion=adaptive&cache_mb=8&cache_policy=writeback&"
                                           "writes=hybridio"),
                         [](const auto& i) { return std::to_string(i.index); });

}  // namespace
