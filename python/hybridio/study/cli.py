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

import os
import tempfile
from dataclasses import dataclass

from ..common import command, corunner, hiobench, outdir, rounds
from ..common.cores import expand_cpus
from ..common.errors import UsageError
from ..fio import engine as fioengine
from ..handles import experiments as handle_experiments
from ..handles import runner as handles
from . import bursty, drivers, outputs, runner, timeline

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
BURSTY_RUNTIME = 2  # seconds: a 1000 ms burst needs a full on/off cycle per run


@dataclass(frozen=True)
class StudyOptions:
    """The options the study reads once resolve has checked them: hio-bench,
    the file target and its size, the queue depth, the rounds, seconds per
    run, the co-runner, seconds per timeline phase (0: skipped), the repeats
    of the handle experiments and the rounds of the bursty one (0: skipped)."""

    hio_bench: str
    file: str
    size: str
    iodepth: int
    repeats: int
    runtime: int
    corunner: str
    timeline: int
    handles: int
    bursty: int


def parse_args(argv):
    ap = command.study_parser(
        "hio-study",
        __doc__,
        f"a short study (about 4 min): targets {QUICK['targets']}, loads {QUICK['loads']}, "
        f"{QUICK['repeats']} rounds, no scaling experiment and no extra rounds, 1 round of the "
        f"bursty and handle experiments, the polling period at "
        f"{' and '.join(handle_experiments.SHORT_POLL_SIZES)} only",
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
        help="rounds of the bursty-neighbour experiment (hybridio.study.bursty: a busy loop on the core in "
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
    return command.with_defaults(a, DEFAULTS, QUICK)


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


def check_strategies(hio_bench, text):
    """The strategies asked for (text; default: all hio-bench has), each one hio-bench has."""
    known = hiobench.strategies(hio_bench)
    strategies = text.split(",") if text else known
    for s in strategies:
        if s not in known:
            raise UsageError(f"unknown strategy {s!r} (hio-bench has: {', '.join(known)})")
    return strategies


def check_cores(text):
    """The core set (default: the last CPU), each CPU of this machine."""
    ncpu = os.cpu_count() or 1
    cores = text or str(ncpu - 1)
    bad = [c for c in expand_cpus(cores) if c >= ncpu]
    if bad:
        raise UsageError(f"--cores={cores}: CPU {bad[0]} does not exist (this machine has {ncpu})")
    return cores


def check_corunner(kind, driver, loads):
    """A known co-runner, installed where a load asks for it, that the driver can score."""
    if kind not in corunner.KINDS:
        raise UsageError(f"unknown co-runner {kind!r} (co-runners: {', '.join(corunner.KINDS)})")
    if any(loads):
        corunner.check_installed()
    if driver.name == "fio" and kind == "memory":
        raise UsageError(
            "--driver fio --corunner memory: the memory co-runner is scored by its stress-ng ops over "
            "its whole run, which would include the 0.3 s fio takes to start its job; use the "
            "hio-bench driver"
        )


def check_targets(text, file, size, driver, threads, threads_text):
    """The targets (text; 'file' is the file target), each one the driver can
    open (an emulated one created at size); threads (threads_text as given)
    per cell."""
    targets = [file if t == "file" else t for t in text.split(",")]
    if driver.name == "fio" and max(threads) > 1 and any(t.startswith("emu:") for t in targets):
        raise UsageError(
            f"--driver fio --threads={threads_text}: each fio job has an emulated SSD of its own, so "
            f"more than one thread on an emu: target would measure that many SSDs; use --threads 1 "
            f"or the hio-bench driver"
        )
    for t in targets:
        if t.startswith("emu:"):
            why = drivers.probe(driver, t, "interrupt", size)
            if why:
                raise UsageError(f"unknown target {t!r}: {why}")
        elif not os.path.isdir(os.path.dirname(os.path.abspath(t))):
            raise UsageError(f"unknown target {t!r}: neither emu:PROFILE nor a path in an existing directory")
    return targets


def resolve(a):
    """The command's edge: checks every input before anything runs; returns
    (StudyOptions, the study's configuration, with the options of the
    experiments beside the matrix)."""
    hiobench.check(a.hio_bench)
    driver = drivers.make(a.driver, a.hio_bench, a.fio, a.fio_engine)
    driver.check()
    strategies = check_strategies(a.hio_bench, a.strategies)
    loads = int_list("loads", a.loads, 0, 100)
    if 0 not in loads:
        loads = [0] + loads  # the I/O alone is every cell's baseline
    threads = int_list("threads", a.threads, 1, 64)
    timeline_s = whole_number("timeline", a.timeline, 600, "whole seconds per phase from 0 (skip) to 600")
    handle_repeats = whole_number(
        "handles", a.handles, 20, "the repeats of the handle experiments, a whole number from 0 (skip) to 20"
    )
    bursty_rounds = whole_number(
        "bursty", a.bursty, 20, "the rounds of the bursty-neighbour experiment, a whole number from 0 (skip) to 20"
    )
    bursts = int_list("bursts", a.bursts, 0, 10000)
    budget_s = rounds.parse_budget(a.budget)
    if a.repeats < 1 or a.runtime < 1 or a.iodepth < 1:
        raise UsageError("--repeats, --runtime and --iodepth must be at least 1")
    cores = check_cores(a.cores)
    check_corunner(a.corunner, driver, loads)
    targets = check_targets(a.targets, a.file, a.size, driver, threads, a.threads)
    handle_options = None
    if handle_repeats:
        handle_options = handles.Options(a.hio_bench, a.runtime, handle_repeats, a.file, a.size, short=a.quick)
        handles.check(handle_options)  # the job files, and the file target of the polling-period experiment
    out = outdir.prepare(outdir.results_path(a.out, "hybridio-study"))
    o = StudyOptions(
        a.hio_bench,
        a.file,
        a.size,
        a.iodepth,
        a.repeats,
        a.runtime,
        a.corunner,
        timeline_s,
        handle_repeats,
        bursty_rounds,
    )
    return o, {
        "targets": targets,
        "strategies": strategies,
        "loads": loads,
        "threads": threads,
        "cores": cores,
        "out": out,
        "bursts": bursts,
        "budget_s": budget_s,
        "driver": driver,
        "timeline": timeline.Options(a.hio_bench, a.iodepth, a.corunner, cores),
        "bursty": bursty.Options(a.hio_bench, expand_cpus(cores)[-1], BURSTY_RUNTIME, a.size, bursty_rounds),
        "handles": handle_options,
    }


def run(o, cfg):
    study = runner.Study(o, cfg)
    study.announce()
    study.run()
    return outputs.write(study)


def main(argv=None):
    return command.run_command("hio-study", argv, parse_args, resolve, run)
