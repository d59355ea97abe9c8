// SPDX-License-Identifier: MIT
// One simulated experiment: a machine profile, a device, our I/O threads on
// some cores waiting one way, the neighbours beside them, for a while; and
// what it measured: our IOPS, latency and CPU per I/O, the neighbours' CPU,
// both per millisecond, and when adaptive changed its mind.
#pragma once
#include <string>
#include <vector>

#include "model/profile.hpp"
#include "workload/io_thread.hpp"
#include "workload/trace.hpp"

namespace hio::sim {

struct NeighbourSpec {
  enum Kind { none, steady, bursts, random_bursts, busy, cpulimit };
  Kind kind = none;
  double load_pct = 100;       // steady (stress-ng --cpu-load), cpulimit
  Time on_ns = 0, off_ns = 0;  // bursts: fixed lengths; random_bursts: their means
  std::string name() const;
  // "none", "steady:50", "bursts:20" (20 ms on, 20 off), "random:50",
  // "busy", "cpulimit:10". Throws std::invalid_argument naming the bad text.
  static NeighbourSpec parse(const std::string& s);
};

struct Scenario {
  std::string device = "pcie4";
  int devices = 1;        // of that kind: thread k on device k % devices
  std::string interface;  // empty: the profile's default for the device
  int cores = 1;          // our threads' cores, 0..cores-1 (neighbours beside them there)
  int threads_per_core = 1;
  int neighbour_cores = -1;  // cores with a neighbour (the first ones); -1: every one of ours
  IoSpec io;
  // io.wait == reaper: the completion thread's poll period, ns, as the
  // library's: 0 spins, HIO_POLL_PERIOD_AUTO is its automatic one. It runs
  // on the next core past ours where the machine has one, or with
  // reaper_beside on our first core, beside our threads and the neighbour.
  Time reaper_period_ns = HIO_POLL_PERIOD_AUTO;
  bool reaper_beside = false;
  NeighbourSpec neighbour;
  Time duration_ns = 1'000'000'000;
  Time warmup_ns = 100'000'000;  // not measured: the queue's start and the first ticks
  uint64_t seed = 1;
  std::string tick_log;  // a file for the adaptive queues' tick log (docs/adaptive.md); empty: none
};

struct Result {
  double iops = 0;  // our threads together
  double lat_mean_ns = 0;
  double cpu_ns_per_io = 0;    // our threads' CPU per completion
  double neighbour_cores = 0;  // the neighbours' CPU over the window, in cores (their CPU clocks)
  double neighbour_work = 0;   // of which their own work, in cores: less the switches and interrupts that hit them
  double window_s = 0;
  Time bin_ns = 1'000'000;
  std::vector<double> io_bins, neighbour_bins;  // per bin from time 0: completions; neighbour CPU (ns)
  std::vector<std::pair<Time, Mode>> settled;   // the first adaptive thread's settled mode, as it changed
  std::vector<std::pair<Time, bool>> changes;   // the first core's neighbour: (time, on)
  std::array<double, kModes> mode_share{};      // adaptive: share of its ticks' time per mode
  uint64_t governor_samples = 0;
  double governor_cpu_ns_per_sample = 0;  // simulated: the reads a sample makes, at their measured cost
  double policy_host_ns_per_wait = 0;     // this program's own time in the library's adaptive code per wait
  uint64_t events = 0;
  double reaper_cores = 0;      // the completion thread's CPU, in cores
  double reaper_period_ns = 0;  // its mean sleep
};

// Runs it; throws std::runtime_error (or invalid_argument) on a bad scenario.
Result run(const Scenario& s, const Profile& p);

// Its neighbours with no I/O of ours: the reference their progress beside
// us is counted against.
Result run_neighbour_alone(const Scenario& s, const Profile& p);

}  // namespace hio::sim
