# SPDX-License-Identifier: MIT
"""The intervals and verdicts: calibrated on simulated studies whose truth is known."""

import functools
import math
import random
import statistics

import numpy as np
import pytest

from hybridio.common import stats


def simulated_ratios(rng, true_ratio, spread, rounds):
    """Per-round ratios with log-normal noise of `spread` (sd of the log)."""
    return [true_ratio * math.exp(rng.gauss(0, spread)) for _ in range(rounds)]


@pytest.mark.parametrize("rounds", [3, 5, 12])
def test_the_interval_covers_the_truth_95_percent_of_the_time(rounds):
    rng = random.Random(rounds)
    studies, covered = 1000, 0
    for i in range(studies):
        iv = stats.ratio_interval(simulated_ratios(rng, 1.3, 0.15, rounds), seed=i)
        covered += iv.low <= 1.3 <= iv.high
    assert 0.93 <= covered / studies <= 0.97, f"{rounds} rounds: covered {covered / studies:.3f}"


def test_heavy_tailed_noise_is_still_covered_from_ten_rounds():
    # A disk whose hiccups make the log-noise heavy-tailed (Laplace), where
    # the bootstrap takes over from Student's t.
    rng = random.Random(7)
    studies, covered = 1000, 0
    for i in range(studies):
        xs = [1.3 * math.exp(rng.expovariate(1 / 0.1) * rng.choice((-1, 1))) for _ in range(12)]
        iv = stats.ratio_interval(xs, seed=i)
        covered += iv.low <= 1.3 <= iv.high
    assert covered / studies >= 0.90, f"covered {covered / studies:.3f}"


@pytest.mark.parametrize("rounds", [3, 5, 12])
@pytest.mark.parametrize("spread", [0.01, 0.1, 0.3])
def test_two_identical_strategies_tie(rounds, spread):
    rng = random.Random(100 + rounds)
    studies, ties = 1000, 0
    for i in range(studies):
        a = [10000 * math.exp(rng.gauss(0, spread)) for _ in range(rounds)]
        b = [10000 * math.exp(rng.gauss(0, spread)) for _ in range(rounds)]
        ties += stats.rank([x / y for x, y in zip(a, b)], seed=i) == "tie"
    assert ties / studies >= 0.95, f"{rounds} rounds, spread {spread}: tie in {ties / studies:.3f}"


def test_a_clear_lead_is_ranked():
    lead = [1.30, 1.28, 1.33, 1.31, 1.29]
    assert stats.rank(lead) == "first"
    assert stats.rank([1 / x for x in lead]) == "second"
    assert stats.rank([1.005, 1.006, 1.004, 1.005]) == "tie"  # sure, but within the noise band
    assert stats.rank([1.3]) == "tie"  # one round decides nothing


def iv(low, high, n=5):
    return stats.Interval((low + high) / 2, low, high, n, "t")


# Each kind's three outcomes, with the interval's deciding end just inside,
# exactly on and just outside its bound (margin 5%: bounds 0.95 and 1.05).
@pytest.mark.parametrize(
    "rule, low, high, state",
    [
        # superiority by 5%: the whole interval at or above 1.05
        (stats.superior(0.05), 1.05, 1.20, stats.MET),
        (stats.superior(0.05), 1.049, 1.20, stats.UNRESOLVED),
        (stats.superior(0.05), 0.90, 1.049, stats.NOT_MET),
        # superiority with no stated gain: simply above 1
        (stats.superior(), 1.0, 1.1, stats.MET),
        (stats.superior(), 0.99, 1.1, stats.UNRESOLVED),
        (stats.superior(), 0.9, 0.999, stats.NOT_MET),
        # non-inferiority at 5%: the whole interval at or above 0.95
        (stats.non_inferior(0.05), 0.95, 1.02, stats.MET),
        (stats.non_inferior(0.05), 0.949, 1.02, stats.UNRESOLVED),
        (stats.non_inferior(0.05), 0.90, 0.949, stats.NOT_MET),
        # equivalence within 5%: the whole interval inside [0.95, 1.05]
        (stats.equivalent(0.05), 0.95, 1.05, stats.MET),
        (stats.equivalent(0.05), 0.97, 1.051, stats.UNRESOLVED),
        (stats.equivalent(0.05), 0.949, 1.03, stats.UNRESOLVED),
        (stats.equivalent(0.05), 1.051, 1.10, stats.NOT_MET),
        (stats.equivalent(0.05), 0.85, 0.949, stats.NOT_MET),
        # less is better (CPU per I/O): the bounds mirror around 1
        (stats.non_inferior(0.03, lower_is_better=True), 0.90, 1.03, stats.MET),
        (stats.non_inferior(0.03, lower_is_better=True), 0.90, 1.031, stats.UNRESOLVED),
        (stats.non_inferior(0.03, lower_is_better=True), 1.031, 1.10, stats.NOT_MET),
        (stats.superior(0.05, lower_is_better=True), 0.80, 0.95, stats.MET),
        (stats.superior(0.05, lower_is_better=True), 0.80, 0.951, stats.UNRESOLVED),
        (stats.superior(0.05, lower_is_better=True), 0.951, 1.10, stats.NOT_MET),
    ],
)
def test_each_kind_decides_at_its_bound(rule, low, high, state):
    assert rule.judge(iv(low, high)) == state


@pytest.mark.parametrize("rule", [stats.superior(0.05), stats.non_inferior(0.05), stats.equivalent(0.05)])
def test_one_round_decides_nothing(rule):
    assert rule.judge(iv(1.0, 1.0, n=1)) == stats.UNRESOLVED


def test_a_rule_refuses_an_unknown_kind_or_a_bad_margin():
    with pytest.raises(ValueError, match="'parity'"):
        stats.Rule("parity", 0.05)
    with pytest.raises(ValueError, match="-0.01"):
        stats.non_inferior(-0.01)
    with pytest.raises(ValueError, match="1.5"):
        stats.equivalent(1.5)
    assert stats.superior(1.0).band[0] == 2.0  # a gain may be larger than the whole: "at least twice"


def test_a_claim_carries_its_kind_margin_and_bound():
    c = stats.claim("x", "ours against theirs", [0.99, 1.01, 1.0, 0.98], stats.non_inferior(stats.RATE_MARGIN))
    assert (c["kind"], c["margin"], c["better"], c["threshold"]) == ("non_inferiority", 0.05, "higher", 0.95)
    assert c["state"] == stats.MET and "non-inferiority at 5% (>= 0.95)" == c["rule"]
    c = stats.claim("y", "CPU per I/O", [1.0, 1.01], stats.non_inferior(stats.COUNT_MARGIN, lower_is_better=True))
    assert (c["better"], c["threshold"]) == ("lower", pytest.approx(1.03))
    e = stats.equivalent(0.05)
    assert e.threshold(iv(0.9, 0.99)) == 0.95 and e.threshold(iv(1.01, 1.1)) == 1.05
    assert stats.claim("z", "no rounds", [], e)["state"] == stats.UNRESOLVED


def test_the_interval_narrows_with_rounds():
    rng = random.Random(3)
    xs = simulated_ratios(rng, 1.0, 0.2, 40)
    w5 = stats.ratio_interval(xs[:5])
    w40 = stats.ratio_interval(xs)
    assert w40.high / w40.low < w5.high / w5.low
    assert w5.method == "t" and w40.method == "bootstrap"


def test_the_geometric_mean_treats_double_and_half_alike():
    iv = stats.ratio_interval([2.0, 0.5])
    assert iv.value == pytest.approx(1.0)


def test_figures_keep_their_median_inside_the_interval():
    iv = stats.figure_interval([14200, 21800, 18000, 16500, 19900])
    assert iv.value == 18000
    assert iv.low <= 18000 <= iv.high
    assert stats.figure_interval([None, None]) is None
    assert stats.figure_interval([0.0, 0.1, 0.05]).low <= 0.05  # shares may be 0: no logs then


def test_bad_ratios_are_refused_by_value():
    with pytest.raises(ValueError, match="-1"):
        stats.ratio_interval([1.0, -1.0])
    with pytest.raises(ValueError, match="no ratios"):
        stats.ratio_interval([])


def test_t_quantiles():
    # Against the printed tables.
    assert stats.t_quantile(0.975, 1) == pytest.approx(12.706, abs=0.002)
    assert stats.t_quantile(0.975, 2) == pytest.approx(4.303, abs=0.001)
    assert stats.t_quantile(0.975, 4) == pytest.approx(2.776, abs=0.001)
    assert stats.t_quantile(0.975, 30) == pytest.approx(2.042, abs=0.001)
    assert stats.t_quantile(0.9875, 4) == pytest.approx(3.495, abs=0.002)
    assert stats.t_quantile(0.975, 10**5) == pytest.approx(1.960, abs=0.001)
    assert stats.t_quantile(0.5, 3) == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError, match="0"):
        stats.t_quantile(0.975, 0)
    with pytest.raises(ValueError, match="1.5"):
        stats.t_quantile(1.5, 3)


@functools.lru_cache(maxsize=None)
def t_quantile_by_simpson(p, df):
    """The quantile as stats computed it before scipy: bisection on the
    distribution function, Simpson's rule on the density."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def cdf(x, steps=2000):
        h = x / steps
        f = [c * (1 + (k * h) ** 2 / df) ** (-(df + 1) / 2) for k in range(steps + 1)]
        return 0.5 + h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        lo, hi = hi, hi * 2
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
    return (lo + hi) / 2


# The levels the studies use (LEVEL's and RANK_LEVEL's two-sided quantiles)
# and some around them; above 0.995 with one degree of freedom the quantile
# lies in the far tail, where 2000 Simpson steps were the less accurate one.
@pytest.mark.parametrize("p", [0.9, 0.975, 0.9875, 0.995])
@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 9, 12, 20, 30, 49, 100, 10**5])
def test_t_quantiles_match_the_hand_integrated_ones(p, df):
    assert stats.t_quantile(p, df) == pytest.approx(t_quantile_by_simpson(p, df), abs=1e-6)


def interval_by_simpson(logs, level, seed=0):
    """stats' interval on the mean of logs, with the hand-integrated quantile."""
    n, mean = len(logs), statistics.fmean(logs)
    q = t_quantile_by_simpson(1 - (1 - level) / 2, n - 1)
    if n < stats.BOOTSTRAP_FROM:
        half = q * statistics.stdev(logs) / math.sqrt(n)
        return mean - half, mean + half
    tail = 0.5 * math.erfc(math.sqrt(n / (n - 1)) * q / math.sqrt(2))
    data = np.asarray(logs)
    means = data[np.random.default_rng(seed).integers(0, n, size=(stats.RESAMPLES, n))].mean(axis=1)
    return tuple(float(x) for x in np.quantile(means, [tail, 1 - tail]))


@pytest.mark.parametrize("rounds", [2, 3, 5, 9, 10, 12, 40])
@pytest.mark.parametrize("level", [stats.LEVEL, stats.RANK_LEVEL])
def test_intervals_match_those_of_the_hand_integrated_quantile(rounds, level):
    xs = simulated_ratios(random.Random(rounds), 1.1, 0.1, rounds)
    low, high = interval_by_simpson([math.log(x) for x in xs], level)
    iv = stats.ratio_interval(xs, level=level)
    assert (iv.low, iv.high) == pytest.approx((math.exp(low), math.exp(high)), abs=1e-6)
