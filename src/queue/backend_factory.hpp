// SPDX-License-Identifier: MIT
// The one place that decides which backend serves a target spec ("emu:..."
// the emulated SSD, anything else a file or block device through io_uring)
// and makes it for a queue's wait mode.
#pragma once
#include <memory>
#include <string>

#include "backend/backend.hpp"
#include "emu/devices.hpp"
#include "hybridio/hio.h"

namespace hio {

enum class BackendKind { uring, emu };

BackendKind backend_kind(const std::string& spec);
// "uring" or "emu", as Backend::name() says it.
const char* backend_name(BackendKind k);

// Makes *out, the backend for spec under wait mode m: the engine's emulated
// SSD, or an io_uring ring of `depth` entries (under the engine's emulated
// timing for files, if it has one). *ring_mode gets the ring's own mode: m
// for the kernel-side modes, interrupt for the others. Returns 0, or -errno
// with the message set (-EOPNOTSUPP where the mode cannot wait on that backend).
int make_backend(const std::string& spec, hio_wait_mode m, unsigned depth, const Devices& devices,
                 std::unique_ptr<Backend>* out, hio_wait_mode* ring_mode);

}  // namespace hio
