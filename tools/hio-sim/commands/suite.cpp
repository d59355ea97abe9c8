// SPDX-License-Identifier: MIT
#include "commands/suite.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "commands/parallel.hpp"
#include "commands/report.hpp"
#include "scenario/compare.hpp"
#include "scenario/oracle.hpp"

namespace hio::sim {
namespace {

using nlohmann::json;
constexpr Time kMs = 1'000'000;
const std::vector<std::string> kStrategies = {"interrupt", "poll", "hybrid", "hybrid_min", "adaptive", "adaptive-own"};

struct Group {
  std::string device, wake, neighbour, workload;
  int threads = 1;
  std::string name() const {
    return device + "/" + wake + "/" + neighbour + "/" + std::to_string(threads) + "t/" + workload;
  }
};

struct Grid {
  std::vector<std::string> devices, wakes, neighbours, workloads;
  std::vector<int> threads;
};

Grid grid(const std::string& name) {
  if (name == "medium")
    return {{"here-virtio", "pcie4", "nand"},
            {"here", "baremetal"},
            {"none", "steady:10", "steady:50", "steady:100", "bursts:20", "bursts:200", "random:50"},
            {"qd1", "rate30", "mixgraph"},
            {1, 4}};
  if (name == "quick")
    return {{"here-virtio", "pcie4"},
            {"here", "baremetal"},
            {"none", "steady:10", "steady:100", "bursts:50", "random:50", "bursts:20"},
            {"qd1", "rate30", "mixgraph"},
            {1, 2}};
  return {{"here-virtio", "pcie3", "pcie4", "optane", "nand"},
          {"here", "baremetal"},
          {"none", "steady:5", "steady:10", "steady:25", "steady:50", "steady:100", "bursts:5", "bursts:20",
           "bursts:50", "bursts:200", "bursts:1000", "random:50"},
          {"qd1", "qd4", "rate30", "mixgraph", "readrandom"},
          {1, 2, 4}};
}

uint64_t hash(const std::string& s, uint64_t seed) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

Time duration_for(const NeighbourSpec& n, bool quick) {
  Time d = quick ? 500 * kMs : 1000 * kMs;
  if (n.kind == NeighbourSpec::bursts || n.kind == NeighbourSpec::random_bursts) d = std::max(d, 4 * n.on_ns);
  return d;
}

std::vector<Group> groups_of(const Grid& g) {
  std::vector<Group> groups;
  for (const auto& d : g.devices)
    for (const auto& w : g.wakes)
      for (const auto& n : g.neighbours)
        for (int t : g.threads)
          for (const auto& wl : g.workloads) groups.push_back({d, w, n, wl, t});
  return groups;
}

std::string device_of(const Group& gr) { return gr.device == "here-virtio" ? "disk" : gr.device; }

// A group's scenario. A rate-limited workload runs at 30% of what one thread
// polling alone does there, measured once per device and machine (its
// mean latency is the device's read, as light demand counts it).
class Scenarios {
 public:
  Scenarios(const SuiteArgs& a, const std::map<std::string, Trace>& traces)
      : a_(a), traces_(traces), quick_(a.grid == "quick") {}

  Scenario of(const Group& gr, const Profile& p) {
    Scenario s;
    s.device = device_of(gr);
    s.threads_per_core = gr.threads;
    s.neighbour = NeighbourSpec::parse(gr.neighbour);
    s.duration_ns = duration_for(s.neighbour, quick_);
    s.warmup_ns = 100 * kMs;
    s.seed = hash(gr.name(), a_.seed);
    s.io.policy = a_.policy;
    if (gr.workload == "qd4") s.io.depth = 4;
    if (gr.workload == "mixgraph" || gr.workload == "readrandom") s.io.trace = &traces_.at(gr.workload);
    if (gr.workload == "rate30") s.io.rate_iops = 0.3 * polled_alone(gr, p).iops;
    return s;
  }

  // One thread polling alone at depth 1 there, run once (a std::map keeps
  // its entries in place, so the reference outlives the lock).
  const Result& polled_alone(const Group& gr, const Profile& p) {
    std::lock_guard<std::mutex> l(mu_);
    std::string key = gr.device + "/" + gr.wake;
    if (!alone_.count(key)) {
      Scenario probe;
      probe.device = device_of(gr);
      probe.io.wait = Wait::poll;
      probe.duration_ns = 300 * kMs;
      probe.seed = a_.seed;
      alone_[key] = run(probe, p);
    }
    return alone_[key];
  }

 private:
  const SuiteArgs& a_;
  const std::map<std::string, Trace>& traces_;
  bool quick_;
  std::mutex mu_;
  std::map<std::string, Result> alone_;
};

// Light demand: a rate-limited workload alone, where sleeping can save most
// of polling's CPU per read at a small cost in latency (the goal below);
// possible where a read takes at least this many wake-ups.
constexpr double kLightWakeups = 10;
constexpr double kLightCpu = 0.5, kLightLat = 1.10;

json light_demand(const json& e, double read_in_wakeups) {
  const json &cpu = e["cpu_ns_per_io"], &lat = e["lat_mean_ns"];
  double cpu_vs_poll = cpu["adaptive"].get<double>() / cpu["poll"].get<double>();
  double lat_vs_poll = lat["adaptive"].get<double>() / lat["poll"].get<double>();
  return {{"read_in_wakeups", read_in_wakeups},
          {"cpu_vs_poll", cpu_vs_poll},
          {"lat_vs_poll", lat_vs_poll},
          {"applies", read_in_wakeups >= kLightWakeups},
          {"met", cpu_vs_poll <= kLightCpu && lat_vs_poll <= kLightLat}};
}

// One group's scenario under one objective, scored: adaptive (or
// adaptive-own) against each static strategy and the oracle.
json entry(const Group& gr, const Scenario& s, Comparison& c, int own) {
  std::string ad = own ? "adaptive-own" : "adaptive";
  json scores, cpu, lat;
  for (const auto& st : kStrategies) {
    if (st.rfind("adaptive", 0) == 0 && st != ad) continue;
    std::string name = st == ad ? "adaptive" : st;
    scores[name] = c.score(st, own);
    cpu[name] = c.runs[st].cpu_ns_per_io;
    lat[name] = c.runs[st].lat_mean_ns;
  }
  std::string best = c.best_static(own);
  OracleResult o = oracle(c, s, own);
  Reactions r = reactions(c, s, ad, own);
  json e = {{"name", gr.name() + "/" + (own ? "own" : "shared")},
            {"device", gr.device},
            {"wake", gr.wake},
            {"neighbour", gr.neighbour},
            {"threads_per_core", gr.threads},
            {"workload", gr.workload},
            {"objective", own ? "own" : "shared"},
            {"scores", scores},
            {"best_static", best},
            {"oracle", o.score},
            {"oracle_switches", o.switches},
            {"adaptive_vs_best_static", c.score(ad, own) / c.score(best, own)},
            {"adaptive_vs_oracle", o.score > 0 ? c.score(ad, own) / o.score : 0},
            {"adaptive_mode_share",
             {{"interrupt", c.runs[ad].mode_share[0]},
              {"poll", c.runs[ad].mode_share[1]},
              {"hybrid", c.runs[ad].mode_share[2]}}},
            {"cpu_ns_per_io", cpu},
            {"lat_mean_ns", lat}};
  if (!r.ms.empty() || r.never)
    e["reaction_ms"] = {
        {"p50", percentile(r.ms, 0.5)}, {"p90", percentile(r.ms, 0.9)}, {"n", r.ms.size()}, {"never", r.never}};
  return e;
}

// The ten scenarios where adaptive fell furthest behind the best static strategy.
json worst_ten(const std::vector<json>& entries) {
  std::vector<const json*> worst;
  worst.reserve(entries.size());
  for (const json& e : entries) worst.push_back(&e);
  std::sort(worst.begin(), worst.end(), [](const json* x, const json* y) {
    return x->at("adaptive_vs_best_static").get<double>() < y->at("adaptive_vs_best_static").get<double>() ||
           (x->at("adaptive_vs_best_static") == y->at("adaptive_vs_best_static") && x->at("name") < y->at("name"));
  });
  json worst10 = json::array();
  for (size_t i = 0; i < std::min<size_t>(10, worst.size()); i++)
    worst10.push_back(
        {{"name", worst[i]->at("name")}, {"adaptive_vs_best_static", worst[i]->at("adaptive_vs_best_static")}});
  return worst10;
}

// Adaptive over the best static strategy and the oracle across the
// scenarios, by each of the grid's dimensions, and its reaction times.
json summary(const std::vector<json>& entries) {
  std::vector<double> vs_best, vs_oracle, reaction_p50, reaction_p90;
  std::map<std::string, std::vector<double>> by;
  json light = json::array();
  for (const json& e : entries) {
    if (e.contains("light_demand")) {
      json l = e["light_demand"];
      l["name"] = e["name"];
      light.push_back(l);
    }
    double v = e["adaptive_vs_best_static"];
    vs_best.push_back(v);
    vs_oracle.push_back(e["adaptive_vs_oracle"]);
    for (const char* k : {"device", "wake", "neighbour", "workload", "objective"})
      by[std::string(k) + "=" + e[k].get<std::string>()].push_back(v);
    by["threads_per_core=" + std::to_string(e["threads_per_core"].get<int>())].push_back(v);
    if (e.contains("reaction_ms") && e["reaction_ms"]["n"].get<int>() > 0) {
      reaction_p50.push_back(e["reaction_ms"]["p50"]);
      reaction_p90.push_back(e["reaction_ms"]["p90"]);
    }
  }
  auto spread = [](const std::vector<double>& v) {
    if (v.empty()) return json::object();
    return json{{"n", v.size()}, {"median", percentile(v, 0.5)}, {"p90", percentile(v, 0.9)}};
  };
  json breakdown;
  for (const auto& [k, v] : by) breakdown[k] = summary_of(v);
  return {{"scenarios", entries.size()},
          {"adaptive_vs_best_static", summary_of(vs_best)},
          {"adaptive_vs_oracle", summary_of(vs_oracle)},
          {"reaction_ms_p50", spread(reaction_p50)},
          {"reaction_ms_p90", spread(reaction_p90)},
          {"by", breakdown},
          {"light_demand", light},
          {"worst", worst_ten(entries)}};
}

// The policy's parameters that differ from the library's.
json changed_knobs(const PolicyParams& policy) {
  json out = json::object();
  for (const PolicyKnob& k : policy_knobs())
    if (k.get(policy) != k.get(PolicyParams{})) out[k.name] = k.get(policy);
  return out;
}

}  // namespace

json summary_of(const std::vector<double>& v) {
  if (v.empty()) return json::object();
  double lg = 0;
  for (double x : v) lg += std::log(std::max(x, 1e-9));
  auto share = [&](double at) {
    return double(std::count_if(v.begin(), v.end(), [at](double x) { return x >= at; })) / double(v.size());
  };
  return {{"n", v.size()},
          {"geomean", std::exp(lg / double(v.size()))},
          {"median", percentile(v, 0.5)},
          {"p10", percentile(v, 0.1)},
          {"min", *std::min_element(v.begin(), v.end())},
          {"share_at_least_0.95", share(0.95)},
          {"share_at_least_1", share(1.0)}};
}

Machines load_machines(const std::string& profiles) {
  Machines m{Profile::load(Profile::resolve("here-virtio", profiles)),
             Profile::load(Profile::resolve("baremetal", profiles))};
  // The measured disk stays the same device on either machine.
  if (!m.bare.devices.count("disk")) m.bare.devices["disk"] = m.here.devices.at("disk");
  return m;
}

json run_suite(const SuiteArgs& a) {
  const Machines machines = load_machines(a.profiles);
  std::map<std::string, Trace> traces;
  for (const char* t : {"mixgraph", "readrandom"}) traces[t] = Trace::load(a.traces + "/" + t + ".csv.gz");

  if (a.grid != "full" && a.grid != "medium" && a.grid != "quick")
    throw std::invalid_argument("unknown grid '" + a.grid + "' (full, medium, quick)");
  std::vector<Group> groups = groups_of(grid(a.grid));
  Scenarios scenarios(a, traces);
  std::vector<json> entries(groups.size() * 2);
  parallel_for(groups.size(), a.jobs, "hio-sim suite", "scenario groups", a.progress, [&](size_t i) {
    const Group& gr = groups[i];
    const Profile& p = machines.of(gr.wake);
    Scenario s = scenarios.of(gr, p);
    Comparison c = compare(s, p, kStrategies);
    for (int own = 0; own < 2; own++) {
      json& e = entries[2 * i + size_t(own)];
      e = entry(gr, s, c, own);
      if (gr.workload == "rate30" && gr.neighbour == "none")
        e["light_demand"] = light_demand(e, scenarios.polled_alone(gr, p).lat_mean_ns / p.library_wake.cpu_ns);
    }
  });
  return {{"seed", a.seed},
          {"grid", a.grid},
          {"policy", changed_knobs(a.policy)},
          {"scenarios", entries},
          {"summary", summary(entries)}};
}

int suite(const SuiteArgs& a) {
  json out = run_suite(a);
  std::ofstream(a.out + "/suite.json") << out.dump(1) << "\n";
  write_suite_report(out, a.out + "/suite.html");
  const json& s = out["summary"]["adaptive_vs_best_static"];
  std::printf(
      "hio-sim suite: %zu scenarios; adaptive over the best static strategy: geometric mean %.3f, median %.3f, "
      "10th percentile %.3f, lowest %.3f; at least 0.95 in %.0f%% of them; over the oracle: geometric mean "
      "%.3f\n%s/suite.json\n%s/suite.html\n",
      out["scenarios"].size(), s["geomean"].get<double>(), s["median"].get<double>(), s["p10"].get<double>(),
      s["min"].get<double>(), 100 * s["share_at_least_0.95"].get<double>(),
      out["summary"]["adaptive_vs_oracle"]["geomean"].get<double>(), a.out.c_str(), a.out.c_str());
  return 0;
}

}  // namespace hio::sim
