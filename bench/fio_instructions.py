#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""User-space instructions per I/O: fio's io_uring engine against the
hybridio engine on interrupts, counted by valgrind's callgrind.

Timing cannot separate the two engines' CPU per I/O on a disk that drifts
by 20% from one second to the next; an instruction count is nearly the same
from run to run (about 10 instructions per I/O apart here), whatever else
the machine does. Each engine runs the same job
twice, 4 KiB random reads at one queue depth on a file in /dev/shm
(buffered: every read completes inside its submission, so the engines'
own paths are what is counted), with two I/O sizes; the difference between
the two runs over the difference in I/Os is the cost per I/O, start-up and
exit cancelling. Kernel work is not counted (the system calls are the same
in both: one io_uring_enter to submit, one to wait).
"""

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

SIZES_MIB = (80, 400)
BS = 4096


def collected(fio, engine_args, path, io_size_mib, iodepth, cpu):
    """callgrind's instruction total for one fio run."""
    cmd = [
        "taskset",
        "-c",
        str(cpu),
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        fio,
        "--name=count",
        "--thread",
        f"--filename={path}",
        "--size=64M",
        f"--io_size={io_size_mib}M",
        "--rw=randread",
        f"--bs={BS}",
        f"--iodepth={iodepth}",
        "--norandommap",
        "--randrepeat=1",
        "--output-format=terse",
        *engine_args,
    ]
    out = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode != 0 or not m:
        sys.exit(f"fio_instructions: {' '.join(cmd)} failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    return int(m.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", required=True, help="build/plugins/fio/libhybridio-fio.so")
    ap.add_argument("--fio", default="fio")
    ap.add_argument("--iodepth", type=int, default=32)
    ap.add_argument("--file", default="/dev/shm/hio-fio-instructions", help="a 64 MiB file, made if missing")
    ap.add_argument("--cpu", type=int, default=1)
    a = ap.parse_args()
    for tool in ("valgrind", a.fio, "taskset"):
        if not shutil.which(tool):
            print(
                f"fio_instructions: '{tool}' is not installed (Debian: apt-get install valgrind fio)", file=sys.stderr
            )
            sys.exit(2)
    if not Path(a.engine).is_file():
        print(f"fio_instructions: no engine at '{a.engine}' (make build)", file=sys.stderr)
        sys.exit(2)
    if a.iodepth < 1:
        print(f"fio_instructions: --iodepth must be at least 1, got {a.iodepth}", file=sys.stderr)
        sys.exit(2)
    path = Path(a.file)
    if not path.exists() or path.stat().st_size < 64 << 20:
        with open(path, "wb") as f:
            f.write(b"\xa5" * (64 << 20))
    engines = {
        "io_uring": ["--ioengine=io_uring"],
        "hybridio interrupt": [f"--ioengine=external:{a.engine}", "--hio_completion=interrupt"],
    }
    ios = (SIZES_MIB[1] - SIZES_MIB[0]) * (1 << 20) // BS
    per_io = {}
    for name, args in engines.items():
        lo, hi = (collected(a.fio, args, path, s, a.iodepth, a.cpu) for s in SIZES_MIB)
        per_io[name] = (hi - lo) / ios
        print(f"{name}: {per_io[name]:,.0f} instructions per I/O ({lo:,} and {hi:,} in all)", flush=True)
    ours, theirs = per_io["hybridio interrupt"], per_io["io_uring"]
    print(
        f"QD{a.iodepth}: hybridio interrupt / io_uring = {ours / theirs:.3f} "
        f"({ours - theirs:+,.0f} instructions per I/O; a count: it moved by about 10 between runs here)"
    )


if __name__ == "__main__":
    main()
