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


def schedule(cells, repeats, seed=1):
    """(repeat, cell) in run order: every cell once per round, so that drift
    over the study spreads over all cells instead of landing on some; and in
    a different order each round (shuffled with a fixed seed), so that drift
    within a round does not always fall on the same strategies."""
    plan = []
    for r in range(repeats):
        order = list(cells)
        random.Random(seed * 1000 + r).shuffle(order)
        plan += [(r, c) for c in order]
    return plan
