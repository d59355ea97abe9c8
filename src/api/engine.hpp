// The engine: the registry of emulated devices its queues share.
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "backend/emu_device.hpp"

namespace hio {

class Engine {
 public:
  // Returns the device for cfg.spec, creating it (capacity: the spec's
  // size, else default_size, else 1 GiB) if no queue holds it.
  std::shared_ptr<EmuDevice> emu_device(const EmuConfig& cfg, uint64_t default_size);

 private:
  std::mutex mu_;
  std::map<std::string, std::weak_ptr<EmuDevice>> devices_;
};

}  // namespace hio
