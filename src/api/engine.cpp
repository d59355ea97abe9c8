#include "api/engine.hpp"

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
    const EmuFaults none;
    if (c.faults.fail_offset != none.fail_offset || c.faults.fail_rate != none.fail_rate ||
        c.faults.corrupt_offset != none.corrupt_offset)
      return fail(EINVAL, "emulated timing '" + spec +
                              "': failures and corruption need the emulated device's own storage (emu:...); "
                              "a file keeps its data on the file");
    if (c.capacity || c.lba != EmuConfig().lba)
      return fail(EINVAL, "emulated timing '" + spec + "': size and lba belong to the file, not to its timing");
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
