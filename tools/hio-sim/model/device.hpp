// SPDX-License-Identifier: MIT
// Devices: when a command issued now completes. The emulated SSD's profiles
// run on the library's own timing model (EmuTiming), so a simulated pcie4
// is the emulated pcie4; a measured device (this machine's disk) draws each
// command's latency from the distribution calibration recorded for its size,
// on a number of channels that sets its ceiling, with a slow drift in speed.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emu/timing.hpp"
#include "model/events.hpp"
#include "model/rng.hpp"

namespace hio::sim {

class Device {
 public:
  virtual ~Device() = default;
  virtual Time deadline(bool write, uint32_t len, Time now) = 0;
  // Its mean 4 KiB read latency unloaded, ns.
  virtual double nominal_ns() const = 0;
};

class EmuDevice final : public Device {
 public:
  // spec: "emu:pcie4" or any emulated-SSD spec the library accepts.
  EmuDevice(const std::string& spec, uint64_t seed);
  Time deadline(bool write, uint32_t len, Time now) override;
  double nominal_ns() const override { return timing_->config().lat_us * 1e3; }

 private:
  std::unique_ptr<EmuTiming> timing_;
};

struct MeasuredDeviceParams {
  std::map<uint32_t, Quantiles> latency_ns;  // by request size in bytes
  unsigned channels = 16;
  double iops = 0;             // ceiling; 0: none beyond the channels
  double drift_sd = 0;         // log-sd of its speed, second to second
  double drift_corr_1s = 0.5;  // correlation of its speed one second apart
};

class MeasuredDevice final : public Device {
 public:
  MeasuredDevice(MeasuredDeviceParams p, uint64_t seed);
  Time deadline(bool write, uint32_t len, Time now) override;
  double nominal_ns() const override;

 private:
  const Quantiles& nearest(uint32_t len) const;
  double drift(Time now);
  MeasuredDeviceParams p_;
  Rng rng_;
  // The drift draws from a stream of its own, so that its walk is a function
  // of time alone: two runs on one seed see the same drift however many
  // commands each issues, and a comparison of strategies is not a comparison
  // of drifts.
  Rng drift_rng_;
  std::vector<Time> free_at_;
  double occupancy_ns_;
  Time drift_at_ = 0;
  double drift_log_ = 0;
};

}  // namespace hio::sim
