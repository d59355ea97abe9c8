// SPDX-License-Identifier: MIT
#include "scenario/oracle.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace hio::sim {
namespace {

// Each static strategy's contribution to the score in each interval of the
// measured window, so that summing one strategy's gives its score.
std::map<std::string, std::vector<double>> contributions(const Comparison& c, const Scenario& s, bool own,
                                                         Time interval, Time from, Time to) {
  std::map<std::string, std::vector<double>> out;
  double window_s = double(s.duration_ns - s.warmup_ns) / 1e9;
  double nb_total = 0;
  const Result& na = c.neighbour_alone;
  for (size_t i = 0; i < na.neighbour_bins.size(); i++) {
    Time t = Time(i) * na.bin_ns;
    if (t >= s.warmup_ns && t < s.duration_ns) nb_total += na.neighbour_bins[i];
  }
  for (const auto& [name, r] : c.runs) {
    if (!is_static(name)) continue;
    std::vector<double>& v = out[name];
    for (Time t = from; t < to; t += interval) {
      double io = 0, nb = 0;
      for (Time b = t; b < std::min(t + interval, to); b += r.bin_ns) {
        size_t i = size_t(b / r.bin_ns);
        if (i < r.io_bins.size()) io += r.io_bins[i];
        if (i < r.neighbour_bins.size()) nb += r.neighbour_bins[i];
      }
      double x = c.best_alone_iops > 0 ? io / (c.best_alone_iops * window_s) : 0;
      if (!own && c.has_neighbour && nb_total > 0) x += nb / nb_total;
      v.push_back(x);
    }
  }
  return out;
}

Mode mode_of(const std::string& s) {
  if (s == "poll") return Mode::poll;
  if (s == "hybrid" || s == "hybrid_min") return Mode::hybrid;
  return Mode::interrupt;
}

}  // namespace

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double x = p * double(v.size() - 1);
  size_t i = size_t(x);
  return i + 1 < v.size() ? v[i] + (x - double(i)) * (v[i + 1] - v[i]) : v.back();
}

OracleResult oracle(const Comparison& c, const Scenario& s, bool own, Time interval, double switch_charge) {
  auto per = contributions(c, s, own, interval, s.warmup_ns, s.duration_ns);
  std::vector<std::string> names;
  names.reserve(per.size());
  for (const auto& kv : per) names.push_back(kv.first);
  size_t n = per.begin()->second.size(), k = names.size();
  double best_static = 0;
  for (const auto& name : names) {
    double sum = 0;
    for (double x : per[name]) sum += x;
    best_static = std::max(best_static, sum);
  }
  double charge = switch_charge * best_static / double(std::max<size_t>(1, n));
  // Dynamic programming over intervals: the best total ending in each strategy.
  std::vector<double> best(k, 0), next(k);
  std::vector<int> switches(k, 0), next_sw(k);
  for (size_t j = 0; j < k; j++) best[j] = per[names[j]][0];
  for (size_t i = 1; i < n; i++) {
    for (size_t j = 0; j < k; j++) {
      size_t from = j;
      double v = best[j];
      for (size_t q = 0; q < k; q++)
        if (q != j && best[q] - charge > v) {
          v = best[q] - charge;
          from = q;
        }
      next[j] = v + per[names[j]][i];
      next_sw[j] = switches[from] + (from != j);
    }
    best.swap(next);
    switches.swap(next_sw);
  }
  size_t arg = size_t(std::max_element(best.begin(), best.end()) - best.begin());
  return {best[arg], switches[arg]};
}

Reactions reactions(const Comparison& c, const Scenario& s, const std::string& adaptive, bool own, double tie) {
  Reactions out;
  auto run = c.runs.find(adaptive);
  if (run == c.runs.end()) return out;
  const auto& changes = c.runs.begin()->second.changes;
  const auto& settled = run->second.settled;
  constexpr Time kInterval = 1'000'000;
  for (size_t k = 0; k < changes.size(); k++) {
    Time from = changes[k].first, to = k + 1 < changes.size() ? changes[k + 1].first : s.duration_ns;
    if (from < s.warmup_ns || to > s.duration_ns || to <= from + kInterval) continue;
    auto per = contributions(c, s, own, kInterval, from, to);
    std::map<std::string, double> total;
    double top = 0;
    for (const auto& [name, v] : per) {
      for (double x : v) total[name] += x;
      top = std::max(top, total[name]);
    }
    std::vector<Mode> right;
    for (const auto& [name, t] : total)
      if (t >= top * (1 - tie)) right.push_back(mode_of(name));
    auto ok = [&](Mode m) { return std::find(right.begin(), right.end(), m) != right.end(); };
    // The settled mode at `from`, then each change of it within the phase.
    // A change after which the mode in use is already right asks nothing.
    Mode cur = Mode::poll;
    size_t i = 0;
    for (; i < settled.size() && settled[i].first <= from; i++) cur = settled[i].second;
    if (ok(cur)) continue;
    std::optional<Time> at;
    for (; i < settled.size() && settled[i].first < to; i++) {
      cur = settled[i].second;
      if (ok(cur) && !at) at = settled[i].first;
      if (!ok(cur)) at.reset();
    }
    if (at)
      out.ms.push_back(double(*at - from) / 1e6);
    else
      out.never++;
  }
  return out;
}

}  // namespace hio::sim
