// SPDX-License-Identifier: MIT
// What a queue asks its engine for when it opens a target: the emulated SSD
// an emu: spec names, and the emulated timing its file targets take, if any.
#pragma once
#include <functional>
#include <memory>

#include "emu/backend.hpp"
#include "emu/timing.hpp"

namespace hio {

struct Devices {
  EmuDeviceProvider emu;
  // nullptr: files keep their own timing.
  std::function<std::shared_ptr<EmuTiming>()> file_timing;
};

}  // namespace hio
