# SPDX-License-Identifier: MIT
"""Running RocksDB's db_bench and reading its output, for the RocksDB study:
the load, the measured runs, the parsing of ops/s and latency histograms,
the per-run reset of the database to its loaded state, and the optional
co-runner that is a second db_bench."""

import os
import re
import shutil
import subprocess
import time
from collections import deque
from pathlib import Path

from ..common.errors import UsageError
from ..common.process import DutyCycle, kill_group

KEY_SIZE = 16
VALUE_SIZE = 1000
# On-disk bytes per loaded key (--num) after fillrandom,compact with the sizes
# above and no compression: fillrandom draws keys with replacement, so
# 1 - 1/e = 63% of them are distinct, at ~1,035 bytes each in the SST files.
BYTES_PER_NUM = 654
LOAD_SEED = 1

# db_bench's mixgraph "prefix_dist" workload (Cao et al., FAST '20, the
# parameters of RocksDB's benchmark wiki): Get 83%, Put 14%, Seek 3%.
MIXGRAPH = [
    "--keyrange_dist_a=14.18",
    "--keyrange_dist_b=-2.917",
    "--keyrange_dist_c=0.0164",
    "--keyrange_dist_d=-0.08082",
    "--keyrange_num=30",
    "--value_k=0.2615",
    "--value_sigma=25.45",
    "--iter_k=2.517",
    "--iter_sigma=14.236",
    "--mix_get_ratio=0.83",
    "--mix_put_ratio=0.14",
    "--mix_seek_ratio=0.03",
]


def check(db_bench):
    if not shutil.which(db_bench):
        raise UsageError(
            f"db_bench not found ({db_bench!r}): install it with `apt-get install -y rocksdb-tools` "
            f"(or `scripts/deps.sh study`), or pass --db-bench"
        )


def sizes():
    return [f"--key_size={KEY_SIZE}", f"--value_size={VALUE_SIZE}", "--compression_type=none"]


def load_command(db_bench, db, num):
    """fillrandom, then one full compaction, so that every study starts from
    the same settled tree rather than from whatever L0 the load left."""
    return [db_bench, "--benchmarks=fillrandom,compact", f"--num={num}", *sizes(), f"--seed={LOAD_SEED}", f"--db={db}"]


def run_command(db_bench, db, workload, num, seconds, cache_bytes, seed, direct_reads=False, fs_uri=None, threads=1):
    """One measured run: `workload` is mixgraph or readrandom, on the existing
    DB, `threads` client threads, RocksDB's block cache at cache_bytes."""
    cmd = [db_bench, f"--benchmarks={workload}", "--use_existing_db=1", f"--db={db}", f"--num={num}", *sizes()]
    if workload == "mixgraph":
        cmd += MIXGRAPH
    cmd += [
        f"--threads={threads}",
        f"--duration={seconds}",
        "--histogram=1",
        "--statistics=0",
        f"--cache_size={cache_bytes}",
        f"--use_direct_reads={int(direct_reads)}",
        f"--seed={seed}",
    ]
    if fs_uri:
        cmd.append(f"--fs_uri={fs_uri}")
    return cmd


# --- parsing ---------------------------------------------------------------------------------------------------

_RESULT = re.compile(
    r"^(\w+)\s+:\s+([0-9.]+) micros/op\s+([0-9]+) ops/sec\s+([0-9.]+) seconds\s+([0-9]+) "
    r"operations;(.*)$",
    re.M,
)
_MIX = re.compile(r"Gets:(\d+) Puts:(\d+) Seek:(\d+)")
_HIST = re.compile(
    r"^Microseconds per (\w+):\n"
    r"Count: (\d+) Average: ([0-9.]+)\s+StdDev: ([0-9.]+)\n"
    r"Min: (\d+)\s+Median: ([0-9.]+)\s+Max: (\d+)\n"
    r"Percentiles: (.*)\n-+\n((?:[\[(].*\n?)*)",
    re.M,
)
_BUCKET = re.compile(r"^[\[(]\s*(\d+),\s*(\d+)\s*\]\s+(\d+)", re.M)  # the first bucket is "[ 0, 1 ]"


def parse(text, benchmark=None):
    """The figures of one db_bench run from its stdout: ops/s, micros/op (the
    mean latency of a single-threaded run), the operation mix (mixgraph),
    each histogram (--histogram=1) and the p99 over all operations. Raises
    ValueError when the result line is missing."""
    results = {m.group(1): m for m in _RESULT.finditer(text)}
    if not results:
        raise ValueError("no result line ('<benchmark> : ... micros/op ... ops/sec') in db_bench's output")
    m = results.get(benchmark) if benchmark else next(iter(results.values()))
    if m is None:
        raise ValueError(f"no {benchmark} result in db_bench's output")
    out = {
        "benchmark": m.group(1),
        "micros_per_op": float(m.group(2)),
        "ops_per_s": float(m.group(3)),
        "seconds": float(m.group(4)),
        "operations": int(m.group(5)),
        "mix": None,
        "histograms": {},
    }
    mix = _MIX.search(m.group(6))
    if mix:
        out["mix"] = dict(zip(("gets", "puts", "seeks"), map(int, mix.groups())))
    for h in _HIST.finditer(text):
        pct = dict(re.findall(r"P([0-9.]+): ([0-9.]+)", h.group(8)))
        out["histograms"][h.group(1)] = {
            "count": int(h.group(2)),
            "mean": float(h.group(3)),
            "min": int(h.group(5)),
            "max": int(h.group(7)),
            "p50": float(pct["50"]) if "50" in pct else None,
            "p99": float(pct["99"]) if "99" in pct else None,
            "buckets": [(int(a), int(b), int(c)) for a, b, c in _BUCKET.findall(h.group(9))],
        }
    out["p99_us"] = percentile(list(out["histograms"].values()), 99) if out["histograms"] else None
    return out


def percentile(histograms, p):
    """The p-th percentile of the histograms merged (RocksDB's
    HistogramStat::Percentile: linear within the bucket that holds it,
    clamped to the overall min and max)."""
    counts = {}
    for h in histograms:
        for lo, hi, n in h["buckets"]:
            counts[(lo, hi)] = counts.get((lo, hi), 0) + n
    total = sum(counts.values())
    if not total:
        return None
    lo_all, hi_all = min(h["min"] for h in histograms), max(h["max"] for h in histograms)
    threshold = total * p / 100
    cum = 0
    for (lo, hi), n in sorted(counts.items()):
        cum += n
        if cum >= threshold:
            r = lo + (hi - lo) * ((threshold - (cum - n)) / n if n else 0)
            return float(min(max(r, lo_all), hi_all))
    return float(hi_all)


def version(text):
    m = re.search(r"RocksDB:\s+version (\S+)", text)
    return m.group(1) if m else None


# --- running ---------------------------------------------------------------------------------------------------


def last_lines(text, n=8):
    """The last n lines of db_bench's stderr without its progress lines."""
    lines = [ln.strip() for ln in re.split(r"[\r\n]+", text) if ln.strip() and not ln.strip().startswith("...")]
    return lines[-n:]


def failure(cmd, code, stderr_text, what="db_bench"):
    tail = "\n  ".join(last_lines(stderr_text)) or "(nothing on stderr)"
    return RuntimeError(f"{what} failed (exit {code}): {' '.join(map(str, cmd))}\n  {tail}")


def run(cmd, out_path, err_path, timeout, tick=None):
    """Runs one db_bench (cmd) in its own session with stdout and stderr in
    files; calls tick() about every 0.2 s while it runs (the page-cache
    limit follows the process with it). The process is killed when this
    call leaves, however it leaves. A failure raises RuntimeError with the
    command and the last stderr lines; returns stdout's text."""
    with open(out_path, "w") as out, open(err_path, "w") as err:
        p = subprocess.Popen(cmd, stdout=out, stderr=err, start_new_session=True)
        try:
            deadline = time.monotonic() + timeout
            while p.poll() is None:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{' '.join(map(str, cmd))} did not finish within {timeout:g} s and was killed")
                if tick:
                    tick()
                time.sleep(0.2)
        finally:
            kill_group(p)
    if p.returncode != 0:
        raise failure(cmd, p.returncode, Path(err_path).read_text(errors="replace"))
    return Path(out_path).read_text(errors="replace")


def load(cmd, log_path, num, progress=None):
    """Runs the load (load_command), calling progress(done_keys) as db_bench
    reports them (num once fillrandom is done and the compaction starts);
    its output goes to log_path. Returns the RocksDB version it printed."""
    tail = deque(maxlen=64)
    found = None
    with open(log_path, "wb") as log:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            buf = b""
            while True:
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    break
                log.write(chunk)
                buf += chunk
                *parts, buf = re.split(rb"[\r\n]", buf)
                for part in parts:
                    line = part.decode(errors="replace")
                    tail.append(line)
                    found = found or version(line)
                    m = re.search(r"finished (\d+) ops", line)
                    if progress and (m or line.startswith("fillrandom ")):
                        progress(min(int(m.group(1)), num) if m else num)
            p.wait()
        finally:
            p.stdout.close()
            kill_group(p)
    if p.returncode != 0:
        raise failure(cmd, p.returncode, "\n".join(tail), "the load (db_bench)")
    return found


# --- the database between runs ---------------------------------------------------------------------------------


def filesystem_type(path):
    """The type of the file system that holds `path` (e.g. ext4, tmpfs), from /proc/self/mounts."""
    path = os.path.realpath(path)
    best, kind = "", None
    with open("/proc/self/mounts") as f:
        for line in f:
            _, mount, fstype, *_ = line.split()
            mount = mount.replace("\\040", " ")
            if (path == mount or path.startswith(mount.rstrip("/") + "/")) and len(mount) >= len(best):
                best, kind = mount, fstype
    return kind


def db_bytes(db):
    """Bytes of the DB's table files: the dataset."""
    return sum(f.stat().st_size for f in Path(db).glob("*.sst"))


def reset(loaded, work):
    """Makes `work` the loaded DB again: table files are hard links (RocksDB
    never changes a table file, it writes new ones and deletes old ones), the
    rest (MANIFEST, WAL, OPTIONS, CURRENT) is copied; so every run starts
    from the same tree in milliseconds and the loaded copy stays as it was."""
    work = Path(work)
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for f in Path(loaded).iterdir():
        if f.name == "LOCK" or f.name.startswith("LOG"):
            continue
        if f.suffix in (".sst", ".blob"):
            os.link(f, work / f.name)
        else:
            shutil.copy2(f, work / f.name)


def drop_cached(db):
    """Drops the DB files' pages from the page cache, so that every run starts
    cold, as a fresh process's block cache and the plugin's cache do, and a
    memory-limited run cannot read pages that another run (or the load)
    brought in and that its cgroup was never charged for."""
    for f in Path(db).iterdir():
        if f.is_file():
            fd = os.open(f, os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


class FillCoRunner:
    """The optional co-runner: a second db_bench doing fillrandom on a small DB
    of its own on `cpu` (the thesis used db_stress, which Debian does not
    package), held to `load_pct` of the core by stopping and continuing it
    every 10 ms, as cpulimit does. A context manager, like common.corunner.CoRunner:
    leaving the block kills it."""

    def __init__(self, db_bench, db, load_pct, cpu, seconds):
        self.cmd = [
            "taskset",
            "-c",
            str(cpu),
            db_bench,
            "--benchmarks=fillrandom",
            f"--db={db}",
            "--num=100000",
            f"--key_size={KEY_SIZE}",
            "--value_size=100",
            "--compression_type=none",
            "--disable_wal=1",
            "--threads=1",
            f"--duration={int(seconds)}",
            "--progress_reports=0",
        ]
        self.load = load_pct
        self.proc = None
        self._duty = None

    def __enter__(self):
        self.proc = subprocess.Popen(
            self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        if self.load < 100:
            self._duty = DutyCycle.at_load(self.proc, self.load).start()
        return self

    def __exit__(self, *exc):
        if self._duty:
            self._duty.stop()
        kill_group(self.proc)
        self.proc.stderr.close()
        return False
