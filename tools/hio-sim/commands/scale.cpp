// SPDX-License-Identifier: MIT
#include "commands/scale.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"

namespace hio::sim {

int scale(const ScaleArgs& a) {
  Profile bare = Profile::load(Profile::resolve("baremetal", a.profiles));
  nlohmann::json points = nlohmann::json::array();
  std::printf("%6s %8s %12s %14s %16s %18s %16s\n", "cores", "devices", "sim s/s", "events/s", "samples/core/s",
              "gov CPU ns/sample", "host ns/wait");
  for (int n : a.cores) {
    if (n < 1) throw std::invalid_argument("--cores: a count of at least 1");
    Profile p = bare;
    p.cores = n;
    p.online_cpus = n;
    p.sched = SchedulerParams::for_kernel(p.sched.kind, n, p.sched.tick_ns);
    Scenario s;
    s.device = "pcie4";
    s.devices = std::min(8, n);
    s.cores = n;
    s.neighbour = NeighbourSpec::parse("random:50");
    s.neighbour_cores = n / 2;
    s.io.wait = Wait::adaptive;
    s.duration_ns = Time(a.seconds * 1e9);
    s.warmup_ns = s.duration_ns / 10;
    auto t0 = std::chrono::steady_clock::now();
    Result r = run(s, p);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double sim_per_s = a.seconds / wall;
    double samples_per_core_s = double(r.governor_samples) / n / a.seconds;
    points.push_back({{"cores", n},
                      {"devices", s.devices},
                      {"simulated_s_per_wall_s", sim_per_s},
                      {"events_per_wall_s", double(r.events) / wall},
                      {"iops", r.iops},
                      {"governor_samples_per_core_s", samples_per_core_s},
                      {"governor_cpu_ns_per_sample", r.governor_cpu_ns_per_sample},
                      {"governor_cpu_share_per_core", r.governor_cpu_ns_per_sample * samples_per_core_s / 1e9},
                      {"policy_host_ns_per_wait", r.policy_host_ns_per_wait}});
    std::printf("%6d %8d %12.3f %14.0f %16.0f %18.0f %16.0f\n", n, s.devices, sim_per_s, double(r.events) / wall,
                samples_per_core_s, r.governor_cpu_ns_per_sample, r.policy_host_ns_per_wait);
  }
  std::ofstream(a.out + "/scale.json") << nlohmann::json{{"profile", bare.name}, {"points", points}}.dump(1) << "\n";
  std::printf("%s/scale.json\n", a.out.c_str());
  return 0;
}

}  // namespace hio::sim
