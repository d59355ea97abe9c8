#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Records the I/O traces that hio-sim replays (tools/hio-sim/traces): RocksDB's
db_bench mixgraph and readrandom, one client thread, on the RocksDB plugin
polling an emulated PCIe 4.0 SSD with the database in memory, each read's size
and the compute before it as the library's HIO_IO_TRACE writes them. The
busiest queue's first --reads reads after --skip are kept, gzip-compressed.

The database (fillrandom + compact, 1 KB values) is five times RocksDB's block
cache, the thesis's middle dataset:cache ratio.
"""

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from hybridio.rocksdb import dbbench  # noqa: E402

NUM = 600_000  # keys: about 400 MB on disk
CACHE = 80 << 20


def record(db_bench, plugin, db, workload, seconds, trace):
    cmd = dbbench.run_command(
        db_bench, db, workload, NUM, seconds, CACHE, seed=1, fs_uri="hybridio://?completion=poll&emulate=pcie4"
    )
    env = dict(os.environ, LD_PRELOAD=plugin, HIO_IO_TRACE=str(trace))
    quiet(cmd, env)


def quiet(cmd, env=None):
    """Runs cmd; its output is shown only if it fails."""
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")


def keep(trace, out, skip, reads):
    """The busiest queue's reads [skip, skip + reads) as len,gap_ns."""
    lines = trace.read_text().splitlines()[1:]
    busiest = Counter(line.split(",", 1)[0] for line in lines).most_common(1)[0][0]
    mine = [line.split(",", 1)[1] for line in lines if line.split(",", 1)[0] == busiest]
    if len(mine) < skip + reads:
        raise SystemExit(f"{trace}: {len(mine)} reads on the busiest queue, fewer than --skip + --reads")
    with gzip.open(out, "wt", compresslevel=9) as f:
        f.write("len,gap_ns\n")
        f.write("\n".join(mine[skip : skip + reads]) + "\n")
    return len(mine)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plugin", required=True, help="libhybridio-rocksdb.so")
    ap.add_argument("--db-bench", default="db_bench")
    ap.add_argument("--out", required=True, help="folder for mixgraph.csv.gz and readrandom.csv.gz")
    ap.add_argument("--reads", type=int, default=60_000, help="reads kept per trace (default: %(default)s)")
    ap.add_argument("--skip", type=int, default=20_000, help="reads left out at the start: the tables opening")
    ap.add_argument("--seconds", type=int, default=20, help="each workload's run (default: %(default)s)")
    a = ap.parse_args()
    dbbench.check(a.db_bench)
    if not Path(a.plugin).exists():
        raise SystemExit(f"{a.plugin} does not exist: make build")
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        db = Path(tmp) / "db"
        print(f"loading {NUM} keys into {db}", flush=True)
        quiet(dbbench.load_command(a.db_bench, db, NUM))
        for workload in ("mixgraph", "readrandom"):
            raw = Path(tmp) / f"{workload}.csv"
            record(a.db_bench, a.plugin, db, workload, a.seconds, raw)
            out = Path(a.out) / f"{workload}.csv.gz"
            n = keep(raw, out, a.skip, a.reads)
            print(f"{workload}: {n} reads on the busiest queue; kept {a.reads} in {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
