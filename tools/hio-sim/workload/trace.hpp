// SPDX-License-Identifier: MIT
// A recorded I/O trace: per read, its size and the application's compute
// before it (the time from the previous read's completion to this one's
// submission). The library records one where HIO_IO_TRACE names a file;
// hio-sim replays it as an application's thread would run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hio::sim {

struct TraceRecord {
  uint32_t len = 4096;
  uint32_t gap_ns = 0;
};

struct Trace {
  std::string name;
  std::vector<TraceRecord> records;
  // Reads a CSV (optionally gzip-compressed) with the columns len,gap_ns,
  // or HIO_IO_TRACE's queue,len,gap_ns (of which the busiest queue's);
  // throws std::invalid_argument naming the file and line on bad input.
  static Trace load(const std::string& path);
  double mean_gap_ns() const;
};

}  // namespace hio::sim
