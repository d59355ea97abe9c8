# SPDX-License-Identifier: MIT
"""Core sets: a CPU list's CPUs, and holding processes to a set (affinity
always; a cgroup v2 cpuset where the machine has one and lets us write it)."""

import os
from pathlib import Path

from .errors import UsageError

CGROUP_ROOT = Path("/sys/fs/cgroup")


def expand_cpus(spec):
    """'1', '0-1', '0,2' -> list of CPU numbers; raises UsageError naming a bad spec."""
    cpus = []
    try:
        for part in spec.split(","):
            a, _, b = part.partition("-")
            lo, hi = int(a), int(b or a)
            if lo < 0 or hi < lo:
                raise ValueError
            cpus.extend(range(lo, hi + 1))
    except ValueError:
        raise UsageError(f"invalid CPU list {spec!r} (expected e.g. 1, 0-1 or 0,2)") from None
    return cpus


def remove_group(group):
    """Removes a cgroup the study made; one still in use is left behind."""
    if group:
        try:
            os.rmdir(group)
        except OSError:
            pass


class CoreLimit:
    """Holds the I/O and the co-runner on `cpus`.

    Affinity (hio-bench --cpus_allowed, stress-ng --taskset) does the
    limiting; a cgroup v2 cpuset is added when possible so that threads the
    processes create later cannot leave the set. `how` says which applied.
    """

    def __init__(self, cpus, root=CGROUP_ROOT):
        self.cpus = cpus
        self.group = None
        self.how = f"CPU affinity ({cpus})"
        if not (root / "cgroup.controllers").exists():
            self.how += "; no cgroup v2 on this machine (cgroup v1 or none), so affinity only"
            return
        group = root / "hybridio-study"
        try:
            if "cpuset" not in (root / "cgroup.subtree_control").read_text().split():
                (root / "cgroup.subtree_control").write_text("+cpuset")
            group.mkdir(exist_ok=True)
            (group / "cpuset.cpus").write_text(cpus)
            self.group = group
            self.how += f" and cgroup v2 cpuset {group}"
        except OSError as e:
            self.how += f"; cgroup v2 cpuset not writable here ({e.strerror}), so affinity only"

    def add(self, pid):
        if self.group:
            try:
                (self.group / "cgroup.procs").write_text(str(pid))
            except OSError:
                pass  # the process already ended

    def close(self):
        remove_group(self.group)
