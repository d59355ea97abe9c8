// SPDX-License-Identifier: MIT
#include "file_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hybridio::rocksdb {
namespace {

constexpr uint32_t kPage = 4096;

uint64_t down(uint64_t v, uint64_t a) { return v / a * a; }
uint64_t up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Completes whatever ops the handle has finished, waiting for at least min.
int reap(hio_handle* h, unsigned min) {
  hio_completion c[16];
  int n = hio_handle_reap(h, c, 16, min);
  for (int i = 0; i < n; i++) {
    Op* op = reinterpret_cast<Op*>(c[i].tag);
    op->res = c[i].res;
    op->done = true;
  }
  return n;
}

uint64_t new_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

// Each thread's (file, handle) pairs, one slot per file id modulo the
// size: a read finds its handle here without the file's lock. Ids are
// never reused, so a closed file's slot never matches. Direct-mapped, as
// random reads visit every table of a DB in turn: a 1 GB one here has 15,
// and a last-8 list missed on 46% of reads (173 instructions a lookup
// against 77).
struct Recent {
  uint64_t id = 0;
  hio_handle* h = nullptr;
  ThreadQueue* tq = nullptr;
};
constexpr unsigned kRecent = 64;
thread_local Recent recent[kRecent];

}  // namespace

FileIo::FileIo(std::shared_ptr<Core> core, std::string path, Mode mode, bool direct)
    : core_(std::move(core)), id_(new_id()), path_(std::move(path)), mode_(mode), direct_(direct) {
  align_ = direct || core_->config().cache_mb ? kPage : 1;
}

FileIo::~FileIo() { Close().PermitUncheckedError(); }

IOStatus FileIo::Open() {
  hio_handle* h = nullptr;
  IOStatus s = Handle(&h);
  if (!s.ok() || !direct_ || core_->config().cache_mb) return s;
  // O_DIRECT needs only the device's alignment, often 512 bytes: whole
  // pages would read up to twice what a block spanning two of them needs
  // (RocksDB's 4 KiB blocks: 8 KiB against posix-direct's 4.5 KiB).
  hio_target_info info{};
  info.struct_size = sizeof info;
  info.struct_size = sizeof(info);
  if (hio_handle_target_info_get(h, &info) < 0)
    return IOStatus::IOError(path_, std::string("hybridio target info: ") + hio_last_error());
  align_ = std::max({info.offset_align, info.mem_align, 1u});
  return s;
}

IOStatus FileIo::Error(const char* what, uint64_t offset, int err) {
  return IOStatus::IOError(path_, std::string("hybridio ") + what + " at offset " + std::to_string(offset) + ": " +
                                      std::strerror(err) + " (errno " + std::to_string(err) + ")");
}

IOStatus FileIo::Handle(hio_handle** out, ThreadQueue** tq_out) {
  uint64_t id = id_.load(std::memory_order_relaxed);
  Recent& slot = recent[id % kRecent];
  if (slot.id == id) {
    *out = slot.h;
    if (tq_out) *tq_out = slot.tq;
    return IOStatus::OK();
  }
  std::string err;
  auto tq = core_->ThisThreadQueue(&err);
  if (!tq) return IOStatus::IOError(path_, err);
  auto remember = [&](hio_handle* h) {
    slot = Recent{id, h, tq.get()};
    *out = h;
    if (tq_out) *tq_out = tq.get();
    return IOStatus::OK();
  };
  std::lock_guard<std::mutex> g(mu_);
  for (auto& b : handles_)
    if (b.tq == tq) return remember(b.h);
  const Config& c = core_->config();
  hio_handle_opts o{};
  o.struct_size = sizeof o;
  o.open.flags = (direct_ ? HIO_OPEN_DIRECT : 0u) | (mode_ == Mode::kRead ? HIO_OPEN_RDONLY : 0u);
  o.queue = tq->q;
  o.cache = core_->cache();
  o.readahead = c.readahead;
  hio_handle* h = nullptr;
  if (hio_handle_open(core_->engine(), path_.c_str(), &o, &h) < 0)
    return IOStatus::IOError(path_, std::string("hybridio open: ") + hio_last_error());
  handles_.push_back(Bound{tq, h});
  return remember(h);
}

bool FileIo::Prepare(uint64_t size, PageRead* r, bool reuse) {
  if (r->offset >= size || r->len == 0) {
    r->len = 0;
    return false;
  }
  uint64_t end = std::min<uint64_t>(r->offset + r->len, size);
  r->len = size_t(end - r->offset);
  uint64_t a0 = down(r->offset, align_), a1 = up(end, align_);
  char* into = r->dst;
  r->skip = size_t(r->offset - a0);
  if (a0 != r->offset || a1 != end || reinterpret_cast<uintptr_t>(r->dst) % align_) {
    size_t need = up(a1 - a0, kPage);
    thread_local std::unique_ptr<char, void (*)(void*)> mine{nullptr, &std::free};
    thread_local size_t mine_size = 0;
    if (reuse && need > mine_size) {
      mine.reset(static_cast<char*>(std::aligned_alloc(kPage, need)));
      mine_size = need;
    }
    if (!reuse) r->owned.reset(static_cast<char*>(std::aligned_alloc(kPage, need)));
    into = r->bounce = reuse ? mine.get() : r->owned.get();
  }
  r->op = Op{};
  r->op.io = hio_io{HIO_OP_READ, 0, into, uint32_t(a1 - a0), a0, 0};
  return true;
}

IOStatus FileIo::Submit(hio_handle* h, Op* op) {
  op->io.tag = reinterpret_cast<uint64_t>(op);
  for (;;) {
    int r = hio_handle_submit(h, &op->io, 1);
    if (r == 1) return IOStatus::OK();
    // The thread's queue is full: make room with what has completed.
    if (r != -EBUSY || reap(h, 1) < 0)
      return IOStatus::IOError(path_, std::string("hybridio submit: ") + hio_last_error());
  }
}

IOStatus FileIo::WaitFor(hio_handle* h, Op* op) {
  while (!op->done)
    if (reap(h, 1) < 0) return IOStatus::IOError(path_, std::string("hybridio reap: ") + hio_last_error());
  if (op->res < 0) return Error(op->io.op == HIO_OP_READ ? "read" : "write", op->io.offset, -op->res);
  return IOStatus::OK();
}

size_t FileIo::Finish(const PageRead& r, Counters& n) {
  size_t got = size_t(r.op.res) > r.skip ? std::min(size_t(r.op.res) - r.skip, r.len) : 0;
  if (r.bounce && got) std::memcpy(r.dst, r.bounce + r.skip, got);
  Counters::add(n.reads, 1);
  Counters::add(n.read_bytes, got);
  return got;
}

IOStatus FileIo::Read(uint64_t size, uint64_t offset, size_t len, char* dst, size_t* got) {
  PageRead r;
  r.offset = offset;
  r.len = len;
  r.dst = dst;
  *got = 0;
  if (!Prepare(size, &r, /*reuse=*/true)) return IOStatus::OK();
  hio_handle* h = nullptr;
  ThreadQueue* tq = nullptr;
  IOStatus s = Handle(&h, &tq);
  if (!s.ok()) return s;
  // One read, waited for at once: the handle's synchronous path submits and
  // waits in one system call.
  int64_t n = hio_handle_read(h, r.op.io.buf, r.op.io.len, r.op.io.offset);
  if (n < 0) return IOStatus::IOError(path_, std::string("hybridio ") + hio_last_error());
  r.op.res = int32_t(n);
  *got = Finish(r, tq->counters);
  return s;
}

void FileIo::ReadBatch(uint64_t size, std::vector<PageRead*>& reads, std::vector<IOStatus>* st) {
  st->assign(reads.size(), IOStatus::OK());
  hio_handle* h = nullptr;
  ThreadQueue* tq = nullptr;
  IOStatus s = Handle(&h, &tq);
  if (s.ok()) Counters::add(tq->counters.multi_reads, 1);
  std::vector<bool> sent(reads.size(), false);
  for (size_t i = 0; i < reads.size(); i++) {
    if (!s.ok()) {
      (*st)[i] = s;
      continue;
    }
    if (!Prepare(size, reads[i])) continue;
    (*st)[i] = Submit(h, &reads[i]->op);
    sent[i] = (*st)[i].ok();
  }
  for (size_t i = 0; i < reads.size(); i++) {
    if (!sent[i]) continue;
    (*st)[i] = WaitFor(h, &reads[i]->op);
    if ((*st)[i].ok()) reads[i]->len = Finish(*reads[i], tq->counters);
  }
}

IOStatus FileIo::Write(const char* buf, size_t len, uint64_t offset) {
  hio_handle* h = nullptr;
  ThreadQueue* tq = nullptr;
  IOStatus s = Handle(&h, &tq);
  if (!s.ok()) return s;
  if (hio_handle_write(h, buf, uint32_t(len), offset) < 0)
    return IOStatus::IOError(path_, std::string("hybridio ") + hio_last_error());
  Counters::add(tq->counters.writes, 1);
  Counters::add(tq->counters.write_bytes, len);
  return IOStatus::OK();
}

IOStatus FileIo::Sync() {
  hio_handle* h = nullptr;
  ThreadQueue* tq = nullptr;
  IOStatus s = Handle(&h, &tq);
  if (!s.ok()) return s;
  if (hio_handle_flush(h) < 0) return IOStatus::IOError(path_, std::string("hybridio ") + hio_last_error());
  Counters::add(tq->counters.syncs, 1);
  return IOStatus::OK();
}

IOStatus FileIo::Close() {
  std::vector<Bound> hs;
  {
    std::lock_guard<std::mutex> g(mu_);
    hs.swap(handles_);
    id_ = new_id();  // the threads' cached handles are about to close
  }
  IOStatus first;
  for (auto& b : hs)
    if (hio_handle_close(b.h) < 0 && first.ok())
      first = IOStatus::IOError(path_, std::string("hybridio close: ") + hio_last_error());
  return first;
}

}  // namespace hybridio::rocksdb
