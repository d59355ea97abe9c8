#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Do hio-study's two drivers agree? The co-runner matrix run by hio-bench and
by fio with hybridio's fio engine, on the emulated SSDs.

Runs `hio-study --driver hio-bench` and `hio-study --driver fio` with the same
arguments (the timeline, bursty and handle experiments off: they always run
on hio-bench), in --blocks blocks of --repeats rounds each: in every block
both drivers run, in a shuffled order (randomized multiple interleaved
trials, Abedi and Brecht, ICPE 2017), so that the machine's drift from
minute to minute falls on both. Then it compares:
- winners: at each target and load, the winner each block's study names by
  its paired rounds ("tie" where its interval cannot separate the first two).
  The drivers disagree only where both name a winner and the two differ.
  Beside it, the best static strategy by median score (hybridio.study.verdict;
  adaptive, which follows them, left out), and where the two studies' best
  differ, how close each had the other's;
- IOPS: at each target, strategy and load, fio's IOPS over hio-bench's in
  the same round of the same block, summarised by the geometric mean with its 95%
  interval (hybridio.common.stats). Claim: equivalence at the parity margin for
  rates, 5% (the whole interval inside 0.95..1.05).
Prints a Markdown table (docs/benchmarks.md); every study stays in --out.
"""

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from hybridio.common import hiobench, stats  # noqa: E402
from hybridio.study import verdict  # noqa: E402

DRIVERS = ("hio-bench", "fio")
RULE = stats.equivalent(stats.RATE_MARGIN)


def iops_by_round(folders, driver):
    """{(target, strategy, load): {(block, round): IOPS}} from the blocks' raw runs."""
    got = {}
    for block, folder in enumerate(folders):
        for path in sorted((folder / "raw").glob("*.json")):
            doc = json.loads(path.read_text())
            c = doc["cell"]
            if c["experiment"] != "contention":
                continue
            key = (c["target"], c["strategy"], c["load_pct"])
            got.setdefault(key, {})[(block, doc["repeat"])] = hiobench.parse_jobs(doc[driver]["jobs"])["iops"]
    return got


def winners(folders):
    """{(target, load): [winner or "tie" per block]} as each block's study names them."""
    got = {}
    for folder in folders:
        for v in json.loads((folder / "verdicts.json").read_text()):
            for load, w in v["winners"].items():
                got.setdefault((v["target"], int(load)), []).append(w)
    return got


def leaders(folders):
    """{(block, target, load): (the best static strategy by median score, {strategy: score / the best's})}."""
    got = {}
    for block, folder in enumerate(folders):
        rows = [r for r in json.loads((folder / "summary.json").read_text()) if r["strategy"] != "adaptive"]
        for target in sorted({r["target"] for r in rows}):
            mine = [r for r in rows if r["experiment"] == "contention" and r["target"] == target]
            best_solo = max(r["iops"] for r in mine if r["corunner_load_pct"] == 0)
            for load, lead in verdict.verdict(rows, target)["winners"].items():
                scores = {r["strategy"]: verdict.score(r, best_solo) for r in mine if r["corunner_load_pct"] == load}
                got[(block, target, load)] = (lead, {s: v / scores[lead] for s, v in scores.items()})
    return got


def study_cmd(a, driver, folder):
    return [
        sys.executable,
        "-m",
        "hybridio.study",
        "--driver",
        driver,
        "--targets",
        a.targets,
        "--loads",
        a.loads,
        "--strategies",
        a.strategies,
        "--repeats",
        str(a.repeats),
        "--runtime",
        str(a.runtime),
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
        str(folder),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--targets", default="emu:pcie3,emu:pcie4", help="(default: %(default)s)")
    ap.add_argument("--loads", default="0,10,50,100", help="(default: %(default)s)")
    ap.add_argument("--strategies", default="interrupt,poll,hybrid,adaptive", help="(default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="rounds per study (default: %(default)s)")
    ap.add_argument("--blocks", type=int, default=1, help="studies per driver, interleaved (default: %(default)s)")
    ap.add_argument("--runtime", type=int, default=1, help="seconds per run (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1, help="the drivers' order in each block (default: %(default)s)")
    ap.add_argument("--hio-bench", default=str(ROOT / "build" / "hio-bench"))
    ap.add_argument("--fio-engine", default=str(ROOT / "build" / "plugins" / "fio" / "libhybridio-fio.so"))
    ap.add_argument("--out", default="results/study-drivers", help="the two studies go in here (default: %(default)s)")
    a = ap.parse_args()
    if a.repeats < 2 or a.blocks < 1 or a.runtime < 1:
        ap.error(
            f"--repeats must be at least 2 for an interval, --blocks at least 1 and --runtime at least 1 "
            f"(got {a.repeats}, {a.blocks}, {a.runtime})"
        )
    out = Path(a.out)
    folders = {d: [out / d / f"block{b}" for b in range(a.blocks)] for d in DRIVERS}
    rng = random.Random(a.seed)
    for b in range(a.blocks):
        for d in rng.sample(DRIVERS, len(DRIVERS)):
            cmd = study_cmd(a, d, folders[d][b])
            print(f"study_drivers.py: block {b + 1} of {a.blocks}: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
            if subprocess.run(cmd, env={**os.environ, "PYTHONPATH": str(ROOT / "python")}).returncode:
                sys.exit(f"study_drivers.py: the {d} study of block {b + 1} failed")
    iops = {d: iops_by_round(folders[d], d) for d in DRIVERS}
    won = {d: winners(folders[d]) for d in DRIVERS}
    led = {d: leaders(folders[d]) for d in DRIVERS}
    print(
        "| target | load | winner: hio-bench | winner: fio | strategy | fio / hio-bench IOPS [95% CI] | "
        f"{RULE.words()} |"
    )
    print("|---|---:|---|---|---|---|---|")
    counts = {stats.MET: 0, stats.NOT_MET: 0, stats.UNRESOLVED: 0}
    for target, strategy, load in sorted(iops["hio-bench"], key=lambda k: (k[0], k[2], k[1])):
        a_rounds, b_rounds = iops["hio-bench"][(target, strategy, load)], iops["fio"].get((target, strategy, load))
        if not b_rounds:
            continue
        ratios = [b_rounds[r] / a_rounds[r] for r in a_rounds if r in b_rounds and a_rounds[r] > 0]
        iv = stats.ratio_interval(ratios)
        state = RULE.judge(iv)
        counts[state] += 1
        wa, wb = (", ".join(won[d].get((target, load), ["-"])) for d in DRIVERS)
        print(f"| {target} | {load}% | {wa} | {wb} | {strategy} | {iv.text(3)} | {stats.STATE_WORDS[state]} |")
    # Per block: both drivers' studies ran side by side in it.
    cells = [(b, t, ld) for (t, ld), ws in sorted(won["hio-bench"].items()) for b in range(len(ws))]
    pair = {c: (won["hio-bench"][c[1:]][c[0]], won["fio"].get(c[1:], [None] * a.blocks)[c[0]]) for c in cells}
    same = sum(wa == wb for wa, wb in pair.values())
    disagree = [
        f"{t} at {ld}% (block {b + 1}): {pair[(b, t, ld)][0]} against {pair[(b, t, ld)][1]}"
        for b, t, ld in cells
        if "tie" not in pair[(b, t, ld)] and pair[(b, t, ld)][0] != pair[(b, t, ld)][1]
    ]
    print(
        f"\nWinners (paired): the same at {same} of {len(cells)} target-loads of the blocks; different winners "
        f"named at {len(disagree)}{': ' + '; '.join(disagree) if disagree else ''}."
    )
    differ = []
    for c in cells:
        (la, sa), (lb, sb) = led["hio-bench"][c], led["fio"][c]
        if la != lb:
            differ.append(
                f"{c[1]} at {c[2]}% (block {c[0] + 1}): {la} (fio had it at {sb[la]:.3f} of {lb}) against {lb} "
                f"(hio-bench had it at {sa[lb]:.3f} of {la})"
            )
    print(
        f"Best static strategy by median score: the same at {len(cells) - len(differ)} of {len(cells)}"
        f"{'; different at ' + '; '.join(differ) if differ else ''}."
    )
    print(
        f"IOPS, {RULE.words()}: {counts[stats.MET]} met, {counts[stats.NOT_MET]} NOT met, "
        f"{counts[stats.UNRESOLVED]} unresolved."
    )
    print(f"The studies: {out / 'hio-bench'}, {out / 'fio'}", file=sys.stderr)


if __name__ == "__main__":
    main()
