# SPDX-License-Identifier: MIT
"""hio-study's bad input: one line naming the value, exit status 2, nothing run."""

import os
import subprocess
import sys

import pytest


def study(hio_bench, *args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "hybridio.study", "--hio-bench", hio_bench, "--handles", "0", "--bursty", "0", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--strategies", "interrupt,spin"], "'spin'"),
        (["--targets", "emu:pcie9"], "'emu:pcie9'"),
        (["--targets", "/no/such/dir/file"], "'/no/such/dir/file'"),
        (["--loads", "0,200"], "200"),
        (["--loads", "half"], "'half'"),
        (["--cores", "63"], "63"),
        (["--corunner", "gpu"], "'gpu'"),
        (["--timeline", "-1"], "-1"),
        (["--timeline", "half"], "'half'"),
        (["--out", "/proc/hio-study"], "/proc/hio-study"),
        (["--budget", "soon"], "'soon'"),
        (["--budget=-5m"], "'-5m'"),
        (["--budget", "100000m"], "'100000m'"),
    ],
)
def test_bad_input_exits_2_naming_it(hio_bench, args, needle):
    p = study(hio_bench, "--quick", *args)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip()
    assert line.startswith("hio-study: ") and "\n" not in line and needle in line, line


def test_missing_hio_bench(tmp_path):
    p = study(str(tmp_path / "hio-bench"), "--quick")
    assert p.returncode == 2 and "make build" in p.stderr


def test_missing_stress_ng(hio_bench, tmp_path):
    p = study(hio_bench, "--quick", "--out", str(tmp_path / "o"), env=dict(os.environ, PATH=str(tmp_path)))
    assert p.returncode == 2 and "stress-ng is missing" in p.stderr


def test_without_co_runner_loads_stress_ng_is_not_needed(hio_bench, tmp_path):
    p = study(
        hio_bench,
        "--targets",
        "emu:pcie4",
        "--strategies",
        "poll",
        "--loads",
        "0",
        "--threads",
        "1",
        "--repeats",
        "1",
        "--runtime",
        "1",
        "--out",
        str(tmp_path / "o"),
        env=dict(os.environ, PATH=str(tmp_path)),
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "o" / "summary.json").exists()
