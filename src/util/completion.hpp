// SPDX-License-Identifier: MIT
// What queues and handles say about a command: its operation's name, a
// completion described in one line, and a synchronous helper's result.
#pragma once
#include <cstdint>
#include <string>

#include "hybridio/hio.h"

namespace hio {

// Tags of the synchronous helpers' commands: the caller's never have this bit.
constexpr uint64_t kSyncTagBit = 1ull << 63;

const char* op_name(hio_op op);
// "read at offset 4096 of emu:pcie4: Input/output error (errno 5)", or "...: 4096 bytes".
std::string describe_completion(const hio_completion& c, const std::string& target);
// A synchronous helper's return: the byte count (0 for a flush), or -errno
// with the message set for an error or a short transfer.
int64_t sync_result(const hio_completion& c, uint32_t len, const std::string& target);

}  // namespace hio
