#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two hio-bench builds on one job, interleaved: what a change to the
library did on this machine.

Each round runs the job once with each build, the order alternating from
round to round: the disk's speed drifts by up to ±20% from one second to
the next, and a fixed order would charge the drift to one build. Prints
each build's median IOPS (summed over the job's --numjobs) and the paired
ratio B / A with its 95% interval. With --low-share, it also counts the
rounds in which each build fell below that share of the median round of
both: a queue that locks into the wrong mode for a whole run (two of our
queues on emu:pcie4 with one asleep beside the other's spinning did 0.67
of two pollers) shows as such a round.

The job is every argument after `--`, passed to hio-bench as is, for example:

    python3 bench/compare_builds.py --a old/hio-bench --b build/hio-bench --rounds 16 --low-share 0.8 -- \\
        --filename=emu:pcie4 --numjobs=2 --cpus_allowed=1 --completion=adaptive \\
        --adaptive_objective=own --rw=randread --bs=4k --iodepth=1 --runtime=2 --time_based
"""

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import run_jobs  # noqa: E402

from hybridio.common import stats  # noqa: E402
from hybridio.common.hiobench import parse_jobs  # noqa: E402


def iops(cmd):
    """The job's read and write IOPS summed over its jobs."""
    return parse_jobs(run_jobs(cmd))["iops"]


def compare(a, b, job, rounds, low_share=None, say=print):
    """Runs the rounds; returns the figures (JSON-ready)."""
    runs = {"a": [], "b": []}
    for r in range(rounds):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for which in order:
            bench = a if which == "a" else b
            runs[which].append(iops([bench, *job, "--output-format=json"]))
        say(f"round {r + 1}/{rounds}: A {runs['a'][-1]:,.0f}  B {runs['b'][-1]:,.0f} IOPS")
    ratio = stats.ratio_interval([y / x for x, y in zip(runs["a"], runs["b"]) if x > 0 and y > 0])
    out = {
        "a": a,
        "b": b,
        "job": job,
        "rounds": rounds,
        "iops": runs,
        "median_iops": {k: statistics.median(v) for k, v in runs.items()},
        "b_over_a": ratio.as_dict(),
        "b_over_a_text": ratio.text(3),
    }
    if low_share is not None:
        typical = statistics.median(runs["a"] + runs["b"])
        out["low_share"] = low_share
        out["low_rounds"] = {k: sum(v < low_share * typical for v in runs[k]) for k in runs}
    return out


def parse(argv):
    ap = argparse.ArgumentParser(
        prog="compare_builds.py", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--a", required=True, help="the first build's hio-bench (the one compared against)")
    ap.add_argument("--b", required=True, help="the second build's hio-bench")
    ap.add_argument("--rounds", type=int, default=10, help="rounds, each running both builds (default: %(default)s)")
    ap.add_argument("--low-share", type=float, help="count the rounds below this share of the median round (0-1)")
    ap.add_argument("--out", help="also write the figures to this JSON file")
    at = argv.index("--") if "--" in argv else len(argv)
    o = ap.parse_args(argv[:at])
    o.job = argv[at + 1 :]
    if o.rounds < 2:
        ap.error(f"--rounds must be at least 2 for an interval, got {o.rounds}")
    if o.low_share is not None and not 0 < o.low_share < 1:
        ap.error(f"--low-share must lie between 0 and 1, got {o.low_share}")
    if not o.job:
        ap.error("no job after `--`: give hio-bench's arguments, e.g. --filename=emu:pcie4 --runtime=2")
    for flag in ("a", "b"):
        path = getattr(o, flag)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            ap.error(f"--{flag}={path} is not an executable hio-bench")
    return o


def main(argv=None):
    o = parse(sys.argv[1:] if argv is None else argv)
    r = compare(o.a, o.b, o.job, o.rounds, o.low_share)
    print(f"median IOPS: A {r['median_iops']['a']:,.0f}, B {r['median_iops']['b']:,.0f}")
    print(f"B / A over {o.rounds} paired rounds: {r['b_over_a_text']}")
    if "low_rounds" in r:
        low, n = r["low_rounds"], o.rounds
        print(f"rounds below {o.low_share:g} of the median round: A {low['a']} of {n}, B {low['b']} of {n}")
    if o.out:
        Path(o.out).write_text(json.dumps(r, indent=1) + "\n")
        print(f"figures: {o.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
