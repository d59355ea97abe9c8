#include "api/engine.hpp"

namespace hio {

std::shared_ptr<EmuDevice> Engine::emu_device(const EmuConfig& cfg, uint64_t default_size) {
  std::lock_guard<std::mutex> g(mu_);
  if (auto d = devices_[cfg.spec].lock()) return d;
  EmuConfig c = cfg;
  if (c.capacity == 0) c.capacity = default_size ? default_size : (uint64_t(1) << 30);
  std::shared_ptr<EmuDevice> d(EmuDevice::create(c));
  if (d) devices_[cfg.spec] = d;
  return d;
}

}  // namespace hio
