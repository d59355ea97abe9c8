# SPDX-License-Identifier: MIT
"""Shared helpers of the bench scripts: run hio-bench or fio, summarise repeats (figures: hybridio.common.hiobench)."""

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
from hybridio.common.hiobench import parse_jobs  # noqa: E402


def default_hio_bench():
    return str(ROOT / "build" / "hio-bench")


def default_file():
    """The default local-disk target: a file in the system temp directory."""
    return os.path.join(tempfile.gettempdir(), "hybridio-bench.dat")


def run_jobs(cmd):
    """Runs a command that prints fio-style JSON; returns its jobs or exits naming the failure."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}\nfailed ({p.returncode}): {p.stderr.strip()}")
    try:
        return json.loads(p.stdout)["jobs"]
    except (ValueError, KeyError) as e:
        sys.exit(f"{' '.join(cmd)}\nprinted no fio-style JSON ({e})")


def run_json(cmd):
    """Runs a command that prints fio-style JSON; returns jobs[0] or exits naming the failure."""
    return run_jobs(cmd)[0]


def summary(job):
    """The figures the bench scripts compare, from one fio-layout job."""
    return parse_jobs([job])


def median_spread(values):
    """Median and spread (max-min as % of the median)."""
    m = statistics.median(values)
    return m, (100.0 * (max(values) - min(values)) / m if m else 0.0)
