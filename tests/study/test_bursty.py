# SPDX-License-Identifier: MIT
"""The bursty-neighbour experiment's arithmetic: the plan, the scores, the
comparison with the better static strategy, and reaction times."""

import argparse
import os
import subprocess
import sys
import time

import pytest

from hybridio.adaptive.settle import settle_ms
from hybridio.common.errors import UsageError
from hybridio.study import bursty


def test_every_round_measures_its_own_references_in_a_shuffled_order():
    p = bursty.plan(["a", "b"], [50, 0], ["poll", "adaptive"], rounds=3, seed=1)
    for r in range(3):
        steps = [s[1:] for s in p if s[0] == r]
        assert ("io-alone", "a", None, "poll") in steps and ("neighbour-alone", None, 0, None) in steps
        assert len(steps) == 2 + 2 + 2 * 2 * 2 == bursty.steps(["a", "b"], [50, 0], ["poll", "adaptive"], 1)
    orders = [[s[1:] for s in p if s[0] == r] for r in range(3)]
    assert orders[0] != orders[1] or orders[1] != orders[2]
    for order in orders:  # the cells adaptive is compared with run next to each other
        blocks = [(t, b) for kind, t, b, _ in order if kind == "cell"]
        at = [i for i, s in enumerate(order) if s[0] == "cell"]
        for key in set(blocks):
            mine = [i for i, k in zip(at, blocks) if k == key]
            assert mine == list(range(mine[0], mine[0] + 2)), order
    assert bursty.plan(["a"], [0], ["poll"], 2, seed=1) == bursty.plan(["a"], [0], ["poll"], 2, seed=1)


def test_scores_are_relative_to_the_rounds_references():
    # The neighbour ran 300 ms of its 500 ms on; alone it ran 0.8 of its on-time.
    s = bursty.scores(
        {"iops": 50.0, "neighbour_cpu_ns": 300e6, "neighbour_on_ms": 500}, io_alone=100.0, share_alone=0.8
    )
    assert s == pytest.approx({"own": 0.5, "theirs": 0.75, "shared": 1.25})
    none = {"iops": 50.0, "neighbour_cpu_ns": 0, "neighbour_on_ms": 0}
    assert bursty.scores(none, io_alone=100.0, share_alone=None)["shared"] == 0.5


def test_the_neighbours_on_time_is_counted_within_a_window():
    n = bursty.Neighbour.__new__(bursty.Neighbour)
    n.transitions = [(1000, True), (1200, False), (1400, True), (1600, False), (1800, True)]
    assert n.on_ms(1000, 2000) == 600  # 200 + 200 + the last phase up to the window's end
    assert n.on_ms(1100, 1500) == 200  # parts of two phases
    assert n.on_ms(1250, 1350) == 0  # off all along
    n.transitions = [(1000, True)]  # always on
    assert n.on_ms(1500, 3500) == 2000


def test_without_a_neighbour_no_neighbour_reference_is_planned():
    p = bursty.plan(["a"], [bursty.NONE, 0], ["poll"], rounds=1)
    assert [s[1:] for s in p if s[1] == "neighbour-alone"] == [("neighbour-alone", None, 0, None)]
    assert bursty.steps(["a"], [bursty.NONE, 0], ["poll"], 1) == len(p) == 1 + 1 + 2


def test_an_extra_round_holds_its_references_and_every_strategy_of_one_pattern():
    got = bursty.extra_round("a", 50, ["poll", "adaptive"], r=4)
    assert sorted(s[1:] for s in got) == sorted(
        [("io-alone", "a", None, "poll"), ("neighbour-alone", None, 50, None)]
        + [("cell", "a", 50, s) for s in ("poll", "adaptive")]
    )
    assert all(s[0] == 4 for s in got)
    # Without a neighbour there is no neighbour to measure alone.
    assert sorted(s[1] for s in bursty.extra_round("a", bursty.NONE, ["poll"], r=0)) == ["cell", "io-alone"]


def test_measured_rounds_are_scored_against_their_own_references(monkeypatch):
    iops = iter([100.0, 50.0, 40.0, 80.0])  # round 0: alone, cell; round 1: cell, alone

    def measure(a, t, s, b, started=None):
        cpu = 0 if b is None else 100e6
        return {
            "iops": next(iops),
            "neighbour_cpu_ns": cpu,
            "neighbour_on_ms": 400,
            "job": {"read": {}, "job_runtime": 1},
        }

    monkeypatch.setattr(bursty, "measure", measure)
    monkeypatch.setattr(bursty, "neighbour_alone", lambda a, b: 1.0 if b == 50 else 0)
    m = bursty.Measured()
    a = bursty.Options(hio_bench="hio-bench", cpu=0, runtime=1, size="1g")
    # The cell runs before its round's I/O-alone reference in the second round.
    m.run(a, [(0, "io-alone", "t", None, "poll"), (0, "neighbour-alone", None, 50, None), (0, "cell", "t", 50, "poll")])
    m.run(a, [(1, "neighbour-alone", None, 50, None), (1, "cell", "t", 50, "poll"), (1, "io-alone", "t", None, "poll")])
    assert [r["scores"] for r in m.results] == [
        {"own": 0.5, "theirs": 0.25, "shared": 0.75},
        {"own": 0.5, "theirs": 0.25, "shared": 0.75},
    ]


def result(rnd, strategy, own, theirs, target="t", burst=50):
    return {
        "kind": "cell",
        "round": rnd,
        "target": target,
        "burst": burst,
        "strategy": strategy,
        "scores": {"own": own, "theirs": theirs, "shared": own + theirs},
    }


def test_adaptive_is_compared_round_by_round_with_the_better_static_strategy_by_its_objective():
    res = [
        result(0, "poll", 1.0, 0.5),
        result(0, "interrupt", 0.6, 0.8),
        result(0, "adaptive", 0.9, 0.7),
        result(0, "adaptive-own", 1.2, 0.1),
        result(1, "poll", 0.8, 0.5),
        result(1, "interrupt", 0.6, 0.9),
        result(1, "adaptive", 0.8, 0.8),
        result(1, "adaptive-own", 0.4, 0.9),
    ]
    (row,) = bursty.summarize(res, ["t"], [50])
    # shared: interrupt is the better static over the rounds (1.45 against poll's 1.4); adaptive 1.6 in both
    assert row["versus_best"]["adaptive"]["median"] == pytest.approx((1.6 / 1.4 + 1.6 / 1.5) / 2)
    # own: poll is the better static (0.9 against 0.6); adaptive-own 1.2 and 0.4 against 1.0 and 0.8
    v = row["versus_best"]["adaptive-own"]
    assert (v["min"], v["max"], v["n"]) == (pytest.approx(0.5), pytest.approx(1.2), 2)
    assert row["strategies"]["poll"]["shared"]["median"] == pytest.approx(1.4)
    said = bursty.verdict(row)
    # 1.14 and 1.07, or 1.2 and 0.5: two rounds cannot tell.
    assert any("adaptive scored 1.105" in s and ": met." not in s for s in said)
    assert any("adaptive-own scored 0.850" in s and ": unresolved." in s for s in said)
    assert row["versus_best"]["adaptive"]["state"] == "unresolved"
    assert row["versus_best"]["adaptive-own"]["state"] == "unresolved"
    assert row["versus_best"]["adaptive-own"]["gm_value"] == pytest.approx((1.2 * 0.5) ** 0.5)


def test_right_modes_take_near_ties_as_both_right():
    rows = bursty.summarize(
        [
            result(0, "poll", 0.5, 0.5, burst=0),
            result(0, "interrupt", 0.8, 0.7, burst=0),
            result(1, "poll", 0.5, 0.5, burst=0),
            result(1, "interrupt", 0.49, 0.52, burst=0),
        ],
        ["t"],
        [0],
    )
    # shared: poll 1.0 and 1.0, interrupt 1.5 and 1.01 -> medians 1.0 and 1.255; own: poll 0.5, interrupt 0.645
    assert bursty.right_modes(rows, "t") == {"shared": ("interrupt",), "own": ("interrupt",)}
    rows = bursty.summarize(
        [result(0, "poll", 0.5, 0.5, burst=0), result(0, "interrupt", 0.4, 0.61, burst=0)], ["t"], [0]
    )
    assert bursty.right_modes(rows, "t")["shared"] == ("poll", "interrupt")


def pts(*modes, step=1.0):
    return [{"t_ms": (i + 1) * step, "settled": m} for i, m in enumerate(modes)]


def test_settle_counts_from_the_change_to_the_first_sample_that_stays_right():
    p = pts("poll", "poll", "interrupt", "poll", "interrupt", "interrupt")
    assert settle_ms(p, 1000.5, 1006, ("interrupt",), 1000) == pytest.approx(4.5)
    assert settle_ms(p, 1000.5, 1003, ("interrupt",), 1000) == pytest.approx(2.5)
    assert settle_ms(p, 1000.5, 1002, ("interrupt",), 1000) is None
    assert settle_ms(p, 1000.5, 1006, ("poll", "interrupt"), 1000) == pytest.approx(0.5)


def test_reactions_follow_each_change_inside_the_run():
    points = pts(*(["interrupt"] * 8 + ["poll"] * 12), step=5.0)  # 5 .. 100 ms
    run = {
        "job": {"job_runtime": 100, "hybridio": {"start_unix_ms": 1000, "timeline": points}},
        "transitions": [(990, True), (1032, False), (1080, True)],
    }
    got = bursty.reactions(run, ("interrupt",), ("poll",))
    # the start at 990 falls before the run; the stop at 1032 settles at the 45 ms sample; the start at
    # 1080 never settles on interrupt before the run ends
    assert got == {"on": [None], "off": [pytest.approx(13.0)]}


def args(**kw):
    base = dict(
        hio_bench=__file__,
        bursts="50,0",
        strategies="poll,adaptive",
        repeats=1,
        runtime=2,
        cpu=0,
        targets="emu:pcie3",
        file="/tmp/f",
        numjobs=1,
    )
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.mark.parametrize(
    "kw, needle",
    [
        ({"bursts": "50,x"}, "'50,x'"),
        ({"bursts": "20000"}, "20000"),
        ({"strategies": "poll,spin"}, "'spin'"),
        ({"repeats": 0}, "--repeats"),
        ({"cpu": 4096}, "4096"),
        ({"bursts": "-2"}, "-2"),
        ({"numjobs": 0}, "--numjobs=0"),
    ],
)
def test_bad_input_names_the_value(kw, needle):
    with pytest.raises(UsageError, match=needle):
        bursty.resolve(args(**kw))


def test_the_neighbour_alternates_and_leaves_nothing_behind():
    with bursty.Neighbour(0, 20) as n:
        time.sleep(0.15)
        pid = n.proc.pid
        assert n.cpu_ns() > 0
    states = [on for _, on in n.transitions]
    assert len(states) >= 3 and states == [i % 2 == 0 for i in range(len(states))]
    assert not os.path.exists(f"/proc/{pid}/stat") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"


def test_bursty_verdicts_as_claims():
    res = [
        result(k, st, own, theirs)
        for k in range(3)
        for st, own, theirs in (("poll", 1.0, 0.5), ("interrupt", 0.6, 0.8), ("adaptive", 0.95 + k / 100, 0.6))
    ]
    rows = bursty.summarize(res, ["t"], [50])
    (c,) = bursty.claims(rows, "t")
    assert c["id"] == "bursty-50-adaptive" and c["load"] is None
    assert (c["kind"], c["margin"], c["threshold"]) == ("non_inferiority", 0.05, 0.95)
    assert c["state"] == "met" and c["interval"]["n"] == 3 and c["interval"]["ci95_low"] > 1.0
    assert "50 ms on / 50 ms off" in c["text"]
    assert c["compared"] == ["adaptive", "poll"]  # poll's shared score is the better static one
    assert bursty.claims(rows, "other") == []


def test_the_neighbour_dies_with_a_killed_study():
    """A study killed with SIGKILL runs no cleanup; its busy loop must not outlive it."""
    code = (
        "import time\n"
        "from hybridio.study.bursty import Neighbour\n"
        "n = Neighbour(0, 0).__enter__()\n"
        "print(n.proc.pid, flush=True)\n"
        "time.sleep(60)\n"
    )
    study = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    loop = int(study.stdout.readline())
    assert os.path.exists(f"/proc/{loop}")
    study.kill()
    study.wait()
    deadline = time.time() + 5
    while time.time() < deadline and os.path.exists(f"/proc/{loop}") and "Z" not in stat_state(loop):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{loop}") or "Z" in stat_state(loop), "the busy loop outlived the study"


def stat_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"
