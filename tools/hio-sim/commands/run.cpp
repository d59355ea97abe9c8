// SPDX-License-Identifier: MIT
#include "commands/run.hpp"

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "scenario/compare.hpp"

namespace hio::sim {

int run_command(const RunArgs& a) {
  Profile p = Profile::load(Profile::resolve(a.profile, a.profiles));
  Trace trace;
  Scenario s;
  s.device = a.device;
  s.interface = a.interface;
  s.cores = a.cores;
  s.threads_per_core = a.threads;
  s.io.depth = a.depth;
  s.io.bs = a.bs;
  s.io.rate_iops = a.rate;
  s.io.policy = a.policy;
  s.reaper_period_ns = a.poll_period_us == "auto" ? HIO_POLL_PERIOD_AUTO : Time(std::stod(a.poll_period_us) * 1e3);
  if (!a.trace.empty()) {
    trace = Trace::load(a.trace.find('/') == std::string::npos ? a.traces + "/" + a.trace + ".csv.gz" : a.trace);
    s.io.trace = &trace;
  }
  s.neighbour = NeighbourSpec::parse(a.neighbour);
  s.duration_ns = Time(a.seconds * 1e9);
  s.warmup_ns = std::min<Time>(100'000'000, s.duration_ns / 10);
  s.seed = a.seed;
  s.tick_log = a.tick_log;
  Comparison c = compare(s, p, a.strategies);
  nlohmann::json out = nlohmann::json::array();
  if (a.format == "normal")
    std::printf("%s on %s (%s), neighbour %s, %d core(s) x %d thread(s), depth %u, %.2f s simulated\n", p.name.c_str(),
                a.device.c_str(), s.interface.empty() ? p.default_interface(a.device).c_str() : s.interface.c_str(),
                a.neighbour.c_str(), a.cores, a.threads, a.depth, a.seconds);
  for (const std::string& st : a.strategies) {
    const Result& r = c.runs.at(st);
    bool own = st == "adaptive-own";
    if (a.format == "json") {
      out.push_back(
          {{"strategy", st},
           {"iops", r.iops},
           {"lat_mean_ns", r.lat_mean_ns},
           {"cpu_ns_per_io", r.cpu_ns_per_io},
           {"neighbour_cores", r.neighbour_cores},
           {"own", c.own(st)},
           {"shared", c.shared(st)},
           {"mode_share", {{"interrupt", r.mode_share[0]}, {"poll", r.mode_share[1]}, {"hybrid", r.mode_share[2]}}},
           {"governor_samples", r.governor_samples},
           {"events", r.events}});
    } else {
      std::printf("  %-12s %9.0f IOPS  %7.1f us  %6.2f us CPU/IO  neighbour %.3f cores  own %.3f  shared %.3f",
                  st.c_str(), r.iops, r.lat_mean_ns / 1e3, r.cpu_ns_per_io / 1e3, r.neighbour_cores, c.own(st),
                  c.shared(st));
      if (st == "reaper")
        std::printf("  (completion thread: %.3f cores, mean period %.1f us)", r.reaper_cores, r.reaper_period_ns / 1e3);
      if (!is_static(st))
        std::printf("  (interrupt %.2f, poll %.2f, hybrid %.2f of the time%s)", r.mode_share[0], r.mode_share[1],
                    r.mode_share[2], own ? "; objective own" : "");
      std::printf("\n");
    }
  }
  if (a.format == "json") std::printf("%s\n", out.dump(1).c_str());
  return 0;
}

}  // namespace hio::sim
