# SPDX-License-Identifier: MIT
"""The handle experiments: priority, dedicated against shared queues, the
completion thread's polling period, the block cache, read-ahead, and reads
split from writes.

Each runs build/hio-bench on one of bench/jobs/*.fio with command-line
overrides, on both cores of the machine and without a co-runner, repeats
every configuration (all configurations of a repeat, then the next repeat,
so drift hits them alike). Every run's whole JSON is kept under
<out>/raw/handles/; the parsed figures go to <out>/handles.json;
hybridio.handle_findings turns them into tables, claims and sentences.

Standalone: python3 -m hybridio.handles [--only priority,readahead ...]
"""

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import hiobench, outdir, stats
from .command import study_parser
from .errors import UsageError
from .handle_findings import (
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
    findings,
)

JOBS_DIR = hiobench.ROOT / "bench" / "jobs"
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


def plan_for(a):
    """The runs for parsed arguments: a.handles repeats, a.file, a.size, a.only
    and a.quick (hio-study's: the shorter polling-period sweep), the last two optional."""
    return plan(a.handles, a.file or None, a.size, getattr(a, "only", None), getattr(a, "quick", False))


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
    limit = (runtime + extra_s) * 5 + 30
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


def figures(experiment, doc):
    """The figures of one run of an experiment from hio-bench's JSON (a dict);
    a field the JSON lacks gives None."""
    jobs = doc.get("jobs") or []
    if experiment == "priority":
        return {
            "jobs": {j.get("jobname", f"job{i}"): _iops(j) for i, j in enumerate(jobs)},
            "high": [j.get("jobname", f"job{i}") for i, j in enumerate(jobs) if _handle(j).get("priority") == "high"],
        }
    if experiment == "queues":
        iops = [_iops(j) for j in jobs]
        waits = [stats.number(_handle(j).get("lock_wait_pct")) for j in jobs]
        waits = [w for w in waits if w is not None]
        return {
            "iops": sum(x for x in iops if x is not None) if any(x is not None for x in iops) else None,
            "lock_wait_pct": sum(waits) / len(waits) if waits else None,
            "jobs": len(jobs),
        }
    if experiment in ("poll_period", "cache", "readahead"):
        j = jobs[0] if jobs else {}
        f = {"iops": stats.number(_get(j, "read", "iops"))}
        if experiment == "poll_period":
            ct = _handle(j).get("completion_thread") or {}
            f.update(
                cpu_pct=stats.number(ct.get("cpu_pct")),
                period_us_mean=stats.number(ct.get("period_us_mean")),
                period_us_last=stats.number(ct.get("period_us_last")),
            )
        else:
            cache = _handle(j).get("cache") or {}
            f.update(
                hit_ratio=stats.number(cache.get("hit_ratio")), readahead_ios=stats.number(cache.get("readahead_ios"))
            )
        return f
    if experiment == "split":
        reader = next((j for j in jobs if j.get("jobname") == "reader"), None)
        writer = next((j for j in jobs if j.get("jobname") == "writer"), None)
        if reader is None:
            reader = next((j for j in jobs if (stats.number(_get(j, "read", "iops")) or 0) > 0), {})
        if writer is None:
            writer = next((j for j in jobs if (stats.number(_get(j, "write", "iops")) or 0) > 0), {})
        p99 = stats.number(_get(reader, "read", "clat_ns", "percentile", "99.000000"))
        mean = stats.number(_get(reader, "read", "clat_ns", "mean"))
        return {
            "read_p99_us": p99 / 1e3 if p99 is not None else None,
            "read_mean_us": mean / 1e3 if mean is not None else None,
            "write_iops": stats.number(_get(writer, "write", "iops")),
        }
    raise ValueError(f"unknown experiment {experiment!r}")


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


def run(a, out, step=None, runs=None, results=None):
    """Runs the handle experiments (a.hio_bench, a.runtime, and plan_for(a)
    unless `runs` is given); calls step(description) after each run. Fills
    `results` in place when given (so an interrupted study keeps what was
    measured) and returns it. An hio-bench failure raises RuntimeError."""
    out = Path(out)
    runs = plan_for(a) if runs is None else runs
    if results is None:
        results = new_results(a.hio_bench, a.runtime, a.handles, a.file, a.size)
    results["planned"] = len(runs)
    raw_dir = out / "raw" / "handles"
    raw_dir.mkdir(parents=True, exist_ok=True)
    for r in runs:
        cmd = command(a.hio_bench, r, a.runtime)
        text = execute(cmd, run_s(r.experiment, a.runtime), RAMP_S.get(r.experiment, 0.0))
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


def check(a):
    """Bad input before anything runs: hio-bench, the job files, and the
    file target (created at --size if absent) with a short probe."""
    hiobench.check(a.hio_bench)
    missing = [f for e, f in JOB_FILES.items() if not (JOBS_DIR / f).is_file()]
    if missing:
        raise UsageError(f"job file {JOBS_DIR / missing[0]} not found")
    if a.file and "poll_period" in (getattr(a, "only", None) or EXPERIMENTS):
        if not os.path.isdir(os.path.dirname(os.path.abspath(a.file))):
            raise UsageError(f"--file {a.file!r}: its directory does not exist")
        cmd = [
            a.hio_bench,
            f"--filename={a.file}",
            "--direct=1",
            f"--size={a.size}",
            "--runtime=0.05",
            "--output-format=json",
            str(JOBS_DIR / JOB_FILES["poll_period"]),
        ]
        p = subprocess.run(cmd, capture_output=True, text=True, start_new_session=True)
        if p.returncode != 0:
            raise UsageError(
                f"--file {a.file!r} (--size {a.size}) cannot be the polling-period experiment's file "
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
    text = a.runtime
    try:
        a.runtime = float(text)
        if not 0 < a.runtime <= 600:
            raise ValueError
    except ValueError:
        raise UsageError(f"--runtime {text!r}: expected seconds per run, more than 0 and at most 600") from None
    if a.runtime == int(a.runtime):
        a.runtime = int(a.runtime)
    try:
        a.handles = int(a.repeats)
        if not 1 <= a.handles <= 20:
            raise ValueError
    except ValueError:
        raise UsageError(
            f"--repeats {a.repeats!r}: expected a whole number of runs per configuration, 1 to 20"
        ) from None
    if a.only is not None:
        names = [x.strip().replace("-", "_") for x in a.only.split(",")]
        bad = [n for n in names if n not in EXPERIMENTS]
        if bad or not names:
            raise UsageError(
                f"--only {a.only!r}: unknown experiment {bad[0] if bad else ''!r} "
                f"(experiments: {', '.join(EXPERIMENTS)})"
            )
        a.only = [e for e in EXPERIMENTS if e in names]
    if a.file and a.file.lower() == "none":
        a.file = None
    check(a)
    # Only once the input holds: a refused run leaves no empty folder behind.
    a.out = outdir.prepare(outdir.results_path(a.out, "hybridio-handles"), raw="raw/handles")
    return a


def main(argv=None):
    try:
        a = resolve(parse_args(sys.argv[1:] if argv is None else argv))
    except UsageError as e:
        print(f"hybridio.handles: {e}", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from . import plots

    runs = plan_for(a)
    print(
        f"hybridio.handles: {len(runs)} runs ({len(runs) // a.handles} configurations x {a.handles} repeat(s)), "
        f"{a.runtime:g} s each (about {estimate_s(runs, a.runtime) / 60:.1f} min); results in {a.out}",
        flush=True,
    )
    results = new_results(a.hio_bench, a.runtime, a.handles, a.file, a.size, len(runs))
    status = 0
    bar = tqdm(total=len(runs), unit="run", dynamic_ncols=True)

    def step(what):
        bar.update()
        bar.set_description(what)

    try:
        run(a, a.out, step, runs, results)
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
    (a.out / "handles.json").write_text(json.dumps(results, indent=1, default=str))
    figs = plots.draw_handles(found, a.out / "plots")
    if results["error"]:
        print(f"hybridio.handles: {results['error']}", file=sys.stderr)
    for e, f in found.items():
        print(f"\n{f['title']}{' (emulated SSD)' if f['emulated'] else ''}:")
        for s in f["sentences"]:
            print(f"  {s}")
    print(
        f"\nResults: {a.out / 'handles.json'}" + (f"\nPlots: {', '.join(str(p) for _, _, p in figs)}" if figs else "")
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
