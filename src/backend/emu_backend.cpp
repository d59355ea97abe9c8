#include "backend/emu_backend.hpp"

#include <cerrno>

#include "util/clock.hpp"
#include "util/error.hpp"

namespace hio {

std::unique_ptr<EmuBackend> EmuBackend::create(EmuDeviceProvider provider) {
  std::unique_ptr<EmuBackend> b(new EmuBackend(std::move(provider)));
  b->alarm_ = Alarm::create("emulated device");
  return b->alarm_ ? std::move(b) : nullptr;
}

int EmuBackend::open(const std::string& spec, const hio_open_opts& opts, TargetInfo* info) {
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
    heap_.push(Inflight{r.deadline_ns, c.user_data, r.res});
  }
  int n = int(pending_.size());
  pending_.clear();
  return n;
}

unsigned EmuBackend::peek(Cqe* out, unsigned max) {
  if (heap_.empty() || max == 0) return 0;
  uint64_t now = now_ns();
  unsigned n = 0;
  while (n < max && !heap_.empty() && heap_.top().deadline_ns <= now) {
    out[n++] = Cqe{heap_.top().user_data, heap_.top().res};
    heap_.pop();
  }
  return n;
}

int EmuBackend::wait(Cqe* out, unsigned max) {
  submit();
  for (;;) {
    unsigned n = peek(out, max);
    if (n > 0 || heap_.empty()) return int(n);
    // Sleep until the head deadline: the timer interrupt wakes us, as a
    // device interrupt would.
    if (int r = alarm_->sleep_until(heap_.top().deadline_ns); r < 0) return r;
  }
}

}  // namespace hio
