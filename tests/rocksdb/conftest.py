# SPDX-License-Identifier: MIT
"""Fixtures of the RocksDB plugin tests: the build's plugin library and tools,
and Debian's db_bench and ldb run on it."""

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def build_dir():
    d = Path(os.environ.get("HIO_BUILD", "build"))
    return d if d.is_absolute() else ROOT / d


@pytest.fixture(scope="session")
def plugin_lib():
    lib = build_dir() / "plugins" / "rocksdb" / "libhybridio-rocksdb.so"
    if not lib.exists():
        pytest.skip(f"{lib} does not exist: build with librocksdb-dev installed (HIO_BUILD names the build dir)")
    return lib


@pytest.fixture(scope="session")
def db_bench(plugin_lib):
    path = shutil.which("db_bench")
    if not path:
        pytest.skip("db_bench is not installed (apt-get install -y rocksdb-tools)")
    return path


@pytest.fixture(scope="session")
def ldb(db_bench):
    path = shutil.which("ldb")
    assert path, "ldb is not installed, though db_bench is (both are in rocksdb-tools)"
    return path


@pytest.fixture(scope="session")
def crash_tool(plugin_lib):
    path = plugin_lib.parent / "hio-rocksdb-crash"
    assert path.exists(), f"{path} does not exist, though the plugin does: rebuild"
    return path


@pytest.fixture(scope="session")
def disk_base():
    """A directory on a disk file system: direct=1 needs O_DIRECT, which tmpfs lacks."""
    base = os.environ.get("HIO_TEST_DIR") or ("/var/tmp" if os.path.isdir("/var/tmp") else tempfile.gettempdir())
    with tempfile.TemporaryDirectory(dir=base, prefix="hio-plugin-") as d:
        yield Path(d)


@pytest.fixture
def disk_dir(disk_base, request):
    d = Path(tempfile.mkdtemp(dir=disk_base, prefix=re.sub(r"\W", "_", request.node.name)[:40] + "-"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def run_tool(exe, plugin_lib, args, fs_uri, timeout, text=True):
    env = dict(os.environ)
    cmd = [exe, *map(str, args)]
    if fs_uri is not None:
        env["LD_PRELOAD"] = str(plugin_lib)
        cmd.insert(1, f"--fs_uri={fs_uri}")
    return subprocess.run(cmd, env=env, capture_output=True, text=text, timeout=timeout)


@pytest.fixture(scope="session")
def run_db_bench(db_bench, plugin_lib):
    """db_bench with the given arguments; through the plugin when fs_uri is given."""
    return lambda *args, fs_uri=None, timeout=60: run_tool(db_bench, plugin_lib, args, fs_uri, timeout)


@pytest.fixture(scope="session")
def run_ldb(ldb, plugin_lib):
    """ldb likewise; its output is bytes (keys and values may be binary)."""
    return lambda *args, fs_uri=None, timeout=60: run_tool(ldb, plugin_lib, args, fs_uri, timeout, text=False)
