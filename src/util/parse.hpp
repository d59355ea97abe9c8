// SPDX-License-Identifier: MIT
// Number parsing shared by the emulated-device specs and hio-bench:
// fio-style sizes (4k, 1m, 2g; base 1024) and strict decimals.
#pragma once
#include <cstdint>
#include <string>

namespace hio {

// "4096", "4k", "4KiB", "1m", "2g", "1t"; base 1024. Rejects junk and overflow.
bool parse_size(const std::string& s, uint64_t* out);
// Whole string must be a finite decimal.
bool parse_double(const std::string& s, double* out);
// Whole string must be a signed decimal integer.
bool parse_int(const std::string& s, long long* out);

}  // namespace hio
