// SPDX-License-Identifier: MIT
// A small machine profile for the tests: two cores, EEVDF at 250 Hz, a
// wake-up from idle that costs 20 us, an emulated backend and a slow disk.
#pragma once
#include "model/profile.hpp"

namespace hio::sim::test {

inline Profile profile() {
  return Profile::from_json(nlohmann::json::parse(R"({
    "name": "test",
    "cores": 2,
    "scheduler": {"kind": "eevdf", "hz": 250},
    "idle": {"exit_ns": 20000},
    "irq_ns": 2000,
    "switch_ns": 1500,
    "library_wake_cost": {"cpu_ns": 5000, "late_ns": 4000},
    "interfaces": {
      "emu": {"io_ns": 1000, "block_ns": 2000, "wake_ns": 1000},
      "disk": {"io_ns": 3000, "block_ns": 2000, "wake_ns": 1000, "irq_ns": 3000}
    },
    "devices": {"disk": {"channels": 8, "latency_ns": {"4096": [150000, 190000, 200000, 210000, 400000]}}}
  })"),
                            "test profile");
}

}  // namespace hio::sim::test
