"""Which way of waiting wins, per target, from the contention rows.

A cell's score is the combined progress of both tenants, the weighted
speedup of co-scheduling work: iops / best solo iops of the target +
co-runner ops / co-runner solo ops (the second term only with a co-runner).
"""


def score(row, best_solo_iops):
    s = row["iops"] / best_solo_iops if best_solo_iops else 0.0
    if row["corunner_load_pct"] and row["corunner_solo_ops_per_s"]:
        s += (row["corunner_ops_per_s"] or 0.0) / row["corunner_solo_ops_per_s"]
    return s


def verdict(rows, target):
    """A dict of findings for one target, and sentences that say them."""
    mine = [r for r in rows if r["experiment"] == "contention" and r["target"] == target]
    loads = sorted({r["corunner_load_pct"] for r in mine})
    alone = [r for r in mine if r["corunner_load_pct"] == 0]
    if not alone:
        return {"target": target, "sentences": [f"{target}: no run without a co-runner, so no verdict."]}
    best_solo = max(r["iops"] for r in alone)
    winners = {}
    for load in loads:
        cells = [r for r in mine if r["corunner_load_pct"] == load]
        winners[load] = max(cells, key=lambda r: score(r, best_solo))["strategy"]
    by = {(r["strategy"], r["corunner_load_pct"]): r for r in mine}

    def get(s, load):
        return by.get((s, load))

    stops = None
    if any(s == "poll" for s, _ in by) and any(s == "interrupt" for s, _ in by):
        for load in loads:
            p, i = get("poll", load), get("interrupt", load)
            if load and p and i and score(p, best_solo) < score(i, best_solo):
                stops = load
                break
    top = max(loads)
    p_alone, i_alone, p_top, i_top = get("poll", 0), get("interrupt", 0), get("poll", top), get("interrupt", top)
    poll_wins_alone = bool(p_alone and i_alone and p_alone["iops"] > i_alone["iops"])
    poll_starves = bool(top and p_top and i_top and (p_top["corunner_ops_per_s"] or 0) <
                        (i_top["corunner_ops_per_s"] or 0))
    s = [f"Alone, {winners[0]} gives the most IOPS."]
    under = ", ".join(f"{load}%: {winners[load]}" for load in loads if load)
    if under:
        s.append(f"Beside the co-runner, the best combined progress of both tenants goes to: {under}.")
    if stops is not None:
        s.append(f"Polling stops paying at {stops}% co-runner load: from there interrupts give both tenants more.")
    elif p_alone and i_alone and len(loads) > 1:
        s.append("Polling never stops paying up to the highest load measured.")
    if p_alone and i_alone:
        s.append("As in the thesis, polling beats interrupts in IOPS when the core is free."
                 if poll_wins_alone else
                 "Unlike the thesis, polling does not beat interrupts in IOPS here even with the core free.")
    if p_top and i_top and top:
        s.append(f"As in the thesis, at {top}% load polling leaves the co-runner less throughput than interrupts do."
                 if poll_starves else
                 f"Unlike the thesis, at {top}% load polling does not leave the co-runner less throughput "
                 f"than interrupts do.")
    a = adaptive_against_static(mine, best_solo)
    if a:
        s.append(a.pop("sentence"))
    return {"target": target, "winner_alone": winners[0], "winners": winners, "polling_stops_paying_at": stops,
            "poll_beats_interrupt_alone": poll_wins_alone, "poll_starves_corunner_at_top_load": poll_starves,
            "adaptive": a, "sentences": s}


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
    mean = {st: sum(by[(st, ld)] for ld in loads) / len(loads) for st in statics + ["adaptive"]
            if all((st, ld) in by for ld in loads)}
    worst = min(loads, key=lambda ld: ratio[ld]["ratio"])
    top_static = max((v, st) for st, v in mean.items() if st != "adaptive")
    beats_all = all(mean["adaptive"] > v for st, v in mean.items() if st != "adaptive")
    sentence = (f"Adaptive scored {min(r['ratio'] for r in ratio.values()):.2f}–"
                f"{max(r['ratio'] for r in ratio.values()):.2f} of the best static strategy at each load "
                f"(lowest at {worst}%, against {ratio[worst]['best_static']}); averaged over the loads "
                f"{mean['adaptive']:.3f}, against {top_static[0]:.3f} for {top_static[1]}, the best static one"
                f"{'' if beats_all else ' (it does not beat every static strategy here)'}.")
    return {"per_load": ratio, "mean_score": mean, "beats_every_static_on_average": beats_all,
            "sentence": sentence}


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
    return {"mean_score": mean, "beats_every_static": beats,
            "sentence": f"Over all {len(cells)} contention cells ({len(targets)} targets), adaptive's mean score is "
                        f"{mean['adaptive']:.3f}; the best static strategy's ({top[1]}) is {top[0]:.3f}"
                        f"{'' if beats else ', so adaptive does not beat every static strategy here'}."}
