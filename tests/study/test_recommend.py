# SPDX-License-Identifier: MIT
"""The recommendation the report and the terminal open with, from synthetic verdicts."""

import json
from types import SimpleNamespace

from hybridio.common import stats
from hybridio.study import outputs, recommend
from hybridio.study.verdict import verdict


def row(strategy, load, iops, ops=None, solo_ops=None):
    return {
        "experiment": "contention",
        "target": "t",
        "strategy": strategy,
        "corunner_load_pct": load,
        "iops": iops,
        "corunner_ops_per_s": ops,
        "corunner_solo_ops_per_s": solo_ops,
    }


def claim(cid, load, state):
    return {"id": cid, "load": load, "state": state}


def target_verdict(rows, poll_rank, claims, emulated=False):
    """A verdict shaped as hybridio.study.outputs.target_verdict makes it."""
    loads = sorted({r["corunner_load_pct"] for r in rows})
    paired = {"winners": {ld: "tie" for ld in loads}, "poll_rank": poll_rank, "claims": claims}
    v = verdict(rows, "t", paired)
    v["claims"] = claims
    v["claim_counts"] = {k: sum(c["state"] == k for c in claims) for k in ("met", "not_met", "unresolved")}
    v["emulated"] = emulated
    return v


def rows_for(loads, poll_io, adaptive_io=None):
    """poll and interrupt (and adaptive) at each load; poll_io: {load: poll's IOPS} against interrupt's 80."""
    out = []
    for ld in loads:
        co = (50, 100) if ld else (None, None)
        out += [row("poll", ld, poll_io[ld], *co), row("interrupt", ld, 80, *co)]
        if adaptive_io:
            out.append(row("adaptive", ld, adaptive_io[ld], *co))
    return out


def test_polling_never_stops_paying():
    rows = rows_for([0, 50, 100], {0: 100, 50: 95, 100: 90}, {0: 99, 50: 94, 100: 89})
    claims = [claim("poll-beats-interrupt-alone", 0, stats.MET)] + [
        claim(f"adaptive-{ld}", ld, stats.MET) for ld in (0, 50, 100)
    ]
    r = recommend.recommend(target_verdict(rows, {0: "first", 50: "first", 100: "tie"}, claims, emulated=True))
    assert r["label"] == "t (emulated SSD)"
    assert r["text"].startswith("poll at every co-runner load measured (up to 100%): polling never stops paying;")
    assert "adaptive reached 0.99 of the best static choice per load (lowest at 0%, against poll)" in r["text"]
    assert "no worse than it within 5% at every load" in r["text"]
    assert "undecided" not in r["text"]
    assert r["counts_text"] == "4 met, 0 NOT met, 0 unresolved"


def test_polling_stops_paying_at_50():
    loads = [0, 25, 50, 100]
    rows = rows_for(loads, {0: 100, 25: 95, 50: 60, 100: 40}, {0: 98, 25: 93, 50: 78, 100: 70})
    claims = [
        claim("poll-beats-interrupt-alone", 0, stats.MET),
        claim("poll-starves-corunner", 100, stats.MET),
        claim("adaptive-50", 50, stats.MET),
        claim("adaptive-100", 100, stats.NOT_MET),
    ]
    v = target_verdict(rows, {0: "first", 25: "first", 50: "second", 100: "second"}, claims)
    r = recommend.recommend(v)
    assert r["label"] == "t (disk)"
    assert r["text"].startswith("poll up to 25% co-runner load, interrupt from 50% on;")
    assert (
        "adaptive reached 0.92–0.99 of the best static choice per load (lowest at 100%, against interrupt)" in r["text"]
    )
    assert "NOT within 5% of it at 100%" in r["text"]
    assert r["counts"] == {"met": 3, "not_met": 1, "unresolved": 0}
    # The same from verdicts.json, whose loads are strings.
    assert recommend.recommend(json.loads(json.dumps(v)))["text"] == r["text"]


def test_polling_stops_at_the_first_load_under_a_co_runner():
    rows = rows_for([0, 50, 100], {0: 100, 50: 60, 100: 40})
    claims = [claim("poll-beats-interrupt-alone", 0, stats.MET)]
    r = recommend.recommend(target_verdict(rows, {0: "first", 50: "second", 100: "second"}, claims))
    assert (
        r["text"]
        == "poll only while the core is free, interrupt as soon as a co-runner shares the core (from 50% load)."
    )


def test_unresolved_cells_are_named():
    rows = rows_for([0, 50, 100], {0: 82, 50: 81, 100: 79})
    claims = [
        claim("poll-beats-interrupt-alone", 0, stats.UNRESOLVED),
        claim("poll-starves-corunner", 100, stats.UNRESOLVED),
        {"id": "bursty-50-adaptive", "load": None, "burst_ms": 50, "state": stats.UNRESOLVED},
    ]
    r = recommend.recommend(target_verdict(rows, {0: "tie", 50: "tie", 100: "tie"}, claims))
    assert r["text"].startswith("poll or interrupt up to 100% co-runner load")
    assert "whether it beats them alone is undecided" in r["text"]
    assert r["text"].endswith("undecided at 0%, 100%: the rounds cannot tell there (a longer --budget would).")
    assert r["counts_text"] == "0 met, 0 NOT met, 3 unresolved"


def test_no_verdict_without_a_run_alone():
    v = verdict([row("poll", 50, 90, 50, 100)], "t")
    v.update(claims=[], claim_counts={}, emulated=False)
    assert recommend.recommend(v)["text"].startswith("no recommendation: t: no run without a co-runner")


def test_the_terminal_ends_with_the_recommendations(capsys):
    """The details come first and the answer last, so that the last screen leads with it."""
    rows = rows_for([0, 50, 100], {0: 100, 50: 60, 100: 40})
    claims = [claim("poll-beats-interrupt-alone", 0, stats.MET)]
    v = target_verdict(rows, {0: "first", 50: "second", 100: "second"}, claims)
    v["recommendation"] = recommend.recommend(v)
    study = SimpleNamespace(extra_rounds=[], cfg={"budget_s": 0})
    handles = {"findings": {"cache": {"title": "Cache", "emulated": False, "sentences": ["Cache: no runs."]}}}
    handles["error"] = None
    outputs.say(study, [v], {"sentence": "Adaptive overall."}, handles, [("clock source", "tsc")])
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert lines[0] == "t:"
    assert lines.index("    Cache: no runs.") < lines.index(next(ln for ln in lines if ln.startswith("Recommendation")))
    tail = lines[-5:]
    assert tail[0].startswith("Recommendation")
    assert tail[1] == "  t (disk): " + v["recommendation"]["text"] + " Verdicts: 1 met, 0 NOT met, 0 unresolved."
    assert tail[2] == "  On: clock source tsc."
    assert tail[3].startswith("Verdicts: 1 met, 0 not met, 0 unresolved")
    assert tail[4] == "Adaptive overall."
