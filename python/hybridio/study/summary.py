# SPDX-License-Identifier: MIT
"""From raw measurements to the summary table (summary.json, summary.csv)."""

import csv
import json

from ..common import stats

# Figures quoted with the 95% interval of their centre (hybridio.common.stats).
WITH_INTERVAL = ["iops", "lat_mean_us", "lat_p99_us", "cpu_us_per_io", "corunner_ops_per_s"]
COLUMNS = [
    "experiment",
    "target",
    "emulated",
    "strategy",
    "threads",
    "iodepth",
    "cores",
    "corunner_load_pct",
    "iops",
    "iops_solo",
    "lat_mean_us",
    "lat_p99_us",
    "cpu_us_per_io",
    "corunner_ops_per_s",
    "corunner_solo_ops_per_s",
    "repeats",
    "spread_pct",
] + [f"{f}_ci95_{end}" for f in WITH_INTERVAL for end in ("low", "high")]


def summarize(measurements, corunner_solo):
    """measurements: [{"cell": Cell, "io": parsed hio-bench figures, "corunner_ops_per_s": float|None}]
    corunner_solo: {load_pct: [ops/s, ...]} of the co-runner alone.
    Returns one row per cell (COLUMNS), medians over repeats with the 95%
    interval of each WITH_INTERVAL figure's centre; spread_pct is
    (max - min) / median of IOPS."""
    by_key = {}
    for m in measurements:
        by_key.setdefault(m["cell"].key, []).append(m)
    rows = []
    for runs in by_key.values():
        c = runs[0]["cell"]
        iops = [r["io"]["iops"] for r in runs]
        med = stats.median(iops)
        rows.append(
            {
                "experiment": c.experiment,
                "target": c.target,
                "emulated": runs[0]["io"]["emulated"],
                "strategy": c.strategy,
                "threads": c.threads,
                "iodepth": c.iodepth,
                "cores": c.cores,
                "corunner_load_pct": c.load_pct,
                "iops": med,
                "iops_solo": None,
                "lat_mean_us": stats.median(r["io"]["lat_mean_us"] for r in runs),
                "lat_p99_us": stats.median(r["io"]["lat_p99_us"] for r in runs),
                "cpu_us_per_io": stats.median(r["io"]["cpu_us_per_io"] for r in runs),
                "corunner_ops_per_s": stats.median(r["corunner_ops_per_s"] for r in runs),
                "corunner_solo_ops_per_s": stats.median(corunner_solo.get(c.load_pct, [])) if c.load_pct else None,
                "repeats": len(runs),
                "spread_pct": 100.0 * (max(iops) - min(iops)) / med if med else 0.0,
            }
        )
        for f in WITH_INTERVAL:
            values = [r["corunner_ops_per_s"] if f == "corunner_ops_per_s" else r["io"][f] for r in runs]
            iv = stats.figure_interval(values)
            rows[-1][f"{f}_ci95_low"] = iv.low if iv else None
            rows[-1][f"{f}_ci95_high"] = iv.high if iv else None
    # The I/O alone: the same cell at load 0.
    solo = {
        (r["experiment"], r["target"], r["strategy"], r["threads"], r["iodepth"], r["cores"]): r["iops"]
        for r in rows
        if r["corunner_load_pct"] == 0
    }
    for r in rows:
        r["iops_solo"] = solo.get((r["experiment"], r["target"], r["strategy"], r["threads"], r["iodepth"], r["cores"]))
    return rows


def write(rows, out):
    (out / "summary.json").write_text(json.dumps(rows, indent=1))
    with open(out / "summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: "" if r[k] is None else r[k] for k in COLUMNS})
