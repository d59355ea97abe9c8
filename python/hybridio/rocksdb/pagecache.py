# SPDX-License-Identifier: MIT
"""Holding a process's page cache to a budget with a memory cgroup.

The RocksDB study gives Posix's page cache the same budget as the hybridio
plugin's own cache. A memory cgroup limits page cache and anonymous memory
together, and db_bench's anonymous memory (RocksDB's block cache as it
fills, the memtable as it grows, index blocks, the heap) is not known in
advance; so the limit follows it: every 0.2 s it is set to the process's
anonymous and mapped memory plus the budget plus a slack, and the kernel
keeps the page cache within what is left. The group is a child of the
study's own (cgroup v1's memory controller, or cgroup v2 where it can be
delegated).
"""

import os
import time
from pathlib import Path

from ..common.cores import remove_group

MIB = 1 << 20
# When anonymous memory grows between two samples the kernel makes room by
# dropping page cache; this covers growth beyond what it can drop (a small
# budget) without an OOM kill, and the page cache may exceed the budget by as
# much.
SLACK = 16 * MIB
# The process's start (libraries, table readers, the first block-cache
# fills) runs under a fixed limit of the budget plus this, untracked.
START_SLACK = 128 * MIB
GRACE_S = 1.0


def _own_path(proc_cgroup, v1):
    for line in proc_cgroup.splitlines():
        _, controllers, path = line.split(":", 2)
        if (v1 and "memory" in controllers.split(",")) or (not v1 and controllers == ""):
            return path
    return None


def _counter(text, name):
    for line in text.splitlines():
        k, _, v = line.partition(" ")
        if k == name:
            return int(v)
    return 0


class PageCacheLimit:
    """`how` says what applies; `group` is None where no memory cgroup could be
    made (then runs are not limited and the report says so)."""

    def __init__(self, root=Path("/sys/fs/cgroup"), proc_cgroup=None):
        self.group, self.v1 = None, True
        proc_cgroup = proc_cgroup if proc_cgroup is not None else Path("/proc/self/cgroup").read_text()
        name = f"hybridio-rocksdb-{os.getpid()}"
        if (root / "memory" / "memory.limit_in_bytes").exists() and _own_path(proc_cgroup, True) is not None:
            parent = root / "memory" / _own_path(proc_cgroup, True).lstrip("/")
        elif (root / "cgroup.controllers").exists() and _own_path(proc_cgroup, False) is not None:
            self.v1 = False
            parent = root / _own_path(proc_cgroup, False).lstrip("/")
        else:
            self.how = "no memory cgroup controller on this machine, so Posix's page cache is not limited"
            return
        try:
            if not self.v1 and "memory" not in (parent / "cgroup.subtree_control").read_text().split():
                (parent / "cgroup.subtree_control").write_text("+memory")
            group = parent / name
            group.mkdir(exist_ok=True)
            self.group = group
            self.how = (
                f"a memory cgroup (v{1 if self.v1 else 2}) whose limit follows db_bench's anonymous memory "
                f"+ the budget + {SLACK // MIB} MiB"
            )
        except OSError as e:
            self.how = f"no writable memory cgroup here ({e.strerror}), so Posix's page cache is not limited"

    def wrap(self, cmd):
        """cmd, started inside the group (the shell puts itself there, then execs it)."""
        if not self.group:
            return cmd
        return ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.group / "cgroup.procs"), *map(str, cmd)]

    def usage(self):
        """(anonymous, mapped file, page cache) bytes charged to the group."""
        stat = (self.group / "memory.stat").read_text()
        if self.v1:
            return _counter(stat, "rss"), _counter(stat, "mapped_file"), _counter(stat, "cache")
        return _counter(stat, "anon"), _counter(stat, "file_mapped"), _counter(stat, "file")

    def oom_kills(self):
        return _counter((self.group / ("memory.oom_control" if self.v1 else "memory.events")).read_text(), "oom_kill")

    def set_limit(self, nbytes):
        try:
            (self.group / ("memory.limit_in_bytes" if self.v1 else "memory.max")).write_text(str(int(nbytes)))
        except OSError:
            pass  # the kernel could not reclaim down to it yet; the next sample tries again

    def start(self, budget_bytes):
        """Before a run: empties the group (what an earlier run left charged to
        it) and sets the starting limit. Returns the run's Tracker."""
        if self.group:
            if self.v1:
                try:
                    (self.group / "memory.force_empty").write_text("0")
                except OSError:
                    pass  # a process of an earlier run is still leaving; its pages go with it
            self.set_limit(budget_bytes + START_SLACK)
        return Tracker(self, budget_bytes)

    def close(self):
        remove_group(self.group)


class Tracker:
    """One run's limit: tick() follows the process; result() gives the peaks seen."""

    def __init__(self, limit, budget_bytes):
        self.limit, self.budget = limit, budget_bytes
        self.anon_peak = self.cache_peak = 0
        self.t0 = time.monotonic()
        self.kills = limit.oom_kills() if limit.group else 0

    def tick(self):
        if not self.limit.group:
            return
        try:
            anon, mapped, cache = self.limit.usage()
        except (OSError, ValueError):
            return
        self.anon_peak = max(self.anon_peak, anon)
        self.cache_peak = max(self.cache_peak, cache - mapped)
        if time.monotonic() - self.t0 >= GRACE_S:
            self.limit.set_limit(anon + mapped + self.budget + SLACK)

    def oom_killed(self):
        return bool(self.limit.group) and self.limit.oom_kills() > self.kills

    def result(self):
        """{"pagecache_peak_mib", "anon_peak_mib"}: None where nothing was limited."""
        if not self.limit.group:
            return {"pagecache_peak_mib": None, "anon_peak_mib": None}
        return {"pagecache_peak_mib": self.cache_peak / MIB, "anon_peak_mib": self.anon_peak / MIB}
