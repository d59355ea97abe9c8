// SPDX-License-Identifier: MIT
// Thin C++ RAII wrapper over hio.h: owners that free themselves and
// failures as hybridio::Error (the C API itself never throws).
#pragma once
#include <hybridio/hio_adaptive.h>

#include <span>
#include <stdexcept>
#include <string>
#include <utility>

namespace hybridio {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
  int code() const { return code_; }  // negative errno

 private:
  int code_;
};

namespace detail {
inline long long check(long long r) {
  if (r < 0) throw Error(int(r), hio_last_error());
  return r;
}
}  // namespace detail

class Engine {
 public:
  Engine() { detail::check(hio_engine_create(&e_)); }
  ~Engine() { hio_engine_destroy(e_); }
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  hio_engine* get() const { return e_; }

 private:
  hio_engine* e_ = nullptr;
};

class Queue {
 public:
  Queue(Engine& e, unsigned depth, hio_wait_mode mode = HIO_WAIT_INTERRUPT, unsigned flags = 0) {
    hio_queue_opts o;
    hio_queue_opts_init(&o, sizeof o);
    o.depth = depth;
    o.flags = flags;
    o.strategy.mode = mode;
    detail::check(hio_queue_create(e.get(), &o, &q_));
  }
  ~Queue() { hio_queue_destroy(q_); }
  Queue(Queue&& o) noexcept : q_(std::exchange(o.q_, nullptr)) {}
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  hio_queue* get() const { return q_; }

  int open(const std::string& spec, unsigned flags = 0, uint64_t size = 0) {
    hio_open_opts o{sizeof(hio_open_opts), flags, size};
    return int(detail::check(hio_queue_open(q_, spec.c_str(), &o)));
  }
  void set_strategy(const hio_strategy& s) { detail::check(hio_queue_strategy_set(q_, &s)); }
  void set_mode(hio_wait_mode m) {
    hio_strategy s;
    hio_strategy_init(&s, sizeof s);
    s.mode = m;
    set_strategy(s);
  }

  unsigned submit(std::span<const hio_io> ios, unsigned flags = 0) {
    return unsigned(detail::check(hio_submit(q_, ios.data(), unsigned(ios.size()), flags)));
  }
  // Returns the completions written to out.
  unsigned reap(std::span<hio_completion> out, unsigned min_complete) {
    return unsigned(detail::check(hio_reap(q_, out.data(), unsigned(out.size()), min_complete)));
  }
  uint32_t read(int target, void* buf, uint32_t len, uint64_t offset) {
    return uint32_t(detail::check(hio_read(q_, target, buf, len, offset)));
  }
  uint32_t write(int target, const void* buf, uint32_t len, uint64_t offset) {
    return uint32_t(detail::check(hio_write(q_, target, buf, len, offset)));
  }
  void flush(int target) { detail::check(hio_flush(q_, target)); }
  hio_queue_stats stats() const {
    hio_queue_stats s{};
    s.struct_size = sizeof s;
    detail::check(hio_queue_stats_get(q_, &s));
    return s;
  }
  // ADAPTIVE only; from the thread that waits on the queue.
  hio_adaptive_view adaptive_view() const {
    hio_adaptive_view v{};
    v.struct_size = sizeof v;
    detail::check(hio_queue_adaptive_view_get(q_, &v));
    return v;
  }

 private:
  hio_queue* q_ = nullptr;
};

class Cache {
 public:
  explicit Cache(uint64_t bytes, hio_cache_write policy = HIO_CACHE_WRITE_THROUGH) {
    detail::check(hio_cache_create(bytes, policy, &c_));
  }
  ~Cache() { hio_cache_destroy(c_); }
  Cache(const Cache&) = delete;
  Cache& operator=(const Cache&) = delete;
  hio_cache* get() const { return c_; }
  hio_cache_stats stats() const {
    hio_cache_stats s{};
    s.struct_size = sizeof s;
    detail::check(hio_cache_stats_get(c_, &s));
    return s;
  }

 private:
  hio_cache* c_ = nullptr;
};

// A completion thread; poll_period_ns 0 spins, HIO_POLL_PERIOD_AUTO tunes it.
class Reaper {
 public:
  explicit Reaper(uint64_t poll_period_ns = HIO_POLL_PERIOD_AUTO, int cpu = -1) {
    hio_reaper_opts o{sizeof(hio_reaper_opts), poll_period_ns, cpu};
    detail::check(hio_reaper_create(&o, &r_));
  }
  ~Reaper() { hio_reaper_destroy(r_); }
  Reaper(const Reaper&) = delete;
  Reaper& operator=(const Reaper&) = delete;
  hio_reaper* get() const { return r_; }
  hio_reaper_stats stats() const {
    hio_reaper_stats s{};
    s.struct_size = sizeof s;
    detail::check(hio_reaper_stats_get(r_, &s));
    return s;
  }

 private:
  hio_reaper* r_ = nullptr;
};

// Close it (or let it go) before the cache, reaper and queues it uses.
class Handle {
 public:
  Handle(Engine& e, const std::string& spec, const hio_handle_opts& o) {
    detail::check(hio_handle_open(e.get(), spec.c_str(), &o, &h_));
  }
  ~Handle() { hio_handle_close(h_); }
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hio_handle* get() const { return h_; }

  // Writes dirty pages back; throws if that fails.
  void close() { detail::check(hio_handle_close(std::exchange(h_, nullptr))); }
  unsigned submit(std::span<const hio_io> ios) {
    return unsigned(detail::check(hio_handle_submit(h_, ios.data(), unsigned(ios.size()))));
  }
  unsigned reap(std::span<hio_completion> out, unsigned min_complete) {
    return unsigned(detail::check(hio_handle_reap(h_, out.data(), unsigned(out.size()), min_complete)));
  }
  uint32_t read(void* buf, uint32_t len, uint64_t offset) {
    return uint32_t(detail::check(hio_handle_read(h_, buf, len, offset)));
  }
  uint32_t write(const void* buf, uint32_t len, uint64_t offset) {
    return uint32_t(detail::check(hio_handle_write(h_, buf, len, offset)));
  }
  void flush() { detail::check(hio_handle_flush(h_)); }
  hio_handle_stats stats() const {
    hio_handle_stats s{};
    s.struct_size = sizeof s;
    detail::check(hio_handle_stats_get(h_, &s));
    return s;
  }

 private:
  hio_handle* h_ = nullptr;
};

}  // namespace hybridio
