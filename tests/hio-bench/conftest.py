# SPDX-License-Identifier: MIT
import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest


@pytest.fixture
def run(hio_bench):
    """Runs hio-bench with the given arguments; returns the CompletedProcess."""

    def _run(*args, timeout=60, **kw):
        return subprocess.run([hio_bench, *map(str, args)], capture_output=True, text=True, timeout=timeout, **kw)

    return _run


@pytest.fixture
def run_json(run):
    def _run(*args, **kw):
        p = run(*args, "--output-format=json", **kw)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    return _run


@pytest.fixture
def disk_dir():
    """A directory on a disk file system (O_DIRECT works there)."""
    base = os.environ.get("HIO_TEST_DIR") or ("/var/tmp" if os.path.isdir("/var/tmp") else tempfile.gettempdir())
    with tempfile.TemporaryDirectory(dir=base, prefix="hio-cli-") as d:
        yield Path(d)
