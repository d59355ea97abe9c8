# SPDX-License-Identifier: MIT
"""The intervals and verdicts: calibrated on simulated studies whose truth is known."""

import math
import random

import pytest

from hybridio import stats


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


def test_verdicts_read_the_whole_interval():
    assert stats.judge(stats.Interval(1.10, 1.02, 1.18, 5, "t"), 0.95) == stats.MET
    assert stats.judge(stats.Interval(0.80, 0.70, 0.90, 5, "t"), 0.95) == stats.NOT_MET
    assert stats.judge(stats.Interval(0.96, 0.90, 1.02, 5, "t"), 0.95) == stats.UNRESOLVED
    # On the threshold counts as meeting it.
    assert stats.judge(stats.Interval(1.0, 0.95, 1.05, 5, "t"), 0.95) == stats.MET
    # One round has no interval: nothing is decided from it.
    assert stats.judge(stats.Interval(2.0, 2.0, 2.0, 1, "single"), 0.95) == stats.UNRESOLVED


def test_a_band_is_met_only_from_inside_it():
    def within(low, high, n=5):
        return stats.judge_within(stats.Interval((low + high) / 2, low, high, n, "t"), 0.95, 1.05)

    assert within(0.97, 1.03) == stats.MET
    assert within(0.95, 1.05) == stats.MET
    assert within(1.02, 1.08) == stats.UNRESOLVED
    assert within(0.90, 0.97) == stats.UNRESOLVED
    assert within(0.80, 1.20) == stats.UNRESOLVED
    assert within(1.06, 1.10) == stats.NOT_MET
    assert within(0.85, 0.94) == stats.NOT_MET
    assert within(1.0, 1.0, n=1) == stats.UNRESOLVED


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
