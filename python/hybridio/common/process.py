# SPDX-License-Identifier: MIT
"""The processes the studies start: how long a run may take, signals to a
process group, and holding a group to a duty cycle by stopping and
continuing it."""

import ctypes
import os
import signal
import threading
import time

PR_SET_PDEATHSIG = 1
# Resolved here, in the parent: a preexec_fn runs in a child forked from a
# threaded process, where loading or looking up a symbol could wait forever
# on a lock another thread held at the fork.
_prctl = ctypes.CDLL(None, use_errno=True).prctl


def timeout_s(runtime, slack=60):
    """How long a run of `runtime` seconds may take before it is killed:
    start-up and a loaded machine stretch a run, a hung one must not stop
    the study."""
    return runtime * 5 + slack


def die_with_parent():
    """For a child's preexec_fn: the kernel kills it when the study that
    started it dies. A co-runner in a session of its own is out of reach of
    a kill of the study's group, and a killed study runs no cleanup: without
    this a busy loop outlives it and skews every later measurement."""
    if _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")


def signal_group(proc, sig):
    """Sends sig to the process group of proc (started with start_new_session); one already gone is left."""
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def kill_group(proc):
    """Kills the process group of proc, if it still runs, and reaps proc."""
    if proc.poll() is None:
        signal_group(proc, signal.SIGKILL)
        proc.wait()


class DutyCycle:
    """Holds a process group (started with start_new_session) running for
    on_s and stopped for off_s in turn, as cpulimit does (off_s 0: never
    stopped). start() begins running; stop() ends with the group running.
    transitions holds (unix ms, running) for the start and every change."""

    def __init__(self, proc, on_s, off_s):
        self.proc, self.on_s, self.off_s = proc, on_s, off_s
        self.transitions = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @classmethod
    def at_load(cls, proc, load_pct, period=0.01):
        """Running for load_pct of every period."""
        on = period * load_pct / 100
        return cls(proc, on, period - on)

    def start(self):
        self.transitions.append((time.time() * 1e3, True))
        self._thread.start()
        return self

    def _run(self):
        if not self.off_s:
            return
        running = True
        while not self._stop.wait(self.on_s if running else self.off_s) and self.proc.poll() is None:
            running = not running
            signal_group(self.proc, signal.SIGCONT if running else signal.SIGSTOP)
            self.transitions.append((time.time() * 1e3, running))

    def stop(self):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if self.proc.poll() is None:
            signal_group(self.proc, signal.SIGCONT)
