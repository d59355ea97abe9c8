# SPDX-License-Identifier: MIT
"""The contention study's matrix: the cells that make up a study, the cells a
verdict compares, and those of one extra round."""

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Cell:
    experiment: str  # "contention": beside a co-runner; "scaling": threads, alone
    target: str
    strategy: str
    threads: int
    iodepth: int
    load_pct: int  # the co-runner's load; 0: the I/O alone
    cores: str  # "limited": on the study's core set; "all": unpinned

    @property
    def key(self):
        """Cells that differ only by repeat share this key."""
        return (self.experiment, self.target, self.strategy, self.threads, self.iodepth, self.load_pct, self.cores)


def expand(targets, strategies, loads, threads, iodepth):
    """All cells. strategies: {target: [strategy, ...]} (what each target supports).

    contention: every target x strategy x load, one I/O thread on the limited
    cores. scaling (only if more than one thread count is asked): every target
    x strategy x thread count, alone, on the limited cores and on all cores.
    """
    cells = []
    for t in targets:
        for s in strategies[t]:
            for load in loads:
                cells.append(Cell("contention", t, s, 1, iodepth, load, "limited"))
    if len(threads) > 1:
        for t in targets:
            for s in strategies[t]:
                for n in threads:
                    for cores in ("limited", "all"):
                        cells.append(Cell("scaling", t, s, n, iodepth, 0, cores))
    return cells


def compared(cell):
    """The cells a contention verdict compares: one target's strategies at one
    load (or, scaling, at one thread count on one core set)."""
    return (cell.experiment, cell.target, cell.load_pct, cell.threads, cell.iodepth, cell.cores)


def extra_round(cells, target, load, seed, strategies, references):
    """The contention cells of one extra round of (target, load) in a shuffled
    order: the strategies the claim compares at the load, and alone its
    references, the strategies that can give the round's best IOPS alone (a
    run is scored against it). The target's other cells would add runs the
    claim does not read."""
    wanted = {load: set(strategies)}
    wanted[0] = wanted.get(0, set()) | set(references)
    mine = [
        c
        for c in cells
        if c.experiment == "contention" and c.target == target and c.strategy in wanted.get(c.load_pct, ())
    ]
    random.Random(seed).shuffle(mine)
    return mine
