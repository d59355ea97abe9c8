// SPDX-License-Identifier: MIT
// A log file named by an environment variable (HIO_ADAPTIVE_TICKS,
// HIO_IO_TRACE): opened for writing once, or null where the variable is
// unset, or the file cannot be made (said once on stderr, naming what is lost).
#pragma once
#include <cstdio>

namespace hio {

std::FILE* open_env_file(const char* var, const char* what);

}  // namespace hio
