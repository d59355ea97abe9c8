# SPDX-License-Identifier: MIT
"""The extra rounds: the budget's parsing, which claim is measured again, and the round's cells."""

import math
import random

import pytest

from hybridio.common import rounds, stats
from hybridio.common.errors import UsageError
from hybridio.study import matrix, verdict
from hybridio.study.matrix import Cell


@pytest.mark.parametrize("text, seconds", [("0", 0), ("90s", 90), ("90", 90), ("3m", 180), ("1.5m", 90)])
def test_budgets(text, seconds):
    assert rounds.parse_budget(text) == seconds


@pytest.mark.parametrize("text", ["soon", "-1m", "3h", "", "25h"])
def test_bad_budgets_name_the_value(text):
    with pytest.raises(UsageError, match=repr(text).replace("(", r"\(")):
        rounds.parse_budget(text)


def claim(cid, load, state, value, low, high, threshold=0.95, n=3):
    return {
        "id": cid,
        "load": load,
        "state": state,
        "threshold": threshold,
        "interval": {"value": value, "ci95_low": low, "ci95_high": high, "n": n, "ci_method": "t"},
    }


def candidates(by_target, round_s=8.0):
    return [((t, c["load"]), c, c["threshold"], round_s) for t, cs in by_target.items() for c in cs]


def test_the_claim_most_likely_to_resolve_per_second_goes_first():
    by_target = {
        "emu:pcie3": [claim("adaptive-50", 50, stats.MET, 1.0, 0.99, 1.01)],
        "file": [
            # On its threshold with a tight spread after 10 rounds: however
            # wide its interval against its distance (infinitely), more rounds
            # would not decide it.
            claim("adaptive-10", 10, stats.UNRESOLVED, 0.95, 0.93, 0.97, n=10),
            # Three scattered rounds above it: a few more are likely to decide.
            claim("adaptive-50", 50, stats.UNRESOLVED, 1.02, 0.91, 1.14),
            claim("poll-beats-interrupt-alone", 0, stats.NOT_MET, 0.8, 0.7, 0.9, 1.0),
        ],
    }
    key, c, k, p = rounds.next_to_resolve(candidates(by_target), 120)
    assert (key, c["id"]) == (("file", 50), "adaptive-50") and k >= 1 and rounds.MIN_CHANCE <= p <= 1
    hopeless = [x for x in candidates(by_target) if x[1]["id"] == "adaptive-10"]
    assert rounds.next_to_resolve(hopeless, 120) is None


def test_a_cheaper_round_goes_first_and_one_that_does_not_fit_waits():
    a = claim("adaptive-50", 50, stats.UNRESOLVED, 1.02, 0.91, 1.14)
    b = claim("adaptive-25", 25, stats.UNRESOLVED, 1.02, 0.91, 1.14)
    got = rounds.next_to_resolve([(("file", 50), a, 0.95, 20.0), (("file", 25), b, 0.95, 8.0)], 120)
    assert got[0] == ("file", 25)
    assert rounds.next_to_resolve([(("file", 50), a, 0.95, 20.0)], 19.0) is None


def test_one_round_goes_first_and_a_claim_that_pairs_nothing_is_left_alone():
    one = claim("adaptive-0", 0, stats.UNRESOLVED, 1.0, 1.0, 1.0, n=1)
    by_target = {
        "file": [
            claim("adaptive-50", 50, stats.UNRESOLVED, 0.96, 0.85, 1.08),
            one,
            dict(claim("adaptive-10", 10, stats.UNRESOLVED, 1, 1, 1), interval=None),
        ]
    }
    assert rounds.next_to_resolve(candidates(by_target), 120)[0] == ("file", 0)
    assert rounds.next_to_resolve(candidates({"file": [by_target["file"][2]]}), 120) is None


def test_nothing_unresolved_nothing_to_repeat():
    assert (
        rounds.next_to_resolve(candidates({"file": [claim("adaptive-50", 50, stats.MET, 1.0, 0.99, 1.01)]}), 60) is None
    )
    assert rounds.next_to_resolve([], 60) is None


RULE = stats.non_inferior(0.05)


@pytest.mark.parametrize("true_ratio, spread, extra", [(0.99, 0.05, 3), (1.0, 0.08, 8), (0.97, 0.03, 5)])
def test_the_projected_chance_matches_how_often_more_rounds_resolve(true_ratio, spread, extra):
    # Simulated studies: 3 rounds, then `extra` more. The projection from the
    # first 3 rounds' interval, averaged over the studies, against how many
    # of those left unresolved were decided by the extra rounds.
    rng = random.Random(7)
    predicted, decided, tried = 0.0, 0, 0
    for _ in range(1500):
        logs = [math.log(true_ratio) + rng.gauss(0, spread) for _ in range(3 + extra)]
        first = stats.ratio_interval([math.exp(x) for x in logs[:3]])
        if RULE.judge(first) != stats.UNRESOLVED:
            continue
        tried += 1
        predicted += rounds.chance(first, 0.95, extra)
        decided += RULE.judge(stats.ratio_interval([math.exp(x) for x in logs])) != stats.UNRESOLVED
    assert tried > 300
    assert predicted / tried == pytest.approx(decided / tried, abs=0.12)


def test_a_round_holds_what_the_claim_compares_and_its_references_alone():
    cells = [
        Cell("contention", t, s, 1, 1, ld, "limited")
        for t in ("file", "emu:pcie4")
        for s in ("poll", "interrupt", "hybrid", "adaptive")
        for ld in (0, 50, 100)
    ] + [Cell("scaling", "file", "poll", 2, 1, 0, "all")]
    got = matrix.extra_round(cells, "file", 50, 1, ["adaptive", "poll"], ["poll"])
    assert sorted((c.strategy, c.load_pct) for c in got) == [("adaptive", 50), ("poll", 0), ("poll", 50)]
    assert all(c.target == "file" and c.experiment == "contention" for c in got)
    # Alone, the claim's strategies are measured beside the references.
    got = matrix.extra_round(cells, "file", 0, 1, ["poll", "interrupt"], ["poll", "adaptive"])
    assert sorted(c.strategy for c in got) == ["adaptive", "interrupt", "poll"]
    assert {c.load_pct for c in got} == {0}


def test_the_references_alone_are_the_strategies_that_were_best_alone_in_a_round():
    def run(strategy, load, repeat, iops, target="file"):
        return {
            "cell": Cell("contention", target, strategy, 1, 1, load, "limited"),
            "repeat": repeat,
            "io": {"iops": iops},
        }

    runs = [
        run("poll", 0, 0, 100),
        run("adaptive", 0, 0, 90),
        run("interrupt", 0, 0, 60),
        run("poll", 0, 1, 95),
        run("adaptive", 0, 1, 99),
        run("interrupt", 0, 1, 70),
        run("interrupt", 50, 1, 500),  # not alone
        run("interrupt", 0, 2, 900, target="emu:pcie4"),  # another target
    ]
    assert verdict.best_alone(runs, "file") == ["adaptive", "poll"]
