# SPDX-License-Identifier: MIT
"""Running build/hio-bench and reading its fio-layout JSON."""

import json
import os
import shutil
import subprocess
from pathlib import Path

from .errors import UsageError

ROOT = Path(__file__).resolve().parents[3]  # the checkout, when the package runs from one
BS = "4k"  # the block size of the studies' random reads, whichever program runs them


def default_path():
    """$HIO_BENCH; else the checkout's build/hio-bench, when the package runs
    from a checkout that has built it; else hio-bench on the PATH (the
    hybridio-tools package, or cmake --install), found or not."""
    if os.environ.get("HIO_BENCH"):
        return os.environ["HIO_BENCH"]
    built = ROOT / "build" / "hio-bench"
    return str(built) if built.is_file() else (shutil.which("hio-bench") or "hio-bench")


def check(path):
    """path, a file or a bare name looked up on the PATH, runs; else UsageError saying where it looked."""
    if os.sep not in path:
        if shutil.which(path):
            return
        raise UsageError(
            f"{path} not found: not in $HIO_BENCH, not built in this checkout, not on the PATH "
            "(install the hybridio-tools package, or cmake --install a build, or pass --hio-bench PATH)"
        )
    if not Path(path).is_file():
        raise UsageError(f"hio-bench not found at {path} (run `make build`, or pass --hio-bench)")


def strategies(path):
    """The wait strategies this hio-bench has, from `hio-bench --list-strategies`."""
    out = subprocess.run([path, "--list-strategies"], capture_output=True, text=True, check=True).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def parse(text):
    """The figures of one hio-bench JSON report (see parse_jobs)."""
    return parse_jobs(json.loads(text)["jobs"])


def parse_jobs(jobs):
    """The figures of fio-layout jobs (hio-bench's or fio's), summed over the
    jobs (numjobs > 1); latency is submission to completion (lat_ns)."""
    iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in jobs)
    ios = sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in jobs)
    cpu_s = sum((j["usr_cpu"] + j["sys_cpu"]) / 100 * j["job_runtime"] / 1e3 for j in jobs)
    weights = [j["read"]["total_ios"] for j in jobs]
    total = sum(weights) or 1
    lat_mean = sum(j["read"]["lat_ns"]["mean"] * w for j, w in zip(jobs, weights)) / total / 1e3
    p99 = max(j["read"]["clat_ns"].get("percentile", {}).get("99.000000", 0) for j in jobs) / 1e3
    return {
        "iops": iops,
        "lat_mean_us": lat_mean,
        "lat_p99_us": p99,
        "cpu_pct": sum(j["usr_cpu"] + j["sys_cpu"] for j in jobs),
        "cpu_us_per_io": cpu_s * 1e6 / ios if ios else 0.0,
        "runtime_s": max(j["job_runtime"] for j in jobs) / 1e3,
        "emulated": bool(jobs[0].get("hybridio", {}).get("emulated")),
        "error": next((j.get("hybridio", {}).get("error_message", "error") for j in jobs if j["error"]), None),
    }


def run(cmd, timeout, started=None):
    """Runs hio-bench (cmd) in its own session and returns its stdout; it is
    killed when this call leaves, however it leaves. started(pid) is called
    once it runs. A failure raises RuntimeError with the command and stderr;
    a run past `timeout` seconds raises subprocess.TimeoutExpired."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    if started:
        started(p.pid)
    try:
        out, err = p.communicate(timeout=timeout)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {err.strip()}")
    return out


def probe(path, target, strategy, size=None):
    """None if hio-bench can run the strategy on the target, else its reason.
    The first probe of a missing file creates it."""
    cmd = command(path, target, strategy, 1, 1, 0.05, None, size)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 2:
        return p.stderr.strip().removeprefix("hio-bench: ")
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    return None


def command(path, target, strategy, threads, iodepth, runtime, cpus, size=None):
    cmd = [
        path,
        "--name=study",
        f"--filename={target}",
        "--rw=randread",
        f"--bs={BS}",
        f"--iodepth={iodepth}",
        f"--numjobs={threads}",
        f"--runtime={runtime:g}",
        "--time_based",
        f"--completion={strategy}",
        "--output-format=json",
    ]
    if not target.startswith("emu:"):
        cmd.append("--direct=1")
    if size:
        cmd.append(f"--size={size}")
    if cpus:
        cmd.append(f"--cpus_allowed={cpus}")
    return cmd
