#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The main job (for now): hio-bench's wait strategies side by side.

4 KiB random reads at queue depth 1 on a file in the system temp directory
(created and written out if absent) and on the emulated PCIe 4.0 SSD, each
strategy repeated in alternating order; medians and spread are printed and
written, with every raw JSON, to the output folder.
"""

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import default_file, default_hio_bench, median_spread, run_json, summary  # noqa: E402

STRATEGIES = ["interrupt", "poll", "hybrid"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hio-bench", default=default_hio_bench())
    ap.add_argument("--file", default=default_file(), help="local-disk target (default: %(default)s)")
    ap.add_argument("--size", default="1g", help="size of the file target (default: %(default)s)")
    ap.add_argument("--emu", default="emu:pcie4", help="emulated target (default: %(default)s)")
    ap.add_argument("--runtime", type=float, default=4.0, help="seconds per run (default: %(default)s)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per cell (default: %(default)s)")
    ap.add_argument("--iodepth", type=int, default=1)
    ap.add_argument(
        "--out",
        default=os.path.join(tempfile.gettempdir(), "hybridio-strategies"),
        help="results folder (default: %(default)s)",
    )
    a = ap.parse_args()
    if a.runtime <= 0 or a.repeats < 1:
        ap.error(f"--runtime must be > 0 and --repeats >= 1 (got {a.runtime}, {a.repeats})")
    if not os.access(a.hio_bench, os.X_OK):
        sys.exit(f"{a.hio_bench} is missing: run `make build`")
    out = Path(a.out)
    try:
        (out / "raw").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        print(f"compare_strategies: cannot create --out={out}: {e.strerror}", file=sys.stderr)
        sys.exit(2)

    targets = [("file", [f"--filename={a.file}", f"--size={a.size}", "--direct=1"]), ("emu", [f"--filename={a.emu}"])]
    common = [
        "--rw=randread",
        "--bs=4k",
        f"--iodepth={a.iodepth}",
        f"--runtime={a.runtime}",
        "--time_based",
        "--output-format=json",
    ]
    total = len(targets) * len(STRATEGIES) * a.repeats
    print(
        f"Comparing {', '.join(STRATEGIES)} on {a.file} and {a.emu}: "
        f"{total} runs of {a.runtime:g} s (about {total * a.runtime / 60:.1f} min)"
    )
    cells = {}
    done = 0
    t0 = time.time()
    for tname, targs in targets:
        for rep in range(a.repeats):
            # Alternate the order so that drift does not favour one strategy.
            order = STRATEGIES if rep % 2 == 0 else list(reversed(STRATEGIES))
            for s in order:
                job = run_json([a.hio_bench, f"--name={tname}-{s}", *targs, *common, f"--completion={s}"])
                (out / "raw" / f"{tname}-{s}-{rep}.json").write_text(json.dumps(job, indent=1))
                cells.setdefault((tname, s), []).append((summary(job), job["hybridio"]["emulated"]))
                done += 1
                eta = (time.time() - t0) / done * (total - done)
                print(
                    f"  [{done}/{total}] {tname:4} {s:9} {summary(job)['iops'] / 1e3:7.1f}K IOPS   eta {eta:4.0f}s",
                    flush=True,
                )

    rows = []
    for (tname, s), runs in cells.items():
        row = {"target": tname, "emulated": runs[0][1], "strategy": s, "repeats": len(runs)}
        for k in ("iops", "lat_mean_us", "lat_p99_us", "cpu_pct", "cpu_us_per_io"):
            row[k], row[k + "_spread_pct"] = median_spread([r[k] for r, _ in runs])
        rows.append(row)
    (out / "summary.json").write_text(json.dumps(rows, indent=1))

    print(
        f"\n{'target':16} {'strategy':10} {'IOPS':>9} {'vs int.':>7} {'mean us':>8} {'p99 us':>8} "
        f"{'CPU %':>6} {'CPU us/IO':>9} {'spread':>7}"
    )
    for tname, _ in targets:
        base = next(r for r in rows if r["target"] == tname and r["strategy"] == "interrupt")
        for r in (r for r in rows if r["target"] == tname):
            label = tname + (" (emulated)" if r["emulated"] else "")
            print(
                f"{label:16} {r['strategy']:10} {r['iops']:9.0f} {r['iops'] / base['iops']:6.2f}x "
                f"{r['lat_mean_us']:8.1f} {r['lat_p99_us']:8.1f} {r['cpu_pct']:6.1f} {r['cpu_us_per_io']:9.2f} "
                f"{r['iops_spread_pct']:6.1f}%"
            )
    print(f"\nMedians of {a.repeats} runs; spread = (max-min)/median of IOPS. Raw JSON and summary.json in {out}")


if __name__ == "__main__":
    main()
