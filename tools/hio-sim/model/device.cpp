// SPDX-License-Identifier: MIT
#include "model/device.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "emu/profile.hpp"

namespace hio::sim {

EmuDevice::EmuDevice(const std::string& spec, uint64_t seed) {
  EmuConfig cfg;
  if (parse_emu_spec(spec, &cfg) != 0) throw std::invalid_argument("unknown emulated device '" + spec + "'");
  cfg.seed = seed;
  timing_ = std::make_unique<EmuTiming>(cfg);
}

Time EmuDevice::deadline(bool write, uint32_t len, Time now) {
  return timing_->deadline(write ? HIO_OP_WRITE : HIO_OP_READ, len, now);
}

MeasuredDevice::MeasuredDevice(MeasuredDeviceParams p, uint64_t seed)
    : p_(std::move(p)), rng_(seed), drift_rng_(rng_.fork(0x6472696674ull)), free_at_(std::max(1u, p_.channels), 0) {
  if (p_.latency_ns.empty()) throw std::invalid_argument("a measured device needs a latency for at least one size");
  occupancy_ns_ = p_.iops > 0 ? double(free_at_.size()) * 1e9 / p_.iops : 0;
}

const Quantiles& MeasuredDevice::nearest(uint32_t len) const {
  auto it = p_.latency_ns.lower_bound(len);
  if (it == p_.latency_ns.end()) return std::prev(it)->second;
  if (it->first == len || it == p_.latency_ns.begin()) return it->second;
  auto lo = std::prev(it);
  // The nearer size on a log scale.
  return std::log(double(len) / lo->first) < std::log(double(it->first) / len) ? lo->second : it->second;
}

double MeasuredDevice::drift(Time now) {
  if (p_.drift_sd <= 0) return 1;
  // An AR(1) walk of the log-speed in 100 ms steps with the measured spread
  // and one-second correlation.
  constexpr Time kStep = 100'000'000;
  double phi = std::pow(std::clamp(p_.drift_corr_1s, 0.0, 0.999), 0.1);
  double innov = p_.drift_sd * std::sqrt(1 - phi * phi);
  while (drift_at_ + kStep <= now) {
    drift_at_ += kStep;
    // A normal draw from two uniforms (Box-Muller).
    double u1 = std::max(drift_rng_.uniform(), 1e-12), u2 = drift_rng_.uniform();
    double z = std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    drift_log_ = phi * drift_log_ + innov * z;
  }
  return std::exp(drift_log_);
}

Time MeasuredDevice::deadline(bool, uint32_t len, Time now) {
  double lat = nearest(len).sample(rng_) * drift(now);
  auto it = std::min_element(free_at_.begin(), free_at_.end());
  Time start = std::max(*it, now);
  *it = start + Time(occupancy_ns_);
  return start + Time(std::max(lat, 100.0));
}

double MeasuredDevice::nominal_ns() const { return nearest(4096).mean(); }

}  // namespace hio::sim
