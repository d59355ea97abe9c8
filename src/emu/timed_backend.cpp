// SPDX-License-Identifier: MIT
#include "emu/timed_backend.hpp"

#include <unistd.h>

#include <cerrno>

#include "util/clock.hpp"

namespace hio {

std::unique_ptr<TimedBackend> TimedBackend::create(std::unique_ptr<Backend> files, std::shared_ptr<EmuTiming> timing) {
  std::unique_ptr<TimedBackend> b(new TimedBackend(std::move(files), std::move(timing)));
  b->held_ = HeldCompletions::create("emulated timing");
  return b->held_ ? std::move(b) : nullptr;
}

int32_t TimedBackend::execute(const Command& c) const {
  const EmuFaults& f = timing_->config().faults;
  if (f.hits(f.fail_offset, c.op, c.offset, c.len)) return -EIO;
  uint32_t len = f.moved(c.op, c.offset, c.len);
  int fd = files_->fd(c.target);
  ssize_t r;
  do {
    if (c.op == HIO_OP_READ)
      r = ::pread(fd, c.buf, len, off_t(c.offset));
    else if (c.op == HIO_OP_WRITE)
      r = ::pwrite(fd, c.buf, len, off_t(c.offset));
    else
      r = ::fdatasync(fd);
  } while (r < 0 && errno == EINTR);
  return r < 0 ? -errno : int32_t(r);
}

int TimedBackend::submit() {
  if (pending_.empty()) return 0;
  for (const Command& c : pending_) {
    // The model's clock starts when the command reaches the device.
    uint64_t deadline = timing_->deadline(c.op, c.len, now_ns());
    held_->hold(deadline, Cqe{c.user_data, execute(c)});
  }
  int n = int(pending_.size());
  pending_.clear();
  return n;
}

unsigned TimedBackend::peek(Cqe* out, unsigned max) { return held_->take_due(out, max); }

int TimedBackend::wait(Cqe* out, unsigned max) {
  submit();
  return held_->wait(out, max);
}

}  // namespace hio
