# SPDX-License-Identifier: MIT
"""What the Python test folders share: the hio-bench they drive."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def hio_bench():
    """hio-bench as $HIO_BENCH names it, or this checkout's build; a test that needs it fails without it."""
    path = Path(os.environ.get("HIO_BENCH", ROOT / "build" / "hio-bench"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: run `make build` first")
    return str(path)
