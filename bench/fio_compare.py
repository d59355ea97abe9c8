#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hio-bench against fio on the same file, in one run.

4 KiB random reads, O_DIRECT, on one file on the local disk, at each queue
depth: hio-bench --completion=interrupt against fio --ioengine=io_uring, and
hio-bench --completion=poll against fio --ioengine=io_uring
--iodepth_batch_complete_min=0 (fio's busy polling of the completion ring).
Each pair runs back to back, which one goes first alternates, and the ratio
of each pair is kept; the medians and the spread of the ratios are printed
as a Markdown table (docs/benchmarks.md) and written with the raw JSON.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import default_file, default_hio_bench, run_json, summary  # noqa: E402

MODES = {
    "interrupt": ([], ["--completion=interrupt"]),
    "poll": (["--iodepth_batch_complete_min=0"], ["--completion=poll"]),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hio-bench", default=default_hio_bench())
    ap.add_argument("--fio", default=shutil.which("fio") or "fio")
    ap.add_argument("--file", default=default_file(), help="target file (default: %(default)s)")
    ap.add_argument("--size", default="1g")
    ap.add_argument("--runtime", type=float, default=10.0, help="seconds per run (default: %(default)s)")
    ap.add_argument("--pairs", type=int, default=3, help="pairs per cell (default: %(default)s)")
    ap.add_argument("--iodepths", default="1,32", help="comma-separated (default: %(default)s)")
    ap.add_argument("--cpus_allowed", default="", help="pin both tools to these CPUs (default: unpinned)")
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "hybridio-fio-compare"))
    a = ap.parse_args()
    try:
        depths = [int(d) for d in a.iodepths.split(",")]
    except ValueError:
        ap.error(f"--iodepths={a.iodepths!r} is not a comma-separated list of integers")
    if a.runtime <= 0 or a.pairs < 1:
        ap.error(f"--runtime must be > 0 and --pairs >= 1 (got {a.runtime}, {a.pairs})")
    for tool in (a.hio_bench, a.fio):
        if not shutil.which(tool):
            sys.exit(f"fio_compare: {tool} not found (make build; apt-get install fio)")
    out = Path(a.out)
    (out / "raw").mkdir(parents=True, exist_ok=True)

    common = [
        f"--filename={a.file}",
        f"--size={a.size}",
        "--rw=randread",
        "--bs=4k",
        "--direct=1",
        f"--runtime={a.runtime:g}",
        "--time_based",
    ]
    if a.cpus_allowed:
        common.append(f"--cpus_allowed={a.cpus_allowed}")
    if not os.path.exists(a.file):  # lay the file out once, with real data
        run_json(
            [
                a.hio_bench,
                "--name=layout",
                f"--filename={a.file}",
                f"--size={a.size}",
                "--rw=read",
                "--bs=1m",
                "--runtime=1",
                "--output-format=json",
            ]
        )

    total = len(depths) * len(MODES) * a.pairs * 2
    print(f"fio vs hio-bench on {a.file}: {total} runs of {a.runtime:g} s (about {total * a.runtime / 60:.0f} min)")
    results = {}
    n = 0
    t0 = time.time()
    for qd in depths:
        for mode, (fio_extra, hio_extra) in MODES.items():
            for pair in range(a.pairs):
                cmds = {
                    "fio": [
                        a.fio,
                        "--name=fio",
                        "--ioengine=io_uring",
                        *common,
                        f"--iodepth={qd}",
                        *fio_extra,
                        "--output-format=json",
                    ],
                    "hio": [a.hio_bench, "--name=hio", *common, f"--iodepth={qd}", *hio_extra, "--output-format=json"],
                }
                order = ["fio", "hio"] if pair % 2 == 0 else ["hio", "fio"]
                got = {}
                for tool in order:
                    job = run_json(cmds[tool])
                    (out / "raw" / f"qd{qd}-{mode}-{pair}-{tool}.json").write_text(json.dumps(job, indent=1))
                    got[tool] = summary(job)
                    n += 1
                    eta = (time.time() - t0) / n * (total - n)
                    print(
                        f"  [{n}/{total}] QD{qd:<3} {mode:9} {tool}: {got[tool]['iops'] / 1e3:7.1f}K IOPS, "
                        f"{got[tool]['lat_mean_us']:6.1f} us mean   eta {eta:4.0f}s",
                        flush=True,
                    )
                results.setdefault((qd, mode), []).append(got)

    rows = []
    for (qd, mode), pairs in results.items():
        ratios = [p["hio"]["iops"] / p["fio"]["iops"] for p in pairs]
        rows.append(
            {
                "iodepth": qd,
                "mode": mode,
                "pairs": len(pairs),
                "fio_iops": statistics.median(p["fio"]["iops"] for p in pairs),
                "hio_iops": statistics.median(p["hio"]["iops"] for p in pairs),
                "ratio_median": statistics.median(ratios),
                "ratio_min": min(ratios),
                "ratio_max": max(ratios),
                "fio_lat_us": statistics.median(p["fio"]["lat_mean_us"] for p in pairs),
                "hio_lat_us": statistics.median(p["hio"]["lat_mean_us"] for p in pairs),
                "fio_cpu_us_per_io": statistics.median(p["fio"]["cpu_us_per_io"] for p in pairs),
                "hio_cpu_us_per_io": statistics.median(p["hio"]["cpu_us_per_io"] for p in pairs),
            }
        )
    (out / "summary.json").write_text(json.dumps(rows, indent=1))
    fio_name = {"interrupt": "io_uring", "poll": "io_uring, iodepth_batch_complete_min=0"}
    print(
        "\n| QD | hio-bench | fio | fio IOPS | hio-bench IOPS | ratio (median) | ratio range | "
        "mean lat fio / hio (us) | CPU us/IO fio / hio |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['iodepth']} | {r['mode']} | {fio_name[r['mode']]} | {r['fio_iops']:.0f} | {r['hio_iops']:.0f} | "
            f"**{r['ratio_median']:.3f}** | {r['ratio_min']:.3f}–{r['ratio_max']:.3f} | "
            f"{r['fio_lat_us']:.1f} / {r['hio_lat_us']:.1f} | "
            f"{r['fio_cpu_us_per_io']:.2f} / {r['hio_cpu_us_per_io']:.2f} |"
        )
    print(f"\n{a.pairs} alternating pairs per row, {a.runtime:g} s per run. Raw JSON in {out}/raw")


if __name__ == "__main__":
    main()
