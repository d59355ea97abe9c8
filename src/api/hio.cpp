// SPDX-License-Identifier: MIT
// The C API: argument checks, then the C++ objects; no exception crosses it.
#include "hybridio/hio.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "api/abi.hpp"
#include "api/convert.hpp"
#include "api/objects.hpp"
#include "queue/backend_factory.hpp"
#include "util/enum.hpp"
#include "util/wait_mode.hpp"

namespace {

// A queue bound to handles is theirs: direct I/O on it would take their
// completions.
#define NOT_BOUND(q) \
  if ((q)->bound) return hio::fail(EBUSY, std::string(__func__) + ": the queue is bound to handles; use hio_handle_*")

}  // namespace

extern "C" {

const char* hio_last_error(void) { return hio::last_error(); }
const char* hio_version(void) { return HIO_VERSION_STRING; }

int hio_version_check(int major, int minor) {
  if (major == HIO_VERSION_MAJOR && minor <= HIO_VERSION_MINOR) return 0;
  return hio::failf(ENOTSUP, "hio_version_check: this is hybridio %s; the program needs %d.%d or a later %d.x",
                    HIO_VERSION_STRING, major, minor, major);
}

int hio_engine_create(hio_engine** out) {
  CHECK_ARG(out, "out is NULL");
  return hio::guarded([&] {
    *out = new hio_engine;
    return 0;
  });
}

void hio_engine_destroy(hio_engine* e) { delete e; }

int hio_engine_emulate(hio_engine* e, const char* spec) {
  CHECK_ARG(e, "engine is NULL");
  return hio::guarded([&] { return e->impl.emulate_files(spec ? spec : ""); });
}

const char* hio_wait_mode_name(hio_wait_mode m) { return hio::wait_mode_name(m); }

int hio_wait_mode_parse(const char* name, hio_wait_mode* out) {
  CHECK_ARG(name && out, "name or out is NULL");
  if (hio::parse_wait_mode(name, out)) return 0;
  return hio::failf(
      EINVAL, "unknown wait mode '%s' (modes: interrupt, poll, hybrid, iopoll, hybrid_iopoll, sqpoll, adaptive)", name);
}

const char* hio_objective_name(hio_objective o) {
  switch (hio::raw_enum(o)) {
    case HIO_OBJECTIVE_SHARED: return "shared";
    case HIO_OBJECTIVE_OWN: return "own";
  }
  return "unknown";
}

int hio_objective_parse(const char* name, hio_objective* out) {
  CHECK_ARG(name && out, "name or out is NULL");
  for (hio_objective o : {HIO_OBJECTIVE_SHARED, HIO_OBJECTIVE_OWN})
    if (std::strcmp(name, hio_objective_name(o)) == 0) {
      *out = o;
      return 0;
    }
  return hio::failf(EINVAL, "unknown objective '%s' (objectives: shared, own)", name);
}

void hio_strategy_init(hio_strategy* s, size_t size) { hio::abi::init(s, size, hio_strategy{}); }

void hio_queue_opts_init(hio_queue_opts* o, size_t size) {
  hio_queue_opts d{};
  d.depth = 64;
  d.strategy.struct_size = sizeof d.strategy;
  hio::abi::init(o, size, d);
}

void hio_open_opts_init(hio_open_opts* o, size_t size) { hio::abi::init(o, size, hio_open_opts{}); }

int hio_queue_create(hio_engine* e, const hio_queue_opts* opts, hio_queue** out) {
  CHECK_ARG(e && opts && out, "engine, opts or out is NULL");
  hio_queue_opts o;
  if (int r = hio::abi::take(opts, &o, "hio_queue_opts"); r < 0) return r;
  if (int r = hio::abi::take_strategy(opts, &o, "hio_queue_opts.strategy"); r < 0) return r;
  return hio::guarded([&] {
    auto q = hio::Queue::create(hio::api::from_abi(o), e->impl.devices());
    if (!q) return -EINVAL;
    *out = new hio_queue{std::shared_ptr<hio::Queue>(std::move(q)), nullptr};
    return 0;
  });
}

void hio_queue_destroy(hio_queue* q) { delete q; }

int hio_queue_strategy_set(hio_queue* q, const hio_strategy* s) {
  CHECK_ARG(q && s, "queue or strategy is NULL");
  hio_strategy st;
  if (int r = hio::abi::take(s, &st, "hio_strategy"); r < 0) return r;
  if (int r = hio::abi::check_strategy(st, "hio_strategy"); r < 0) return r;
  return hio::guarded([&] { return hio::with_queue(q, [&](hio::Queue& x) { return x.set_strategy(st); }); });
}

int hio_queue_strategy_get(hio_queue* q, hio_strategy* out) {
  CHECK_ARG(q && out, "queue or out is NULL");
  return hio::abi::give(out, hio::with_queue(q, [](hio::Queue& x) { return x.strategy(); }), "hio_strategy");
}

int hio_queue_open(hio_queue* q, const char* spec, const hio_open_opts* opts) {
  CHECK_ARG(q && spec, "queue or spec is NULL");
  hio_open_opts o;
  if (int r = hio::abi::take(opts, &o, "hio_open_opts"); r < 0) return r;
  NOT_BOUND(q);
  return hio::guarded([&] { return q->impl->open(spec, hio::api::from_abi(o)); });
}

const char* hio_spec_backend(const char* spec) { return hio::backend_name(hio::backend_kind(spec ? spec : "")); }

int hio_target_info_get(hio_queue* q, int target, hio_target_info* out) {
  CHECK_ARG(q && out, "queue or out is NULL");
  hio_target_info full{};
  int r = hio::guarded([&] { return hio::with_queue(q, [&](hio::Queue& x) { return x.target_info(target, &full); }); });
  return r < 0 ? r : hio::abi::give(out, full, "hio_target_info");
}

int hio_queue_register_buffer(hio_queue* q, void* base, size_t len) {
  CHECK_ARG(q && base && len, "queue or buffer is NULL or empty");
  return hio::guarded([&] { return hio::with_queue(q, [&](hio::Queue& x) { return x.register_buffer(base, len); }); });
}

int hio_submit(hio_queue* q, const hio_io* ios, unsigned n, unsigned flags) {
  CHECK_ARG(q && (ios || n == 0), "queue or ios is NULL");
  CHECK_ARG(!(flags & ~HIO_SUBMIT_DEFER), "unknown flags");
  NOT_BOUND(q);
  if (int r = hio::abi::check_commands(ios, n); r < 0) return r;
  return hio::guarded([&] { return q->impl->submit(ios, n, flags); });
}

int hio_reap(hio_queue* q, hio_completion* out, unsigned max, unsigned min_complete) {
  CHECK_ARG(q && (out || max == 0), "queue or out is NULL");
  CHECK_ARG(min_complete <= max, "min_complete exceeds max");
  NOT_BOUND(q);
  return hio::guarded([&] { return q->impl->reap(out, max, min_complete); });
}

unsigned hio_queue_inflight_get(hio_queue* q) {
  return q ? hio::with_queue(q, [](hio::Queue& x) { return x.inflight(); }) : 0;
}

int64_t hio_read(hio_queue* q, int target, void* buf, uint32_t len, uint64_t offset) {
  CHECK_ARG(q, "queue is NULL");
  NOT_BOUND(q);
  return hio::guarded([&] { return q->impl->sync_io(HIO_OP_READ, target, buf, len, offset); });
}

int64_t hio_write(hio_queue* q, int target, const void* buf, uint32_t len, uint64_t offset) {
  CHECK_ARG(q, "queue is NULL");
  NOT_BOUND(q);
  return hio::guarded([&] { return q->impl->sync_io(HIO_OP_WRITE, target, const_cast<void*>(buf), len, offset); });
}

int hio_flush(hio_queue* q, int target) {
  CHECK_ARG(q, "queue is NULL");
  NOT_BOUND(q);
  return hio::guarded([&] { return int(q->impl->sync_io(HIO_OP_FLUSH, target, nullptr, 0, 0)); });
}

int hio_completion_describe(hio_queue* q, const hio_completion* c, char* buf, size_t len) {
  CHECK_ARG(q && c && buf && len, "queue, completion or buffer is NULL");
  return hio::guarded([&] {
    std::string s = hio::with_queue(q, [&](hio::Queue& x) { return x.describe(*c); });
    std::snprintf(buf, len, "%s", s.c_str());
    return int(s.size());
  });
}

int hio_queue_adaptive_view_get(hio_queue* q, hio_adaptive_view* out) {
  CHECK_ARG(q && out, "queue or out is NULL");
  hio_adaptive_view full{};
  int r = hio::guarded([&] { return hio::with_queue(q, [&](hio::Queue& x) { return x.adaptive_view(&full); }); });
  return r < 0 ? r : hio::abi::give(out, full, "hio_adaptive_view");
}

int hio_queue_stats_get(hio_queue* q, hio_queue_stats* out) {
  CHECK_ARG(q && out, "queue or out is NULL");
  hio_queue_stats full{};
  int r = hio::guarded([&] { return hio::with_queue(q, [&](hio::Queue& x) { return x.stats(&full); }); });
  return r < 0 ? r : hio::abi::give(out, full, "hio_queue_stats");
}

int hio_queue_stats_reset(hio_queue* q) {
  CHECK_ARG(q, "queue is NULL");
  return hio::guarded([&] {
    return hio::with_queue(q, [](hio::Queue& x) {
      x.stats_reset();
      return 0;
    });
  });
}

int hio_queue_percentiles_get(hio_queue* q, hio_op op, const double* pcts, size_t n, uint64_t* out_ns) {
  CHECK_ARG(q && (n == 0 || (pcts && out_ns)), "queue, pcts or out is NULL");
  return hio::guarded(
      [&] { return hio::with_queue(q, [&](hio::Queue& x) { return x.percentiles(op, pcts, n, out_ns); }); });
}

}  // extern "C"
