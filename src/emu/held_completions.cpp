// SPDX-License-Identifier: MIT
#include "emu/held_completions.hpp"

#include <cerrno>

#include "util/clock.hpp"
#include "util/error.hpp"

namespace hio {

std::unique_ptr<HeldCompletions> HeldCompletions::create(const char* who) {
  std::unique_ptr<HeldCompletions> h(new HeldCompletions(who));
  if (int r = io_uring_queue_init(4, &h->timer_, 0); r < 0) {
    failf(-r, "%s: cannot create the timer ring: %s", who, errno_text(-r).c_str());
    h->timer_ = io_uring{};
    return nullptr;
  }
  return h;
}

HeldCompletions::~HeldCompletions() {
  if (timer_.ring_fd > 0) io_uring_queue_exit(&timer_);
}

unsigned HeldCompletions::take_due(Cqe* out, unsigned max) {
  if (heap_.empty() || max == 0) return 0;
  uint64_t now = now_ns();
  unsigned n = 0;
  while (n < max && !heap_.empty() && heap_.top().deadline_ns <= now) {
    out[n++] = heap_.top().cqe;
    heap_.pop();
  }
  return n;
}

int HeldCompletions::wait(Cqe* out, unsigned max) {
  for (;;) {
    unsigned n = take_due(out, max);
    if (n > 0 || heap_.empty()) return int(n);
    if (int r = sleep_until(heap_.top().deadline_ns); r < 0) return r;
  }
}

int HeldCompletions::sleep_until(uint64_t deadline_ns) {
  __kernel_timespec ts{};
  ts.tv_sec = int64_t(deadline_ns / 1000000000ull);
  ts.tv_nsec = int64_t(deadline_ns % 1000000000ull);
  io_uring_sqe* sqe = io_uring_get_sqe(&timer_);
  io_uring_prep_timeout(sqe, &ts, 0, IORING_TIMEOUT_ABS);
  int r;
  do {
    r = io_uring_submit_and_wait(&timer_, 1);
  } while (r == -EINTR);
  if (r < 0) return failf(-r, "%s: timer wait failed: %s", who_, errno_text(-r).c_str());
  io_uring_cqe* cqe;
  while (io_uring_peek_cqe(&timer_, &cqe) == 0) io_uring_cqe_seen(&timer_, cqe);
  return 0;
}

}  // namespace hio
