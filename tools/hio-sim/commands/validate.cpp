// SPDX-License-Identifier: MIT
#include "commands/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "scenario/compare.hpp"
#include "scenario/oracle.hpp"

namespace hio::sim {
namespace {

using nlohmann::json;
constexpr Time kMs = 1'000'000;
const std::set<std::string> kStatic = {"interrupt", "poll", "hybrid", "sqpoll"};
// Scores this close count as a tie in the measured study: a run here spreads 5-20%.
constexpr double kTie = 0.03;

struct Row {
  std::string target, strategy;
  int load = 0;
  double iops = 0, co_ops = 0, co_solo = 0;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, ',')) out.push_back(f);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

double num(const std::string& s) { return s.empty() ? 0 : std::stod(s); }

std::vector<Row> read_summary(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::invalid_argument("no " + path + ": --study names a folder that make study wrote");
  std::string line;
  std::getline(f, line);
  std::vector<std::string> head = split(line);
  auto col = [&](const char* name) {
    auto it = std::find(head.begin(), head.end(), name);
    if (it == head.end()) throw std::invalid_argument(path + ": no column '" + name + "'");
    return size_t(it - head.begin());
  };
  size_t exp = col("experiment"), tgt = col("target"), st = col("strategy"), thr = col("threads"),
         load = col("corunner_load_pct"), iops = col("iops"), co = col("corunner_ops_per_s"),
         solo = col("corunner_solo_ops_per_s");
  std::vector<Row> rows;
  while (std::getline(f, line)) {
    auto v = split(line);
    if (v.size() < head.size() || v[exp] != "contention" || v[thr] != "1") continue;
    rows.push_back({v[tgt], v[st], int(num(v[load])), num(v[iops]), num(v[co]), num(v[solo])});
  }
  if (rows.empty()) throw std::invalid_argument(path + ": no contention cells");
  return rows;
}

std::string device_of(const std::string& target) { return target.rfind("emu:", 0) == 0 ? target.substr(4) : "disk"; }

double median(std::vector<double> v) { return percentile(std::move(v), 0.5); }

struct Prediction {
  std::map<std::string, double> ours, theirs;
};

// Each strategy's IOPS over the best alone and the neighbour's progress,
// the median over seeds.
Prediction predict(const Profile& p, const std::string& target, const std::vector<std::string>& strategies,
                   const NeighbourSpec& n, Time duration, const ValidateArgs& a) {
  std::map<std::string, std::vector<double>> ours, theirs;
  for (int k = 0; k < a.seeds; k++) {
    Scenario s;
    s.device = device_of(target);
    s.neighbour = n;
    s.duration_ns = duration + 100 * kMs;
    s.warmup_ns = 100 * kMs;
    s.seed = a.seed * 1000 + uint64_t(k);
    Comparison c = compare(s, p, strategies);
    for (const auto& st : strategies) {
      ours[st].push_back(c.own(st));
      theirs[st].push_back(c.theirs(st));
    }
  }
  Prediction out;
  for (const auto& st : strategies) {
    out.ours[st] = median(ours[st]);
    out.theirs[st] = median(theirs[st]);
  }
  return out;
}

json figures(double ours, double theirs) { return {{"iops_over_best_alone", ours}, {"corunner_progress", theirs}}; }

double abs_log(double pred, double meas) { return std::abs(std::log(std::max(pred, 0.01) / std::max(meas, 0.01))); }

using Scores = std::map<std::string, double>;

// The study's cells beside the simulator's predictions, and how often the
// two name the same best static strategy.
class Validation {
 public:
  Validation(const Profile& p, const ValidateArgs& a) : p_(p), a_(a) {}

  // One target's contention cells: each strategy beside a steady neighbour at each load.
  void contention(const std::string& target, const std::vector<Row>& trows) {
    double best_alone = 0;
    std::vector<std::string> strategies;
    std::set<int> loads;
    for (const Row& r : trows) {
      if (r.load == 0) best_alone = std::max(best_alone, r.iops);
      if (std::find(strategies.begin(), strategies.end(), r.strategy) == strategies.end())
        strategies.push_back(r.strategy);
      loads.insert(r.load);
    }
    for (int load : loads) {
      NeighbourSpec n = load ? NeighbourSpec::parse("steady:" + std::to_string(load)) : NeighbourSpec{};
      Prediction pr = predict(p_, target, strategies, n, 1000 * kMs, a_);
      Scores meas_score, pred_score;
      for (const Row& r : trows) {
        if (r.load != load) continue;
        double ours = best_alone > 0 ? r.iops / best_alone : 0;
        double theirs = load && r.co_solo > 0 ? r.co_ops / r.co_solo : 0;
        double pours = pr.ours[r.strategy], ptheirs = load ? pr.theirs[r.strategy] : 0;
        meas_score[r.strategy] = ours + theirs;
        pred_score[r.strategy] = pours + ptheirs;
        errors_.push_back(abs_log(pours, ours));
        if (load) errors_.push_back(abs_log(ptheirs, theirs));
        cells_.push_back({{"experiment", "contention"},
                          {"target", target},
                          {"strategy", r.strategy},
                          {"load", load},
                          {"measured", figures(ours, theirs)},
                          {"predicted", figures(pours, ptheirs)}});
      }
      judge_best("contention", target, load, meas_score, pred_score);
    }
  }

  // One row of bursty.json: poll, interrupt and adaptive beside a busy loop in bursts.
  void bursty(const json& row) {
    std::string target = row.at("target");
    int burst = row.at("burst_ms");
    if (burst < 0) return;
    std::vector<std::string> strategies;
    for (auto& [s, v] : row.at("strategies").items()) strategies.push_back(s);
    if (strategies.empty()) return;
    // The study's target names its file; the simulator its disk.
    NeighbourSpec n = NeighbourSpec::parse(burst == 0 ? "busy" : "bursts:" + std::to_string(burst));
    Prediction pr = predict(p_, target, strategies, n, 2000 * kMs, a_);
    Scores meas_score, pred_score;
    for (const auto& s : strategies) {
      const json& m = row["strategies"][s];
      if (!m["own"].contains("median")) continue;
      double ours = m["own"]["median"], theirs = m["theirs"]["median"];
      bool own = s == "adaptive-own";
      double pours = pr.ours[s], ptheirs = pr.theirs[s];
      meas_score[s] = own ? ours : ours + theirs;
      pred_score[s] = own ? pours : pours + ptheirs;
      errors_.push_back(abs_log(pours, ours));
      errors_.push_back(abs_log(ptheirs, theirs));
      cells_.push_back({{"experiment", "bursty"},
                        {"target", target},
                        {"strategy", s},
                        {"burst_ms", burst},
                        {"measured", figures(ours, theirs)},
                        {"predicted", figures(pours, ptheirs)}});
    }
    judge_best("bursty", target, burst, meas_score, pred_score);
  }

  // validate.json's figures; and a line saying them.
  json result() const {
    return {{"study", a_.study},
            {"profile", p_.name},
            {"cells", cells_},
            {"best", best_},
            {"best_static_agreement", groups_ ? double(agree_) / groups_ : 0},
            {"best_static_agreement_with_ties", groups_ ? double(agree_tie_) / groups_ : 0},
            {"median_abs_log_error", median(errors_)},
            {"ratios_compared", errors_.size()},
            {"groups", groups_}};
  }
  void print() const {
    std::printf(
        "validate: the best static strategy agrees in %d of %d groups (%.0f%%; %d where the study's own "
        "scores tie within %.0f%%); median |log(predicted/measured)| %.3f over %zu ratios\n%s/validate.json\n",
        agree_, groups_, groups_ ? 100.0 * agree_ / groups_ : 0, agree_tie_, 100 * kTie, median(errors_),
        errors_.size(), a_.out.c_str());
  }

 private:
  // The best static strategy measured and predicted in one group of cells,
  // marked on its cells and counted.
  void judge_best(const std::string& experiment, const std::string& target, int where, const Scores& meas,
                  const Scores& pred) {
    std::string bm = best_static(meas), bp = best_static(pred);
    if (bm.empty() || bp.empty()) return;
    for (json& c : cells_)
      if (c["experiment"] == experiment && c["target"] == target &&
          c[experiment == "bursty" ? "burst_ms" : "load"] == where) {
        c["best_measured"] = bm;
        c["best_predicted"] = bp;
      }
    bool tie = meas.count(bp) && meas.at(bp) >= meas.at(bm) * (1 - kTie);
    groups_++;
    agree_ += bm == bp;
    agree_tie_ += bm == bp || tie;
    best_.push_back({{"experiment", experiment},
                     {"target", target},
                     {experiment == "bursty" ? "burst_ms" : "load", where},
                     {"best_measured", bm},
                     {"best_predicted", bp},
                     {"agree", bm == bp},
                     {"measured_tie", bm != bp && tie}});
  }

  // The static strategy of the highest score (the first in name order of equal ones); "" if none.
  static std::string best_static(const Scores& scores) {
    std::string b;
    for (const auto& [s, v] : scores)
      if (kStatic.count(s) && (b.empty() || v > scores.at(b))) b = s;
    return b;
  }

  const Profile& p_;
  const ValidateArgs& a_;
  json cells_ = json::array(), best_ = json::array();
  std::vector<double> errors_;
  int agree_ = 0, agree_tie_ = 0, groups_ = 0;
};

}  // namespace

int validate(const ValidateArgs& a) {
  Profile p = Profile::load(Profile::resolve(a.profile, a.profiles));
  std::vector<Row> rows = read_summary(a.study + "/summary.csv");
  std::map<std::string, std::vector<Row>> by_target;
  for (const Row& r : rows) by_target[r.target].push_back(r);
  Validation v(p, a);
  for (const auto& [target, trows] : by_target) {
    std::fprintf(stderr, "validate: %s\n", target.c_str());
    v.contention(target, trows);
  }
  std::ifstream bf(a.study + "/bursty.json");
  if (bf) {
    json b = json::parse(bf);
    for (const json& row : b.at("rows")) v.bursty(row);
  }
  std::ofstream(a.out + "/validate.json") << v.result().dump(1) << "\n";
  v.print();
  return 0;
}

}  // namespace hio::sim
