# SPDX-License-Identifier: MIT
"""The bursty-neighbour experiment: a busy loop on the I/O's core, stopped and
resumed in on/off bursts (20, 50, 200, 1000 ms, or always on), beside 4 KiB
random reads at queue depth 1 waiting by poll, by interrupt and adaptively
(under both objectives).

Each round measures its own references, in a shuffled order with the cells:
the I/O alone (poll, the fastest alone) and the neighbour alone in each
burst pattern. A cell's scores are taken against the same round's
references: `own` = IOPS / IOPS alone; `shared` = own + the share of its
on-time the neighbour ran / the same alone (a busy loop's progress is the
CPU it gets, read from its schedstat in ns, here over the I/O's own
measured window). Adaptive is compared with the better static strategy of
the same round, by the objective it runs under.

The adaptive runs log every millisecond; each time the neighbour starts or
stops, the time until adaptive's settled mode is the right one for the rest
of that phase is its reaction.

Run it alone: python3 -m hybridio.study.bursty --help. `make study` runs it too.
"""

import json
import os
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ..adaptive.settle import settle_ms
from ..common import corunner, hiobench, process, stats
from ..common.command import parser
from ..common.errors import UsageError

BURSTS_MS = (20, 50, 200, 1000, 0)  # 0: always on
STRATEGIES = {
    "poll": ("poll", None),
    "interrupt": ("interrupt", None),
    "adaptive": ("adaptive", "shared"),
    "adaptive-own": ("adaptive", "own"),
}
STATIC = ("poll", "interrupt")
LOG = "1ms"


NONE = -1  # no neighbour: the I/O alone, scored by its own throughput


def burst_name(ms):
    if ms == NONE:
        return "no neighbour"
    return "always on" if ms == 0 else f"{ms} ms on / {ms} ms off"


@dataclass(frozen=True)
class Options:
    """What the experiment runs with: hio-bench, the shared core, seconds per
    run, the file target's size, rounds, the seed of the runs' order within
    rounds, and I/O threads."""

    hio_bench: str
    cpu: int
    runtime: float
    size: str
    repeats: int = 1
    seed: int = 0
    numjobs: int = 1


class Neighbour:
    """A busy loop pinned to `cpu`, on for `burst_ms` and off as long, in turn
    (always on for 0). transitions holds (unix ms, on) for every change;
    cpu_ns() is the CPU time it has received."""

    def __init__(self, cpu, burst_ms):
        self.cpu, self.burst = cpu, burst_ms
        self.proc = subprocess.Popen(
            ["sh", "-c", "while :; do :; done"],
            start_new_session=True,
            preexec_fn=lambda: (process.die_with_parent(), os.sched_setaffinity(0, {cpu})),
        )
        self._duty = process.DutyCycle(self.proc, burst_ms / 1e3, burst_ms / 1e3)
        self.transitions = self._duty.transitions

    def __enter__(self):
        self._duty.start()
        return self

    def cpu_ns(self):
        with open(f"/proc/{self.proc.pid}/schedstat") as f:
            return int(f.read().split()[0])

    def cpu_by_pid(self):
        """For corunner.CpuMeter."""
        return {self.proc.pid: self.cpu_ns()}

    def on_ms(self, t0, t1):
        """How long it was on between t0 and t1 (unix ms)."""
        on = 0.0
        for i, (at, running) in enumerate(self.transitions):
            if running:
                end = self.transitions[i + 1][0] if i + 1 < len(self.transitions) else t1
                on += max(0.0, min(end, t1) - max(at, t0))
        return on

    def __exit__(self, *exc):
        self._duty.stop()
        process.kill_group(self.proc)


def command(hio_bench, target, strategy, cpu, runtime, size, numjobs=1):
    mode, objective = STRATEGIES[strategy]
    cmd = [
        hio_bench,
        "--name=bursty",
        f"--filename={target}",
        "--rw=randread",
        f"--bs={hiobench.BS}",
        "--iodepth=1",
        f"--runtime={runtime:g}",
        "--time_based",
        f"--cpus_allowed={cpu}",
        f"--completion={mode}",
        f"--numjobs={numjobs}",
        "--output-format=json",
    ]
    if not target.startswith("emu:"):
        cmd += ["--direct=1", f"--size={size}"]
    if objective:
        cmd += [f"--adaptive_objective={objective}", f"--adaptive_log={LOG}"]
    return cmd


def measure(o, target, strategy, burst, started=None):
    """One run: the I/O's figures (IOPS summed over its jobs; the first job's
    report) and, with a neighbour, its transitions, and the CPU time it got
    and how long it was on, both over the I/O's own measured window. Read
    from the neighbour's start to the I/O's exit, its CPU took in hio-bench's
    start and exit (tens of ms), spent alone at the start of a burst: on
    emu:pcie3 at 200 ms bursts poll's combined score read 1.265, 1.361 and
    1.265 in three rounds, with its own part at 0.74 in each."""
    cmd = command(o.hio_bench, target, strategy, o.cpu, o.runtime, o.size, o.numjobs)

    def io():
        jobs = json.loads(hiobench.run(cmd, process.timeout_s(o.runtime), started))["jobs"]
        return sum(j["read"]["iops"] for j in jobs), jobs[0]

    if burst is None or burst == NONE:
        iops, job = io()
        return {"iops": iops, "neighbour_cpu_ns": 0, "neighbour_on_ms": 0, "job": job, "transitions": []}
    with Neighbour(o.cpu, burst) as n, corunner.CpuMeter(n, period=0.005) as meter:
        if started:
            started(n.proc.pid)
        iops, job = io()
    t0 = job["hybridio"]["start_unix_ms"]
    t1 = t0 + job["job_runtime"]
    to_monotonic = time.monotonic() - time.time()
    cores = meter.rate((t0 / 1e3 + to_monotonic, t1 / 1e3 + to_monotonic))
    if cores is None:
        raise RuntimeError(f"the neighbour's CPU time was not sampled over {target} {strategy}'s run")
    return {
        "iops": iops,
        "neighbour_cpu_ns": cores * (t1 - t0) * 1e6,
        "neighbour_on_ms": n.on_ms(t0, t1),
        "job": job,
        "transitions": n.transitions,
    }


def neighbour_alone(o, burst):
    """The share of its on-time the neighbour runs alone (about 1)."""
    with Neighbour(o.cpu, burst) as n:
        c0, t0 = n.cpu_ns(), time.time() * 1e3
        time.sleep(o.runtime)
        c1, t1 = n.cpu_ns(), time.time() * 1e3
        return (c1 - c0) / 1e6 / n.on_ms(t0, t1)


def plan(targets, bursts, strategies, rounds, seed=0):
    """Per round, in a shuffled order: each target's I/O alone, the neighbour
    alone per burst, and every (target, burst) block of its strategies' cells,
    which adaptive's verdict compares, next to each other in a shuffled order
    (hybridio.common.rounds.schedule says why)."""
    rng = random.Random(seed)
    out = []
    for r in range(rounds):
        blocks = [[("io-alone", t, None, "poll")] for t in targets]
        blocks += [[("neighbour-alone", None, b, None)] for b in bursts if b != NONE]
        blocks += [[("cell", t, b, s) for s in strategies] for t in targets for b in bursts]
        rng.shuffle(blocks)
        for b in blocks:
            rng.shuffle(b)
            out += [(r, *s) for s in b]
    return out


def scores(cell, io_alone, share_alone):
    """`theirs` is the share of its on-time the neighbour ran, against the same
    alone: phase-free, where CPU time over a window that is not a whole number
    of on/off periods would depend on where the window starts."""
    own = cell["iops"] / io_alone if io_alone else 0.0
    on_ms = cell["neighbour_on_ms"]
    theirs = cell["neighbour_cpu_ns"] / 1e6 / on_ms / share_alone if share_alone and on_ms else 0.0  # no neighbour: 0
    return {"own": own, "theirs": theirs, "shared": own + theirs}


def objective_of(strategy):
    return STRATEGIES[strategy][1] or "shared"


def reactions(run, right_on, right_off):
    """Settle times after each start and each stop of the neighbour in one
    adaptive run: {"on": [...], "off": [...]} in ms (None: never settled)."""
    job = run["job"]
    h = job.get("hybridio", {})
    points, start = h.get("timeline", []), h.get("start_unix_ms", 0)
    end_run = start + job["job_runtime"]
    tr = run["transitions"]
    out = {"on": [], "off": []}
    for i, (at, on) in enumerate(tr):
        end = tr[i + 1][0] if i + 1 < len(tr) else end_run
        if at < start or end > end_run:
            continue  # the change fell outside the run, or its phase did
        out["on" if on else "off"].append(settle_ms(points, at, end, right_on if on else right_off, start))
    return out


def median_spread(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return {"median": statistics.median(xs), "min": min(xs), "max": max(xs), "n": len(xs)}


def summarize(results, targets, bursts):
    """Per target and burst: each strategy's scores, and adaptive against the
    better static strategy (over all rounds), round by round, by its objective."""
    rows = []
    for t in targets:
        for b in bursts:
            rounds = _rounds(results, t, b)
            names = sorted({s for rd in rounds.values() for s in rd})
            statics = [x for x in STATIC if any(x in rd for rd in rounds.values())]
            row = {"target": t, "burst_ms": b, "strategies": {}, "versus_best": {}}
            for s in names:
                row["strategies"][s] = {
                    k: median_spread([rd[s][k] for rd in rounds.values() if s in rd])
                    for k in ("own", "theirs", "shared")
                }
            if statics:
                row["versus_best"] = {s: _versus_best(rounds, s, statics) for s in names if s not in STATIC}
            rows.append(row)
    return rows


def _rounds(results, target, burst):
    """{round: {strategy: scores}} of one target's cells at one burst."""
    rounds = {}
    for r in results:
        if r["kind"] == "cell" and r["target"] == target and r["burst"] == burst:
            rounds.setdefault(r["round"], {})[r["strategy"]] = r["scores"]
    return rounds


def _versus_best(rounds, s, statics):
    """Adaptive strategy s's score by its objective over the static strategy
    best over all rounds, round by round: the better of two noisy figures in
    each round would lean the ratio below 1. The ratios' median and spread,
    with their interval and state; None without a round to pair."""
    obj = objective_of(s)
    best = max(statics, key=lambda x: statistics.fmean(rd[x][obj] for rd in rounds.values() if x in rd))
    ratios = [rd[s][obj] / rd[best][obj] for rd in rounds.values() if s in rd and best in rd and rd[best][obj]]
    out = median_spread(ratios)
    if ratios and out:
        iv = stats.ratio_interval(ratios)
        out["best_static"] = best
        out.update(iv.as_dict("gm_"), state=RULE.judge(iv), interval_text=iv.text(3))
    return out


# Adaptive against the better static strategy of the same round: no worse at
# the parity margin for rates, as in the contention experiment.
RULE = stats.non_inferior(stats.RATE_MARGIN)
TIE = 0.02  # static strategies this close in the always-on cell are both right


def right_modes(rows, target):
    """The modes adaptive may hold while the neighbour is on, per objective:
    the better static strategy in the always-on cell, and the other too when
    it scored within TIE of it. (Off, it is poll.)"""
    on = {}
    for row in rows:
        if row["target"] == target and row["burst_ms"] == 0:
            for obj in ("shared", "own"):
                cand = {s: row["strategies"][s][obj]["median"] for s in STATIC if s in row["strategies"]}
                if cand:
                    best = max(cand.values())
                    on[obj] = tuple(s for s in STATIC if s in cand and cand[s] >= best * (1 - TIE))
    return on


def reaction_summary(results, rows, targets):
    out = {}
    for t in targets:
        right_on = right_modes(rows, t)
        for s in STRATEGIES:
            if STRATEGIES[s][0] != "adaptive" or objective_of(s) not in right_on:
                continue
            got = {"on": [], "off": []}
            for r in results:
                if r["kind"] == "cell" and r["target"] == t and r["strategy"] == s and r["burst"] > 0:
                    for k, v in reactions(r, right_on[objective_of(s)], ("poll",)).items():
                        got[k] += v
            never = {k: sum(1 for x in v if x is None) for k, v in got.items()}
            out[f"{t} {s}"] = {
                "right_on": " or ".join(right_on[objective_of(s)]),
                "right_off": "poll",
                "on": median_spread(got["on"]),
                "off": median_spread(got["off"]),
                "never": never,
                "changes": {k: len(v) for k, v in got.items()},
            }
    return out


def fmt(ms):
    return "-" if ms is None else f"{ms['median']:.3f} ({ms['min']:.3f}–{ms['max']:.3f})"


def markdown(rows, react):
    lines = [
        "| target | neighbour | poll | interrupt | adaptive (shared) | adaptive / best | adaptive-own: own "
        "| adaptive-own / best own |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        st, vb = r["strategies"], r["versus_best"]

        def cell(s, k):
            return fmt(st[s][k]) if s in st else "-"

        lines.append(
            f"| {r['target']} | {burst_name(r['burst_ms'])} | {cell('poll', 'shared')} | "
            f"{cell('interrupt', 'shared')} | {cell('adaptive', 'shared')} | {fmt(vb.get('adaptive'))} | "
            f"{cell('adaptive-own', 'own')} | {fmt(vb.get('adaptive-own'))} |"
        )
    lines += [
        "",
        "| run | right mode (on / off) | settle after a start, ms | after a stop, ms | never settled |",
        "|---|---|---:|---:|---:|",
    ]
    for k, v in react.items():

        def ms(x):
            return "-" if x is None else f"{x['median']:.1f} ({x['min']:.1f}–{x['max']:.1f}, n={x['n']})"

        lines.append(
            f"| {k} | {v['right_on']} / {v['right_off']} | {ms(v['on'])} | {ms(v['off'])} | "
            f"{v['never']['on']}/{v['changes']['on']} on, {v['never']['off']}/{v['changes']['off']} off |"
        )
    return "\n".join(lines)


def verdict(row):
    """One sentence per target and burst: adaptive against the best static."""
    out = []
    for s, v in row["versus_best"].items():
        if v is None:
            continue
        state = v.get("state", stats.UNRESOLVED)
        out.append(
            f"{row['target']}, {burst_name(row['burst_ms'])}: {s} scored {v['median']:.3f} "
            f"({v['min']:.3f}–{v['max']:.3f}, {v['n']} rounds) of the better static strategy by its "
            f"objective ({objective_of(s)}); paired geometric mean and 95% interval "
            f"{v.get('interval_text', 'none')}; {RULE.words()}: {stats.STATE_WORDS[state]}."
        )
    return out


def claims(rows, target):
    """The target's bursty verdicts as claims (hybridio.study.verdict's shape):
    adaptive no worse than the better static strategy of each round (RULE)."""
    out = []
    for row in rows:
        if row["target"] != target:
            continue
        for s, v in row["versus_best"].items():
            if not v or "state" not in v:
                continue
            out.append(
                {
                    "id": f"bursty-{row['burst_ms']}-{s}",
                    "load": None,
                    "burst_ms": row["burst_ms"],
                    **RULE.as_dict(),
                    "state": v["state"],
                    "threshold": RULE.threshold(),
                    "compared": [s, v["best_static"]],
                    "text": f"beside a neighbour {burst_name(row['burst_ms'])}, {s} is no worse than the better "
                    f"static strategy by its objective ({objective_of(s)}) at {RULE.margin:.0%}",
                    "interval": {k.removeprefix("gm_"): v[k] for k in v if k.startswith("gm_")},
                    "interval_text": v["interval_text"],
                }
            )
    return out


def findings(rows, react, target):
    """The study's sentences for one target: adaptive against the better
    static strategy per burst length, and its reaction times."""
    out = []
    for row in rows:
        if row["target"] == target:
            out += verdict(row)
    for s in STRATEGIES:
        v = react.get(f"{target} {s}")
        if not v:
            continue

        def ms(x):
            return "never" if x is None else f"{x['median']:.1f} ms (median; {x['min']:.1f}–{x['max']:.1f})"

        out.append(
            f"Bursty neighbour, {s}: after the neighbour started it settled on {v['right_on']} in "
            f"{ms(v['on'])}, after it stopped on poll in {ms(v['off'])}; {v['never']['on']} of "
            f"{v['changes']['on']} starts and {v['never']['off']} of {v['changes']['off']} stops never "
            f"settled within their phase (1 ms log; goal: within 10 ms)."
        )
    return out


def example_run(results, target, burst=50):
    """An adaptive (shared) run at `burst` ms, or at the shortest burst there is."""
    runs = [r for r in results if r["target"] == target and r["strategy"] == "adaptive" and r["burst"] > 0]
    runs.sort(key=lambda r: (r["burst"] != burst, r["burst"]))
    return runs[0] if runs else None


class Measured:
    """The experiment's runs so far (results, each scored against its round's
    references) and those references; run() adds the steps of a plan."""

    def __init__(self):
        self.results = []
        self.refs = {}

    def run(self, o, steps, progress=None, started=None):
        for r, kind, t, b, s in steps:
            if kind == "io-alone":
                self.refs[(r, "io", t)] = measure(o, t, "poll", None, started)["iops"]
            elif kind == "neighbour-alone":
                self.refs[(r, "cpu", b)] = neighbour_alone(o, b)
            else:
                m = measure(o, t, s, b, started)
                m.update({"kind": kind, "round": r, "target": t, "burst": b, "strategy": s})
                if not STRATEGIES[s][1]:
                    m["job"] = {k: m["job"][k] for k in ("read", "job_runtime")}
                self.results.append(m)
            if progress:
                progress(f"bursty {kind} {t or ''} {b if b is not None else ''} {s or ''}")
        # A round's references may run after its cells: score once the steps are done.
        for m in self.results:
            refs = (self.refs[(m["round"], "io", m["target"])], self.refs.get((m["round"], "cpu", m["burst"])))
            m["scores"] = scores(m, *refs)


def run(o, targets, bursts, strategies, progress=None, started=None):
    m = Measured()
    m.run(o, plan(targets, bursts, strategies, o.repeats, o.seed), progress, started)
    return m.results


def extra_round(target, burst, strategies, r):
    """The steps of one more round of (target, burst): its references and
    the cells of the strategies given (those a claim compares), in a
    shuffled order."""
    steps = [("io-alone", target, None, "poll")]
    steps += [("neighbour-alone", None, burst, None)] if burst != NONE else []
    steps += [("cell", target, burst, s) for s in strategies]
    random.Random(r).shuffle(steps)
    return [(r, *s) for s in steps]


def steps(targets, bursts, strategies, repeats):
    neighbours = sum(1 for b in bursts if b != NONE)
    return repeats * (len(targets) + neighbours + len(targets) * len(bursts) * len(strategies))


def parse_args(argv):
    ap = parser("python3 -m hybridio.study.bursty", __doc__)
    ap.add_argument("--targets", default="file,emu:pcie3", help="'file' (see --file), emu:PROFILE or a path")
    ap.add_argument("--file", default="/tmp/hybridio-study.dat", help="the disk target (default: %(default)s)")
    ap.add_argument("--size", default="1g", help="size of the file target (default: %(default)s)")
    ap.add_argument(
        "--bursts",
        default="20,50,200,1000,0",
        help="on/off ms, 0 for always on, -1 for no neighbour (default: %(default)s)",
    )
    ap.add_argument(
        "--numjobs",
        type=int,
        default=1,
        help="I/O threads, each with a queue of its own, all on the shared core; IOPS are their sum "
        "(default: %(default)s)",
    )
    ap.add_argument("--strategies", default=",".join(STRATEGIES), help="(default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=5, help="rounds (default: %(default)s)")
    ap.add_argument("--runtime", type=float, default=2, help="seconds per run (default: %(default)s)")
    ap.add_argument("--cpu", type=int, default=(os.cpu_count() or 1) - 1, help="the shared core (default: the last)")
    ap.add_argument("--seed", type=int, default=0, help="order of the runs within rounds (default: %(default)s)")
    ap.add_argument("--out", help="write the raw results and the summary as JSON here")
    ap.add_argument("--hio-bench", default=hiobench.default_path(), help="(default: %(default)s)")
    return ap.parse_args(argv)


def resolve(a):
    """(Options, targets, bursts, strategies) of parsed arguments; bad input raises UsageError."""
    hiobench.check(a.hio_bench)
    try:
        bursts = [int(x) for x in a.bursts.split(",")]
    except ValueError:
        raise UsageError(f"--bursts={a.bursts!r}: expected comma-separated milliseconds") from None
    bad = [b for b in bursts if not NONE <= b <= 10000]
    if bad:
        raise UsageError(f"--bursts: {bad[0]} is outside -1..10000 ms")
    if not 1 <= a.numjobs <= 64:
        raise UsageError(f"--numjobs={a.numjobs}: expected 1..64 I/O threads")
    strategies = a.strategies.split(",")
    bad = [s for s in strategies if s not in STRATEGIES]
    if bad:
        raise UsageError(f"unknown strategy {bad[0]!r} (choose from {', '.join(STRATEGIES)})")
    if a.repeats < 1 or a.runtime <= 0:
        raise UsageError("--repeats must be at least 1 and --runtime above 0")
    if not 0 <= a.cpu < (os.cpu_count() or 1):
        raise UsageError(f"--cpu={a.cpu}: no such CPU (this machine has {os.cpu_count()})")
    targets = [a.file if t == "file" else t for t in a.targets.split(",")]
    o = Options(a.hio_bench, a.cpu, a.runtime, a.size, a.repeats, a.seed, a.numjobs)
    return o, targets, bursts, strategies


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        o, targets, bursts, strategies = resolve(a)
    except UsageError as e:
        print(f"hybridio.study.bursty: {e}", file=sys.stderr)
        return 2
    n = steps(targets, bursts, strategies, o.repeats)
    print(f"bursty neighbour: {n} runs of {o.runtime:g} s (about {n * (o.runtime + 0.3) / 60:.1f} min)", flush=True)
    bar = tqdm(total=n, unit="run", dynamic_ncols=True)

    def step(what):
        bar.update()
        bar.set_description(what[:40])

    try:
        results = run(o, targets, bursts, strategies, step)
    except RuntimeError as e:
        bar.close()
        print(f"hybridio.study.bursty: {e}", file=sys.stderr)
        return 1
    bar.close()
    rows = summarize(results, targets, bursts)
    react = reaction_summary(results, rows, targets)
    print(markdown(rows, react))
    for row in rows:
        for s in verdict(row):
            print(s)
    if a.out:
        Path(a.out).write_text(json.dumps({"rows": rows, "reactions": react, "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
