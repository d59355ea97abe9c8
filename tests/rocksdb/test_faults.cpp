// SPDX-License-Identifier: MIT
// Injected faults under the plugin (emulate='s fail_offset and short_offset
// over the database's files): a table read or a log write that fails, or
// moves only part of its bytes, reaches RocksDB as one IOError naming the
// file and the offset, and the database reopens without losing a write it
// acknowledged.
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>

#include <cinttypes>
#include <cstdio>
#include <map>
#include <regex>
#include <string>

#include "hybridio/rocksdb.h"
#include "test_util.hpp"

namespace rdb = ::rocksdb;

namespace {

constexpr int kKeys = 3000;
constexpr uint64_t kFault = 64 << 10;  // the byte the faults are placed at

std::string key(int i) {
  char b[16];
  std::snprintf(b, sizeof b, "key%08d", i);
  return b;
}
std::string value(int i) { return std::string(100 + i % 900, char('a' + i % 26)) + std::to_string(i); }

// A database directory of the test's own, destroyed at the end.
struct Dir {
  std::string path;
  explicit Dir(const char* what)
      : path(hiotest::scratch_dir() + "/hio-rocksdb-faults-" + what + "-" + std::to_string(getpid())) {}
  ~Dir() { rdb::DestroyDB(path, rdb::Options()).PermitUncheckedError(); }
};

// A database opened through the plugin under one URI.
struct Open {
  std::shared_ptr<rdb::FileSystem> fs;
  std::unique_ptr<rdb::Env> env;
  rdb::Options o;
  rdb::DB* db = nullptr;
  rdb::Status s;
  Open(const std::string& uri, const std::string& dir) {
    s = hybridio::rocksdb::NewFileSystem(uri, &fs);
    if (!s.ok()) return;
    env = rdb::NewCompositeEnv(fs);
    o.env = env.get();
    o.create_if_missing = true;
    // Tables as large as their data: the faults' byte falls in a data
    // block, past what opening a table reads.
    o.compression = rdb::kNoCompression;
    s = rdb::DB::Open(o, dir, &db);
  }
  ~Open() {
    if (db) db->Close().PermitUncheckedError();
    delete db;
  }
};

// The offset an error message names ("... at offset N ..."), or -1.
int64_t named_offset(const std::string& msg) {
  std::smatch m;
  return std::regex_search(msg, m, std::regex("at offset ([0-9]+)")) ? std::stoll(m[1]) : -1;
}

// The message says what went wrong: the device's EIO, or how short the
// transfer was.
bool failure_named(const std::string& msg) {
  return msg.find("Input/output error (errno 5)") != std::string::npos ||
         std::regex_search(msg, std::regex("short transfer \\([0-9]+ of [0-9]+ bytes\\)"));
}

// Every key 0..n-1 (and those in `acked`) reads back with its value.
void expect_intact(const std::string& dir, int n, const std::map<int, std::string>& acked = {}) {
  Open d("hybridio://?completion=interrupt&direct=0", dir);
  ASSERT_TRUE(d.s.ok()) << d.s.ToString();
  std::map<int, std::string> want = acked;
  for (int i = 0; i < n; i++) want[i] = value(i);
  for (const auto& [i, v] : want) {
    std::string got;
    rdb::Status s = d.db->Get(rdb::ReadOptions(), key(i), &got);
    ASSERT_TRUE(s.ok()) << key(i) << ": " << s.ToString();
    ASSERT_EQ(got, v) << key(i);
  }
}

class TableReadFault : public ::testing::TestWithParam<const char*> {};

// A table of ~1.6 MB, then every key read under the fault: the reads of the
// block holding kFault fail, each with the table's name and an offset whose
// read covers kFault; the other keys read; nothing is lost.
TEST_P(TableReadFault, IsAnIoErrorNamingTheTableAndOffset) {
  REQUIRE_SCRATCH();
  Dir dir(GetParam());
  {
    Open d("hybridio://?completion=interrupt&direct=0", dir.path);
    ASSERT_TRUE(d.s.ok()) << d.s.ToString();
    for (int i = 0; i < kKeys; i++) ASSERT_TRUE(d.db->Put(rdb::WriteOptions(), key(i), value(i)).ok());
    ASSERT_TRUE(d.db->Flush(rdb::FlushOptions()).ok());
  }
  {
    Open d(std::string("hybridio://?completion=poll&direct=0&emulate=pcie4,fail_op=read,") + GetParam(), dir.path);
    ASSERT_TRUE(d.s.ok()) << d.s.ToString();
    int failed = 0;
    for (int i = 0; i < kKeys; i++) {
      std::string v;
      rdb::Status s = d.db->Get(rdb::ReadOptions(), key(i), &v);
      if (s.ok()) {
        ASSERT_EQ(v, value(i));
        continue;
      }
      failed++;
      ASSERT_TRUE(s.IsIOError()) << s.ToString();
      std::string msg = s.ToString();
      EXPECT_NE(msg.find(".sst"), std::string::npos) << msg;
      int64_t at = named_offset(msg);
      EXPECT_GE(at, 0) << msg;
      EXPECT_LE(uint64_t(at), kFault) << msg;
      EXPECT_GT(uint64_t(at) + 64 * 1024, kFault) << msg;  // within a block's reach
      EXPECT_TRUE(failure_named(msg)) << msg;
    }
    EXPECT_GT(failed, 0);
    EXPECT_LT(failed, kKeys / 10);  // one data block's keys, and only those
  }
  expect_intact(dir.path, kKeys);
}

INSTANTIATE_TEST_SUITE_P(Faults, TableReadFault, ::testing::Values("fail_offset=65536", "short_offset=65636"),
                         [](const auto& i) { return std::string(i.index ? "Short" : "Eio"); });

class LogWriteFault : public ::testing::TestWithParam<const char*> {};

// Synced writes through hybridio's log writer until one fails under the
// fault: the failure names the log and an offset whose write covers kFault;
// after it, the database refuses writes; reopened without the fault, every
// write acknowledged before it is there.
TEST_P(LogWriteFault, IsAnIoErrorAndLosesNoAcknowledgedWrite) {
  REQUIRE_SCRATCH();
  Dir dir(GetParam());
  std::map<int, std::string> acked;
  {
    Open d(std::string("hybridio://?completion=interrupt&direct=0&writes=hybridio&emulate=pcie4,fail_op=write,") +
               GetParam(),
           dir.path);
    ASSERT_TRUE(d.s.ok()) << d.s.ToString();
    rdb::WriteOptions wo;
    wo.sync = true;
    rdb::Status first;
    for (int i = 0; i < kKeys && first.ok(); i++) {
      rdb::Status s = d.db->Put(wo, key(i), value(i));
      if (s.ok())
        acked[i] = value(i);
      else
        first = s;
    }
    ASSERT_FALSE(first.ok()) << "no write reached the fault's byte";
    std::string msg = first.ToString();
    EXPECT_TRUE(first.IsIOError()) << msg;
    EXPECT_NE(msg.find(".log"), std::string::npos) << msg;
    int64_t at = named_offset(msg);
    EXPECT_GE(at, 0) << msg;
    EXPECT_LE(uint64_t(at), kFault) << msg;
    EXPECT_TRUE(failure_named(msg)) << msg;
    // The database stops taking writes rather than lose one.
    EXPECT_FALSE(d.db->Put(wo, "after", "x").ok());
  }
  EXPECT_GT(acked.size(), 100u);
  expect_intact(dir.path, 0, acked);
}

INSTANTIATE_TEST_SUITE_P(Faults, LogWriteFault, ::testing::Values("fail_offset=65536", "short_offset=65636"),
                         [](const auto& i) { return std::string(i.index ? "Short" : "Eio"); });

}  // namespace
