// SPDX-License-Identifier: MIT
// --verify=crc32c: each written block starts with a header (magic, crc32c,
// offset, length, seed) and carries pseudo-random data; a read checks the
// crc32c over everything after the crc field, and the offset and length.
#pragma once
#include <cstdint>
#include <string>

#include "crc32c.hpp"

namespace hiobench {

// Fills a block of len bytes (>= 32) destined for offset.
void verify_fill(void* buf, uint32_t len, uint64_t offset, uint64_t seed);

// Empty if the block is intact, else what is wrong with it.
std::string verify_check(const void* buf, uint32_t len, uint64_t offset);

}  // namespace hiobench
