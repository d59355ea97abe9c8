// SPDX-License-Identifier: MIT
// The wait modes' names, for messages and parsing at every layer: the C API's
// hio_wait_mode_name() and hio_wait_mode_parse() are these at the boundary.
#pragma once
#include "hybridio/hio.h"

namespace hio {

// "unknown" for a value outside the enumerators.
const char* wait_mode_name(hio_wait_mode m);
// false for a name no mode has.
bool parse_wait_mode(const char* name, hio_wait_mode* out);

}  // namespace hio
