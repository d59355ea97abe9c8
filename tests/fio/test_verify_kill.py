# SPDX-License-Identifier: MIT
"""fio's verify with the writer killed (verify_kill.py): its short form, and
that its check finds a damaged block."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import verify_kill

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("HIO_BUILD", ROOT / "build")).resolve()
ENGINE = [f"--ioengine=external:{BUILD / 'plugins/fio/libhybridio-fio.so'}", "--hio_completion=interrupt"]


def test_writers_killed_in_every_strategy_leave_every_block_verified(tmp_path, capsys):
    rc = verify_kill.main(["--kills", "6", "--size", "16", "--build", str(BUILD), "--dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.strip().splitlines()[-1] == "verify-kill: 6 kills, 0 bad blocks"
    for strategy in verify_kill.STRATEGIES:
        assert f"{strategy}: read back through psync: 0 bad blocks of 4096" in out


def test_a_damaged_block_is_found_by_both_readers(tmp_path):
    path = tmp_path / "f.dat"
    p = verify_kill.fio("--name=fill", *ENGINE, *verify_kill.common(path, 4), "--rw=write", "--bs=64k", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert verify_kill.bad_blocks(ENGINE, path, 4)[0] == 0
    with open(path, "r+b") as f:
        f.seek(3 * 4096 + 100)
        f.write(os.urandom(64))
    for reader in (ENGINE, ["--ioengine=psync"]):
        n, sample = verify_kill.bad_blocks(reader, path, 4)
        assert n == 1, sample
        assert "12288" in sample, sample


@pytest.mark.parametrize(
    ("args", "named"), [(["--strategies", "spin"], "spin"), (["--kills", "2"], "2"), (["--size", "1"], "1")]
)
def test_bad_arguments_are_named(args, named):
    p = subprocess.run([sys.executable, verify_kill.__file__, *args], capture_output=True, text=True)
    assert p.returncode == 2
    assert named in p.stderr.splitlines()[-1], p.stderr
