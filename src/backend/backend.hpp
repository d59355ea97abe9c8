// SPDX-License-Identifier: MIT
// The interface every backend offers a queue: queue commands, hand them to
// the device, peek completions without blocking, block until one arrives.
// Which of the last two to use, and when, is the wait strategy's business.
#pragma once
#include <cstdint>
#include <string>

#include "hybridio/hio.h"

namespace hio {

struct Command {
  hio_op op;
  int target;
  void* buf;
  uint32_t len;
  uint64_t offset;
  uint64_t user_data;  // the queue's slot index
};

struct Cqe {
  uint64_t user_data;
  int32_t res;  // bytes or -errno
};

struct TargetInfo {
  std::string name;
  uint64_t size = 0;
  uint32_t offset_align = 1;
  uint32_t mem_align = 1;
  bool emulated = false;
  bool direct = false;
  bool growable = false;  // a regular file: writes may extend it
  bool closed = false;    // its id is free for the next open
};

// How a target is opened: the C API's hio_open_opts, without its ABI framing.
struct OpenOptions {
  unsigned flags = 0;  // HIO_OPEN_*
  uint64_t size = 0;   // a created file's size, or an emulated device's capacity (0: 1 GiB)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;

  // Opens a target; returns its id >= 0 or -errno (message set).
  virtual int open(const std::string& spec, const OpenOptions& opts, TargetInfo* info) = 0;
  virtual int register_buffer(void* base, size_t len) = 0;
  // Closes a target with nothing in flight; a later open may reuse its id.
  virtual void close(int /*target*/) {}
  // An open file target's descriptor, for a system call on it that stands
  // for a command (-1: the target is not a plain file).
  virtual int fd(int /*target*/) const { return -1; }

  // Queues a validated command; it reaches the device at the next
  // submit() or wait(). Never fails for lack of room: the queue bounds depth.
  virtual void prepare(const Command& c) = 0;
  // Hands queued commands to the device without waiting.
  virtual int submit() = 0;
  // Completions already visible, without blocking and without a system call
  // where the backend allows it.
  virtual unsigned peek(Cqe* out, unsigned max) = 0;
  // Hands queued commands to the device and sleeps in the kernel until at
  // least one completion is visible; returns the number written to out.
  virtual int wait(Cqe* out, unsigned max) = 0;
};

}  // namespace hio
