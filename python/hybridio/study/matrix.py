# SPDX-License-Identifier: MIT
"""The study's matrix: which runs make up a study, in which order."""

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


def schedule(cells, repeats, seed=1, block=None):
    """(repeat, cell) in run order: every cell once per round, so that drift
    over the study spreads over all cells instead of landing on some; and in
    a different order each round (shuffled with a fixed seed), so that drift
    within a round does not always fall on the same strategies.

    block(cell) names the cells a verdict compares with each other: they run
    next to each other, in a shuffled order, and the blocks in a shuffled
    order. The disk's speed is correlated from one second to the next (1 s
    means 0.5 apart at lag 1, near 0 beyond a few seconds), so a ratio of
    neighbours in time carries less of its drift than one of runs a minute
    apart. Without block every cell is a block of its own."""
    plan = []
    for r in range(repeats):
        rng = random.Random(seed * 1000 + r)
        blocks = {}
        for c in cells:
            blocks.setdefault(block(c) if block else c, []).append(c)
        order = list(blocks.values())
        rng.shuffle(order)
        for b in order:
            rng.shuffle(b)
            plan += [(r, c) for c in b]
    return plan


def compared(cell):
    """The cells a contention verdict compares: one target's strategies at one
    load (or, scaling, at one thread count on one core set)."""
    return (cell.experiment, cell.target, cell.load_pct, cell.threads, cell.iodepth, cell.cores)
