// SPDX-License-Identifier: MIT
// A scenario under every way of waiting, with the references a score needs:
// our I/O alone under each static strategy, and the neighbour alone. Scores
// are the study's: `own` = our IOPS over the best IOPS alone; `shared` = own
// + the neighbours' CPU over the same alone.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace hio::sim {

// A strategy by name: interrupt, poll, hybrid, hybrid_min, sqpoll (static);
// adaptive (objective shared) and adaptive-own.
bool is_static(const std::string& strategy);
IoSpec with_strategy(IoSpec io, const std::string& strategy);

struct Comparison {
  std::map<std::string, Result> runs;   // beside the neighbour
  std::map<std::string, Result> alone;  // our I/O alone, the static strategies
  Result neighbour_alone;               // no I/O of ours
  bool has_neighbour = false;
  double best_alone_iops = 0;
  std::string best_alone;

  double own(const std::string& s) const;
  double theirs(const std::string& s) const;  // 0 without a neighbour
  double shared(const std::string& s) const { return own(s) + theirs(s); }
  double score(const std::string& s, bool own_objective) const { return own_objective ? own(s) : shared(s); }
  // The static strategy with the best score under the objective.
  std::string best_static(bool own_objective) const;
};

// Runs base under each strategy (its io.wait and objective replaced), its
// I/O alone under each static one, and its neighbour alone.
Comparison compare(const Scenario& base, const Profile& p, const std::vector<std::string>& strategies);

}  // namespace hio::sim
