// SPDX-License-Identifier: MIT
#include "queue/backend_factory.hpp"

#include <cerrno>

#include "backend/uring_backend.hpp"
#include "emu/backend.hpp"
#include "emu/timed_backend.hpp"
#include "util/error.hpp"
#include "util/wait_mode.hpp"
#include "wait/waiter.hpp"

namespace hio {

BackendKind backend_kind(const std::string& spec) {
  return spec.rfind("emu:", 0) == 0 ? BackendKind::emu : BackendKind::uring;
}

const char* backend_name(BackendKind k) { return k == BackendKind::emu ? "emu" : "uring"; }

int make_backend(const std::string& spec, hio_wait_mode m, unsigned depth, const Devices& devices,
                 std::unique_ptr<Backend>* out, hio_wait_mode* ring_mode) {
  if (backend_kind(spec) == BackendKind::emu) {
    if (is_kernel_mode(m))
      return failf(EOPNOTSUPP,
                   "wait mode '%s' is a kernel-side mode for a real device; the emulated SSD %s has no kernel "
                   "queue (use poll, hybrid or interrupt)",
                   wait_mode_name(m), spec.c_str());
    *out = EmuBackend::create(devices.emu);
  } else {
    auto timing = devices.file_timing ? devices.file_timing() : nullptr;
    if (timing && is_kernel_mode(m))
      return failf(EOPNOTSUPP,
                   "wait mode '%s' is a kernel-side mode; %s is under the emulated timing of %s, which the kernel "
                   "cannot see (use poll, hybrid or interrupt)",
                   wait_mode_name(m), spec.c_str(), timing->config().spec.c_str());
    *ring_mode = is_kernel_mode(m) ? m : HIO_WAIT_INTERRUPT;
    *out = UringBackend::create(depth, *ring_mode);
    if (*out && timing) *out = TimedBackend::create(std::move(*out), std::move(timing));
  }
  return *out ? 0 : -EINVAL;
}

}  // namespace hio
