// SPDX-License-Identifier: MIT
// The C API's objects and the guard that keeps exceptions from crossing it.
#pragma once
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "api/engine.hpp"
#include "cache/block_cache.hpp"
#include "handle/bound_queue.hpp"
#include "handle/handle.hpp"
#include "handle/reaper.hpp"
#include "queue/queue.hpp"
#include "util/error.hpp"

struct hio_engine {
  hio::Engine impl;
};
struct hio_queue {
  std::shared_ptr<hio::Queue> impl;
  // Set once a handle binds the queue: from then on it is used through
  // handles, under the bound queue's lock.
  std::shared_ptr<hio::BoundQueue> bound;
};
struct hio_cache {
  std::unique_ptr<hio::BlockCache> impl;
};
struct hio_reaper {
  std::unique_ptr<hio::Reaper> impl;
};
struct hio_handle {
  std::unique_ptr<hio::Handle> impl;
  hio_queue* owned[2] = {nullptr, nullptr};  // dedicated queues it created
  hio_queue* queues[2] = {nullptr, nullptr};
};

namespace hio {

// Runs f, turning an escaping exception into -ENOMEM/-EIO with a message.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return hio::fail(ENOMEM, "out of memory");
  } catch (const std::exception& e) {
    return hio::fail(EIO, std::string("internal error: ") + e.what());
  }
}

// Runs f on the queue: under its bound lock if handles use it.
template <class F>
auto with_queue(hio_queue* q, F&& f) {
  if (q->bound) return q->bound->locked([&](Queue& qq) { return f(qq); });
  return f(*q->impl);
}

}  // namespace hio

#define CHECK_ARG(cond, what) \
  if (!(cond)) return hio::fail(EINVAL, std::string(__func__) + ": " + (what))
