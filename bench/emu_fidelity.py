#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How faithful is the emulated SSD? Latency at queue depth 1, IOPS at depth.

For each profile, measured with --completion=poll, 4 KiB random reads:
- QD1: mean latency against the profile's latency plus the software
  overhead, measured in the same run as the mean latency of an instant
  device (lat_us=0.1, no jitter, no IOPS limit).
- High QD: IOPS against the lower of the profile's ceiling and the CPU's
  limit, measured in the same run as the IOPS of a device with the
  profile's latency and no ceiling at the same depth (so that completions
  trickle in as they do from the profile); the table says which limit
  applies.
Medians of --repeats runs, alternating with the instant device.
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import default_hio_bench, median_spread, run_json, summary  # noqa: E402

PROFILES = {"pcie3": (15, 420e3), "pcie4": (8, 1.5e6), "optane": (10, 550e3), "nand": (80, 200e3)}
INSTANT = "emu:lat_us=0.1,jitter_us=0,iops=1000000000,channels=1"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hio-bench", default=default_hio_bench())
    ap.add_argument("--runtime", type=float, default=3.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--iodepth", type=int, default=128)
    ap.add_argument("--profiles", default=",".join(PROFILES))
    a = ap.parse_args()
    profiles = a.profiles.split(",")
    for p in profiles:
        if p not in PROFILES:
            ap.error(f"unknown profile {p!r} (profiles: {', '.join(PROFILES)})")

    def run(target, qd):
        return summary(
            run_json(
                [
                    a.hio_bench,
                    "--name=f",
                    f"--filename={target},size=1g",
                    "--rw=randread",
                    "--bs=4k",
                    f"--iodepth={qd}",
                    "--completion=poll",
                    f"--runtime={a.runtime:g}",
                    "--time_based",
                    "--output-format=json",
                ]
            )
        )

    print(
        "| profile | QD1 mean latency | expected (profile + overhead) | ratio | "
        f"QD{a.iodepth} IOPS | ceiling | CPU limit | ratio to the lower | limited by |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for p in profiles:
        lat_us, ceiling = PROFILES[p]
        lat, over, iops, cpu = [], [], [], []
        for _ in range(a.repeats):
            lat.append(run(f"emu:{p}", 1)["lat_mean_us"])
            over.append(run(INSTANT, 1)["lat_mean_us"])
            iops.append(run(f"emu:{p}", a.iodepth)["iops"])
            cpu.append(run(f"emu:lat_us={lat_us},iops=1000000000,channels=1", a.iodepth)["iops"])
        m_lat, s_lat = median_spread(lat)
        m_over = statistics.median(over)
        m_iops, s_iops = median_spread(iops)
        m_cpu = statistics.median(cpu)
        limit = min(ceiling, m_cpu)
        print(
            f"| {p} | {m_lat:.2f} µs (±{s_lat / 2:.1f}%) | {lat_us} + {m_over:.2f} = {lat_us + m_over:.2f} µs | "
            f"**{m_lat / (lat_us + m_over):.3f}** | {m_iops / 1e3:.0f}K (±{s_iops / 2:.1f}%) | "
            f"{ceiling / 1e3:.0f}K | "
            f"{m_cpu / 1e3:.0f}K | **{m_iops / limit:.3f}** | {'CPU' if m_cpu < ceiling else 'device ceiling'} |",
            flush=True,
        )
    print(f"\n{a.repeats} runs of {a.runtime:g} s per figure; ± is half the spread (max−min) over the median.")


if __name__ == "__main__":
    main()
