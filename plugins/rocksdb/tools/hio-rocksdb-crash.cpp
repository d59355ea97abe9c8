// SPDX-License-Identifier: MIT
// The writer and checker of the plugin's durability test (tests/rocksdb):
//
//   hio-rocksdb-crash write --db DIR --uri URI [--seed N]
//     writes keys with sync=true until killed; prints on stdout, one line per
//     acknowledged write, the highest index whose write has returned OK.
//     A DB that already holds keys is continued after its last key. Odd
//     seeds have RocksDB write its tables with direct I/O.
//   hio-rocksdb-crash check --db DIR --uri URI --acked N [--seed N]
//     reopens the DB and verifies keys 0..N-1 and their values.
//
// Exit status: 0 ok, 1 an operation failed or a key is missing or wrong,
// 2 bad arguments (one line naming the bad value).
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "hybridio/rocksdb.h"

namespace {

namespace rdb = ::rocksdb;

constexpr const char* kUsage =
    "usage: hio-rocksdb-crash write --db DIR --uri URI [--seed N]\n"
    "       hio-rocksdb-crash check --db DIR --uri URI --acked N [--seed N]\n";

// One write in kBatchEvery is a batch of kBatch new keys, and every
// kFlushEvery writes the memtable is flushed: a kill may land in a log, table
// or manifest write.
constexpr uint64_t kBatchEvery = 37, kBatch = 8, kFlushEvery = 500;

struct Args {
  std::string mode, db, uri;
  uint64_t seed = 0, acked = 0;
  bool has_acked = false;
};

[[noreturn]] void usage_error(const std::string& msg) {
  std::fprintf(stderr, "hio-rocksdb-crash: %s\n", msg.c_str());
  std::exit(2);
}

// Leaves at once: RocksDB's threads are still running with the DB open.
[[noreturn]] void fail(const std::string& what, const rdb::Status& s) {
  std::fflush(stdout);
  std::fprintf(stderr, "hio-rocksdb-crash: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::_Exit(1);
}

uint64_t parse_count(const std::string& opt, const std::string& v) {
  if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos)
    usage_error("bad value '" + v + "' for " + opt + " (expected a non-negative integer)");
  return std::strtoull(v.c_str(), nullptr, 10);
}

Args parse(int argc, char** argv) {
  Args a;
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    std::exit(2);
  }
  a.mode = argv[1];
  if (a.mode != "write" && a.mode != "check") usage_error("bad mode '" + a.mode + "' (expected write or check)");
  for (int i = 2; i < argc; i++) {
    std::string opt = argv[i], v;
    if (size_t eq = opt.find('='); eq != std::string::npos) {
      v = opt.substr(eq + 1);
      opt.resize(eq);
    } else if (i + 1 < argc) {
      v = argv[++i];
    } else {
      usage_error("no value for " + opt);
    }
    if (opt == "--db")
      a.db = v;
    else if (opt == "--uri")
      a.uri = v;
    else if (opt == "--seed")
      a.seed = parse_count(opt, v);
    else if (opt == "--acked" && a.mode == "check") {
      a.acked = parse_count(opt, v);
      a.has_acked = true;
    } else
      usage_error("unknown option '" + opt + "' for " + a.mode);
  }
  if (a.db.empty()) usage_error("no --db");
  if (a.uri.empty()) usage_error("no --uri");
  if (a.mode == "check" && !a.has_acked) usage_error("no --acked");
  return a;
}

uint64_t splitmix(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::string key(uint64_t i) {
  char b[32];
  std::snprintf(b, sizeof b, "key%08llu", (unsigned long long)i);
  return b;
}

// 200 bytes to 2 KiB, a function of the index and the seed only.
std::string value(uint64_t i, uint64_t seed) {
  uint64_t s = seed * 0x100000001b3ull ^ i;
  std::string v(200 + splitmix(&s) % 1849, '\0');
  for (size_t k = 0; k < v.size(); k += 8) {
    uint64_t r = splitmix(&s);
    std::memcpy(&v[k], &r, std::min<size_t>(8, v.size() - k));
  }
  return v;
}

struct Db {
  std::unique_ptr<rdb::Env> env;  // outlives db
  std::unique_ptr<rdb::DB> db;
};

Db open(const Args& a) {
  std::shared_ptr<rdb::FileSystem> fs;
  if (rdb::Status s = hybridio::rocksdb::NewFileSystem(a.uri, &fs); !s.ok()) usage_error(s.ToString());
  Db d;
  d.env = rdb::NewCompositeEnv(fs);
  rdb::Options o;
  o.env = d.env.get();
  o.create_if_missing = a.mode == "write";
  // Small memtables and levels: a run of a second has flushes and compactions.
  o.write_buffer_size = 256 << 10;
  o.target_file_size_base = 256 << 10;
  o.max_bytes_for_level_base = 1 << 20;
  o.level0_file_num_compaction_trigger = 2;
  // Odd seeds write tables with O_DIRECT (RocksDB asks the file system for
  // direct writes), even ones through the page cache: the kills cover both.
  o.use_direct_io_for_flush_and_compaction = a.seed % 2 == 1;
  rdb::DB* db = nullptr;
  if (rdb::Status s = rdb::DB::Open(o, a.db, &db); !s.ok()) fail("open " + a.db, s);
  d.db.reset(db);
  return d;
}

void ack(uint64_t i) {
  std::printf("%llu\n", (unsigned long long)i);
  std::fflush(stdout);
}

[[noreturn]] void write(const Args& a) {
  Db d = open(a);
  // Continues after the last key a previous run left (keys sort as numbers).
  uint64_t i = 0;
  {
    std::unique_ptr<rdb::Iterator> it(d.db->NewIterator(rdb::ReadOptions()));
    it->SeekToLast();
    if (it->Valid()) i = parse_count("the last key", it->key().ToString().substr(3)) + 1;
    if (!it->status().ok()) fail("seek to the last key", it->status());
  }
  std::fprintf(stderr, "hio-rocksdb-crash: writing from key %llu\n", (unsigned long long)i);
  rdb::WriteOptions wo;
  wo.sync = true;
  uint64_t rewrite = a.seed;
  for (uint64_t n = 1;; n++) {
    if (n % kBatchEvery == 0) {
      // New keys, and earlier keys again with the same values: without those
      // rewrites every SST would cover its own key range and compactions
      // would only move files.
      rdb::WriteBatch b;
      for (uint64_t k = 0; k < kBatch; k++) {
        uint64_t old = splitmix(&rewrite) % i;
        rdb::Status s = b.Put(key(i + k), value(i + k, a.seed));
        if (s.ok()) s = b.Put(key(old), value(old, a.seed));
        if (!s.ok()) fail("batch put " + key(i + k), s);
      }
      if (rdb::Status s = d.db->Write(wo, &b); !s.ok()) fail("write batch from " + key(i), s);
      i += kBatch;
    } else {
      if (rdb::Status s = d.db->Put(wo, key(i), value(i, a.seed)); !s.ok()) fail("put " + key(i), s);
      i++;
    }
    ack(i - 1);
    if (n % kFlushEvery == 0)
      if (rdb::Status s = d.db->Flush(rdb::FlushOptions()); !s.ok()) fail("flush after " + key(i - 1), s);
  }
}

int check(const Args& a) {
  Db d = open(a);
  rdb::ReadOptions ro;
  ro.verify_checksums = true;
  std::string got;
  for (uint64_t i = 0; i < a.acked; i++) {
    rdb::Status s = d.db->Get(ro, key(i), &got);
    std::string want = value(i, a.seed);
    if (s.IsNotFound()) {
      std::printf("check: %s missing (%llu acknowledged)\n", key(i).c_str(), (unsigned long long)a.acked);
      return 1;
    }
    if (!s.ok()) fail("get " + key(i), s);
    if (got != want) {
      std::printf("check: %s has a wrong value (%zu bytes, expected %zu; %llu acknowledged)\n", key(i).c_str(),
                  got.size(), want.size(), (unsigned long long)a.acked);
      return 1;
    }
  }
  if (rdb::Status s = d.db->Close(); !s.ok()) fail("close " + a.db, s);
  std::printf("check: all %llu acknowledged keys present with their values\n", (unsigned long long)a.acked);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  if (a.mode == "write") write(a);
  return check(a);
}
