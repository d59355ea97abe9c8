// SPDX-License-Identifier: MIT
#include "commands/calibrate.hpp"

#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "adaptive/latency.hpp"
#include "hybridio/hio.h"
#include "model/profile.hpp"
#include "util/clock.hpp"

namespace hio::sim {
namespace {

using nlohmann::json;

constexpr int kQuantiles = 21;  // 0%, 5%, ... 100% (the top one at 99.9%: a host preemption is no model's)

json quantile_list(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  json q = json::array();
  for (int i = 0; i < kQuantiles; i++) {
    double p = std::min(0.999, double(i) / (kQuantiles - 1));
    q.push_back(std::round(v[size_t(p * double(v.size() - 1))]));
  }
  return q;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / double(v.size());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof set, &set) != 0) throw std::runtime_error("cannot pin to CPU " + std::to_string(cpu));
}

// The core's idle time so far (cpuidle residency), ns.
uint64_t core_idle_ns(int cpu) {
  uint64_t us = 0;
  for (int s = 0;; s++) {
    std::string t =
        read_text("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle/state" + std::to_string(s) + "/time");
    if (t.empty()) break;
    us += std::stoull(t);
  }
  return us * 1000;
}

// A SCHED_IDLE thread spinning on the core: the core is busy, but a woken
// thread of ours takes it at once, so a wake-up pays no idle exit and no wait.
class IdleSpinner {
 public:
  explicit IdleSpinner(int cpu)
      : t_([this, cpu] {
          pin(cpu);
          sched_param sp{};
          sched_setscheduler(0, SCHED_IDLE, &sp);
          while (!stop_.load(std::memory_order_relaxed)) {
          }
        }) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ~IdleSpinner() {
    stop_ = true;
    t_.join();
  }

 private:
  std::atomic<bool> stop_{false};
  std::thread t_;
};

struct Wakes {
  std::vector<double> late_ns;
  double thread_cpu_per = 0;  // our thread's CPU per sleep and wake-up
  double hidden_per = 0;      // the core's busy time per wake-up that is not our thread's
};

// Timer sleeps of sleep_ns to an absolute deadline, with 1 ns of timer slack.
Wakes timer_wakes(int cpu, int n, uint64_t sleep_ns = 100'000) {
  Wakes w;
  std::thread t([&] {
    pin(cpu);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    uint64_t c0 = thread_cpu_ns(), i0 = core_idle_ns(cpu), t0 = now_ns();
    for (int i = 0; i < n; i++) {
      uint64_t due = now_ns() + sleep_ns;
      timespec ts = ns_to_ts(due);
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
      }
      w.late_ns.push_back(double(now_ns() - due));
    }
    uint64_t c1 = thread_cpu_ns(), i1 = core_idle_ns(cpu), t1 = now_ns();
    w.thread_cpu_per = double(c1 - c0) / n;
    double busy = double(t1 - t0) - double(i1 - i0);
    w.hidden_per = std::max(0.0, (busy - double(c1 - c0)) / n);
  });
  t.join();
  return w;
}

// ns per call of f, the median of batches.
double per_call(const std::function<void()>& f, int batches = 50, int per = 100) {
  std::vector<double> v;
  for (int b = 0; b < batches; b++) {
    uint64_t t0 = now_ns();
    for (int i = 0; i < per; i++) f();
    v.push_back(double(now_ns() - t0) / per);
  }
  return median(v);
}

struct Run {
  double iops = 0, cpu_per_io = 0, hidden_per_io = 0;
  std::vector<double> lat_ns;
};

void check(int r, const char* what) {
  if (r < 0) throw std::runtime_error(std::string(what) + ": " + hio_last_error());
}

// QD `depth` random reads of `bs` on `spec` for `seconds`, waiting by `mode`,
// on `cpu`.
Run io_run(const std::string& spec, hio_wait_mode mode, uint32_t bs, unsigned depth, double seconds, int cpu,
           uint64_t size) {
  Run out;
  std::exception_ptr err;
  std::thread t([&] {
    try {
      pin(cpu);
      hio_engine* e = nullptr;
      check(hio_engine_create(&e), "hio_engine_create");
      std::unique_ptr<hio_engine, void (*)(hio_engine*)> eg(e, hio_engine_destroy);
      hio_queue_opts qo;
      hio_queue_opts_init(&qo, sizeof qo);
      qo.depth = depth;
      qo.strategy.mode = mode;
      // Declared before the queue, so freed after it: destroying the queue
      // waits for the reads still in flight, which write into it.
      std::unique_ptr<void, void (*)(void*)> bg(nullptr, std::free);
      hio_queue* q = nullptr;
      check(hio_queue_create(e, &qo, &q), "hio_queue_create");
      std::unique_ptr<hio_queue, void (*)(hio_queue*)> qg(q, hio_queue_destroy);
      hio_open_opts oo;
      hio_open_opts_init(&oo, sizeof oo);
      oo.flags = spec.rfind("emu:", 0) == 0 ? 0 : HIO_OPEN_DIRECT | HIO_OPEN_RDONLY;
      oo.size = size;
      int tgt = hio_queue_open(q, spec.c_str(), &oo);
      check(tgt, spec.c_str());
      hio_target_info info{};
      info.struct_size = sizeof info;
      check(hio_target_info_get(q, tgt, &info), "hio_target_info_get");
      size_t align = std::max<size_t>(4096, info.mem_align);
      void* buf = std::aligned_alloc(align, size_t(bs) * depth);
      bg.reset(buf);
      uint64_t blocks = info.size / bs, x = 88172645463325252ull;
      auto rnd = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
      };
      auto io = [&](unsigned slot) {
        return hio_io{HIO_OP_READ, tgt, static_cast<char*>(buf) + size_t(slot) * bs, bs, (rnd() % blocks) * bs, slot};
      };
      for (unsigned i = 0; i < depth; i++) {
        hio_io c = io(i);
        check(hio_submit(q, &c, 1, 0), "hio_submit");
      }
      std::vector<hio_completion> comps(depth);
      uint64_t n = 0, c0 = thread_cpu_ns(), i0 = core_idle_ns(cpu), t0 = now_ns();
      uint64_t end = t0 + uint64_t(seconds * 1e9);
      while (now_ns() < end) {
        int got = hio_reap(q, comps.data(), depth, 1);
        check(got, "hio_reap");
        for (int i = 0; i < got; i++) {
          if (comps[size_t(i)].res < 0) throw std::runtime_error("a read of " + spec + " failed");
          out.lat_ns.push_back(double(comps[size_t(i)].lat_ns));
          hio_io c = io(unsigned(comps[size_t(i)].tag));
          check(hio_submit(q, &c, 1, 0), "hio_submit");
        }
        n += unsigned(got);
      }
      uint64_t c1 = thread_cpu_ns(), i1 = core_idle_ns(cpu), t1 = now_ns();
      out.iops = double(n) * 1e9 / double(t1 - t0);
      out.cpu_per_io = double(c1 - c0) / double(n);
      double busy = double(t1 - t0) - double(i1 - i0);
      out.hidden_per_io = std::max(0.0, (busy - double(c1 - c0)) / double(n));
    } catch (...) {
      err = std::current_exception();
    }
  });
  t.join();
  if (err) std::rethrow_exception(err);
  return out;
}

// A context switch: two threads on one core hand a byte back and forth
// through two pipes; half a round trip is one switch plus a write and a
// read, which are timed alone on a pipe that never blocks.
double switch_ns(int cpu) {
  int a[2], b[2], c[2];
  if (pipe(a) || pipe(b) || pipe(c)) throw std::runtime_error("pipe: " + std::string(std::strerror(errno)));
  constexpr int kRounds = 20000;
  char ch = 0;
  std::thread peer([&] {
    pin(cpu);
    char x;
    for (int i = 0; i < kRounds; i++) {
      if (read(a[0], &x, 1) != 1 || write(b[1], &x, 1) != 1) break;
    }
  });
  double half = 0;
  std::thread([&] {
    pin(cpu);
    char x;
    uint64_t t0 = now_ns();
    for (int i = 0; i < kRounds; i++) {
      if (write(a[1], &ch, 1) != 1 || read(b[0], &x, 1) != 1) break;
    }
    half = double(now_ns() - t0) / (2.0 * kRounds);
  }).join();
  peer.join();
  double rw = per_call([&] {
    char x;
    if (write(c[1], &ch, 1) == 1) (void)!read(c[0], &x, 1);
  });
  for (int fd : {a[0], a[1], b[0], b[1], c[0], c[1]}) close(fd);
  return std::max(200.0, half - rw);
}

// One io_uring_enter that submits a no-op and returns: a system call of the ring.
double ring_syscall_ns() {
  io_uring ring;
  if (io_uring_queue_init(8, &ring, 0) < 0) return 0;
  double ns = per_call([&] {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_nop(sqe);
    io_uring_submit(&ring);
    io_uring_cqe* cqe;
    if (io_uring_peek_cqe(&ring, &cqe) == 0) io_uring_cqe_seen(&ring, cqe);
  });
  io_uring_queue_exit(&ring);
  return ns;
}

json machine_facts(int cpu) {
  json f;
  utsname u{};
  uname(&u);
  f["kernel"] = std::string(u.release);
  f["cpus_online"] = sysconf(_SC_NPROCESSORS_ONLN);
  f["measured_on_cpu"] = cpu;
  f["clocksource"] = read_text("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  f["cpuidle_driver"] = read_text("/sys/devices/system/cpu/cpuidle/current_driver");
  f["cpuidle_governor"] = read_text("/sys/devices/system/cpu/cpuidle/current_governor_ro");
  json states = json::array();
  for (int s = 0;; s++) {
    std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle/state" + std::to_string(s);
    std::string name = read_text(base + "/name");
    if (name.empty()) break;
    states.push_back({{"name", name},
                      {"exit_latency_us", std::atoi(read_text(base + "/latency").c_str())},
                      {"target_residency_us", std::atoi(read_text(base + "/residency").c_str())}});
  }
  f["cpuidle_states"] = states;
  json hp;
  for (const char* k : {"guest_halt_poll_ns", "guest_halt_poll_grow", "guest_halt_poll_shrink",
                        "guest_halt_poll_grow_start", "guest_halt_poll_allow_shrink"}) {
    std::string v = read_text(std::string("/sys/module/haltpoll/parameters/") + k);
    if (!v.empty()) hp[k] = v;
  }
  if (!hp.empty()) f["haltpoll"] = hp;
  // CONFIG_HZ from the kernel's own configuration, where it publishes it.
  if (gzFile z = gzopen("/proc/config.gz", "rb")) {
    char line[256];
    while (gzgets(z, line, sizeof line))
      if (std::strncmp(line, "CONFIG_HZ=", 10) == 0) f["hz"] = std::atoi(line + 10);
    gzclose(z);
  }
  return f;
}

bool kernel_has_eevdf(const std::string& release) {
  int major = 0, minor = 0;
  std::sscanf(release.c_str(), "%d.%d", &major, &minor);
  return major > 6 || (major == 6 && minor >= 6);
}

void say(const CalibrateArgs& a, const char* what) {
  if (!a.quiet) std::fprintf(stderr, "calibrate: %s\n", what);
}

// What reading each of the governor's signals costs on cpu.
struct CounterReads {
  double clock_ns, thread_clock_ns, idle_read_ns;
};

CounterReads counter_reads(int cpu) {
  char buf[512];
  std::string state0 = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpuidle/state0/time";
  int sfd = open(state0.c_str(), O_RDONLY | O_CLOEXEC);
  CounterReads r;
  r.clock_ns = per_call([] { (void)now_ns(); });
  r.thread_clock_ns = per_call([] { (void)thread_cpu_ns(); });
  r.idle_read_ns = sfd >= 0 ? per_call([&] { (void)!pread(sfd, buf, sizeof buf, 0); }) : 1500;
  if (sfd >= 0) close(sfd);
  return r;
}

// What the library measures a sleep to cost (WakeCost), 20 times over on cpu.
void library_wakes(int cpu, std::vector<double>& wcpu, std::vector<double>& wlate) {
  std::thread([&] {
    pin(cpu);
    for (int i = 0; i < 20; i++) {
      WakeCost w = measure_wake_cost(32);
      wcpu.push_back(w.cpu_ns);
      wlate.push_back(w.late_ns);
    }
  }).join();
}

// A sleep's three parts (SleepCost, docs/simulator.md): on a busy core (a
// SCHED_IDLE spinner beside, which a woken thread preempts at once) a long
// sleep's lateness is interrupt + switch + wake-up and its CPU is the way
// in + the wake-up + the switch; a sleep so short that it ends on the way
// in costs the way in and the way back.
SleepCost split_sleep(double short_cpu, double busy_cpu, double busy_late, double irq, double sw_ns) {
  SleepCost c;
  c.wake_ns = Time(std::max(0.0, busy_late - irq - sw_ns));
  c.block_ns = Time(std::max(0.0, busy_cpu - double(c.wake_ns) - sw_ns));
  c.unblock_ns = Time(std::max(0.0, short_cpu - double(c.block_ns)));
  return c;
}

// Timer sleeps on a busy core, too short to block, and on an idle core; an
// interrupt's cost, and a timer sleep's parts, from them.
struct TimerSleeps {
  Wakes busy, too_short, idle;
  double irq_ns;
  SleepCost cost;
};

TimerSleeps timer_sleeps(int cpu, double sw_ns) {
  TimerSleeps t;
  {
    IdleSpinner spin(cpu);
    t.busy = timer_wakes(cpu, 3000);
  }
  t.too_short = timer_wakes(cpu, 3000, 1000);
  t.idle = timer_wakes(cpu, 3000);
  t.irq_ns = std::max(200.0, t.idle.hidden_per);
  t.cost = split_sleep(t.too_short.thread_cpu_per, t.busy.thread_cpu_per, median(t.busy.late_ns), t.irq_ns, sw_ns);
  return t;
}

std::string emu_spec(double lat_us) { return "emu:lat_us=" + std::to_string(lat_us) + ",jitter_us=0,iops=100000000"; }

// The emulated backend: its CPU per I/O, a wait's parts, and what a wake-up
// after 1 us to 1 ms of idle adds.
struct EmuBackend {
  Run fast, too_short, busy;
  double io_ns, busy_late;
  SleepCost wait;
  json exits = json::object(), idle_late = json::object();
};

EmuBackend emu_backend(int cpu, double irq_ns, double sw_ns) {
  EmuBackend e;
  e.fast = io_run(emu_spec(1), HIO_WAIT_POLL, 4096, 1, 0.3, cpu, 1ull << 30);
  e.io_ns = std::max(100.0, 1e9 / e.fast.iops - 1000);
  e.too_short = io_run(emu_spec(1), HIO_WAIT_INTERRUPT, 4096, 1, 0.3, cpu, 1ull << 30);
  {
    IdleSpinner spin(cpu);
    e.busy = io_run(emu_spec(100), HIO_WAIT_INTERRUPT, 4096, 1, 0.5, cpu, 1ull << 30);
  }
  e.busy_late = mean(e.busy.lat_ns) - 100'000;
  e.wait = split_sleep(e.too_short.cpu_per_io - e.io_ns, e.busy.cpu_per_io - e.io_ns, e.busy_late, irq_ns, sw_ns);
  // Waking on an idle core costs more the longer it idled (a deeper C-state;
  // a guest's host stops polling for its vCPU): what an idle core adds to
  // the busy core's lateness, by how long it idled.
  for (double us : {6.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0, 200.0, 500.0, 1000.0}) {
    Run r = io_run(emu_spec(us), HIO_WAIT_INTERRUPT, 4096, 1, us >= 500 ? 0.6 : 0.3, cpu, 1ull << 30);
    double idled = std::max(0.0, us * 1000 - double(e.wait.block_ns));
    std::vector<double> extra;
    for (double l : r.lat_ns) extra.push_back(std::max(0.0, l - us * 1000 - e.busy_late));
    e.exits[std::to_string(uint64_t(idled))] = quantile_list(extra);
    e.idle_late[std::to_string(uint64_t(us * 1000))] = std::round(mean(r.lat_ns) - us * 1000);
  }
  return e;
}

json cost_json(const SleepCost& c) {
  return json{{"block_ns", c.block_ns}, {"unblock_ns", c.unblock_ns}, {"wake_ns", c.wake_ns}};
}

// The measurements behind the profile's figures, kept in its "about".
json measured_json(const TimerSleeps& timer, const EmuBackend& emu) {
  return {
      {"timer_sleep_busy_core_late_ns", quantile_list(timer.busy.late_ns)},
      {"timer_sleep_cpu_ns",
       {{"busy_core", std::round(timer.busy.thread_cpu_per)},
        {"idle_core", std::round(timer.idle.thread_cpu_per)},
        {"too_short_to_block", std::round(timer.too_short.thread_cpu_per)}}},
      {"hidden_busy_per_wake_ns", std::round(timer.idle.hidden_per)},
      {"emu_poll_iops_at_1us", std::round(emu.fast.iops)},
      {"emu_interrupt_cpu_per_io_ns",
       {{"at_1us", std::round(emu.too_short.cpu_per_io)}, {"at_100us_busy_core", std::round(emu.busy.cpu_per_io)}}},
      {"emu_interrupt_late_ns_by_latency_idle_core", emu.idle_late},
      {"emu_interrupt_late_ns_at_100us_busy_core", std::round(emu.busy_late)},
  };
}

// The disk file, file_mb MiB, where it is missing.
void write_disk_file(const CalibrateArgs& a) {
  if (access(a.file.c_str(), R_OK) == 0) return;
  say(a, "writing the disk file");
  std::FILE* f = std::fopen(a.file.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot create " + a.file + ": " + std::strerror(errno));
  std::vector<char> chunk(1 << 20, 'h');
  for (uint64_t w = 0; w < a.file_mb; w++) std::fwrite(chunk.data(), 1, chunk.size(), f);
  std::fclose(f);
}

// The disk's drift from second to second: the spread of log IOPS, and its
// correlation from one second to the next.
std::pair<double, double> disk_drift(const CalibrateArgs& a, int cpu) {
  std::vector<double> logs;
  logs.reserve(6);
  for (int i = 0; i < 6; i++) logs.push_back(std::log(io_run(a.file, HIO_WAIT_POLL, 4096, 1, a.seconds, cpu, 0).iops));
  double lm = mean(logs), var = 0, cov = 0;
  for (double l : logs) var += (l - lm) * (l - lm) / double(logs.size());
  for (size_t i = 1; i < logs.size(); i++) cov += (logs[i] - lm) * (logs[i - 1] - lm) / double(logs.size());
  return {std::sqrt(var), var > 0 ? std::clamp(cov / var, 0.0, 0.95) : 0.5};
}

// The disk: its interface and device into profile p, what was measured of
// it into measured.
void calibrate_disk(const CalibrateArgs& a, int cpu, const EmuBackend& emu, double irq_ns, double sw_ns, json& p,
                    json& measured) {
  write_disk_file(a);
  say(a, "the disk: latency per size by polling, interrupts on an idle and a busy core");
  double syscall_ns = ring_syscall_ns();
  double disk_io_ns = emu.io_ns + syscall_ns;
  Run intr = io_run(a.file, HIO_WAIT_INTERRUPT, 4096, 1, a.seconds, cpu, 0);
  Run intr_busy;
  {
    IdleSpinner spin(cpu);
    intr_busy = io_run(a.file, HIO_WAIT_INTERRUPT, 4096, 1, a.seconds, cpu, 0);
  }
  // The interrupt's handler runs on the core beside our sleeping thread.
  double disk_irq_ns = std::max(irq_ns, intr.hidden_per_io);
  json lat;
  double lat4k_mean = 0, poll_lat_mean = 0;
  for (uint32_t bs : {4096u, 16384u, 65536u, 262144u}) {
    Run r = io_run(a.file, HIO_WAIT_POLL, bs, 1, a.seconds, cpu, 0);
    std::vector<double> dev;
    for (double l : r.lat_ns) dev.push_back(std::max(1000.0, l - disk_io_ns - disk_irq_ns));
    lat[std::to_string(bs)] = quantile_list(dev);
    if (bs == 4096) {
      poll_lat_mean = mean(r.lat_ns);
      lat4k_mean = mean(dev);
      measured["disk_poll_iops_4k"] = std::round(r.iops);
    }
  }
  say(a, "the disk: depth 32, and its drift from second to second");
  Run deep = io_run(a.file, HIO_WAIT_INTERRUPT, 4096, 32, a.seconds, cpu, 0);
  auto [drift_sd, drift_corr] = disk_drift(a, cpu);
  // A disk wait blocks on the ring without a timer: its way back measured
  // as what interrupts add to polling's latency beside a busy core; one
  // that ends before it blocks taken to cost what the emulated backend's does.
  SleepCost disk_wait = split_sleep(emu.too_short.cpu_per_io - emu.io_ns, intr_busy.cpu_per_io - disk_io_ns,
                                    mean(intr_busy.lat_ns) - poll_lat_mean + disk_irq_ns, disk_irq_ns, sw_ns);
  json disk_if = cost_json(disk_wait);
  disk_if["io_ns"] = std::round(disk_io_ns);
  disk_if["irq_ns"] = std::round(disk_irq_ns);
  p["interfaces"]["disk"] = disk_if;
  p["devices"]["disk"] = {{"channels", std::max(1.0, std::round(deep.iops * lat4k_mean / 1e9))},
                          {"iops", 0},
                          {"drift_sd", drift_sd},
                          {"drift_corr_1s", drift_corr},
                          {"latency_ns", lat}};
  measured["disk_file"] = a.file;
  measured["disk_interrupt_iops_4k"] = std::round(intr.iops);
  measured["disk_interrupt_cpu_per_io_ns"] = {{"idle_core", std::round(intr.cpu_per_io)},
                                              {"busy_core", std::round(intr_busy.cpu_per_io)}};
  measured["disk_interrupt_hidden_per_io_ns"] = std::round(intr.hidden_per_io);
  measured["disk_lat_mean_ns"] = {{"poll", std::round(poll_lat_mean)},
                                  {"interrupt_idle_core", std::round(mean(intr.lat_ns))},
                                  {"interrupt_busy_core", std::round(mean(intr_busy.lat_ns))}};
  measured["disk_qd32_interrupt_iops"] = std::round(deep.iops);
  measured["ring_syscall_ns"] = std::round(syscall_ns);
}

}  // namespace

int calibrate(const CalibrateArgs& a) {
  int ncpu = int(sysconf(_SC_NPROCESSORS_ONLN));
  int cpu = a.cpu < 0 ? ncpu - 1 : a.cpu;
  if (cpu >= ncpu) {
    std::fprintf(stderr, "hio-sim calibrate: --cpu %d does not exist (this machine has %d)\n", cpu, ncpu);
    return 2;
  }
  json facts = machine_facts(cpu);
  say(a, "a context switch, and what a counter read costs");
  double sw_ns = switch_ns(cpu);
  CounterReads reads = counter_reads(cpu);
  say(a, "what the library measures a sleep to cost");
  std::vector<double> wcpu, wlate;
  library_wakes(cpu, wcpu, wlate);
  say(a, "timer sleeps: on a busy core, and too short to block");
  TimerSleeps timer = timer_sleeps(cpu, sw_ns);
  say(a, "the emulated backend: its CPU per I/O, its waits, and a wake-up after 1 us to 1 ms of idle");
  EmuBackend emu = emu_backend(cpu, timer.irq_ns, sw_ns);

  json p;
  p["name"] = a.name;
  p["cores"] = ncpu;
  p["online_cpus"] = ncpu;
  p["scheduler"] = {{"kind", kernel_has_eevdf(facts["kernel"]) ? "eevdf" : "cfs"}, {"hz", facts.value("hz", 250)}};
  std::string hp = facts.contains("haltpoll") ? facts["haltpoll"].value("guest_halt_poll_ns", "0") : "0";
  p["idle"] = {{"poll_window_ns", std::atof(hp.c_str())}, {"exit_ns", emu.exits}, {"poll_exit_ns", 0}};
  p["irq_ns"] = std::round(timer.irq_ns);
  p["switch_ns"] = std::round(sw_ns);
  p["sleep"] = cost_json(timer.cost);
  p["reads"] = {{"clock_ns", std::round(reads.clock_ns)},
                {"thread_clock_ns", std::round(reads.thread_clock_ns)},
                {"idle_read_ns", std::round(reads.idle_read_ns)},
                {"idle_states", std::max<size_t>(1, facts["cpuidle_states"].size())}};
  p["library_wake_cost"] = {{"cpu_ns", std::round(median(wcpu))}, {"late_ns", std::round(median(wlate))}};
  json emu_if = cost_json(emu.wait);
  emu_if["io_ns"] = std::round(emu.io_ns);
  p["interfaces"]["emu"] = emu_if;
  json measured = measured_json(timer, emu);
  if (!a.file.empty()) calibrate_disk(a, cpu, emu, timer.irq_ns, sw_ns, p, measured);
  p["about"] = {{"made_by", "hio-sim calibrate"}, {"machine", facts}, {"measured", measured}};
  // The profile must read back: the simulator's own check of what it wrote.
  Profile::from_json(p, a.out);
  std::ofstream o(a.out);
  if (!o) throw std::runtime_error("cannot write " + a.out);
  o << p.dump(2) << "\n";
  say(a, ("wrote " + a.out).c_str());
  return 0;
}

}  // namespace hio::sim
