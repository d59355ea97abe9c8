#include "backend/emu_backend.hpp"

#include <cerrno>

#include "util/clock.hpp"
#include "util/error.hpp"

namespace hio {

std::unique_ptr<EmuBackend> EmuBackend::create(EmuDeviceProvider provider) {
  std::unique_ptr<EmuBackend> b(new EmuBackend(std::move(provider)));
  int r = io_uring_queue_init(4, &b->timer_ring_, 0);
  if (r < 0) {
    failf(-r, "emulated device: cannot create the timer ring: %s", errno_text(-r).c_str());
    return nullptr;
  }
  return b;
}

EmuBackend::~EmuBackend() { io_uring_queue_exit(&timer_ring_); }

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
    // Sleep in the kernel until the head deadline: the timer interrupt wakes
    // us, as a device interrupt would.
    __kernel_timespec ts{};
    uint64_t d = heap_.top().deadline_ns;
    ts.tv_sec = int64_t(d / 1000000000ull);
    ts.tv_nsec = int64_t(d % 1000000000ull);
    io_uring_sqe* sqe = io_uring_get_sqe(&timer_ring_);
    io_uring_prep_timeout(sqe, &ts, 0, IORING_TIMEOUT_ABS);
    int r;
    do {
      r = io_uring_submit_and_wait(&timer_ring_, 1);
    } while (r == -EINTR);
    if (r < 0) return failf(-r, "emulated device: timer wait failed: %s", errno_text(-r).c_str());
    io_uring_cqe* cqe;
    while (io_uring_peek_cqe(&timer_ring_, &cqe) == 0) io_uring_cqe_seen(&timer_ring_, cqe);
  }
}

}  // namespace hio
