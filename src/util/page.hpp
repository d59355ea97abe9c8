// SPDX-License-Identifier: MIT
// The 4 KiB page, one size throughout: the block cache's unit, the file
// page a short read at a file's end is judged against, the emulated SSD's
// grain of tracking and its latency's reference size.
#pragma once
#include <cstdint>

namespace hio {

constexpr unsigned kPageShift = 12;
constexpr uint32_t kPage = 1u << kPageShift;

}  // namespace hio
