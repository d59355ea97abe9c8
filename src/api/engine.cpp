// SPDX-License-Identifier: MIT
#include "api/engine.hpp"

#include <algorithm>
#include <cerrno>

#include "util/error.hpp"

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

int Engine::emulate_files(const std::string& spec) {
  std::shared_ptr<EmuTiming> t;
  if (!spec.empty()) {
    EmuConfig c;
    if (int r = parse_emu_spec("emu:" + spec, &c); r < 0) return r;
    // Keys that describe the device's storage, not its timing: refused when given at all.
    for (size_t pos = 0; pos <= spec.size();) {
      size_t comma = std::min(spec.find(',', pos), spec.size());
      std::string key = spec.substr(pos, std::min(spec.find('=', pos), comma) - pos);
      pos = comma + 1;
      if (key == "fail_rate" || key == "corrupt_offset")
        return fail(EINVAL, "emulated timing '" + spec + "': " + key +
                                " is the emulated device's own (emu:...); over a file, fail_offset, short_offset "
                                "and fail_op inject faults");
      if (key == "size" || key == "lba")
        return fail(EINVAL, "emulated timing '" + spec + "': " + key + " belongs to the file, not to its timing");
    }
    t = std::make_shared<EmuTiming>(c);
  }
  std::lock_guard<std::mutex> g(mu_);
  file_timing_ = std::move(t);
  return 0;
}

std::shared_ptr<EmuTiming> Engine::file_timing() {
  std::lock_guard<std::mutex> g(mu_);
  return file_timing_;
}

Devices Engine::devices() {
  return Devices{[this](const EmuConfig& c, uint64_t size) { return emu_device(c, size); },
                 [this] { return file_timing(); }};
}

}  // namespace hio
