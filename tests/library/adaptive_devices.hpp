// SPDX-License-Identifier: MIT
// Synthetic devices for the adaptive policy's tests: what each wait mode
// costs per I/O, as a queue would measure it, and the queue's share of the
// core it takes.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>

#include "adaptive/policy.hpp"

namespace hio {

struct Truth {
  double iops, cpu_us, lat_us, sleeps;
};
using Device = std::array<Truth, kModes>;  // interrupt, poll, hybrid

// Shaped after this project's measurements (docs/adaptive.md): a virtio
// disk where an interrupt costs less than half a polled I/O's CPU and, beside
// a CPU-bound neighbour, keeps more of the queue's IOPS than polling at half
// the core does (35K against 22.5K).
inline const Device kDisk{{{35000, 10, 28, 1}, {45000, 22, 22, 0}, {27000, 20, 36, 1}}};

// A neighbour wanting `want` of the core: beside a poller the scheduler
// holds each to half the core (the poller waits behind the neighbour for
// what it takes, up to half); beside a sleeper the neighbour gets what it
// wants of what the queue leaves.
inline double delay(Mode m, double want) { return m == Mode::poll ? std::min(want, 0.5) : 0.0; }
// Our thread's share of the core in mode m (a poller: all it is given).
inline double own_share(const Device& d, Mode m, double want) {
  const Truth& t = d[size_t(int(m))];
  return std::min(1.0, t.iops * (1 - delay(m, want)) * t.cpu_us * 1e-6);
}

}  // namespace hio
