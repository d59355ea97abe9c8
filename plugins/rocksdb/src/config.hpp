// SPDX-License-Identifier: MIT
// The plugin's settings, parsed from a "hybridio://?key=value&..." URI.
#pragma once

#include <cstdint>
#include <string>

#include "hybridio/hio.h"

namespace hybridio::rocksdb {

struct Config {
  std::string uri;
  hio_wait_mode wait = HIO_WAIT_ADAPTIVE;          // the application's threads
  hio_wait_mode background = HIO_WAIT_INTERRUPT;   // RocksDB's flush and compaction threads
  hio_objective objective = HIO_OBJECTIVE_SHARED;  // what adaptive maximises beside other tenants
  uint64_t cache_mb = 0;                           // 0: no block cache of hybridio's
  hio_cache_write cache_policy = HIO_CACHE_WRITE_THROUGH;
  bool direct = true;   // O_DIRECT: hybridio's cache, not the kernel's page cache
  unsigned depth = 64;  // each thread's queue
  hio_readahead readahead = HIO_READAHEAD_AUTO;
  std::string stats;  // "" none, "stderr", or a path: statistics written at exit
  // WAL, MANIFEST and table files: written (and read sequentially) through
  // RocksDB's Posix files, where appends cost a copy into the page cache,
  // unless "hybridio" (each flush a write through the thread's queue, for
  // experiments).
  bool hybridio_writes = false;
  std::string emulate;  // "": the files' own timing; else an emulated SSD's (as after emu:)
};

// Returns "" and fills out, or a message naming the bad key or value.
std::string ParseUri(const std::string& uri, Config* out);

}  // namespace hybridio::rocksdb
