# SPDX-License-Identifier: MIT
"""The results folder each study command writes: --out, or a new dated
folder in the system temp directory, checked writable before anything runs."""

import datetime
import os
import tempfile
from pathlib import Path

from .errors import UsageError


def results_path(out, prefix):
    """out, else <temp>/<prefix>-<date-time>; nothing is made yet."""
    return Path(
        out or os.path.join(tempfile.gettempdir(), f"{prefix}-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}")
    )


def prepare(path, raw="raw"):
    """Makes the folder and its `raw` subfolder and checks it can be written:
    a UsageError naming --out if not. Returns path."""
    try:
        (path / raw).mkdir(parents=True, exist_ok=True)
        marker = path / ".writable"
        marker.write_text("")
        marker.unlink()
    except OSError as e:
        raise UsageError(f"cannot write to the output folder --out={path}: {e.strerror}") from None
    return path
