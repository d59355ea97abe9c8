// SPDX-License-Identifier: MIT
// The C API's option structs as the library's own types, at the boundary:
// below src/api nothing sees struct_size or an ABI layout.
#pragma once
#include "handle/reaper.hpp"
#include "hybridio/hio.h"
#include "queue/queue.hpp"

namespace hio::api {

inline OpenOptions from_abi(const hio_open_opts& o) { return OpenOptions{o.flags, o.size}; }

inline QueueOptions from_abi(const hio_queue_opts& o) { return QueueOptions{o.depth, o.flags, o.strategy}; }

inline ReaperOptions from_abi(const hio_reaper_opts& o) { return ReaperOptions{o.poll_period_ns, o.cpu}; }

}  // namespace hio::api
