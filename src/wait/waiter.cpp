// SPDX-License-Identifier: MIT
#include "wait/waiter.hpp"

#include "adaptive/governor.hpp"
#include "util/clock.hpp"
#include "util/enum.hpp"
#include "util/error.hpp"
#include "util/sleep.hpp"

namespace hio {

bool is_kernel_mode(hio_wait_mode m) {
  return m == HIO_WAIT_IOPOLL || m == HIO_WAIT_HYBRID_IOPOLL || m == HIO_WAIT_SQPOLL;
}

int Waiter::validate(const hio_strategy& s) {
  int m = raw_enum(s.mode);
  if (m < HIO_WAIT_INTERRUPT || m > HIO_WAIT_ADAPTIVE) return failf(EINVAL, "unknown wait mode %d", m);
  if (!(s.hybrid_fraction >= 0.0 && s.hybrid_fraction <= 10.0))
    return failf(EINVAL, "hybrid sleep fraction %g is outside 0..10", s.hybrid_fraction);
  int o = raw_enum(s.objective);
  if (o != HIO_OBJECTIVE_SHARED && o != HIO_OBJECTIVE_OWN) return failf(EINVAL, "unknown adaptive objective %d", o);
  if (s.hybrid_sleep_ns > 1000000000ull)
    return failf(EINVAL, "hybrid sleep of %llu ns exceeds one second", (unsigned long long)s.hybrid_sleep_ns);
  return 0;
}

void Waiter::set(const hio_strategy& s) {
  fixed_sleep_ns_.store(s.hybrid_sleep_ns, std::memory_order_relaxed);
  fraction_.store(s.hybrid_fraction > 0 ? s.hybrid_fraction : 0.5, std::memory_order_relaxed);
  adaptive_.set_objective(s.objective);
  if (s.mode == HIO_WAIT_ADAPTIVE) adaptive_.prepare();
  mode_.store(s.mode, std::memory_order_release);
}

hio_strategy Waiter::get() const {
  hio_strategy s{};
  s.struct_size = sizeof s;
  s.mode = hio_wait_mode(mode_.load(std::memory_order_acquire));
  s.hybrid_sleep_ns = fixed_sleep_ns_.load(std::memory_order_relaxed);
  s.hybrid_fraction = fraction_.load(std::memory_order_relaxed);
  s.objective = adaptive_.objective();
  return s;
}

uint64_t Waiter::hybrid_sleep_ns() const {
  uint64_t fixed = fixed_sleep_ns_.load(std::memory_order_relaxed);
  return fixed ? fixed : uint64_t(ewma_ns_ * fraction_.load(std::memory_order_relaxed));
}

int Waiter::spin(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, WaitStats& st) {
  uint64_t t0 = now_ns();
  while (n < min) {
    // No PAUSE in this loop: under KVM a PAUSE loop triggers pause-loop
    // exits, which deschedule the spinning vCPU just when it should react.
    n += be.peek(out + n, max - n);
  }
  st.spin_ns += now_ns() - t0;
  return int(n);
}

int Waiter::block(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, WaitStats& st) {
  uint64_t t0 = now_ns();
  while (n < min) {
    int r = be.wait(out + n, max - n);
    if (r < 0) return r;
    n += unsigned(r);
  }
  st.sleep_ns += now_ns() - t0;
  return int(n);
}

int Waiter::hybrid(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, uint64_t sleep, WaitStats& st) {
  if (sleep > 0) {
    uint64_t t0 = now_ns();
    sleep_ns(sleep);
    st.sleep_ns += now_ns() - t0;
    n += be.peek(out + n, max - n);
    found_after_sleep_ = n;
  }
  return spin(be, out, max, min, n, st);
}

int Waiter::adaptive_wait(Backend& be, Cqe* out, unsigned max, unsigned min, unsigned n, const HintSource& hint,
                          WaitStats& st) {
  uint64_t t0 = now_ns();
  Mode m = adaptive_.begin_wait(t0);
  bool slept = m == Mode::interrupt;
  int r;
  if (m == Mode::interrupt) {
    r = block(be, out, max, min, n, st);
  } else if (int e = be.submit(); e < 0) {
    r = e;
  } else if (m == Mode::hybrid) {
    uint64_t s = adaptive_.hybrid_sleep_ns(hint(), t0);
    slept = s > 0;
    uint64_t asleep0 = st.sleep_ns;
    r = hybrid(be, out, max, min, n, s, st);
    if (slept) adaptive_.hybrid_woke(st.sleep_ns - asleep0 > s ? st.sleep_ns - asleep0 - s : 0);
  } else {
    r = spin(be, out, max, min, n, st);
  }
  uint64_t t1 = now_ns();
  adaptive_.end_wait(t1 - t0, t1, slept);
  return r;
}

bool Waiter::begin_blocking(uint64_t now) {
  auto mode = hio_wait_mode(mode_.load(std::memory_order_acquire));
  if (mode == HIO_WAIT_INTERRUPT) {
    // This thread waits in the system call, as it would in block(): it is ours.
    Governor::get().note_own_thread();
    return true;
  }
  // Only a tick that already sleeps is asked: a poller pays nothing here.
  if (mode != HIO_WAIT_ADAPTIVE || !adaptive_.sleeping()) return false;
  adaptive_blocking_ = adaptive_.begin_wait(now) == Mode::interrupt;
  return adaptive_blocking_;
}

void Waiter::end_blocking(uint64_t waited_ns) {
  if (adaptive_blocking_) adaptive_.end_wait(waited_ns, now_ns(), true);
  adaptive_blocking_ = false;
}

int Waiter::wait(Backend& be, Cqe* out, unsigned max, unsigned min, bool pending, const HintSource& hint,
                 WaitStats& st) {
  found_after_sleep_ = 0;
  auto mode = hio_wait_mode(mode_.load(std::memory_order_acquire));
  // Every thread that reaps is ours, also one whose I/O is always done in
  // time; adaptive's begin_wait registers its own.
  if (mode != HIO_WAIT_ADAPTIVE) Governor::get().note_own_thread();
  unsigned n = be.peek(out, max);
  if (n >= min) {
    if (pending)
      if (int r = be.submit(); r < 0) return r;
    return int(n);
  }
  st.waits++;
  switch (mode) {
    case HIO_WAIT_POLL:
      if (int r = be.submit(); r < 0) return r;
      return spin(be, out, max, min, n, st);
    case HIO_WAIT_HYBRID:
      if (int r = be.submit(); r < 0) return r;
      return hybrid(be, out, max, min, n, hybrid_sleep_ns(), st);
    case HIO_WAIT_ADAPTIVE: return adaptive_wait(be, out, max, min, n, hint, st);
    default: return block(be, out, max, min, n, st);
  }
}

}  // namespace hio
