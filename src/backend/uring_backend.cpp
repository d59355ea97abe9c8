// SPDX-License-Identifier: MIT
#include "backend/uring_backend.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

#include "backend/file_probe.hpp"
#include "util/error.hpp"
#include "util/wait_mode.hpp"

#ifndef IORING_SETUP_HYBRID_IOPOLL
#define IORING_SETUP_HYBRID_IOPOLL (1U << 17)
#endif

namespace hio {
namespace {
// Targets open at once on a queue: a database keeps hundreds of files open,
// and its threads read any of them. The file table is also bounded by the
// process's open-file limit.
constexpr unsigned kMaxFiles = 1024;

unsigned file_table_size() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return kMaxFiles;
  return unsigned(std::min<rlim_t>(kMaxFiles, rl.rlim_cur));
}
}  // namespace

std::unique_ptr<UringBackend> UringBackend::create(unsigned depth, hio_wait_mode kernel_mode) {
  std::unique_ptr<UringBackend> b(new UringBackend(kernel_mode));
  io_uring_params p{};
  if (kernel_mode == HIO_WAIT_IOPOLL) p.flags |= IORING_SETUP_IOPOLL;
  if (kernel_mode == HIO_WAIT_HYBRID_IOPOLL) p.flags |= IORING_SETUP_IOPOLL | IORING_SETUP_HYBRID_IOPOLL;
  if (kernel_mode == HIO_WAIT_SQPOLL) {
    p.flags |= IORING_SETUP_SQPOLL;
    p.sq_thread_idle = 1000;  // ms before the kernel thread sleeps
  }
  if (kernel_mode == HIO_WAIT_INTERRUPT) {
    // Completions run as task work only when the thread enters the kernel
    // (no IPI interrupting a poller); the TASKRUN flag in the SQ ring tells
    // a poller's peek when to enter. A sleeper is still woken.
    p.flags |= IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
  }
  // One CQ slot per command in flight is all a bounded queue needs.
  int r = io_uring_queue_init_params(depth, &b->ring_, &p);
  if (r == -EINVAL && (p.flags & IORING_SETUP_COOP_TASKRUN)) {  // Linux < 5.19
    p = io_uring_params{};
    r = io_uring_queue_init_params(depth, &b->ring_, &p);
  }
  if (r < 0) {
    if (kernel_mode == HIO_WAIT_HYBRID_IOPOLL && r == -EINVAL)
      failf(EOPNOTSUPP, "wait mode 'hybrid_iopoll' needs Linux 6.13 or later (io_uring_setup: %s)",
            errno_text(-r).c_str());
    else
      failf(-r, "io_uring_setup (%s ring, %u entries): %s", wait_mode_name(kernel_mode), depth, errno_text(-r).c_str());
    return nullptr;
  }
  b->ring_ok_ = true;
  b->max_files_ = file_table_size();
  r = io_uring_register_files_sparse(&b->ring_, b->max_files_);
  if (r < 0) {
    failf(-r, "io_uring: cannot register a file table: %s", errno_text(-r).c_str());
    return nullptr;
  }
  return b;
}

UringBackend::~UringBackend() {
  if (ring_ok_) io_uring_queue_exit(&ring_);
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

int UringBackend::open(const std::string& path, const OpenOptions& opts, TargetInfo* info) {
  int idx = 0;  // the first free slot of the file table
  while (size_t(idx) < fds_.size() && fds_[size_t(idx)] >= 0) idx++;
  if (unsigned(idx) >= max_files_)
    return failf(EMFILE, "open %s: a queue holds at most %u targets open at once", path.c_str(), max_files_);
  bool direct = opts.flags & HIO_OPEN_DIRECT;
  int flags = ((opts.flags & HIO_OPEN_RDONLY) ? O_RDONLY : O_RDWR) | O_CLOEXEC | (direct ? O_DIRECT : 0);
  if (opts.flags & HIO_OPEN_CREATE) flags |= O_CREAT;
  int fd = ::open(path.c_str(), flags, 0644);
  if (fd < 0) {
    int e = errno;
    if (e == EINVAL && direct)
      return failf(e, "open %s with O_DIRECT: the file system does not support direct I/O (%s)", path.c_str(),
                   errno_text(e).c_str());
    return failf(e, "open %s: %s", path.c_str(), errno_text(e).c_str());
  }
  FileProbe p;
  if (int r = probe_file(fd, path, direct, &p); r < 0) {
    ::close(fd);
    return r;
  }
  if ((opts.flags & HIO_OPEN_CREATE) && !p.block_device && p.size < opts.size) {
    if (ftruncate(fd, off_t(opts.size)) != 0) {
      int e = errno;
      ::close(fd);
      return failf(e, "extend %s to %llu bytes: %s", path.c_str(), (unsigned long long)opts.size,
                   errno_text(e).c_str());
    }
    p.size = opts.size;
  }
  if (mode_ == HIO_WAIT_IOPOLL || mode_ == HIO_WAIT_HYBRID_IOPOLL) {
    int r = direct ? check_poll_queues(fd, path, wait_mode_name(mode_))
                   : failf(EINVAL, "wait mode '%s' polls the device and needs direct I/O (O_DIRECT) on %s",
                           wait_mode_name(mode_), path.c_str());
    if (r < 0) {
      ::close(fd);
      return r;
    }
  }
  int r = io_uring_register_files_update(&ring_, unsigned(idx), &fd, 1);
  if (r < 0) {
    ::close(fd);
    return failf(-r, "io_uring: register %s: %s", path.c_str(), errno_text(-r).c_str());
  }
  if (size_t(idx) == fds_.size())
    fds_.push_back(fd);
  else
    fds_[size_t(idx)] = fd;
  info->name = path;
  info->size = p.size;
  info->offset_align = p.offset_align;
  info->mem_align = p.mem_align;
  info->emulated = false;
  info->direct = direct;
  info->growable = !p.block_device;
  return idx;
}

void UringBackend::close(int target) {
  if (target < 0 || size_t(target) >= fds_.size() || fds_[size_t(target)] < 0) return;
  int none = -1;
  io_uring_register_files_update(&ring_, unsigned(target), &none, 1);
  ::close(fds_[size_t(target)]);
  fds_[size_t(target)] = -1;
}

int UringBackend::register_buffer(void* base, size_t len) {
  if (buf_base_) io_uring_unregister_buffers(&ring_);
  iovec iov{base, len};
  int r = io_uring_register_buffers(&ring_, &iov, 1);
  if (r < 0) {
    buf_base_ = nullptr;
    return failf(-r, "io_uring: register a %zu-byte buffer: %s", len, errno_text(-r).c_str());
  }
  buf_base_ = static_cast<uint8_t*>(base);
  buf_len_ = len;
  return 0;
}

void UringBackend::prepare(const Command& c) {
  io_uring_sqe* sqe;
  // The queue never has more commands in flight than ring entries, but the
  // ring may still hold entries the kernel has not consumed: flush them, and
  // under SQPOLL wait until its kernel thread has taken them.
  while (!(sqe = io_uring_get_sqe(&ring_))) {
    io_uring_submit(&ring_);
    if (mode_ == HIO_WAIT_SQPOLL) io_uring_sqring_wait(&ring_);
  }
  auto* b = static_cast<uint8_t*>(c.buf);
  bool fixed = buf_base_ && b >= buf_base_ && b + c.len <= buf_base_ + buf_len_;
  switch (c.op) {
    case HIO_OP_READ:
      if (fixed)
        io_uring_prep_read_fixed(sqe, c.target, c.buf, c.len, c.offset, 0);
      else
        io_uring_prep_read(sqe, c.target, c.buf, c.len, c.offset);
      break;
    case HIO_OP_WRITE:
      if (fixed)
        io_uring_prep_write_fixed(sqe, c.target, c.buf, c.len, c.offset, 0);
      else
        io_uring_prep_write(sqe, c.target, c.buf, c.len, c.offset);
      break;
    case HIO_OP_FLUSH: io_uring_prep_fsync(sqe, c.target, IORING_FSYNC_DATASYNC); break;
  }
  sqe->flags |= IOSQE_FIXED_FILE;
  io_uring_sqe_set_data64(sqe, c.user_data);
}

int UringBackend::submit() {
  int r;
  do {
    r = io_uring_submit(&ring_);
  } while (r == -EINTR);
  if (r < 0) return failf(-r, "io_uring_enter (submit): %s", errno_text(-r).c_str());
  return r;
}

unsigned UringBackend::take_ready(Cqe* out, unsigned max) {
  unsigned head, n = 0;
  io_uring_cqe* cqe;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    if (n == max) break;
    out[n++] = Cqe{io_uring_cqe_get_data64(cqe), cqe->res};
  }
  io_uring_cq_advance(&ring_, n);
  return n;
}

unsigned UringBackend::peek(Cqe* out, unsigned max) {
  unsigned n = take_ready(out, max);
  // With none posted, completions may still wait as task work (COOP_TASKRUN)
  // or in the kernel's overflow list: the ring's flags say so, and entering
  // the kernel brings them in.
  if (n == 0 && max > 0 && (IO_URING_READ_ONCE(*ring_.sq.kflags) & (IORING_SQ_CQ_OVERFLOW | IORING_SQ_TASKRUN))) {
    io_uring_get_events(&ring_);
    n = take_ready(out, max);
  }
  return n;
}

int UringBackend::wait(Cqe* out, unsigned max) {
  int r;
  do {
    r = io_uring_submit_and_wait(&ring_, 1);
  } while (r == -EINTR);
  if (r < 0) return failf(-r, "io_uring_enter (wait): %s", errno_text(-r).c_str());
  return int(peek(out, max));
}

}  // namespace hio
