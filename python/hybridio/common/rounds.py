# SPDX-License-Identifier: MIT
"""The rounds of a study: the planned rounds' order, then extra rounds where
the verdicts are unresolved, within a time budget.

After the study's planned rounds, one more round of the group (a contention
load, a bursty neighbour's pattern, a RocksDB cell) whose unresolved claim
promises the most resolution per second of measuring, with that round's own
references, in a shuffled order; then again, until the budget is spent or
nothing is worth another round.

The promise sizes the repeats from the variance measured so far (Kalibera
and Jones, "Rigorous Benchmarking in Reasonable Time", ISMM 2013). With the
claim's spread per round s over n rounds and its mean log-ratio m, after k
more rounds the interval's half-width is t(n+k-1) s / sqrt(n+k), and the
mean then is, as far as the rounds so far can tell, normal around m with a
standard deviation of s sqrt(k / (n (n+k))). The chance that it then lies
beyond the half-width from the threshold, over the k rounds' time, is the
rate; the best k counts for each claim. A ratio that lies on its threshold
with a tight spread promises little however wide its interval once was,
while three scattered rounds near it promise a lot: the budget goes where
verdicts can still be decided. The nearly deterministic emulated targets
resolve in the planned rounds; the disk takes what is left.
"""

import math
import random
import re

from . import stats
from .errors import UsageError

MIN_CHANCE = 0.1  # less chance than this of deciding a claim is not worth the rounds
MOST_EXTRA = 50  # rounds looked ahead for one claim


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


def parse_budget(text):
    """Seconds from "20m", "90s", "1.5m" or "0"; a UsageError naming a bad value."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([sm]?)\s*", str(text))
    if not m:
        raise UsageError(f"--budget {text!r}: expected a duration such as 10m, 90s or 0 (no extra rounds)")
    value = float(m.group(1)) * (60 if m.group(2) == "m" else 1)
    if value > 24 * 3600:
        raise UsageError(f"--budget {text!r}: at most 24 hours")
    return value


def chance(interval, threshold, extra):
    """The chance that `extra` more rounds resolve the claim "ratio >=
    threshold", from its interval so far (module docstring)."""
    if interval.n < 2:
        return 1.0  # one more round gives it a spread, and so an interval
    q = 1 - (1 - stats.LEVEL) / 2
    half = (math.log(interval.high) - math.log(interval.low)) / 2
    # The spread per round, recovered from the interval's half-width; a
    # bootstrap interval is near enough to t's for a projection.
    s = half * math.sqrt(interval.n) / stats.t_quantile(q, interval.n - 1)
    gap = math.log(interval.value) - math.log(threshold)
    n = interval.n + extra
    half_then = stats.t_quantile(q, n - 1) * s / math.sqrt(n)
    sd = s * math.sqrt(extra / (interval.n * n))
    if sd == 0:
        return 1.0 if abs(gap) > half_then else 0.0

    def above(x):  # P(N(gap, sd) > x)
        return 0.5 * math.erfc((x - gap) / (sd * math.sqrt(2)))

    return above(half_then) + 1 - above(-half_then)


def next_to_resolve(candidates, remaining_s):
    """(key, claim, rounds, chance) of the unresolved claim that promises the
    most chance of resolving per second of measuring within remaining_s, the
    rounds that promise it and that chance; None if none has MIN_CHANCE. candidates: (key,
    claim with "state" and "interval", threshold, seconds one round of its
    group takes)."""
    best = None
    for key, c, threshold, round_s in candidates:
        # Without an interval nothing paired: another round of the same would not either.
        iv = c["interval"]
        if c["state"] != stats.UNRESOLVED or not iv or round_s > remaining_s:
            continue
        interval = stats.Interval(iv["value"], iv["ci95_low"], iv["ci95_high"], iv["n"], iv["ci_method"])
        for k in range(1, min(MOST_EXTRA, int(remaining_s // round_s) if round_s > 0 else 1) + 1):
            p = chance(interval, threshold, k)
            if p >= MIN_CHANCE and (best is None or p / (k * max(round_s, 1e-9)) > best[0]):
                best = (p / (k * max(round_s, 1e-9)), key, c, k, p)
    return best[1:] if best else None
