// SPDX-License-Identifier: MIT
// Files and block devices through io_uring: registered files, an optional
// registered buffer region, and the ring set up for the queue's kernel mode
// (plain, IOPOLL, HYBRID_IOPOLL or SQPOLL).
#pragma once
#include <liburing.h>

#include <memory>
#include <vector>

#include "backend/backend.hpp"

namespace hio {

class UringBackend final : public Backend {
 public:
  // kernel_mode: HIO_WAIT_INTERRUPT for a plain ring, or IOPOLL,
  // HYBRID_IOPOLL, SQPOLL. Returns nullptr with the message set on failure.
  static std::unique_ptr<UringBackend> create(unsigned depth, hio_wait_mode kernel_mode);
  ~UringBackend() override;

  const char* name() const override { return "uring"; }
  int open(const std::string& spec, const OpenOptions& opts, TargetInfo* info) override;
  void close(int target) override;
  int fd(int target) const override { return fds_[size_t(target)]; }
  int register_buffer(void* base, size_t len) override;
  void prepare(const Command& c) override;
  int submit() override;
  unsigned peek(Cqe* out, unsigned max) override;
  int wait(Cqe* out, unsigned max) override;

 private:
  UringBackend(hio_wait_mode mode) : mode_(mode) {}
  // Takes up to max posted completions off the ring, without a system call.
  unsigned take_ready(Cqe* out, unsigned max);
  hio_wait_mode mode_;
  io_uring ring_{};
  bool ring_ok_ = false;
  std::vector<int> fds_;  // by target id; -1: a free slot
  unsigned max_files_ = 0;
  uint8_t* buf_base_ = nullptr;
  size_t buf_len_ = 0;
};

}  // namespace hio
