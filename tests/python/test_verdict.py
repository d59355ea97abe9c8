from hybridio.verdict import adaptive_overall, score, verdict


def row(strategy, load, iops, ops=None, solo_ops=None, target="t"):
    return {"experiment": "contention", "target": target, "strategy": strategy, "corunner_load_pct": load,
            "iops": iops, "corunner_ops_per_s": ops, "corunner_solo_ops_per_s": solo_ops}


# Polling wins alone and at light load, loses from 25% on: the thesis's shape.
THESIS = [row("poll", 0, 100), row("interrupt", 0, 70),
          row("poll", 10, 95, 8, 10), row("interrupt", 10, 65, 9, 10),
          row("poll", 25, 60, 10, 25), row("interrupt", 25, 60, 22, 25),
          row("poll", 100, 40, 40, 100), row("interrupt", 100, 55, 80, 100)]


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
    rows = [row("poll", 0, 60), row("interrupt", 0, 70),
            row("poll", 100, 40, 90, 100), row("interrupt", 100, 55, 80, 100)]
    v = verdict(rows, "t")
    assert not v["poll_beats_interrupt_alone"] and not v["poll_starves_corunner_at_top_load"]
    assert sum("Unlike the thesis" in s for s in v["sentences"]) == 2


def test_polling_that_always_pays():
    rows = [row("poll", 0, 100), row("interrupt", 0, 50),
            row("poll", 50, 90, 45, 50), row("interrupt", 50, 45, 40, 50)]
    v = verdict(rows, "t")
    assert v["polling_stops_paying_at"] is None
    assert any("never stops paying" in s for s in v["sentences"])


def test_other_targets_and_experiments_are_ignored():
    rows = THESIS + [row("poll", 0, 1, target="other"),
                     {**row("interrupt", 0, 10 ** 6), "experiment": "scaling"}]
    assert verdict(rows, "t")["winner_alone"] == "poll"


def test_no_solo_run_no_verdict():
    v = verdict([row("poll", 50, 1, 1, 1)], "t")
    assert "no verdict" in v["sentences"][0]


def test_adaptive_against_the_best_static_strategy():
    rows = THESIS + [row("adaptive", 0, 99), row("adaptive", 10, 96, 9, 10), row("adaptive", 25, 61, 22, 25),
                     row("adaptive", 100, 56, 80, 100)]
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
    rows = THESIS + [row("adaptive", 0, 99), row("adaptive", 10, 96, 9, 10), row("adaptive", 25, 61, 22, 25),
                     row("adaptive", 100, 56, 80, 100)]
    other = [{**r, "target": "u"} for r in rows]
    o = adaptive_overall(rows + other)
    assert o["beats_every_static"]
    assert set(o["mean_score"]) == {"poll", "interrupt", "adaptive"}
    assert "Over all 8 contention cells (2 targets)" in o["sentence"]
    assert adaptive_overall(THESIS) is None
