"""hio-study rocksdb: RocksDB's mixgraph workload on Posix and on hybridio's
RocksDB plugin, alone and beside a CPU-hungry neighbour on the same core.

The macro experiment of the thesis (Figures 12-17): db_bench's mixgraph
(prefix_dist: Get 83%, Put 14%, Seek 3%) on the default Posix file system
(page cache held to the budget by a memory cgroup; and with direct reads)
and on the hybridio plugin under each wait strategy, one core shared with
stress-ng. Experiments: the interference degree swept at the middle
dataset:cache ratio (Figure 16); the ratios alone and at 50% (Figure 17);
alone against a full co-runner (Figures 12-15); and readrandom alone, the
plugin's I/O path against Posix's direct reads. The DB is loaded once
(fillrandom, then a compaction) and reused; every run starts from the
loaded tree with cold caches. Writes runs.csv, rocksdb.json (medians,
claims, the thesis's figures beside ours), plots and report.html.
"""
import argparse
import contextlib
import csv
import datetime
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from . import corunner, dbbench, matrix
from .errors import UsageError
from .hiobench import ROOT
from .pagecache import MIB, PageCacheLimit
from .rocksdb_findings import CONFIGS, FULL_DEGREE, RATIOS_DEGREE, READRANDOM_CONFIGS, findings, ratio_label, summarize

EXPERIMENTS = ("sweep", "ratios", "full", "readrandom")
CORUNNERS = ("cpu", "dbbench")
# 9 s runs keep the default plan (68 cells x 3 repeats) under 35 minutes.
DEFAULTS = {"dataset_gb": 2.0, "runtime": 9, "repeats": 3, "degrees": "0,5,10,20,30,50"}
QUICK = {"dataset_gb": 0.2, "runtime": 5, "repeats": 1, "degrees": "0,10,50"}
DEFAULT_RATIOS = "2,5,10"

# Seconds a run costs beyond its --runtime (reset, db_bench's start and DB
# open, the co-runner's start, db_bench's exit), for the estimate.
RUN_OVERHEAD_S = 0.5
# The load: db_bench's fillrandom speed here (it slows as the tree grows),
# then the compaction.
LOAD_KEYS_PER_S = 40_000
COMPACT_BYTES_PER_S = 100e6


@dataclass(frozen=True)
class Cell:
    workload: str   # mixgraph or readrandom
    config: str
    ratio: float    # dataset:cache
    degree: int     # the co-runner's share of the core, %; 0: alone

    @property
    def plugin(self):
        return self.config.startswith("hybridio-")


# --- input -----------------------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(prog="hio-study rocksdb", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help=f"a short study: a {QUICK['dataset_gb']:g} GB dataset, degrees {QUICK['degrees']}, "
                         f"{QUICK['runtime']} s runs, 1 repeat")
    ap.add_argument("--out", help="results folder (default: a new folder in the system temp directory)")
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "hybridio-rocksdb"),
                    help="where the loaded DB is kept and reused (default: %(default)s)")
    ap.add_argument("--dataset-gb", help=f"size of the loaded DB in GB (default: {DEFAULTS['dataset_gb']:g}, "
                                         f"--quick: {QUICK['dataset_gb']:g})")
    ap.add_argument("--num", help="keys to load (and mixgraph's key range); overrides --dataset-gb")
    ap.add_argument("--reload", action="store_true", help="load the DB again even if one of these parameters exists")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated (default: %(default)s)")
    ap.add_argument("--experiments", default=",".join(EXPERIMENTS), help="comma-separated (default: %(default)s)")
    ap.add_argument("--ratios", default=DEFAULT_RATIOS,
                    help="dataset:cache ratios, e.g. 2,5,10 or 2:1,5:1; the sweep and the full co-runner run at "
                         "the middle one (default: %(default)s)")
    ap.add_argument("--degrees", help=f"interference degrees of the sweep, %% of the core (default: "
                                      f"{DEFAULTS['degrees']}, --quick: {QUICK['degrees']})")
    ap.add_argument("--runtime", help=f"seconds per run (default: {DEFAULTS['runtime']}, "
                                      f"--quick: {QUICK['runtime']})")
    ap.add_argument("--repeats", help=f"runs per cell, interleaved (default: {DEFAULTS['repeats']}, --quick: 1)")
    ap.add_argument("--core", help="the CPU that RocksDB and the co-runner share (default: the last CPU)")
    ap.add_argument("--corunner", default="cpu",
                    help="cpu: stress-ng --cpu at the degree; dbbench: a second db_bench doing fillrandom, stopped "
                         "and continued to the degree (default: %(default)s)")
    ap.add_argument("--plugin", default=str(ROOT / "build" / "plugins" / "rocksdb" / "libhybridio-rocksdb.so"),
                    help="hybridio's RocksDB plugin (default: %(default)s)")
    ap.add_argument("--db-bench", default="db_bench", help="(default: %(default)s)")
    a = ap.parse_args(argv)
    for k, v in (QUICK if a.quick else DEFAULTS).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    return a


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
        raise UsageError(f"--{name} {text!r}: unknown {name[:-1]} {bad[0] if bad else ''!r} "
                         f"(known: {', '.join(known)})")
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
            raise UsageError(f"--ratios: {part.strip()!r} is not a dataset:cache ratio from 1 to 1000 "
                             f"(e.g. 5 or 5:1)") from None
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


def cells_for(experiments, configs, ratios, degrees):
    """The plan's cells (each once; experiments share theirs) and the sweep ratio."""
    sweep = ratios[(len(ratios) - 1) // 2]
    cells = []

    def add(workload, cfgs, ratio, degs):
        for c in cfgs:
            for d in degs:
                cell = Cell(workload, c, ratio, d)
                if cell not in cells:
                    cells.append(cell)

    if "sweep" in experiments:
        add("mixgraph", configs, sweep, degrees)
    if "full" in experiments:
        add("mixgraph", configs, sweep, (0, FULL_DEGREE))
    if "ratios" in experiments:
        for r in ratios:
            add("mixgraph", configs, r, (0, RATIOS_DEGREE))
    if "readrandom" in experiments and all(c in configs for c in READRANDOM_CONFIGS):
        add("readrandom", READRANDOM_CONFIGS, sweep, (0,))
    return cells, sweep


def resolve(a):
    """Checks every input before anything runs; returns the study's configuration."""
    dbbench.check(a.db_bench)
    configs = _names("configs", a.configs, CONFIGS)
    experiments = _names("experiments", a.experiments, EXPERIMENTS)
    ratios = parse_ratios(a.ratios)
    degrees = parse_degrees(a.degrees)
    a.runtime = _int("runtime", a.runtime, 1, 3600, "seconds per run")
    a.repeats = _int("repeats", a.repeats, 1, 20, "runs per cell")
    if a.num is not None:
        num = _int("num", a.num, 100, 10 ** 10, "keys to load")
    else:
        try:
            gb = float(a.dataset_gb)
            if not 0.001 <= gb <= 10_000:
                raise ValueError
        except ValueError:
            raise UsageError(f"--dataset-gb {a.dataset_gb!r}: expected a size in GB from 0.001 to 10000") from None
        num = max(100, round(gb * 1e9 / dbbench.BYTES_PER_NUM))
    ncpu = os.cpu_count() or 1
    core = _int("core", a.core if a.core is not None else ncpu - 1, 0, ncpu - 1, "a CPU of this machine")
    if a.corunner not in CORUNNERS:
        raise UsageError(f"--corunner {a.corunner!r}: unknown co-runner (co-runners: {', '.join(CORUNNERS)})")
    cells, sweep = cells_for(experiments, configs, ratios, degrees)
    if not cells:
        raise UsageError(f"--experiments {a.experiments!r} with --configs {a.configs!r}: nothing to run "
                         f"(readrandom needs {' and '.join(READRANDOM_CONFIGS)})")
    if any(c.degree for c in cells) and a.corunner == "cpu":
        corunner.check_installed()
    out = Path(a.out or os.path.join(tempfile.gettempdir(),
                                     "hybridio-rocksdb-" + datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))).absolute()
    plugin = None
    if any(c.plugin for c in cells):
        plugin = Path(a.plugin)
        if not plugin.is_file():
            raise UsageError(f"the hybridio RocksDB plugin {plugin} does not exist: build it with `make build` "
                             f"(or pass --plugin PATH), or run the Posix configurations alone "
                             f"(--configs posix,posix-direct)")
        if "&" in str(out):
            raise UsageError(f"--out {str(out)!r}: the plugin's statistics path goes into its URI, whose keys "
                             f"'&' separates; choose a folder without '&'")
    dbdir = Path(a.dir)
    fs = dbbench.filesystem_type(dbdir)
    if fs in ("tmpfs", "ramfs"):
        raise UsageError(f"--dir {a.dir!r} is in memory ({fs}): the DB must be on a disk (and O_DIRECT fails "
                         f"there); pass --dir on one")
    try:
        dbdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--dir {a.dir!r}: cannot create it: {e.strerror}") from None
    try:
        (out / "raw").mkdir(parents=True, exist_ok=True)
        marker = out / ".writable"
        marker.write_text("")
        marker.unlink()
    except OSError as e:
        raise UsageError(f"cannot write to the output folder --out={out}: {e.strerror}") from None
    return {"configs": configs, "experiments": experiments, "ratios": ratios, "degrees": degrees, "num": num,
            "core": core, "cells": cells, "sweep_ratio": sweep, "out": out, "plugin": plugin, "dir": dbdir}


# --- the dataset -----------------------------------------------------------------------------------------------

def dataset_params(num):
    return {"benchmarks": "fillrandom,compact", "num": num, "key_size": dbbench.KEY_SIZE,
            "value_size": dbbench.VALUE_SIZE, "compression_type": "none", "seed": dbbench.LOAD_SEED}


def ensure_loaded(a, cfg):
    """The loaded DB for cfg["num"] keys under --dir: reused when its
    params.json matches (and --reload is not given), else loaded now through
    Posix. Returns the params with the DB's size and how long loading took."""
    home = cfg["dir"] / f"mixgraph-n{cfg['num']}"
    loaded, meta = home / "loaded", home / "params.json"
    want = dataset_params(cfg["num"])
    if not a.reload and meta.is_file() and (loaded / "CURRENT").is_file():
        have = json.loads(meta.read_text())
        if {k: have.get(k) for k in want} == want:
            print(f"hio-study rocksdb: reusing the DB in {loaded} ({have['size_bytes'] / 1e9:.2f} GB, "
                  f"{cfg['num']:,} keys loaded; loading took {have['load_seconds']:.0f} s)", flush=True)
            return dict(have, reused=True, path=str(loaded))
    estimate = dbbench.BYTES_PER_NUM * cfg["num"]
    free = shutil.disk_usage(cfg["dir"]).free
    if free < 2.5 * estimate:
        raise UsageError(f"--dir {str(cfg['dir'])!r}: {free / 1e9:.1f} GB free, the load needs about "
                         f"{2.5 * estimate / 1e9:.1f} GB (a {estimate / 1e9:.2f} GB DB and its compaction)")
    if meta.exists():
        meta.unlink()  # a load that stops half way leaves no params.json, so it is never reused
    if loaded.exists():
        shutil.rmtree(loaded)
    home.mkdir(parents=True, exist_ok=True)
    seconds = cfg["num"] / LOAD_KEYS_PER_S + estimate / COMPACT_BYTES_PER_S
    print(f"hio-study rocksdb: loading {cfg['num']:,} keys (about {estimate / 1e9:.2f} GB) into {loaded}, "
          f"about {seconds / 60:.1f} min", flush=True)
    bar = tqdm(total=cfg["num"], unit="key", unit_scale=True, dynamic_ncols=True, desc="fillrandom")
    done = [0]

    def progress(n):
        bar.update(n - done[0])
        done[0] = n
        if n >= cfg["num"]:
            bar.set_description("compacting")

    t0 = time.monotonic()
    try:
        version = dbbench.load(dbbench.load_command(a.db_bench, loaded, cfg["num"]), home / "load.log", cfg["num"],
                               progress)
    finally:
        bar.close()
    took = time.monotonic() - t0
    have = dict(want, size_bytes=dbbench.db_bytes(loaded), load_seconds=took, rocksdb_version=version,
                loaded_at=datetime.datetime.now().isoformat(timespec="seconds"))
    meta.write_text(json.dumps(have, indent=1))
    print(f"hio-study rocksdb: loaded {have['size_bytes'] / 1e9:.2f} GB in {took:.0f} s", flush=True)
    return dict(have, reused=False, path=str(loaded))


def budgets(size_bytes, ratios):
    """{ratio: MiB}: the cache budget of each ratio. RocksDB's block cache, the
    plugin's cache and Posix's page cache each get it (the thesis: 10 GB of
    block cache and 10 GB of SPDK cache or page cache for a 50 GB DB)."""
    return {r: max(1, round(size_bytes / r / MIB)) for r in ratios}


# --- running ---------------------------------------------------------------------------------------------------

RUN_COLUMNS = ["round", "index", "workload", "config", "ratio", "degree", "budget_mib", "ops_per_s", "micros_per_op",
               "p99_us", "get_p99_us", "put_p99_us", "seek_p99_us", "gets", "puts", "seeks", "pagecache_peak_mib",
               "anon_peak_mib", "cache_hit_ratio", "wait_interrupt", "wait_poll", "wait_hybrid", "plugin_reads",
               "wall_s", "raw"]


def plugin_uri(strategy, cache_mib, stats):
    return f"hybridio://?wait={strategy}&cache_mb={cache_mib}&direct=1&stats={stats}"


def read_stats(path):
    """The plugin's statistics JSON: hit ratio, wait shares, reads; None where absent."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    cache, share = doc.get("cache") or {}, doc.get("wait_share") or {}
    return {"cache_hit_ratio": cache.get("hit_ratio"), "wait_interrupt": share.get("interrupt"),
            "wait_poll": share.get("poll"), "wait_hybrid": share.get("hybrid"), "plugin_reads": doc.get("reads")}


class Runner:
    """Runs cells: resets the DB and drops its cached pages, starts the
    co-runner on the core, runs db_bench pinned to it (in the memory cgroup
    for Posix, with the plugin preloaded for hybridio), reads what it wrote."""

    def __init__(self, a, cfg, dataset, limit):
        self.a, self.cfg, self.limit = a, cfg, limit
        self.loaded = Path(dataset["path"])
        self.work = self.loaded.parent / "work"
        self.budget = budgets(dataset["size_bytes"], cfg["ratios"])
        self.missing_stats = False

    def command(self, cell, seed, stats, seconds):
        budget = self.budget[cell.ratio] * MIB
        uri = None
        if cell.plugin:
            # readrandom measures the plugin's I/O path against Posix's direct reads: no cache of its own.
            uri = plugin_uri(cell.config.removeprefix("hybridio-"),
                             0 if cell.workload == "readrandom" else self.budget[cell.ratio], stats)
        cmd = dbbench.run_command(self.a.db_bench, self.work, cell.workload, self.cfg["num"], seconds, budget,
                                  seed, direct_reads=cell.config == "posix-direct", fs_uri=uri)
        if cell.plugin:
            cmd = ["env", f"LD_PRELOAD={self.cfg['plugin']}", *cmd]
        cmd = ["taskset", "-c", str(self.cfg["core"]), *cmd]
        return self.limit.wrap(cmd) if not cell.plugin else cmd

    def corunner(self, degree):
        if not degree:
            return contextlib.nullcontext()
        seconds = self.a.runtime + 120  # outlives db_bench's open and run; killed when the run ends
        if self.a.corunner == "dbbench":
            return dbbench.FillCoRunner(self.a.db_bench, self.cfg["dir"] / "corunner-db", degree, self.cfg["core"],
                                        seconds)
        return corunner.CoRunner("cpu", degree, str(self.cfg["core"]), seconds)

    def probe(self, cell):
        """A few hundred mixgraph operations through the plugin before the
        study: a bad URI or a plugin that does not load fails here, not half an
        hour in. True if the plugin wrote its statistics file."""
        stats = self.cfg["out"] / "raw" / f"probe-{cell.config}.stats.json"
        cmd = self.command(cell, 1, stats, 0) + ["--reads=200"]  # no --duration: 200 operations
        dbbench.reset(self.loaded, self.work)
        dbbench.run(cmd, self.cfg["out"] / "raw" / f"probe-{cell.config}.out",
                    self.cfg["out"] / "raw" / f"probe-{cell.config}.err", 300)
        return stats.is_file()

    def run(self, cell, rep, index):
        raw = self.cfg["out"] / "raw"
        name = f"{index:04d}-{cell.workload}-{cell.config}-{ratio_label(cell.ratio).replace(':', 'to')}-" \
               f"{cell.degree}pct-r{rep + 1}"
        stats = raw / f"{name}.stats.json"
        cmd = self.command(cell, 1000 + rep, stats, self.a.runtime)
        dbbench.reset(self.loaded, self.work)
        dbbench.drop_cached(self.work)
        tracker = self.limit.start(self.budget[cell.ratio] * MIB) if not cell.plugin else None
        t0 = time.monotonic()
        with self.corunner(cell.degree) as co:
            try:
                text = dbbench.run(cmd, raw / f"{name}.out", raw / f"{name}.err", self.a.runtime + 90,
                                   tick=tracker.tick if tracker else None)
            except RuntimeError as e:
                if tracker and tracker.oom_killed():
                    raise RuntimeError(f"{e}\n  the memory cgroup that holds Posix's page cache to the budget "
                                       f"killed it: its anonymous memory outgrew the limit") from None
                raise
            corunner_check(co)
        wall = time.monotonic() - t0
        try:
            parsed = dbbench.parse(text, cell.workload)
        except ValueError as e:
            raise RuntimeError(f"{' '.join(map(str, cmd))}: {e} (its output: {raw / name}.out)") from None
        h = parsed["histograms"]
        rec = {"round": rep + 1, "index": index, "workload": cell.workload, "config": cell.config,
               "ratio": cell.ratio, "degree": cell.degree, "budget_mib": self.budget[cell.ratio],
               "ops_per_s": parsed["ops_per_s"], "micros_per_op": parsed["micros_per_op"],
               "p99_us": parsed["p99_us"], "get_p99_us": (h.get("read") or {}).get("p99"),
               "put_p99_us": (h.get("write") or {}).get("p99"), "seek_p99_us": (h.get("seek") or {}).get("p99"),
               "gets": (parsed["mix"] or {}).get("gets"), "puts": (parsed["mix"] or {}).get("puts"),
               "seeks": (parsed["mix"] or {}).get("seeks"), "wall_s": wall,
               "raw": str((raw / f"{name}.out").relative_to(self.cfg["out"])), "command": cmd}
        rec.update(tracker.result() if tracker else {"pagecache_peak_mib": None, "anon_peak_mib": None})
        st = read_stats(stats) if cell.plugin else None
        if cell.plugin and st is None:
            self.missing_stats = True
        rec.update(st or {k: None for k in ("cache_hit_ratio", "wait_interrupt", "wait_poll", "wait_hybrid",
                                             "plugin_reads")})
        return rec


def corunner_check(co):
    """Raises RuntimeError if the co-runner (None: none) ended with an error before the run did."""
    if co is None or co.proc.poll() in (None, 0):
        return
    err = dbbench.last_lines(co.proc.stderr.read().decode(errors="replace"))
    raise RuntimeError(f"the co-runner failed ({co.proc.returncode}): {' '.join(map(str, co.proc.args))}\n  "
                       + ("\n  ".join(err) or "(nothing on stderr)"))


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
    n = f"{len(cfg['configs'])} config{'s' if len(cfg['configs']) != 1 else ''}"
    if "sweep" in cfg["experiments"]:
        lines.append(f"  sweep: {n} x degrees {','.join(map(str, cfg['degrees']))}% at "
                     f"{ratio_label(sweep)}")
    if "full" in cfg["experiments"]:
        lines.append(f"  full: {n} alone and at {FULL_DEGREE}% at {ratio_label(sweep)}")
    if "ratios" in cfg["experiments"]:
        lines.append(f"  ratios: {n} x {', '.join(map(ratio_label, cfg['ratios']))} alone and at "
                     f"{RATIOS_DEGREE}%")
    if "readrandom" in cfg["experiments"]:
        if any(c.workload == "readrandom" for c in cells):
            lines.append(f"  readrandom: {' and '.join(READRANDOM_CONFIGS)} alone at {ratio_label(sweep)}")
        else:
            lines.append(f"  readrandom: skipped, it needs --configs to include {' and '.join(READRANDOM_CONFIGS)}")
    runs = len(cells) * repeats
    minutes = estimate_s(runs, runtime) / 60
    head = (f"hio-study rocksdb: {len(cells)} cells (shared cells run once) x {repeats} repeat(s) x {runtime} s = "
            f"{runs} runs, about {minutes:.{0 if minutes >= 10 else 1}f} min; RocksDB and the co-runner on CPU "
            f"{cfg['core']}; results in {cfg['out']}")
    return "\n".join([head] + lines)


def run(a, cfg):
    from . import rocksdb_report  # matplotlib: only once something runs
    out = cfg["out"]
    print(describe_plan(cfg, a.repeats, a.runtime), flush=True)
    dataset = ensure_loaded(a, cfg)
    limit = PageCacheLimit()
    runner = Runner(a, cfg, dataset, limit)
    records, error, interrupted = [], None, False
    plan = matrix.schedule(cfg["cells"], a.repeats)
    bar = None
    try:
        plugin_cells = {}
        for c in cfg["cells"]:
            if c.plugin and c.config not in plugin_cells:
                plugin_cells[c.config] = Cell("mixgraph", c.config, cfg["sweep_ratio"], 0)
        for cell in plugin_cells.values():
            if not runner.probe(cell):
                print(f"hio-study rocksdb: warning: the plugin wrote no statistics file for {cell.config} "
                      f"(stats= in its URI); hit ratios and wait shares will be missing", file=sys.stderr)
        bar = tqdm(total=len(plan), unit="run", dynamic_ncols=True)
        for index, (rep, cell) in enumerate(plan):
            bar.set_description(f"{cell.workload[:4]} {cell.config} {ratio_label(cell.ratio)} {cell.degree}%")
            records.append(runner.run(cell, rep, index))
            bar.update()
    except KeyboardInterrupt:
        interrupted = True
    except RuntimeError as e:
        error = str(e)
    finally:
        if bar:
            bar.close()
        limit.close()
        shutil.rmtree(runner.work, ignore_errors=True)
    if interrupted:
        print("hio-study rocksdb: interrupted; writing what was measured", file=sys.stderr)
    if error:
        print(f"hio-study rocksdb: {error}\nhio-study rocksdb: writing what was measured", file=sys.stderr)
    rows = summarize(records)
    found = findings(rows, cfg["sweep_ratio"], cfg["degrees"], cfg["ratios"])
    meta = {"machine": f"{platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}",
            "core": cfg["core"], "corunner": ("stress-ng --cpu (int64, 1 ms slices)" if a.corunner == "cpu" else
                                              "db_bench fillrandom, stopped and continued every 10 ms"),
            "pagecache": limit.how, "runtime": a.runtime, "repeats": a.repeats, "runs": len(records),
            "planned": len(plan), "interrupted": interrupted, "error": error, "plugin": str(cfg["plugin"] or ""),
            "missing_stats": runner.missing_stats, "sweep_ratio": cfg["sweep_ratio"], "degrees": cfg["degrees"],
            "ratios": cfg["ratios"], "configs": cfg["configs"], "experiments": cfg["experiments"],
            "budgets_mib": {ratio_label(r): m for r, m in runner.budget.items()},
            "generated": datetime.datetime.now().strftime("%Y-%m-%d %H:%M")}
    write_runs(records, out)
    doc = {"meta": meta, "dataset": dataset, "cells": rows, **found, "runs": records}
    (out / "rocksdb.json").write_text(json.dumps(doc, indent=1, default=str))
    figures = rocksdb_report.draw(rows, cfg["sweep_ratio"], cfg["degrees"], out / "plots")
    path = rocksdb_report.render(out, doc, figures)
    print(f"\nRocksDB ({dataset['size_bytes'] / 1e9:.2f} GB, budgets "
          f"{', '.join(f'{k} {v} MiB' for k, v in meta['budgets_mib'].items())}):")
    for s in found["sentences"]:
        print(f"  {s}")
    if runner.missing_stats:
        print("  The plugin wrote no statistics for some runs: their hit ratios and wait shares are blank.")
    print(f"\nReport: {path}\nRuns: {out / 'runs.csv'}")
    return 130 if interrupted else (1 if error else 0)


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        cfg = resolve(a)
    except UsageError as e:
        print(f"hio-study rocksdb: {e}", file=sys.stderr)
        return 2
    try:
        return run(a, cfg)
    except KeyboardInterrupt:
        print("hio-study rocksdb: interrupted", file=sys.stderr)
        return 130
    except UsageError as e:
        print(f"hio-study rocksdb: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"hio-study rocksdb: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
