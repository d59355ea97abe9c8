# SPDX-License-Identifier: MIT
"""Intervals and verdicts for repeated, paired measurements.

Every comparison the studies draw is a ratio taken within one round: both
sides run back to back, in a shuffled order, so that this machine's drift
from one second to the next falls on both. A ratio is summarised over the
rounds by its geometric mean, the mean of the log-ratios: ratios compose
(a/b x b/c = a/c), 2x and 0.5x lie equally far from 1, and the noise of a
rate is multiplicative. Its 95% interval:

- below 10 rounds, Student's t on the mean of the logs: a resampling cannot
  reach past the data's own range, so with 3 rounds a bootstrap's interval
  misses the true mean at least a quarter of the time;
- from 10 rounds on, the expanded percentile bootstrap of the mean of the
  logs (Hesterberg, "What Teachers Should Know About the Bootstrap", 2015):
  the percentile levels are widened by t's small-sample factor, so that it
  covers as often as it says without assuming normal noise.

A single figure (IOPS, latency) is quoted as the median over its rounds,
with the same interval for its centre.

Every claim on a ratio (ours / the rival's) has a kind and a margin, fixed
before measuring (a Rule; docs/study.md, "Claims"):

- superiority: ours is better by at least the margin (the stated gain; 0:
  simply better), met when the whole interval lies beyond 1 + margin;
- non_inferiority: ours is no worse than the rival by more than the margin,
  met when the whole interval lies beyond 1 - margin (one side of TOST,
  Schuirmann 1987);
- equivalence: the two are equal within the margin, met when the whole
  interval lies inside [1 - margin, 1 + margin] (both sides of TOST).

"Beyond" is above for a measure where more is better (IOPS, progress) and
below for one where less is (CPU or instructions per I/O, a spread): there
the bounds are 1 - margin and 1 + margin. A claim is not met when the whole
interval lies on the wrong side of its bound (outside the band, for
equivalence) and unresolved when the interval reaches over one. Two
configurations are ranked only where the 97.5% interval of their ratio
clears 1 by more than the noise band (1%, as Criterion.rs's noise
threshold): between two identical ones a winner is named in at most 2.5%
of studies, and a lead smaller than 1% is a tie however sure it is.
"""

import functools
import math
import statistics
from dataclasses import dataclass

import numpy as np
import scipy.stats

LEVEL = 0.95  # the intervals quoted and the verdicts' level
RANK_LEVEL = 0.975  # a winner is named at this level: a false one in at most 2.5% of studies
BOOTSTRAP_FROM = 10  # rounds from which the bootstrap replaces Student's t
RESAMPLES = 4000
NOISE_BAND = 0.01  # a lead within 1% is a tie
STARVED = 1e-3  # a figure of 0 against a positive one counts as this share of it: the ratio stays defined

MET, NOT_MET, UNRESOLVED = "met", "not_met", "unresolved"
STATE_WORDS = {MET: "met", NOT_MET: "NOT met", UNRESOLVED: "unresolved"}

SUPERIORITY, NON_INFERIORITY, EQUIVALENCE = "superiority", "non_inferiority", "equivalence"
KINDS = (SUPERIORITY, NON_INFERIORITY, EQUIVALENCE)
# The parity margins (docs/study.md, "Claims"). A count per I/O (instructions,
# system calls) repeats within 0.1% from run to run, so 3% is a real cost of
# the layer and not noise; a rate on this machine has a per-round sd of log
# 0.08-0.10, where 5% is the smallest difference a few hundred rounds can
# resolve and about the least a user would change tools for.
COUNT_MARGIN = 0.03
RATE_MARGIN = 0.05


# Cached: the budget's look-ahead (rounds.next_to_resolve) asks for the same
# few quantiles thousands of times.
@functools.lru_cache(maxsize=None)
def t_quantile(p, df):
    """Student's t quantile: the x with P(T <= x) = p, for 0.5 <= p < 1."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    if not 0.5 <= p < 1:
        raise ValueError(f"a quantile's probability must be in [0.5, 1), got {p}")
    return float(scipy.stats.t.ppf(p, df))


@dataclass(frozen=True)
class Interval:
    value: float  # the geometric mean (ratios) or the median (figures)
    low: float  # the 95% interval; equal to value with one round
    high: float
    n: int  # rounds
    method: str  # "t", "bootstrap" or "single"

    def as_dict(self, prefix=""):
        return {
            f"{prefix}value": self.value,
            f"{prefix}ci95_low": self.low,
            f"{prefix}ci95_high": self.high,
            f"{prefix}n": self.n,
            f"{prefix}ci_method": self.method,
        }

    def text(self, digits=2):
        if self.n < 2:
            return f"{self.value:.{digits}f} (1 round, no interval)"
        return f"{self.value:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def _mean_interval(xs, seed, level):
    """(low, high, method) of an interval at `level` on the mean of xs (n >= 2)."""
    n = len(xs)
    mean = statistics.fmean(xs)
    q = t_quantile(1 - (1 - level) / 2, n - 1)
    if n < BOOTSTRAP_FROM:
        half = q * statistics.stdev(xs) / math.sqrt(n)
        return mean - half, mean + half, "t"
    # Expanded percentile: the tail area that, on a normal, lies beyond
    # sqrt(n / (n - 1)) t quantiles.
    tail = 0.5 * math.erfc(math.sqrt(n / (n - 1)) * q / math.sqrt(2))
    data = np.asarray(xs, dtype=float)
    means = data[np.random.default_rng(seed).integers(0, n, size=(RESAMPLES, n))].mean(axis=1)
    lo, hi = np.quantile(means, [tail, 1 - tail])
    return float(lo), float(hi), "bootstrap"


def ratio_interval(ratios, seed=0, level=LEVEL):
    """The geometric mean of per-round ratios (all > 0) and its interval."""
    xs = [r for r in ratios if r is not None]
    if not xs:
        raise ValueError("no ratios to summarise")
    bad = [r for r in xs if not r > 0]
    if bad:
        raise ValueError(f"a ratio must be positive, got {bad[0]}")
    logs = [math.log(r) for r in xs]
    value = math.exp(statistics.fmean(logs))
    if len(logs) < 2:
        return Interval(value, value, value, 1, "single")
    lo, hi, how = _mean_interval(logs, seed, level)
    return Interval(value, math.exp(lo), math.exp(hi), len(logs), how)


def figure_interval(values, seed=0):
    """The median of a figure over its rounds, with the 95% interval of its
    centre (on the logs where every value is positive); None without values."""
    xs = [v for v in values if v is not None]
    if not xs:
        return None
    med = statistics.median(xs)
    if len(xs) < 2:
        return Interval(med, med, med, 1, "single")
    if all(v > 0 for v in xs):
        lo, hi, how = _mean_interval([math.log(v) for v in xs], seed, LEVEL)
        lo, hi = math.exp(lo), math.exp(hi)
    else:
        lo, hi, how = _mean_interval(xs, seed, LEVEL)
    return Interval(med, min(lo, med), max(hi, med), len(xs), how)


def _judge_band(interval, low, high):
    """met when the whole interval lies inside [low, high], not met when the
    whole of it lies outside, unresolved when it reaches over an edge."""
    if interval.n < 2:
        return UNRESOLVED
    if low <= interval.low and interval.high <= high:
        return MET
    if interval.high < low or interval.low > high:
        return NOT_MET
    return UNRESOLVED


@dataclass(frozen=True)
class Rule:
    """What a claim says of a ratio ours / the rival's: its kind, its margin
    and whether more or less of the measure is better (module docstring)."""

    kind: str
    margin: float
    lower_is_better: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"a claim's kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if not (self.margin >= 0 and (self.kind == SUPERIORITY or self.margin < 1)):
            raise ValueError(f"a {self.kind} margin must be in [0, 1), got {self.margin!r}")

    @property
    def band(self):
        """(low, high): where the whole interval must lie for the claim to be met."""
        m = self.margin
        if self.kind == EQUIVALENCE:
            return 1 - m, 1 + m
        # How far beyond 1, the better way, the whole interval must lie.
        beyond = m if self.kind == SUPERIORITY else -m
        return (0.0, 1 - beyond) if self.lower_is_better else (1 + beyond, math.inf)

    def threshold(self, interval=None):
        """The bound that decides the claim: for equivalence, the edge nearer the estimate."""
        low, high = self.band
        if self.kind == EQUIVALENCE:
            return low if interval is None or interval.value < 1 else high
        return high if self.lower_is_better else low

    def judge(self, interval):
        """met / not_met / unresolved."""
        return _judge_band(interval, *self.band)

    def words(self):
        """The rule in words: "non-inferiority at 5% (>= 0.95)"."""
        low, high = self.band
        if self.kind == EQUIVALENCE:
            return f"equivalence within {self.margin:.0%} (in [{low:.2f}, {high:.2f}])"
        if self.kind == NON_INFERIORITY:
            name = f"non-inferiority at {self.margin:.0%}"
        else:
            name = f"superiority by {self.margin:.0%}" if self.margin else "superiority"
        return f"{name} ({'<=' if self.lower_is_better else '>='} {self.threshold():.2f})"

    def as_dict(self):
        """The rule as a claim's fields: kind, margin, which way is better, and in words."""
        return {
            "kind": self.kind,
            "margin": self.margin,
            "better": "lower" if self.lower_is_better else "higher",
            "rule": self.words(),
        }


def superior(gain=0.0, lower_is_better=False):
    """Ours is better than the rival by at least gain."""
    return Rule(SUPERIORITY, gain, lower_is_better)


def non_inferior(margin=RATE_MARGIN, lower_is_better=False):
    """Ours is no worse than the rival by more than margin."""
    return Rule(NON_INFERIORITY, margin, lower_is_better)


def equivalent(margin=RATE_MARGIN):
    """Ours and the rival's are equal within margin."""
    return Rule(EQUIVALENCE, margin)


def decide(ratios, rule):
    """(state, interval) of a claim from per-round ratios ours / the rival's;
    unresolved and None without any."""
    if not ratios:
        return UNRESOLVED, None
    iv = ratio_interval(ratios)
    return rule.judge(iv), iv


def claim(cid, text, ratios, rule):
    """A claim on per-round ratios: its id, text, kind, margin, state, the
    bound that decides it (threshold) and its interval."""
    st, iv = decide(ratios, rule)
    return {
        "id": cid,
        "text": text,
        **rule.as_dict(),
        "state": st,
        "threshold": rule.threshold(iv),
        "interval": iv.as_dict() if iv else None,
        "interval_text": describe(iv),
    }


def worst_state(states):
    """A claim over several parts: not met if one is, unresolved if one is, else met."""
    states = list(states)
    if NOT_MET in states:
        return NOT_MET
    if UNRESOLVED in states or not states:
        return UNRESOLVED
    return MET


def number(x):
    """x as a float if it is a number (not a bool), else None."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def median(xs):
    """The median of the values that are not None; None without any."""
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def spread_pct(values):
    """(max - min) / median of a figure's rounds, in %; None for fewer than
    two numbers (or a nested figure)."""
    xs = [number(v) for v in values if number(v) is not None]
    if len(xs) < 2 or not statistics.median(xs):
        return None
    return (max(xs) - min(xs)) / statistics.median(xs) * 100


def describe(interval):
    """An interval in words, or that nothing paired."""
    return interval.text() if interval else "no paired rounds"


def rank(ratios, seed=0):
    """For per-round ratios a/b: "first" if a leads, "second" if b does,
    else "tie". Named at RANK_LEVEL and beyond the noise band."""
    iv = ratio_interval(ratios, seed, RANK_LEVEL)
    if iv.n >= 2 and iv.low > 1 + NOISE_BAND:
        return "first"
    if iv.n >= 2 and iv.high < 1 / (1 + NOISE_BAND):
        return "second"
    return "tie"
