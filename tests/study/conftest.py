# SPDX-License-Identifier: MIT
import os
import shutil
from pathlib import Path

import pytest
from stress_procs import stress_ng_pids

ROOT = Path(__file__).resolve().parents[2]
HIO_BENCH = os.environ.get("HIO_BENCH", str(ROOT / "build" / "hio-bench"))


@pytest.fixture(scope="session")
def hio_bench():
    if not Path(HIO_BENCH).exists():
        pytest.fail(f"{HIO_BENCH} does not exist: run `make build` first")
    return HIO_BENCH


@pytest.fixture
def no_stray_stress_ng():
    """Fails the test if it leaves a stress-ng process behind."""
    assert shutil.which("stress-ng"), "stress-ng is not installed"
    before = set(stress_ng_pids())
    yield
    left = set(stress_ng_pids()) - before
    assert not left, f"stray stress-ng processes: {sorted(left)}"
