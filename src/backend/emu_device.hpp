// The emulated SSD itself: a RAM namespace and a timing model shared by all
// queues that open it. Each command starts on the earliest free internal
// channel and completes after base latency + size/bandwidth + jitter; a
// channel is occupied channels/iops seconds per command, which makes the
// IOPS ceiling exact.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <vector>

#include "backend/backend.hpp"
#include "backend/emu_profile.hpp"

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
  uint64_t service_ns(const Command& c, double u_jitter) const;
  void read_data(uint8_t* dst, uint64_t offset, uint32_t len) const;
  void mark_written(uint64_t offset, uint32_t len);

  EmuConfig cfg_;
  uint8_t* mem_;
  double occupancy_ns_;
  double ns_per_byte_;
  // One bit per 4 KiB page ever written. Reading a page never written
  // returns zeros without touching it, so a read-only run does not fault in
  // (and bill the reader for) a page of the namespace per I/O.
  std::unique_ptr<std::atomic<uint64_t>[]> written_;
  std::mutex mu_;  // channels and random state: the device is shared by queues
  std::vector<uint64_t> channel_free_ns_;
  std::mt19937_64 rng_;
};

}  // namespace hio
