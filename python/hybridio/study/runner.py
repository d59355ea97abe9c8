# SPDX-License-Identifier: MIT
"""hio-study's runs, in order: the planned rounds of the co-runner matrix,
the bursty neighbour, extra rounds where a verdict is unresolved within the
budget, the timeline and the handle experiments; all of it measured into one
Study, which an interrupted study keeps."""

import json
import sys
import time

from tqdm import tqdm

from ..common import corunner, hiobench, process, rounds
from ..common.cores import CoreLimit
from ..handles import runner as handles
from . import bursty, drivers, matrix, timeline, verdict

SCALING_ROUNDS = 2  # the scaling experiment draws figures, no verdicts: two rounds give its error bars


class Runner:
    """Runs cells; every process it starts is in its own session and is killed
    when the call that started it leaves, however it leaves."""

    def __init__(self, corunner_kind, runtime, cfg, limit):
        """corunner_kind: the co-runner (corunner.KINDS); runtime: seconds per run."""
        self.corunner_kind, self.runtime, self.cfg, self.limit = corunner_kind, runtime, cfg, limit

    @property
    def timeout_s(self):
        """How long a run may take before it is killed; the co-runner beside
        it lives as long, and is ended sooner, when the run ends."""
        return process.timeout_s(self.runtime)

    def io(self, cell):
        cpus = self.cfg["cores"] if cell.cores == "limited" else None
        cmd = self.cfg["driver"].command(cell.target, cell.strategy, cell.threads, cell.iodepth, self.runtime, cpus)
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
        with corunner.CoRunner(self.corunner_kind, cell.load_pct, self.cfg["cores"], self.timeout_s) as co:
            self.limit.add(co.proc.pid)
            with corunner.CpuMeter(co, period=0.01) as meter:
                text = self.io(cell)
                ended = time.monotonic()
            io = self.cfg["driver"].parse(text, cell.target)
            return text, io, co.finish(), meter.rate((ended - io["runtime_s"], ended))

    def corunner_alone(self, load):
        """The co-runner alone: its bogo ops/s and its CPU in cores."""
        with corunner.CoRunner(self.corunner_kind, load, self.cfg["cores"], self.runtime) as co:
            self.limit.add(co.proc.pid)
            with corunner.CpuMeter(co) as meter:
                ops = co.result()
            return ops, meter.rate()


def supported_strategies(cfg, size):
    """({target: [strategy the driver can run on it]}, ["strategy on target: why not", ...]);
    size: that of a created file target."""
    supported, unsupported = {}, []
    for t in cfg["targets"]:
        supported[t] = []
        for s in cfg["strategies"]:
            why = drivers.probe(cfg["driver"], t, s, size)
            if why:
                unsupported.append(f"{s} on {t}: {why}")
            else:
                supported[t].append(s)
    return supported, unsupported


class Study:
    """One hio-study: its plan, and every figure measured so far."""

    def __init__(self, o, cfg):
        """o: the study's options (cli.StudyOptions); cfg: its configuration (cli.resolve)."""
        self.o, self.cfg, self.out = o, cfg, cfg["out"]
        supported, self.unsupported = supported_strategies(cfg, o.size)
        self.cells = matrix.expand(cfg["targets"], supported, cfg["loads"], cfg["threads"], o.iodepth)
        self.plan = [
            (r, c)
            for r, c in rounds.schedule(self.cells, o.repeats, block=matrix.compared)
            if c.experiment == "contention" or r < SCALING_ROUNDS
        ]
        self.solo_loads = [ld for ld in cfg["loads"] if ld]
        self.matrix_runs = len(self.plan) + len(self.solo_loads) * o.repeats  # with the co-runner alone
        self.timeline_runs = len(cfg["targets"]) * len(timeline.STRATEGIES) if o.timeline > 0 else 0
        self.handle_plan = handles.plan_for(cfg["handles"]) if cfg["handles"] else []
        self.bursty_runs = (
            bursty.steps(cfg["targets"], cfg["bursts"], list(bursty.STRATEGIES), o.bursty) if o.bursty else 0
        )
        # A CPU-bound co-runner's progress is the CPU time it got (its schedstat):
        # its bogo ops count in coarse steps over a 1 s run. A memory-bound one's is its ops.
        self.progress = "corunner_cpu" if o.corunner == "cpu" else "corunner_ops_per_s"
        self.measurements, self.tl = [], {}
        # Each round's own reference, the co-runner alone: {load: {round: figure}},
        # by the figure the score uses (progress), and by the other for the check.
        self.corunner_rounds = {"corunner_ops_per_s": {}, "corunner_cpu": {}}
        self.extra_rounds = []
        self.burst = bursty.Measured()
        self.handle_results = handles.new_results(
            o.hio_bench, o.runtime, o.handles, o.file, o.size, len(self.handle_plan)
        )
        self.interrupted = self.handles_failed = False
        self.limit = self.runner = self.bar = None

    def announce(self):
        """Prints what the study will run and about how long it takes."""
        o, cfg = self.o, self.cfg
        bursty_s = cfg["bursty"].runtime
        minutes = (
            self.matrix_runs * (o.runtime + 0.3)
            + self.timeline_runs * 3 * o.timeline
            + handles.estimate_s(self.handle_plan, o.runtime)
            + self.bursty_runs * (bursty_s + 0.3)
            + cfg["budget_s"]
        ) / 60
        print(
            f"hio-study: {len(self.plan)} runs of {len(self.cells)} cells ({o.repeats} round(s); the scaling "
            f"experiment's {min(o.repeats, SCALING_ROUNDS)}) + {len(self.solo_loads) * o.repeats} co-runner-alone "
            f"runs, {o.runtime} s each, + {self.timeline_runs} timeline runs of {3 * o.timeline} s "
            f"+ {self.bursty_runs} bursty-neighbour runs of {bursty_s} s "
            f"+ {len(self.handle_plan)} handle-experiment runs ({o.handles} repeat(s), all cores) "
            f"+ up to {cfg['budget_s'] / 60:g} min of rounds where a verdict is unresolved "
            f"(about {minutes:.1f} min); results in {self.out}",
            flush=True,
        )

    def run(self):
        """Runs everything planned, in order; Ctrl-C stops it, and what was measured stays."""
        o, cfg = self.o, self.cfg
        self.limit = CoreLimit(cfg["cores"])
        self.runner = Runner(o.corunner, o.runtime, cfg, self.limit)
        total = self.matrix_runs + self.timeline_runs + len(self.handle_plan) + self.bursty_runs
        self.bar = tqdm(total=total, unit="run", dynamic_ncols=True)
        try:
            self.run_rounds()
            if self.bursty_runs:
                steps = bursty.plan(cfg["targets"], cfg["bursts"], list(bursty.STRATEGIES), o.bursty)
                self.burst.run(cfg["bursty"], steps, self.step, self.limit.add)
            self.run_extra_rounds()
            if self.timeline_runs:
                self.tl = timeline.run(cfg["timeline"], self.limit, cfg["targets"], o.timeline, self.step)
                (self.out / "timeline.json").write_text(json.dumps(self.tl, indent=1))
            if self.handle_plan:
                self.run_handles()
        except KeyboardInterrupt:
            self.interrupted = True
            self.bar.write(
                "hio-study: interrupted; the co-runner is stopped, writing what was measured", file=sys.stderr
            )
        finally:
            self.bar.close()
            self.limit.close()

    def step(self, what):
        self.bar.update()
        self.bar.set_description(what[:40])

    def run_rounds(self):
        """The planned rounds: in each, the co-runner alone at every load, then the round's cells."""
        for rep in range(self.o.repeats):
            for load in self.solo_loads:
                self.corunner_alone(load, rep)
            for r, c in self.plan:
                if r == rep:
                    self.measure(c, r)

    def corunner_alone(self, load, r):
        self.bar.set_description(f"co-runner alone {load}%")
        ops, cpu = self.runner.corunner_alone(load)
        self.corunner_rounds["corunner_ops_per_s"].setdefault(load, {})[r] = ops
        self.corunner_rounds["corunner_cpu"].setdefault(load, {})[r] = cpu
        self.bar.update()

    def measure(self, c, r):
        """One run of cell c in round r, its whole output kept under raw/."""
        self.bar.set_description(f"{c.target[:18]} {c.strategy} {c.threads}t {c.load_pct}%")
        text, io, ops, cpu = self.runner.cell(c)
        (self.out / "raw" / f"{len(self.measurements):04d}.json").write_text(
            json.dumps(
                {
                    "cell": c.__dict__,
                    "repeat": r,
                    "corunner_ops_per_s": ops,
                    "corunner_cpu": cpu,
                    self.cfg["driver"].name: json.loads(text),
                },
                indent=1,
            )
        )
        self.measurements.append({"cell": c, "repeat": r, "io": io, "corunner_ops_per_s": ops, "corunner_cpu": cpu})
        self.bar.update()

    def paired(self, target):
        """The target's verdict from its paired rounds (verdict.paired_verdict)."""
        return verdict.paired_verdict(self.measurements, self.corunner_rounds[self.progress], target, self.progress)

    def extra_round(self, experiment, target, group, claim, r):
        """The runs of one more round for a claim: the strategies it compares
        and the round's references."""
        if experiment == "bursty":
            return bursty.extra_round(target, group, claim["compared"], r)
        references = verdict.best_alone(self.measurements, target)
        return matrix.extra_round(self.cells, target, group, r, claim["compared"], references)

    def candidates(self):
        """Every claim as ((experiment, target, load or burst), claim,
        threshold, seconds one more round for it takes)."""
        bursty_s = self.cfg["bursty"].runtime
        for t in self.cfg["targets"]:
            for c in self.paired(t)["claims"]:
                if c.get("load") is not None:
                    runs = len(self.extra_round("contention", t, c["load"], c, 0)) + (1 if c["load"] else 0)
                    yield ("contention", t, c["load"]), c, c["threshold"], runs * (self.o.runtime + 0.3)
            for c in bursty.claims(bursty.summarize(self.burst.results, [t], self.cfg["bursts"]), t):
                runs = len(self.extra_round("bursty", t, c["burst_ms"], c, 0))
                yield ("bursty", t, c["burst_ms"]), c, c["threshold"], runs * (bursty_s + 0.3)

    def run_extra_rounds(self):
        """Within the budget, more rounds where a verdict is unresolved (common.rounds)."""
        started = time.monotonic()
        while self.cfg["budget_s"] > 0:
            pick = rounds.next_to_resolve(self.candidates(), self.cfg["budget_s"] - (time.monotonic() - started))
            if pick is None:
                return
            self.run_extra_round(*pick)

    def run_extra_round(self, key, claim, projected, odds):
        """One more round of the group (experiment, target, load or burst) of
        an unresolved claim, listed in extra_rounds."""
        experiment, target, group = key
        done = sum(e["experiment"] == experiment for e in self.extra_rounds)
        r = (self.o.bursty if experiment == "bursty" else self.o.repeats) + done
        todo = self.extra_round(experiment, target, group, claim, r)
        where = bursty.burst_name(group) if experiment == "bursty" else f"{group}%"
        self.extra_rounds.append(
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
        self.bar.total += len(todo) + (1 if experiment == "contention" and group else 0)
        why = (
            "one more gives it an interval"
            if claim["interval"]["n"] < 2
            else f"{odds:.0%} chance that {projected} more round(s) resolve it"
        )
        self.bar.write(
            f"hio-study: round {r + 1} of {target} {where}: {claim['text']} is unresolved "
            f"({claim['interval_text']}; {why})"
        )
        if experiment == "bursty":
            self.burst.run(self.cfg["bursty"], todo, self.step, self.limit.add)
            return
        if group:
            self.corunner_alone(group, r)
        for c in todo:
            self.measure(c, r)

    def run_handles(self):
        """The handle experiments, not on the limited cores: they use the whole
        machine, without a co-runner. A failure stops them, not the study."""
        try:
            handles.run(self.cfg["handles"], self.out, self.step, self.handle_plan, self.handle_results)
        except RuntimeError as e:
            self.handles_failed = True
            self.handle_results["error"] = str(e)
            self.bar.write(f"hio-study: the handle experiments stopped: {e}", file=sys.stderr)
