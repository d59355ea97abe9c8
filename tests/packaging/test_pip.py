# SPDX-License-Identifier: MIT
"""hio-study from pip: `pip install ./python` in a fresh virtual environment gives the command, which
finds hio-bench on the PATH (as the hybridio-tools package or cmake --install puts it) and says exactly
what is missing otherwise; `pip wheel` builds the wheel with its templates."""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TINY = ["--targets", "emu:pcie4", "--strategies", "poll", "--loads", "0", "--threads", "1", "--repeats", "1"]
TINY += ["--runtime", "1", "--handles", "0", "--bursty", "0", "--timeline", "0"]


def checkout_copy(into):
    """python/ and the VERSION beside it (the package's version), copied: an install from the checkout
    itself would write build/ and egg-info into it."""
    shutil.copy(ROOT / "VERSION", into / "VERSION")
    shutil.copytree(
        ROOT / "python", into / "python", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__", "build")
    )
    return into / "python"


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    v = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(v)], check=True)
    src = checkout_copy(tmp_path_factory.mktemp("src"))
    p = subprocess.run([str(v / "bin" / "pip"), "install", "-q", str(src)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return v


def hio_study(venv, *args, path):
    """The installed command, outside the checkout, with only `path` (and the venv) on the PATH."""
    env = dict(os.environ, PATH=f"{venv / 'bin'}:{path}")
    env.pop("HIO_BENCH", None)
    env.pop("PYTHONPATH", None)
    return subprocess.run(["hio-study", *args], capture_output=True, text=True, env=env, cwd="/", timeout=300)


def test_it_runs_against_the_hio_bench_on_the_path(venv, hio_bench, tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "hio-bench").symlink_to(Path(hio_bench).resolve())
    p = hio_study(venv, *TINY, "--out", str(tmp_path / "o"), path=f"{bindir}:/usr/bin:/bin")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "o" / "summary.json").exists()
    assert (tmp_path / "o" / "report.html").exists()


def test_without_hio_bench_it_says_where_it_looked(venv, tmp_path):
    p = hio_study(venv, *TINY, "--out", str(tmp_path / "o"), path="/usr/bin:/bin")
    assert p.returncode == 2
    assert "hio-bench not found: not in $HIO_BENCH, not built in this checkout, not on the PATH" in p.stderr
    assert "hybridio-tools" in p.stderr


def test_the_wheel_holds_the_subpackages_and_the_templates(tmp_path):
    src = checkout_copy(tmp_path)
    p = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(src)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    (wheel,) = (tmp_path / "dist").glob("hybridio-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for sub in ("common", "study", "report", "handles", "rocksdb", "fio", "adaptive"):
        assert f"hybridio/{sub}/__init__.py" in names
    assert any(n.startswith("hybridio/report/templates/") and n.endswith(".j2") for n in names)
    assert "hybridio/handles/jobs/priority.fio" in names  # the handle experiments' job files
    meta = next(n for n in names if n.endswith("METADATA"))
    requires = [
        line for line in zipfile.ZipFile(wheel).read(meta).decode().splitlines() if line.startswith("Requires-Dist")
    ]
    assert requires and all("<" in r and ">=" in r for r in requires), requires
