// SPDX-License-Identifier: MIT
// The engine: the emulated devices its queues share, and the emulated timing
// its file targets take.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "emu/device.hpp"
#include "emu/devices.hpp"

namespace hio {

class Engine {
 public:
  // Returns the device for cfg.spec, creating it (capacity: the spec's
  // size, else default_size, else 1 GiB) if no queue holds it.
  std::shared_ptr<EmuDevice> emu_device(const EmuConfig& cfg, uint64_t default_size);
  // The file targets of queues whose first target opens from now on
  // complete no sooner than the emulated device `spec` (as after "emu:")
  // would; one model serves them all. "": files keep their own timing.
  // -EINVAL with the message set.
  int emulate_files(const std::string& spec);
  std::shared_ptr<EmuTiming> file_timing();
  // What this engine's queues open their targets with.
  Devices devices();

 private:
  std::mutex mu_;
  std::map<std::string, std::weak_ptr<EmuDevice>> devices_;
  std::shared_ptr<EmuTiming> file_timing_;
};

}  // namespace hio
