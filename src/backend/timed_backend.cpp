#include "backend/timed_backend.hpp"

#include <unistd.h>

#include <cerrno>

#include "util/clock.hpp"

namespace hio {

std::unique_ptr<TimedBackend> TimedBackend::create(std::unique_ptr<Backend> files, std::shared_ptr<EmuTiming> timing) {
  std::unique_ptr<TimedBackend> b(new TimedBackend(std::move(files), std::move(timing)));
  b->alarm_ = Alarm::create("emulated timing");
  return b->alarm_ ? std::move(b) : nullptr;
}

int32_t TimedBackend::execute(const Command& c) const {
  int fd = files_->fd(c.target);
  ssize_t r;
  do {
    if (c.op == HIO_OP_READ) r = ::pread(fd, c.buf, c.len, off_t(c.offset));
    else if (c.op == HIO_OP_WRITE) r = ::pwrite(fd, c.buf, c.len, off_t(c.offset));
    else r = ::fdatasync(fd);
  } while (r < 0 && errno == EINTR);
  return r < 0 ? -errno : int32_t(r);
}

int TimedBackend::submit() {
  if (pending_.empty()) return 0;
  for (const Command& c : pending_) {
    // The model's clock starts when the command reaches the device.
    uint64_t deadline = timing_->deadline(c.op, c.len, now_ns());
    held_.push(Held{deadline, Cqe{c.user_data, execute(c)}});
  }
  int n = int(pending_.size());
  pending_.clear();
  return n;
}

unsigned TimedBackend::peek(Cqe* out, unsigned max) {
  if (held_.empty() || max == 0) return 0;
  uint64_t now = now_ns();
  unsigned n = 0;
  while (n < max && !held_.empty() && held_.top().deadline_ns <= now) {
    out[n++] = held_.top().cqe;
    held_.pop();
  }
  return n;
}

int TimedBackend::wait(Cqe* out, unsigned max) {
  submit();
  for (;;) {
    unsigned n = peek(out, max);
    if (n > 0 || held_.empty()) return int(n);
    if (int r = alarm_->sleep_until(held_.top().deadline_ns); r < 0) return r;
  }
}

}  // namespace hio
