# SPDX-License-Identifier: MIT
import pytest

from hybridio.common import stats
from hybridio.study.matrix import Cell
from hybridio.study.verdict import (
    adaptive_overall,
    noise,
    paired_verdict,
    progress_agreement,
    round_scores,
    score,
    verdict,
)


def row(strategy, load, iops, ops=None, solo_ops=None, target="t"):
    return {
        "experiment": "contention",
        "target": target,
        "strategy": strategy,
        "corunner_load_pct": load,
        "iops": iops,
        "corunner_ops_per_s": ops,
        "corunner_solo_ops_per_s": solo_ops,
    }


# Polling wins alone and at light load, loses from 25% on: the thesis's shape.
THESIS = [
    row("poll", 0, 100),
    row("interrupt", 0, 70),
    row("poll", 10, 95, 8, 10),
    row("interrupt", 10, 65, 9, 10),
    row("poll", 25, 60, 10, 25),
    row("interrupt", 25, 60, 22, 25),
    row("poll", 100, 40, 40, 100),
    row("interrupt", 100, 55, 80, 100),
]


def test_score_adds_both_tenants_progress():
    assert score(row("poll", 0, 50), 100) == 0.5
    assert score(row("poll", 50, 50, 30, 60), 100) == 1.0


def test_thesis_shaped_data():
    v = verdict(THESIS, "t")
    assert v["winner_alone"] == "poll"
    assert v["winners"] == {0: "poll", 10: "poll", 25: "interrupt", 100: "interrupt"}
    assert v["polling_stops_paying_at"] == 25
    assert v["poll_beats_interrupt_alone"] and v["poll_starves_corunner_at_top_load"]
    text = " ".join(v["sentences"])
    assert "stops paying at 25%" in text and "As in the thesis" in text and "Unlike" not in text


def test_disagreement_is_said_not_hidden():
    rows = [
        row("poll", 0, 60),
        row("interrupt", 0, 70),
        row("poll", 100, 40, 90, 100),
        row("interrupt", 100, 55, 80, 100),
    ]
    v = verdict(rows, "t")
    assert not v["poll_beats_interrupt_alone"] and not v["poll_starves_corunner_at_top_load"]
    assert sum("Unlike the thesis" in s for s in v["sentences"]) == 2


def test_polling_that_always_pays():
    rows = [row("poll", 0, 100), row("interrupt", 0, 50), row("poll", 50, 90, 45, 50), row("interrupt", 50, 45, 40, 50)]
    v = verdict(rows, "t")
    assert v["polling_stops_paying_at"] is None
    assert any("never stops paying" in s for s in v["sentences"])


def test_other_targets_and_experiments_are_ignored():
    rows = THESIS + [row("poll", 0, 1, target="other"), {**row("interrupt", 0, 10**6), "experiment": "scaling"}]
    assert verdict(rows, "t")["winner_alone"] == "poll"


def test_no_solo_run_no_verdict():
    v = verdict([row("poll", 50, 1, 1, 1)], "t")
    assert "no verdict" in v["sentences"][0]


def test_adaptive_against_the_best_static_strategy():
    rows = THESIS + [
        row("adaptive", 0, 99),
        row("adaptive", 10, 96, 9, 10),
        row("adaptive", 25, 61, 22, 25),
        row("adaptive", 100, 56, 80, 100),
    ]
    a = verdict(rows, "t")["adaptive"]
    assert a["per_load"][0] == {"ratio": 0.99, "best_static": "poll"}
    assert a["per_load"][100]["best_static"] == "interrupt"
    assert a["per_load"][100]["ratio"] == (0.56 + 0.8) / (0.55 + 0.8)
    assert a["beats_every_static_on_average"]
    assert a["mean_score"]["adaptive"] > a["mean_score"]["poll"]
    text = verdict(rows, "t")["sentences"][-1]
    assert text.startswith("Adaptive scored 0.99–") and "lowest at 0%, against poll" in text


def test_adaptive_that_loses_says_so():
    rows = THESIS + [row("adaptive", ld, 10, 1, 10) if ld else row("adaptive", 0, 10) for ld in (0, 10, 25, 100)]
    v = verdict(rows, "t")
    assert not v["adaptive"]["beats_every_static_on_average"]
    assert "does not beat every static strategy" in v["sentences"][-1]


def test_no_adaptive_rows_no_adaptive_verdict():
    assert verdict(THESIS, "t")["adaptive"] == {}


def test_adaptive_overall_averages_every_cell_of_every_target():
    rows = THESIS + [
        row("adaptive", 0, 99),
        row("adaptive", 10, 96, 9, 10),
        row("adaptive", 25, 61, 22, 25),
        row("adaptive", 100, 56, 80, 100),
    ]
    other = [{**r, "target": "u"} for r in rows]
    o = adaptive_overall(rows + other)
    assert o["beats_every_static"]
    assert set(o["mean_score"]) == {"poll", "interrupt", "adaptive"}
    assert "Over all 8 contention cells (2 targets)" in o["sentence"]
    assert adaptive_overall(THESIS) is None


# ---- the paired verdict: rounds, intervals, met / not met / unresolved ----


def run(strategy, load, iops, repeat, ops=None, target="t"):
    return {
        "cell": Cell("contention", target, strategy, 1, 1, load, "limited"),
        "repeat": repeat,
        "io": {"iops": iops},
        "corunner_ops_per_s": ops,
    }


def rounds(per_round):
    """Runs from {(strategy, load): [(iops, co-runner ops/s) per round]}."""
    return [run(st, ld, iops, k, ops) for (st, ld), xs in per_round.items() for k, (iops, ops) in enumerate(xs)]


def test_each_round_is_scored_against_its_own_references():
    # The device is twice as fast in round 1: scores stay the same, as they should.
    runs = rounds(
        {
            ("poll", 0): [(100, None), (200, None)],
            ("interrupt", 0): [(50, None), (100, None)],
            ("poll", 50): [(50, 20), (100, 40)],
        }
    )
    s = round_scores(runs, {50: {0: 40.0, 1: 80.0}}, "t")
    assert s[("interrupt", 0)] == {0: (0.5, 50, None), 1: (0.5, 100, None)}
    assert s[("poll", 50)][0][0] == s[("poll", 50)][1][0] == 1.0  # 0.5 of the best alone + half the co-runner's


def test_a_run_without_its_rounds_reference_is_not_scored():
    runs = rounds({("poll", 0): [(100, None)], ("poll", 50): [(50, 20), (60, 25)]})
    s = round_scores(runs, {50: {0: 40.0}}, "t")  # round 1 has neither poll alone nor the co-runner alone
    assert set(s[("poll", 50)]) == {0}


def study(adaptive_at_50, rounds_n=5):
    drift = [1.0, 1.2, 0.9, 1.1, 0.95][:rounds_n]  # the device drifts from round to round
    per = {
        ("poll", 0): [(100 * d, None) for d in drift],
        ("interrupt", 0): [(70 * d, None) for d in drift],
        ("adaptive", 0): [(97 * d, None) for d in drift],
        ("poll", 50): [(60 * d, 20) for d in drift],
        ("interrupt", 50): [(45 * d, 38) for d in drift],
        ("adaptive", 50): [(x * d, 37) for x, d in zip(adaptive_at_50, drift)],
    }
    return paired_verdict(rounds(per), {50: dict.fromkeys(range(rounds_n), 40.0)}, "t")


def test_paired_claims_with_their_intervals():
    v = study([46, 45, 47, 46, 45])
    by = {c["id"]: c for c in v["claims"]}
    assert by["poll-beats-interrupt-alone"]["state"] == stats.MET
    assert by["poll-starves-corunner"]["state"] == stats.MET
    assert by["adaptive-0"]["state"] == stats.MET and by["adaptive-0"]["best_static"] == "poll"
    assert by["adaptive-50"]["best_static"] == "interrupt" and by["adaptive-50"]["state"] == stats.MET
    assert by["adaptive-50"]["interval"]["n"] == 5
    # Each claim names the strategies it compares: an extra round for it runs those.
    assert by["adaptive-50"]["compared"] == ["adaptive", "interrupt"]
    assert (
        by["poll-starves-corunner"]["compared"] == by["poll-beats-interrupt-alone"]["compared"] == ["poll", "interrupt"]
    )
    # At 50% adaptive is within 1% of interrupt: a tie, not a win for either.
    assert v["winners"] == {0: "poll", 50: "tie"}
    assert v["counts"] == {"met": 4, "not_met": 0, "unresolved": 0}
    assert v["poll_rank"] == {0: "first", 50: "second"}


def test_adaptive_far_behind_is_not_met_and_a_noisy_one_unresolved():
    assert {c["id"]: c["state"] for c in study([10, 11, 10, 12, 10])["claims"]}["adaptive-50"] == stats.NOT_MET
    noisy = {c["id"]: c for c in study([20, 48, 25, 50, 44])["claims"]}["adaptive-50"]
    assert noisy["state"] == stats.UNRESOLVED
    assert noisy["interval"]["ci95_low"] < 0.95 <= noisy["interval"]["ci95_high"]


def test_close_strategies_tie_rather_than_win():
    per = {("poll", 0): [(100 + k % 2, None) for k in range(5)], ("interrupt", 0): [(100.5, None)] * 5}
    assert paired_verdict(rounds(per), {}, "t")["winners"] == {0: "tie"}


def test_one_round_decides_nothing():
    v = study([46], rounds_n=1)
    assert all(c["state"] == stats.UNRESOLVED for c in v["claims"])
    assert all(c["interval_text"].endswith("no interval)") for c in v["claims"])


def test_noise_says_the_spread_alone_and_the_drift():
    runs = rounds(
        {
            ("poll", 0): [(100, None), (120, None), (90, None)],
            ("interrupt", 0): [(70, None), (72, None), (63, None)],
            ("poll", 50): [(50, 10)] * 3,
        }
    )
    n = noise(runs, "t")
    assert n["spread_alone"]["poll"] == pytest.approx(0.3)
    assert n["spread_alone"]["interrupt"] == pytest.approx(9 / 70)
    assert n["drift"]["value"] == pytest.approx(0.9)  # both ended 10% below where they began
    assert "by 13%–30%" in n["sentence"] and "widest: poll" in n["sentence"] and "moved -10%" in n["sentence"]
    assert noise(rounds({("poll", 0): [(100, None)]}), "t") is None


def test_a_strategy_that_did_nothing_in_a_round_does_not_break_the_verdict():
    per = {
        ("poll", 0): [(1000, None)] * 3,
        ("interrupt", 0): [(900, None)] * 3,
        ("adaptive", 0): [(0, None), (1000, None), (990, None)],
    }
    v = paired_verdict(rounds(per), {}, "t")
    assert {c["id"]: c["state"] for c in v["claims"]}["adaptive-0"] == stats.UNRESOLVED


def test_a_starved_co_runner_is_the_strongest_evidence_not_none():
    per = {
        ("poll", 0): [(100, None)] * 3,
        ("interrupt", 0): [(60, None)] * 3,
        ("poll", 100): [(50, 0.0)] * 3,
        ("interrupt", 100): [(40, 500.0)] * 3,
    }
    v = paired_verdict(rounds(per), {100: dict.fromkeys(range(3), 1000.0)}, "t")
    starves = {c["id"]: c for c in v["claims"]}["poll-starves-corunner"]
    assert starves["state"] == stats.MET and starves["interval"]["value"] < 0.01


def test_the_sentences_follow_the_rounds_where_there_are_rounds():
    p = study([46, 45, 47, 46, 45])
    rows = [
        row("poll", 0, 100),
        row("interrupt", 0, 70),
        row("adaptive", 0, 97),
        row("poll", 50, 60, 20, 40),
        row("interrupt", 50, 45, 38, 40),
        row("adaptive", 50, 46, 37, 40),
    ]
    v = verdict(rows, "t", p)
    assert v["winners"] == {0: "poll", 50: "tie"} and v["polling_stops_paying_at"] == 50
    text = " ".join(v["sentences"])
    assert "Alone, poll gives the most IOPS (paired by round" in text and "50%: tie" in text
    assert "As in the thesis, polling beats interrupts" in text
    noisy = dict(p, claims=[dict(c, state=stats.UNRESOLVED) for c in p["claims"]])
    text = " ".join(verdict(rows, "t", noisy)["sentences"])
    assert "Undecided here whether polling beats interrupts" in text and "As in the thesis" not in text


def test_the_score_can_take_the_co_runners_cpu_and_the_two_measures_are_compared():
    runs = [
        dict(r, corunner_cpu=0.5 if r["cell"].load_pct else None)
        for r in rounds({("poll", 0): [(100, None)] * 3, ("poll", 50): [(50, 20.0), (50, 30.0), (50, 25.0)]})
    ]
    cpu_alone = {50: dict.fromkeys(range(3), 0.5)}
    ops_alone = {50: dict.fromkeys(range(3), 25.0)}
    s = round_scores(runs, cpu_alone, "t", "corunner_cpu")
    assert [v[0] for v in s[("poll", 50)].values()] == [1.5, 1.5, 1.5]  # steady by CPU...
    s = round_scores(runs, ops_alone, "t")
    assert [v[0] for v in s[("poll", 50)].values()] == [1.3, 1.7, 1.5]  # ...not by bogo ops
    a = progress_agreement(runs, {"corunner_cpu": cpu_alone, "corunner_ops_per_s": ops_alone}, "t")
    assert a["runs"] == 3 and a["p90_disagreement"] == pytest.approx(0.2)  # 1/0.8, 1/1.2, 1: |log| 0.22, 0.18, 0
    assert "agree within 20%" in a["sentence"]
    assert progress_agreement(runs, {"corunner_cpu": {}, "corunner_ops_per_s": ops_alone}, "t") is None
