// SPDX-License-Identifier: MIT
#include "scenario/compare.hpp"

#include <stdexcept>

namespace hio::sim {

bool is_static(const std::string& s) { return s.rfind("adaptive", 0) != 0; }

IoSpec with_strategy(IoSpec io, const std::string& s) {
  if (s == "adaptive" || s == "adaptive-own") {
    io.wait = Wait::adaptive;
    io.objective = s == "adaptive" ? HIO_OBJECTIVE_SHARED : HIO_OBJECTIVE_OWN;
    return io;
  }
  if (!parse_wait(s, &io.wait) || io.wait == Wait::adaptive)
    throw std::invalid_argument("unknown strategy '" + s +
                                "' (interrupt, poll, hybrid, hybrid_min, sqpoll, reaper, adaptive, adaptive-own)");
  return io;
}

double Comparison::own(const std::string& s) const {
  auto it = runs.find(s);
  if (it == runs.end()) throw std::out_of_range("no run of " + s);
  return best_alone_iops > 0 ? it->second.iops / best_alone_iops : 0;
}

double Comparison::theirs(const std::string& s) const {
  if (!has_neighbour || neighbour_alone.neighbour_cores <= 0) return 0;
  return runs.at(s).neighbour_cores / neighbour_alone.neighbour_cores;
}

std::string Comparison::best_static(bool own_objective) const {
  std::string best;
  for (const auto& [s, r] : runs)
    if (is_static(s) && (best.empty() || score(s, own_objective) > score(best, own_objective))) best = s;
  return best;
}

Comparison compare(const Scenario& base, const Profile& p, const std::vector<std::string>& strategies) {
  Comparison c;
  c.has_neighbour = base.neighbour.kind != NeighbourSpec::none;
  for (const std::string& s : strategies) {
    Scenario sc = base;
    sc.io = with_strategy(base.io, s);
    if (is_static(s)) sc.tick_log.clear();  // the log is adaptive's
    c.runs[s] = run(sc, p);
    if (is_static(s)) {
      Scenario alone = sc;
      alone.neighbour = NeighbourSpec{};
      alone.tick_log.clear();
      c.alone[s] = c.has_neighbour ? run(alone, p) : c.runs[s];
      if (c.alone[s].iops > c.best_alone_iops) {
        c.best_alone_iops = c.alone[s].iops;
        c.best_alone = s;
      }
    }
  }
  if (c.best_alone.empty()) throw std::invalid_argument("a comparison needs at least one static strategy");
  if (c.has_neighbour) c.neighbour_alone = run_neighbour_alone(base, p);
  return c;
}

}  // namespace hio::sim
