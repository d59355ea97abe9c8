#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The adaptive strategy against the static ones where no co-runner runs.

Alone: 4 KiB random reads at queue depth 1 on a free core, adaptive (under
each objective) against poll, in pairs run back to back (which goes first
alternates); the ratio of each pair's IOPS is kept.

Light demand: the same job capped at --rate_iops = 10% of what poll did
alone, adaptive (each objective), interrupt and hybrid each against poll in
pairs; the ratios of mean latency, of the CPU spent waiting per I/O (the
thread's CPU less its pacing sleeps) and of all its CPU per I/O are kept.

Medians and spreads are printed as Markdown tables (docs/benchmarks.md) and
written with the raw JSON. The study (make study) measures the strategies
beside a co-runner.
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
from benchlib import default_file, default_hio_bench, median_spread, run_json, summary  # noqa: E402

LIGHT_SHARE = 0.10


def job_cmd(a, target, mode, rate=0):
    """mode: a strategy, or adaptive-own (adaptive under the own objective)."""
    completion, _, objective = mode.partition("-")
    cmd = [
        a.hio_bench,
        "--name=j",
        f"--filename={target}",
        "--rw=randread",
        "--bs=4k",
        f"--runtime={a.runtime:g}",
        "--time_based",
        f"--cpus_allowed={a.cpus_allowed}",
        f"--completion={completion}",
        "--output-format=json",
    ]
    if objective:
        cmd.append(f"--adaptive_objective={objective}")
    if not target.startswith("emu:"):
        cmd += ["--direct=1", f"--size={a.size}"]
    if rate:
        cmd.append(f"--rate_iops={rate}")
    return cmd


def figures(job):
    s = summary(job)
    return {
        "iops": s["iops"],
        "lat_us": s["lat_mean_us"],
        "cpu_us": job["hybridio"]["cpu_us_per_io"],
        "wait_cpu_us": job["hybridio"]["waiting_cpu_us_per_io"],
        "mode_pct": job["hybridio"].get("adaptive", {}).get("mode_pct"),
    }


class Pairs:
    """Runs pairs (base, other) in alternating order; keeps every run."""

    def __init__(self, a, raw, total):
        self.a, self.raw, self.total, self.done, self.t0 = a, raw, total, 0, time.time()

    def run(self, target, base, other, pair, rate=0):
        order = [base, other] if pair % 2 == 0 else [other, base]
        got = {}
        for mode in order:
            job = run_json(job_cmd(self.a, target, mode, rate))
            got[mode] = figures(job)
            self.raw.append({"target": target, "mode": mode, "rate_iops": rate, "pair": pair, "job": job})
            self.done += 1
            left = (time.time() - self.t0) / self.done * (self.total - self.done)
            print(f"\r  {self.done}/{self.total} runs, about {left:.0f} s left ", end="", file=sys.stderr, flush=True)
        return got[base], got[other]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hio-bench", default=default_hio_bench())
    ap.add_argument(
        "--targets", default=f"{default_file()},emu:pcie3,emu:pcie4", help="comma-separated (default: %(default)s)"
    )
    ap.add_argument("--size", default="1g", help="size of a file target (default: %(default)s)")
    ap.add_argument("--runtime", type=float, default=2.0, help="seconds per run (default: %(default)s)")
    ap.add_argument("--pairs", type=int, default=5, help="pairs per cell (default: %(default)s)")
    ap.add_argument(
        "--cpus_allowed",
        default=str(os.cpu_count() - 1),
        help="the core the I/O thread runs on (default: the last, %(default)s)",
    )
    ap.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "hybridio-adaptive-bench"))
    a = ap.parse_args()
    if a.runtime <= 0 or a.pairs < 1:
        ap.error(f"--runtime must be > 0 and --pairs >= 1 (got {a.runtime}, {a.pairs})")
    if not shutil.which(a.hio_bench):
        sys.exit(f"adaptive: {a.hio_bench} not found (make build)")
    targets = [t for t in a.targets.split(",") if t]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for t in targets:
        if not t.startswith("emu:") and not os.path.exists(t):  # lay the file out once, with real data
            run_json(
                [
                    a.hio_bench,
                    "--name=layout",
                    f"--filename={t}",
                    f"--size={a.size}",
                    "--rw=read",
                    "--bs=1m",
                    "--output-format=json",
                ]
            )

    alone_modes = ["adaptive", "adaptive-own"]
    light_modes = ["adaptive", "adaptive-own", "interrupt", "hybrid"]
    total = len(targets) * a.pairs * 2 * (len(alone_modes) + len(light_modes))
    print(
        f"adaptive vs static on {', '.join(targets)}: {total} runs of {a.runtime:g} s "
        f"(about {total * (a.runtime + 0.2) / 60:.1f} min), pinned to CPU {a.cpus_allowed}"
    )
    raw = []
    runs = Pairs(a, raw, total)
    alone, light = {}, {}
    for t in targets:
        alone[t], poll_iops = {}, []
        for mode in alone_modes:
            ratios = []
            for pair in range(a.pairs):
                p, ad = runs.run(t, "poll", mode, pair)
                ratios.append(ad["iops"] / p["iops"])
                poll_iops.append(p["iops"])
            alone[t][mode] = ratios
        alone[t]["poll_iops"] = statistics.median(poll_iops)
        rate = max(1, int(LIGHT_SHARE * alone[t]["poll_iops"]))
        light[t] = {"rate_iops": rate}
        for mode in light_modes:
            lat, cpu, wait_cpu, modes = [], [], [], []
            for pair in range(a.pairs):
                p, o = runs.run(t, "poll", mode, pair, rate)
                lat.append(o["lat_us"] / p["lat_us"])
                cpu.append(o["cpu_us"] / p["cpu_us"])
                wait_cpu.append(o["wait_cpu_us"] / p["wait_cpu_us"])
                modes.append(o["mode_pct"])
            light[t][mode] = {
                "lat_ratio": lat,
                "cpu_ratio": cpu,
                "wait_cpu_ratio": wait_cpu,
                "mode_pct": modes[-1],
                "poll_wait_cpu_us": p["wait_cpu_us"],
                "poll_pacing_cpu_us": p["cpu_us"] - p["wait_cpu_us"],
            }
    print(file=sys.stderr)
    (out / "raw.json").write_text(json.dumps(raw, indent=1))

    lines = [
        f"Alone, 4 KiB random reads at QD1 on CPU {a.cpus_allowed}, {a.pairs} pairs of {a.runtime:g} s:",
        "",
        "| target | poll IOPS | adaptive / poll IOPS, median (range) | adaptive-own / poll IOPS |",
        "|---|---:|---|---|",
    ]
    for t in targets:
        cells = []
        for mode in alone_modes:
            r = alone[t][mode]
            m, _ = median_spread(r)
            cells.append(f"{m:.3f} ({min(r):.3f}–{max(r):.3f})")
        lines.append(f"| {t} | {alone[t]['poll_iops']:,.0f} | {' | '.join(cells)} |")
    lines += [
        "",
        f"Light demand: --rate_iops at {LIGHT_SHARE:.0%} of poll's IOPS alone; ratios to poll in the "
        "same pair, median (range):",
        "",
        "Waiting CPU is the thread's CPU per I/O less what it spent in the rate's pacing sleeps "
        "(waiting_cpu_us_per_io); poll's own figures, per I/O, are in the last column.",
        "",
        "| target | rate | mode | mean latency / poll's | waiting CPU per I/O / poll's "
        "| all CPU per I/O / poll's "
        "| adaptive's time per mode | poll: waiting, pacing µs |",
        "|---|---:|---|---|---|---|---|---|",
    ]

    def rng(xs):
        return f"{statistics.median(xs):.3f} ({min(xs):.3f}–{max(xs):.3f})"

    for t in targets:
        for mode in light_modes:
            d = light[t][mode]
            share = ", ".join(f"{k} {v:.0f}%" for k, v in (d["mode_pct"] or {}).items() if v >= 1)
            lines.append(
                f"| {t} | {light[t]['rate_iops']:,} | {mode} | {rng(d['lat_ratio'])} | "
                f"{rng(d['wait_cpu_ratio'])} | {rng(d['cpu_ratio'])} | {share} | "
                f"{d['poll_wait_cpu_us']:.1f}, {d['poll_pacing_cpu_us']:.1f} |"
            )
    table = "\n".join(lines)
    (out / "adaptive.md").write_text(table + "\n")
    print(table)
    print(f"\nRaw: {out / 'raw.json'}")


if __name__ == "__main__":
    main()
