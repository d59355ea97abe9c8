// SPDX-License-Identifier: MIT
// Thread-local last-error message behind hio_last_error().
#pragma once
#include <string>

namespace hio {

// Records "msg" for this thread and returns -err (err > 0).
int fail(int err, std::string msg);
// Same, formatted printf-style.
int failf(int err, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
const char* last_error();
// "Input/output error (errno 5)".
std::string errno_text(int err);

}  // namespace hio
