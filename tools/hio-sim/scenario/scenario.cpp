// SPDX-License-Identifier: MIT
#include "scenario/scenario.hpp"

#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "adaptive/governor.hpp"
#include "adaptive/tick_log.hpp"
#include "model/sim_signals.hpp"
#include "workload/neighbour.hpp"

namespace hio::sim {
namespace {

constexpr Time kMs = 1'000'000;

double number(const std::string& text, const std::string& all) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end || !(v >= 0))
    throw std::invalid_argument("neighbour '" + all + "': '" + text + "' is not a number >= 0");
  return v;
}

// Samples the neighbours' CPU clocks every bin, and their own work at the
// window's edges.
class Sampler final : public Handler {
 public:
  Sampler(Machine& m, std::vector<Task*> tasks, Time bin, Time from, Time to)
      : m_(m), tasks_(std::move(tasks)), bin_(bin), from_(from), to_(to) {}
  void start() { m_.events().at(bin_, this, 0); }
  void fire(Time now, int, uint64_t) override {
    uint64_t sum = 0, work = 0;
    for (Task* t : tasks_) {
      sum += m_.task_cpu_ns(*t);
      work += t->progress_ns;
    }
    bins_.push_back(double(sum - last_));
    last_ = sum;
    if (now == from_) work_from_ = work;
    if (now == to_) work_to_ = work;
    m_.events().at(now + bin_, this, 0);
  }
  const std::vector<double>& bins() const { return bins_; }
  double work() const { return double(work_to_ - work_from_); }

 private:
  Machine& m_;
  std::vector<Task*> tasks_;
  Time bin_, from_, to_;
  uint64_t last_ = 0, work_from_ = 0, work_to_ = 0;
  std::vector<double> bins_;
};

double window_sum(const std::vector<double>& bins, Time bin, Time from, Time to) {
  double s = 0;
  for (size_t i = size_t(from / bin); i < bins.size() && Time(i) * bin < to; i++) s += bins[i];
  return s;
}

}  // namespace

std::string NeighbourSpec::name() const {
  auto ms = [](Time t) { return std::to_string(t / kMs); };
  switch (kind) {
    case none: return "none";
    case steady: return "steady:" + std::to_string(int(load_pct));
    case bursts: return "bursts:" + ms(on_ns);
    case random_bursts: return "random:" + ms(on_ns);
    case busy: return "busy";
    case cpulimit: return "cpulimit:" + std::to_string(int(load_pct));
  }
  return "?";
}

NeighbourSpec NeighbourSpec::parse(const std::string& s) {
  NeighbourSpec n;
  auto colon = s.find(':');
  std::string kind = s.substr(0, colon), arg = colon == std::string::npos ? "" : s.substr(colon + 1);
  if (kind == "none" && arg.empty()) return n;
  if (kind == "busy" && arg.empty()) {
    n.kind = busy;
    return n;
  }
  if (kind == "steady" || kind == "cpulimit") {
    n.kind = kind == "steady" ? steady : cpulimit;
    n.load_pct = number(arg, s);
    if (n.load_pct <= 0 || n.load_pct > 100) throw std::invalid_argument("neighbour '" + s + "': a load of 1..100%");
    return n;
  }
  if (kind == "bursts" || kind == "random") {
    n.kind = kind == "bursts" ? bursts : random_bursts;
    double ms = number(arg, s);
    if (ms <= 0) throw std::invalid_argument("neighbour '" + s + "': a burst of more than 0 ms");
    n.on_ns = n.off_ns = Time(ms * 1e6);
    return n;
  }
  throw std::invalid_argument("unknown neighbour '" + s +
                              "' (none, busy, steady:PCT, cpulimit:PCT, bursts:MS, random:MS)");
}

namespace {

// Our threads, the helpers that serve them, and the neighbours: what a
// scenario spawns on its machine, kept until the machine is done with them.
struct Population {
  std::vector<std::unique_ptr<IoThread>> ours;
  std::vector<std::unique_ptr<SqThread>> sqs;
  std::unique_ptr<Reaper> reaper;
  Task* reaper_task = nullptr;
  std::vector<std::unique_ptr<Behaviour>> loops;
  std::vector<std::unique_ptr<OnOff>> onoff;
  std::vector<std::unique_ptr<CpuLimit>> limits;
  std::vector<Task*> neighbours;
};

// The threads per core of each of s's cores, spread over the devices, with
// the SQ-polling kernel threads or completion thread their wait needs.
void spawn_ours(Machine& m, SimSignals& sig, Governor& gov, const Interface& io,
                const std::vector<std::unique_ptr<Device>>& devs, const Scenario& s, const Profile& p, Rng& seeds,
                Time bin_ns, Population& pop) {
  if (s.io.wait == Wait::reaper) {
    pop.reaper = std::make_unique<Reaper>(m, sig, gov, io, s.reaper_period_ns);
    pop.reaper_task =
        &m.spawn("reaper", !s.reaper_beside && p.cores > s.cores ? s.cores : 0, Role::helper, pop.reaper.get());
    pop.reaper->bind(*pop.reaper_task);
  }
  for (int c = 0; c < s.cores; c++)
    for (int k = 0; k < s.threads_per_core; k++) {
      IoSpec spec = s.io;
      if (spec.trace) spec.trace_start = size_t(seeds.next() % spec.trace->records.size());
      spec.measures_wake = spec.wait == Wait::adaptive && pop.ours.empty();
      Device& dev = *devs[pop.ours.size() % devs.size()];
      pop.ours.push_back(std::make_unique<IoThread>(m, dev, io, spec, sig, gov, bin_ns));
      IoThread& t = *pop.ours.back();
      std::string name = "io" + std::to_string(pop.ours.size());
      Time start = Time(seeds.uniform() * 1e5);
      if (spec.wait == Wait::sqpoll) {
        // Without IORING_SETUP_SQ_AFF the kernel thread may run on any
        // online CPU: the simulator gives it the next core past ours where
        // the machine has one (the load balancer that moves it is left out).
        int sq_core = p.cores > s.cores ? s.cores + (c % (p.cores - s.cores)) : c;
        pop.sqs.push_back(std::make_unique<SqThread>(m, io.io_ns));
        pop.sqs.back()->bind(m.spawn(name + "-sq", sq_core, Role::helper, pop.sqs.back().get(), start));
        t.set_sq(pop.sqs.back().get());
      }
      if (pop.reaper) {
        t.set_reaper(pop.reaper.get());
        pop.reaper->add(&t);
      }
      m.spawn(name, c, Role::ours, &t, start);
    }
}

// One neighbour on each of the first neighbour_cores of s's cores, switched
// on and off (bursts) or capped (cpulimit) as s's neighbour says.
void spawn_neighbours(Machine& m, const Scenario& s, Rng& nseeds, Population& pop) {
  if (s.neighbour.kind == NeighbourSpec::none) return;
  int ncores = s.neighbour_cores < 0 ? s.cores : std::min(s.neighbour_cores, s.cores);
  for (int c = 0; c < ncores; c++) {
    if (s.neighbour.kind == NeighbourSpec::steady)
      pop.loops.push_back(std::make_unique<StressCpu>(s.neighbour.load_pct));
    else
      pop.loops.push_back(std::make_unique<BusyLoop>());
    Task& t = m.spawn("neighbour" + std::to_string(c), c, Role::neighbour, pop.loops.back().get());
    pop.neighbours.push_back(&t);
    if (s.neighbour.kind == NeighbourSpec::bursts || s.neighbour.kind == NeighbourSpec::random_bursts) {
      pop.onoff.push_back(std::make_unique<OnOff>(m, t, s.neighbour.on_ns, s.neighbour.off_ns,
                                                  s.neighbour.kind == NeighbourSpec::random_bursts, nseeds.next()));
      pop.onoff.back()->start(0);
    } else if (s.neighbour.kind == NeighbourSpec::cpulimit) {
      pop.limits.push_back(std::make_unique<CpuLimit>(m, t, s.neighbour.load_pct));
      pop.limits.back()->start(0);
    }
  }
}

// Our threads' completions over the measured window: the rate, the mean
// latency, and with adaptive, its time in each mode and its policy's cost.
void measure_ours(const std::vector<std::unique_ptr<IoThread>>& ours, const Scenario& s, Result& r, uint64_t* done) {
  double lat = 0;
  std::vector<double> bins;
  std::array<uint64_t, kModes> modes{};
  for (auto& t : ours) {
    *done += t->completions();
    lat += t->mean_latency_ns() * double(t->completions());
    const auto& b = t->bins();
    if (bins.size() < b.size()) bins.resize(b.size(), 0);
    for (size_t i = 0; i < b.size(); i++) bins[i] += b[i];
    auto mn = t->mode_ns();
    for (int i = 0; i < kModes; i++) modes[size_t(i)] += mn[size_t(i)];
  }
  r.io_bins = bins;
  r.window_s = double(s.duration_ns - s.warmup_ns) / 1e9;
  r.iops = window_sum(r.io_bins, r.bin_ns, s.warmup_ns, s.duration_ns) / r.window_s;
  r.lat_mean_ns = *done ? lat / double(*done) : 0;
  if (!ours.empty() && ours[0]->adaptive()) {
    r.settled = ours[0]->settled();
    double total = 0;
    for (uint64_t v : modes) total += double(v);
    for (int i = 0; i < kModes; i++) r.mode_share[size_t(i)] = total > 0 ? double(modes[size_t(i)]) / total : 0;
  }
  double waits = 0, host = 0;
  for (auto& t : ours) {
    waits += double(t->adaptive_waits());
    host += double(t->adaptive_host_ns());
  }
  r.policy_host_ns_per_wait = waits > 0 ? host / waits : 0;
}

}  // namespace

Result run(const Scenario& s, const Profile& p) {
  if (s.cores < 1 || s.cores > p.cores)
    throw std::invalid_argument("a scenario on " + std::to_string(s.cores) + " cores of a " + std::to_string(p.cores) +
                                "-core profile");
  if (s.threads_per_core < 0 || s.io.depth < 1) throw std::invalid_argument("a depth of at least 1");
  if (s.warmup_ns >= s.duration_ns) throw std::invalid_argument("the warm-up must be shorter than the run");
  Machine m(p.cores, p.sched, p.idle, p.core, s.seed);
  SimSignals sig(m, p.reads, p.library_wake);
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> log_file(nullptr, std::fclose);
  std::unique_ptr<TickLog> log;
  if (!s.tick_log.empty()) {
    log_file.reset(std::fopen(s.tick_log.c_str(), "w"));
    if (!log_file) throw std::invalid_argument("cannot write the tick log " + s.tick_log);
    log = std::make_unique<TickLog>(log_file.get(), 0);
    sig.set_tick_log(log.get());
  }
  Governor gov(p.cores, sig);
  if (s.devices < 1) throw std::invalid_argument("a scenario needs at least one device");
  std::vector<std::unique_ptr<Device>> devs;
  devs.reserve(size_t(s.devices));
  for (int d = 0; d < s.devices; d++) devs.push_back(p.device(s.device, s.seed * 7919 + 1 + uint64_t(d)));
  const Interface& io = p.interface(s.interface.empty() ? p.default_interface(s.device) : s.interface);
  Result r;
  Rng seeds(s.seed);
  // The neighbours' own stream: their schedule is the same whatever runs beside them.
  Rng nseeds = seeds.fork(0x6e65696768626f72ull);

  Population pop;
  spawn_ours(m, sig, gov, io, devs, s, p, seeds, r.bin_ns, pop);
  spawn_neighbours(m, s, nseeds, pop);
  Sampler sampler(m, pop.neighbours, r.bin_ns, s.warmup_ns / r.bin_ns * r.bin_ns, s.duration_ns / r.bin_ns * r.bin_ns);
  sampler.start();
  m.run_until(s.duration_ns);

  uint64_t done = 0;
  measure_ours(pop.ours, s, r, &done);
  r.neighbour_bins = sampler.bins();
  r.neighbour_cores = window_sum(r.neighbour_bins, r.bin_ns, s.warmup_ns, s.duration_ns) / 1e9 / r.window_s;
  r.neighbour_work = sampler.work() / 1e9 / r.window_s;
  uint64_t cpu = 0;
  for (const auto& t : m.tasks())
    if (t->role == Role::ours) cpu += m.task_cpu_ns(*t);
  r.cpu_ns_per_io = done ? double(cpu) / double(done) : 0;
  if (!pop.onoff.empty()) r.changes = pop.onoff[0]->changes();
  r.governor_samples = gov.samples();
  r.governor_cpu_ns_per_sample = gov.samples() ? double(gov.cost_ns()) / double(gov.samples()) : 0;
  r.events = m.events_fired();
  if (pop.reaper) {
    r.reaper_cores = double(m.task_cpu_ns(*pop.reaper_task)) / double(s.duration_ns);
    r.reaper_period_ns = pop.reaper->mean_period_ns();
  }
  return r;
}

Result run_neighbour_alone(const Scenario& s, const Profile& p) {
  Scenario n = s;
  n.threads_per_core = 0;
  n.tick_log.clear();
  return run(n, p);
}

}  // namespace hio::sim
