# SPDX-License-Identifier: MIT
"""hio-study rocksdb: RocksDB's mixgraph and readrandom on Posix and on
hybridio's RocksDB plugin, alone and beside a CPU-hungry neighbour on the
same core, on the disk and on emulated PCIe 3.0 and 4.0 SSDs.

The macro experiment of the thesis (Figures 12-17): db_bench's mixgraph
(prefix_dist: Get 83%, Put 14%, Seek 3%) and readrandom on the default
Posix file system (page cache held to the budget by a memory cgroup; and
with direct reads) and on the hybridio plugin under each wait strategy, one
core shared with stress-ng. On the emulated devices the DB is on tmpfs and
the plugin holds each read until the emulated SSD would have finished it
(emulate= in its URI); Posix cannot see that model, so there the plugin's
strategies are compared with each other. Experiments: the interference
degree swept at the middle dataset:cache ratio (Figure 16), both workloads;
the ratios alone and at 50% (Figure 17); alone against a full co-runner
(Figures 12-15); and 4 client threads on every core. The DB is loaded once
(fillrandom, then a compaction) and reused; every run starts from the loaded
tree with cold caches. Writes runs.csv, rocksdb.json (medians, claims, the
thesis's figures beside ours), plots and report.html.
"""

import contextlib
import csv
import datetime
import json
import os
import platform
import random
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ..common import command, corunner, outdir, rounds
from ..common.errors import UsageError
from ..common.hiobench import ROOT
from . import dbbench
from .experiments import (
    ADAPTIVE_OBJECTIVES,
    CONFIGS,
    DEVICES,
    EXPERIMENTS,
    FIGURES,
    FULL_DEGREE,
    RATIOS_DEGREE,
    THREADS,
    WORKLOADS,
    Cell,
    cells_for,
    compared,
    ratio_label,
)
from .findings import ADAPTIVE_RULE, findings, summarize
from .pagecache import MIB, PageCacheLimit

CORUNNERS = ("cpu", "dbbench")
DEFAULTS = {
    "dataset_gb": 1.0,
    "runtime": 5,
    "repeats": 5,
    "degrees": "0,5,10,20,50,100",
    "devices": ",".join(DEVICES),
    "budget": "0",
}
QUICK = {"dataset_gb": 0.2, "runtime": 3, "repeats": 1, "degrees": "0,50", "devices": "disk,pcie4", "budget": "0"}
# Where the emulated devices' DB copies live: the model is the device, the
# file system only holds the data.
MEMORY_DIR = "/dev/shm"
DEFAULT_RATIOS = "2,5,10"

# Seconds a run costs beyond its --runtime (reset, db_bench's start and DB
# open, the co-runner's start, db_bench's exit), for the estimate.
RUN_OVERHEAD_S = 1.0
# The load: db_bench's fillrandom speed here (it slows as the tree grows),
# then the compaction.
LOAD_KEYS_PER_S = 40_000
COMPACT_BYTES_PER_S = 100e6


@dataclass(frozen=True)
class RocksdbOptions:
    """The options the study reads once resolve has checked them: db_bench,
    seconds per run, runs per cell, the co-runner (CORUNNERS), and whether
    to load the DB again even where one of these parameters exists."""

    db_bench: str
    runtime: int
    repeats: int
    corunner: str
    reload: bool


# --- input -----------------------------------------------------------------------------------------------------


def parse_args(argv):
    ap = command.study_parser(
        "hio-study rocksdb",
        __doc__,
        f"a short study: a {QUICK['dataset_gb']:g} GB dataset, devices {QUICK['devices']}, degrees "
        f"{QUICK['degrees']}, {QUICK['runtime']} s runs, 1 repeat",
    )
    ap.add_argument(
        "--dir",
        default=os.path.join(tempfile.gettempdir(), "hybridio-rocksdb"),
        help="where the loaded DB is kept and reused (default: %(default)s)",
    )
    ap.add_argument(
        "--dataset-gb",
        help=f"size of the loaded DB in GB (default: {DEFAULTS['dataset_gb']:g}, --quick: {QUICK['dataset_gb']:g})",
    )
    ap.add_argument("--num", help="keys to load (and mixgraph's key range); overrides --dataset-gb")
    ap.add_argument("--reload", action="store_true", help="load the DB again even if one of these parameters exists")
    ap.add_argument(
        "--configs",
        default=",".join(CONFIGS),
        help="comma-separated; the emulated devices run the plugin's only (default: %(default)s)",
    )
    ap.add_argument(
        "--devices",
        help=f"comma-separated: disk (the DB under --dir), pcie3, pcie4 (the DB on tmpfs "
        f"under the plugin's emulated timing) (default: {DEFAULTS['devices']}, "
        f"--quick: {QUICK['devices']})",
    )
    ap.add_argument("--experiments", default=",".join(EXPERIMENTS), help="comma-separated (default: %(default)s)")
    ap.add_argument(
        "--ratios",
        default=DEFAULT_RATIOS,
        help="dataset:cache ratios, e.g. 2,5,10 or 2:1,5:1; the sweep and the full co-runner run at "
        "the middle one (default: %(default)s)",
    )
    ap.add_argument(
        "--degrees",
        help=f"interference degrees of the sweep, %% of the core (default: "
        f"{DEFAULTS['degrees']}, --quick: {QUICK['degrees']})",
    )
    ap.add_argument("--runtime", help=f"seconds per run (default: {DEFAULTS['runtime']}, --quick: {QUICK['runtime']})")
    ap.add_argument("--repeats", help=f"runs per cell, interleaved (default: {DEFAULTS['repeats']}, --quick: 1)")
    ap.add_argument(
        "--budget",
        help="time for more rounds of the cells where an adaptive claim is unresolved, those "
        "likeliest to resolve per second first, e.g. 30m or 90s (default: 0, none)",
    )
    ap.add_argument(
        "--workloads",
        default=",".join(WORKLOADS),
        help="the sweep's and the threads experiment's workloads (default: %(default)s)",
    )
    ap.add_argument("--core", help="the CPU that RocksDB and the co-runner share (default: the last CPU)")
    ap.add_argument(
        "--corunner",
        default="cpu",
        help="cpu: stress-ng --cpu at the degree; dbbench: a second db_bench doing fillrandom, stopped "
        "and continued to the degree (default: %(default)s)",
    )
    ap.add_argument(
        "--plugin",
        default=str(ROOT / "build" / "plugins" / "rocksdb" / "libhybridio-rocksdb.so"),
        help="hybridio's RocksDB plugin (default: %(default)s)",
    )
    ap.add_argument("--db-bench", default="db_bench", help="(default: %(default)s)")
    a = ap.parse_args(argv)
    return command.with_defaults(a, DEFAULTS, QUICK)


def _int(name, text, lo, hi, what):
    try:
        v = int(str(text))
        if not lo <= v <= hi:
            raise ValueError
    except ValueError:
        raise UsageError(f"--{name} {text!r}: expected {what}, a whole number from {lo} to {hi}") from None
    return v


def _names(name, text, known):
    names = [x.strip() for x in text.split(",") if x.strip()]
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise UsageError(
            f"--{name} {text!r}: unknown {name[:-1]} {bad[0] if bad else ''!r} (known: {', '.join(known)})"
        )
    return [k for k in known if k in names]


def parse_ratios(text):
    vals = []
    for part in text.split(","):
        p = part.strip().removesuffix(":1")
        try:
            v = float(p)
            if not 1 <= v <= 1000:
                raise ValueError
        except ValueError:
            raise UsageError(
                f"--ratios: {part.strip()!r} is not a dataset:cache ratio from 1 to 1000 (e.g. 5 or 5:1)"
            ) from None
        vals.append(v)
    return sorted(set(vals))


def parse_degrees(text):
    vals = []
    for part in text.split(","):
        try:
            v = int(part)
            if not 0 <= v <= 100:
                raise ValueError
        except ValueError:
            raise UsageError(f"--degrees: {part.strip()!r} is not an interference degree from 0 to 100 (%)") from None
        vals.append(v)
    return sorted(set(vals) | {0})  # alone is every cell's baseline


def keys_to_load(num, dataset_gb):
    """--num (num, None if not given), else the keys that make a DB of --dataset-gb."""
    if num is not None:
        return _int("num", num, 100, 10**10, "keys to load")
    try:
        gb = float(dataset_gb)
        if not 0.001 <= gb <= 10_000:
            raise ValueError
    except ValueError:
        raise UsageError(f"--dataset-gb {dataset_gb!r}: expected a size in GB from 0.001 to 10000") from None
    return max(100, round(gb * 1e9 / dbbench.BYTES_PER_NUM))


def memory_dir(cells):
    """Where the emulated devices' DB copies go (None without an emulated cell): MEMORY_DIR, in memory."""
    if not any(c.device != "disk" for c in cells):
        return None
    memory = Path(MEMORY_DIR)
    if dbbench.filesystem_type(memory) not in ("tmpfs", "ramfs"):
        raise UsageError(
            f"the emulated devices need {MEMORY_DIR} in memory (tmpfs) for their DB copies; run --devices disk alone"
        )
    return memory


def plugin_path(plugin, cells, out):
    """The plugin (None without a plugin cell): it must exist, and out must fit in its URI."""
    if not any(c.plugin for c in cells):
        return None
    plugin = Path(plugin)
    if not plugin.is_file():
        raise UsageError(
            f"the hybridio RocksDB plugin {plugin} does not exist: build it with `make build` "
            f"(or pass --plugin PATH), or run the Posix configurations alone "
            f"(--configs posix,posix-direct)"
        )
    if "&" in str(out):
        raise UsageError(
            f"--out {str(out)!r}: the plugin's statistics path goes into its URI, whose keys "
            f"'&' separates; choose a folder without '&'"
        )
    return plugin


def db_dir(text):
    """--dir, made if absent: on a disk, not in memory."""
    dbdir = Path(text)
    fs = dbbench.filesystem_type(dbdir)
    if fs in ("tmpfs", "ramfs"):
        raise UsageError(
            f"--dir {text!r} is in memory ({fs}): the DB must be on a disk (and O_DIRECT fails "
            f"there); pass --dir on one"
        )
    try:
        dbdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--dir {text!r}: cannot create it: {e.strerror}") from None
    return dbdir


def resolve(a):
    """The command's edge: checks every input before anything runs; returns
    (RocksdbOptions, the study's configuration)."""
    dbbench.check(a.db_bench)
    configs = _names("configs", a.configs, CONFIGS)
    experiments = _names("experiments", a.experiments, EXPERIMENTS)
    devices = _names("devices", a.devices, DEVICES)
    workloads = _names("workloads", a.workloads, WORKLOADS)
    ratios = parse_ratios(a.ratios)
    degrees = parse_degrees(a.degrees)
    runtime = _int("runtime", a.runtime, 1, 3600, "seconds per run")
    # A parity claim near 1.00 at this disk's noise (about 0.1 per round in its log) takes some 40 rounds.
    repeats = _int("repeats", a.repeats, 1, 100, "runs per cell")
    budget_s = rounds.parse_budget(a.budget)
    num = keys_to_load(a.num, a.dataset_gb)
    ncpu = os.cpu_count() or 1
    core = _int("core", a.core if a.core is not None else ncpu - 1, 0, ncpu - 1, "a CPU of this machine")
    if a.corunner not in CORUNNERS:
        raise UsageError(f"--corunner {a.corunner!r}: unknown co-runner (co-runners: {', '.join(CORUNNERS)})")
    cells, sweep = cells_for(experiments, configs, ratios, degrees, devices, workloads)
    if not cells:
        raise UsageError(
            f"--experiments {a.experiments!r} with --configs {a.configs!r} on --devices {a.devices!r}: "
            f"nothing to run (the emulated devices run the plugin's configurations only, the threads "
            f"experiment the disk)"
        )
    memory = memory_dir(cells)
    if any(c.degree for c in cells) and a.corunner == "cpu":
        corunner.check_installed()
    out = outdir.results_path(a.out, "hybridio-rocksdb").absolute()
    plugin = plugin_path(a.plugin, cells, out)
    dbdir = db_dir(a.dir)
    outdir.prepare(out)
    o = RocksdbOptions(a.db_bench, runtime, repeats, a.corunner, a.reload)
    return o, {
        "configs": configs,
        "experiments": experiments,
        "ratios": ratios,
        "degrees": degrees,
        "num": num,
        "core": core,
        "cells": cells,
        "sweep_ratio": sweep,
        "out": out,
        "plugin": plugin,
        "dir": dbdir,
        "devices": devices,
        "workloads": workloads,
        "memory": memory,
        "budget_s": budget_s,
    }


# --- the dataset -----------------------------------------------------------------------------------------------


def dataset_params(num):
    return {
        "benchmarks": "fillrandom,compact",
        "num": num,
        "key_size": dbbench.KEY_SIZE,
        "value_size": dbbench.VALUE_SIZE,
        "compression_type": "none",
        "seed": dbbench.LOAD_SEED,
    }


def ensure_loaded(cfg, db_bench, reload=False):
    """The loaded DB for cfg["num"] keys under --dir: reused when its
    params.json matches (and not reload, --reload), else loaded now through
    Posix with db_bench. Returns the params with the DB's size and how long
    loading took."""
    home = cfg["dir"] / f"mixgraph-n{cfg['num']}"
    loaded, meta = home / "loaded", home / "params.json"
    want = dataset_params(cfg["num"])
    if not reload and meta.is_file() and (loaded / "CURRENT").is_file():
        have = json.loads(meta.read_text())
        if {k: have.get(k) for k in want} == want:
            print(
                f"hio-study rocksdb: reusing the DB in {loaded} ({have['size_bytes'] / 1e9:.2f} GB, "
                f"{cfg['num']:,} keys loaded; loading took {have['load_seconds']:.0f} s)",
                flush=True,
            )
            return dict(have, reused=True, path=str(loaded))
    estimate = dbbench.BYTES_PER_NUM * cfg["num"]
    free = shutil.disk_usage(cfg["dir"]).free
    if free < 2.5 * estimate:
        raise UsageError(
            f"--dir {str(cfg['dir'])!r}: {free / 1e9:.1f} GB free, the load needs about "
            f"{2.5 * estimate / 1e9:.1f} GB (a {estimate / 1e9:.2f} GB DB and its compaction)"
        )
    if meta.exists():
        meta.unlink()  # a load that stops half way leaves no params.json, so it is never reused
    if loaded.exists():
        shutil.rmtree(loaded)
    home.mkdir(parents=True, exist_ok=True)
    seconds = cfg["num"] / LOAD_KEYS_PER_S + estimate / COMPACT_BYTES_PER_S
    print(
        f"hio-study rocksdb: loading {cfg['num']:,} keys (about {estimate / 1e9:.2f} GB) into {loaded}, "
        f"about {seconds / 60:.1f} min",
        flush=True,
    )
    bar = tqdm(total=cfg["num"], unit="key", unit_scale=True, dynamic_ncols=True, desc="fillrandom")
    done = [0]

    def progress(n):
        bar.update(n - done[0])
        done[0] = n
        if n >= cfg["num"]:
            bar.set_description("compacting")

    t0 = time.monotonic()
    try:
        version = dbbench.load(
            dbbench.load_command(db_bench, loaded, cfg["num"]), home / "load.log", cfg["num"], progress
        )
    finally:
        bar.close()
    took = time.monotonic() - t0
    have = dict(
        want,
        size_bytes=dbbench.db_bytes(loaded),
        load_seconds=took,
        rocksdb_version=version,
        loaded_at=datetime.datetime.now().isoformat(timespec="seconds"),
    )
    meta.write_text(json.dumps(have, indent=1))
    print(f"hio-study rocksdb: loaded {have['size_bytes'] / 1e9:.2f} GB in {took:.0f} s", flush=True)
    return dict(have, reused=False, path=str(loaded))


def budgets(size_bytes, ratios):
    """{ratio: MiB}: the cache budget of each ratio, dataset / ratio. Every
    configuration gets twice it in all (the thesis: 10 GB of block cache and
    10 GB of SPDK cache or page cache for a 50 GB DB): posix as block cache
    plus page cache, posix-direct and the plugin (which caches nothing of its
    own) as block cache alone."""
    return {r: max(1, round(size_bytes / r / MIB)) for r in ratios}


def block_cache_mib(config, budget_mib):
    return budget_mib if config == "posix" else 2 * budget_mib


# --- running ---------------------------------------------------------------------------------------------------

# A run's row in runs.csv: where it ran, the figures, then the counts behind them.
RUN_COLUMNS = [
    "round",
    "index",
    "device",
    "threads",
    "workload",
    "config",
    "ratio",
    "degree",
    "budget_mib",
    *FIGURES,
    "gets",
    "puts",
    "seeks",
    "plugin_reads",
    "wall_s",
    "raw",
]


def plugin_uri(config, device, stats):
    """The plugin's URI for a configuration (hybridio-STRATEGY[-own]): its
    defaults otherwise (direct table reads, Posix writes, no cache of its own)."""
    strategy = config.removeprefix("hybridio-")
    uri = "hybridio://?"
    if strategy.endswith("-own"):
        uri += f"completion={strategy.removesuffix('-own')}&adaptive_objective=own"
    else:
        uri += f"completion={strategy}"
    if device != "disk":
        uri += f"&emulate={device}"
    return f"{uri}&stats={stats}"


def read_stats(path):
    """The plugin's statistics JSON: hit ratio, wait shares, reads; None where absent."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    cache, share = doc.get("cache") or {}, doc.get("wait_share") or {}
    return {
        "cache_hit_ratio": cache.get("hit_ratio"),
        "wait_interrupt": share.get("interrupt"),
        "wait_poll": share.get("poll"),
        "wait_hybrid": share.get("hybrid"),
        "plugin_reads": doc.get("reads"),
    }


class Runner:
    """Runs cells: resets the DB and drops its cached pages, starts the
    co-runner on the core, runs db_bench pinned to it (in the memory cgroup
    for Posix, with the plugin preloaded for hybridio), reads what it wrote."""

    def __init__(self, o, cfg, dataset, limit):
        """o: the study's RocksdbOptions; cfg: its configuration (resolve)."""
        self.o, self.cfg, self.limit = o, cfg, limit
        self.loaded = Path(dataset["path"])
        self.disk_work = self.loaded.parent / "work"
        # The emulated devices' copy of the loaded DB, made once: each run's
        # reset links its tables, as on the disk.
        self.memory = cfg["memory"] / f"hybridio-rocksdb-{os.getpid()}" if cfg["memory"] else None
        if self.memory:
            print(f"hio-study rocksdb: copying the DB to {self.memory} for the emulated devices", flush=True)
            shutil.copytree(self.loaded, self.memory / "loaded")
        self.budget = budgets(dataset["size_bytes"], cfg["ratios"])
        self.missing_stats = False

    def work(self, cell):
        return self.disk_work if cell.device == "disk" else self.memory / "work"

    def reset(self, cell):
        dbbench.reset(self.loaded if cell.device == "disk" else self.memory / "loaded", self.work(cell))

    def close(self):
        shutil.rmtree(self.disk_work, ignore_errors=True)
        if self.memory:
            shutil.rmtree(self.memory, ignore_errors=True)

    def command(self, cell, seed, stats, seconds):
        budget = self.budget[cell.ratio]
        uri = plugin_uri(cell.config, cell.device, stats) if cell.plugin else None
        cmd = dbbench.run_command(
            self.o.db_bench,
            self.work(cell),
            cell.workload,
            self.cfg["num"],
            seconds,
            block_cache_mib(cell.config, budget) * MIB,
            seed,
            direct_reads=cell.config == "posix-direct",
            fs_uri=uri,
            threads=cell.threads,
        )
        if cell.plugin:
            cmd = ["env", f"LD_PRELOAD={self.cfg['plugin']}", *cmd]
        # One client thread shares its core with the co-runner; more spread over every core.
        cpus = str(self.cfg["core"]) if cell.threads == 1 else f"0-{(os.cpu_count() or 1) - 1}"
        cmd = ["taskset", "-c", cpus, *cmd]
        return self.limit.wrap(cmd) if cell.config == "posix" else cmd

    def corunner(self, degree):
        if not degree:
            return contextlib.nullcontext()
        seconds = self.o.runtime + 120  # outlives db_bench's open and run; killed when the run ends
        if self.o.corunner == "dbbench":
            return dbbench.FillCoRunner(
                self.o.db_bench, self.cfg["dir"] / "corunner-db", degree, self.cfg["core"], seconds
            )
        return corunner.CoRunner("cpu", degree, str(self.cfg["core"]), seconds)

    def probe(self, cell):
        """A few hundred mixgraph operations through the plugin before the
        study: a bad URI or a plugin that does not load fails here, not half an
        hour in. True if the plugin wrote its statistics file."""
        stats = self.cfg["out"] / "raw" / f"probe-{cell.device}-{cell.config}.stats.json"
        cmd = self.command(cell, 1, stats, 0) + ["--reads=200"]  # no --duration: 200 operations
        self.reset(cell)
        dbbench.run(
            cmd,
            self.cfg["out"] / "raw" / f"probe-{cell.device}-{cell.config}.out",
            self.cfg["out"] / "raw" / f"probe-{cell.device}-{cell.config}.err",
            300,
        )
        return stats.is_file()

    def warm_up(self, cell):
        """One unrecorded run of cell, alone, before a device's first measured
        one: the first run on a device ran 10-25% slower than the same
        configuration later in the study (a fresh copy of the DB, cold code
        and page tables), and the fixed order put it on one configuration."""
        raw = self.cfg["out"] / "raw"
        cmd = self.command(cell, 999, raw / f"warmup-{cell.device}.stats.json", self.o.runtime)
        self.reset(cell)
        dbbench.drop_cached(self.work(cell))
        dbbench.run(cmd, raw / f"warmup-{cell.device}.out", raw / f"warmup-{cell.device}.err", self.o.runtime + 90)

    def run(self, cell, rep, index):
        """One measured run of cell in round rep: its row (record)."""
        raw = self.cfg["out"] / "raw"
        name = (
            f"{index:04d}-{cell.device}-{cell.workload}-t{cell.threads}-{cell.config}-"
            f"{ratio_label(cell.ratio).replace(':', 'to')}-{cell.degree}pct-r{rep + 1}"
        )
        stats = raw / f"{name}.stats.json"
        cmd = self.command(cell, 1000 + rep, stats, self.o.runtime)
        self.reset(cell)
        dbbench.drop_cached(self.work(cell))
        tracker = self.limit.start(self.budget[cell.ratio] * MIB) if cell.config == "posix" else None
        out, err = raw / f"{name}.out", raw / f"{name}.err"
        t0 = time.monotonic()
        text, cpu, progress = self.measure(cell, cmd, out, err, tracker)
        wall = time.monotonic() - t0
        try:
            parsed = dbbench.parse(text, cell.workload)
        except ValueError as e:
            raise RuntimeError(f"{' '.join(map(str, cmd))}: {e} (its output: {raw / name}.out)") from None
        rec = record(cell, rep, index, self.budget[cell.ratio], parsed, cpu, progress, wall)
        rec.update(raw=str(out.relative_to(self.cfg["out"])), command=cmd)
        rec.update(tracker.result() if tracker else {"pagecache_peak_mib": None, "anon_peak_mib": None})
        st = read_stats(stats) if cell.plugin else None
        if cell.plugin and st is None:
            self.missing_stats = True
        rec.update(
            st or {k: None for k in ("cache_hit_ratio", "wait_interrupt", "wait_poll", "wait_hybrid", "plugin_reads")}
        )
        return rec

    def measure(self, cell, cmd, out, err, tracker):
        """Runs db_bench (cmd; its stdout and stderr to the files out and err)
        beside the cell's co-runner: its stdout's text, its own CPU seconds,
        and the co-runner's progress (None without a stress-ng one)."""
        with self.corunner(cell.degree) as co:
            try:
                measured = isinstance(co, corunner.CoRunner)
                cpu0, co0, w0 = children_cpu_s(), co.cpu_s() if measured else 0, time.monotonic()
                text = dbbench.run(
                    cmd,
                    out,
                    err,
                    self.o.runtime + 90,
                    tick=tracker.tick if tracker else None,
                )
                cpu = children_cpu_s() - cpu0  # db_bench's own
                # The co-runner's progress: the CPU it got beside db_bench over what it asked for.
                progress = (co.cpu_s() - co0) / ((time.monotonic() - w0) * cell.degree / 100) if measured else None
            except RuntimeError as e:
                if tracker and tracker.oom_killed():
                    raise RuntimeError(
                        f"{e}\n  the memory cgroup that holds Posix's page cache to the budget "
                        f"killed it: its anonymous memory outgrew the limit"
                    ) from None
                raise
            corunner_check(co)
        return text, cpu, progress


def record(cell, rep, index, budget_mib, parsed, cpu, progress, wall):
    """A measured run's figures in runs.csv's order: where it ran, db_bench's
    figures (parsed by dbbench.parse; cpu: its own CPU seconds) and the
    counts behind them."""
    h = parsed["histograms"]
    return {
        "round": rep + 1,
        "index": index,
        "device": cell.device,
        "threads": cell.threads,
        "workload": cell.workload,
        "config": cell.config,
        "ratio": cell.ratio,
        "degree": cell.degree,
        "budget_mib": budget_mib,
        "ops_per_s": parsed["ops_per_s"],
        "cpu_us_per_op": cpu * 1e6 / parsed["operations"] if parsed["operations"] else None,
        "micros_per_op": parsed["micros_per_op"],
        "corunner_progress": progress,
        "p99_us": parsed["p99_us"],
        "get_p99_us": (h.get("read") or {}).get("p99"),
        "put_p99_us": (h.get("write") or {}).get("p99"),
        "seek_p99_us": (h.get("seek") or {}).get("p99"),
        "gets": (parsed["mix"] or {}).get("gets"),
        "puts": (parsed["mix"] or {}).get("puts"),
        "seeks": (parsed["mix"] or {}).get("seeks"),
        "wall_s": wall,
    }


def run_one(runner, cell, rep, records, bar, note=""):
    """One measured run of cell in round rep, appended to records, shown on bar."""
    bar.set_description(f"{cell.workload[:4]} {cell.config} {ratio_label(cell.ratio)} {cell.degree}%{note}")
    records.append(runner.run(cell, rep, len(records)))
    bar.update()


def run_plan(runner, plan, records, bar):
    """Runs plan's (round, cell) pairs in order into records, each device's
    first after one warm-up run of that cell (Runner.warm_up)."""
    warm = set()
    for rep, cell in plan:
        if cell.device not in warm:
            bar.set_description(f"warm-up on {cell.device}")
            runner.warm_up(cell)
            warm.add(cell.device)
        run_one(runner, cell, rep, records, bar)


def next_cell(found, cells, runtime, remaining_s):
    """((device, workload, ratio, degree), cell, rounds, chance) of the
    adaptive claims' one-thread cell likeliest to resolve per second of
    measuring within remaining_s (rounds.next_to_resolve), or None."""

    def configs(key):
        return [c for c in cells if compared(c) == (*key, 1)]

    return rounds.next_to_resolve(
        (
            (key, c, ADAPTIVE_RULE.threshold(), estimate_s(len(configs(key)), runtime))
            for claim in found["claims"]
            if claim["id"] in ADAPTIVE_OBJECTIVES
            for c in claim.get("cells", [])
            for key in [(claim["device"], c["workload"], c["ratio"], c["degree"])]
        ),
        remaining_s,
    )


def extra_rounds(runner, cfg, repeats, runtime, records, bar, extra):
    """Within cfg["budget_s"], one more round at a time after the repeats
    planned of the cell where an adaptive claim is unresolved and likeliest
    to resolve per second (runs of runtime seconds; all its configurations,
    shuffled, measured in that round), appended to records; each round is
    listed in extra."""
    started, r = time.monotonic(), repeats
    while cfg["budget_s"] > 0:
        found = findings(summarize(records), cfg["sweep_ratio"], cfg["degrees"], cfg["ratios"], records)
        pick = next_cell(found, cfg["cells"], runtime, cfg["budget_s"] - (time.monotonic() - started))
        if pick is None:
            return
        (device, workload, ratio, degree), cell, projected, odds = pick
        todo = [c for c in cfg["cells"] if compared(c) == (device, workload, ratio, degree, 1)]
        random.Random(r).shuffle(todo)
        extra.append(
            {
                "round": r + 1,
                "device": device,
                "workload": workload,
                "ratio": ratio,
                "degree": degree,
                "interval": cell["interval"],
                "projected_rounds": projected,
                "chance": odds,
            }
        )
        bar.total += len(todo)
        bar.write(
            f"hio-study rocksdb: round {r + 1} of {device} {workload} {ratio_label(ratio)} at {degree}%: "
            f"adaptive against {cell['rival']} is unresolved ({cell['interval_text']}; {odds:.0%} chance "
            f"that {projected} more round(s) resolve it)"
        )
        for c in todo:
            run_one(runner, c, r, records, bar, " (extra)")
        r += 1


def children_cpu_s():
    """User and system CPU seconds of the children this process has reaped."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def corunner_check(co):
    """Raises RuntimeError if the co-runner (None: none) ended with an error before the run did."""
    if co is None or co.proc.poll() in (None, 0):
        return
    err = dbbench.last_lines(co.proc.stderr.read().decode(errors="replace"))
    raise RuntimeError(
        f"the co-runner failed ({co.proc.returncode}): {' '.join(map(str, co.proc.args))}\n  "
        + ("\n  ".join(err) or "(nothing on stderr)")
    )


# --- outputs ---------------------------------------------------------------------------------------------------


def write_runs(records, out):
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RUN_COLUMNS, extrasaction="ignore")
        w.writeheader()
        for r in records:
            w.writerow({k: "" if r.get(k) is None else r[k] for k in RUN_COLUMNS})


def estimate_s(runs, runtime):
    return runs * (runtime + RUN_OVERHEAD_S)


def describe_plan(cfg, repeats, runtime):
    cells, sweep = cfg["cells"], cfg["sweep_ratio"]
    lines = []
    n = f"the configurations ({len(cfg['configs'])} on the disk, the plugin's on emulated devices)"
    lines.append(f"  devices: {', '.join(cfg['devices'])}")
    if "sweep" in cfg["experiments"]:
        lines.append(
            f"  sweep: {' and '.join(cfg['workloads'])}, {n} x degrees "
            f"{','.join(map(str, cfg['degrees']))}% at {ratio_label(sweep)}"
        )
    if "full" in cfg["experiments"]:
        lines.append(f"  full: mixgraph, {n} alone and at {FULL_DEGREE}% at {ratio_label(sweep)}")
    if "ratios" in cfg["experiments"]:
        lines.append(
            f"  ratios: mixgraph, {n} x {', '.join(map(ratio_label, cfg['ratios']))} alone and at {RATIOS_DEGREE}%"
        )
    if "threads" in cfg["experiments"]:
        lines.append(
            f"  threads: {' and '.join(cfg['workloads'])} with {THREADS} client threads on every core, "
            f"alone, on the disk" + ("" if "disk" in cfg["devices"] else " (skipped: no disk)")
        )
    runs = len(cells) * repeats
    budget = cfg.get("budget_s", 0)
    minutes = (estimate_s(runs + len(cfg["devices"]), runtime) + budget) / 60  # and one warm-up per device
    extra = f" + up to {budget / 60:g} min of rounds where an adaptive claim is unresolved" if budget else ""
    head = (
        f"hio-study rocksdb: {len(cells)} cells (shared cells run once) x {repeats} repeat(s) x {runtime} s = "
        f"{runs} runs{extra}, about {minutes:.{0 if minutes >= 10 else 1}f} min; RocksDB and the co-runner on "
        f"CPU {cfg['core']}; results in {cfg['out']}"
    )
    return "\n".join([head] + lines)


def probe_plugin(runner, cfg):
    """Runner.probe on each plugin configuration once, warning where it wrote no statistics."""
    plugin_cells = {}
    for c in cfg["cells"]:
        if c.plugin and c.config not in plugin_cells:
            plugin_cells[c.config] = Cell("mixgraph", c.config, cfg["sweep_ratio"], 0)
    for cell in plugin_cells.values():
        if not runner.probe(cell):
            print(
                f"hio-study rocksdb: warning: the plugin wrote no statistics file for {cell.config} "
                f"(stats= in its URI); hit ratios and wait shares will be missing",
                file=sys.stderr,
            )


def measure(o, cfg, runner, limit, plan, records, extra):
    """The probes, the plan and the extra rounds, into records and extra;
    returns (error, interrupted): a failure or Ctrl-C ends the measuring and
    keeps what was measured. The runner and the limit are closed after."""
    bar = None
    try:
        probe_plugin(runner, cfg)
        bar = tqdm(total=len(plan), unit="run", dynamic_ncols=True)
        run_plan(runner, plan, records, bar)
        extra_rounds(runner, cfg, o.repeats, o.runtime, records, bar, extra)
    except KeyboardInterrupt:
        return None, True
    except RuntimeError as e:
        return str(e), False
    finally:
        if bar:
            bar.close()
        limit.close()
        runner.close()
    return None, False


def meta_of(o, cfg, limit, runner, records, plan, extra, error, interrupted):
    """rocksdb.json's meta: the machine, what ran and how, and how it ended."""
    return {
        "machine": f"{platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}",
        "core": cfg["core"],
        "corunner": (
            "stress-ng --cpu (int64, 1 ms slices)"
            if o.corunner == "cpu"
            else "db_bench fillrandom, stopped and continued every 10 ms"
        ),
        "pagecache": limit.how,
        "runtime": o.runtime,
        "repeats": o.repeats,
        "runs": len(records),
        "planned": len(plan),
        "interrupted": interrupted,
        "error": error,
        "plugin": str(cfg["plugin"] or ""),
        "missing_stats": runner.missing_stats,
        "sweep_ratio": cfg["sweep_ratio"],
        "degrees": cfg["degrees"],
        "ratios": cfg["ratios"],
        "configs": cfg["configs"],
        "experiments": cfg["experiments"],
        "budgets_mib": {ratio_label(r): m for r, m in runner.budget.items()},
        "budget_s": cfg["budget_s"],
        "extra_rounds": extra,
        "generated": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
    }


def run(o, cfg):
    from . import report  # matplotlib: only once something runs

    out = cfg["out"]
    print(describe_plan(cfg, o.repeats, o.runtime), flush=True)
    dataset = ensure_loaded(cfg, o.db_bench, o.reload)
    limit = PageCacheLimit()
    runner = Runner(o, cfg, dataset, limit)
    records, extra = [], []
    plan = rounds.schedule(cfg["cells"], o.repeats, block=compared)
    error, interrupted = measure(o, cfg, runner, limit, plan, records, extra)
    if interrupted:
        print("hio-study rocksdb: interrupted; writing what was measured", file=sys.stderr)
    if error:
        print(f"hio-study rocksdb: {error}\nhio-study rocksdb: writing what was measured", file=sys.stderr)
    rows = summarize(records)
    found = findings(rows, cfg["sweep_ratio"], cfg["degrees"], cfg["ratios"], records)
    meta = meta_of(o, cfg, limit, runner, records, plan, extra, error, interrupted)
    write_runs(records, out)
    doc = {"meta": meta, "dataset": dataset, "cells": rows, **found, "runs": records}
    (out / "rocksdb.json").write_text(json.dumps(doc, indent=1, default=str))
    figures = report.draw(rows, cfg["sweep_ratio"], cfg["degrees"], out / "plots")
    path = report.render(out, doc, figures)
    print(
        f"\nRocksDB ({dataset['size_bytes'] / 1e9:.2f} GB, budgets "
        f"{', '.join(f'{k} {v} MiB' for k, v in meta['budgets_mib'].items())}):"
    )
    for s in found["sentences"]:
        print(f"  {s}")
    if runner.missing_stats:
        print("  The plugin wrote no statistics for some runs: their hit ratios and wait shares are blank.")
    print(f"\nReport: {path}\nRuns: {out / 'runs.csv'}")
    return 130 if interrupted else (1 if error else 0)


def main(argv=None):
    return command.run_command("hio-study rocksdb", argv, parse_args, resolve, run)


if __name__ == "__main__":
    sys.exit(main())
