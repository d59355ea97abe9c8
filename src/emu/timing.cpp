// SPDX-License-Identifier: MIT
#include "emu/timing.hpp"

#include <algorithm>

#include "util/page.hpp"

namespace hio {

EmuTiming::EmuTiming(const EmuConfig& cfg)
    : cfg_(cfg),
      occupancy_ns_(double(cfg.channels) * 1e9 / cfg.iops),
      ns_per_byte_(1e3 / cfg.bw_mbps),
      channel_free_ns_(cfg.channels, 0),
      rng_(cfg.seed) {}

uint64_t EmuTiming::service_ns(hio_op op, uint32_t len, double u_jitter) const {
  double lat_ns = (op == HIO_OP_WRITE ? cfg_.wlat_us : cfg_.lat_us) * 1e3;
  if (op == HIO_OP_FLUSH) return uint64_t(lat_ns);
  // The profile's latency is that of a 4 KiB command; other sizes differ by
  // their transfer time.
  double t = lat_ns + (double(len) - double(kPage)) * ns_per_byte_;
  t += (2 * u_jitter - 1) * cfg_.jitter_us * 1e3;
  return uint64_t(std::max(t, 100.0));
}

uint64_t EmuTiming::deadline(hio_op op, uint32_t len, uint64_t now_ns) {
  const EmuFaults& f = cfg_.faults;
  uint64_t start, service;
  bool slow;
  {
    std::lock_guard<std::mutex> g(mu_);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    slow = f.slow_rate > 0 && uni(rng_) < f.slow_rate;
    service = service_ns(op, len, uni(rng_));
    auto it = std::min_element(channel_free_ns_.begin(), channel_free_ns_.end());
    start = std::max(*it, now_ns);
    *it = start + uint64_t(occupancy_ns_);
  }
  if (slow) service = uint64_t(double(service) * f.slow_factor);
  return start + service;
}

}  // namespace hio
