// SPDX-License-Identifier: MIT
// A machine profile: what hio-sim knows of a machine — its cores and
// scheduler, its idle state, what an interrupt, a context switch and each
// counter read cost, what the library measures a sleep to cost there, each
// I/O interface's CPU, and the devices measured on it. Profiles are JSON
// (tools/hio-sim/profiles/*.json; docs/simulator.md gives every field and
// where each shipped value comes from); `hio-sim calibrate` writes one.
#pragma once
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "adaptive/latency.hpp"
#include "model/device.hpp"
#include "model/interface.hpp"
#include "model/machine.hpp"
#include "model/sim_signals.hpp"

namespace hio::sim {

struct Profile {
  std::string name;
  nlohmann::json about;  // where it came from, as recorded
  int cores = 2;
  int online_cpus = 2;  // what the kernel scales its scheduler tunables by
  SchedulerParams sched;
  IdleParams idle;
  CoreParams core;
  ReadCosts reads;
  WakeCost library_wake;  // what the library's wake_cost() measures there
  std::map<std::string, Interface> interfaces;
  std::map<std::string, MeasuredDeviceParams> devices;

  // Throws std::runtime_error naming the file and the bad field.
  static Profile load(const std::string& path);
  static Profile from_json(const nlohmann::json& j, const std::string& where);
  nlohmann::json to_json() const;
  // A profile of this name in `dir` (name.json), or a path.
  static std::string resolve(const std::string& name_or_path, const std::string& dir);

  const Interface& interface(const std::string& name) const;
  // A device by name: one measured in this profile, or an emulated SSD spec
  // (emu:pcie4, or its profile name alone: pcie4).
  std::unique_ptr<Device> device(const std::string& name, uint64_t seed) const;
  // The interface a device is driven through unless a scenario says: the
  // emulated backend for emulated devices, the profile's "disk" for its own.
  std::string default_interface(const std::string& device) const;
};

}  // namespace hio::sim
