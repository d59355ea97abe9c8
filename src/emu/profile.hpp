// SPDX-License-Identifier: MIT
// The emulated SSD's configuration: named profiles, custom values and
// fault injection, parsed from "emu:PROFILE[,key=value...]".
#pragma once
#include <cstdint>
#include <string>

#include "hybridio/hio.h"

namespace hio {

struct EmuFaults {
  uint64_t fail_offset = UINT64_MAX;   // commands covering this byte fail with EIO
  double fail_rate = 0;                // fraction of commands failing with EIO
  int fail_op = -1;                    // restrict failures to one hio_op (-1: any)
  uint64_t short_offset = UINT64_MAX;  // commands covering this byte move only the bytes before it
  double slow_rate = 0;                // fraction of commands whose latency is stretched
  double slow_factor = 10;
  uint64_t corrupt_offset = UINT64_MAX;  // a write covering this byte stores a flipped bit

  // Whether faults may touch a command of op (fail_op limits them to one).
  bool applies(int op) const { return fail_op < 0 || fail_op == op; }
  // Whether a fault placed at byte `at` hits a read or write of op on
  // [offset, offset + len).
  bool hits(uint64_t at, int op, uint64_t offset, uint32_t len) const {
    return applies(op) && (op == HIO_OP_READ || op == HIO_OP_WRITE) && at >= offset && at - offset < len;
  }
  // The bytes a read or write of op on [offset, offset + len) moves.
  uint32_t moved(int op, uint64_t offset, uint32_t len) const {
    return hits(short_offset, op, offset, len) ? uint32_t(short_offset - offset) : len;
  }
};

struct EmuConfig {
  std::string spec;       // as given, for messages
  std::string profile;    // pcie3, pcie4, optane, nand, custom
  double lat_us = 8;      // mean service latency of a 4 KiB command
  double iops = 1500000;  // ceiling over all channels
  unsigned channels = 0;  // 0: derived as ceil(iops * lat)
  double bw_mbps = 7000;  // transfer bandwidth, MB/s (10^6 bytes)
  double jitter_us = -1;  // uniform +-jitter; <0: 10% of lat_us
  double wlat_us = -1;    // write latency; <0: lat_us
  uint64_t capacity = 0;  // bytes; 0: from the open options
  uint32_t lba = 512;     // offset/length granularity
  uint64_t seed = 1;
  EmuFaults faults;
};

// Parses a spec starting with "emu:". Returns 0 or -EINVAL with a message
// naming the bad key or value.
int parse_emu_spec(const std::string& spec, EmuConfig* out);

// The names of the built-in profiles, comma separated, for messages.
const char* emu_profile_names();

}  // namespace hio
