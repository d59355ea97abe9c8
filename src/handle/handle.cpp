// SPDX-License-Identifier: MIT
#include "handle/handle.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "adaptive/governor.hpp"
#include "util/clock.hpp"
#include "util/completion.hpp"
#include "util/enum.hpp"
#include "util/error.hpp"

namespace hio {
namespace {

// A read of `asked` bytes from the device, `wanted` of them the caller's,
// comes back short only where it covers the end of a file.
int32_t read_result(int32_t res, uint32_t asked, uint32_t wanted, bool tail) {
  if (res < 0) return res;
  return uint32_t(res) == asked || tail ? std::min(res, int32_t(wanted)) : -EIO;
}

constexpr size_t kWriteBackPages = 64;

// The target's identity in a cache shared by handles: the file itself for
// a path (two names of one file share pages), the device spec for emu.
uint64_t object_id(const std::string& spec, bool emulated) {
  struct stat st {};
  if (!emulated && stat(spec.c_str(), &st) == 0) return (uint64_t(st.st_dev) << 40) ^ uint64_t(st.st_ino);
  return std::hash<std::string>{}(spec) | 1;
}

void* aligned(size_t align, size_t bytes) { return std::aligned_alloc(align, (bytes + align - 1) / align * align); }

}  // namespace

Handle::Handle(const std::string& spec, HandleConfig cfg) : spec_(spec), cfg_(std::move(cfg)), ra_(cfg_.readahead) {
  q_[0] = std::move(cfg_.read_q);
  q_[1] = std::move(cfg_.write_q);
}

std::unique_ptr<Handle> Handle::open(const std::string& spec, HandleConfig cfg) {
  std::unique_ptr<Handle> h(new Handle(spec, std::move(cfg)));
  for (int i = 0; i < 2; i++) {
    if (!h->q_[i]) continue;
    int t = h->q_[i]->bind(spec, h->cfg_.open, &h->inbox_, i);
    if (t < 0) {
      h->close();
      return nullptr;
    }
    h->target_[i] = t;
    if (h->cfg_.high_priority) h->q_[i]->set_priority(true);
    if (h->cfg_.reaper) h->cfg_.reaper->add(h->q_[i]);
  }
  h->info_ = h->q_[0]->locked([&](Queue& q) { return q.target(h->target_[0]); });
  h->size_ = h->info_.size;
  h->obj_ = object_id(spec, h->info_.emulated);
  if (h->cfg_.cache && h->cfg_.cache->policy() == WritePolicy::Back) {
    h->wb_q_ = h->cfg_.private_queue();
    OpenOptions o = h->cfg_.open;
    o.flags &= ~unsigned(HIO_OPEN_CREATE);
    if (!h->wb_q_ || (h->wb_target_ = h->wb_q_->open(spec, o)) < 0) {
      h->close();
      return nullptr;
    }
    h->wb_buf_.reset(
        static_cast<uint8_t*>(aligned(std::max<size_t>(kPage, h->info_.mem_align), kWriteBackPages * kPage)));
    h->cfg_.cache->attach(h->obj_, h.get());
    h->attached_ = true;
  }
  return h;
}

Handle::~Handle() { close(); }

int Handle::close() {
  if (closed_) return 0;
  closed_ = true;
  // Everything in flight must come back before the queues forget us.
  std::vector<hio_completion> sink(64);
  for (;;) {
    bool busy;
    {
      std::lock_guard<std::mutex> g(mu_);
      busy = free_.size() < ctx_.size();
    }
    if (!busy || reap(sink.data(), unsigned(sink.size()), 1) < 0) break;
  }
  int r = 0;
  if (attached_) {
    int64_t f = cfg_.cache->flush(obj_);
    if (f < 0) r = int(f);
    if (cfg_.cache->detach(obj_, this) < 0) {
      // The last writer of pages that could not be written: the cache must
      // not keep a writer that is about to be freed, so the pages go, and
      // close reports the flush's error.
      uint64_t lost = cfg_.cache->discard_dirty(obj_);
      cfg_.cache->detach(obj_, this);
      r = failf(f < 0 ? int(-f) : EIO, "close %s: %llu dirty cache pages could not be written back and are lost",
                spec_.c_str(), (unsigned long long)lost);
    }
  }
  for (int i = 0; i < 2; i++) {
    if (!q_[i] || target_[i] < 0) continue;
    if (cfg_.reaper) cfg_.reaper->remove(q_[i]);
    q_[i]->unbind(target_[i]);
  }
  return r;
}

int Handle::validate(const hio_io& io) const {
  int op = raw_enum(io.op);
  if (op < HIO_OP_READ || op > HIO_OP_FLUSH) return failf(EINVAL, "%s: unknown operation %d", spec_.c_str(), op);
  if (io.op == HIO_OP_FLUSH || !cfg_.cache) return 0;  // the queue checks the rest
  if (io.len == 0 || !io.buf)
    return failf(EINVAL, "%s at offset %llu of %s: empty buffer", op_name(io.op), (unsigned long long)io.offset,
                 spec_.c_str());
  if (io.offset % kPage || io.len % kPage)
    return failf(EINVAL, "%s at offset %llu, length %u, of %s: a cached handle does whole 4096-byte pages",
                 op_name(io.op), (unsigned long long)io.offset, io.len, spec_.c_str());
  bool extends = io.op == HIO_OP_WRITE && info_.growable;
  uint64_t size = size_.load(std::memory_order_relaxed);
  bool tail = reads_file_tail(io, info_.growable, size);
  if ((io.len > size || io.offset > size - io.len) && !extends && !tail)
    return failf(EINVAL, "%s at offset %llu, length %u, of %s: past the end (size %llu)", op_name(io.op),
                 (unsigned long long)io.offset, io.len, spec_.c_str(), (unsigned long long)size);
  return 0;
}

void Handle::post(const hio_io& io, int32_t res, uint64_t now) {
  hio_completion c{io.tag, res, io.op, 0, io.offset, io.len, now_ns() - now};
  io_.record(c);
  inbox_.post(c);
}

// Copies the pages of a read from the cache; true if every page was there.
bool Handle::cache_read(const hio_io& io, uint64_t now) {
  uint32_t pages = io.len / kPage;
  for (uint32_t p = 0; p < pages; p++) {
    if (!cfg_.cache->read(obj_, io.offset / kPage + p, static_cast<uint8_t*>(io.buf) + size_t(p) * kPage)) {
      hits_ += p;
      misses_++;
      return false;
    }
  }
  hits_ += pages;
  ra_.on_read(io.offset, io.len, false);
  post(io, int32_t(std::min<uint64_t>(io.len, size_.load(std::memory_order_relaxed) - io.offset)), now);
  return true;
}

int Handle::submit(const hio_io* ios, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (int r = validate(ios[i]); r < 0) return r;
  unsigned done = 0;
  for (; done < n; done++) {
    int r = submit_one(ios[done], now_ns(), false);
    if (r < 0) return done ? int(done) : r;
  }
  return int(done);
}

int Handle::submit_one(const hio_io& io, uint64_t now, bool defer) {
  std::unique_lock<std::mutex> g(mu_);
  io_.submitted++;
  BlockCache* cache = cfg_.cache;
  bool back = cache && cache->policy() == WritePolicy::Back;
  if (cache && io.op == HIO_OP_READ && cache_read(io, now)) return 1;
  if (back && io.op == HIO_OP_WRITE) {
    write_to_cache(io, now);
    return 1;
  }
  if (back && io.op == HIO_OP_FLUSH && !flush_cache(io, now, g)) return 1;
  uint32_t slot = take_slot(io, now);
  Ctx& x = ctx_[slot];
  hio_io dev{io.op, target_[x.qi], io.buf, io.len, io.offset, slot};
  if (cache && io.op == HIO_OP_READ)
    plan_cached_read(x, io, dev);
  else if (cache && io.op == HIO_OP_WRITE)
    x.cached_write = true;  // write-through: the cache takes it when the device has it
  return hand_to_queue(io, dev, slot, defer, g);
}

void Handle::write_to_cache(const hio_io& io, uint64_t now) {
  int32_t res = int32_t(io.len);
  for (uint32_t p = 0; p < io.len / kPage && res > 0; p++)
    if (int e = cfg_.cache->write(obj_, io.offset / kPage + p, static_cast<uint8_t*>(io.buf) + size_t(p) * kPage, true);
        e < 0)
      res = e;
  if (res > 0) grow(io.offset + io.len);
  post(io, res, now);
}

bool Handle::flush_cache(const hio_io& io, uint64_t now, std::unique_lock<std::mutex>& g) {
  // Dirty pages reach the device before the device flush is asked for.
  g.unlock();
  int64_t f = cfg_.cache->flush(obj_);
  std::string why = f < 0 ? last_error() : "";
  g.lock();
  if (f >= 0) return true;
  wb_error_ = why;  // the completion carries only the errno
  post(io, int32_t(f), now);
  return false;
}

uint32_t Handle::take_slot(const hio_io& io, uint64_t now) {
  if (free_.empty()) {
    free_.push_back(uint32_t(ctx_.size()));
    ctx_.emplace_back();
  }
  uint32_t slot = free_.back();
  Ctx& x = ctx_[slot];
  x.tag = io.tag;
  x.offset = io.offset;
  x.submit_ns = now;
  x.buf = io.buf;
  x.len = io.len;
  x.op = io.op;
  x.qi = qi_for(io.op);
  x.dev_offset = io.offset;
  x.dev_len = io.len;
  x.cached_write = false;
  x.tail = io.op == HIO_OP_READ && io.offset + io.len > size_.load(std::memory_order_relaxed);
  return slot;
}

void Handle::plan_cached_read(Ctx& x, const hio_io& io, hio_io& dev) {
  uint32_t want = ra_.on_read(io.offset, io.len, true);
  if (want > io.len) {
    uint64_t end = std::min<uint64_t>(io.offset + want, size_.load(std::memory_order_relaxed) / kPage * kPage);
    if (end > io.offset + io.len) {
      if (!x.bounce)
        x.bounce.reset(static_cast<uint8_t*>(aligned(std::max<size_t>(kPage, info_.mem_align), ReadAhead::kMaxWindow)));
      x.dev_len = uint32_t(end - io.offset);
      dev.buf = x.bounce.get();
      dev.len = x.dev_len;
      ra_ios_++;
      ra_pages_ += (x.dev_len - io.len) / kPage;
    }
  }
  x.tickets.resize(x.dev_len / kPage);
  for (uint32_t p = 0; p < x.dev_len / kPage; p++) x.tickets[p] = cfg_.cache->ticket(obj_, io.offset / kPage + p);
}

int Handle::hand_to_queue(const hio_io& io, const hio_io& dev, uint32_t slot, bool defer,
                          std::unique_lock<std::mutex>& g) {
  free_.pop_back();
  int qi = ctx_[slot].qi;
  bool extends = io.op == HIO_OP_WRITE && io.offset + io.len > size_.load(std::memory_order_relaxed);
  inbox_.submitted(qi);
  LockWait lw;
  g.unlock();
  int r = q_[qi]->submit(dev, lw, defer ? HIO_SUBMIT_DEFER : 0u);
  if (r < 0 || lw.count || extends) {
    g.lock();
    lock_.ns += lw.ns;
    lock_.count += lw.count;
    if (r < 0) {
      inbox_.refused(qi);
      free_.push_back(slot);
      io_.submitted--;
      return r;
    }
    if (extends) grow(io.offset + io.len);
    g.unlock();
  }
  if (cfg_.reaper) cfg_.reaper->kick();
  return 1;
}

// Turns a queue's completion into the handle's: the caller's tag, data
// from the read-ahead buffer, pages into the cache. Called with mu_ held.
hio_completion Handle::finish(const hio_completion& raw, uint64_t now) {
  Ctx& x = ctx_[raw.tag];
  hio_completion c{x.tag, raw.res, x.op, 0, x.offset, x.len, now > x.submit_ns ? now - x.submit_ns : 0};
  BlockCache* cache = cfg_.cache;
  if (x.op == HIO_OP_READ) c.res = read_result(raw.res, x.dev_len, x.len, x.tail);
  if (cache && x.op == HIO_OP_READ && c.res >= 0) {
    auto* src = x.dev_len > x.len ? x.bounce.get() : static_cast<uint8_t*>(x.buf);
    // The file's last page is cached with zeros past the end, as a read of it shows it.
    uint32_t got = uint32_t(raw.res);
    if (got % kPage) std::memset(src + got, 0, kPage - got % kPage);
    for (uint32_t p = 0; p < x.dev_len / kPage; p++) {
      uint64_t idx = x.dev_offset / kPage + p;
      const uint8_t* page = src + size_t(p) * kPage;
      bool there = size_t(p) * kPage < got;
      if (p < x.len / kPage) {
        auto* dst = static_cast<uint8_t*>(x.buf) + size_t(p) * kPage;
        // A page written meanwhile (a dirty write-back page) is newer than the device's.
        if (cache->peek(obj_, idx, dst)) continue;
        if (!there)
          std::memset(dst, 0, kPage);
        else if (page != dst)
          std::memcpy(dst, page, kPage);
      }
      if (there) cache->fill(obj_, idx, page, x.tickets[p]);
    }
  }
  // Only now: a read that raced the write and fills the cache later holds
  // an older ticket and is refused.
  if (cache && x.cached_write)
    for (uint32_t p = 0; p < x.len / kPage; p++) {
      uint64_t idx = x.offset / kPage + p;
      if (c.res < 0)
        cache->invalidate(obj_, idx);
      else
        cache->write(obj_, idx, static_cast<const uint8_t*>(x.buf) + size_t(p) * kPage, false);
    }
  free_.push_back(uint32_t(raw.tag));
  io_.record(c);
  return c;
}

unsigned Handle::take_stashed(hio_completion* out, unsigned max) {
  unsigned n = 0;
  std::lock_guard<std::mutex> g(mu_);
  while (n < max && !stash_.empty()) {
    out[n++] = stash_.front();
    stash_.pop_front();
  }
  return n;
}

unsigned Handle::take_inbox(hio_completion* out, unsigned max) {
  thread_local std::vector<Inbox::Item> raw;
  if (raw.size() < max) raw.resize(max);
  unsigned got = inbox_.take(raw.data(), max);
  if (got) {
    uint64_t now = now_ns();
    std::lock_guard<std::mutex> g(mu_);
    for (unsigned i = 0; i < got; i++) out[i] = raw[i].finished ? raw[i].c : finish(raw[i].c, now);
  }
  return got;
}

int Handle::busy_queue() const {
  if (inbox_.queued(0) > 0) return 0;
  return q_[1] && inbox_.queued(1) > 0 ? 1 : -1;
}

int Handle::reap_queues(int qi, bool wait) {
  // Both queues busy: collect the writes without waiting, wait on reads.
  LockWait lw;
  int r = 0;
  if (qi == 0 && q_[1] && inbox_.queued(1) > 0) r = q_[1]->reap(&inbox_, false, lw);
  if (r >= 0) r = q_[qi]->reap(&inbox_, wait, lw);
  std::lock_guard<std::mutex> g(mu_);
  lock_.ns += lw.ns;
  lock_.count += lw.count;
  return r;
}

int Handle::reap(hio_completion* out, unsigned max, unsigned min) {
  unsigned n = take_stashed(out, max);
  bool polled = false;  // min 0: one pass over the queues without waiting
  for (;;) {
    n += take_inbox(out + n, max - n);
    if (n == max || (min > 0 && n >= min) || (min == 0 && (polled || n > 0))) return int(n);
    int qi = busy_queue();
    if (qi < 0) {
      if (inbox_.empty()) return int(n);  // nothing left to wait for
      continue;
    }
    if (cfg_.reaper) {
      if (min == 0) return int(n);  // the completion thread delivers
      // A thread that waits for the completion thread is ours, as one that
      // reaps: beside it the completion thread is not beside a neighbour,
      // and need not leave it the core.
      Governor::get().note_own_thread();
      inbox_.wait();
      continue;
    }
    int r = reap_queues(qi, min > 0);
    polled = true;
    if (r < 0) return n ? int(n) : r;
  }
}

int64_t Handle::sync_io(hio_op op, void* buf, uint32_t len, uint64_t offset) {
  uint64_t tag = kSyncTagBit | next_sync_tag_.fetch_add(1, std::memory_order_relaxed);
  hio_io io{op, 0, buf, len, offset, tag};
  if (int r = validate(io); r < 0) return r;
  // Without a cache or a completion thread, a lone read or write waited for
  // by interrupt is one blocking system call (Queue::blocking_io).
  if (!cfg_.cache && !cfg_.reaper && op != HIO_OP_FLUSH) {
    int qi = qi_for(op);
    hio_completion c{};
    LockWait lw;
    int r = q_[qi]->blocking_io(hio_io{op, target_[qi], buf, len, offset, tag}, &c, lw);
    if (r != 0) {
      std::lock_guard<std::mutex> g(mu_);
      lock_.ns += lw.ns;
      lock_.count += lw.count;
      if (r < 0) return r;
      bool tail = op == HIO_OP_READ && offset + len > size_.load(std::memory_order_relaxed);
      if (op == HIO_OP_READ) c.res = read_result(c.res, len, len, tail);
      if (op == HIO_OP_WRITE && c.res > 0) grow(offset + uint64_t(c.res));
      c.target = 0;
      io_.submitted++;
      io_.record(c);
      return sync_result(c, len, spec_);
    }
  }
  // The caller reaps at once: the command goes to the device in the same
  // system call as the wait, unless a completion thread does the reaping.
  if (int r = submit_one(io, now_ns(), !cfg_.reaper); r < 0) return r;
  hio_completion c[1];
  // Others' completions are set aside here, and stashed for their reaper only
  // once ours has come: reap() hands out the stash first.
  std::vector<hio_completion> others;
  auto keep_others = [&] {
    std::lock_guard<std::mutex> g(mu_);
    stash_.insert(stash_.end(), others.begin(), others.end());
  };
  for (;;) {
    int r = reap(c, 1, 1);
    if (r < 0) {
      keep_others();
      return r;
    }
    if (r == 0) continue;
    if (c[0].tag == tag) break;
    others.push_back(c[0]);
  }
  keep_others();
  if (op == HIO_OP_FLUSH && c[0].res < 0) return fail(-c[0].res, describe(c[0]));
  return sync_result(c[0], len, spec_);
}

std::string Handle::describe(const hio_completion& c) {
  std::string s = describe_completion(c, spec_);
  std::lock_guard<std::mutex> g(mu_);
  if (c.op == HIO_OP_FLUSH && c.res < 0 && !wb_error_.empty())
    s += " (writing dirty cache pages back: " + wb_error_ + ")";
  return s;
}

int Handle::write_pages(uint64_t idx, const void* data, size_t npages) {
  std::lock_guard<std::mutex> g(wb_mu_);
  for (size_t done = 0; done < npages;) {
    size_t k = std::min(npages - done, kWriteBackPages);
    // The cache's copy may not meet O_DIRECT's alignment: write from ours.
    std::memcpy(wb_buf_.get(), static_cast<const uint8_t*>(data) + done * kPage, k * kPage);
    int64_t r = wb_q_->sync_io(HIO_OP_WRITE, wb_target_, wb_buf_.get(), uint32_t(k * kPage), (idx + done) * kPage);
    if (r < 0) return int(r);
    done += k;
  }
  return 0;
}

void Handle::stats(hio_handle_stats* o) {
  *o = hio_handle_stats{};
  std::lock_guard<std::mutex> g(mu_);
  io_.fill(o);
  o->cache_hits = hits_;
  o->cache_misses = misses_;
  o->readahead_ios = ra_ios_;
  o->readahead_pages = ra_pages_;
  o->lock_wait_ns = lock_.ns;
  o->lock_waits = lock_.count;
  o->queues = q_[1] ? 2 : 1;
}

void Handle::stats_reset() {
  {
    std::lock_guard<std::mutex> g(mu_);
    io_.reset();
    hits_ = misses_ = ra_ios_ = ra_pages_ = 0;
    lock_ = LockWait{};
  }
  for (auto& q : q_)
    if (q)
      q->locked([](Queue& qq) {
        qq.stats_reset();
        return 0;
      });
}

int Handle::percentiles(hio_op op, const double* pcts, size_t n, uint64_t* out) {
  std::lock_guard<std::mutex> g(mu_);
  return io_.percentiles(raw_enum(op), pcts, n, out);
}

}  // namespace hio
