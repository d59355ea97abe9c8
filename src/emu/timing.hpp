// SPDX-License-Identifier: MIT
// The emulated SSD's timing: each command starts on the earliest free
// internal channel and completes after base latency + size/bandwidth +
// jitter; a channel is occupied channels/iops seconds per command, which
// makes the IOPS ceiling exact. Shared by the queues that use one device.
#pragma once
#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

#include "emu/profile.hpp"
#include "hybridio/hio.h"

namespace hio {

class EmuTiming {
 public:
  explicit EmuTiming(const EmuConfig& cfg);
  const EmuConfig& config() const { return cfg_; }
  // When a command of op and len bytes, issued at now_ns, completes.
  uint64_t deadline(hio_op op, uint32_t len, uint64_t now_ns);

 private:
  uint64_t service_ns(hio_op op, uint32_t len, double u_jitter) const;

  EmuConfig cfg_;
  double occupancy_ns_;
  double ns_per_byte_;
  std::mutex mu_;  // below
  std::vector<uint64_t> channel_free_ns_;
  std::mt19937_64 rng_;
};

}  // namespace hio
