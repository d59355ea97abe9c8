# SPDX-License-Identifier: MIT
"""The RocksDB study's experiments: the configurations, devices, workloads
and degrees, the cells each experiment runs, and the figures a run
measures; what the runner runs and the findings read."""

from dataclasses import dataclass

CONFIGS = (
    "posix",
    "posix-direct",
    "hybridio-interrupt",
    "hybridio-poll",
    "hybridio-hybrid",
    "hybridio-adaptive",
    "hybridio-adaptive-own",
)
DEVICES = ("disk", "pcie3", "pcie4")  # the emulated ones: the plugin's emulate= profiles
THREADS = 4  # the threads experiment's client threads
ADAPTIVE_OBJECTIVES = {"hybridio-adaptive": "shared", "hybridio-adaptive-own": "own"}
RATIOS_DEGREE = 50  # the ratios experiment's contended degree, as in the thesis's Figure 17
FULL_DEGREE = 100
EXPERIMENTS = ("sweep", "ratios", "full", "threads")
WORKLOADS = ("mixgraph", "readrandom")

FIGURES = [
    "ops_per_s",
    "cpu_us_per_op",
    "corunner_progress",
    "micros_per_op",
    "p99_us",
    "get_p99_us",
    "put_p99_us",
    "seek_p99_us",
    "pagecache_peak_mib",
    "anon_peak_mib",
    "cache_hit_ratio",
    "wait_interrupt",
    "wait_poll",
    "wait_hybrid",
]


def plugin_configs(configs):
    return [c for c in configs if c.startswith("hybridio-")]


def ratio_label(r):
    return f"{r:g}:1"


@dataclass(frozen=True)
class Cell:
    workload: str  # mixgraph or readrandom
    config: str
    ratio: float  # dataset:cache
    degree: int  # the co-runner's share of the core, %; 0: alone
    device: str = "disk"  # disk, or an emulated SSD's profile (pcie3, pcie4)
    threads: int = 1  # db_bench's client threads: 1 on the shared core, more on every core

    @property
    def plugin(self):
        return self.config.startswith("hybridio-")


def compared(cell):
    """The cells a verdict compares with each other: every configuration of one
    workload, dataset:cache ratio and co-runner degree on one device."""
    return (cell.device, cell.workload, cell.ratio, cell.degree, cell.threads)


def cells_for(experiments, configs, ratios, degrees, devices=("disk",), workloads=WORKLOADS):
    """The plan's cells (each once; experiments share theirs) and the sweep
    ratio. The emulated devices run the plugin's configurations only, and the
    threads experiment runs on the disk."""
    sweep = ratios[(len(ratios) - 1) // 2]
    cells = []

    def add(device, workload, ratio, degs, threads=1):
        cfgs = configs if device == "disk" else plugin_configs(configs)
        for c in cfgs:
            for d in degs:
                cell = Cell(workload, c, ratio, d, device, threads)
                if cell not in cells:
                    cells.append(cell)

    for dev in devices:
        if "sweep" in experiments:
            for w in workloads:
                add(dev, w, sweep, degrees)
        if "full" in experiments:
            add(dev, "mixgraph", sweep, (0, FULL_DEGREE))
        if "ratios" in experiments:
            for r in ratios:
                add(dev, "mixgraph", r, (0, RATIOS_DEGREE))
    if "threads" in experiments and "disk" in devices:
        for w in workloads:
            add("disk", w, sweep, (0,), THREADS)
    return cells, sweep
