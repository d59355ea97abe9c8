// SPDX-License-Identifier: MIT
#include "queue/queue.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "queue/backend_factory.hpp"
#include "util/clock.hpp"
#include "util/completion.hpp"
#include "util/enum.hpp"
#include "util/error.hpp"
#include "util/wait_mode.hpp"

namespace hio {

std::unique_ptr<Queue> Queue::create(const QueueOptions& o, Devices devices) {
  if (o.depth < 1 || o.depth > kMaxDepth) {
    failf(EINVAL, "queue depth %u is outside 1..%u", o.depth, kMaxDepth);
    return nullptr;
  }
  if (o.flags & ~HIO_QUEUE_SHARED) {
    failf(EINVAL, "unknown queue flags 0x%x", o.flags);
    return nullptr;
  }
  if (Waiter::validate(o.strategy) < 0) return nullptr;
  return std::unique_ptr<Queue>(new Queue(o, std::move(devices)));
}

Queue::Queue(const QueueOptions& o, Devices devices)
    : depth_(o.depth),
      shared_(o.flags & HIO_QUEUE_SHARED),
      devices_(std::move(devices)),
      slots_(o.depth),
      cqes_(o.depth) {
  waiter_.set(o.strategy);
  for (uint32_t i = o.depth; i-- > 0;) free_.push_back(i);
  reset_counters();
}

Queue::~Queue() {
  if (!be_) return;
  unsigned left = depth_ - unsigned(free_.size());
  while (left > 0) {
    int r = be_->wait(cqes_.data(), depth_);
    if (r < 0) break;  // the ring is unusable: closing it cancels the rest
    left -= std::min(left, unsigned(r));
  }
}

std::unique_lock<std::mutex> Queue::guard() {
  return shared_ ? std::unique_lock<std::mutex>(mu_) : std::unique_lock<std::mutex>();
}

int Queue::open(const std::string& spec, const OpenOptions& opts) {
  auto g = guard();
  if (opts.flags & ~(HIO_OPEN_DIRECT | HIO_OPEN_CREATE | HIO_OPEN_RDONLY))
    return failf(EINVAL, "open %s: unknown flags 0x%x", spec.c_str(), opts.flags);
  // The first target that opens fixes the backend; a failed open leaves the
  // queue as it was (free to take another strategy or backend).
  std::unique_ptr<Backend> fresh;
  hio_wait_mode ring_mode = ring_mode_;
  if (!be_) {
    if (int r = make_backend(spec, waiter_.get().mode, depth_, devices_, &fresh, &ring_mode); r < 0) return r;
  } else if (std::string(be_->name()) != backend_name(backend_kind(spec))) {
    return failf(EINVAL, "open %s: this queue's backend is '%s'; a queue serves one backend", spec.c_str(),
                 be_->name());
  }
  Backend& be = fresh ? *fresh : *be_;
  TargetInfo info;
  int id = be.open(spec, opts, &info);
  if (id < 0) return id;
  if (fresh) {
    be_ = std::move(fresh);
    ring_mode_ = ring_mode;
  }
  if (size_t(id) >= targets_.size()) targets_.resize(size_t(id) + 1);
  targets_[size_t(id)] = info;
  return id;
}

void Queue::close_target(int target) {
  auto g = guard();
  if (!be_ || target < 0 || size_t(target) >= targets_.size()) return;
  be_->close(target);
  targets_[size_t(target)].closed = true;
}

int Queue::target_info(int target, hio_target_info* out) {
  auto g = guard();
  if (target < 0 || size_t(target) >= targets_.size()) return failf(EBADF, "no target %d on this queue", target);
  const TargetInfo& t = targets_[size_t(target)];
  out->size = t.size;
  out->offset_align = t.offset_align;
  out->mem_align = t.mem_align;
  out->emulated = t.emulated;
  out->growable = t.growable;
  out->backend = be_->name();
  return 0;
}

int Queue::register_buffer(void* base, size_t len) {
  auto g = guard();
  if (!be_) return failf(EINVAL, "register a buffer: open a target on the queue first");
  return be_->register_buffer(base, len);
}

int Queue::set_strategy(const hio_strategy& s) {
  if (int r = Waiter::validate(s); r < 0) return r;
  auto g = guard();
  hio_strategy cur = waiter_.get();
  bool fits_ring = is_kernel_mode(ring_mode_) ? s.mode == ring_mode_ : !is_kernel_mode(s.mode);
  if (be_ && !fits_ring)
    return failf(EINVAL, "cannot switch from '%s' to '%s': kernel-side modes are fixed when the ring is created",
                 wait_mode_name(cur.mode), wait_mode_name(s.mode));
  if (cur.mode != s.mode) mode_changes_++;
  waiter_.set(s);
  return 0;
}

int Queue::validate(const hio_io& io) {
  int op_raw = raw_enum(io.op);
  if (op_raw < HIO_OP_READ || op_raw > HIO_OP_FLUSH) return failf(EINVAL, "unknown operation %d", op_raw);
  if (io.target < 0 || size_t(io.target) >= targets_.size() || targets_[size_t(io.target)].closed)
    return failf(EBADF, "%s: no target %d on this queue", op_name(io.op), io.target);
  const TargetInfo& t = targets_[size_t(io.target)];
  if (io.op == HIO_OP_FLUSH) return 0;
  // The operation's name only where an error needs it: this runs for every command.
  if (io.len == 0 || !io.buf)
    return failf(EINVAL, "%s at offset %llu of %s: empty buffer", op_name(io.op), (unsigned long long)io.offset,
                 t.name.c_str());
  if (t.direct || t.emulated) {
    const char* why = t.emulated ? "the emulated SSD's block size" : "O_DIRECT";
    if (io.offset % t.offset_align)
      return failf(EINVAL, "%s at offset %llu of %s: offset is not a multiple of %u (%s)", op_name(io.op),
                   (unsigned long long)io.offset, t.name.c_str(), t.offset_align, why);
    if (io.len % t.offset_align)
      return failf(EINVAL, "%s at offset %llu of %s: length %u is not a multiple of %u (%s)", op_name(io.op),
                   (unsigned long long)io.offset, t.name.c_str(), io.len, t.offset_align, why);
    if (reinterpret_cast<uintptr_t>(io.buf) % t.mem_align)
      return failf(EINVAL, "%s at offset %llu of %s: buffer %p is not aligned to %u bytes (%s)", op_name(io.op),
                   (unsigned long long)io.offset, t.name.c_str(), io.buf, t.mem_align, why);
  }
  // A write may extend a regular file, and a read may cover its last,
  // partial page (O_DIRECT cannot read less) and return the bytes up to the
  // end; nothing else may cross the end.
  bool extends = io.op == HIO_OP_WRITE && t.growable;
  bool tail = reads_file_tail(io, t.growable, t.size);
  // Written so that offset + len cannot wrap around.
  if ((io.len > t.size || io.offset > t.size - io.len) && !tail && !(extends && io.offset <= UINT64_MAX - io.len))
    return failf(EINVAL, "%s at offset %llu, length %u, of %s: past the end (size %llu)", op_name(io.op),
                 (unsigned long long)io.offset, io.len, t.name.c_str(), (unsigned long long)t.size);
  return 0;
}

int Queue::submit(const hio_io* ios, unsigned n, unsigned flags) {
  auto g = guard();
  return submit_locked(ios, n, flags);
}

int Queue::submit_locked(const hio_io* ios, unsigned n, unsigned flags) {
  if (!be_) return failf(EINVAL, "submit: no target is open on this queue");
  if (n > free_.size())
    return failf(EBUSY, "submit %u commands: queue full (%u of %u in flight)", n, depth_ - unsigned(free_.size()),
                 depth_);
  for (unsigned i = 0; i < n; i++)
    if (int r = validate(ios[i]); r < 0) return r;
  uint64_t now = now_ns();
  for (unsigned i = 0; i < n; i++) {
    const hio_io& io = ios[i];
    uint32_t s = free_.back();
    free_.pop_back();
    slots_[s] = Slot{io.tag, now, io.offset, io.len, io.target, io.op, true};
    trace_read(io, now);
    be_->prepare(Command{io.op, io.target, io.buf, io.len, io.offset, s});
    TargetInfo& t = targets_[size_t(io.target)];
    if (io.op == HIO_OP_WRITE && io.offset + io.len > t.size) t.size = io.offset + io.len;
  }
  io_.submitted += n;
  unsubmitted_ += n;
  if (!(flags & HIO_SUBMIT_DEFER)) {
    if (int r = be_->submit(); r < 0) return r;
    unsubmitted_ = 0;
  }
  return int(n);
}

int Queue::reap(hio_completion* out, unsigned max, unsigned min) {
  auto g = guard();
  unsigned n = 0;
  while (n < max && !stash_.empty()) {
    out[n++] = stash_.front();
    stash_.pop_front();
  }
  if (n == max || (min > 0 && n >= min)) return int(n);
  int r = reap_locked(out + n, max - n, min - n);
  return r < 0 ? r : int(n) + r;
}

int Queue::reap_locked(hio_completion* out, unsigned max, unsigned min) {
  if (!be_) return 0;
  unsigned inflight = depth_ - unsigned(free_.size());
  if (min > inflight) min = inflight;  // never wait for what was not submitted
  if (max > depth_) max = depth_;
  HintSource hint{[](const void* q) { return static_cast<const Queue*>(q)->oldest(); }, this};
  int got = waiter_.wait(*be_, cqes_.data(), max, min, unsubmitted_ > 0, hint, wait_);
  if (got < 0) return got;
  unsubmitted_ = 0;
  uint64_t now = now_ns();
  if (got > 0) returned_ns_ = now;
  for (int i = 0; i < got; i++) {
    const Cqe& c = cqes_[size_t(i)];
    Slot& s = slots_[c.user_data];
    uint64_t lat = now > s.submit_ns ? now - s.submit_ns : 0;
    out[i] = hio_completion{s.tag, c.res, s.op, s.target, s.offset, s.len, lat};
    s.busy = false;
    free_.push_back(uint32_t(c.user_data));
    io_.record(out[i]);
    // A flush's latency (an fsync: milliseconds) says nothing of how long a
    // read or write takes, and would stretch every hybrid sleep after it.
    if (c.res >= 0 && s.op != HIO_OP_FLUSH) waiter_.observe(s.len, lat, unsigned(i) < waiter_.found_after_sleep());
  }
  return got;
}

WaitHint Queue::oldest() const {
  WaitHint h{};
  for (const Slot& s : slots_)
    if (s.busy && (h.submit_ns == 0 || s.submit_ns < h.submit_ns)) h = WaitHint{s.submit_ns, s.len};
  return h;
}

unsigned Queue::inflight() {
  auto g = guard();
  return depth_ - unsigned(free_.size()) + unsigned(stash_.size());
}

int Queue::blocking_io(const hio_io& io, hio_completion* out) {
  auto g = guard();
  return blocking_io_locked(io, out);
}

int Queue::blocking_io_locked(const hio_io& io, hio_completion* out) {
  if (!be_ || (io.op != HIO_OP_READ && io.op != HIO_OP_WRITE) || free_.size() != depth_ || !stash_.empty() ||
      unsubmitted_ > 0)
    return 0;
  if (int r = validate(io); r < 0) return r;
  int fd = be_->fd(io.target);
  uint64_t t0 = now_ns();
  if (fd < 0 || !waiter_.begin_blocking(t0)) return 0;
  trace_read(io, t0);
  ssize_t n;
  do {
    n = io.op == HIO_OP_READ ? ::pread(fd, io.buf, io.len, off_t(io.offset))
                             : ::pwrite(fd, io.buf, io.len, off_t(io.offset));
  } while (n < 0 && errno == EINTR);
  int32_t res = n < 0 ? -errno : int32_t(n);
  uint64_t lat = now_ns() - t0;
  returned_ns_ = t0 + lat;
  waiter_.end_blocking(lat);
  *out = hio_completion{io.tag, res, io.op, io.target, io.offset, io.len, lat};
  io_.submitted++;
  io_.record(*out);
  wait_.waits++;
  wait_.sleep_ns += lat;  // asleep in the kernel, as an interrupt wait is
  TargetInfo& t = targets_[size_t(io.target)];
  if (io.op == HIO_OP_WRITE && res > 0 && io.offset + uint64_t(res) > t.size) t.size = io.offset + uint64_t(res);
  if (res >= 0) waiter_.observe(io.len, lat, false);
  return 1;
}

int64_t Queue::sync_io(hio_op op, int target, void* buf, uint32_t len, uint64_t offset) {
  auto g = guard();
  uint64_t tag = kSyncTagBit | next_sync_tag_++;
  hio_io io{op, target, buf, len, offset, tag};
  hio_completion c[1];
  if (int r = blocking_io_locked(io, c); r != 0)
    return r < 0 ? r : sync_result(c[0], len, targets_[size_t(target)].name);
  if (int r = submit_locked(&io, 1, 0); r < 0) return r;
  for (;;) {
    int r = reap_locked(c, 1, 1);
    if (r < 0) return r;
    if (r == 0) continue;
    if (c[0].tag != tag) {
      stash_.push_back(c[0]);
      continue;
    }
    break;
  }
  return sync_result(c[0], len, targets_[size_t(target)].name);
}

std::string Queue::describe(const hio_completion& c) {
  return describe_completion(
      c, c.target >= 0 && size_t(c.target) < targets_.size() ? targets_[size_t(c.target)].name : "?");
}

void Queue::reset_counters() {
  wait_ = WaitStats{};
  io_.reset();
  mode_changes_ = 0;
  owner_ = gettid();
  owner_cpu_ns_ = 0;
  start_ns_ = now_ns();
  // Read after the start so that the time in modes never exceeds the wall time.
  const Adaptive& a = waiter_.adaptive();
  a.mode_ns(adaptive_base_.ns);
  adaptive_base_.switches = a.switches();
  adaptive_base_.probes = a.probes();
  start_cpu_ns_ = thread_cpu_ns();
}

void Queue::stats_reset() {
  auto g = guard();
  reset_counters();
}

int Queue::stats(hio_queue_stats* o) {
  auto g = guard();
  *o = hio_queue_stats{};
  io_.fill(o);
  o->sleep_ns = wait_.sleep_ns;
  o->spin_ns = wait_.spin_ns;
  o->waits = wait_.waits;
  o->mode_changes = mode_changes_.load();
  const Adaptive& a = waiter_.adaptive();
  uint64_t ns[kModes];
  a.mode_ns(ns);
  o->wall_ns = now_ns() - start_ns_;
  // An owner that has ended (a database's worker thread) keeps its last reading.
  if (uint64_t cpu = owner_ == gettid() ? thread_cpu_ns() : thread_cpu_ns_tid(owner_))
    owner_cpu_ns_ = std::max(owner_cpu_ns_, cpu);
  o->cpu_ns = owner_cpu_ns_ > start_cpu_ns_ ? owner_cpu_ns_ - start_cpu_ns_ : 0;
  o->cpu_us_per_io = io_.completed ? double(o->cpu_ns) / 1e3 / double(io_.completed) : 0.0;
  for (int i = 0; i < kModes; i++) o->adaptive_ns[i] = ns[i] - adaptive_base_.ns[i];
  o->adaptive_switches = a.switches() - adaptive_base_.switches;
  o->adaptive_probes = a.probes() - adaptive_base_.probes;
  return 0;
}

int Queue::adaptive_view(hio_adaptive_view* out) {
  auto g = guard();
  if (waiter_.get().mode != HIO_WAIT_ADAPTIVE)
    return failf(EINVAL, "the queue's strategy is '%s', not 'adaptive'", wait_mode_name(waiter_.get().mode));
  waiter_.adaptive().view(out);
  return 0;
}

int Queue::percentiles(hio_op op, const double* pcts, size_t n, uint64_t* out) {
  auto g = guard();
  return io_.percentiles(raw_enum(op), pcts, n, out);
}

}  // namespace hio
