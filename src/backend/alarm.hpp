// Sleeping in the kernel until an absolute CLOCK_MONOTONIC time, on a small
// io_uring of its own: the timer interrupt wakes the sleeper as a device's
// interrupt would, so no thread burns CPU to deliver an emulated completion.
#pragma once
#include <liburing.h>

#include <cstdint>
#include <memory>

namespace hio {

class Alarm {
 public:
  // nullptr with the message set if the ring cannot be made; `who` names
  // the owner in messages.
  static std::unique_ptr<Alarm> create(const char* who);
  ~Alarm();
  Alarm(const Alarm&) = delete;
  Alarm& operator=(const Alarm&) = delete;

  // Returns 0 once the clock has reached deadline_ns, or -errno.
  int sleep_until(uint64_t deadline_ns);

 private:
  explicit Alarm(const char* who) : who_(who) {}
  const char* who_;
  io_uring ring_{};
};

}  // namespace hio
