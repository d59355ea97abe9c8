# SPDX-License-Identifier: MIT
"""The co-runner: stress-ng as the CPU-bound (or memory-bound) application
sharing the I/O's cores, with its throughput (bogo ops/s) as a result."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from .cores import expand_cpus
from .errors import UsageError
from .process import DutyCycle, die_with_parent, kill_group, signal_group

KINDS = ("cpu", "memory")


def check_installed():
    if not shutil.which("stress-ng"):
        raise UsageError("stress-ng is missing: install it with `apt-get install -y stress-ng`")


def parse_yaml_ops(text):
    """bogo-ops-per-second-real-time summed over the stressors of a stress-ng --yaml file."""
    rates = re.findall(r"bogo-ops-per-second-real-time:\s*([0-9.eE+-]+)", text)
    if not rates:
        raise ValueError("no bogo-ops-per-second-real-time in stress-ng's output")
    return sum(float(r) for r in rates)


class CoRunner:
    """stress-ng on `cpus` for `seconds`, at `load_pct` percent of each core.

    cpu: one --cpu worker per core, dialled with --cpu-load; int64 work, so
    that every bogo op costs the same (the default method cycles through
    methods whose ops differ 1.5x in cost), in 1 ms busy slices, so that the
    load is a steady share (by default stress-ng works in ~200 ms bursts, and
    a 1 s run counts its ops in steps of 64). memory: one
    --stream worker per core (memory-bandwidth bound, as SPEC's mcf is
    memory bound), dialled by stopping and continuing it (as cpulimit does).
    Use as a context manager: leaving the block kills whatever still runs.
    """

    def __init__(self, kind, load_pct, cpus, seconds):
        if kind not in KINDS:
            raise UsageError(f"unknown co-runner {kind!r} (co-runners: {', '.join(KINDS)})")
        self.kind, self.load, self.cpus, self.seconds = kind, load_pct, cpus, int(seconds)
        self.proc = None
        self._yaml = None
        self._duty = None

    def command(self, yaml_path):
        n = max(1, len(expand_cpus(self.cpus)))
        cmd = [
            "stress-ng",
            f"--timeout={self.seconds}s",
            "--metrics-brief",
            f"--yaml={yaml_path}",
            f"--taskset={self.cpus}",
        ]
        if self.kind == "cpu":
            cmd += [f"--cpu={n}", f"--cpu-load={self.load}", "--cpu-method=int64", "--cpu-load-slice=1"]
        else:
            cmd += [f"--stream={n}"]
        return cmd

    def __enter__(self):
        fd, self._yaml = tempfile.mkstemp(prefix="hio-corunner-", suffix=".yaml")
        os.close(fd)
        # Its own session: a terminal's Ctrl-C reaches the study, which kills
        # the whole group, and nothing of it outlives the study.
        try:
            self.proc = subprocess.Popen(
                self.command(self._yaml),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=die_with_parent,
            )
        except OSError:
            os.unlink(self._yaml)  # __exit__ does not run when __enter__ raises
            raise
        if self.kind == "memory" and self.load < 100:
            self._duty = DutyCycle.at_load(self.proc, self.load).start()
        return self

    def result(self):
        """Waits for the run to end; returns its bogo ops per second."""
        try:
            _, err = self.proc.communicate(timeout=self.seconds + 30)
        except subprocess.TimeoutExpired:
            self.kill()
            raise RuntimeError(f"stress-ng did not finish within {self.seconds + 30} s")
        if self._duty:
            self._duty.stop()
        if self.proc.returncode != 0:
            raise RuntimeError(f"stress-ng failed ({self.proc.returncode}): {err.decode(errors='replace').strip()}")
        with open(self._yaml) as f:
            return parse_yaml_ops(f.read())

    def finish(self):
        """Ends the run now, as its timeout would (stress-ng writes its
        report on SIGINT), and returns its bogo ops per second."""
        if self._duty:
            self._duty.stop()
        if self.proc.poll() is None:
            signal_group(self.proc, signal.SIGINT)
        return self.result()

    def cpu_by_pid(self):
        """{pid: CPU ns} of its live processes (its process group), from their
        schedstat: stress-ng's workers, killed, are never reaped by us, so
        their time never reaches our rusage."""
        out = {}
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                if os.getpgid(int(pid)) != self.proc.pid:
                    continue
                with open(f"/proc/{pid}/schedstat") as f:
                    out[int(pid)] = int(f.read().split()[0])
            except (OSError, ValueError):
                continue  # gone meanwhile
        return out

    def cpu_s(self):
        """CPU seconds its live processes have received so far."""
        return sum(self.cpu_by_pid().values()) / 1e9

    def kill(self):
        if self._duty:
            self._duty.stop()
        if self.proc:
            kill_group(self.proc)

    def __exit__(self, *exc):
        self.kill()
        if self._yaml and os.path.exists(self._yaml):
            os.unlink(self._yaml)
        return False


class CpuMeter:
    """Samples a co-runner's CPU time per process (CoRunner.cpu_by_pid) every
    `period` s in a thread of its own; rate() is in cores, CPU seconds per
    second, between the first and the last sample that found it. Summed over
    processes, the CPU is not monotonic: a worker that exits takes its time
    with it. So each process counts from its first sample, or from 0 if it
    started after the first one, to the last sample that saw it."""

    def __init__(self, co, period=0.1):
        self.co, self.period = co, period
        self.samples = []  # (time, {pid: ns})
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while True:
            t, cpu = time.monotonic(), self.co.cpu_by_pid()
            if cpu:
                self.samples.append((t, cpu))
            if self._stop.wait(self.period):
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        return False

    def _series(self):
        """{pid: [(time, ns), ...]}: each process from its first sample; one
        that started after the first sample from 0 at the sample before."""
        series, before = {}, None
        for t, cpu in self.samples:
            for pid, ns in cpu.items():
                if pid not in series:
                    series[pid] = [] if before is None else [(before, 0)]
                series[pid].append((t, ns))
            before = t
        return series

    def rate(self, window=None):
        """Cores used over `window` (start, end in time.monotonic()), by
        linear interpolation between samples; default: all of the samples."""
        if len(self.samples) < 2:
            return None
        t0, t1 = self.samples[0][0], self.samples[-1][0]
        if window:
            t0, t1 = max(t0, window[0]), min(t1, window[1])
        if t1 <= t0:
            return None
        used = sum(_at(s, t1) - _at(s, t0) for s in self._series().values())
        return used / 1e9 / (t1 - t0)


def _at(series, t):
    """A process's CPU ns at time t: held before its first and after its last sample."""
    if t <= series[0][0]:
        return series[0][1]
    for (ta, a), (tb, b) in zip(series, series[1:]):
        if t <= tb:
            return a + (b - a) * (t - ta) / (tb - ta)
    return series[-1][1]
