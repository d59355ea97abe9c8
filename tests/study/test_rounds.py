# SPDX-License-Identifier: MIT
"""The extra rounds: the budget's parsing, which claim is measured again, and the round's cells."""

import pytest

from hybridio import rounds, stats
from hybridio.errors import UsageError
from hybridio.matrix import Cell


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


def test_the_most_uncertain_unresolved_claim_goes_first():
    by_target = {
        "emu:pcie3": [claim("adaptive-50", 50, stats.MET, 1.0, 0.99, 1.01)],
        "file": [
            claim("adaptive-10", 10, stats.UNRESOLVED, 1.10, 0.90, 1.30),  # far above 0.95: nearly resolved
            claim("adaptive-50", 50, stats.UNRESOLVED, 0.96, 0.85, 1.08),  # on the threshold: most uncertain
            claim("poll-beats-interrupt-alone", 0, stats.NOT_MET, 0.8, 0.7, 0.9, 1.0),
        ],
    }
    target, load, c = rounds.most_uncertain(by_target)
    assert (target, load, c["id"]) == ("file", 50, "adaptive-50")


def test_one_round_is_the_most_uncertain_and_a_claim_that_pairs_nothing_is_left_alone():
    one = claim("adaptive-0", 0, stats.UNRESOLVED, 1.0, 1.0, 1.0, n=1)
    by_target = {
        "file": [
            claim("adaptive-50", 50, stats.UNRESOLVED, 0.96, 0.85, 1.08),
            one,
            dict(claim("adaptive-10", 10, stats.UNRESOLVED, 1, 1, 1), interval=None),
        ]
    }
    assert rounds.most_uncertain(by_target)[1] == 0
    assert rounds.most_uncertain({"file": [by_target["file"][2]]}) is None


def test_nothing_unresolved_nothing_to_repeat():
    assert rounds.most_uncertain({"file": [claim("adaptive-50", 50, stats.MET, 1.0, 0.99, 1.01)]}) is None
    assert rounds.most_uncertain({}) is None


def test_a_round_holds_the_load_and_its_references_alone():
    cells = [
        Cell("contention", t, s, 1, 1, ld, "limited")
        for t in ("file", "emu:pcie4")
        for s in ("poll", "interrupt")
        for ld in (0, 50, 100)
    ] + [Cell("scaling", "file", "poll", 2, 1, 0, "all")]
    got = rounds.group(cells, "file", 50, seed=1)
    assert sorted((c.strategy, c.load_pct) for c in got) == [
        ("interrupt", 0),
        ("interrupt", 50),
        ("poll", 0),
        ("poll", 50),
    ]
    assert all(c.target == "file" and c.experiment == "contention" for c in got)
    assert len(rounds.group(cells, "file", 0, seed=1)) == 2
