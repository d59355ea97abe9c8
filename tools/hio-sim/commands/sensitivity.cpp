// SPDX-License-Identifier: MIT
#include "commands/sensitivity.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "commands/suite.hpp"

namespace hio::sim {

using nlohmann::json;

void check_only(const std::vector<std::string>& only) {
  for (const std::string& n : only)
    if (std::none_of(policy_knobs().begin(), policy_knobs().end(), [&](const PolicyKnob& k) { return n == k.name; }))
      throw std::invalid_argument("no policy parameter '" + n + "'");
}

int sensitivity(const SensitivityArgs& a) {
  SuiteArgs s;
  s.profiles = a.profiles;
  s.traces = a.traces;
  s.grid = a.grid;
  s.jobs = a.jobs;
  s.progress = false;
  auto score = [&](const PolicyParams& p) {
    s.policy = p;
    double g = 0, share = 0, low = 1e9, oracle = 0;
    for (int k = 0; k < a.seeds; k++) {
      s.seed = a.seed + uint64_t(k);
      json r = run_suite(s)["summary"];
      g += r["adaptive_vs_best_static"]["geomean"].get<double>() / a.seeds;
      share += r["adaptive_vs_best_static"]["share_at_least_0.95"].get<double>() / a.seeds;
      low = std::min(low, r["adaptive_vs_best_static"]["min"].get<double>());
      oracle += r["adaptive_vs_oracle"]["geomean"].get<double>() / a.seeds;
    }
    return json{{"geomean", g}, {"share_at_least_0.95", share}, {"lowest", low}, {"vs_oracle", oracle}};
  };
  json base = score(PolicyParams{});
  double g0 = base["geomean"];
  std::printf("%-20s %12s %10s %10s %10s\n", "parameter", "value", "x 0.5", "x 2", "matters");
  json rows = json::array();
  std::string md = "| parameter | value | geomean x 0.5 | geomean x 2 |\n|---|---:|---:|---:|\n";
  for (const PolicyKnob& k : policy_knobs()) {
    if (!a.only.empty() && std::find(a.only.begin(), a.only.end(), k.name) == a.only.end()) continue;
    PolicyParams half, twice;
    double v = k.get(PolicyParams{});
    k.set(half, v / 2);
    k.set(twice, v * 2);
    json h = score(half), t = score(twice);
    double dh = h["geomean"].get<double>() - g0, dt = t["geomean"].get<double>() - g0;
    // A change the suite cannot see: under 0.1% of the score either way.
    bool matters = std::max(std::abs(dh), std::abs(dt)) >= 0.001;
    rows.push_back({{"name", k.name}, {"value", v}, {"halved", h}, {"doubled", t}, {"matters", matters}});
    char line[256];
    std::snprintf(line, sizeof line, "| `%s` | %g | %+.4f | %+.4f |\n", k.name, v, dh, dt);
    md += line;
    std::printf("%-20s %12g %+10.4f %+10.4f %10s\n", k.name, v, dh, dt, matters ? "yes" : "no");
    std::fflush(stdout);
  }
  std::ofstream(a.out + "/sensitivity.json")
      << json{{"grid", a.grid}, {"seeds", a.seeds}, {"seed", a.seed}, {"baseline", base}, {"parameters", rows}}.dump(1)
      << "\n";
  std::ofstream(a.out + "/sensitivity.md") << md;
  std::printf("baseline geometric mean %.4f; %s/sensitivity.json, %s/sensitivity.md\n", g0, a.out.c_str(),
              a.out.c_str());
  return 0;
}

}  // namespace hio::sim
