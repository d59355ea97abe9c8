"""Shared helpers of the bench scripts: run hio-bench or fio, read their JSON, summarise repeats."""
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def default_hio_bench():
    return str(ROOT / "build" / "hio-bench")


def default_file():
    """The default local-disk target: a file in the system temp directory."""
    return os.path.join(tempfile.gettempdir(), "hybridio-bench.dat")


def run_json(cmd):
    """Runs a command that prints fio-style JSON; returns jobs[0] or exits naming the failure."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}\nfailed ({p.returncode}): {p.stderr.strip()}")
    return json.loads(p.stdout)["jobs"][0]


def summary(job):
    """The figures the bench scripts compare, from one fio-layout job."""
    rd = job["read"]
    secs = job["job_runtime"] / 1e3
    ios = rd["total_ios"] + job["write"]["total_ios"]
    cpu_pct = job["usr_cpu"] + job["sys_cpu"]
    return {
        "iops": rd["iops"] + job["write"]["iops"],
        # lat_ns: submission to completion (fio's clat leaves out the submission).
        "lat_mean_us": rd["lat_ns"]["mean"] / 1e3,
        "lat_p99_us": rd["clat_ns"].get("percentile", {}).get("99.000000", 0) / 1e3,
        "cpu_pct": cpu_pct,
        "cpu_us_per_io": cpu_pct / 100 * secs * 1e6 / ios if ios else 0.0,
    }


def median_spread(values):
    """Median and spread (max-min as % of the median)."""
    m = statistics.median(values)
    return m, (100.0 * (max(values) - min(values)) / m if m else 0.0)
