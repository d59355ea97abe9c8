// SPDX-License-Identifier: MIT
#include "commands/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace hio::sim {
namespace {

using nlohmann::json;

// Red below 1 (0.8 and under: full), white at 1, green above (1.05 and over: full).
std::string colour(double r) {
  double t;
  int R = 255, G = 255, B = 255;
  if (r < 1) {
    t = std::clamp((1 - r) / 0.2, 0.0, 1.0);
    G = B = int(255 - 155 * t);
  } else {
    t = std::clamp((r - 1) / 0.05, 0.0, 1.0);
    R = B = int(255 - 115 * t);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", R, G, B);
  return buf;
}

std::string cell(double r) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "<td style=\"background:%s\">%.3f</td>", colour(r).c_str(), r);
  return buf;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// A table: rows by `row(entry)`, columns by neighbour, cells the geometric
// mean of adaptive over the best static strategy.
std::string heat_map(const json& entries, const std::string& objective, std::string (*row)(const json&)) {
  std::vector<std::string> cols, rows;
  std::map<std::pair<std::string, std::string>, std::pair<double, int>> acc;
  for (const json& e : entries) {
    if (e["objective"] != objective) continue;
    std::string c = e["neighbour"], r = row(e);
    if (std::find(cols.begin(), cols.end(), c) == cols.end()) cols.push_back(c);
    if (std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
    auto& a = acc[{r, c}];
    a.first += std::log(std::max(1e-9, e["adaptive_vs_best_static"].get<double>()));
    a.second++;
  }
  std::string h = "<table><tr><th></th>";
  for (const auto& c : cols) h += "<th>" + c + "</th>";
  h += "</tr>";
  for (const auto& r : rows) {
    h += "<tr><th>" + r + "</th>";
    for (const auto& c : cols) {
      auto it = acc.find({r, c});
      h += it == acc.end() ? "<td></td>" : cell(std::exp(it->second.first / it->second.second));
    }
    h += "</tr>";
  }
  return h + "</table>";
}

std::string by_machine(const json& e) { return e["device"].get<std::string>() + " · " + e["wake"].get<std::string>(); }
std::string by_all(const json& e) {
  return e["device"].get<std::string>() + " · " + e["wake"].get<std::string>() + " · " +
         std::to_string(e["threads_per_core"].get<int>()) + " thr · " + e["workload"].get<std::string>();
}

}  // namespace

void write_suite_report(const json& suite, const std::string& path) {
  const json& s = suite["summary"];
  const json& b = s["adaptive_vs_best_static"];
  const json& o = s["adaptive_vs_oracle"];
  std::string h =
      "<!doctype html><html><head><meta charset=\"utf-8\"><title>hio-sim regret suite</title><style>"
      "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}"
      "table{border-collapse:collapse;font-size:13px;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;"
      "text-align:right}th{background:#f4f4f4}</style></head><body><h1>hio-sim regret suite</h1>";
  h += "<p><b>Adaptive reaches " + fmt("%.3f", b["geomean"]) +
       " of the best static strategy</b> (geometric mean over " + std::to_string(s["scenarios"].get<int>()) +
       " scenarios; median " + fmt("%.3f", b["median"]) + ", 10th percentile " + fmt("%.3f", b["p10"]) + ", lowest " +
       fmt("%.3f", b["min"]) + "; at least 0.95 in " + fmt("%.0f", 100 * b["share_at_least_0.95"].get<double>()) +
       "% of them, at least 1 in " + fmt("%.0f", 100 * b["share_at_least_1"].get<double>()) + "%), and " +
       fmt("%.3f", o["geomean"]) + " of the hindsight oracle that picks the best static strategy every 10 ms.</p>";
  if (s["reaction_ms_p50"].contains("median"))
    h += "<p>After a change of neighbour it settles on the right mode in a median " +
         fmt("%.1f", s["reaction_ms_p50"]["median"]) +
         " ms (the median over scenarios of each one's median; of their 90th percentiles, " +
         fmt("%.1f", s["reaction_ms_p90"]["median"]) + " ms).</p>";
  h += "<p>Cells: adaptive's score over the best static strategy's (interrupt, poll, hybrid, hybrid_min) in that "
       "scenario, the geometric mean over our thread counts and workloads; red below 1, green above.</p>";
  for (const char* obj : {"shared", "own"}) {
    h += std::string("<h2>Objective ") + obj + "</h2>" + heat_map(suite["scenarios"], obj, by_machine);
    h += "<details><summary>Every device, wake-up cost, thread count and workload</summary>" +
         heat_map(suite["scenarios"], obj, by_all) + "</details>";
  }
  if (!s["light_demand"].empty()) {
    h += "<h2>Light demand</h2><p>A rate-limited workload alone: adaptive's CPU per read and mean latency over "
         "polling's. Where a read takes at least ten wake-ups, sleeping can save most of polling's CPU: the goal "
         "there is at most 0.5 of its CPU at 1.10 of its latency.</p><table><tr><th>scenario</th><th>read / "
         "wake-up</th><th>CPU / poll</th><th>latency / poll</th><th>goal</th></tr>";
    for (const json& l : s["light_demand"])
      h += "<tr><td style=\"text-align:left\">" + l["name"].get<std::string>() + "</td><td>" +
           fmt("%.1f", l["read_in_wakeups"]) + "</td><td>" + fmt("%.2f", l["cpu_vs_poll"]) + "</td><td>" +
           fmt("%.2f", l["lat_vs_poll"]) + "</td><td>" +
           (!l["applies"].get<bool>() ? ""
            : l["met"].get<bool>()    ? "met"
                                      : "not met") +
           "</td></tr>";
    h += "</table>";
  }
  h += "<h2>The lowest</h2><table><tr><th>scenario</th><th>adaptive / best static</th></tr>";
  for (const json& w : s["worst"])
    h += "<tr><td style=\"text-align:left\">" + w["name"].get<std::string>() + "</td>" +
         cell(w["adaptive_vs_best_static"]) + "</tr>";
  h += "</table><p>Seed " + std::to_string(suite["seed"].get<uint64_t>()) + ", grid " +
       suite["grid"].get<std::string>() + "; the numbers behind every cell are in suite.json.</p></body></html>\n";
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << h;
}

}  // namespace hio::sim
