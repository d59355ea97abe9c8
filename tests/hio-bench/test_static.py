# SPDX-License-Identifier: MIT
"""The static hio-bench (`make static`): no shared-library dependency, runs with an empty environment,
and reports as the dynamic one does."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--filename=emu:pcie4,size=16m", "--rw=randread", "--bs=4k", "--runtime=0.3", "--output-format=json"]


@pytest.fixture(scope="module")
def static_bench():
    build = Path(os.environ.get("HIO_BUILD_DIR", ROOT / "build"))
    subprocess.run(["cmake", "--build", str(build), "--target", "hio-bench-static"], check=True, capture_output=True)
    return build / "static" / "hio-bench"


def layout(x):
    """The keys of a JSON document, recursively; lists by their first element."""
    if isinstance(x, dict):
        return {k: layout(v) for k, v in x.items()}
    if isinstance(x, list):
        return [layout(x[0])] if x else []
    return type(x).__name__ if not isinstance(x, (int, float)) else "number"


def test_it_depends_on_no_shared_library(static_bench):
    assert "statically linked" in subprocess.run(["file", str(static_bench)], capture_output=True, text=True).stdout
    ldd = subprocess.run(["ldd", str(static_bench)], capture_output=True, text=True)
    assert "not a dynamic executable" in ldd.stdout + ldd.stderr


def test_it_runs_with_an_empty_environment_and_reports_as_the_dynamic_one(static_bench, hio_bench):
    got = subprocess.run([str(static_bench), *ARGS], capture_output=True, text=True, env={}, timeout=60)
    assert got.returncode == 0, got.stderr
    ref = subprocess.run([hio_bench, *ARGS], capture_output=True, text=True, timeout=60)
    assert ref.returncode == 0, ref.stderr
    a, b = json.loads(got.stdout), json.loads(ref.stdout)
    assert a["jobs"][0]["read"]["total_ios"] > 0
    assert layout(a) == layout(b)


def test_it_refuses_bad_input_as_the_dynamic_one_does(static_bench):
    p = subprocess.run(
        [str(static_bench), "--filename=emu:pcie4", "--bs=7"], capture_output=True, text=True, env={}, timeout=30
    )
    assert p.returncode == 2
    assert "bs" in p.stderr
