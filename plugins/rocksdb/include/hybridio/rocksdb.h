/* SPDX-License-Identifier: MIT */
// hybridio's RocksDB FileSystem: table reads go through hybridio handles;
// writes (WAL, MANIFEST, tables, unless writes=hybridio) and metadata
// (create, rename, delete, list, lock) go through RocksDB's default file
// system.
//
// Selected by URI, e.g. db_bench --fs_uri='hybridio://?completion=adaptive&adaptive_objective=own'
// (the keys are in docs/rocksdb.md). Loading the library (LD_PRELOAD or
// linking it) registers the "hybridio://" factory with
// ObjectLibrary::Default(); RegisterFileSystem() does it explicitly.
#ifndef HYBRIDIO_ROCKSDB_H
#define HYBRIDIO_ROCKSDB_H

#include <rocksdb/file_system.h>
#include <rocksdb/status.h>

#include <cstdint>
#include <memory>
#include <string>

namespace hybridio::rocksdb {

// Adds the "hybridio://" factory to ObjectLibrary::Default(); once per process.
void RegisterFileSystem();

// The file system a URI describes, or InvalidArgument naming the bad key or value.
::rocksdb::Status NewFileSystem(const std::string& uri, std::shared_ptr<::rocksdb::FileSystem>* out);

struct Stats {
  std::string uri;
  uint64_t reads = 0, read_bytes = 0;         // random-access and sequential reads
  uint64_t multi_reads = 0, async_reads = 0;  // MultiRead calls, ReadAsync requests
  uint64_t writes = 0, write_bytes = 0;       // device writes (appends reach it at Flush)
  uint64_t syncs = 0;
  uint64_t cache_hits = 0, cache_misses = 0;  // hybridio's block cache, in 4 KiB pages
  uint64_t queues = 0;                        // one per thread that did I/O
  uint64_t background_queues = 0;             // of which RocksDB's flush and compaction threads'
  // The application threads' queues (not the background ones):
  uint64_t completed = 0;              // commands completed
  uint64_t sleep_ns = 0, spin_ns = 0;  // time waiting asleep and spinning
  uint64_t mode_ns[3] = {0, 0, 0};     // time under interrupt, poll, hybrid
  double mode_ios[3] = {0, 0, 0};      // completions, by each queue's time shares
};

// false if fs is not a hybridio file system.
bool GetStats(const ::rocksdb::FileSystem* fs, Stats* out);
// One JSON object (the file written at exit by the URI's stats key).
std::string StatsJson(const Stats& s);

}  // namespace hybridio::rocksdb

// For programs that load the library with dlopen: registers the factory.
extern "C" void hybridio_rocksdb_register(void);

#endif
