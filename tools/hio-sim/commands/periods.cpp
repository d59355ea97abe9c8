// SPDX-License-Identifier: MIT
#include "commands/periods.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include "commands/parallel.hpp"
#include "commands/suite.hpp"
#include "handle/poll_period.hpp"
#include "scenario/scenario.hpp"

namespace hio::sim {
namespace {

using nlohmann::json;
constexpr Time kMs = 1'000'000;
// The study's rule (hybridio.handles.findings): auto's IOPS against the
// best fixed period's, and its CPU against the cheapest period reaching that.
constexpr double kReach = 0.95, kCpu = 1.25;

struct Cell {
  std::string wake, device, neighbour;
  uint32_t bs = 4096;
  bool beside = false;  // the completion thread on our threads' core, beside the neighbour
  std::string name() const {
    return device + "/" + wake + "/" + neighbour + "/" + std::to_string(bs / 1024) + "k" + (beside ? "/beside" : "");
  }
};

std::vector<Cell> cells_of(const std::string& grid) {
  std::vector<std::string> wakes = {"here", "baremetal"}, devices = {"here-virtio", "pcie3", "pcie4", "optane", "nand"},
                           neighbours = {"none", "steady:25", "steady:100"};
  std::vector<uint32_t> sizes = {4096, 16384, 65536};
  std::vector<bool> places = {false, true};
  if (grid == "quick") {
    places = {false};
    wakes = {"here"};
    devices = {"pcie4", "nand"};
    neighbours = {"none", "steady:100"};
    sizes = {4096};
  } else if (grid != "full") {
    throw std::invalid_argument("unknown grid '" + grid + "' (full, quick)");
  }
  std::vector<Cell> cells;
  for (const auto& w : wakes)
    for (const auto& d : devices)
      for (const auto& n : neighbours)
        for (uint32_t bs : sizes)
          for (bool beside : places) cells.push_back({w, d, n, bs, beside});
  return cells;
}

// What one period did: IOPS, the CPU of our thread and the completion
// thread together, in cores, and the neighbour's CPU, in cores.
json figures(const Result& r) {
  double cores = r.iops * r.cpu_ns_per_io / 1e9 + r.reaper_cores;
  return {{"iops", r.iops},
          {"cpu_cores", cores},
          {"neighbour_cores", r.neighbour_cores},
          {"period_us", r.reaper_period_ns / 1e3}};
}

// Both tenants' progress, as the adaptive suite's `shared` score counts it:
// our IOPS over the best fixed period's, and the neighbour's CPU over its
// own alone. The IOPS rule alone cannot weigh a period that buys our IOPS
// with the neighbour's share of the core.
double shared(const Result& r, double best_iops, double neighbour_alone) {
  return (best_iops > 0 ? r.iops / best_iops : 0) + (neighbour_alone > 0 ? r.neighbour_cores / neighbour_alone : 0);
}

json judge(const Cell& c, const std::vector<std::pair<Time, Result>>& fixed, const Result& autor,
           double neighbour_alone) {
  json runs = json::array();
  double best = 0;
  Time best_period = 0;
  for (const auto& [period, r] : fixed) {
    json f = figures(r);
    f["fixed_us"] = double(period) / 1e3;
    runs.push_back(f);
    if (r.iops > best) {
      best = r.iops;
      best_period = period;
    }
  }
  double best_shared = 0;
  Time best_shared_period = 0;
  for (const auto& [period, r] : fixed)
    if (double v = shared(r, best, neighbour_alone); v > best_shared) {
      best_shared = v;
      best_shared_period = period;
    }
  double floor = 0;
  Time floor_period = 0;
  for (size_t k = 0; k < fixed.size(); k++) {
    double cores = runs[k]["cpu_cores"];
    if (fixed[k].second.iops >= kReach * best && (floor == 0 || cores < floor)) {
      floor = cores;
      floor_period = fixed[k].first;
    }
  }
  json a = figures(autor);
  double iops_ratio = best > 0 ? autor.iops / best : 0;
  double cpu_ratio = floor > 0 ? a["cpu_cores"].get<double>() / floor : 0;
  json e = {{"name", c.name()},
            {"wake", c.wake},
            {"device", c.device},
            {"neighbour", c.neighbour},
            {"bs", c.bs},
            {"reaper", c.beside ? "beside" : "apart"},
            {"fixed", runs},
            {"auto", a},
            {"best_fixed_us", double(best_period) / 1e3},
            {"floor_fixed_us", double(floor_period) / 1e3},
            {"auto_vs_best_iops", iops_ratio},
            {"auto_vs_floor_cpu", cpu_ratio},
            {"met", iops_ratio >= kReach && cpu_ratio <= kCpu}};
  if (neighbour_alone > 0) {
    double ratio = best_shared > 0 ? shared(autor, best, neighbour_alone) / best_shared : 0;
    e["neighbour_alone_cores"] = neighbour_alone;
    e["best_shared_fixed_us"] = double(best_shared_period) / 1e3;
    e["auto_vs_best_shared"] = ratio;
    e["shared_met"] = ratio >= kReach;
  }
  return e;
}

}  // namespace

json run_periods(const PeriodsArgs& a) {
  const Machines machines = load_machines(a.profiles);
  std::vector<Cell> cells = cells_of(a.grid);
  size_t nsteps = 0;
  const uint64_t* ladder = PollPeriodTuner::ladder(&nsteps);
  std::vector<json> entries(cells.size());
  parallel_for(cells.size(), a.jobs, "hio-sim periods", "cells", a.progress, [&](size_t i) {
    const Cell& c = cells[i];
    const Profile& p = machines.of(c.wake);
    Scenario s;
    s.device = c.device == "here-virtio" ? "disk" : c.device;
    s.io.wait = Wait::reaper;
    s.io.depth = 16;
    s.io.bs = c.bs;
    s.neighbour = NeighbourSpec::parse(c.neighbour);
    s.reaper_beside = c.beside;
    s.warmup_ns = 200 * kMs;
    s.seed = a.seed * 1000003 + i;
    std::vector<std::pair<Time, Result>> fixed;
    for (size_t k = 0; k < nsteps; k++) {
      s.reaper_period_ns = ladder[k];
      fixed.emplace_back(ladder[k], run(s, p));
    }
    s.reaper_period_ns = HIO_POLL_PERIOD_AUTO;
    Result autor = run(s, p);
    double neighbour_alone = s.neighbour.kind != NeighbourSpec::none ? run_neighbour_alone(s, p).neighbour_cores : 0;
    entries[i] = judge(c, fixed, autor, neighbour_alone);
  });
  std::vector<double> iops, cpu, both;
  size_t shared_met = 0;
  json missed = json::array();
  std::map<std::string, std::pair<int, int>> places;  // cells and cells met, by the completion thread's place
  for (const json& e : entries) {
    iops.push_back(e["auto_vs_best_iops"]);
    cpu.push_back(e["auto_vs_floor_cpu"]);
    if (e.contains("auto_vs_best_shared")) {
      both.push_back(e["auto_vs_best_shared"]);
      shared_met += e["shared_met"].get<bool>();
    }
    if (!e["met"].get<bool>()) missed.push_back(e["name"]);
    auto& [n, n_met] = places[e["reaper"].get<std::string>()];
    n++;
    n_met += int(e["met"].get<bool>());
  }
  json by_reaper = json::object();
  for (const auto& [place, n] : places) by_reaper[place] = {{"cells", n.first}, {"met", n.second}};
  size_t met = entries.size() - missed.size();
  return {{"seed", a.seed},
          {"grid", a.grid},
          {"cells", entries},
          {"summary",
           {{"cells", entries.size()},
            {"met", met},
            {"by_reaper", by_reaper},
            {"auto_vs_best_iops", summary_of(iops)},
            {"auto_vs_floor_cpu", summary_of(cpu)},
            {"with_neighbour", {{"cells", both.size()}, {"shared_met", shared_met}}},
            {"auto_vs_best_shared", summary_of(both)},
            {"missed", missed}}}};
}

int periods(const PeriodsArgs& a) {
  json out = run_periods(a);
  std::ofstream(a.out + "/periods.json") << out.dump(1) << "\n";
  const json& s = out["summary"];
  std::printf(
      "hio-sim periods: the automatic poll period met the study's rule (>= %.2f of the best fixed period's IOPS "
      "at <= %.2f x the CPU of the cheapest reaching it) in %zu of %zu cells; IOPS over the best: geometric mean "
      "%.3f, lowest %.3f; CPU over the cheapest: median %.3f\n%s/periods.json\n",
      kReach, kCpu, s["met"].get<size_t>(), s["cells"].get<size_t>(), s["auto_vs_best_iops"]["geomean"].get<double>(),
      s["auto_vs_best_iops"]["min"].get<double>(), s["auto_vs_floor_cpu"]["median"].get<double>(), a.out.c_str());
  for (const auto& [place, n] : s["by_reaper"].items())
    std::printf("  completion thread %s: %d of %d cells met\n",
                place == "beside" ? "beside our threads" : "on its own core", n["met"].get<int>(),
                n["cells"].get<int>());
  if (const json& w = s["with_neighbour"]; w["cells"].get<size_t>() > 0)
    std::printf(
        "  beside a neighbour, both tenants' progress (our IOPS over the best period's, its CPU over alone): auto "
        ">= %.2f of the best fixed period's in %zu of %zu cells; geometric mean %.3f, lowest %.3f\n",
        kReach, w["shared_met"].get<size_t>(), w["cells"].get<size_t>(),
        s["auto_vs_best_shared"]["geomean"].get<double>(), s["auto_vs_best_shared"]["min"].get<double>());
  for (const json& e : out["cells"])
    if (!e["met"].get<bool>())
      std::printf(
          "  missed %s: IOPS %.3f of the best (%g us), CPU %.2f x the cheapest (%g us); auto's mean period %.1f us\n",
          e["name"].get<std::string>().c_str(), e["auto_vs_best_iops"].get<double>(), e["best_fixed_us"].get<double>(),
          e["auto_vs_floor_cpu"].get<double>(), e["floor_fixed_us"].get<double>(),
          e["auto"]["period_us"].get<double>());
  return 0;
}

}  // namespace hio::sim
