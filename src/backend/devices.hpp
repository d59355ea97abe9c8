// SPDX-License-Identifier: MIT
// What a queue asks its engine for when it opens a target: the emulated SSD
// an emu: spec names, and the emulated timing its file targets take, if any.
#pragma once
#include <functional>
#include <memory>

#include "backend/emu_backend.hpp"
#include "backend/emu_timing.hpp"

namespace hio {

struct Devices {
  EmuDeviceProvider emu;
  // nullptr: files keep their own timing.
  std::function<std::shared_ptr<EmuTiming>()> file_timing;
};

}  // namespace hio
