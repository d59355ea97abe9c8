# SPDX-License-Identifier: MIT
"""The answer the report and the terminal open with: per target, which way
of waiting to use and when, in plain words, composed from the target's
verdict (hybridio.study.verdict and outputs.target_verdict) and never
stated beyond it: polling's stopping point from the paired rounds, adaptive
against the best static strategy per load, and the claims' count."""

from ..common import stats
from .verdict import ADAPTIVE_RULE

ALONE_CLAIM = "poll-beats-interrupt-alone"


def _loads(v):
    # verdicts.json turns the loads (dict keys) into strings.
    return sorted(int(ld) for ld in v.get("winners", {}))


def _claims(v):
    return {c["id"]: c for c in v.get("claims", [])}


def _pct_list(loads):
    return ", ".join(f"{ld}%" for ld in loads)


def label(v):
    kind = "emulated SSD" if v.get("emulated") else "disk"
    return f"{v['target']} ({kind})"


def _never_stops(alone_state, top):
    """Polling never fell clearly behind interrupts up to the top load."""
    if alone_state == stats.MET:
        return f"poll at every co-runner load measured (up to {top}%): polling never stops paying"
    if alone_state == stats.NOT_MET:
        return (
            f"poll or interrupt alike up to {top}% co-runner load: polling neither beats interrupts alone "
            f"nor falls clearly behind them under load"
        )
    return (
        f"poll or interrupt up to {top}% co-runner load: polling never falls clearly behind interrupts, "
        f"and whether it beats them alone is undecided"
    )


def _stops(alone_state, stops, below):
    """Polling fell clearly behind interrupts from `stops`; `below` is the
    highest load measured under it."""
    if not below:
        first = "poll only while the core is free, " if alone_state == stats.MET else ""
        return f"{first}interrupt as soon as a co-runner shares the core (from {stops}% load)"
    way = {stats.MET: "poll", stats.NOT_MET: "poll or interrupt alike"}.get(alone_state, "poll or interrupt")
    return f"{way} up to {below}% co-runner load, interrupt from {stops}% on"


def waiting(v):
    """Which static way of waiting to use at which co-runner load."""
    loads, claims = _loads(v), _claims(v)
    if ALONE_CLAIM not in claims or len(loads) < 2:
        best = v.get("winner_alone")
        if best and best != "tie":
            return f"{best} gives the most IOPS alone (poll and interrupt were not both measured under load)"
        return "no way of waiting is clearly best alone (poll and interrupt were not both measured under load)"
    alone_state = claims[ALONE_CLAIM]["state"]
    stops = v.get("polling_stops_paying_at")
    if stops is None:
        return _never_stops(alone_state, max(loads))
    return _stops(alone_state, stops, max(ld for ld in loads if ld < stops))


def adaptive(v):
    """How close adaptive came to the best static choice per load, and at
    which loads its no-worse claim held; None where it did not run."""
    a = v.get("adaptive") or {}
    per = {int(ld): d for ld, d in a.get("per_load", {}).items()}
    if not per:
        return None
    worst = min(per, key=lambda ld: per[ld]["ratio"])
    lo, hi = per[worst]["ratio"], max(d["ratio"] for d in per.values())
    span = f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}"
    text = (
        f"adaptive reached {span} of the best static choice per load "
        f"(lowest at {worst}%, against {per[worst]['best_static']})"
    )
    states = {c["load"]: c["state"] for c in v.get("claims", []) if c["id"].startswith("adaptive-")}
    missed = sorted(ld for ld, s in states.items() if s == stats.NOT_MET)
    if states and not missed and all(s == stats.MET for s in states.values()):
        text += f", no worse than it within {ADAPTIVE_RULE.margin:.0%} at every load"
    elif missed:
        text += f", NOT within {ADAPTIVE_RULE.margin:.0%} of it at {_pct_list(missed)}"
    return text


def undecided(v):
    """The loads where a contention claim is unresolved: the rounds cannot tell."""
    loads = sorted(
        {c["load"] for c in v.get("claims", []) if c.get("load") is not None and c["state"] == stats.UNRESOLVED}
    )
    if not loads:
        return None
    return f"undecided at {_pct_list(loads)}: the rounds cannot tell there (a longer --budget would)"


def counts_text(counts):
    return f"{counts.get('met', 0)} met, {counts.get('not_met', 0)} NOT met, {counts.get('unresolved', 0)} unresolved"


def recommend(v):
    """{"target", "label", "text", "counts", "counts_text"}: target v's
    recommendation, one sentence of clauses from its verdict."""
    if "winners" not in v:
        text = "no recommendation: " + (v["sentences"][0] if v.get("sentences") else "no verdict")
    else:
        parts = [waiting(v), adaptive(v), undecided(v)]
        text = "; ".join(p for p in parts if p) + "."
    counts = v.get("claim_counts", {})
    return {
        "target": v["target"],
        "label": label(v),
        "text": text,
        "counts": counts,
        "counts_text": counts_text(counts),
    }


def lines(recs):
    """The recommendations as the terminal prints them, at the end of its findings."""
    out = ["Recommendation (which way of waiting to use, from this study's verdicts):"]
    for r in recs:
        out.append(f"  {r['label']}: {r['text']} Verdicts: {r['counts_text']}.")
    return out
