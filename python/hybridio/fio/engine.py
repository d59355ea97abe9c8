# SPDX-License-Identifier: MIT
"""Running fio with hybridio's fio engine (plugins/fio) and reading fio's JSON.

The study's second driver (hio-study --driver fio): the same cells as
hio-bench's, as fio jobs whose ioengine is build/plugins/fio/libhybridio-fio.so.
An emu: target becomes a diskless job with hio_emu=PROFILE.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

from ..common import hiobench
from ..common.errors import UsageError

EMU_SIZE = "1g"  # hio-bench's capacity for an emu: target without --size


def default_engine():
    """$HIO_FIO_ENGINE; else the checkout's build (see hiobench.default_path)."""
    return os.environ.get("HIO_FIO_ENGINE") or str(hiobench.ROOT / "build" / "plugins" / "fio" / "libhybridio-fio.so")


def check(fio, engine):
    """UsageError naming what is missing and how to get it."""
    if not shutil.which(fio):
        raise UsageError(f"--driver fio: fio not found as {fio!r} (apt-get install fio, or pass --fio)")
    if not Path(engine).is_file():
        raise UsageError(
            f"--driver fio: the hybridio fio engine is not at {engine} (scripts/deps.sh test "
            f"fetches fio's source, then `make build` builds it; or pass --fio-engine)"
        )


def command(fio, engine, target, strategy, threads, iodepth, runtime, cpus, size=None):
    """The fio command line of one cell, the counterpart of hiobench.command."""
    cmd = [
        fio,
        "--name=study",
        f"--ioengine=external:{engine}",
        "--rw=randread",
        f"--bs={hiobench.BS}",
        f"--iodepth={iodepth}",
        f"--numjobs={threads}",
        f"--runtime={max(1, round(runtime * 1000))}ms",
        "--time_based",
        f"--hio_completion={strategy}",
        "--output-format=json",
    ]
    if target.startswith("emu:"):
        cmd += [f"--hio_emu={target.removeprefix('emu:')}", f"--size={size or EMU_SIZE}"]
    else:
        cmd += [f"--filename={target}", "--direct=1"]
        if size:
            cmd.append(f"--size={size}")
    if cpus:
        cmd.append(f"--cpus_allowed={cpus}")
    return cmd


def parse(text, target):
    """The figures of one fio JSON report, as hiobench.parse gives them."""
    jobs = json.loads(text)["jobs"]
    figures = hiobench.parse_jobs(jobs)
    figures["emulated"] = target.startswith("emu:")
    error = next((j["error"] for j in jobs if j["error"]), None)
    if error:
        figures["error"] = f"fio job error {error}"
    return figures


def refusal(stderr):
    """The engine's reason for refusing a target's wait mode, if that is why fio stopped."""
    for line in stderr.splitlines():
        head, _, why = line.partition("fio: hybridio: cannot open ")
        if not head and why:
            return why.partition(": ")[2] or why
    return None


def probe(fio, engine, target, strategy, size=None):
    """None if the engine can run the strategy on the target, else its reason."""
    cmd = command(fio, engine, target, strategy, 1, 1, 0.05, None, size)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 0:
        return None
    why = refusal(p.stderr)
    if why:
        return why
    raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
