// SPDX-License-Identifier: MIT
#include "commands/suite.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

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
            {"qd1", "mixgraph"},
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

}  // namespace

json run_suite(const SuiteArgs& a) {
  Profile here = Profile::load(Profile::resolve("here-virtio", a.profiles));
  Profile bare = Profile::load(Profile::resolve("baremetal", a.profiles));
  // The measured disk stays the same device on either machine.
  if (!bare.devices.count("disk")) bare.devices["disk"] = here.devices.at("disk");
  std::map<std::string, Trace> traces;
  for (const char* t : {"mixgraph", "readrandom"}) traces[t] = Trace::load(a.traces + "/" + t + ".csv.gz");

  if (a.grid != "full" && a.grid != "medium" && a.grid != "quick")
    throw std::invalid_argument("unknown grid '" + a.grid + "' (full, medium, quick)");
  bool quick = a.grid == "quick";
  Grid g = grid(a.grid);
  std::vector<Group> groups;
  for (const auto& d : g.devices)
    for (const auto& w : g.wakes)
      for (const auto& n : g.neighbours)
        for (int t : g.threads)
          for (const auto& wl : g.workloads) groups.push_back({d, w, n, wl, t});

  // A rate-limited workload runs at 30% of what one thread polling alone does there.
  std::map<std::string, double> rate;
  std::mutex mu;
  auto base_of = [&](const Group& gr, const Profile& p) {
    Scenario s;
    s.device = gr.device == "here-virtio" ? "disk" : gr.device;
    s.threads_per_core = gr.threads;
    s.neighbour = NeighbourSpec::parse(gr.neighbour);
    s.duration_ns = duration_for(s.neighbour, quick);
    s.warmup_ns = 100 * kMs;
    s.seed = hash(gr.name(), a.seed);
    s.io.policy = a.policy;
    if (gr.workload == "qd4") s.io.depth = 4;
    if (gr.workload == "mixgraph" || gr.workload == "readrandom") s.io.trace = &traces.at(gr.workload);
    if (gr.workload == "rate30") {
      std::string key = gr.device + "/" + gr.wake;
      std::lock_guard<std::mutex> l(mu);
      if (!rate.count(key)) {
        Scenario probe;
        probe.device = s.device;
        probe.io.wait = Wait::poll;
        probe.duration_ns = 300 * kMs;
        probe.seed = a.seed;
        rate[key] = 0.3 * run(probe, p).iops;
      }
      s.io.rate_iops = rate[key];
    }
    return s;
  };

  std::vector<json> entries(groups.size() * 2);
  std::atomic<size_t> next{0}, done{0};
  std::exception_ptr err;
  int jobs = a.jobs > 0 ? a.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  auto worker = [&] {
    for (size_t i; (i = next++) < groups.size();) {
      try {
        const Group& gr = groups[i];
        const Profile& p = gr.wake == "here" ? here : bare;
        Scenario s = base_of(gr, p);
        Comparison c = compare(s, p, kStrategies);
        for (int own = 0; own < 2; own++) {
          std::string ad = own ? "adaptive-own" : "adaptive";
          json scores, cpu;
          for (const auto& st : kStrategies) {
            if (st.rfind("adaptive", 0) == 0 && st != ad) continue;
            scores[st == ad ? "adaptive" : st] = c.score(st, own);
            cpu[st == ad ? "adaptive" : st] = c.runs[st].cpu_ns_per_io;
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
                    {"cpu_ns_per_io", cpu}};
          if (!r.ms.empty() || r.never)
            e["reaction_ms"] = {
                {"p50", percentile(r.ms, 0.5)}, {"p90", percentile(r.ms, 0.9)}, {"n", r.ms.size()}, {"never", r.never}};
          entries[2 * i + size_t(own)] = e;
        }
      } catch (...) {
        std::lock_guard<std::mutex> l(mu);
        if (!err) err = std::current_exception();
        next = groups.size();
      }
      size_t d = ++done;
      if (a.progress && (d % 20 == 0 || d == groups.size())) {
        std::lock_guard<std::mutex> l(mu);
        std::fprintf(stderr, "\rhio-sim suite: %zu/%zu scenario groups", d, groups.size());
        if (d == groups.size()) std::fprintf(stderr, "\n");
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(size_t(jobs));
  for (int j = 0; j < jobs; j++) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (err) std::rethrow_exception(err);

  std::vector<double> vs_best, vs_oracle, reaction_p50, reaction_p90;
  std::map<std::string, std::vector<double>> by;
  for (const json& e : entries) {
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
  // The policy's parameters that differ from the library's.
  json policy = json::object();
  for (const PolicyKnob& k : policy_knobs())
    if (k.get(a.policy) != k.get(PolicyParams{})) policy[k.name] = k.get(a.policy);
  json out = {{"seed", a.seed},
              {"grid", a.grid},
              {"policy", policy},
              {"scenarios", entries},
              {"summary",
               {{"scenarios", entries.size()},
                {"adaptive_vs_best_static", summary_of(vs_best)},
                {"adaptive_vs_oracle", summary_of(vs_oracle)},
                {"reaction_ms_p50", spread(reaction_p50)},
                {"reaction_ms_p90", spread(reaction_p90)},
                {"by", breakdown},
                {"worst", worst10}}}};
  return out;
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
