# SPDX-License-Identifier: MIT
"""How crashtest.py reads db_crashtest.py's and db_stress's output: kills,
reopens, verifications and failures; its arguments. (The crash test itself
runs in the test command's own step and in `make crashtest`.)"""

import subprocess
import sys

import pytest

import crashtest

ARGS = "ARGS --db=/x --max_key=1000 --column_families=2 --threads=8\n"


def test_a_blackbox_run_counts_kills_reopens_and_verified_keys():
    run = crashtest.Run("blackbox", "disk", "poll", seed=1)
    out = "Running db_stress with pid=1: ...\nKILLED 1\n\nRunning db_stress with pid=2: ...\nKILLED 2\n"
    log = ARGS + ARGS + "Crash-recovery verification passed :)\n" + ARGS + "Crash-recovery verification passed :)\n"
    crashtest.tally(run, out, log)
    assert (run.kills, run.reopens, run.verifications, run.verified_keys) == (2, 2, 2, 4000)
    assert run.failures == []


def test_a_whitebox_run_counts_rocksdbs_own_kills_and_reopens_within_a_run():
    run = crashtest.Run("whitebox", "pcie4", "adaptive", seed=1)
    out = (
        "check_mode=0, kill option=888887, exitcode=-15\n"
        "check_mode=0, kill option=88889, exitcode=0\n"
        "check_mode=1, kill option=None, exitcode=0\n"
    )
    log = ARGS + "2026/11/27-00:52:06  Reopening database for the 2th time\n" + "2026/11/27  Verification successful\n"
    crashtest.tally(run, out, log)
    assert (run.kills, run.reopens, run.verifications, run.verified_keys) == (1, 1, 1, 2000)


def test_a_failed_verification_is_a_failure():
    run = crashtest.Run("blackbox", "disk", "interrupt", seed=1)
    log = ARGS + "Crash-recovery verification failed :(\n" + "Verification failed: Value not found. Status is OK\n"
    crashtest.tally(run, "", log)
    assert len(run.failures) == 2 and run.verifications == 0


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--modes", "greybox"], "greybox"),
        (["--strategies", "spin"], "spin"),
        (["--targets", "nvme"], "nvme"),
        (["--duration", "5"], "5"),
        (["--duration", "30", "--interval", "40"], "40"),
    ],
)
def test_bad_arguments_are_named(args, named):
    p = subprocess.run([sys.executable, crashtest.__file__, *args], capture_output=True, text=True)
    assert p.returncode == 2
    assert named in p.stderr.splitlines()[-1], p.stderr
