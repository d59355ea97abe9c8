# SPDX-License-Identifier: MIT
"""The timeline experiment's arithmetic: settle times and the right modes."""

from hybridio.adaptive.settle import settle_ms
from hybridio.study.timeline import best_static_modes, findings


def pts(*modes, step=100):
    return [{"t_ms": (i + 1) * step, "iops": 1.0, "settled": m} for i, m in enumerate(modes)]


def test_settles_at_the_first_sample_that_stays_right():
    p = pts("poll", "poll", "interrupt", "interrupt", "interrupt")
    assert settle_ms(p, 150, 500, ("interrupt",)) == 150  # the sample at 300 ms


def test_a_relapse_restarts_the_clock():
    p = pts("interrupt", "poll", "interrupt", "interrupt")
    assert settle_ms(p, 50, 400, ("interrupt",)) == 250


def test_never_settling_is_none():
    assert settle_ms(pts("poll", "poll"), 0, 200, ("interrupt",)) is None
    assert settle_ms(pts("poll"), 500, 900, ("poll",)) is None  # no sample after the change


def test_samples_after_the_phase_do_not_count():
    p = pts("interrupt", "interrupt", "poll", "poll")
    assert settle_ms(p, 0, 200, ("interrupt",)) == 100


def row(strategy, load, iops, ops=None, solo=None):
    return {
        "experiment": "contention",
        "target": "t",
        "strategy": strategy,
        "corunner_load_pct": load,
        "iops": iops,
        "corunner_ops_per_s": ops,
        "corunner_solo_ops_per_s": solo,
    }


ROWS = [
    row("poll", 0, 100),
    row("interrupt", 0, 70),
    row("adaptive", 0, 99),
    row("poll", 100, 40, 40, 100),
    row("interrupt", 100, 55, 80, 100),
    row("adaptive", 100, 60, 90, 100),
]


def test_the_right_modes_are_the_best_static_ones():
    assert best_static_modes(ROWS, "t") == ("poll", "interrupt")
    assert best_static_modes(ROWS, "other") == (None, None)


def test_findings_say_the_settle_times():
    run = {
        "points": pts("poll", "poll", "interrupt", "interrupt", "poll", "poll"),
        "on_ms": 150,
        "off_ms": 450,
        "end_ms": 600,
    }
    f, said = findings({"t": {"adaptive": run}}, ROWS, "t")
    assert f == {"right_mode_alone": "poll", "right_mode_loaded": "interrupt", "settle_on_ms": 150, "settle_off_ms": 50}
    assert "settled within 150 ms on interrupt" in said[0] and "within 50 ms on poll" in said[0]
    assert findings({}, ROWS, "t") == ({}, [])
