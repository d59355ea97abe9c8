#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Do hio-study's two drivers agree? The co-runner matrix run by hio-bench and
by fio with hybridio's fio engine, on the emulated SSDs.

Runs `hio-study --driver hio-bench` and `hio-study --driver fio` with the same
arguments (the timeline, bursty and handle experiments off: they always run
on hio-bench), one after the other, then compares:
- winners: at each target and load, the winner each study names by its
  paired rounds ("tie" where its interval cannot separate the first two).
  The drivers disagree only where both name a winner and the two differ.
  Beside it, the best static strategy by median score (hybridio.verdict;
  adaptive, which follows them, left out), and where the two studies' best
  differ, how close each had the other's;
- IOPS: at each target, strategy and load, fio's IOPS over hio-bench's in
  the same round number, summarised by the geometric mean with its 95%
  interval (hybridio.stats). Claim: within 5% (0.95..1.05).
Prints a Markdown table (docs/benchmarks.md); both studies stay in --out.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from hybridio import hiobench, stats, verdict  # noqa: E402

DRIVERS = ("hio-bench", "fio")
BAND = (0.95, 1.05)


def iops_by_round(folder, driver):
    """{(target, strategy, load): {round: IOPS}} from a study's raw runs."""
    got = {}
    for path in sorted((folder / "raw").glob("*.json")):
        doc = json.loads(path.read_text())
        c = doc["cell"]
        if c["experiment"] != "contention":
            continue
        key = (c["target"], c["strategy"], c["load_pct"])
        got.setdefault(key, {})[doc["repeat"]] = hiobench.parse_jobs(doc[driver]["jobs"])["iops"]
    return got


def winners(folder):
    """{(target, load): winner or "tie"} as the study's verdicts name them."""
    return {
        (v["target"], int(load)): w
        for v in json.loads((folder / "verdicts.json").read_text())
        for load, w in v["winners"].items()
    }


def leaders(folder):
    """{(target, load): (the best static strategy by median score, {strategy: score / the best's})}."""
    rows = [r for r in json.loads((folder / "summary.json").read_text()) if r["strategy"] != "adaptive"]
    got = {}
    for target in sorted({r["target"] for r in rows}):
        mine = [r for r in rows if r["experiment"] == "contention" and r["target"] == target]
        best_solo = max(r["iops"] for r in mine if r["corunner_load_pct"] == 0)
        for load, lead in verdict.verdict(rows, target)["winners"].items():
            scores = {r["strategy"]: verdict.score(r, best_solo) for r in mine if r["corunner_load_pct"] == load}
            got[(target, load)] = (lead, {s: v / scores[lead] for s, v in scores.items()})
    return got


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", default="emu:pcie3,emu:pcie4", help="(default: %(default)s)")
    ap.add_argument("--loads", default="0,10,50,100", help="(default: %(default)s)")
    ap.add_argument("--strategies", default="interrupt,poll,hybrid,adaptive", help="(default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="rounds per study (default: %(default)s)")
    ap.add_argument("--hio-bench", default=str(ROOT / "build" / "hio-bench"))
    ap.add_argument("--fio-engine", default=str(ROOT / "build" / "plugins" / "fio" / "libhybridio-fio.so"))
    ap.add_argument("--out", default="results/study-drivers", help="the two studies go in here (default: %(default)s)")
    a = ap.parse_args()
    if a.repeats < 2:
        ap.error(f"--repeats must be at least 2 for an interval (got {a.repeats})")
    out = Path(a.out)
    folders = {d: out / d for d in DRIVERS}
    for d in DRIVERS:
        cmd = [
            sys.executable,
            "-m",
            "hybridio.study",
            "--driver",
            d,
            "--targets",
            a.targets,
            "--loads",
            a.loads,
            "--strategies",
            a.strategies,
            "--repeats",
            str(a.repeats),
            "--threads",
            "1",
            "--budget",
            "0",
            "--timeline",
            "0",
            "--bursty",
            "0",
            "--handles",
            "0",
            "--hio-bench",
            a.hio_bench,
            "--fio-engine",
            a.fio_engine,
            "--out",
            str(folders[d]),
        ]
        print(f"study_drivers.py: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
        if subprocess.run(cmd, env={**os.environ, "PYTHONPATH": str(ROOT / "python")}).returncode:
            sys.exit(f"study_drivers.py: the {d} study failed")
    iops = {d: iops_by_round(folders[d], d) for d in DRIVERS}
    won = {d: winners(folders[d]) for d in DRIVERS}
    led = {d: leaders(folders[d]) for d in DRIVERS}
    print("| target | load | winner: hio-bench | winner: fio | strategy | fio / hio-bench IOPS [95% CI] | within 5% |")
    print("|---|---:|---|---|---|---|---|")
    counts = {stats.MET: 0, stats.NOT_MET: 0, stats.UNRESOLVED: 0}
    disagree = []
    for target, strategy, load in sorted(iops["hio-bench"], key=lambda k: (k[0], k[2], k[1])):
        a_rounds, b_rounds = iops["hio-bench"][(target, strategy, load)], iops["fio"].get((target, strategy, load))
        if not b_rounds:
            continue
        ratios = [b_rounds[r] / a_rounds[r] for r in a_rounds if r in b_rounds and a_rounds[r] > 0]
        iv = stats.ratio_interval(ratios)
        state = stats.judge_within(iv, *BAND)
        counts[state] += 1
        wa, wb = won["hio-bench"].get((target, load), "-"), won["fio"].get((target, load), "-")
        if "tie" not in (wa, wb) and wa != wb:
            disagree.append(f"{target} at {load}%: {wa} against {wb}")
        print(f"| {target} | {load}% | {wa} | {wb} | {strategy} | {iv.text(3)} | {stats.STATE_WORDS[state]} |")
    cells = sorted(won["hio-bench"])
    same = sum(won["hio-bench"][c] == won["fio"].get(c) for c in cells)
    print(
        f"\nWinners (paired): the same at {same} of {len(cells)} target-loads; different winners named at "
        f"{len(disagree)}{': ' + '; '.join(disagree) if disagree else ''}."
    )
    differ = []
    for c in cells:
        (la, sa), (lb, sb) = led["hio-bench"][c], led["fio"][c]
        if la != lb:
            differ.append(
                f"{c[0]} at {c[1]}%: {la} (fio had it at {sb[la]:.3f} of {lb}) against {lb} "
                f"(hio-bench had it at {sa[lb]:.3f} of {la})"
            )
    print(
        f"Best static strategy by median score: the same at {len(cells) - len(differ)} of {len(cells)}"
        f"{'; different at ' + '; '.join(differ) if differ else ''}."
    )
    print(
        f"IOPS within 5%: {counts[stats.MET]} met, {counts[stats.NOT_MET]} NOT met, "
        f"{counts[stats.UNRESOLVED]} unresolved."
    )
    print(f"The two studies: {folders['hio-bench']}, {folders['fio']}", file=sys.stderr)


if __name__ == "__main__":
    main()
