# SPDX-License-Identifier: MIT
"""Which way of waiting wins, per target, from the contention rows and runs.

A cell's score is the combined progress of both tenants, the weighted
speedup of co-scheduling work: iops / best solo iops of the target +
co-runner ops / co-runner solo ops (the second term only with a co-runner).

The medians (rows) give the figures; the runs give the verdicts. Each round
measures its own references (every strategy alone, the co-runner alone), so
a run's score is taken against its own round's, and every comparison is a
ratio within a round, summarised with its 95% interval (hybridio.common.stats).
"""

import math
import statistics

from ..common import stats

# Adaptive against the best static strategy at each load: no worse than it at
# the parity margin for rates.
ADAPTIVE_RULE = stats.non_inferior(stats.RATE_MARGIN)


def score(row, best_solo_iops):
    s = row["iops"] / best_solo_iops if best_solo_iops else 0.0
    if row["corunner_load_pct"] and row["corunner_solo_ops_per_s"]:
        s += (row["corunner_ops_per_s"] or 0.0) / row["corunner_solo_ops_per_s"]
    return s


def verdict(rows, target, paired=None):
    """A dict of findings for one target, and sentences that say them: from
    the medians alone, or, given paired_verdict's result, with each winner,
    the crossover and the thesis's two directions decided by its intervals."""
    mine = [r for r in rows if r["experiment"] == "contention" and r["target"] == target]
    loads = sorted({r["corunner_load_pct"] for r in mine})
    alone = [r for r in mine if r["corunner_load_pct"] == 0]
    if not alone:
        return {"target": target, "sentences": [f"{target}: no run without a co-runner, so no verdict."]}
    best_solo = max(r["iops"] for r in alone)
    by = {(r["strategy"], r["corunner_load_pct"]): r for r in mine}
    f = _paired_findings(paired, loads) if paired else _median_findings(mine, by, loads, best_solo)
    top = max(loads)
    both_alone = _poll_and_interrupt(by, 0) is not None
    both_top = bool(top) and _poll_and_interrupt(by, top) is not None
    s = _winner_sentences(f["winners"], loads, paired)
    s += _crossover_sentences(f["stops"], both_alone, loads, paired)
    if both_alone:
        s.append(_alone_sentence(f))
    if both_top:
        s.append(_starves_sentence(f, top))
    a = adaptive_against_static(mine, best_solo)
    if a:
        s.append(a.pop("sentence"))
    return {
        "target": target,
        "winner_alone": f["winners"][0],
        "winners": f["winners"],
        "polling_stops_paying_at": f["stops"],
        "poll_beats_interrupt_alone": f["poll_wins_alone"],
        "poll_starves_corunner_at_top_load": f["poll_starves"],
        "adaptive": a,
        "sentences": s,
    }


def _poll_and_interrupt(by, load):
    """poll's and interrupt's rows at one load, or None unless both ran there."""
    p, i = by.get(("poll", load)), by.get(("interrupt", load))
    return (p, i) if p and i else None


def _median_findings(mine, by, loads, best_solo):
    """verdict's findings from the medians: the best score per load, the
    first load with a co-runner where poll scores below interrupt, and the
    thesis's two directions (poll's IOPS alone, the co-runner's ops at the
    top load)."""
    winners = {}
    for load in loads:
        cells = [r for r in mine if r["corunner_load_pct"] == load]
        winners[load] = max(cells, key=lambda r: score(r, best_solo))["strategy"]
    stops = None
    for load in loads:
        pi = _poll_and_interrupt(by, load)
        if load and pi and score(pi[0], best_solo) < score(pi[1], best_solo):
            stops = load
            break
    top = max(loads)
    at_alone, at_top = _poll_and_interrupt(by, 0), _poll_and_interrupt(by, top)
    return {
        "winners": winners,
        "stops": stops,
        "poll_wins_alone": bool(at_alone and at_alone[0]["iops"] > at_alone[1]["iops"]),
        "poll_starves": bool(
            top and at_top and (at_top[0]["corunner_ops_per_s"] or 0) < (at_top[1]["corunner_ops_per_s"] or 0)
        ),
        "alone_state": None,
        "starves_state": None,
    }


def _paired_findings(paired, loads):
    """verdict's findings decided by paired_verdict's intervals: what they
    cannot separate is a tie (winners) or undecided (the claims' states)."""
    states = {c["id"]: c["state"] for c in paired["claims"]}
    alone_state, starves_state = states.get("poll-beats-interrupt-alone"), states.get("poll-starves-corunner")
    return {
        "winners": {ld: paired["winners"].get(ld, "tie") for ld in loads},
        "stops": next((ld for ld in loads if ld and paired["poll_rank"].get(ld) == "second"), None),
        "poll_wins_alone": alone_state == stats.MET,
        "poll_starves": starves_state == stats.MET,
        "alone_state": alone_state,
        "starves_state": starves_state,
    }


def _winner_sentences(winners, loads, paired):
    """Who wins alone, and who beside the co-runner at each load."""
    by_rounds = " (paired by round; a tie where the interval cannot separate the first two)" if paired else ""
    s = [
        f"Alone, {winners[0]} gives the most IOPS{by_rounds}."
        if winners[0] != "tie"
        else f"Alone, no strategy gives clearly more IOPS than the next{by_rounds}."
    ]
    under = ", ".join(f"{load}%: {winners[load]}" for load in loads if load)
    if under:
        s.append(f"Beside the co-runner, the best combined progress of both tenants goes to: {under}.")
    return s


def _crossover_sentences(stops, both_alone, loads, paired):
    """Where polling stops paying, or that it never does (said only when
    poll and interrupt both ran alone and some co-runner load was measured)."""
    if stops is not None:
        return [f"Polling stops paying at {stops}% co-runner load: from there interrupts give both tenants more."]
    if both_alone and len(loads) > 1:
        return [
            "Polling never stops paying up to the highest load measured"
            + (" (it never falls clearly behind interrupts)." if paired else ".")
        ]
    return []


def _alone_sentence(f):
    """The thesis's first direction: polling beats interrupts alone."""
    if f["alone_state"] == stats.UNRESOLVED:
        return (
            "Undecided here whether polling beats interrupts in IOPS when the core is free: the interval straddles 1."
        )
    return (
        "As in the thesis, polling beats interrupts in IOPS when the core is free."
        if f["poll_wins_alone"]
        else "Unlike the thesis, polling does not beat interrupts in IOPS here even with the core free."
    )


def _starves_sentence(f, top):
    """The thesis's second direction: at the top load polling starves the co-runner."""
    if f["starves_state"] == stats.UNRESOLVED:
        return (
            f"Undecided here whether at {top}% load polling leaves the co-runner less than interrupts do: "
            f"the interval straddles 1."
        )
    return (
        f"As in the thesis, at {top}% load polling leaves the co-runner less throughput than interrupts do."
        if f["poll_starves"]
        else f"Unlike the thesis, at {top}% load polling does not leave the co-runner less throughput "
        f"than interrupts do."
    )


def adaptive_against_static(mine, best_solo):
    """How the adaptive strategy scored against the best static strategy of
    each load, and averaged over the loads; {} without adaptive rows."""
    loads = sorted({r["corunner_load_pct"] for r in mine})
    by = {(r["strategy"], r["corunner_load_pct"]): score(r, best_solo) for r in mine}
    statics = sorted({st for st, _ in by if st != "adaptive"})
    if not statics or not all(("adaptive", ld) in by for ld in loads):
        return {}
    ratio = {}
    for ld in loads:
        best = max((by[(st, ld)], st) for st in statics if (st, ld) in by)
        ratio[ld] = {"ratio": by[("adaptive", ld)] / best[0] if best[0] else 0.0, "best_static": best[1]}
    mean = {
        st: sum(by[(st, ld)] for ld in loads) / len(loads)
        for st in statics + ["adaptive"]
        if all((st, ld) in by for ld in loads)
    }
    worst = min(loads, key=lambda ld: ratio[ld]["ratio"])
    top_static = max((v, st) for st, v in mean.items() if st != "adaptive")
    beats_all = all(mean["adaptive"] > v for st, v in mean.items() if st != "adaptive")
    sentence = (
        f"Adaptive scored {min(r['ratio'] for r in ratio.values()):.2f}–"
        f"{max(r['ratio'] for r in ratio.values()):.2f} of the best static strategy at each load "
        f"(lowest at {worst}%, against {ratio[worst]['best_static']}); averaged over the loads "
        f"{mean['adaptive']:.3f}, against {top_static[0]:.3f} for {top_static[1]}, the best static one"
        f"{'' if beats_all else ' (it does not beat every static strategy here)'}."
    )
    return {"per_load": ratio, "mean_score": mean, "beats_every_static_on_average": beats_all, "sentence": sentence}


def adaptive_overall(rows):
    """Mean score over every contention cell of every target, per strategy
    run on all of them, and a sentence; None without adaptive rows."""
    mine = [r for r in rows if r["experiment"] == "contention"]
    targets = sorted({r["target"] for r in mine})
    best = {}
    for t in targets:
        alone = [r["iops"] for r in mine if r["target"] == t and r["corunner_load_pct"] == 0]
        if not alone:
            return None
        best[t] = max(alone)
    cells = {(r["target"], r["corunner_load_pct"]) for r in mine}
    scores = {}
    for r in mine:
        scores.setdefault(r["strategy"], {})[(r["target"], r["corunner_load_pct"])] = score(r, best[r["target"]])
    mean = {st: sum(v.values()) / len(v) for st, v in scores.items() if set(v) == cells}
    if "adaptive" not in mean or len(mean) < 2:
        return None
    top = max((v, st) for st, v in mean.items() if st != "adaptive")
    beats = all(mean["adaptive"] > v for st, v in mean.items() if st != "adaptive")
    return {
        "mean_score": mean,
        "beats_every_static": beats,
        "sentence": f"Over all {len(cells)} contention cells ({len(targets)} targets), adaptive's mean score is "
        f"{mean['adaptive']:.3f}; the best static strategy's ({top[1]}) is {top[0]:.3f}"
        f"{'' if beats else ', so adaptive does not beat every static strategy here'}.",
    }


def round_scores(runs, corunner_alone, target, progress="corunner_ops_per_s"):
    """{(strategy, load): {round: (score, iops, co-runner progress)}} of one
    target's contention runs, each scored against its own round's references:
    the best IOPS alone among that round's strategies and the co-runner alone
    in that round (corunner_alone: {load: {round: figure}}). progress names
    the co-runner's figure: its bogo ops/s, or the CPU it got
    ("corunner_cpu", in cores)."""
    mine = [r for r in runs if r["cell"].experiment == "contention" and r["cell"].target == target]
    best_solo = _best_alone_by_round(mine, target)
    out = {}
    for r in mine:
        c, k = r["cell"], r["repeat"]
        if k not in best_solo:
            continue
        solo = best_solo[k][0]
        sc = r["io"]["iops"] / solo
        if c.load_pct:
            alone = corunner_alone.get(c.load_pct, {}).get(k)
            if not alone or r.get(progress) is None:
                continue
            sc += r[progress] / alone
        out.setdefault((c.strategy, c.load_pct), {})[k] = (sc, r["io"]["iops"], r.get(progress))
    return out


def _best_alone_by_round(runs, target):
    """{round: (IOPS, strategy)}: the target's most IOPS alone in each round
    that had any, the reference its runs are scored against."""
    best = {}
    for r in runs:
        c = r["cell"]
        if c.experiment == "contention" and c.target == target and c.load_pct == 0:
            if r["io"]["iops"] > best.get(r["repeat"], (0.0, None))[0]:
                best[r["repeat"]] = (r["io"]["iops"], c.strategy)
    return best


def best_alone(runs, target):
    """The strategies that gave the target's most IOPS alone in some round:
    the references a round needs."""
    return sorted({s for _, s in _best_alone_by_round(runs, target).values()})


def _pairs(scores, a, b, load, what=0):
    """Per-round ratios of a's to b's figure (0: score, 1: IOPS, 2: co-runner ops/s) at one load; a round
    where b's is 0 pairs nothing, one where only a's is 0 gives STARVED."""
    sa, sb = scores.get((a, load), {}), scores.get((b, load), {})
    return [
        max(sa[k][what] or 0.0, stats.STARVED * sb[k][what]) / sb[k][what]
        for k in sorted(sa)
        if k in sb and sb[k][what]
    ]


def _mean_score(scores, strategy, load):
    return statistics.fmean(v[0] for v in scores[(strategy, load)].values())


def paired_verdict(runs, corunner_alone, target, progress="corunner_ops_per_s"):
    """The target's claims from its paired rounds, each met / not_met /
    unresolved with its interval, the winner per load where the interval
    names one (else a tie), poll against interrupt per load ("first",
    "second" or "tie"), and sentences that say the claims."""
    scores = round_scores(runs, corunner_alone, target, progress)
    loads = sorted({ld for _, ld in scores})
    strategies = sorted({st for st, _ in scores})
    poll_rank = {
        ld: stats.rank(_pairs(scores, "poll", "interrupt", ld))
        for ld in loads
        if ("poll", ld) in scores and ("interrupt", ld) in scores
    }
    claims = _thesis_claims(scores, loads) + _adaptive_claims(scores, loads, strategies)
    said = [
        f"{c['text'][0].upper()}{c['text'][1:]}: {c['interval_text']}, {c['rule']}: {stats.STATE_WORDS[c['state']]}."
        for c in claims
    ]
    counts = {k: sum(c["state"] == k for c in claims) for k in (stats.MET, stats.NOT_MET, stats.UNRESOLVED)}
    return {
        "claims": claims,
        "winners": _paired_winners(scores, loads, strategies),
        "poll_rank": poll_rank,
        "counts": counts,
        "sentences": said,
    }


def _paired_winners(scores, loads, strategies):
    """{load: winner}: the best mean score, where its ratio to the second's
    interval ranks it first, else "tie"; loads with fewer than two
    strategies are left out."""
    winners = {}
    for ld in loads:
        here = [st for st in strategies if (st, ld) in scores]
        if len(here) < 2:
            continue
        mean = {st: _mean_score(scores, st, ld) for st in here}
        first, second = sorted(here, key=mean.get, reverse=True)[:2]
        winners[ld] = first if stats.rank(_pairs(scores, first, second, ld)) == "first" else "tie"
    return winners


def _thesis_claims(scores, loads):
    """The thesis's two directions, where poll and interrupt both ran: alone
    poll's IOPS beat interrupt's; at the top load the co-runner gets less
    beside poll than beside interrupt."""
    claims = []
    if ("poll", 0) in scores and ("interrupt", 0) in scores:
        c = stats.claim(
            "poll-beats-interrupt-alone",
            "alone, poll's IOPS >= interrupt's",
            _pairs(scores, "poll", "interrupt", 0, 1),
            stats.superior(),
        )
        claims.append(dict(c, load=0, compared=["poll", "interrupt"]))
    top = max(loads) if loads else 0
    if top and ("poll", top) in scores and ("interrupt", top) in scores:
        c = stats.claim(
            "poll-starves-corunner",
            f"at {top}% load, the co-runner gets less beside poll than beside interrupt",
            _pairs(scores, "poll", "interrupt", top, 2),
            stats.superior(lower_is_better=True),
        )
        claims.append(dict(c, load=top, compared=["poll", "interrupt"]))
    return claims


def _adaptive_claims(scores, loads, strategies):
    """Per load where adaptive ran: its score no worse than the best static
    strategy's (by mean score) at ADAPTIVE_RULE's margin."""
    statics = [st for st in strategies if st != "adaptive"]
    claims = []
    for ld in loads:
        rivals = [st for st in statics if (st, ld) in scores]
        if ("adaptive", ld) not in scores or not rivals:
            continue
        best = max(rivals, key=lambda st: _mean_score(scores, st, ld))
        c = stats.claim(
            f"adaptive-{ld}",
            f"{'alone' if not ld else f'at {ld}% load'}, adaptive's score is no worse than the best static "
            f"strategy's ({best}) at {ADAPTIVE_RULE.margin:.0%}",
            _pairs(scores, "adaptive", best, ld),
            ADAPTIVE_RULE,
        )
        claims.append(dict(c, load=ld, best_static=best, compared=["adaptive", best]))
    return claims


def noise(runs, target):
    """How steady the target was: each strategy's IOPS alone over the rounds
    (its spread), and the drift of all of them from the first round to the
    last. None with fewer than two rounds alone."""
    alone = {}
    for r in runs:
        c = r["cell"]
        if c.experiment == "contention" and c.target == target and c.load_pct == 0 and r["io"]["iops"]:
            alone.setdefault(c.strategy, {})[r["repeat"]] = r["io"]["iops"]
    spread = {
        st: (max(v.values()) - min(v.values())) / statistics.median(v.values())
        for st, v in alone.items()
        if len(v) >= 2
    }
    if not spread:
        return None
    # Drift: each strategy's last round against its first, summarised over the strategies.
    drift = stats.ratio_interval([v[max(v)] / v[min(v)] for v in alone.values() if len(v) >= 2])
    widest = max(spread, key=spread.get)
    n = max(len(v) for v in alone.values())
    sentence = (
        f"Noise: alone, IOPS varied over {n} rounds by {min(spread.values()):.0%}–{spread[widest]:.0%} "
        f"(max − min over the median; widest: {widest}); from the first round to the last they moved "
        f"{drift.value - 1:+.0%}"
        + (f" [{drift.low - 1:+.0%}, {drift.high - 1:+.0%}]" if drift.n >= 2 else "")
        + ". Ratios within a round cancel what the rounds share."
    )
    return {"spread_alone": spread, "drift": drift.as_dict(), "sentence": sentence}


def progress_agreement(runs, corunner_alone, target):
    """Whether the co-runner's two measures of progress agree: per run, its
    CPU time over the round's CPU alone against its bogo ops over the
    round's ops alone. corunner_alone: {"corunner_cpu": {load: {round: cores}},
    "corunner_ops_per_s": {load: {round: ops/s}}}. None where either is missing."""
    ratios = []
    for r in runs:
        c, k = r["cell"], r["repeat"]
        if c.experiment != "contention" or c.target != target or not c.load_pct:
            continue
        cpu_alone = corunner_alone["corunner_cpu"].get(c.load_pct, {}).get(k)
        ops_alone = corunner_alone["corunner_ops_per_s"].get(c.load_pct, {}).get(k)
        if cpu_alone and ops_alone and r.get("corunner_cpu") and r.get("corunner_ops_per_s"):
            ratios.append((r["corunner_cpu"] / cpu_alone) / (r["corunner_ops_per_s"] / ops_alone))
    if len(ratios) < 2:
        return None
    iv = stats.ratio_interval(ratios)
    logs = sorted(abs(math.log(x)) for x in ratios)
    p90 = math.exp(logs[int(0.9 * (len(logs) - 1))]) - 1
    return {
        "cpu_over_ops": iv.as_dict(),
        "p90_disagreement": p90,
        "runs": len(ratios),
        "sentence": f"The co-runner's progress by the CPU it got (the score's) against by its bogo ops: "
        f"{iv.text(3)} over {len(ratios)} runs; 90% of the runs agree within {p90:.0%}.",
    }
