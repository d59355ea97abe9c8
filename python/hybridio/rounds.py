# SPDX-License-Identifier: MIT
"""Extra rounds where the verdicts are unresolved, within a time budget.

After the study's planned rounds, the claim whose interval is widest
against its distance from the threshold is measured again: one more round
of its (target, load) group, with that round's own references (every
strategy alone on the target, the co-runner alone at the load), in a
shuffled order. The nearly deterministic emulated targets resolve in the
planned rounds; the disk takes what is left of the budget.
"""

import random
import re

from . import stats
from .errors import UsageError


def parse_budget(text):
    """Seconds from "20m", "90s", "1.5m" or "0"; a UsageError naming a bad value."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([sm]?)\s*", str(text))
    if not m:
        raise UsageError(f"--budget {text!r}: expected a duration such as 10m, 90s or 0 (no extra rounds)")
    value = float(m.group(1)) * (60 if m.group(2) == "m" else 1)
    if value > 24 * 3600:
        raise UsageError(f"--budget {text!r}: at most 24 hours")
    return value


def farthest(candidates):
    """(key, claim) of the unresolved claim farthest from resolving, or None
    when every one is resolved. candidates: (key, claim with "state" and
    "interval", threshold)."""
    best = None
    for key, c, threshold in candidates:
        # Without an interval nothing paired: another round of the same would not either.
        iv = c["interval"]
        if c["state"] != stats.UNRESOLVED or not iv:
            continue
        u = stats.uncertainty(
            stats.Interval(iv["value"], iv["ci95_low"], iv["ci95_high"], iv["n"], iv["ci_method"]), threshold
        )
        if best is None or u > best[0]:
            best = (u, key, c)
    return best[1:] if best else None


def most_uncertain(claims_by_target):
    """(target, load, claim) of the unresolved claim farthest from resolving,
    or None when every claim is resolved. claims_by_target: {target: [claim
    with "load", "state", "threshold" and "interval"]}."""
    pick = farthest(
        ((t, c["load"]), c, c["threshold"])
        for t, claims in claims_by_target.items()
        for c in claims
        if c.get("load") is not None
    )
    return (*pick[0], pick[1]) if pick else None


def group(cells, target, load, seed):
    """The contention cells of one extra round of (target, load), with the
    target's cells alone as that round's references, in a shuffled order."""
    loads = {0, load}
    mine = [c for c in cells if c.experiment == "contention" and c.target == target and c.load_pct in loads]
    random.Random(seed).shuffle(mine)
    return mine
