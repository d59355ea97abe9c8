# SPDX-License-Identifier: MIT
"""fio's own verify, on the hybridio engine, with the writer killed.

Per wait strategy, one file:
1. fio writes the whole file once through the engine with verify=crc32c
   (each 4 KiB carries a header with its offset and a checksum of its data);
2. N times, a random-write job with verify=crc32c, do_verify=1 and
   verify_backlog (fio reads back and checks what it wrote while writing),
   at a random depth and block size, is killed with SIGKILL at a random
   moment; a job that reports a verify error before its kill fails;
3. a read job with verify=crc32c checks every 4 KiB of the file against its
   own header and checksum, once through the engine and once through fio's
   psync engine, whose reads do not depend on ours.

A block that fio wrote, by any job, must verify: a kill may stop a write
before its block is written, never leave it torn or at another offset.
(fio's verify_only replays the writing job's offsets, which a killed
time-based random job cannot reproduce; the read job is fio's way to check
a file another job wrote.) Ends with `verify-kill: K kills, B bad blocks`.
Exit status: 0 when every block verified, 1 otherwise, 2 on bad arguments.

Usage: verify_kill.py [--kills N] [--size MiB] [--strategies ...] [--seed N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRATEGIES = ("interrupt", "poll", "adaptive")
# fio's words for a block that failed its check.
BAD = re.compile(r"verify: bad |bad magic header|crc32c: verify failed|bad header")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kills", type=int, default=51, help="kills in all, shared by the strategies (default 51)")
    p.add_argument("--size", type=int, default=64, help="MiB per file (default 64)")
    p.add_argument("--strategies", default=",".join(STRATEGIES), help="the engine's wait strategies (default all)")
    p.add_argument("--seed", type=int, default=1, help="seeds the depths, block sizes and kill moments")
    p.add_argument("--dir", type=Path, help="where the files go: a file system with O_DIRECT (default /var/tmp)")
    p.add_argument("--build", type=Path, default=ROOT / "build", help="the build directory (default build)")
    a = p.parse_args(argv)
    a.strategies = [s for s in a.strategies.split(",") if s]
    bad = [s for s in a.strategies if s not in STRATEGIES]
    if bad or not a.strategies:
        p.error(f"--strategies: {','.join(bad) or repr(a.strategies)} is not one of {', '.join(STRATEGIES)}")
    if a.kills < len(a.strategies):
        p.error(f"--kills: {a.kills} is fewer than one per strategy ({len(a.strategies)})")
    if not 4 <= a.size <= 65536:
        p.error(f"--size: {a.size} is not between 4 and 65536 MiB")
    return a


def fio(*args: str, cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """fio, run in cwd: it leaves its verify state files there."""
    return subprocess.run(["fio", *args], capture_output=True, text=True, errors="replace", timeout=timeout, cwd=cwd)


def common(path: Path, size: int) -> list[str]:
    return [f"--filename={path}", f"--size={size}m", "--direct=1", "--verify=crc32c", "--verify_interval=4k"]


def killed_writer(engine: list[str], path: Path, size: int, rng: random.Random) -> tuple[bool, str, str]:
    """Starts a verifying random writer, kills it at a random moment.
    Returns (killed while running, what it was, its error output)."""
    depth, bs = rng.choice([1, 4, 32]), rng.choice(["4k", "4k-64k"])
    delay = rng.uniform(0.3, 2.5)
    job = [
        "--name=w",
        *engine,
        *common(path, size),
        "--rw=randwrite",
        f"--bsrange={bs}" if "-" in bs else f"--bs={bs}",
        f"--iodepth={depth}",
        "--do_verify=1",
        "--verify_backlog=64",
        "--verify_fatal=1",
        "--time_based",
        "--runtime=60",
        "--norandommap",
        f"--randseed={rng.randrange(1 << 30)}",
    ]
    # --thread: fio runs the job as a thread of the process started here,
    # not in a process of its own session, which a kill of this one would
    # leave writing.
    proc = subprocess.Popen(
        ["fio", "--thread", *job],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        cwd=path.parent,
    )
    time.sleep(delay)
    running = proc.poll() is None
    if running:
        os.kill(proc.pid, signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    return running, f"depth {depth}, bs {bs}, killed after {delay:.2f} s", err


def bad_blocks(engine: list[str], path: Path, size: int) -> tuple[int, str]:
    """Reads the whole file back with fio's verify; (bad blocks, a sample)."""
    p = fio(
        "--name=check",
        *engine,
        *common(path, size),
        "--rw=read",
        "--bs=4k",
        "--iodepth=16",
        "--continue_on_error=verify",
        "--verify_fatal=0",
        cwd=path.parent,
    )
    lines = [line for line in (p.stdout + p.stderr).splitlines() if BAD.search(line)]
    if p.returncode != 0 and not lines:
        raise RuntimeError(f"the verifying read failed: {p.stderr.strip() or p.stdout[-400:]}")
    return len(lines), "\n".join(lines[:3])


def main(argv: list[str] | None = None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    plugin = a.build / "plugins/fio/libhybridio-fio.so"
    if not plugin.exists():
        print(f"verify-kill: {plugin} is not built (make build)", file=sys.stderr)
        return 2
    rng = random.Random(a.seed)
    workdir = Path(tempfile.mkdtemp(prefix="hio-verify-kill-", dir=a.dir or "/var/tmp"))
    kills = bad = 0
    failed = False
    share = [a.kills // len(a.strategies) + (i < a.kills % len(a.strategies)) for i in range(len(a.strategies))]
    for strategy, n in zip(a.strategies, share):
        engine = [f"--ioengine=external:{plugin}", f"--hio_completion={strategy}"]
        path = workdir / f"{strategy}.dat"
        p = fio(
            "--name=fill",
            *engine,
            *common(path, a.size),
            "--rw=write",
            "--bs=128k",
            "--iodepth=8",
            "--do_verify=0",
            cwd=workdir,
        )
        if p.returncode != 0:
            print(f"{strategy}: writing the file failed: {p.stderr.strip()}", file=sys.stderr)
            return 1
        for i in range(n):
            running, what, err = killed_writer(engine, path, a.size, rng)
            kills += running
            errors = [line for line in err.splitlines() if BAD.search(line) or "error" in line.lower()]
            print(
                f"{strategy} {i + 1}/{n}: {what}{'' if running else ': ended before its kill'}"
                + (f": {errors[0]}" if errors else ""),
                flush=True,
            )
            failed |= bool(errors) or not running
        for reader, eng in (("the engine", engine), ("psync", ["--ioengine=psync"])):
            n_bad, sample = bad_blocks(eng, path, a.size)
            bad += n_bad
            print(
                f"{strategy}: read back through {reader}: {n_bad} bad blocks of {a.size * 256}"
                + (f"\n{sample}" if sample else ""),
                flush=True,
            )
        path.unlink()
    shutil.rmtree(workdir)
    print(f"verify-kill: {kills} kills, {bad} bad blocks")
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
