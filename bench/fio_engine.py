#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fio's io_uring engine against the hybridio engine, inside one fio run.

4 KiB random reads, O_DIRECT, on one file, at each queue depth: four jobs a
round, one after another (stonewall), in an order shuffled per round:
io_uring, io_uring with iodepth_batch_complete_min=0 (fio's busy polling
of the completion ring), hybridio interrupt and hybridio poll. Ratios are
taken within a round and summarised by their geometric mean with its 95%
interval (hybridio.common.stats):
- hybridio interrupt / io_uring, in IOPS and in CPU per I/O;
- hybridio poll / the better of the two io_uring jobs of the round.
Each is a non-inferiority claim at the parity margin for rates (5%: less IOPS
or more CPU per I/O by at most that much). Prints a Markdown table
(docs/benchmarks.md) and writes the job file, fio's JSON and the claims
(with their kind and margin) beside it.
"""

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from hybridio.common import stats  # noqa: E402

CONFIGS = {
    "uring": ["ioengine=io_uring"],
    "uring-poll": ["ioengine=io_uring", "iodepth_batch_complete_min=0"],
    "hio-interrupt": ["ioengine=external:{engine}", "hio_completion=interrupt"],
    "hio-poll": ["ioengine=external:{engine}", "hio_completion=poll"],
}

# (claim, its rule, its ratio from one round's figures by config: (IOPS, CPU us per I/O))
CLAIMS = [
    (
        "hybridio interrupt / io_uring, IOPS",
        stats.non_inferior(stats.RATE_MARGIN),
        lambda f: f["hio-interrupt"][0] / f["uring"][0],
    ),
    (
        "hybridio interrupt / io_uring, CPU per I/O",
        stats.non_inferior(stats.RATE_MARGIN, lower_is_better=True),
        lambda f: f["hio-interrupt"][1] / f["uring"][1],
    ),
    (
        "hybridio poll / best io_uring, IOPS",
        stats.non_inferior(stats.RATE_MARGIN),
        lambda f: f["hio-poll"][0] / max(f["uring"][0], f["uring-poll"][0]),
    ),
]


def job_file(a, engine):
    rng = random.Random(a.seed)
    lines = [
        "[global]",
        f"filename={a.file}",
        f"size={a.size}",
        "rw=randread",
        "bs=4k",
        "direct=1",
        f"runtime={a.runtime:g}",
        "time_based",
        "ramp_time=0.5",
        "group_reporting=0",
    ]
    if a.cpus_allowed:
        lines.append(f"cpus_allowed={a.cpus_allowed}")
    for r in range(a.rounds):
        for qd in a.iodepths:
            order = list(CONFIGS)
            rng.shuffle(order)
            for c in order:
                lines += ["", f"[r{r}-qd{qd}-{c}]", "stonewall", f"iodepth={qd}"]
                lines += [x.format(engine=engine) for x in CONFIGS[c]]
    return "\n".join(lines) + "\n"


def figures(job):
    rd = job["read"]
    cpu_s = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    return rd["iops"], cpu_s * 1e6 / max(1, rd["total_ios"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=str(ROOT / "build/plugins/fio/libhybridio-fio.so"))
    ap.add_argument("--file", default=str(Path(tempfile.gettempdir()) / "hybridio-fio-engine.dat"))
    ap.add_argument("--size", default="1g")
    ap.add_argument("--runtime", type=float, default=2.0, help="seconds per job (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=5, help="(default: %(default)s)")
    ap.add_argument("--iodepths", default="1,32", help="(default: %(default)s)")
    ap.add_argument("--cpus_allowed", default="1", help="pin every job to these CPUs (default: %(default)s)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default="results/fio-engine.json", help="fio's JSON; the job file goes beside it")
    a = ap.parse_args()
    if a.rounds < 2 or a.runtime <= 0:
        ap.error(f"--rounds must be >= 2 and --runtime > 0 (got {a.rounds}, {a.runtime:g})")
    try:
        a.iodepths = [int(x) for x in a.iodepths.split(",")]
    except ValueError:
        ap.error(f"--iodepths: not a list of integers: {a.iodepths}")
    if not Path(a.engine).exists():
        sys.exit(f"fio_engine.py: {a.engine} is not built (scripts/fio-source.sh, then make build)")
    fio = shutil.which("fio")
    if not fio:
        sys.exit("fio_engine.py: fio is not installed (apt-get install -y fio)")
    jobs = job_file(a, a.engine)
    n = a.rounds * len(a.iodepths) * len(CONFIGS)
    print(f"{n} fio jobs of {a.runtime:g} s on {a.file}: about {n * (a.runtime + 0.8) / 60:.0f} min", file=sys.stderr)
    out_path = Path(a.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    job_path = out_path.with_suffix(".fio")
    job_path.write_text(jobs)
    p = subprocess.run([fio, "--output-format=json", str(job_path)], capture_output=True, text=True, errors="replace")
    if p.returncode != 0:
        sys.exit(f"fio failed ({p.returncode}):\n{p.stderr[-2000:]}")
    out = json.loads(p.stdout[p.stdout.index("{") :])
    out_path.write_text(json.dumps(out, indent=1))
    got = {}
    for job in out["jobs"]:
        r, qd, c = job["jobname"].split("-", 2)
        got[(int(r[1:]), int(qd[2:]), c)] = figures(job)
    print("| QD | claim | kind, margin | ratio [95% interval] | verdict |")
    print("|---:|---|---|---|---|")
    claims = []
    for qd in a.iodepths:
        rounds = [{c: got[(r, qd, c)] for c in CONFIGS} for r in range(a.rounds)]
        for text, rule, ratio in CLAIMS:
            c = stats.claim(f"qd{qd}-{text}", f"QD{qd}: {text}", [ratio(f) for f in rounds], rule)
            claims.append(c)
            print(f"| {qd} | {text} | {rule.words()} | {c['interval_text']} | {stats.STATE_WORDS[c['state']]} |")
        med = {c: statistics.median(f[c][0] for f in rounds) for c in CONFIGS}
        print("|  | median IOPS | " + ", ".join(f"{c} {v:,.0f}" for c, v in med.items()) + " | |")
    claims_path = out_path.with_suffix(".claims.json")
    claims_path.write_text(json.dumps(claims, indent=1))
    print(f"fio's job file: {job_path}, its JSON: {out_path}, the claims: {claims_path}", file=sys.stderr)


if __name__ == "__main__":
    main()
