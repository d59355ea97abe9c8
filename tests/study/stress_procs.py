# SPDX-License-Identifier: MIT
"""The stress-ng processes running now (a module of its own: test directories
each have a conftest.py, so `from conftest import` is ambiguous)."""

import subprocess


def stress_ng_pids():
    p = subprocess.run(["pgrep", "-x", "stress-ng"], capture_output=True, text=True)
    return [int(x) for x in p.stdout.split()]
