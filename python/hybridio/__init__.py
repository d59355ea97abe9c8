# SPDX-License-Identifier: MIT
"""hybridio's study tools: run hio-bench beside a co-runner and report.

Its subpackages, each importing only those listed after it:
  cli        hio-study: the contention study, or `hio-study rocksdb`
  study      the contention study
  rocksdb    the RocksDB study
  handles    the handle experiments
  fio        fio with hybridio's fio engine
  adaptive   what the adaptive strategy logged
  report     figures and self-contained HTML pages
  common     what every study stands on
"""

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
