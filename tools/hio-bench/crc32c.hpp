// SPDX-License-Identifier: MIT
// CRC-32C (Castagnoli), the checksum of --verify=crc32c: the CPU's crc32
// instruction (SSE4.2) where it has one, else a table; one answer either way.
#pragma once
#include <cstddef>
#include <cstdint>

namespace hiobench {

uint32_t crc32c(const void* data, size_t len);

// The two ways, named, so that a test can hold them to the same answers.
uint32_t crc32c_table(const void* data, size_t len);
uint32_t crc32c_sse42(const void* data, size_t len);
bool crc32c_has_sse42();

}  // namespace hiobench
