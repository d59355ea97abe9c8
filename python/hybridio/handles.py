"""The handle experiments: priority, dedicated against shared queues, the
completion thread's polling period, the block cache, read-ahead, and reads
split from writes.

Each runs build/hio-bench on one of bench/jobs/*.fio with command-line
overrides, on both cores of the machine and without a co-runner, repeats
every configuration (all configurations of a repeat, then the next repeat,
so drift hits them alike) and takes the median per figure. Every run's whole
JSON is kept under <out>/raw/handles/; the parsed figures go to
<out>/handles.json; findings() turns them into tables, claims and sentences.

Standalone: python3 -m hybridio.handles [--only priority,readahead ...]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import hiobench, stats
from .errors import UsageError

JOBS_DIR = hiobench.ROOT / "bench" / "jobs"
EXPERIMENTS = ("priority", "queues", "poll_period", "cache", "readahead", "split")
TITLES = {"priority": "Priority", "queues": "Dedicated and shared queues", "poll_period": "Polling period",
          "cache": "Block cache", "readahead": "Read-ahead", "split": "Reads apart from writes"}
JOB_FILES = {"priority": "priority.fio", "queues": "queues.fio", "poll_period": "poll_period.fio",
             "cache": "cache.fio", "readahead": "readahead.fio", "split": "split_rw.fio"}
# Seconds a job file runs before it measures (its ramp_time), for the time estimate.
RAMP_S = {"cache": 1.0, "readahead": 0.5, "poll_period": 0.5}
OVERHEAD_S = 0.2
# Runs per repeat are few here, and one second moves these figures by 5-10%:
# they run this many times the runtime.
LONGER = {"priority": 2, "cache": 2, "readahead": 2, "split": 2}


def run_s(experiment, runtime):
    """A run's measured seconds."""
    return runtime * LONGER.get(experiment, 1)

QUEUE_JOBS = (1, 2, 3, 4)
QUEUE_MODES = ("dedicated", "shared")
POLL_SIZES = ("4k", "8k", "16k", "64k")
POLL_PERIODS = (0, 2, 5, 10, 20, 50, 100, 200)  # µs; 0 spins; plus "auto"
# hio-study --quick: the smallest and largest size, a period per decade.
SHORT_POLL_SIZES = ("4k", "64k")
SHORT_POLL_PERIODS = (0, 5, 20, 100)
POLL_TARGET_EMU = "emu:pcie4"
CACHE_MB = ((128, "2:1", 1 / 2), (51, "5:1", 1 / 5), (26, "10:1", 1 / 10), (0, "no cache", None))
READAHEAD_PATTERNS = ("randread", "read")
READAHEAD_MODES = ("auto", "on", "off")
SPLIT_QUEUES = ("shared", "split_rw")

# The claims' thresholds.
PRIORITY_RATIO = 2.0
PRIORITY_SPREAD = 0.10
REACH = 0.95       # a fixed period "reaches" the best when its IOPS >= REACH x best
AUTO_CPU = 1.25    # auto may spend up to this x the cheapest CPU among those that reach the best
READAHEAD_AUTO = 0.95
EPS = 1e-9         # relative slack so that a figure exactly on a threshold counts as meeting it


@dataclass
class Run:
    experiment: str
    key: str                      # what the configuration is, e.g. "poll-emu_pcie4-4k-p20"
    config: dict
    args: list                    # hio-bench overrides
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
                out.append(Run("queues", f"queues-{q}-{n}jobs", {"queue": q, "jobs": n},
                               [f"--numjobs={n}", f"--queue={q}"]))
    if "poll_period" in only:
        targets = [(POLL_TARGET_EMU, [])]
        if file:
            targets.append((file, [f"--filename={file}", "--direct=1", f"--size={size}"]))
        for target, targs in targets:
            tslug = "emu_pcie4" if target == POLL_TARGET_EMU else "file"
            for bs in SHORT_POLL_SIZES if short else POLL_SIZES:
                for p in (SHORT_POLL_PERIODS if short else POLL_PERIODS) + ("auto",):
                    out.append(Run("poll_period", f"poll-{tslug}-{bs}-p{p}", {"target": target, "bs": bs, "period": p},
                                   targs + [f"--bs={bs}", f"--poll_period_us={p}"], target=target))
    if "cache" in only:
        for mb, ratio, _ in CACHE_MB:
            out.append(Run("cache", f"cache-{mb}mb", {"cache_mb": mb, "ratio": ratio}, [f"--cache_mb={mb}"],
                           target="emu:pcie4,size=256m"))
    if "readahead" in only:
        for rw in READAHEAD_PATTERNS:
            for ra in READAHEAD_MODES:
                out.append(Run("readahead", f"readahead-{rw}-{ra}", {"rw": rw, "readahead": ra},
                               [f"--rw={rw}", f"--readahead={ra}"], target="emu:pcie4,size=128m"))
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
    return [hio_bench, *run.args, f"--runtime={run_s(run.experiment, runtime):g}", "--output-format=json",
            str(JOBS_DIR / JOB_FILES[run.experiment])]


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


def _num(x):
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def _iops(job):
    r, w = _num(_get(job, "read", "iops")), _num(_get(job, "write", "iops"))
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
        return {"jobs": {j.get("jobname", f"job{i}"): _iops(j) for i, j in enumerate(jobs)},
                "high": [j.get("jobname", f"job{i}") for i, j in enumerate(jobs)
                         if _handle(j).get("priority") == "high"]}
    if experiment == "queues":
        iops = [_iops(j) for j in jobs]
        waits = [_num(_handle(j).get("lock_wait_pct")) for j in jobs]
        waits = [w for w in waits if w is not None]
        return {"iops": sum(x for x in iops if x is not None) if any(x is not None for x in iops) else None,
                "lock_wait_pct": sum(waits) / len(waits) if waits else None, "jobs": len(jobs)}
    if experiment in ("poll_period", "cache", "readahead"):
        j = jobs[0] if jobs else {}
        f = {"iops": _num(_get(j, "read", "iops"))}
        if experiment == "poll_period":
            ct = _handle(j).get("completion_thread") or {}
            f.update(cpu_pct=_num(ct.get("cpu_pct")), period_us_mean=_num(ct.get("period_us_mean")),
                     period_us_last=_num(ct.get("period_us_last")))
        else:
            cache = _handle(j).get("cache") or {}
            f.update(hit_ratio=_num(cache.get("hit_ratio")), readahead_ios=_num(cache.get("readahead_ios")))
        return f
    if experiment == "split":
        reader = next((j for j in jobs if j.get("jobname") == "reader"), None)
        writer = next((j for j in jobs if j.get("jobname") == "writer"), None)
        if reader is None:
            reader = next((j for j in jobs if (_num(_get(j, "read", "iops")) or 0) > 0), {})
        if writer is None:
            writer = next((j for j in jobs if (_num(_get(j, "write", "iops")) or 0) > 0), {})
        p99 = _num(_get(reader, "read", "clat_ns", "percentile", "99.000000"))
        mean = _num(_get(reader, "read", "clat_ns", "mean"))
        return {"read_p99_us": p99 / 1e3 if p99 is not None else None,
                "read_mean_us": mean / 1e3 if mean is not None else None,
                "write_iops": _num(_get(writer, "write", "iops"))}
    raise ValueError(f"unknown experiment {experiment!r}")


def emulated(doc):
    jobs = doc.get("jobs") or []
    flags = [_get(j, "hybridio", "emulated") for j in jobs]
    return bool(flags) and all(bool(x) for x in flags)


def new_results(hio_bench, runtime, repeats, file, size, planned=0):
    return {"hio_bench": hio_bench, "runtime": runtime, "repeats": repeats, "file": file, "size": size,
            "planned": planned, "runs": [], "error": None}


def record(results, run, doc, raw=None):
    """Adds one run's figures to results (in place); returns the record."""
    rec = {"experiment": run.experiment, "key": run.key, "config": run.config, "repeat": run.repeat,
           "target": run.target, "emulated": emulated(doc), "raw": raw, "figures": figures(run.experiment, doc)}
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
        path.write_text(json.dumps({"experiment": r.experiment, "config": r.config, "repeat": r.repeat + 1,
                                    "command": cmd, "hio_bench": doc}, indent=1))
        record(results, r, doc, str(path.relative_to(out)))
        if step:
            step(f"handles {r.key}")
    return results


# --- findings --------------------------------------------------------------------------------------------------

def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def medians(results, experiment):
    """{key: {"config":..., "emulated":..., "target":..., "repeats": n, "figures": {name: median},
    "spread": {name: %}, "ci95": {name: [low, high]}}} for one experiment, in the order the runs came;
    nested dicts of figures (per job) are medianed per entry; ci95 holds the 95% interval of each
    numeric figure's centre (hybridio.stats) where it has two repeats or more."""
    by = {}
    for rec in results.get("runs", []):
        if rec.get("experiment") != experiment:
            continue
        by.setdefault(rec["key"], []).append(rec)
    out = {}
    for key, recs in by.items():
        figs = {}
        names = []
        for rec in recs:
            for n in rec.get("figures", {}):
                if n not in names:
                    names.append(n)
        for n in names:
            vals = [rec["figures"].get(n) for rec in recs]
            if any(isinstance(v, dict) for v in vals):
                sub = {}
                for v in vals:
                    for k in (v or {}):
                        sub.setdefault(k, []).append(v[k])
                figs[n] = {k: median(v) for k, v in sub.items()}
            elif any(isinstance(v, list) for v in vals):
                figs[n] = next((v for v in vals if v), [])
            else:
                figs[n] = median(_num(v) for v in vals)
        ci95 = {}
        for n in names:
            iv = stats.figure_interval([_num(rec["figures"].get(n)) for rec in recs])
            if iv and iv.n > 1:
                ci95[n] = [iv.low, iv.high]
        out[key] = {"config": recs[0]["config"], "target": recs[0].get("target"),
                    "emulated": all(rec.get("emulated") for rec in recs), "repeats": len(recs), "figures": figs,
                    "spread": {n: spread_pct([rec["figures"].get(n) for rec in recs]) for n in names},
                    "ci95": ci95}
    return out


def spread_pct(values):
    """(max - min) / median of a figure's repeats, in %; None for fewer than
    two numbers (or a nested figure)."""
    xs = [float(v) for v in values if _num(v) is not None]
    if len(xs) < 2 or not statistics.median(xs):
        return None
    return (max(xs) - min(xs)) / statistics.median(xs) * 100


def _at_least(x, limit):
    return x >= limit * (1 - EPS)


def _at_most(x, limit):
    return x <= limit * (1 + EPS) + 1e-12


def device(target, is_emulated):
    return "emulated" if is_emulated else target


def met(passed):
    return "met" if passed else "NOT met"


def _fx(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"


def _k(x):
    return "–" if x is None else f"{x:,.0f}"


def priority_claims(jobs_on, high, jobs_off):
    """jobs_on/jobs_off: {job: median IOPS} with priority and without; high:
    the high-priority job's name. Returns (claims, sentences)."""
    claims, said = [], []
    others = {j: v for j, v in (jobs_on or {}).items() if j != high and v is not None}
    if jobs_on and high in jobs_on and jobs_on[high] is not None and others:
        top = max(others.values())
        ratio = jobs_on[high] / top if top else float("inf")
        ok = _at_least(ratio, PRIORITY_RATIO)
        claims.append({"text": f"with priority, the high job's IOPS >= {PRIORITY_RATIO:g} x each other job's",
                       "measured": {"ratio_high_to_max_other": ratio, "high_iops": jobs_on[high],
                                    "max_other_iops": top}, "passed": ok})
        said.append(f"Priority: the high-priority job got {ratio:.1f}x the IOPS of the busiest other job "
                    f"(claim: >= {PRIORITY_RATIO:g}x): {met(ok)}.")
    else:
        said.append("Priority: the run with priority is missing, so its claim is not judged.")
    vals = [v for v in (jobs_off or {}).values() if v is not None]
    if len(vals) >= 2:
        lo, hi = min(vals), max(vals)
        spread = (hi - lo) / lo if lo else float("inf")
        ok = _at_most(spread, PRIORITY_SPREAD)
        claims.append({"text": f"without priority, the {len(vals)} jobs' IOPS are within "
                               f"{PRIORITY_SPREAD:.0%} of each other ((max - min) / min)",
                       "measured": {"spread": spread, "min_iops": lo, "max_iops": hi}, "passed": ok})
        said.append(f"Without priority the {len(vals)} jobs were within {spread:.2%} of each other "
                    f"(claim: <= {PRIORITY_SPREAD:.0%}): {met(ok)}.")
    else:
        said.append("Priority: the run without priority is missing, so its claim is not judged.")
    return claims, said


def _priority(results):
    m = medians(results, "priority")
    on, off = m.get("priority-high"), m.get("priority-normal")
    jobs_on = on["figures"].get("jobs", {}) if on else {}
    jobs_off = off["figures"].get("jobs", {}) if off else {}
    high = ((on["figures"].get("high") or [None])[0] if on else None) or "high"
    rows = []
    for label, rec, jobs in (("on", on, jobs_on), ("off", off, jobs_off)):
        if rec:
            for j, v in jobs.items():
                rows.append({"priority": label, "job": j, "device": device(rec["target"], rec["emulated"]),
                             "IOPS": v, "repeats": rec["repeats"]})
    claims, said = priority_claims(jobs_on, high, jobs_off)
    return {"columns": ["priority", "job", "device", "IOPS", "repeats"], "rows": rows, "claims": claims,
            "sentences": said}


def queue_peaks(points):
    """points: {queue: {jobs: IOPS}} -> {queue: jobs with the most IOPS} (the
    fewest jobs on a tie: where scaling stopped)."""
    peaks = {}
    for q, by in points.items():
        good = {n: v for n, v in by.items() if v is not None}
        if good:
            top = max(good.values())
            peaks[q] = min(n for n, v in good.items() if v >= top)
    return peaks


def _queues(results):
    m = medians(results, "queues")
    rows, points, waits = [], {}, {}
    for rec in m.values():
        q, n = rec["config"]["queue"], rec["config"]["jobs"]
        f = rec["figures"]
        points.setdefault(q, {})[n] = f.get("iops")
        waits.setdefault(q, {})[n] = f.get("lock_wait_pct")
        rows.append({"queue": q, "jobs": n, "device": device(rec["target"], rec["emulated"]), "IOPS": f.get("iops"),
                     "lock wait %": f.get("lock_wait_pct"), "IOPS spread %": rec["spread"].get("iops"),
                     "repeats": rec["repeats"]})
    rows.sort(key=lambda r: (QUEUE_MODES.index(r["queue"]) if r["queue"] in QUEUE_MODES else 9, r["jobs"]))
    peaks = queue_peaks(points)
    said = []
    if peaks:
        parts = [f"{q} queues stop scaling at {n} job{'s' if n != 1 else ''} ({_k(points[q][n])} IOPS)"
                 for q, n in peaks.items()]
        said.append("Queues: " + "; ".join(parts) + ".")
    top = max(QUEUE_JOBS)
    d, s = points.get("dedicated", {}).get(top), points.get("shared", {}).get(top)
    measured = {"peak_jobs": peaks}
    if d is not None and s:
        measured["dedicated_over_shared_at_4"] = d / s
        said.append(f"At {top} jobs dedicated queues gave {d / s:.2f}x the IOPS of one shared queue "
                    f"({_k(d)} against {_k(s)}); the shared queue's jobs waited for its lock "
                    f"{_fx(waits['shared'].get(top))}% of the time, the dedicated ones "
                    f"{_fx(waits.get('dedicated', {}).get(top))}%.")
    elif not peaks:
        said.append("Queues: no runs.")
    return {"columns": ["queue", "jobs", "device", "IOPS", "lock wait %", "IOPS spread %", "repeats"], "rows": rows, "claims": [],
            "sentences": said, "measured": measured}


def poll_claim(fixed, auto):
    """fixed: {period_us: (IOPS, CPU %)} of the fixed periods; auto: (IOPS, CPU %) or None.
    best = the most IOPS of any fixed period; the periods that reach it have
    IOPS >= 0.95 x best; cpu_floor = the least CPU among them. Auto passes with
    IOPS >= 0.95 x best and CPU <= 1.25 x cpu_floor. Returns a dict (passed None
    when it cannot be judged)."""
    good = {p: (i, c) for p, (i, c) in fixed.items() if i is not None}
    if not good:
        return {"best_period_us": None, "best_iops": None, "cpu_floor": None, "auto_iops_ratio": None,
                "auto_cpu_ratio": None, "passed": None}
    best = max(i for i, _ in good.values())
    # On a tie for the most IOPS: the cheaper period, then the longer one.
    best_p = min((p for p, (i, _) in good.items() if i >= best),
                 key=lambda p: (good[p][1] if good[p][1] is not None else float("inf"), -p))
    reach = {p: c for p, (i, c) in good.items() if _at_least(i, REACH * best) and c is not None}
    floor = min(reach.values()) if reach else None
    f = {"best_period_us": best_p, "best_iops": best, "cpu_floor": floor,
         "reaching_periods_us": sorted(p for p, (i, _) in good.items() if _at_least(i, REACH * best)),
         "auto_iops_ratio": None, "auto_cpu_ratio": None, "passed": None}
    if auto is None or auto[0] is None:
        return f
    ai, ac = auto
    f["auto_iops_ratio"] = ai / best if best else None
    if floor is None or ac is None:
        return f  # no CPU figure: not judged
    f["auto_cpu_ratio"] = ac / floor if floor else (1.0 if ac == 0 else float("inf"))
    f["iops_ok"] = _at_least(ai, REACH * best)
    f["cpu_ok"] = _at_most(ac, AUTO_CPU * floor)
    f["passed"] = f["iops_ok"] and f["cpu_ok"]
    return f


def _period_label(p):
    return "spin" if p == 0 else ("auto" if p == "auto" else f"{p} µs")


def _poll_period(results):
    m = medians(results, "poll_period")
    rows, groups = [], {}
    for rec in m.values():
        c, f = rec["config"], rec["figures"]
        dev = device(c["target"], rec["emulated"])
        groups.setdefault((c["target"], c["bs"]), {"device": dev, "fixed": {}, "auto": None})
        g = groups[(c["target"], c["bs"])]
        if c["period"] == "auto":
            g["auto"] = f
        else:
            g["fixed"][c["period"]] = f
        rows.append({"target": dev, "bs": c["bs"], "period": _period_label(c["period"]), "period_us": c["period"],
                     "IOPS": f.get("iops"), "CPU %": f.get("cpu_pct"), "mean period µs": f.get("period_us_mean"),
                     "last period µs": f.get("period_us_last"), "IOPS spread %": rec["spread"].get("iops"),
                     "repeats": rec["repeats"]})
    claims, said, summary = [], [], []
    for (target, bs), g in groups.items():
        fixed = {p: (f.get("iops"), f.get("cpu_pct")) for p, f in g["fixed"].items()}
        auto = (g["auto"].get("iops"), g["auto"].get("cpu_pct")) if g["auto"] else None
        r = poll_claim(fixed, auto)
        r.update(target=g["device"], bs=bs)
        if g["auto"]:
            r.update(auto_period_us_mean=g["auto"].get("period_us_mean"),
                     auto_period_us_last=g["auto"].get("period_us_last"))
        summary.append(r)
        where = f"{g['device']}, {bs}"
        if r["passed"] is None:
            why = ("auto did not run" if auto is None or auto[0] is None else
                   "no fixed period ran" if r["best_iops"] is None else "a CPU figure is missing")
            said.append(f"Polling period, {where}: {why}, so the claim is not judged.")
            continue
        text = (f"{where}: auto gets >= {REACH:.0%} of the best fixed period's IOPS at <= {AUTO_CPU:g} x the "
                f"least CPU of the periods that reach {REACH:.0%} of it")
        claims.append({"text": text, "measured": {k: r[k] for k in ("best_period_us", "best_iops", "cpu_floor",
                                                                      "auto_iops_ratio", "auto_cpu_ratio")},
                       "passed": r["passed"]})
        said.append(f"Polling period, {where}: the best fixed period was {_period_label(r['best_period_us'])} "
                    f"({_k(r['best_iops'])} IOPS); those within {1 - REACH:.0%} of it need at least "
                    f"{_fx(r['cpu_floor'])}% CPU; auto (mean period {_fx(r.get('auto_period_us_mean'))} µs) got "
                    f"{_fx(r['auto_iops_ratio'], 3)}x the IOPS at {_fx(r['auto_cpu_ratio'], 3)}x that CPU "
                    f"(claim: >= {REACH:g}x and <= {AUTO_CPU:g}x): {met(r['passed'])}.")
    return {"columns": ["target", "bs", "period", "IOPS", "CPU %", "mean period µs", "last period µs",
                        "IOPS spread %", "repeats"],
            "rows": rows, "claims": claims, "sentences": said, "summary": summary,
            "summary_columns": ["target", "bs", "best_period_us", "best_iops", "cpu_floor", "auto_period_us_mean",
                                "auto_iops_ratio", "auto_cpu_ratio", "passed"]}


def _cache(results):
    m = medians(results, "cache")
    expected = {mb: (ratio, exp) for mb, ratio, exp in CACHE_MB}
    base = next((rec["figures"].get("iops") for rec in m.values() if rec["config"]["cache_mb"] == 0), None)
    rows, parts = [], []
    for rec in sorted(m.values(), key=lambda r: -r["config"]["cache_mb"]):
        mb, f = rec["config"]["cache_mb"], rec["figures"]
        ratio, exp = expected.get(mb, (rec["config"].get("ratio"), None))
        iops = f.get("iops")
        rows.append({"cache MiB": mb, "dataset:cache": ratio, "device": device(rec["target"], rec["emulated"]),
                     "IOPS": iops, "hit ratio": f.get("hit_ratio"), "expected hit ratio": exp,
                     "IOPS / no cache": iops / base if iops is not None and base else None,
                     "IOPS spread %": rec["spread"].get("iops"), "repeats": rec["repeats"]})
        if mb and f.get("hit_ratio") is not None:
            parts.append(f"{f['hit_ratio']:.2f} at {ratio} (expected {exp:.2f})"
                         + (f", {iops / base:.2f}x the IOPS of no cache" if iops is not None and base else ""))
    said = [f"Cache: hit ratio {'; '.join(parts)}."] if parts else (["Cache: no runs."] if not m else [])
    return {"columns": ["cache MiB", "dataset:cache", "device", "IOPS", "hit ratio", "expected hit ratio",
                        "IOPS / no cache", "IOPS spread %", "repeats"], "rows": rows, "claims": [], "sentences": said}


def readahead_claim(by_mode):
    """by_mode: {"auto"|"on"|"off": IOPS}. auto >= 0.95 x max(on, off); None when a run is missing."""
    a, on, off = by_mode.get("auto"), by_mode.get("on"), by_mode.get("off")
    if a is None or (on is None and off is None):
        return None
    best_mode = max((m for m in ("on", "off") if by_mode.get(m) is not None), key=lambda m: by_mode[m])
    best = by_mode[best_mode]
    return {"ratio": a / best if best else float("inf"), "better_of_on_off": best_mode,
            "passed": _at_least(a, READAHEAD_AUTO * best)}


def _readahead(results):
    m = medians(results, "readahead")
    rows, by = [], {}
    for rec in m.values():
        c, f = rec["config"], rec["figures"]
        by.setdefault(c["rw"], {})[c["readahead"]] = f.get("iops")
        rows.append({"pattern": c["rw"], "readahead": c["readahead"], "device": device(rec["target"], rec["emulated"]),
                     "IOPS": f.get("iops"), "hit ratio": f.get("hit_ratio"), "read-ahead I/Os": f.get("readahead_ios"),
                     "IOPS spread %": rec["spread"].get("iops"), "repeats": rec["repeats"]})
    claims, said = [], []
    for rw in READAHEAD_PATTERNS + tuple(k for k in by if k not in READAHEAD_PATTERNS):
        if rw not in by:
            continue
        words = "random reads" if rw == "randread" else ("sequential reads" if rw == "read" else rw)
        r = readahead_claim(by[rw])
        if r is None:
            said.append(f"Read-ahead, {words}: a run is missing, so the claim is not judged.")
            continue
        claims.append({"text": f"{words}: auto's IOPS >= {READAHEAD_AUTO:g} x the better of on and off",
                       "measured": {"ratio": r["ratio"], "better_of_on_off": r["better_of_on_off"]},
                       "passed": r["passed"]})
        said.append(f"Read-ahead, {words}: auto got {r['ratio']:.3f}x the IOPS of the better of on and off "
                    f"({r['better_of_on_off']}) (claim: >= {READAHEAD_AUTO:g}x): {met(r['passed'])}.")
    return {"columns": ["pattern", "readahead", "device", "IOPS", "hit ratio", "read-ahead I/Os", "IOPS spread %",
                        "repeats"],
            "rows": rows, "claims": claims, "sentences": said}


def _split(results):
    m = medians(results, "split")
    rows, by = [], {}
    for rec in m.values():
        q, f = rec["config"]["queue"], rec["figures"]
        by[q] = f
        rows.append({"queue": q, "device": device(rec["target"], rec["emulated"]),
                     "reader p99 µs": f.get("read_p99_us"), "reader mean µs": f.get("read_mean_us"),
                     "writer IOPS": f.get("write_iops"), "p99 spread %": rec["spread"].get("read_p99_us"),
                     "repeats": rec["repeats"]})
    said, measured = [], {}
    s, t = (by.get("shared") or {}).get("read_p99_us"), (by.get("split_rw") or {}).get("read_p99_us")
    if s is not None and t:
        measured["p99_shared_over_split"] = s / t
        said.append(f"Split: the reader's p99 was {_fx(s)} µs on the shared queue and {_fx(t)} µs with reads and "
                    f"writes on separate queues ({s / t:.2f}x); the writer got {_k(by['shared'].get('write_iops'))} "
                    f"and {_k(by['split_rw'].get('write_iops'))} IOPS.")
    elif m:
        said.append("Split: a run is missing, so no comparison.")
    return {"columns": ["queue", "device", "reader p99 µs", "reader mean µs", "writer IOPS", "p99 spread %", "repeats"],
            "rows": rows, "claims": [], "sentences": said, "measured": measured}


BUILDERS = {"priority": _priority, "queues": _queues, "poll_period": _poll_period, "cache": _cache,
            "readahead": _readahead, "split": _split}


def findings(results):
    """{experiment: {"title", "emulated", "columns", "rows", "claims", "sentences", ...}} for every experiment
    with at least one run, in EXPERIMENTS order."""
    runs = results.get("runs", []) if results else []
    present = {r.get("experiment") for r in runs}
    out = {}
    for e in EXPERIMENTS:
        if e not in present:
            continue
        f = BUILDERS[e](results)
        f["title"] = TITLES[e]
        f["emulated"] = all(r.get("emulated") for r in runs if r.get("experiment") == e)
        out[e] = f
    return out


def sentences(found):
    return [s for f in found.values() for s in f["sentences"]]


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
        cmd = [a.hio_bench, f"--filename={a.file}", "--direct=1", f"--size={a.size}", "--runtime=0.05",
               "--output-format=json", str(JOBS_DIR / JOB_FILES["poll_period"])]
        p = subprocess.run(cmd, capture_output=True, text=True, start_new_session=True)
        if p.returncode != 0:
            raise UsageError(f"--file {a.file!r} (--size {a.size}) cannot be the polling-period experiment's file "
                             f"target: {p.stderr.strip().removeprefix('hio-bench: ')}")


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="python3 -m hybridio.handles", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hio-bench", default=hiobench.default_path(), help="(default: %(default)s)")
    ap.add_argument("--runtime", default="1", help="seconds per run (default: %(default)s)")
    ap.add_argument("--repeats", default="3", help="runs per configuration, 1..20 (default: %(default)s)")
    ap.add_argument("--file", default=os.path.join(tempfile.gettempdir(), "hybridio-study.dat"),
                    help="the file target of the polling-period experiment, created at --size if absent; "
                         "'none' skips it (default: %(default)s)")
    ap.add_argument("--size", default="1g", help="its size (default: %(default)s)")
    ap.add_argument("--out", help="results folder (default: a new folder in the system temp directory)")
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
        raise UsageError(f"--repeats {a.repeats!r}: expected a whole number of runs per configuration, "
                         f"1 to 20") from None
    if a.only is not None:
        names = [x.strip().replace("-", "_") for x in a.only.split(",")]
        bad = [n for n in names if n not in EXPERIMENTS]
        if bad or not names:
            raise UsageError(f"--only {a.only!r}: unknown experiment {bad[0] if bad else ''!r} "
                             f"(experiments: {', '.join(EXPERIMENTS)})")
        a.only = [e for e in EXPERIMENTS if e in names]
    if a.file and a.file.lower() == "none":
        a.file = None
    out = Path(a.out or os.path.join(tempfile.gettempdir(),
                                     "hybridio-handles-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S")))
    try:
        (out / "raw" / "handles").mkdir(parents=True, exist_ok=True)
        marker = out / ".writable"
        marker.write_text("")
        marker.unlink()
    except OSError as e:
        raise UsageError(f"cannot write to the output folder --out={out}: {e.strerror}") from None
    a.out = out
    check(a)
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
    print(f"hybridio.handles: {len(runs)} runs ({len(runs) // a.handles} configurations x {a.handles} repeat(s)), "
          f"{a.runtime:g} s each (about {estimate_s(runs, a.runtime) / 60:.1f} min); results in {a.out}", flush=True)
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
    print(f"\nResults: {a.out / 'handles.json'}" + (f"\nPlots: {', '.join(str(p) for _, _, p in figs)}" if figs else ""))
    return status


if __name__ == "__main__":
    sys.exit(main())
