#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What hybridio's layer costs per I/O, counted rather than timed.

Timing cannot settle "no worse than fio's io_uring" on a disk whose speed
drifts by 20% from one second to the next; a count per I/O can, since it
hardly moves with the machine. Three counts, each per I/O (per operation for
RocksDB):

- instructions in user space, by valgrind's callgrind (this machine's vCPUs
  have no performance counters for perf's instructions:u). Counted on a file
  in /dev/shm without O_DIRECT, where every read completes inside its
  submission, so that the engines' own paths are what is counted;
- system calls (perf's raw_syscalls:sys_enter tracepoint) and context
  switches (perf's software event), on a file on the disk with O_DIRECT,
  where the waiting happens.

Each is taken from two runs of the same job with different numbers of I/O:
the difference in the count over the difference in I/O, so that start-up
and exit cancel. Every pair is repeated (--repeats) and the ratio ours /
theirs is judged as a non-inferiority claim at the parity margin for counts
(3%: hybridio.common.stats.COUNT_MARGIN), less being better.

Subjects: fio's io_uring and psync engines (psync is synchronous: depth 1
only), fio with hybridio's engine on interrupts, and hio-bench on
interrupts, at each --iodepths; with --db-bench, db_bench's readrandom
through RocksDB's Posix file system with direct reads against the same
through hybridio's plugin on interrupts. Prints Markdown tables
(docs/benchmarks.md) and writes every count to --out.
"""

import argparse
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from hybridio.common import stats  # noqa: E402

BS = 4096
FILE_MIB = 256
SIZES_MIB = (32, 160)  # the two runs' I/O: 8,192 and 40,960 reads of 4 KiB
DB_READS = (2000, 10000)
DB_KEYS = 200_000  # about 200 MB of 1000-byte values: far beyond the 8 MiB block cache
COUNTS = ("instructions", "syscalls", "context_switches")
RULE = stats.non_inferior(stats.COUNT_MARGIN, lower_is_better=True)
THEIRS = ("fio io_uring", "fio psync")
OURS = ("fio + hybridio", "hio-bench")


def fail(msg, code=1):
    print(f"io_counts: {msg}", file=sys.stderr)
    sys.exit(code)


def run(cmd, env=None):
    """Runs cmd; its stderr (valgrind and perf write there)."""
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{p.stderr[-2000:]}")
    return p.stderr


def instructions(cmd, cpu, env=None):
    """callgrind's total of user-space instructions for one run of cmd."""
    err = run(["taskset", "-c", str(cpu), "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd], env)
    m = re.search(r"Collected : (\d+)", err)
    if not m:
        fail(f"no instruction total in callgrind's output for {' '.join(cmd)}:\n{err[-1000:]}")
    return int(m.group(1))


def kernel_counts(cmd, cpu, env=None):
    """(system calls, context switches) of one run of cmd, its threads included."""
    with tempfile.NamedTemporaryFile("r", suffix=".csv") as out:
        events = "raw_syscalls:sys_enter,context-switches"
        run(["taskset", "-c", str(cpu), "perf", "stat", "-x,", "-e", events, "-o", out.name, "--", *cmd], env)
        got = {}
        for line in out.read().splitlines():
            f = line.split(",")
            if len(f) > 2 and f[2] in ("raw_syscalls:sys_enter", "context-switches"):
                if not f[0].isdigit():
                    fail(f"perf could not count {f[2]} ({f[0]}): it needs root or kernel.perf_event_paranoid <= 1")
                got[f[2]] = int(f[0])
    return got["raw_syscalls:sys_enter"], got["context-switches"]


def fio_cmd(a, engine, path, direct, mib, qd):
    args = {
        "fio io_uring": ["--ioengine=io_uring"],
        "fio psync": ["--ioengine=psync"],
        "fio + hybridio": [f"--ioengine=external:{a.engine}", "--hio_completion=interrupt"],
    }[engine]
    return [
        a.fio,
        "--name=count",
        "--thread",
        f"--filename={path}",
        f"--size={FILE_MIB}M",
        f"--io_size={mib}M",
        "--rw=randread",
        f"--bs={BS}",
        f"--iodepth={qd}",
        f"--direct={int(direct)}",
        "--norandommap",
        "--randrepeat=1",
        "--output-format=terse",
        *args,
    ]


def subject_cmd(a, subject, path, direct, mib, qd):
    if subject == "hio-bench":
        # Without --time_based it reads each block of --size once.
        return [
            a.hio_bench,
            "--name=count",
            f"--filename={path}",
            f"--size={mib}m",
            "--rw=randread",
            f"--bs={BS}",
            f"--iodepth={qd}",
            f"--direct={int(direct)}",
            "--completion=interrupt",
            "--output-format=json",
        ]
    return fio_cmd(a, subject, path, direct, mib, qd)


def per_io(insn_cmd, kernel_cmd, sizes, ios, cpu, env=None):
    """{count: per I/O} from a run of each command at each of the two sizes:
    the difference in the count over the difference in I/O (ios)."""
    ins = [instructions(insn_cmd(s), cpu, env) for s in sizes]
    ker = [kernel_counts(kernel_cmd(s), cpu, env) for s in sizes]
    d = ios[1] - ios[0]
    return {
        "instructions": (ins[1] - ins[0]) / d,
        "syscalls": (ker[1][0] - ker[0][0]) / d,
        "context_switches": (ker[1][1] - ker[0][1]) / d,
    }


def add(rows, key, counts):
    row = rows.setdefault(key, {c: [] for c in COUNTS})
    for c in COUNTS:
        row[c].append(counts[c])


def measure_engines(a, shm_file, disk_file):
    """{(subject, qd): {count: [per-I/O value per repeat]}}."""
    ios = [s * (1 << 20) // BS for s in SIZES_MIB]
    got = {}
    for rep in range(a.repeats):
        for qd in a.iodepths:
            for subject in THEIRS + OURS:
                if subject == "fio psync" and qd > 1:
                    continue
                print(f"round {rep + 1} of {a.repeats}: {subject} at QD{qd}", file=sys.stderr, flush=True)
                counts = per_io(
                    lambda mib, subject=subject, qd=qd: subject_cmd(a, subject, shm_file, False, mib, qd),
                    lambda mib, subject=subject, qd=qd: subject_cmd(a, subject, disk_file, True, mib, qd),
                    SIZES_MIB,
                    ios,
                    a.cpu,
                )
                add(got, (subject, qd), counts)
    return got


def db_bench_cmd(a, db, reads, plugin):
    cmd = [
        a.db_bench,
        "--benchmarks=readrandom",
        "--use_existing_db=1",
        f"--db={db}",
        f"--num={DB_KEYS}",
        f"--reads={reads}",
        "--key_size=16",
        "--value_size=1000",
        "--compression_type=none",
        "--threads=1",
        "--cache_size=8388608",
        "--seed=7",
    ]
    return cmd + (["--fs_uri=hybridio://?completion=interrupt"] if plugin else ["--use_direct_reads=1"])


def measure_rocksdb(a, db):
    """{config: {count: [per-operation value per repeat]}} for readrandom."""
    if not (db / "CURRENT").exists():
        print(f"loading {DB_KEYS:,} keys into {db} (once)", file=sys.stderr, flush=True)
        db.mkdir(parents=True, exist_ok=True)
        run(
            [
                a.db_bench,
                "--benchmarks=fillrandom,compact",
                f"--num={DB_KEYS}",
                "--key_size=16",
                "--value_size=1000",
                "--compression_type=none",
                "--seed=1",
                f"--db={db}",
            ]
        )
    env = {**os.environ, "LD_PRELOAD": a.plugin}
    got = {}
    for rep in range(a.repeats):
        for config, plugin in (("RocksDB Posix, direct reads", False), ("hybridio plugin, interrupt", True)):
            print(f"round {rep + 1} of {a.repeats}: db_bench readrandom, {config}", file=sys.stderr, flush=True)
            cmd = functools.partial(db_bench_cmd, a, db, plugin=plugin)
            add(got, config, per_io(cmd, cmd, DB_READS, DB_READS, a.cpu, env if plugin else None))
    return got


def compare(ours, theirs, what):
    """A claim per count: ours / theirs per repeat, non-inferior at the count margin."""
    out = []
    for c in COUNTS:
        pairs = [(o, t) for o, t in zip(ours[c], theirs[c]) if t > 0 and o > 0]
        ratios = [o / t for o, t in pairs]
        out.append(stats.claim(f"{what}-{c}", f"{what}: {c.replace('_', ' ')} per I/O", ratios, RULE))
    return out


def cell(values):
    return f"{statistics.median(values):,.2f}" if values else "—"


def table(title, rows, ours, theirs, claims):
    print(f"\n{title}\n")
    print("| subject | " + " | ".join(c.replace("_", " ") + " per I/O" for c in COUNTS) + " |")
    print("|---|" + "---:|" * len(COUNTS))
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(cell(row[c]) for c in COUNTS) + " |")
    for (o, t), cs in zip([(o, t) for o in ours for t in theirs], claims):
        said = (f"{c['interval_text']} {stats.STATE_WORDS[c['state']]}" for c in cs)
        print(f"| {o} / {t} | " + " | ".join(said) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default=str(ROOT / "build/plugins/fio/libhybridio-fio.so"))
    ap.add_argument("--hio-bench", default=str(ROOT / "build/hio-bench"))
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--iodepths", default="1,32", help="(default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="pairs of runs per subject (default: %(default)s)")
    ap.add_argument("--cpu", type=int, default=1, help="every run is pinned to this CPU (default: %(default)s)")
    ap.add_argument(
        "--disk-dir", default="/var/tmp", help="a directory on the disk for its file (default: %(default)s)"
    )
    ap.add_argument("--db-bench", help="also count db_bench readrandom, Posix against the plugin (e.g. db_bench)")
    ap.add_argument("--plugin", default=str(ROOT / "build/plugins/rocksdb/libhybridio-rocksdb.so"))
    ap.add_argument("--out", default="results/io-counts.json")
    a = ap.parse_args()
    try:
        a.iodepths = [int(x) for x in a.iodepths.split(",")]
    except ValueError:
        ap.error(f"--iodepths: not a list of integers: {a.iodepths!r}")
    if a.repeats < 2 or min(a.iodepths) < 1:
        ap.error(f"--repeats must be at least 2 and every depth at least 1 (got {a.repeats}, {a.iodepths})")
    for tool, pkg in (("valgrind", "valgrind"), ("perf", "linux-perf"), (a.fio, "fio"), ("taskset", "util-linux")):
        if not shutil.which(tool):
            fail(f"'{tool}' is not installed (Debian: apt-get install -y {pkg})", 2)
    for path, what in ((a.engine, "the fio engine"), (a.hio_bench, "hio-bench")):
        if not Path(path).is_file():
            fail(f"{what} is not built at '{path}' (make build)", 2)
    if a.db_bench and not (shutil.which(a.db_bench) and Path(a.plugin).is_file()):
        fail(f"--db-bench: '{a.db_bench}' or the plugin '{a.plugin}' is missing (apt-get install -y rocksdb-tools)", 2)
    files = {}
    for where, folder in (("shm", "/dev/shm"), ("disk", a.disk_dir)):
        files[where] = Path(folder) / "hio-io-counts.dat"
        if not files[where].exists() or files[where].stat().st_size < FILE_MIB << 20:
            with open(files[where], "wb") as f:
                for _ in range(FILE_MIB):
                    f.write(os.urandom(1 << 20))
    engines = measure_engines(a, files["shm"], files["disk"])
    doc = {"rule": RULE.as_dict(), "engines": {f"{s} QD{q}": v for (s, q), v in engines.items()}, "claims": []}
    for qd in a.iodepths:
        rows = {s: engines[(s, qd)] for s in THEIRS + OURS if (s, qd) in engines}
        theirs = [t for t in THEIRS if t in rows]
        claims = [compare(rows[o], rows[t], f"QD{qd} {o} / {t}") for o in OURS for t in theirs]
        doc["claims"] += [c for cs in claims for c in cs]
        table(f"4 KiB random reads, QD{qd} (ratios: {RULE.words()})", rows, OURS, theirs, claims)
    if a.db_bench:
        db = Path(a.disk_dir) / "hio-io-counts-db"
        rocks = measure_rocksdb(a, db)
        posix, ours = "RocksDB Posix, direct reads", "hybridio plugin, interrupt"
        claims = [compare(rocks[ours], rocks[posix], f"readrandom {ours} / {posix}")]
        doc["rocksdb"] = rocks
        doc["claims"] += claims[0]
        table(f"db_bench readrandom, per operation (ratios: {RULE.words()})", rocks, [ours], [posix], claims)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    print(f"\nevery count: {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
