// SPDX-License-Identifier: MIT
// The emulated SSD itself: a RAM namespace, its timing (emu_timing.hpp) and
// its injected faults, shared by all queues that open it.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <vector>

#include "backend/backend.hpp"
#include "emu/profile.hpp"
#include "emu/timing.hpp"

namespace hio {

class EmuDevice {
 public:
  // Returns nullptr and sets the error message on failure.
  static EmuDevice* create(const EmuConfig& cfg);
  ~EmuDevice();
  EmuDevice(const EmuDevice&) = delete;
  EmuDevice& operator=(const EmuDevice&) = delete;

  const EmuConfig& config() const { return cfg_; }
  uint64_t capacity() const { return cfg_.capacity; }

  struct Result {
    uint64_t deadline_ns;  // when the completion becomes visible
    int32_t res;           // bytes or -EIO
  };
  // Moves the data and schedules the completion of a command issued at now_ns.
  Result execute(const Command& c, uint64_t now_ns);

 private:
  explicit EmuDevice(const EmuConfig& cfg, uint8_t* mem);
  void read_data(uint8_t* dst, uint64_t offset, uint32_t len) const;
  void mark_written(uint64_t offset, uint32_t len);
  // The stripes a command's pages fall in, one bit each.
  static uint64_t stripes_of(uint64_t offset, uint32_t len);

  EmuConfig cfg_;
  uint8_t* mem_;
  EmuTiming timing_;
  // One bit per 4 KiB page ever written. Reading a page never written
  // returns zeros without touching it, so a read-only run does not fault in
  // (and bill the reader for) a page of the namespace per I/O.
  std::unique_ptr<std::atomic<uint64_t>[]> written_;
  // Each command moves its data atomically against the others on its pages,
  // as an SSD's do: queues on several threads may write the same blocks, and
  // a read must return one write whole. Pages share kStripes striped locks:
  // few enough that a wide command holding all of them, beside its callers'
  // locks, stays within what a thread may hold under TSan (64).
  static constexpr unsigned kStripes = 16;
  std::shared_mutex stripes_[kStripes];
  std::mutex mu_;  // the failures' random state: the device is shared by queues
  std::mt19937_64 rng_;
};

}  // namespace hio
