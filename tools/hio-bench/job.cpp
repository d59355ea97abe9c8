// SPDX-License-Identifier: MIT
#include "job.hpp"

#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>

#include <tuple>
#include <utility>
#include "util/clock.hpp"
#include "verify.hpp"

namespace hiobench {
namespace {

struct QueueDeleter {
  void operator()(hio_queue* q) const { hio_queue_destroy(q); }
};
using QueuePtr = std::unique_ptr<hio_queue, QueueDeleter>;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

bool is_emu(const std::string& f) { return std::strcmp(hio_spec_backend(f.c_str()), "emu") == 0; }

hio_strategy strategy_of(const JobOptions& o) {
  hio_strategy s;
  hio_strategy_init(&s, sizeof s);
  s.mode = o.completion;
  s.hybrid_sleep_ns = uint64_t(o.hybrid_sleep_us * 1000.0);
  s.hybrid_fraction = 0.5;
  s.objective = o.objective;
  return s;
}

hio_open_opts open_opts(const JobOptions& o, bool create) {
  hio_open_opts oo{};
  oo.struct_size = sizeof oo;
  oo.flags = (o.direct ? HIO_OPEN_DIRECT : 0) | (create ? HIO_OPEN_CREATE : 0) |
             (rw_writes(o.rw) || create ? 0 : HIO_OPEN_RDONLY);
  oo.size = o.size;
  return oo;
}

// Opens the job's target on q; returns the id or throws UsageError.
int open_target(hio_queue* q, const JobOptions& o, bool create, hio_target_info* info) {
  hio_open_opts oo = open_opts(o, create);
  int t = hio_queue_open(q, o.filename.c_str(), &oo);
  if (t < 0) throw UsageError("job '" + o.name + "': " + hio_last_error());
  info->struct_size = sizeof *info;
  hio_target_info_get(q, t, info);
  return t;
}

struct CacheDeleter {
  void operator()(hio_cache* c) const { hio_cache_destroy(c); }
};
using CachePtr = std::unique_ptr<hio_cache, CacheDeleter>;

QueuePtr make_queue(hio_engine* e, const JobOptions& o, unsigned depth) {
  hio_queue_opts qo{};
  qo.struct_size = sizeof qo;
  qo.depth = depth;
  qo.strategy = strategy_of(o);
  hio_queue* q = nullptr;
  if (hio_queue_create(e, &qo, &q) < 0) throw UsageError("job '" + o.name + "': " + hio_last_error());
  return QueuePtr(q);
}

void pin(const JobOptions& o) {
  if (o.cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : o.cpus) CPU_SET(c, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0)
    throw UsageError("job '" + o.name + "': --cpus_allowed=" + o.given.at("cpus_allowed") +
                     ": none of these CPUs is available (" + std::strerror(errno) + "; this machine has " +
                     std::to_string(sysconf(_SC_NPROCESSORS_ONLN)) + " online)");
}

// Block indices in a full-period permutation (a*i + c mod n): random order,
// each block once per pass, no memory per block.
class OffsetGen {
 public:
  OffsetGen(uint64_t blocks, bool random, bool repeat, uint64_t seed)
      : n_(blocks), random_(random), repeat_(repeat), rng_(seed) {
    new_pass();
  }
  uint64_t next() {
    if (random_ && repeat_) return std::uniform_int_distribution<uint64_t>(0, n_ - 1)(rng_);
    if (i_ == n_) new_pass();
    uint64_t k = i_++;
    if (!random_) return k;
    uint64_t v = uint64_t((unsigned __int128)a_ * k % n_) + c_;
    return v >= n_ ? v - n_ : v;
  }
  uint64_t passes() const { return passes_; }

 private:
  void new_pass() {
    i_ = 0;
    passes_++;
    if (!random_ || n_ < 2) return;
    std::uniform_int_distribution<uint64_t> d(1, n_ - 1);
    a_ = d(rng_) | 1;
    while (std::gcd(a_, n_) != 1) a_ = a_ % (n_ - 1) + 1;
    c_ = d(rng_);
  }
  uint64_t n_, i_ = 0, a_ = 1, c_ = 0, passes_ = 0;
  bool random_, repeat_;
  std::mt19937_64 rng_;
};

struct Usage {
  uint64_t utime_ns, stime_ns, ctx, majf, minf;
  static Usage now() {
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    auto ns = [](const timeval& t) { return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_usec) * 1000ull; };
    return Usage{ns(ru.ru_utime), ns(ru.ru_stime), uint64_t(ru.ru_nvcsw + ru.ru_nivcsw), uint64_t(ru.ru_majflt),
                 uint64_t(ru.ru_minflt)};
  }
};

void sleep_until(uint64_t deadline_ns) {
  timespec ts = hio::ns_to_ts(deadline_ns);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

class Runner {
 public:
  Runner(hio_engine* e, const JobOptions& o, unsigned index, JobProgress& p, const SharedResources& sh)
      : o_(o), p_(p), sh_(sh), rng_(0x68696f ^ (uint64_t(index) << 32)) {
    pin(o);
    hio_handle_opts ho{};
    ho.struct_size = sizeof ho;
    ho.open = open_opts(o, false);
    ho.flags = o.high_priority ? HIO_HANDLE_HIGH_PRIORITY : 0;
    std::tie(ho.queue, ho.write_queue) = sh.queues_for(o);
    ho.depth = o.iodepth;
    ho.strategy = strategy_of(o);
    if (o.cache_mb) {
      hio_cache* c = nullptr;
      if (hio_cache_create(o.cache_mb << 20, o.cache_policy, &c) < 0)
        throw UsageError("job '" + o.name + "': --cache_mb=" + std::to_string(o.cache_mb) + ": " + hio_last_error());
      cache_.reset(c);
    }
    ho.cache = cache_.get();
    ho.readahead = o.readahead;
    ho.reaper = sh.reaper_for(o);
    hio_handle* h = nullptr;
    if (hio_handle_open(e, o.filename.c_str(), &ho, &h) < 0)
      throw UsageError("job '" + o.name + "': " + hio_last_error());
    h_ = h;
    q_ = hio_handle_queue_get(h, HIO_HANDLE_READS);
    info_.struct_size = sizeof info_;
    hio_handle_target_info_get(h, &info_);
    blocks_ = (o.size ? o.size : info_.size) / o.bs;
    size_t align = std::max<size_t>(4096, info_.mem_align);
    size_t arena = size_t(o.iodepth) * ((o.bs + align - 1) / align * align);
    stride_ = arena / o.iodepth;
    void* mem = std::aligned_alloc(align, arena);
    if (!mem) throw UsageError("job '" + o.name + "': cannot allocate " + std::to_string(arena) + " bytes of buffers");
    arena_.reset(mem);
    std::memset(mem, 0, arena);
    // Fixed buffers save the kernel a page pinning per I/O; without them
    // the run still works, so a refusal (memlock limit) is not an error.
    hio_queue_register_buffer(q_, mem, arena);
    for (unsigned i = o.iodepth; i-- > 0;) free_.push_back(i);
    comps_.resize(o.iodepth);
    if (o.verify && rw_writes(o.rw)) written_.assign(blocks_, false);
  }

  JobResult run() {
    JobResult r;
    r.name = o_.name;
    r.target = o_.filename;
    r.backend = info_.backend;
    r.emulated = info_.emulated;
    uint64_t t0 = hio::now_ns();
    if (o_.ramp_time_s > 0) {
      loop(t0 + uint64_t(o_.ramp_time_s * 1e9), UINT64_MAX, r);
      hio_handle_stats_reset(h_);
    }
    Usage u0 = Usage::now();
    uint64_t start = hio::now_ns();
    uint64_t end = o_.runtime_s > 0 ? start + uint64_t(o_.runtime_s * 1e9) : UINT64_MAX;
    uint64_t limit = o_.time_based ? UINT64_MAX : blocks_;
    log_start_ = log_next_ = start;
    timespec wall_clock;
    clock_gettime(CLOCK_REALTIME, &wall_clock);
    r.start_unix_ms = double(hio::ts_ns(wall_clock)) / 1e6;
    log_ios_ = 0;
    r.pacing_cpu_ns = 0;  // the ramp's does not count
    logging_ = o_.adaptive_log_ns > 0;
    hio_reaper_stats rs0 = sh_.reaper_stats(o_);
    if (!r.error) loop(end, limit, r);
    logging_ = false;
    uint64_t wall = hio::now_ns() - start;
    Usage u1 = Usage::now();
    r.qs.struct_size = sizeof r.qs;
    r.hs.struct_size = sizeof r.hs;
    r.cs.struct_size = sizeof r.cs;
    r.view.struct_size = sizeof r.view;
    hio_queue_stats_get(q_, &r.qs);
    hio_handle_stats_get(h_, &r.hs);
    if (cache_) hio_cache_stats_get(cache_.get(), &r.cs);
    if (o_.reaper_thread) {
      hio_reaper_stats rs1 = sh_.reaper_stats(o_);
      r.reaper_cpu_pct = 100.0 * double(rs1.cpu_ns - rs0.cpu_ns) / double(wall);
      uint64_t sleeps = rs1.sleeps - rs0.sleeps;
      r.reaper_period_us = sleeps
                               ? (rs1.period_ns_mean * double(rs1.sleeps) - rs0.period_ns_mean * double(rs0.sleeps)) /
                                     double(sleeps) / 1e3
                               : 0;
      r.reaper_period_now_us = double(rs1.period_ns) / 1e3;
      r.reaper_rounds = rs1.rounds - rs0.rounds;
      r.reaper_contention = rs1.contention;
    }
    r.has_view = hio_queue_adaptive_view_get(q_, &r.view) == 0;
    r.runtime_ms = double(wall) / 1e6;
    r.usr_pct = 100.0 * double(u1.utime_ns - u0.utime_ns) / double(wall);
    r.sys_pct = 100.0 * double(u1.stime_ns - u0.stime_ns) / double(wall);
    r.ctx = u1.ctx - u0.ctx;
    r.majf = u1.majf - u0.majf;
    r.minf = u1.minf - u0.minf;
    fill_dir(HIO_OP_READ, r.hs.read_ios, r.hs.read_bytes, r.hs.read_lat, r.read);
    fill_dir(HIO_OP_WRITE, r.hs.write_ios, r.hs.write_bytes, r.hs.write_lat, r.write);
    if (!r.error && !written_.empty()) verify_pass(r);
    close(r);
    return r;
  }

 private:
  void fill_dir(hio_op op, uint64_t ios, uint64_t bytes, const hio_lat_summary& lat, DirResult& d) {
    d.ios = ios;
    d.bytes = bytes;
    d.lat = lat;
    const auto& pcts = fio_percentiles();
    std::vector<uint64_t> v(pcts.size());
    hio_handle_percentiles_get(h_, op, pcts.data(), pcts.size(), v.data());
    for (size_t i = 0; i < pcts.size(); i++) d.pct.emplace_back(pcts[i], v[i]);
  }

  uint8_t* buf(unsigned slot) { return static_cast<uint8_t*>(arena_.get()) + size_t(slot) * stride_; }

  hio_op pick_op() {
    if (!rw_reads(o_.rw)) return HIO_OP_WRITE;
    if (!rw_writes(o_.rw)) return HIO_OP_READ;
    return std::uniform_int_distribution<unsigned>(0, 99)(rng_) < o_.rwmixread ? HIO_OP_READ : HIO_OP_WRITE;
  }

  // Issues and reaps until the deadline or until `limit` I/Os were issued
  // (and all have completed). Records the first I/O error and stops.
  void loop(uint64_t deadline, uint64_t limit, JobResult& r) {
    OffsetGen gen(blocks_, rw_random(o_.rw), o_.norandommap, rng_());
    uint64_t issued = 0;
    double interval_ns = o_.rate_iops ? 1e9 / double(o_.rate_iops) : 0;
    uint64_t rate_start = hio::now_ns();
    bool stop = false;
    while (true) {
      uint64_t now = hio::now_ns();
      if (now >= deadline || issued >= limit || r.error) stop = true;
      while (!stop && !free_.empty() && issued < limit) {
        if (interval_ns > 0 && now < rate_start + uint64_t(double(issued) * interval_ns)) break;
        unsigned slot = free_.back();
        free_.pop_back();
        hio_io io{pick_op(), target_, buf(slot), o_.bs, gen.next() * o_.bs, slot};
        if (io.op == HIO_OP_WRITE && o_.verify) verify_fill(io.buf, o_.bs, io.offset, rng_());
        if (int e = hio_handle_submit(h_, &io, 1); e < 0) {
          r.error = -e;
          r.error_msg = hio_last_error();
          free_.push_back(slot);
          stop = true;
          break;
        }
        issued++;
      }
      unsigned inflight = o_.iodepth - unsigned(free_.size());
      if (inflight == 0) {
        if (stop) return;
        if (interval_ns > 0) {
          // The pacing is the application's, not the wait strategy's: its CPU is counted apart.
          uint64_t c0 = hio::thread_cpu_ns();
          sleep_until(rate_start + uint64_t(double(issued) * interval_ns));
          r.pacing_cpu_ns += hio::thread_cpu_ns() - c0;
        }
        continue;
      }
      int n = hio_handle_reap(h_, comps_.data(), unsigned(comps_.size()), 1);
      if (n < 0) {
        r.error = -n;
        r.error_msg = hio_last_error();
        return;  // the queue is unusable: abandon what is in flight
      }
      for (int i = 0; i < n; i++) complete(comps_[size_t(i)], r);
      if (logging_) log_sample(r);
    }
  }

  void log_sample(JobResult& r) {
    uint64_t now = hio::now_ns();
    if (now < log_next_ + o_.adaptive_log_ns) return;
    uint64_t ios = p_.read_ios.load(std::memory_order_relaxed) + p_.write_ios.load(std::memory_order_relaxed);
    TimelinePoint pt;
    pt.t_ms = double(now - log_start_) / 1e6;
    pt.iops = double(ios - log_ios_) * 1e9 / double(now - log_next_);
    pt.view.struct_size = sizeof pt.view;
    pt.adaptive = hio_queue_adaptive_view_get(q_, &pt.view) == 0;
    r.timeline.push_back(pt);
    log_next_ = now;
    log_ios_ = ios;
  }

  // Keeps the first failed or short completion as the job's error; returns
  // whether c failed.
  bool failed(const hio_completion& c, JobResult& r, const char* prefix = "") {
    if (c.res >= 0 && uint32_t(c.res) == c.len) return false;
    if (!r.error) {
      char msg[512];
      hio_handle_completion_describe(h_, &c, msg, sizeof msg);
      r.error = c.res < 0 ? -c.res : EIO;
      r.error_msg = prefix + std::string(msg);
      if (c.res >= 0) r.error_msg += " (short transfer of " + std::to_string(c.len) + ")";
    }
    return true;
  }

  void complete(const hio_completion& c, JobResult& r) {
    free_.push_back(unsigned(c.tag));
    if (failed(c, r)) return;
    if (c.op == HIO_OP_READ) {
      p_.read_ios.fetch_add(1, std::memory_order_relaxed);
      if (o_.verify && written_.empty()) check(buf(unsigned(c.tag)), c.offset, r);
    } else {
      p_.write_ios.fetch_add(1, std::memory_order_relaxed);
      if (!written_.empty()) written_[c.offset / o_.bs] = true;
    }
  }

  void check(const uint8_t* data, uint64_t offset, JobResult& r) {
    r.verified++;
    std::string bad = verify_check(data, o_.bs, offset);
    if (bad.empty()) return;
    if (r.mismatches++ == 0)
      r.first_mismatch = "verify: block at offset " + std::to_string(offset) + " of " + o_.filename + ": " + bad;
  }

  // Reads back every block this job wrote and checks it.
  void verify_pass(JobResult& r) {
    std::vector<uint64_t> todo;
    for (uint64_t b = 0; b < blocks_; b++)
      if (written_[b]) todo.push_back(b * o_.bs);
    size_t next = 0;
    while (next < todo.size() || free_.size() < o_.iodepth) {
      while (next < todo.size() && !free_.empty()) {
        unsigned slot = free_.back();
        free_.pop_back();
        hio_io io{HIO_OP_READ, target_, buf(slot), o_.bs, todo[next++], slot};
        if (hio_handle_submit(h_, &io, 1) < 0) {
          r.error = EIO;
          r.error_msg = std::string("verify: ") + hio_last_error();
          return;
        }
      }
      int n = hio_handle_reap(h_, comps_.data(), unsigned(comps_.size()), 1);
      if (n < 0) {
        r.error = -n;
        r.error_msg = std::string("verify: ") + hio_last_error();
        return;
      }
      for (int i = 0; i < n; i++) {
        const hio_completion& c = comps_[size_t(i)];
        free_.push_back(unsigned(c.tag));
        if (!failed(c, r, "verify: ")) check(buf(unsigned(c.tag)), c.offset, r);
      }
    }
  }

  // Closes the handle: its dirty cache pages reach the device here.
  void close(JobResult& r) {
    hio_handle* h = std::exchange(h_, nullptr);
    if (hio_handle_close(h) < 0 && !r.error) {
      r.error = EIO;
      r.error_msg = std::string("closing the handle: ") + hio_last_error();
    }
  }

 public:
  ~Runner() { hio_handle_close(h_); }

 private:
  const JobOptions& o_;
  JobProgress& p_;
  const SharedResources& sh_;
  CachePtr cache_;  // declared before the handle that uses it
  hio_handle* h_ = nullptr;
  hio_queue* q_ = nullptr;  // the handle's (read) queue
  std::mt19937_64 rng_;
  int target_ = -1;
  hio_target_info info_{};
  uint64_t blocks_ = 0;
  size_t stride_ = 0;
  std::unique_ptr<void, FreeDeleter> arena_;
  std::vector<unsigned> free_;
  std::vector<hio_completion> comps_;
  std::vector<bool> written_;
  bool logging_ = false;
  uint64_t log_start_ = 0, log_next_ = 0, log_ios_ = 0;
};

}  // namespace

const std::vector<double>& fio_percentiles() {
  static const std::vector<double> p = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  return p;
}

JobResult run_job(hio_engine* engine, const JobOptions& o, unsigned index, JobProgress& progress,
                  const SharedResources& shared) {
  Runner runner(engine, o, index, progress, shared);
  JobResult r = runner.run();
  progress.done = true;
  return r;
}

namespace {

// Writes a missing file out for real under a temporary name, then renames
// it: reads of a sparse or preallocated file would never reach the device,
// and an interrupted layout must not leave a half-written file behind.
void lay_out(hio_engine* engine, const JobOptions& o, const std::string& where) {
  JobOptions tmp = o;
  tmp.filename = o.filename + ".hio-layout";
  tmp.completion = HIO_WAIT_INTERRUPT;
  QueuePtr q = make_queue(engine, tmp, 1);
  hio_target_info info{};
  info.struct_size = sizeof info;
  int t = open_target(q.get(), tmp, true, &info);
  constexpr uint32_t kChunk = 1u << 20;
  std::unique_ptr<void, FreeDeleter> mem(std::aligned_alloc(4096, kChunk));
  std::mt19937_64 rng(42);
  for (size_t i = 0; i < kChunk / 8; i++) static_cast<uint64_t*>(mem.get())[i] = rng();
  bool tty = isatty(2);
  auto failed = [&](const char* what) {
    std::string msg = where + what + ": " + hio_last_error();
    std::remove(tmp.filename.c_str());
    throw RunError(msg);
  };
  for (uint64_t off = 0; off < o.size; off += kChunk) {
    uint32_t len = uint32_t(std::min<uint64_t>(kChunk, o.size - off));
    if (o.direct && len % info.offset_align)
      len = (len + info.offset_align - 1) / info.offset_align * info.offset_align;
    if (hio_write(q.get(), t, mem.get(), len, off) < 0) failed("laying out the file");
    if (tty && (off / kChunk) % 64 == 0)
      std::fprintf(stderr, "\rLaying out %s: %llu of %llu MiB", o.filename.c_str(), (unsigned long long)(off >> 20),
                   (unsigned long long)(o.size >> 20));
  }
  if (hio_flush(q.get(), t) < 0) failed("flushing the laid-out file");
  if (std::rename(tmp.filename.c_str(), o.filename.c_str()) != 0) {
    std::remove(tmp.filename.c_str());
    throw RunError(where + "renaming the laid-out file: " + std::strerror(errno));
  }
  if (tty)
    std::fprintf(stderr, "\rLaid out %s: %llu MiB%20s\n", o.filename.c_str(), (unsigned long long)(o.size >> 20), "");
}

}  // namespace

void prepare_target(hio_engine* engine, const JobOptions& o) {
  std::string where = "job '" + o.name + "': --filename=" + o.filename + ": ";
  if (!is_emu(o.filename)) {
    struct stat st {};
    bool exists = stat(o.filename.c_str(), &st) == 0;
    if (!exists && errno != ENOENT) throw UsageError(where + std::strerror(errno));
    if (!exists && !o.size) throw UsageError(where + "No such file or directory (give --size to create it)");
    // A missing file is created and written out; an existing one is used as
    // it is (only writes may go past its end, extending it).
    if (!exists) lay_out(engine, o, where);
  }
  // Open as the job will, so that a wait mode the target cannot do fails here.
  QueuePtr q = make_queue(engine, o, 1);
  hio_target_info info{};
  info.struct_size = sizeof info;
  open_target(q.get(), o, false, &info);
  uint64_t size = o.size ? o.size : info.size;
  if (size < o.bs) throw UsageError(where + "the target holds " + std::to_string(size) + " bytes, less than --bs");
  if (size > info.size && !(info.growable && !rw_reads(o.rw)))
    throw UsageError(where + "--size=" + std::to_string(size) + " is past the end of the target (" +
                     std::to_string(info.size) + " bytes" +
                     (info.emulated ? "; set the capacity with emu:...,size=N)" : ")"));
  if ((o.direct || info.emulated) && o.bs % info.offset_align)
    throw UsageError(where + "--bs=" + std::to_string(o.bs) + " is not a multiple of the " +
                     std::to_string(info.offset_align) + "-byte alignment " +
                     (info.emulated ? "of the emulated device" : "that --direct=1 needs here"));
}

}  // namespace hiobench
