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
    return {"target": target, "winner_alone": winners[0], "winners": winners, "polling_stops_paying_at": stops,
            "poll_beats_interrupt_alone": poll_wins_alone, "poll_starves_corunner_at_top_load": poll_starves,
            "sentences": s}
