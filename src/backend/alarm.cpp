#include "backend/alarm.hpp"

#include <cerrno>

#include "util/error.hpp"

namespace hio {

std::unique_ptr<Alarm> Alarm::create(const char* who) {
  std::unique_ptr<Alarm> a(new Alarm(who));
  if (int r = io_uring_queue_init(4, &a->ring_, 0); r < 0) {
    failf(-r, "%s: cannot create the timer ring: %s", who, errno_text(-r).c_str());
    return nullptr;
  }
  return a;
}

Alarm::~Alarm() { io_uring_queue_exit(&ring_); }

int Alarm::sleep_until(uint64_t deadline_ns) {
  __kernel_timespec ts{};
  ts.tv_sec = int64_t(deadline_ns / 1000000000ull);
  ts.tv_nsec = int64_t(deadline_ns % 1000000000ull);
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  io_uring_prep_timeout(sqe, &ts, 0, IORING_TIMEOUT_ABS);
  int r;
  do {
    r = io_uring_submit_and_wait(&ring_, 1);
  } while (r == -EINTR);
  if (r < 0) return failf(-r, "%s: timer wait failed: %s", who_, errno_text(-r).c_str());
  io_uring_cqe* cqe;
  while (io_uring_peek_cqe(&ring_, &cqe) == 0) io_uring_cqe_seen(&ring_, cqe);
  return 0;
}

}  // namespace hio
