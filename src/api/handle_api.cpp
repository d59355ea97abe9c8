// SPDX-License-Identifier: MIT
// The C API of handles, block caches and completion threads.
#include <cerrno>
#include <cstdio>
#include <mutex>

#include "adaptive/governor.hpp"
#include "api/abi.hpp"
#include "api/convert.hpp"
#include "api/objects.hpp"
#include "hybridio/hio.h"
#include "util/enum.hpp"

namespace {

std::mutex bind_mu;  // creates a queue's bound form once

std::shared_ptr<hio::BoundQueue> bound_of(hio_queue* q) {
  std::lock_guard<std::mutex> g(bind_mu);
  if (!q->bound) q->bound = std::make_shared<hio::BoundQueue>(q->impl);
  return q->bound;
}

hio_queue* new_queue(hio_engine* e, unsigned depth, const hio_strategy& s) {
  hio_queue_opts qo;
  hio_queue_opts_init(&qo, sizeof qo);
  qo.depth = depth;
  qo.strategy = s;
  hio_queue* q = nullptr;
  return hio_queue_create(e, &qo, &q) < 0 ? nullptr : q;
}

void free_owned(hio_handle* h) {
  for (hio_queue*& q : h->owned) {
    hio_queue_destroy(q);
    q = nullptr;
  }
}

int open_handle(hio_engine* e, const char* spec, const hio_handle_opts& o, hio_handle* h) {
  if (o.flags & ~HIO_HANDLE_HIGH_PRIORITY)
    return hio::failf(EINVAL, "open %s: unknown handle flags 0x%x", spec, o.flags);
  bool high = o.flags & HIO_HANDLE_HIGH_PRIORITY;
  if (o.write_queue && !o.queue)
    return hio::failf(EINVAL, "open %s: a write queue needs a read queue (queue) beside it", spec);
  if (o.write_queue && o.write_queue == o.queue)
    return hio::failf(EINVAL, "open %s: queue and write_queue are the same queue", spec);
  if (high && o.queue)
    return hio::failf(EINVAL,
                      "open %s: a high-priority handle gets queues of its own; leave queue and write_queue NULL", spec);
  if (o.depth > hio::kMaxDepth)
    return hio::failf(EINVAL, "open %s: queue depth %u is outside 1..%u", spec, o.depth, hio::kMaxDepth);
  // Checked as an int: an out-of-range value is not a hio_readahead to copy.
  int ra = hio::raw_enum(o.readahead);
  if (ra < HIO_READAHEAD_AUTO || ra > HIO_READAHEAD_ON)
    return hio::failf(EINVAL, "open %s: unknown read-ahead mode %d", spec, ra);
  if (o.queue) {
    h->queues[0] = o.queue;
    h->queues[1] = o.write_queue;
  } else {
    h->owned[0] = h->queues[0] = new_queue(e, o.depth ? o.depth : 64, o.strategy);
    if (!h->queues[0]) return -EINVAL;
  }
  hio::HandleConfig cfg;
  cfg.open = hio::api::from_abi(o.open);
  cfg.read_q = bound_of(h->queues[0]);
  if (h->queues[1]) cfg.write_q = bound_of(h->queues[1]);
  cfg.high_priority = high;
  cfg.cache = o.cache ? o.cache->impl.get() : nullptr;
  cfg.readahead = o.readahead;
  cfg.reaper = o.reaper ? o.reaper->impl.get() : nullptr;
  cfg.private_queue = [e]() -> std::unique_ptr<hio::Queue> {
    hio::QueueOptions qo;
    qo.depth = 1;
    return hio::Queue::create(qo, e->impl.devices());
  };
  h->impl = hio::Handle::open(spec, std::move(cfg));
  return h->impl ? 0 : -EINVAL;
}

}  // namespace

extern "C" {

int hio_cache_create(uint64_t bytes, hio_cache_write policy, hio_cache** out) {
  CHECK_ARG(out, "out is NULL");
  int p = hio::raw_enum(policy);
  if (p != HIO_CACHE_WRITE_THROUGH && p != HIO_CACHE_WRITE_BACK)
    return hio::failf(EINVAL, "unknown cache write policy %d (0: write-through, 1: write-back)", p);
  return hio::guarded([&] {
    auto c =
        hio::BlockCache::create(bytes, p == HIO_CACHE_WRITE_BACK ? hio::WritePolicy::Back : hio::WritePolicy::Through);
    if (!c) return bytes < hio::kPage ? -EINVAL : -ENOMEM;
    *out = new hio_cache{std::move(c)};
    return 0;
  });
}

void hio_cache_destroy(hio_cache* c) { delete c; }

int hio_cache_stats_get(hio_cache* c, hio_cache_stats* out) {
  CHECK_ARG(c && out, "cache or out is NULL");
  hio::CacheStats s = c->impl->stats();
  hio_cache_stats full{.struct_size = sizeof(hio_cache_stats),
                       .hits = s.hits,
                       .misses = s.misses,
                       .fills = s.fills,
                       .stale_fills = s.stale_fills,
                       .evictions = s.evictions,
                       .writebacks = s.writebacks,
                       .pages = s.pages,
                       .dirty = s.dirty,
                       .capacity_pages = s.capacity_pages};
  return hio::abi::give(out, full, "hio_cache_stats");
}

void hio_reaper_opts_init(hio_reaper_opts* o, size_t size) {
  hio_reaper_opts d{};
  d.poll_period_ns = HIO_POLL_PERIOD_AUTO;
  d.cpu = -1;
  hio::abi::init(o, size, d);
}

void hio_handle_opts_init(hio_handle_opts* o, size_t size) {
  hio_handle_opts d{};
  d.open.struct_size = sizeof d.open;
  d.strategy.struct_size = sizeof d.strategy;
  d.depth = 64;
  hio::abi::init(o, size, d);
}

int hio_reaper_create(const hio_reaper_opts* opts, hio_reaper** out) {
  CHECK_ARG(opts && out, "opts or out is NULL");
  hio_reaper_opts o;
  if (int r = hio::abi::take(opts, &o, "hio_reaper_opts"); r < 0) return r;
  return hio::guarded([&] {
    auto r = hio::Reaper::create(hio::api::from_abi(o), hio::Governor::get());
    if (!r) return -EINVAL;
    *out = new hio_reaper{std::move(r)};
    return 0;
  });
}

void hio_reaper_destroy(hio_reaper* r) { delete r; }

int hio_reaper_stats_get(hio_reaper* r, hio_reaper_stats* out) {
  CHECK_ARG(r && out, "reaper or out is NULL");
  hio_reaper_stats full{};
  r->impl->stats(&full);
  return hio::abi::give(out, full, "hio_reaper_stats");
}

int hio_handle_open(hio_engine* e, const char* spec, const hio_handle_opts* opts, hio_handle** out) {
  CHECK_ARG(e && spec && out, "engine, spec or out is NULL");
  hio_handle_opts o;
  if (int r = hio::abi::take(opts, &o, "hio_handle_opts"); r < 0) return r;
  if (int r = hio::abi::take_strategy(opts, &o, "hio_handle_opts.strategy"); r < 0) return r;
  return hio::guarded([&] {
    auto* h = new hio_handle;
    int r = open_handle(e, spec, o, h);
    if (r < 0) {
      std::string msg = hio::last_error();
      h->impl.reset();
      free_owned(h);
      delete h;
      return hio::fail(-r, msg);
    }
    *out = h;
    return 0;
  });
}

int hio_handle_close(hio_handle* h) {
  if (!h) return 0;
  int r = hio::guarded([&] { return h->impl->close(); });
  std::string msg = r < 0 ? hio::last_error() : "";
  h->impl.reset();
  free_owned(h);
  delete h;
  return r < 0 ? hio::fail(-r, msg) : 0;
}

int hio_handle_target_info_get(hio_handle* h, hio_target_info* out) {
  CHECK_ARG(h && out, "handle or out is NULL");
  hio::TargetInfo t = h->impl->info();
  hio_target_info full{.struct_size = sizeof(hio_target_info),
                       .size = t.size,
                       .offset_align = t.offset_align,
                       .mem_align = t.mem_align,
                       .emulated = t.emulated,
                       .growable = t.growable,
                       .backend = t.emulated ? "emu" : "uring"};
  return hio::abi::give(out, full, "hio_target_info");
}

int hio_handle_submit(hio_handle* h, const hio_io* ios, unsigned n) {
  CHECK_ARG(h && (ios || n == 0), "handle or ios is NULL");
  if (int r = hio::abi::check_commands(ios, n); r < 0) return r;
  return hio::guarded([&] { return h->impl->submit(ios, n); });
}

int hio_handle_reap(hio_handle* h, hio_completion* out, unsigned max, unsigned min_complete) {
  CHECK_ARG(h && (out || max == 0), "handle or out is NULL");
  CHECK_ARG(min_complete <= max, "min_complete exceeds max");
  return hio::guarded([&] { return h->impl->reap(out, max, min_complete); });
}

int64_t hio_handle_read(hio_handle* h, void* buf, uint32_t len, uint64_t offset) {
  CHECK_ARG(h, "handle is NULL");
  return hio::guarded([&] { return h->impl->sync_io(HIO_OP_READ, buf, len, offset); });
}

int64_t hio_handle_write(hio_handle* h, const void* buf, uint32_t len, uint64_t offset) {
  CHECK_ARG(h, "handle is NULL");
  return hio::guarded([&] { return h->impl->sync_io(HIO_OP_WRITE, const_cast<void*>(buf), len, offset); });
}

int hio_handle_flush(hio_handle* h) {
  CHECK_ARG(h, "handle is NULL");
  return hio::guarded([&] { return int(h->impl->sync_io(HIO_OP_FLUSH, nullptr, 0, 0)); });
}

int hio_handle_completion_describe(hio_handle* h, const hio_completion* c, char* buf, size_t len) {
  CHECK_ARG(h && c && buf && len, "handle, completion or buffer is NULL");
  return hio::guarded([&] {
    std::string s = h->impl->describe(*c);
    std::snprintf(buf, len, "%s", s.c_str());
    return int(s.size());
  });
}

int hio_handle_stats_get(hio_handle* h, hio_handle_stats* out) {
  CHECK_ARG(h && out, "handle or out is NULL");
  hio_handle_stats full{};
  h->impl->stats(&full);
  return hio::abi::give(out, full, "hio_handle_stats");
}

int hio_handle_stats_reset(hio_handle* h) {
  CHECK_ARG(h, "handle is NULL");
  return hio::guarded([&] {
    h->impl->stats_reset();
    return 0;
  });
}

int hio_handle_percentiles_get(hio_handle* h, hio_op op, const double* pcts, size_t n, uint64_t* out_ns) {
  CHECK_ARG(h && (n == 0 || (pcts && out_ns)), "handle, pcts or out is NULL");
  return hio::guarded([&] { return h->impl->percentiles(op, pcts, n, out_ns); });
}

hio_queue* hio_handle_queue_get(hio_handle* h, hio_handle_queue_role role) {
  if (!h || (role != HIO_HANDLE_READS && role != HIO_HANDLE_WRITES)) return nullptr;
  return role == HIO_HANDLE_WRITES && h->queues[1] ? h->queues[1] : h->queues[0];
}

}  // extern "C"
