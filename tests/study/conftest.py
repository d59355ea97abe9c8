# SPDX-License-Identifier: MIT
import shutil

import pytest
from stress_procs import stress_ng_pids


@pytest.fixture
def no_stray_stress_ng():
    """Fails the test if it leaves a stress-ng process behind."""
    assert shutil.which("stress-ng"), "stress-ng is not installed"
    before = set(stress_ng_pids())
    yield
    left = set(stress_ng_pids()) - before
    assert not left, f"stray stress-ng processes: {sorted(left)}"
