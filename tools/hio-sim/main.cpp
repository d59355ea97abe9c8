// SPDX-License-Identifier: MIT
// hio-sim: a deterministic discrete-event simulator of cores, neighbours,
// devices and ways of waiting, driving the library's own adaptive policy.
// docs/simulator.md describes the model and each command.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>

#include "commands/calibrate.hpp"
#include "commands/periods.hpp"
#include "commands/run.hpp"
#include "commands/scale.hpp"
#include "commands/sensitivity.hpp"
#include "commands/suite.hpp"
#include "commands/thesis.hpp"
#include "commands/validate.hpp"
#include "hybridio/version.h"

namespace {

// Where the shipped profiles and traces are: HIO_SIM_DATA, else the
// source tree's (a build knows it).
std::string data_dir() {
  const char* env = std::getenv("HIO_SIM_DATA");
  return env && *env ? env : HIO_SIM_DATA_DIR;
}

void need_dir(const std::string& opt, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw CLI::ValidationError(opt, "cannot make the folder " + dir + ": " + ec.message());
}

using namespace hio::sim;

// A subcommand: what it checks once parsed (beyond what CLI11 checks), and
// what it runs. Its arguments live as long as the two functions.
struct Command {
  CLI::App* app;
  std::function<void()> check;
  std::function<int()> run;
};

// adaptive's parameters, NAME=VALUE each, into p.
void set_knobs(const std::vector<std::string>& params, hio::PolicyParams& p) {
  for (const std::string& kv : params) {
    std::string why;
    if (!hio::set_policy_knob(p, kv, &why)) throw CLI::ValidationError("--param", why);
  }
}

Command add_run(CLI::App& app, const std::string& data) {
  auto ra = std::make_shared<RunArgs>();
  auto params = std::make_shared<std::vector<std::string>>();
  ra->profiles = data + "/profiles";
  ra->traces = data + "/traces";
  CLI::App* run = app.add_subcommand("run", "one scenario under one or more strategies");
  run->add_option("--profile", ra->profile, "machine profile: a name in the profiles folder, or a path")
      ->capture_default_str();
  run->add_option("--device", ra->device,
                  "the profile's measured device (disk) or an emulated SSD (pcie3, pcie4, "
                  "optane, nand, emu:...)")
      ->capture_default_str();
  run->add_option("--interface", ra->interface,
                  "the profile's interface (default: emu for an emulated SSD, disk for its own)");
  run->add_option("--strategy", ra->strategies,
                  "interrupt, poll, hybrid, hybrid_min, sqpoll, adaptive, adaptive-own "
                  "(comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  run->add_option("--neighbour", ra->neighbour, "none, busy, steady:PCT, cpulimit:PCT, bursts:MS, random:MS")
      ->capture_default_str();
  run->add_option("--cores", ra->cores, "cores with our threads (and the neighbours)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  run->add_option("--threads", ra->threads, "our I/O threads per core")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  run->add_option("--iodepth", ra->depth, "commands in flight per thread")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  run->add_option("--bs", ra->bs, "bytes per read")->check(CLI::Range(512, 1 << 30))->capture_default_str();
  run->add_option("--trace", ra->trace, "replay a recorded trace (mixgraph, readrandom, or a path)");
  run->add_option("--rate", ra->rate, "reads per second per thread (0: as fast as they complete)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--poll_period_us", ra->poll_period_us,
                  "strategy reaper: the completion thread's poll period, auto or microseconds (0 spins)")
      ->check(CLI::IsMember({"auto"}) | CLI::Range(0.0, 1e6))
      ->capture_default_str();
  run->add_option("--runtime", ra->seconds, "simulated seconds")
      ->check(CLI::Range(0.01, 3600.0))
      ->capture_default_str();
  run->add_option("--seed", ra->seed, "the run's seed")->capture_default_str();
  run->add_option("--param", *params, "set one of adaptive's parameters, NAME=VALUE (docs/adaptive.md); repeatable");
  run->add_option("--tick-log", ra->tick_log,
                  "the adaptive queues' tick log, as HIO_ADAPTIVE_TICKS writes it (python3 -m hybridio.ticks reads "
                  "it); the last strategy's run");
  run->add_option("--output-format", ra->format, "normal or json")
      ->check(CLI::IsMember({"normal", "json"}))
      ->capture_default_str();
  run->add_option("--profiles", ra->profiles, "the profiles folder")->capture_default_str();
  run->add_option("--traces", ra->traces, "the traces folder")->capture_default_str();
  return {run, [ra, params] { set_knobs(*params, ra->policy); }, [ra] { return run_command(*ra); }};
}

Command add_suite(CLI::App& app, const std::string& data) {
  auto sa = std::make_shared<SuiteArgs>();
  auto params = std::make_shared<std::vector<std::string>>();
  auto quick = std::make_shared<bool>(false);
  sa->profiles = data + "/profiles";
  sa->traces = data + "/traces";
  CLI::App* su = app.add_subcommand("suite", "the regret suite: adaptive against every static strategy and the oracle");
  su->add_flag("--quick", *quick, "the short grid (288 scenarios; --grid quick)");
  su->add_option("--grid", sa->grid, "full (3,600 scenarios), medium (504) or quick (288)")
      ->check(CLI::IsMember({"full", "medium", "quick"}))
      ->capture_default_str();
  su->add_option("--seed", sa->seed, "the suite's seed")->capture_default_str();
  su->add_option("--out", sa->out, "results folder")->required();
  su->add_option("--jobs", sa->jobs, "scenarios in parallel (default: every core)")->check(CLI::Range(1, 1024));
  su->add_option("--profiles", sa->profiles, "the profiles folder")->capture_default_str();
  su->add_option("--traces", sa->traces, "the traces folder")->capture_default_str();
  su->add_option("--param", *params, "set one of adaptive's parameters, NAME=VALUE (docs/adaptive.md); repeatable");
  auto check = [sa, params, quick] {
    if (*quick) sa->grid = "quick";
    set_knobs(*params, sa->policy);  // before --out is made: bad input leaves nothing behind
    need_dir("--out", sa->out);
  };
  return {su, check, [sa] { return suite(*sa); }};
}

Command add_sensitivity(CLI::App& app, const std::string& data) {
  auto se = std::make_shared<SensitivityArgs>();
  se->profiles = data + "/profiles";
  se->traces = data + "/traces";
  CLI::App* sen =
      app.add_subcommand("sensitivity", "the suite's score with each of adaptive's parameters halved and doubled");
  sen->add_option("--out", se->out, "results folder")->required();
  sen->add_option("--grid", se->grid, "the suite's grid: medium (20 s a run here), full (3 min) or quick (3 s)")
      ->check(CLI::IsMember({"full", "medium", "quick"}))
      ->capture_default_str();
  sen->add_option("--seeds", se->seeds, "each value's score is the mean over this many seeds")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  sen->add_option("--only", se->only, "these parameters only")->delimiter(',');
  sen->add_option("--seed", se->seed, "the suite's seed")->capture_default_str();
  sen->add_option("--jobs", se->jobs, "scenarios in parallel (default: every core)")->check(CLI::Range(1, 1024));
  auto check = [se] {
    try {
      check_only(se->only);  // before --out is made: bad input leaves nothing behind
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--only", e.what());
    }
    need_dir("--out", se->out);
  };
  return {sen, check, [se] { return sensitivity(*se); }};
}

Command add_periods(CLI::App& app, const std::string& data) {
  auto pa = std::make_shared<PeriodsArgs>();
  pa->profiles = data + "/profiles";
  CLI::App* pe = app.add_subcommand(
      "periods", "the completion thread's automatic poll period against every fixed period of its ladder");
  pe->add_option("--out", pa->out, "where periods.json goes")->required();
  pe->add_option("--grid", pa->grid,
                 "full (180 cells: the completion thread on a core of its own and beside ours) or quick (4)")
      ->check(CLI::IsMember({"full", "quick"}))
      ->capture_default_str();
  pe->add_option("--seed", pa->seed, "the cells' seed")->capture_default_str();
  pe->add_option("--jobs", pa->jobs, "cells in parallel (default: every core)")->check(CLI::Range(1, 1024));
  pe->add_option("--profiles", pa->profiles, "the profiles folder")->capture_default_str();
  return {pe, [pa] { need_dir("--out", pa->out); }, [pa] { return periods(*pa); }};
}

Command add_validate(CLI::App& app, const std::string& data) {
  auto va = std::make_shared<ValidateArgs>();
  va->profiles = data + "/profiles";
  CLI::App* vl = app.add_subcommand("validate", "predict a study's cells (make study's output) and compare");
  vl->add_option("--study", va->study, "the study's results folder")->required()->check(CLI::ExistingDirectory);
  vl->add_option("--out", va->out, "where validate.json goes")->required();
  vl->add_option("--profile", va->profile, "the machine profile of the machine the study ran on")
      ->capture_default_str();
  vl->add_option("--profiles", va->profiles, "the profiles folder")->capture_default_str();
  vl->add_option("--seed", va->seed, "the seed")->capture_default_str();
  return {vl, [va] { need_dir("--out", va->out); }, [va] { return validate(*va); }};
}

Command add_thesis(CLI::App& app, const std::string& data) {
  auto ta = std::make_shared<ThesisArgs>();
  ta->profiles = data + "/profiles";
  ta->traces = data + "/traces";
  CLI::App* th = app.add_subcommand("thesis", "the thesis's Figs 7, 8 (and 9, 10) and 16, simulated");
  th->add_option("--out", ta->out, "where thesis.json goes")->required();
  th->add_option("--profiles", ta->profiles, "the profiles folder")->capture_default_str();
  th->add_option("--traces", ta->traces, "the traces folder")->capture_default_str();
  th->add_option("--seed", ta->seed, "the seed")->capture_default_str();
  return {th, [ta] { need_dir("--out", ta->out); }, [ta] { return thesis(*ta); }};
}

Command add_calibrate(CLI::App& app) {
  auto ca = std::make_shared<CalibrateArgs>();
  CLI::App* cal = app.add_subcommand("calibrate", "measure this machine into a profile");
  cal->add_option("--out", ca->out, "the profile to write")->required();
  cal->add_option("--name", ca->name, "the profile's name")->capture_default_str();
  cal->add_option("--file", ca->file, "a file on the disk to measure (written first if missing)");
  cal->add_option("--size-mb", ca->file_mb, "the size of a file it writes, MiB")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cal->add_option("--cpu", ca->cpu, "the core to measure on (default: the last)")->check(CLI::Range(0, 4095));
  cal->add_option("--seconds", ca->seconds, "per disk measurement")
      ->check(CLI::Range(0.1, 60.0))
      ->capture_default_str();
  return {cal, [] {}, [ca] { return calibrate(*ca); }};
}

Command add_scale(CLI::App& app, const std::string& data) {
  auto sc = std::make_shared<ScaleArgs>();
  sc->profiles = data + "/profiles";
  CLI::App* scl =
      app.add_subcommand("scale", "many cores and devices: simulated seconds per second and the governor's cost");
  scl->add_option("--out", sc->out, "where scale.json goes")->required();
  scl->add_option("--cores", sc->cores, "core counts")->delimiter(',')->capture_default_str();
  scl->add_option("--profiles", sc->profiles, "the profiles folder")->capture_default_str();
  scl->add_option("--runtime", sc->seconds, "simulated seconds per point")
      ->check(CLI::Range(0.01, 60.0))
      ->capture_default_str();
  return {scl, [sc] { need_dir("--out", sc->out); }, [sc] { return scale(*sc); }};
}

int hio_sim(int argc, char** argv) {
  CLI::App app{
      "hio-sim: cores, neighbours, devices and ways of waiting, simulated, with hybridio's own adaptive "
      "policy deciding (docs/simulator.md)"};
  app.set_version_flag("--version", std::string("hio-sim ") + HIO_VERSION_STRING);
  app.require_subcommand(1);
  std::string data = data_dir();
  // In the order --help lists them.
  const Command commands[] = {add_run(app, data),     add_suite(app, data),    add_sensitivity(app, data),
                              add_periods(app, data), add_validate(app, data), add_thesis(app, data),
                              add_calibrate(app),     add_scale(app, data)};
  try {
    app.parse(argc, argv);
    for (const Command& c : commands)
      if (c.app->parsed()) c.check();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "hio-sim: %s\n", e.what());
    return 2;
  }
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "hio-sim: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hio-sim: %s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return hio_sim(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hio-sim: %s\n", e.what());
    return 1;
  }
}
