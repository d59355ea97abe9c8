// SPDX-License-Identifier: MIT
#include "util/wait_mode.hpp"

#include <cstring>

#include "util/enum.hpp"

namespace hio {
namespace {

const char* const kModeNames[] = {"interrupt", "poll", "hybrid", "iopoll", "hybrid_iopoll", "sqpoll", "adaptive"};
static_assert(sizeof kModeNames / sizeof *kModeNames == HIO_WAIT_ADAPTIVE + 1, "a name per hio_wait_mode");

}  // namespace

const char* wait_mode_name(hio_wait_mode m) {
  int v = raw_enum(m);
  return v >= HIO_WAIT_INTERRUPT && v <= HIO_WAIT_ADAPTIVE ? kModeNames[v] : "unknown";
}

bool parse_wait_mode(const char* name, hio_wait_mode* out) {
  for (int i = 0; i <= HIO_WAIT_ADAPTIVE; i++)
    if (std::strcmp(name, kModeNames[i]) == 0) {
      *out = hio_wait_mode(i);
      return true;
    }
  return false;
}

}  // namespace hio
