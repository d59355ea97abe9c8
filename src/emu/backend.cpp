// SPDX-License-Identifier: MIT
#include "emu/backend.hpp"

#include <cerrno>

#include "util/clock.hpp"

namespace hio {

std::unique_ptr<EmuBackend> EmuBackend::create(EmuDeviceProvider provider) {
  std::unique_ptr<EmuBackend> b(new EmuBackend(std::move(provider)));
  b->held_ = HeldCompletions::create("emulated device");
  return b->held_ ? std::move(b) : nullptr;
}

int EmuBackend::open(const std::string& spec, const OpenOptions& opts, TargetInfo* info) {
  EmuConfig cfg;
  if (int r = parse_emu_spec(spec, &cfg); r < 0) return r;
  auto dev = provider_(cfg, opts.size);
  if (!dev) return -ENOMEM;  // message set by the provider
  info->name = spec;
  info->size = dev->capacity();
  info->offset_align = dev->config().lba;
  info->mem_align = 1;
  info->emulated = true;
  info->direct = true;
  devices_.push_back(std::move(dev));
  return int(devices_.size() - 1);
}

int EmuBackend::submit() {
  if (pending_.empty()) return 0;
  uint64_t now = now_ns();
  for (const Command& c : pending_) {
    EmuDevice::Result r = devices_[size_t(c.target)]->execute(c, now);
    held_->hold(r.deadline_ns, Cqe{c.user_data, r.res});
  }
  int n = int(pending_.size());
  pending_.clear();
  return n;
}

unsigned EmuBackend::peek(Cqe* out, unsigned max) { return held_->take_due(out, max); }

int EmuBackend::wait(Cqe* out, unsigned max) {
  submit();
  return held_->wait(out, max);
}

}  // namespace hio
