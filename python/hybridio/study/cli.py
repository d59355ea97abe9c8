# SPDX-License-Identifier: MIT
"""hio-study: how each way of waiting for I/O fares when the CPU is shared.

Runs build/hio-bench (or fio with hybridio's fio engine: --driver fio) beside
a CPU-bound co-runner (stress-ng) on a limited set of cores, over targets x
wait strategies x co-runner loads (and I/O thread counts), and writes the
raw JSON, summary.json, summary.csv, PNG plots and a self-contained
report.html with a verdict per target. Then the
handle experiments (hybridio.handles: priority, queues, the polling period,
the cache, read-ahead, split queues) run on all cores without a co-runner.

`hio-study rocksdb` runs the RocksDB macro study instead (RocksDB's mixgraph
on Posix and on hybridio's RocksDB plugin): hio-study rocksdb --help.
"""

import argparse
import json
import os
import platform
import sys
import tempfile
import time

from tqdm import tqdm

from . import (
    bursty,
    command,
    corunner,
    drivers,
    fioengine,
    handle_findings,
    handles,
    hiobench,
    matrix,
    outdir,
    plots,
    report,
    rounds,
    summary,
    timeline,
    verdict,
)
from .cores import CoreLimit
from .errors import UsageError

DEFAULT_TARGETS = "file,emu:pcie3,emu:pcie4"
DEFAULT_LOADS = "0,5,10,25,50,100"
QUICK = {
    "targets": "file,emu:pcie4",
    "loads": "0,50,100",
    "threads": "1",
    "repeats": 3,
    "runtime": 1,
    "handles": "1",
    "bursty": "1",
    "bursts": "50,0",
    "budget": "0",
}
DEFAULTS = {
    "targets": DEFAULT_TARGETS,
    "loads": DEFAULT_LOADS,
    "threads": "1,2,4",
    "repeats": 3,
    "runtime": 1,
    "handles": "2",
    "bursty": "3",
    "bursts": "50,200,0",
    "budget": "2m",
}
SCALING_ROUNDS = 2  # the scaling experiment draws figures, no verdicts: two rounds give its error bars
BURSTY_RUNTIME = 2  # seconds: a 1000 ms burst needs a full on/off cycle per run


def parse_args(argv):
    ap = command.study_parser(
        "hio-study",
        __doc__,
        f"a short study (about 4 min): targets {QUICK['targets']}, loads {QUICK['loads']}, "
        f"{QUICK['repeats']} rounds, no scaling experiment and no extra rounds, 1 round of the "
        f"bursty and handle experiments, the polling period at "
        f"{' and '.join(handle_findings.SHORT_POLL_SIZES)} only",
    )
    ap.add_argument(
        "--targets",
        help=f"comma-separated: 'file' (see --file), emu:PROFILE[,...], or a path (default: {DEFAULT_TARGETS})",
    )
    ap.add_argument(
        "--file",
        default=os.path.join(tempfile.gettempdir(), "hybridio-study.dat"),
        help="the local-disk target, created if absent (default: %(default)s)",
    )
    ap.add_argument("--size", default="1g", help="size of a created file target (default: %(default)s)")
    ap.add_argument("--strategies", help="comma-separated (default: every strategy hio-bench has)")
    ap.add_argument("--loads", help=f"co-runner loads in %% (default: {DEFAULT_LOADS})")
    ap.add_argument("--threads", help="I/O thread counts for the scaling experiment (default: 1,2,4)")
    ap.add_argument("--iodepth", type=int, default=1, help="queue depth per thread (default: %(default)s)")
    ap.add_argument(
        "--repeats",
        type=int,
        help="rounds of every cell, interleaved; 3 or more give each verdict an interval (default: 3)",
    )
    ap.add_argument(
        "--budget",
        help="time for more rounds where a verdict is unresolved, those likeliest to resolve per "
        "second first (docs/study.md), e.g. 10m or 90s; 0: none (default: 2m, --quick: 0)",
    )
    ap.add_argument("--runtime", type=int, help="seconds per run (default: 1)")
    ap.add_argument("--cores", help="the core set shared by the I/O and the co-runner (default: the last CPU)")
    ap.add_argument(
        "--timeline",
        default="1",
        help="seconds per phase of the timeline experiment (alone, beside the co-runner, alone); "
        "0 skips it (default: %(default)s)",
    )
    ap.add_argument(
        "--handles",
        help="repeats of the handle experiments (hybridio.handles: priority, queues, polling period, "
        "cache, read-ahead, split queues; on all cores, no co-runner), 0..20; 0 skips them "
        "(default: 2, --quick: 1)",
    )
    ap.add_argument(
        "--bursty",
        help="rounds of the bursty-neighbour experiment (hybridio.bursty: a busy loop on the core in "
        "on/off bursts, poll, interrupt and adaptive under both objectives), 0..20; 0 skips it "
        "(default: 3, --quick: 1)",
    )
    ap.add_argument(
        "--bursts", help="its on/off burst lengths in ms, 0 for always on (default: 50,200,0; --quick: 50,0)"
    )
    ap.add_argument("--corunner", default="cpu", help="cpu (stress-ng --cpu) or memory (stress-ng --stream)")
    ap.add_argument("--hio-bench", default=hiobench.default_path(), help="(default: %(default)s)")
    ap.add_argument(
        "--driver",
        default="hio-bench",
        choices=drivers.NAMES,
        help="what runs the co-runner matrix's cells: hio-bench, or fio with hybridio's fio engine "
        "(an emu: target is then a diskless job with hio_emu; --threads stays 1 there). The "
        "timeline, bursty and handle experiments always run on hio-bench (default: %(default)s)",
    )
    ap.add_argument("--fio", default="fio", help="--driver fio: the fio program (default: %(default)s)")
    ap.add_argument(
        "--fio-engine", default=fioengine.default_engine(), help="--driver fio: the engine (default: %(default)s)"
    )
    a = ap.parse_args(argv)
    if a.driver == "fio" and a.threads is None:
        a.threads = "1"  # one emulated SSD per fio job: see resolve
    for k, v in (QUICK if a.quick else DEFAULTS).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    return a


def int_list(name, text, lo, hi):
    try:
        vals = [int(x) for x in text.split(",")]
    except ValueError:
        raise UsageError(f"--{name}={text!r}: expected comma-separated integers") from None
    bad = [v for v in vals if not lo <= v <= hi]
    if bad:
        raise UsageError(f"--{name}: {bad[0]} is outside {lo}..{hi}")
    return vals


def whole_number(name, value, hi, expected):
    """value as an int in 0..hi, else a UsageError naming it and what was expected."""
    try:
        n = int(value)
        if not 0 <= n <= hi:
            raise ValueError
    except ValueError:
        raise UsageError(f"--{name} {value!r}: expected {expected}") from None
    return n


def resolve(a):
    """Checks every input before anything runs; returns the study's configuration."""
    hiobench.check(a.hio_bench)
    driver = drivers.make(a)
    driver.check()
    known = hiobench.strategies(a.hio_bench)
    strategies = a.strategies.split(",") if a.strategies else known
    for s in strategies:
        if s not in known:
            raise UsageError(f"unknown strategy {s!r} (hio-bench has: {', '.join(known)})")
    loads = int_list("loads", a.loads, 0, 100)
    if 0 not in loads:
        loads = [0] + loads  # the I/O alone is every cell's baseline
    threads = int_list("threads", a.threads, 1, 64)
    a.timeline = whole_number("timeline", a.timeline, 600, "whole seconds per phase from 0 (skip) to 600")
    a.handles = whole_number(
        "handles", a.handles, 20, "the repeats of the handle experiments, a whole number from 0 (skip) to 20"
    )
    a.bursty = whole_number(
        "bursty", a.bursty, 20, "the rounds of the bursty-neighbour experiment, a whole number from 0 (skip) to 20"
    )
    bursts = int_list("bursts", a.bursts, 0, 10000)
    budget_s = rounds.parse_budget(a.budget)
    if a.repeats < 1 or a.runtime < 1 or a.iodepth < 1:
        raise UsageError("--repeats, --runtime and --iodepth must be at least 1")
    ncpu = os.cpu_count() or 1
    cores = a.cores or str(ncpu - 1)
    bad = [c for c in corunner.expand_cpus(cores) if c >= ncpu]
    if bad:
        raise UsageError(f"--cores={cores}: CPU {bad[0]} does not exist (this machine has {ncpu})")
    if a.corunner not in corunner.KINDS:
        raise UsageError(f"unknown co-runner {a.corunner!r} (co-runners: {', '.join(corunner.KINDS)})")
    if any(loads):
        corunner.check_installed()
    if driver.name == "fio" and a.corunner == "memory":
        raise UsageError(
            "--driver fio --corunner memory: the memory co-runner is scored by its stress-ng ops over "
            "its whole run, which would include the 0.3 s fio takes to start its job; use the "
            "hio-bench driver"
        )
    targets = [a.file if t == "file" else t for t in a.targets.split(",")]
    if driver.name == "fio" and max(threads) > 1 and any(t.startswith("emu:") for t in targets):
        raise UsageError(
            f"--driver fio --threads={a.threads}: each fio job has an emulated SSD of its own, so "
            f"more than one thread on an emu: target would measure that many SSDs; use --threads 1 "
            f"or the hio-bench driver"
        )
    for t in targets:
        if t.startswith("emu:"):
            why = probe(driver, a, t, "interrupt")
            if why:
                raise UsageError(f"unknown target {t!r}: {why}")
        elif not os.path.isdir(os.path.dirname(os.path.abspath(t))):
            raise UsageError(f"unknown target {t!r}: neither emu:PROFILE nor a path in an existing directory")
    if a.handles:
        handles.check(a)  # the job files, and the file target of the polling-period experiment
    out = outdir.prepare(outdir.results_path(a.out, "hybridio-study"))
    return {
        "targets": targets,
        "strategies": strategies,
        "loads": loads,
        "threads": threads,
        "cores": cores,
        "out": out,
        "bursts": bursts,
        "budget_s": budget_s,
        "driver": driver,
    }


def probe(driver, a, target, strategy):
    """None if the target can run the strategy, else the driver's reason. The
    first probe of a missing file creates it."""
    return driver.probe(target, strategy, a.size if not target.startswith("emu:") else None)


class Runner:
    """Runs cells; every process it starts is in its own session and is killed
    when the call that started it leaves, however it leaves."""

    def __init__(self, a, cfg, limit):
        self.a, self.cfg, self.limit = a, cfg, limit

    @property
    def timeout_s(self):
        """How long a run may take before it is killed; the co-runner beside
        it lives as long, and is ended sooner, when the run ends."""
        return self.a.runtime * 5 + 60

    def io(self, cell):
        cpus = self.cfg["cores"] if cell.cores == "limited" else None
        cmd = self.cfg["driver"].command(cell.target, cell.strategy, cell.threads, cell.iodepth, self.a.runtime, cpus)
        return hiobench.run(cmd, self.timeout_s, self.limit.add)

    def cell(self, cell):
        """The driver's output and its figures, and the co-runner's bogo ops/s
        and CPU (in cores) beside it (None without one). The co-runner starts
        first and is ended when the I/O has ended, and its CPU is read over
        the I/O's own runtime: fio takes about 0.3 s to start its job, which
        a co-runner of a fixed length would spend alone."""
        if not cell.load_pct:
            text = self.io(cell)
            return text, self.cfg["driver"].parse(text, cell.target), None, None
        with corunner.CoRunner(self.a.corunner, cell.load_pct, self.cfg["cores"], self.timeout_s) as co:
            self.limit.add(co.proc.pid)
            with corunner.CpuMeter(co, period=0.01) as meter:
                text = self.io(cell)
                ended = time.monotonic()
            io = self.cfg["driver"].parse(text, cell.target)
            return text, io, co.finish(), meter.rate((ended - io["runtime_s"], ended))

    def corunner_alone(self, load):
        """The co-runner alone: its bogo ops/s and its CPU in cores."""
        with corunner.CoRunner(self.a.corunner, load, self.cfg["cores"], self.a.runtime) as co:
            self.limit.add(co.proc.pid)
            with corunner.CpuMeter(co) as meter:
                ops = co.result()
            return ops, meter.rate()


def run(a, cfg):
    out = cfg["out"]
    unsupported, supported = [], {}
    for t in cfg["targets"]:
        supported[t] = []
        for s in cfg["strategies"]:
            why = probe(cfg["driver"], a, t, s)
            if why:
                unsupported.append(f"{s} on {t}: {why}")
            else:
                supported[t].append(s)
    cells = matrix.expand(cfg["targets"], supported, cfg["loads"], cfg["threads"], a.iodepth)
    plan = [
        (r, c)
        for r, c in matrix.schedule(cells, a.repeats, block=matrix.compared)
        if c.experiment == "contention" or r < SCALING_ROUNDS
    ]
    solo_loads = [ld for ld in cfg["loads"] if ld]
    timeline_runs = len(cfg["targets"]) * len(timeline.STRATEGIES) if a.timeline > 0 else 0
    handle_plan = handles.plan_for(a) if a.handles else []
    bursty_runs = bursty.steps(cfg["targets"], cfg["bursts"], list(bursty.STRATEGIES), a.bursty) if a.bursty else 0
    total = len(plan) + len(solo_loads) * a.repeats + timeline_runs + len(handle_plan) + bursty_runs
    minutes = (
        (total - timeline_runs - len(handle_plan) - bursty_runs) * (a.runtime + 0.3)
        + timeline_runs * 3 * a.timeline
        + handles.estimate_s(handle_plan, a.runtime)
        + bursty_runs * (BURSTY_RUNTIME + 0.3)
        + cfg["budget_s"]
    ) / 60
    print(
        f"hio-study: {len(plan)} runs of {len(cells)} cells ({a.repeats} round(s); the scaling experiment's "
        f"{min(a.repeats, SCALING_ROUNDS)}) + {len(solo_loads) * a.repeats} co-runner-alone "
        f"runs, {a.runtime} s each, + {timeline_runs} timeline runs of {3 * a.timeline} s "
        f"+ {bursty_runs} bursty-neighbour runs of {BURSTY_RUNTIME} s "
        f"+ {len(handle_plan)} handle-experiment runs ({a.handles} repeat(s), all cores) "
        f"+ up to {cfg['budget_s'] / 60:g} min of rounds where a verdict is unresolved "
        f"(about {minutes:.1f} min); results in {out}",
        flush=True,
    )
    # A CPU-bound co-runner's progress is the CPU time it got (its schedstat):
    # its bogo ops count in coarse steps over a 1 s run. A memory-bound one's is its ops.
    progress = "corunner_cpu" if a.corunner == "cpu" else "corunner_ops_per_s"
    limit = CoreLimit(cfg["cores"])
    runner = Runner(a, cfg, limit)
    measurements, tl = [], {}
    handle_results = handles.new_results(a.hio_bench, a.runtime, a.handles, a.file, a.size, len(handle_plan))
    interrupted = False
    handles_failed = False
    # Each round's own reference, the co-runner alone: {load: {round: figure}},
    # by the figure the score uses (progress), and by the other for the check.
    corunner_rounds = {"corunner_ops_per_s": {}, "corunner_cpu": {}}
    extra_rounds = []
    bar = tqdm(total=total, unit="run", dynamic_ncols=True)

    def corunner_alone(load, r):
        bar.set_description(f"co-runner alone {load}%")
        ops, cpu = runner.corunner_alone(load)
        corunner_rounds["corunner_ops_per_s"].setdefault(load, {})[r] = ops
        corunner_rounds["corunner_cpu"].setdefault(load, {})[r] = cpu
        bar.update()

    def measure(c, r):
        bar.set_description(f"{c.target[:18]} {c.strategy} {c.threads}t {c.load_pct}%")
        text, io, ops, cpu = runner.cell(c)
        (out / "raw" / f"{len(measurements):04d}.json").write_text(
            json.dumps(
                {
                    "cell": c.__dict__,
                    "repeat": r,
                    "corunner_ops_per_s": ops,
                    "corunner_cpu": cpu,
                    cfg["driver"].name: json.loads(text),
                },
                indent=1,
            )
        )
        measurements.append({"cell": c, "repeat": r, "io": io, "corunner_ops_per_s": ops, "corunner_cpu": cpu})
        bar.update()

    def paired(t):
        return verdict.paired_verdict(measurements, corunner_rounds[progress], t, progress)

    def step(what):
        bar.update()
        bar.set_description(what[:40])

    burst = bursty.Measured()
    strategies_b = list(bursty.STRATEGIES)
    ba = argparse.Namespace(
        hio_bench=a.hio_bench,
        cpu=corunner.expand_cpus(cfg["cores"])[-1],
        runtime=BURSTY_RUNTIME,
        size=a.size,
        repeats=a.bursty,
        seed=0,
    )

    def extra_round(experiment, target, group, claim, r):
        """The runs of one more round for a claim: the strategies it compares
        and the round's references."""
        if experiment == "bursty":
            return bursty.extra_round(target, group, claim["compared"], r)
        return rounds.group(cells, target, group, r, claim["compared"], verdict.best_alone(measurements, target))

    def candidates():
        """Every claim as ((experiment, target, load or burst), claim,
        threshold, seconds one more round for it takes)."""
        for t in cfg["targets"]:
            for c in paired(t)["claims"]:
                if c.get("load") is not None:
                    runs = len(extra_round("contention", t, c["load"], c, 0)) + (1 if c["load"] else 0)
                    yield ("contention", t, c["load"]), c, c["threshold"], runs * (a.runtime + 0.3)
            for c in bursty.claims(bursty.summarize(burst.results, [t], cfg["bursts"]), t):
                runs = len(extra_round("bursty", t, c["burst_ms"], c, 0))
                yield ("bursty", t, c["burst_ms"]), c, c["threshold"], runs * (BURSTY_RUNTIME + 0.3)

    try:
        for rep in range(a.repeats):
            for load in solo_loads:
                corunner_alone(load, rep)
            for r, c in plan:
                if r == rep:
                    measure(c, r)
        if bursty_runs:
            burst.run(ba, bursty.plan(cfg["targets"], cfg["bursts"], strategies_b, a.bursty), step, limit.add)
        # Then, within the budget, more rounds where a verdict is unresolved.
        started = time.monotonic()
        while cfg["budget_s"] > 0:
            pick = rounds.next_to_resolve(candidates(), cfg["budget_s"] - (time.monotonic() - started))
            if pick is None:
                break
            (experiment, target, group), claim, projected, odds = pick
            done = sum(e["experiment"] == experiment for e in extra_rounds)
            r = (a.bursty if experiment == "bursty" else a.repeats) + done
            todo = extra_round(experiment, target, group, claim, r)
            where = bursty.burst_name(group) if experiment == "bursty" else f"{group}%"
            extra_rounds.append(
                {
                    "experiment": experiment,
                    "round": r + 1,
                    "target": target,
                    "group": group,
                    "where": where,
                    "claim": claim["id"],
                    "compared": claim["compared"],
                    "cells": [[c[4], c[3]] for c in todo if c[1] == "cell"]
                    if experiment == "bursty"
                    else [[c.strategy, c.load_pct] for c in todo],
                    "interval": claim["interval"],
                    "projected_rounds": projected,
                    "chance": odds,
                }
            )
            bar.total += len(todo) + (1 if experiment == "contention" and group else 0)
            why = (
                "one more gives it an interval"
                if claim["interval"]["n"] < 2
                else f"{odds:.0%} chance that {projected} more round(s) resolve it"
            )
            bar.write(
                f"hio-study: round {r + 1} of {target} {where}: {claim['text']} is unresolved "
                f"({claim['interval_text']}; {why})"
            )
            if experiment == "bursty":
                burst.run(ba, todo, step, limit.add)
                continue
            if group:
                corunner_alone(group, r)
            for c in todo:
                measure(c, r)
        if timeline_runs:
            tl = timeline.run(a, cfg, limit, cfg["targets"], a.timeline, step)
            (out / "timeline.json").write_text(json.dumps(tl, indent=1))
        if handle_plan:
            try:
                # Not on the limited cores: these use the whole machine, without a co-runner.
                handles.run(a, out, step, handle_plan, handle_results)
            except RuntimeError as e:
                handles_failed = True
                handle_results["error"] = str(e)
                bar.write(f"hio-study: the handle experiments stopped: {e}", file=sys.stderr)
    except KeyboardInterrupt:
        interrupted = True
        bar.write("hio-study: interrupted; the co-runner is stopped, writing what was measured", file=sys.stderr)
    finally:
        bar.close()
        limit.close()
    burst_results = burst.results
    rows = summary.summarize(
        measurements, {ld: list(by_round.values()) for ld, by_round in corunner_rounds["corunner_ops_per_s"].items()}
    )
    summary.write(rows, out)
    figures = plots.draw_all(rows, cfg["targets"], out / "plots")
    burst_rows = bursty.summarize(burst_results, cfg["targets"], cfg["bursts"]) if burst_results else []
    burst_react = bursty.reaction_summary(burst_results, burst_rows, cfg["targets"]) if burst_results else {}
    if burst_results:
        (out / "bursty.json").write_text(
            json.dumps({"rows": burst_rows, "reactions": burst_react, "results": burst_results}, indent=1)
        )
    verdicts = []
    for t in cfg["targets"]:
        path = out / "plots" / f"{plots.slug(t)}-timeline.png"
        if plots.timeline(tl.get(t), t, path):
            figures[t].append(("The co-runner starts and stops", path))
        p = paired(t)
        v = verdict.verdict(rows, t, p)
        v["claims"] = p["claims"] + bursty.claims(burst_rows, t)
        v["paired_winners"] = p["winners"]
        v["extra_rounds"] = [e for e in extra_rounds if e["target"] == t]
        v["claim_counts"] = {k: sum(c["state"] == k for c in v["claims"]) for k in ("met", "not_met", "unresolved")}
        v["noise"] = verdict.noise(measurements, t)
        v["progress_agreement"] = verdict.progress_agreement(measurements, corunner_rounds, t)
        v["sentences"] = (
            v["sentences"]
            + p["sentences"]
            + ([v["noise"]["sentence"]] if v["noise"] else [])
            + ([v["progress_agreement"]["sentence"]] if v["progress_agreement"] else [])
        )
        v["timeline"], said = timeline.findings(tl, rows, t)
        v["sentences"] = v["sentences"] + said + bursty.findings(burst_rows, burst_react, t)
        path = out / "plots" / f"{plots.slug(t)}-bursty.png"
        if plots.bursty(burst_rows, t, path):
            figures[t].append(("A neighbour in bursts", path))
        path = out / "plots" / f"{plots.slug(t)}-bursty-timeline.png"
        if plots.bursty_timeline(bursty.example_run(burst_results, t), t, path):
            figures[t].append(("Adaptive following the bursts, 1 ms log", path))
        v["emulated"] = any(r["emulated"] for r in rows if r["target"] == t)
        verdicts.append(v)
    (out / "verdicts.json").write_text(json.dumps(verdicts, indent=1, default=str))
    handle_section = None
    if handle_plan:
        found = handle_findings.findings(handle_results)
        handle_results["findings"] = found
        (out / "handles.json").write_text(json.dumps(handle_results, indent=1, default=str))
        handle_section = {
            "findings": found,
            "figures": plots.draw_handles(found, out / "plots"),
            "repeats": a.handles,
            "runs": len(handle_results["runs"]),
            "planned": len(handle_plan),
            "error": handle_results["error"],
            "file": a.file,
        }
    overall = verdict.adaptive_overall(rows)
    meta = {
        "machine": f"{platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}",
        "driver": cfg["driver"].name,
        "corunner": f"stress-ng {a.corunner}",
        "cores": limit.how,
        "runtime": a.runtime,
        "repeats": a.repeats,
        "interrupted": interrupted,
        "unsupported": unsupported,
        "extra_rounds": extra_rounds,
        "budget_s": cfg["budget_s"],
        "adaptive_overall": overall["sentence"] if overall else None,
    }
    path = report.render(out, rows, verdicts, figures, meta, handle_section)
    for v in verdicts:
        print(f"\n{v['target']}:")
        for s in v["sentences"]:
            print(f"  {s}")
    n = {k: sum(v["claim_counts"][k] for v in verdicts) for k in ("met", "not_met", "unresolved")}
    print(
        f"\nVerdicts: {n['met']} met, {n['not_met']} not met, {n['unresolved']} unresolved "
        f"({len(extra_rounds)} extra round(s) within the {cfg['budget_s'] / 60:g} min budget)."
    )
    if overall:
        print(f"\n{overall['sentence']}")
    if handle_section:
        print("\nHandles, queues and the cache (all cores, no co-runner):")
        for f in handle_section["findings"].values():
            print(f"  {f['title']}{' (emulated SSD)' if f['emulated'] else ''}:")
            for s in f["sentences"]:
                print(f"    {s}")
        if handle_section["error"]:
            print(f"  Stopped early: {handle_section['error']}")
    print(f"\nReport: {path}\nSummary: {out / 'summary.csv'}")
    return 130 if interrupted else (1 if handles_failed else 0)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["rocksdb"]:
        from . import rocksdb_study

        return rocksdb_study.main(argv[1:])
    return command.run_command("hio-study", argv, parse_args, resolve, run)


if __name__ == "__main__":
    sys.exit(main())
