// SPDX-License-Identifier: MIT
// Read-ahead decisions per handle: how many bytes a cache miss should read.
// auto detects sequential streams (a read that starts where one of the
// last few reads ended) and grows their window, like Linux's read-ahead;
// random reads read only what they ask for. on reads the largest window on
// every miss, as HDD-era caches did; off never reads ahead.
#pragma once
#include <array>
#include <cstdint>

#include "hybridio/hio.h"

namespace hio {

class ReadAhead {
 public:
  static constexpr uint32_t kMinWindow = 16 * 1024;
  static constexpr uint32_t kMaxWindow = 128 * 1024;
  static constexpr int kSeqToStart = 2;  // sequential reads in a row before reading ahead
  static constexpr int kStreams = 8;

  explicit ReadAhead(hio_readahead mode) : mode_(mode) {}
  // Every read: updates the streams. On a miss (miss = true), returns the
  // bytes the device read should cover from offset (>= len).
  uint32_t on_read(uint64_t offset, uint32_t len, bool miss);

 private:
  struct Stream {
    uint64_t next = UINT64_MAX;  // where its next read would start
    int run = 0;                 // sequential reads so far
    uint32_t window = 0;
    uint64_t last_use = 0;
  };
  hio_readahead mode_;
  std::array<Stream, kStreams> s_{};
  uint64_t clock_ = 0;
};

}  // namespace hio
