# SPDX-License-Identifier: MIT
"""The handle experiments: priority, dedicated against shared queues, the
completion thread's polling period, the block cache, read-ahead, and reads
split from writes.

Each runs build/hio-bench on one of handles/jobs/*.fio with command-line
overrides, on both cores of the machine and without a co-runner, repeats
every configuration (all configurations of a repeat, then the next repeat,
so drift hits them alike). Every run's whole JSON is kept under
<out>/raw/handles/; the parsed figures go to <out>/handles.json;
hybridio.handles.findings turns them into tables, claims and sentences.

Standalone: python3 -m hybridio.handles [--only priority,readahead ...]
"""

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..common import hiobench, outdir, process, stats
from ..common.command import study_parser
from ..common.errors import UsageError
from .experiments import (
    CACHE_MB,
    EXPERIMENTS,
    POLL_PERIODS,
    POLL_SIZES,
    POLL_TARGET_EMU,
    QUEUE_JOBS,
    QUEUE_MODES,
    READAHEAD_MODES,
    READAHEAD_PATTERNS,
    SHORT_POLL_PERIODS,
    SHORT_POLL_SIZES,
    SPLIT_QUEUES,
)
from .findings import findings

JOBS_DIR = Path(__file__).resolve().parent / "jobs"  # package data: installed with the package
JOB_FILES = {
    "priority": "priority.fio",
    "queues": "queues.fio",
    "poll_period": "poll_period.fio",
    "cache": "cache.fio",
    "readahead": "readahead.fio",
    "split": "split_rw.fio",
}
# Seconds a job file runs before it measures (its ramp_time), for the time estimate.
RAMP_S = {"cache": 1.0, "readahead": 0.5, "poll_period": 0.5}
OVERHEAD_S = 0.2
# Runs per repeat are few here, and one second moves these figures by 5-10%:
# they run this many times the runtime.
LONGER = {"priority": 2, "cache": 2, "readahead": 2, "split": 2}


def run_s(experiment, runtime):
    """A run's measured seconds."""
    return runtime * LONGER.get(experiment, 1)


@dataclass(frozen=True)
class Options:
    """What the experiments run with: hio-bench, seconds per run, repeats,
    the polling period's file target (None or empty: the emulated SSD only)
    and its size, the experiments (None: all), and the shorter
    polling-period sweep (hio-study --quick)."""

    hio_bench: str
    runtime: float
    repeats: int
    file: Optional[str] = None
    size: str = "1g"
    only: Optional[list] = None
    short: bool = False


@dataclass
class Run:
    experiment: str
    key: str  # what the configuration is, e.g. "poll-emu_pcie4-4k-p20"
    config: dict
    args: list  # hio-bench overrides
    target: str = "emu:pcie4"
    repeat: int = 0

    @property
    def raw_name(self):
        return f"r{self.repeat + 1}-{self.key}.json"


def configurations(file=None, size=None, only=None, short=False):
    """Every configuration once (repeat 0), in the order a repeat runs them.
    file/size: the file target of the polling-period experiment (None: the
    emulated SSD only); short: its shorter sweep (SHORT_POLL_*)."""
    only = set(only or EXPERIMENTS)
    out = []
    if "priority" in only:
        out.append(Run("priority", "priority-high", {"priority": "on"}, []))
        out.append(Run("priority", "priority-normal", {"priority": "off"}, ["--handle_priority=normal"]))
    if "queues" in only:
        for q in QUEUE_MODES:
            for n in QUEUE_JOBS:
                out.append(
                    Run("queues", f"queues-{q}-{n}jobs", {"queue": q, "jobs": n}, [f"--numjobs={n}", f"--queue={q}"])
                )
    if "poll_period" in only:
        targets = [(POLL_TARGET_EMU, [])]
        if file:
            targets.append((file, [f"--filename={file}", "--direct=1", f"--size={size}"]))
        for target, targs in targets:
            tslug = "emu_pcie4" if target == POLL_TARGET_EMU else "file"
            for bs in SHORT_POLL_SIZES if short else POLL_SIZES:
                for p in (SHORT_POLL_PERIODS if short else POLL_PERIODS) + ("auto",):
                    out.append(
                        Run(
                            "poll_period",
                            f"poll-{tslug}-{bs}-p{p}",
                            {"target": target, "bs": bs, "period": p},
                            targs + [f"--bs={bs}", f"--poll_period_us={p}"],
                            target=target,
                        )
                    )
    if "cache" in only:
        for mb, ratio, _ in CACHE_MB:
            out.append(
                Run(
                    "cache",
                    f"cache-{mb}mb",
                    {"cache_mb": mb, "ratio": ratio},
                    [f"--cache_mb={mb}"],
                    target="emu:pcie4,size=256m",
                )
            )
    if "readahead" in only:
        for rw in READAHEAD_PATTERNS:
            for ra in READAHEAD_MODES:
                out.append(
                    Run(
                        "readahead",
                        f"readahead-{rw}-{ra}",
                        {"rw": rw, "readahead": ra},
                        [f"--rw={rw}", f"--readahead={ra}"],
                        target="emu:pcie4,size=128m",
                    )
                )
    if "split" in only:
        for q in SPLIT_QUEUES:
            out.append(Run("split", f"split-{q}", {"queue": q}, [f"--queue={q}"]))
    return out


def plan(repeats, file=None, size=None, only=None, short=False):
    """Every run, interleaved: all configurations of repeat 1, then of repeat 2, ..."""
    configs = configurations(file, size, only, short)
    return [Run(c.experiment, c.key, c.config, c.args, c.target, rep) for rep in range(repeats) for c in configs]


def plan_for(o):
    """The runs for Options o."""
    return plan(o.repeats, o.file or None, o.size, o.only, o.short)


def estimate_s(runs, runtime):
    """Seconds the runs should take: each run's runtime, its job file's ramp, and start-up."""
    return sum(run_s(r.experiment, runtime) + RAMP_S.get(r.experiment, 0.0) + OVERHEAD_S for r in runs)


def command(hio_bench, run, runtime):
    """Overrides come before the job file, so they apply to every job in it."""
    return [
        hio_bench,
        *run.args,
        f"--runtime={run_s(run.experiment, runtime):g}",
        "--output-format=json",
        str(JOBS_DIR / JOB_FILES[run.experiment]),
    ]


def execute(cmd, runtime, extra_s=0.0):
    """Runs one hio-bench (hiobench.run: its own session, killed however this
    call leaves); a failure, or a run far past its time, raises RuntimeError
    with the command."""
    limit = process.timeout_s(runtime + extra_s, slack=30)
    try:
        return hiobench.run(cmd, limit)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{' '.join(cmd)} did not finish within {limit:g} s and was killed") from None


# --- reading hio-bench's JSON ---------------------------------------------------------------------------------


def _get(d, *path):
    for k in path:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _iops(job):
    r, w = stats.number(_get(job, "read", "iops")), stats.number(_get(job, "write", "iops"))
    if r is None and w is None:
        return None
    return (r or 0.0) + (w or 0.0)


def _handle(job):
    return _get(job, "hybridio", "handle") or {}


def _job_name(job, i):
    return job.get("jobname", f"job{i}")


def _priority_figures(jobs):
    """Each job's IOPS, and the names of the high-priority ones."""
    return {
        "jobs": {_job_name(j, i): _iops(j) for i, j in enumerate(jobs)},
        "high": [_job_name(j, i) for i, j in enumerate(jobs) if _handle(j).get("priority") == "high"],
    }


def _queues_figures(jobs):
    """All jobs' IOPS together and their mean lock wait %."""
    iops = [_iops(j) for j in jobs]
    waits = [stats.number(_handle(j).get("lock_wait_pct")) for j in jobs]
    waits = [w for w in waits if w is not None]
    return {
        "iops": sum(x for x in iops if x is not None) if any(x is not None for x in iops) else None,
        "lock_wait_pct": sum(waits) / len(waits) if waits else None,
        "jobs": len(jobs),
    }


def _poll_period_figures(jobs):
    """The one job's read IOPS and its completion thread's CPU % and periods."""
    j = jobs[0] if jobs else {}
    ct = _handle(j).get("completion_thread") or {}
    return {
        "iops": stats.number(_get(j, "read", "iops")),
        "cpu_pct": stats.number(ct.get("cpu_pct")),
        "period_us_mean": stats.number(ct.get("period_us_mean")),
        "period_us_last": stats.number(ct.get("period_us_last")),
    }


def _cache_figures(jobs):
    """The one job's read IOPS and its cache's hit ratio and read-ahead I/Os
    (the cache and read-ahead experiments)."""
    j = jobs[0] if jobs else {}
    cache = _handle(j).get("cache") or {}
    return {
        "iops": stats.number(_get(j, "read", "iops")),
        "hit_ratio": stats.number(cache.get("hit_ratio")),
        "readahead_ios": stats.number(cache.get("readahead_ios")),
    }


def _job_doing(jobs, name, side):
    """The job called name, else the first with IOPS on `side` ("read" or "write"), else {}."""
    job = next((j for j in jobs if j.get("jobname") == name), None)
    if job is None:
        job = next((j for j in jobs if (stats.number(_get(j, side, "iops")) or 0) > 0), {})
    return job


def _ns_to_us(ns):
    return ns / 1e3 if ns is not None else None


def _split_figures(jobs):
    """The reader's p99 and mean latency (µs) and the writer's IOPS."""
    reader, writer = _job_doing(jobs, "reader", "read"), _job_doing(jobs, "writer", "write")
    return {
        "read_p99_us": _ns_to_us(stats.number(_get(reader, "read", "clat_ns", "percentile", "99.000000"))),
        "read_mean_us": _ns_to_us(stats.number(_get(reader, "read", "clat_ns", "mean"))),
        "write_iops": stats.number(_get(writer, "write", "iops")),
    }


# Which reader of hio-bench's JSON gives each experiment's figures.
EXPERIMENT_FIGURES = {
    "priority": _priority_figures,
    "queues": _queues_figures,
    "poll_period": _poll_period_figures,
    "cache": _cache_figures,
    "readahead": _cache_figures,
    "split": _split_figures,
}


def figures(experiment, doc):
    """The figures of one run of an experiment from hio-bench's JSON (a dict);
    a field the JSON lacks gives None."""
    jobs = doc.get("jobs") or []
    if experiment not in EXPERIMENT_FIGURES:
        raise ValueError(f"unknown experiment {experiment!r}")
    return EXPERIMENT_FIGURES[experiment](jobs)


def emulated(doc):
    jobs = doc.get("jobs") or []
    flags = [_get(j, "hybridio", "emulated") for j in jobs]
    return bool(flags) and all(bool(x) for x in flags)


def new_results(hio_bench, runtime, repeats, file, size, planned=0):
    return {
        "hio_bench": hio_bench,
        "runtime": runtime,
        "repeats": repeats,
        "file": file,
        "size": size,
        "planned": planned,
        "runs": [],
        "error": None,
    }


def record(results, run, doc, raw=None):
    """Adds one run's figures to results (in place); returns the record."""
    rec = {
        "experiment": run.experiment,
        "key": run.key,
        "config": run.config,
        "repeat": run.repeat,
        "target": run.target,
        "emulated": emulated(doc),
        "raw": raw,
        "figures": figures(run.experiment, doc),
    }
    results["runs"].append(rec)
    return rec


def run(o, out, step=None, runs=None, results=None):
    """Runs the handle experiments of Options o (plan_for(o) unless `runs` is
    given); calls step(description) after each run. Fills `results` in place
    when given (so an interrupted study keeps what was measured) and returns
    it. An hio-bench failure raises RuntimeError."""
    out = Path(out)
    runs = plan_for(o) if runs is None else runs
    if results is None:
        results = new_results(o.hio_bench, o.runtime, o.repeats, o.file, o.size)
    results["planned"] = len(runs)
    raw_dir = out / "raw" / "handles"
    raw_dir.mkdir(parents=True, exist_ok=True)
    for r in runs:
        cmd = command(o.hio_bench, r, o.runtime)
        text = execute(cmd, run_s(r.experiment, o.runtime), RAMP_S.get(r.experiment, 0.0))
        doc = json.loads(text)
        path = raw_dir / r.raw_name
        path.write_text(
            json.dumps(
                {
                    "experiment": r.experiment,
                    "config": r.config,
                    "repeat": r.repeat + 1,
                    "command": cmd,
                    "hio_bench": doc,
                },
                indent=1,
            )
        )
        record(results, r, doc, str(path.relative_to(out)))
        if step:
            step(f"handles {r.key}")
    return results


# --- standalone ------------------------------------------------------------------------------------------------


def check(o):
    """Bad input before anything runs: hio-bench, the job files, and the
    file target (created at --size if absent) with a short probe."""
    hiobench.check(o.hio_bench)
    missing = [f for e, f in JOB_FILES.items() if not (JOBS_DIR / f).is_file()]
    if missing:
        raise UsageError(f"job file {JOBS_DIR / missing[0]} not found")
    if o.file and "poll_period" in (o.only or EXPERIMENTS):
        if not os.path.isdir(os.path.dirname(os.path.abspath(o.file))):
            raise UsageError(f"--file {o.file!r}: its directory does not exist")
        cmd = [
            o.hio_bench,
            f"--filename={o.file}",
            "--direct=1",
            f"--size={o.size}",
            "--runtime=0.05",
            "--output-format=json",
            str(JOBS_DIR / JOB_FILES["poll_period"]),
        ]
        p = subprocess.run(cmd, capture_output=True, text=True, start_new_session=True)
        if p.returncode != 0:
            raise UsageError(
                f"--file {o.file!r} (--size {o.size}) cannot be the polling-period experiment's file "
                f"target: {p.stderr.strip().removeprefix('hio-bench: ')}"
            )


def parse_args(argv):
    ap = study_parser("python3 -m hybridio.handles", __doc__)
    ap.add_argument("--hio-bench", default=hiobench.default_path(), help="(default: %(default)s)")
    ap.add_argument("--runtime", default="1", help="seconds per run (default: %(default)s)")
    ap.add_argument("--repeats", default="3", help="runs per configuration, 1..20 (default: %(default)s)")
    ap.add_argument(
        "--file",
        default=os.path.join(tempfile.gettempdir(), "hybridio-study.dat"),
        help="the file target of the polling-period experiment, created at --size if absent; "
        "'none' skips it (default: %(default)s)",
    )
    ap.add_argument("--size", default="1g", help="its size (default: %(default)s)")
    ap.add_argument("--only", help=f"comma-separated experiments (default: all: {','.join(EXPERIMENTS)})")
    return ap.parse_args(argv)


def resolve(a):
    """The Options and the results folder of parsed arguments; bad input raises UsageError."""
    try:
        runtime = float(a.runtime)
        if not 0 < runtime <= 600:
            raise ValueError
    except ValueError:
        raise UsageError(f"--runtime {a.runtime!r}: expected seconds per run, more than 0 and at most 600") from None
    if runtime == int(runtime):
        runtime = int(runtime)
    try:
        repeats = int(a.repeats)
        if not 1 <= repeats <= 20:
            raise ValueError
    except ValueError:
        raise UsageError(
            f"--repeats {a.repeats!r}: expected a whole number of runs per configuration, 1 to 20"
        ) from None
    only = None
    if a.only is not None:
        names = [x.strip().replace("-", "_") for x in a.only.split(",")]
        bad = [n for n in names if n not in EXPERIMENTS]
        if bad or not names:
            raise UsageError(
                f"--only {a.only!r}: unknown experiment {bad[0] if bad else ''!r} "
                f"(experiments: {', '.join(EXPERIMENTS)})"
            )
        only = [e for e in EXPERIMENTS if e in names]
    file = None if a.file and a.file.lower() == "none" else a.file
    o = Options(a.hio_bench, runtime, repeats, file, a.size, only)
    check(o)
    # Only once the input holds: a refused run leaves no empty folder behind.
    return o, outdir.prepare(outdir.results_path(a.out, "hybridio-handles"), raw="raw/handles")


def main(argv=None):
    try:
        o, out = resolve(parse_args(sys.argv[1:] if argv is None else argv))
    except UsageError as e:
        print(f"hybridio.handles: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from . import plots

    runs = plan_for(o)
    print(
        f"hybridio.handles: {len(runs)} runs ({len(runs) // o.repeats} configurations x {o.repeats} repeat(s)), "
        f"{o.runtime:g} s each (about {estimate_s(runs, o.runtime) / 60:.1f} min); results in {out}",
        flush=True,
    )
    results = new_results(o.hio_bench, o.runtime, o.repeats, o.file, o.size, len(runs))
    status = 0
    bar = tqdm(total=len(runs), unit="run", dynamic_ncols=True)

    def step(what):
        bar.update()
        bar.set_description(what)

    try:
        run(o, out, step, runs, results)
    except KeyboardInterrupt:
        results["error"] = "interrupted"
        status = 130
    except RuntimeError as e:
        results["error"] = str(e)
        status = 1
    finally:
        bar.close()
    found = findings(results)
    results["findings"] = found
    (out / "handles.json").write_text(json.dumps(results, indent=1, default=str))
    figs = plots.draw_handles(found, out / "plots")
    if results["error"]:
        print(f"hybridio.handles: {results['error']}", file=sys.stderr)
    for e, f in found.items():
        print(f"\n{f['title']}{' (emulated SSD)' if f['emulated'] else ''}:")
        for s in f["sentences"]:
            print(f"  {s}")
    print(f"\nResults: {out / 'handles.json'}" + (f"\nPlots: {', '.join(str(p) for _, _, p in figs)}" if figs else ""))
    return status


if __name__ == "__main__":
    sys.exit(main())
