# SPDX-License-Identifier: MIT
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def hio_sim():
    path = Path(os.environ.get("HIO_BUILD", ROOT / "build")) / "hio-sim"
    if not path.exists():
        pytest.fail(f"{path} does not exist: run `make build` first")
    return str(path)


@pytest.fixture
def sim(hio_sim):
    """Runs hio-sim with the given arguments; returns the CompletedProcess."""

    def _run(*args, timeout=300, **kw):
        return subprocess.run([hio_sim, *map(str, args)], capture_output=True, text=True, timeout=timeout, **kw)

    return _run
