# SPDX-License-Identifier: MIT
"""hybridio's study tools: run hio-bench beside a co-runner and report."""

from pathlib import Path


def _version():
    """hybridio's one version: the repository's VERSION file (CMake reads it
    too); installed away from the repository, the version pip recorded."""
    source = Path(__file__).resolve().parents[2] / "VERSION"
    if source.is_file():
        return source.read_text().strip()
    from importlib.metadata import version

    return version("hybridio")


__version__ = _version()
