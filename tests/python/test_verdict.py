from hybridio.verdict import score, verdict


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
