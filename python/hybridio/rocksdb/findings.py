# SPDX-License-Identifier: MIT
"""The RocksDB study's medians, claims and the thesis's figures beside ours.

A cell is (device, client threads, workload, configuration,
dataset:cache ratio, interference degree); its row holds the median of each
figure over the repeats. The claims, per device: (1) in each cell of the
sweep hybridio-adaptive reaches 95% of the best configuration, by RocksDB's
ops/s with the objective "own" and by both tenants' combined progress with
"shared"; (2) where polling helps RocksDB and where it hurts, hybridio-poll
against hybridio-interrupt per cell, with the thesis's two directions;
(3) on the disk alone, the plugin against RocksDB's own direct reads:
interrupt at no more CPU per operation, and poll; (4) with 4 client threads,
adaptive reaches 97% of the best configuration.
"""

from ..common import stats
from .experiments import ADAPTIVE_OBJECTIVES, CONFIGS, DEVICES, FIGURES, FULL_DEGREE, THREADS, ratio_label

# The claims' rules (hybridio.common.stats.Rule).
ADAPTIVE_RULE = stats.non_inferior(stats.RATE_MARGIN)  # adaptive's score against the best in each cell of the sweep
THREADS_RULE = stats.non_inferior(0.03)  # with THREADS client threads, adaptive's ops/s against the best's
POLL_ALONE = stats.non_inferior(0.05)  # alone, poll's ops/s against interrupt's
POLL_CONTENDED = stats.superior(0.05, lower_is_better=True)  # contended, poll's ops/s below interrupt's
# poll / interrupt ops/s: "helps" at or above HELPS, "hurts" below HURTS, else a tie
HELPS, HURTS = 1.05, POLL_ALONE.threshold()
POSIX_OPS = stats.non_inferior(stats.RATE_MARGIN)  # alone on the disk, the plugin's ops/s against posix-direct's
POSIX_CPU = stats.non_inferior(stats.RATE_MARGIN, lower_is_better=True)  # and its CPU per operation
EPS = 1e-9  # relative slack: a figure exactly on a threshold meets it


# The thesis (PCIe 4.0 SSD; SPDK polls, Posix takes interrupts).
THESIS = {
    "alone_spdk_over_posix": {2.0: "≈ equal", 5.0: "+12%", 10.0: "+48%"},
    "at10": "SPDK −50%, Posix < 1% (against alone)",
    "gap": "≈ 20% below ~5% interference, > 40% above it (poll only when ≥ 95% of the CPU is free)",
    "full_ops": "SPDK −66…−68%, Posix −43% (against alone)",
    "full_latency": "SPDK +194…+215%, Posix +76…+97% (against alone)",
    "worst": "SPDK up to +318% latency and −76% throughput",
}

WITH_INTERVAL = ["ops_per_s", "cpu_us_per_op", "corunner_progress", "p99_us"]


def summarize(records):
    """One row per cell: the median of each figure over the repeats, the 95%
    interval of the WITH_INTERVAL figures' centres, and the spread of ops/s,
    (max - min) / median in %."""
    by = {}
    for r in records:
        key = (r.get("device", "disk"), r.get("threads", 1), r["workload"], r["config"], r["ratio"], r["degree"])
        by.setdefault(key, []).append(r)
    rows = []
    for (device, threads, workload, config, ratio, degree), recs in by.items():
        row = {
            "device": device,
            "threads": threads,
            "workload": workload,
            "config": config,
            "ratio": ratio,
            "degree": degree,
            "budget_mib": recs[0]["budget_mib"],
            "repeats": len(recs),
        }
        for f in FIGURES:
            row[f] = stats.median(r.get(f) for r in recs)
        row["spread_pct"] = stats.spread_pct([r["ops_per_s"] for r in recs])
        for f in WITH_INTERVAL:
            iv = stats.figure_interval([r.get(f) for r in recs])
            row[f"{f}_ci95_low"], row[f"{f}_ci95_high"] = (iv.low, iv.high) if iv else (None, None)
        rows.append(row)
    order = {c: i for i, c in enumerate(CONFIGS)}
    devices = {d: i for i, d in enumerate(DEVICES)}
    rows.sort(
        key=lambda r: (
            devices.get(r["device"], 9),
            r["threads"],
            r["workload"] != "mixgraph",
            r["ratio"],
            r["degree"],
            order.get(r["config"], 99),
        )
    )
    return rows


def _at_least(x, limit):
    return x >= limit * (1 - EPS)


def met(passed):
    return "met" if passed else "NOT met"


def _pct(x):
    return "–" if x is None else f"{x:+.0f}%"


def _cell(rows, workload, config, ratio, degree):
    return next(
        (r for r in rows if (r["workload"], r["config"], r["ratio"], r["degree"]) == (workload, config, ratio, degree)),
        None,
    )


def _where(ratio, degree):
    return f"{ratio_label(ratio)}, {'alone' if not degree else f'{degree}%'}"


def round_scores(records, workload, ratio, degree, config, score):
    """{round: score} of one configuration in one cell, from its runs."""
    return {
        r["round"]: v
        for r in records
        if (r["workload"], r["ratio"], r["degree"], r["config"]) == (workload, ratio, degree, config)
        for v in [score(r)]
        if v
    }


def paired(records, workload, ratio, degree, a, b, score):
    """Per-round ratios score(a) / score(b) in one cell: both measured in the same round."""
    sa = round_scores(records, workload, ratio, degree, a, score)
    sb = round_scores(records, workload, ratio, degree, b, score)
    return [sa[k] / sb[k] for k in sorted(sa) if k in sb]


def combined(rows, row):
    """Both tenants' progress in a cell: RocksDB's ops/s over the best
    configuration's alone (same workload and ratio), plus the co-runner's CPU
    time over what it asked for (None where it was not measured)."""
    alone = [
        r["ops_per_s"]
        for r in rows
        if (r["workload"], r["ratio"], r["degree"]) == (row["workload"], row["ratio"], 0) and r["ops_per_s"]
    ]
    if not alone or row["ops_per_s"] is None:
        return None
    if not row["degree"]:
        return row["ops_per_s"] / max(alone)
    if row.get("corunner_progress") is None:
        return None
    return row["ops_per_s"] / max(alone) + row["corunner_progress"]


def combined_run(rows, rec):
    """combined() of one run: its ops/s over the best configuration's median
    alone, plus its co-runner's progress."""
    return combined(rows, rec) if rec.get("ops_per_s") is not None else None


def adaptive_claim(rows, config="hybridio-adaptive", records=()):
    """Claim 1: in each cell of the sweep (each workload, ratio and degree)
    adaptive's score is within 5% of the best configuration's: RocksDB's
    ops/s under the objective "own", both tenants' combined progress under
    "shared"; and its mean over the cells is the highest."""
    objective = ADAPTIVE_OBJECTIVES[config]
    score = (lambda r: r["ops_per_s"]) if objective == "own" else (lambda r: combined_run(rows, r))
    what = "RocksDB's ops/s" if objective == "own" else "combined progress (RocksDB's and the co-runner's)"
    judged, means = _adaptive_cells(rows, records, config, score)
    text = (
        f"{config} (objective {objective}): in every cell, its {what} is no worse than the best "
        f"configuration's at {ADAPTIVE_RULE.margin:.0%}, and the highest mean over the cells"
    )
    claim = {"id": config, "text": text, **ADAPTIVE_RULE.as_dict()}
    if not judged:
        return dict(
            claim,
            passed=None,
            state=None,
            cells=[],
            sentence=f"{config}: no cell with it and another configuration (and, for shared, the co-runner's "
            f"progress), so not judged.",
        )
    mean, top, highest = _adaptive_means(means, len(judged), config)
    # The highest mean is a point estimate: short of it, the claim cannot be met.
    state = stats.worst_state([c["state"] for c in judged] + ([] if highest else [stats.UNRESOLVED]))
    passed = all(c["passed"] for c in judged) and highest
    sentence = _adaptive_medians_sentence(config, objective, what, judged, mean, top, passed)
    return dict(
        claim,
        passed=passed,
        state=state,
        cells=judged,
        means=mean,
        sentence=sentence + " " + _adaptive_paired_sentence(judged, state),
    )


def _adaptive_cells(rows, records, config, score):
    """The judged cells, those where adaptive and another configuration were
    scored, and {configuration: [its score over the cell's best, per cell]}."""
    judged, means = [], {}
    for cell in sorted({(r["workload"], r["ratio"], r["degree"]) for r in rows}):
        here = _adaptive_rivals(rows, config, cell, score)
        if not any(r["config"] == config for r, _ in here) or len(here) < 2:
            continue
        c = _adaptive_cell(records, config, cell, here, score)
        for r, v in here:
            means.setdefault(r["config"], []).append(v / c["best_score"])
        judged.append(c)
    return judged, means


def _adaptive_means(means, cells, config):
    """Each configuration's mean relative score over the judged cells (only
    those scored in all of them), the top one, and whether adaptive's mean
    is the highest (or ties it)."""
    mean = {k: sum(v) / len(v) for k, v in means.items() if len(v) == cells}
    top = max(mean, key=mean.get) if mean else None
    highest = top == config or (top is not None and _at_least(mean.get(config, 0), mean[top]))
    return mean, top, highest


def _adaptive_rivals(rows, config, cell, score):
    """(row, score) of adaptive and the static configurations in one cell,
    where scored: the other objective's adaptive is no rival."""
    here = [
        (r, score(r))
        for r in rows
        if (r["workload"], r["ratio"], r["degree"]) == cell
        and r["config"] in CONFIGS
        and (r["config"] == config or r["config"] not in ADAPTIVE_OBJECTIVES)
    ]
    return [(r, v) for r, v in here if v is not None]


def _adaptive_cell(records, config, cell, here, score):
    """One cell's judgement: adaptive's score against the best's medians, and
    its paired interval against the best of the others, round by round."""
    workload, ratio, degree = cell
    ad = next(v for r, v in here if r["config"] == config)
    best, bv = max(here, key=lambda x: x[1])
    rival = max(((r, v) for r, v in here if r["config"] != config), key=lambda x: x[1])[0]["config"]
    st, iv = stats.decide(paired(records, workload, ratio, degree, config, rival, score), ADAPTIVE_RULE)
    return {
        "workload": workload,
        "ratio": ratio,
        "degree": degree,
        "adaptive": ad,
        "best": best["config"],
        "best_score": bv,
        "score": ad / bv,
        "passed": _at_least(ad, ADAPTIVE_RULE.threshold() * bv),
        "rival": rival,
        "state": st,
        "interval": iv.as_dict() if iv else None,
        "interval_text": stats.describe(iv),
    }


def _adaptive_medians_sentence(config, objective, what, judged, mean, top, passed):
    """Claim 1 by the medians: the cells where adaptive reached the threshold,
    its lowest, its mean against the best other mean, and where it missed."""
    ok = [c for c in judged if c["passed"]]
    worst = min(judged, key=lambda c: c["score"])
    misses = "; ".join(
        f"{c['workload']} {_where(c['ratio'], c['degree'])}: {c['score']:.2f} of {c['best']}"
        for c in judged
        if not c["passed"]
    )
    return (
        f"{config} (objective {objective}, scored by {what}) reached {ADAPTIVE_RULE.threshold():.0%} of the best in "
        f"{len(ok)} of {len(judged)} cells (lowest {worst['score']:.2f}, {worst['workload']} "
        f"{_where(worst['ratio'], worst['degree'])}, against {worst['best']}); mean "
        f"{mean.get(config, float('nan')):.3f}"
        + (f" against {top}'s {mean[top]:.3f}" if top and top != config else ", the highest")
        + (f"; missed at {misses}" if misses else "")
        + f": {met(passed)}."
    )


def _adaptive_paired_sentence(judged, state):
    """Claim 1 paired by round: each cell's interval and state, their counts and the claim's state."""
    counts = {k: sum(c["state"] == k for c in judged) for k in (stats.MET, stats.NOT_MET, stats.UNRESOLVED)}
    return (
        "Paired by round, against the best other configuration, 95% intervals: "
        + "; ".join(
            f"{c['workload']} {_where(c['ratio'], c['degree'])} {c['interval_text']} ({stats.STATE_WORDS[c['state']]})"
            for c in judged
        )
        + f"; {counts[stats.MET]} met, {counts[stats.NOT_MET]} not met, {counts[stats.UNRESOLVED]} "
        f"unresolved; {ADAPTIVE_RULE.words()}: {stats.STATE_WORDS[state]}."
    )


def threads_claim(rows, records=()):
    """Claim 4: with THREADS client threads on every core, adaptive's ops/s is
    no worse than the best configuration's (THREADS_RULE), per workload;
    judged on the runs (records) against the best other configuration round
    by round."""
    judged = []
    for workload in sorted({r["workload"] for r in rows}):
        # The other objective's adaptive is no rival: the static configurations are.
        here = [
            r for r in rows if r["workload"] == workload and r["ops_per_s"] and r["config"] != "hybridio-adaptive-own"
        ]
        ad = next((r for r in here if r["config"] == "hybridio-adaptive"), None)
        if ad is None or len(here) < 2:
            continue
        best = max(here, key=lambda r: r["ops_per_s"])
        rival = max((r for r in here if r is not ad), key=lambda r: r["ops_per_s"])["config"]
        st, iv = stats.decide(
            paired(records, workload, ad["ratio"], ad["degree"], "hybridio-adaptive", rival, lambda r: r["ops_per_s"]),
            THREADS_RULE,
        )
        judged.append(
            {
                "workload": workload,
                "score": ad["ops_per_s"] / best["ops_per_s"],
                "best": best["config"],
                "passed": _at_least(ad["ops_per_s"], THREADS_RULE.threshold() * best["ops_per_s"]),
                "rival": rival,
                "state": st,
                "interval": iv.as_dict() if iv else None,
                "interval_text": stats.describe(iv),
            }
        )
    if not judged:
        return None
    ok = all(c["passed"] for c in judged)
    state = stats.worst_state(c["state"] for c in judged)
    return {
        "id": "threads",
        "text": f"{THREADS} client threads on every core: hybridio-adaptive's ops/s is no worse than the best "
        f"configuration's at {THREADS_RULE.margin:.0%}",
        **THREADS_RULE.as_dict(),
        "passed": ok,
        "state": state,
        "cells": judged,
        "sentence": f"{THREADS} client threads: adaptive / best "
        + ", ".join(f"{c['workload']} {c['score']:.2f} (best {c['best']})" for c in judged)
        + " by medians; paired by round against the best other configuration, "
        + ", ".join(f"{c['workload']} {c['interval_text']} ({stats.STATE_WORDS[c['state']]})" for c in judged)
        + f"; {THREADS_RULE.words()}: {stats.STATE_WORDS[state]}.",
    }


def verdict_word(ratio):
    if ratio is None:
        return None
    return "helps" if _at_least(ratio, HELPS) else ("hurts" if ratio < HURTS else "tie")


def poll_vs_interrupt(rows, sweep_ratio, records=()):
    """Claim 2, where polling helps RocksDB and where it hurts: per mixgraph
    cell, hybridio-poll's ops/s, mean and p99 latency over
    hybridio-interrupt's; then the thesis's two directions: alone polling
    does not lose (>= 0.95x), and from 10% interference it loses (< 0.95x);
    and the lowest degree at the sweep ratio from which it hurts."""
    table = _poll_interrupt_table(rows, records)
    claims, said = [], []
    alone = [t for t in table if not t["degree"]]
    contended = [t for t in table if t["degree"] >= 10]
    if alone:
        c, sentence = _poll_alone_claim(alone)
        claims.append(c)
        said.append(sentence)
    if contended:
        c, sentence = _poll_contended_claim(contended)
        claims.append(c)
        said.append(sentence)
    crossover, sentences = _crossover(table, sweep_ratio)
    return {"table": table, "claims": claims, "sentences": said + sentences, "crossover_degree": crossover}


def _poll_interrupt_table(rows, records):
    """Per mixgraph cell where both ran with ops/s: poll's figures over
    interrupt's, its ops/s paired by round, and the cell's verdict."""
    table = []
    for ratio, degree in sorted({(r["ratio"], r["degree"]) for r in rows if r["workload"] == "mixgraph"}):
        p = _cell(rows, "mixgraph", "hybridio-poll", ratio, degree)
        i = _cell(rows, "mixgraph", "hybridio-interrupt", ratio, degree)
        if not p or not i or not p["ops_per_s"] or not i["ops_per_s"]:
            continue
        ops = p["ops_per_s"] / i["ops_per_s"]
        pr = paired(records, "mixgraph", ratio, degree, "hybridio-poll", "hybridio-interrupt", lambda x: x["ops_per_s"])
        iv = stats.ratio_interval(pr) if pr else None
        table.append(
            {
                "ratio": ratio,
                "degree": degree,
                "poll_ops_per_s": p["ops_per_s"],
                "paired": pr,
                "ops_ratio_interval": iv.as_dict() if iv else None,
                "ops_ratio_text": stats.describe(iv),
                "interrupt_ops_per_s": i["ops_per_s"],
                "ops_ratio": ops,
                "mean_latency_ratio": p["micros_per_op"] / i["micros_per_op"] if i["micros_per_op"] else None,
                "p99_ratio": p["p99_us"] / i["p99_us"] if p["p99_us"] and i["p99_us"] else None,
                "verdict": verdict_word(ops),
            }
        )
    return table


def _poll_claim(cid, text, rule, cells, passed):
    """A claim on poll against interrupt over cells: passed is the point
    verdict, the state the worst of the cells' paired decisions."""
    st = stats.worst_state(stats.decide(t["paired"], rule)[0] for t in cells)
    return {"id": cid, "text": text, **rule.as_dict(), "passed": passed, "state": st}


def _poll_alone_claim(alone):
    """The thesis's first direction, on the cells alone: (claim, sentence)."""
    claim = _poll_claim(
        "poll-alone",
        f"alone, hybridio-poll's ops/s is no worse than hybridio-interrupt's at "
        f"{POLL_ALONE.margin:.0%} at every ratio (the thesis: polling wins or ties alone)",
        POLL_ALONE,
        alone,
        all(_at_least(t["ops_ratio"], HURTS) for t in alone),
    )
    sentence = (
        "Alone, poll / interrupt ops/s: "
        + ", ".join(f"{t['ops_ratio_text']} at {ratio_label(t['ratio'])}" for t in alone)
        + f" (the thesis, SPDK / Posix: 2:1 ≈ equal, 5:1 +12%, 10:1 +48%); {POLL_ALONE.words()}: "
        f"{stats.STATE_WORDS[claim['state']]}."
    )
    return claim, sentence


def _poll_contended_claim(contended):
    """The thesis's second direction, on the cells at 10% interference or more: (claim, sentence)."""
    claim = _poll_claim(
        "poll-contended",
        f"from 10% interference on, hybridio-poll's ops/s < {HURTS:g} x "
        f"hybridio-interrupt's in every cell (the thesis: 10% costs "
        f"SPDK ~50%, Posix < 1%)",
        POLL_CONTENDED,
        contended,
        all(t["ops_ratio"] < HURTS for t in contended),
    )
    sentence = (
        "With a co-runner at 10% or more, poll / interrupt ops/s: "
        + ", ".join(f"{t['ops_ratio_text']} at {_where(t['ratio'], t['degree'])}" for t in contended)
        + f"; {POLL_CONTENDED.words()}: {stats.STATE_WORDS[claim['state']]}."
    )
    return claim, sentence


def _crossover(table, sweep_ratio):
    """The lowest degree at the sweep ratio from which polling hurts in every
    cell above it (None if none), and the sentence that says it (none
    without contended cells at that ratio)."""
    sweep = sorted((t for t in table if t["ratio"] == sweep_ratio and t["degree"]), key=lambda t: t["degree"])
    crossover = next(
        (t["degree"] for k, t in enumerate(sweep) if all(u["verdict"] == "hurts" for u in sweep[k:])), None
    )
    if not sweep:
        return crossover, []
    return crossover, [
        f"At {ratio_label(sweep_ratio)} polling hurts from "
        + (
            f"{crossover}% interference on"
            if crossover is not None
            else "no degree on (it never stays below interrupts)"
        )
        + " (the thesis: from ~5%; poll only when ≥ 95% of the CPU is free)."
    ]


def posix_claims(rows, sweep_ratio, records=()):
    """Claim 3, alone at the sweep ratio, per workload: hybridio-interrupt's
    ops/s >= posix-direct's at no more CPU per operation, and hybridio-poll's
    ops/s >= posix-direct's."""
    claims = []
    for workload in ("readrandom", "mixgraph"):
        p = _cell(rows, workload, "posix-direct", sweep_ratio, 0)
        if not p or not p["ops_per_s"]:
            continue
        for config, cpu in (("hybridio-interrupt", True), ("hybridio-poll", False)):
            h = _cell(rows, workload, config, sweep_ratio, 0)
            if not h or h["ops_per_s"] is None:
                continue
            r = h["ops_per_s"] / p["ops_per_s"]
            ok = _at_least(h["ops_per_s"], POSIX_OPS.threshold() * p["ops_per_s"])
            cpu_text = ""
            if cpu:
                hc, pc = h.get("cpu_us_per_op"), p.get("cpu_us_per_op")
                ok = ok and hc is not None and pc is not None and hc <= pc * POSIX_CPU.threshold() * (1 + EPS)
                cpu_text = (
                    f", CPU {hc:.1f} against {pc:.1f} µs/op"
                    if hc is not None and pc is not None
                    else ", CPU per operation not measured"
                )
            text = f"{workload} alone: {config}'s ops/s is no worse than posix-direct's at {POSIX_OPS.margin:.0%}" + (
                f", nor its CPU per operation at {POSIX_CPU.margin:.0%}" if cpu else ""
            )
            st, iv = stats.decide(
                paired(records, workload, sweep_ratio, 0, config, "posix-direct", lambda x: x["ops_per_s"]), POSIX_OPS
            )
            said = f"ops/s {stats.describe(iv)}"
            if cpu:
                cst, civ = stats.decide(
                    paired(records, workload, sweep_ratio, 0, config, "posix-direct", lambda x: x.get("cpu_us_per_op")),
                    POSIX_CPU,
                )
                st = stats.worst_state([st, cst])
                said += f", our CPU per operation over posix-direct's {stats.describe(civ)}"
            claims.append(
                {
                    "id": f"{workload}-{config}-vs-posix",
                    "text": text,
                    **POSIX_OPS.as_dict(),
                    "rule": f"ops/s {POSIX_OPS.words()}" + (f", CPU {POSIX_CPU.words()}" if cpu else ""),
                    "passed": ok,
                    "ratio": r,
                    "state": st,
                    "interval": iv.as_dict() if iv else None,
                    "sentence": f"{workload} alone: {config} {h['ops_per_s']:,.0f} ops/s, posix-direct "
                    f"{p['ops_per_s']:,.0f} ({r:.2f}x{cpu_text}): {met(ok)}; paired by round, "
                    f"{said}; ops/s {POSIX_OPS.words()}"
                    + (f", CPU {POSIX_CPU.words()}" if cpu else "")
                    + f": {stats.STATE_WORDS[st]}.",
                }
            )
    return claims


def _change(rows, config, ratio, degree, figure="ops_per_s"):
    """% change of a figure from alone to `degree` for one configuration."""
    a, c = _cell(rows, "mixgraph", config, ratio, 0), _cell(rows, "mixgraph", config, ratio, degree)
    if not a or not c or not a[figure] or c[figure] is None:
        return None
    return (c[figure] / a[figure] - 1) * 100


def _vs(rows, x, y, ratio, degree):
    """% by which config x's ops/s is above config y's in one cell."""
    a, b = _cell(rows, "mixgraph", x, ratio, degree), _cell(rows, "mixgraph", y, ratio, degree)
    if not a or not b or not b["ops_per_s"] or a["ops_per_s"] is None:
        return None
    return (a["ops_per_s"] / b["ops_per_s"] - 1) * 100


# The thesis rows' short names of the configurations, in the order they are listed.
SHORT = {
    "hybridio-poll": "poll",
    "posix": "posix",
    "hybridio-interrupt": "interrupt",
    "hybridio-adaptive": "adaptive",
}


def thesis_rows(rows, sweep_ratio, degrees, ratios):
    """The thesis's figures beside ours: SPDK ↔ hybridio-poll, Posix ↔ posix
    (and hybridio-interrupt, hybridio-adaptive beside them)."""
    configs = [c for c in SHORT if any(r["config"] == c for r in rows)]
    out = _alone_rows(rows, ratios)
    if 10 in degrees:
        out += _thesis_row(
            f"10% interference at {ratio_label(sweep_ratio)}, ops/s against alone",
            THESIS["at10"],
            _per_config(configs, lambda c: _change(rows, c, sweep_ratio, 10)),
        )
    out += _gap_rows(rows, sweep_ratio, degrees)
    out += _thesis_row(
        f"full co-runner (100%) at {ratio_label(sweep_ratio)}, ops/s against alone",
        THESIS["full_ops"],
        _per_config(configs, lambda c: _change(rows, c, sweep_ratio, FULL_DEGREE)),
    )
    out += _thesis_row(
        f"full co-runner (100%) at {ratio_label(sweep_ratio)}, mean latency against alone",
        THESIS["full_latency"],
        _per_config(configs, lambda c: _change(rows, c, sweep_ratio, FULL_DEGREE, "micros_per_op")),
    )
    return out + _worst_rows(rows)


def _thesis_row(finding, thesis, ours):
    """[the row], or [] where we have no figure to put beside the thesis's."""
    return [{"finding": finding, "thesis": thesis, "ours": ours}] if ours else []


def _per_config(configs, fn):
    """fn's % per configuration that has one, joined; None if none has."""
    parts = [f"{SHORT[c]} {_pct(fn(c))}" for c in configs if fn(c) is not None]
    return ", ".join(parts) if parts else None


def _alone_rows(rows, ratios):
    """Alone at each ratio: poll against posix and against interrupt, ops/s."""
    out = []
    for r in ratios:
        ours = []
        for x, y in (("hybridio-poll", "posix"), ("hybridio-poll", "hybridio-interrupt")):
            v = _vs(rows, x, y, r, 0)
            if v is not None:
                ours.append(f"{SHORT[x]} vs {SHORT[y]} {_pct(v)}")
        out += _thesis_row(
            f"alone at {ratio_label(r)}: SPDK against Posix, ops/s",
            THESIS["alone_spdk_over_posix"].get(r, "–"),
            ", ".join(ours),
        )
    return out


def _gap_rows(rows, sweep_ratio, degrees):
    """Polling's loss at each degree, those up to 5% first: against alone and against posix."""
    parts = []
    for d in [d for d in degrees if 0 < d <= 5] + [d for d in degrees if d > 5]:
        v, w = _change(rows, "hybridio-poll", sweep_ratio, d), _vs(rows, "hybridio-poll", "posix", sweep_ratio, d)
        if v is not None or w is not None:
            parts.append(f"{d}%: poll {_pct(v)} against alone, {_pct(w)} against posix")
    return _thesis_row(
        f"polling's loss below and above ~5% interference ({ratio_label(sweep_ratio)})", THESIS["gap"], "; ".join(parts)
    )


def _worst_rows(rows):
    """hybridio-poll's worst latency and ops/s change over the mixgraph contention cells."""
    contended = [
        (r["ratio"], r["degree"])
        for r in rows
        if r["workload"] == "mixgraph" and r["config"] == "hybridio-poll" and r["degree"]
    ]
    lat = [v for v in (_change(rows, "hybridio-poll", r, d, "micros_per_op") for r, d in contended) if v is not None]
    ops = [v for v in (_change(rows, "hybridio-poll", r, d) for r, d in contended) if v is not None]
    if not (lat and ops):
        return []
    return _thesis_row(
        "worst of hybridio-poll over the contention cells, against alone",
        THESIS["worst"],
        f"latency {_pct(max(lat))}, ops/s {_pct(min(ops))}",
    )


def plugin_table(rows):
    """Per plugin configuration and cell: the plugin's cache hit ratio and wait-mode shares."""
    return [
        {
            k: r[k]
            for k in (
                "workload",
                "config",
                "ratio",
                "degree",
                "cache_hit_ratio",
                "wait_interrupt",
                "wait_poll",
                "wait_hybrid",
            )
        }
        for r in rows
        if r["config"].startswith("hybridio-")
    ]


def device_findings(rows, sweep_ratio, degrees, ratios, records=()):
    """The claims, sentences and tables of one device's one-thread rows (and runs)."""
    adaptive = [adaptive_claim(rows, c, records) for c in ADAPTIVE_OBJECTIVES if any(r["config"] == c for r in rows)]
    pvi = poll_vs_interrupt(rows, sweep_ratio, records)
    vs_posix = posix_claims(rows, sweep_ratio, records)
    claims = adaptive + pvi["claims"] + vs_posix
    sentences = [a["sentence"] for a in adaptive] + pvi["sentences"] + [c["sentence"] for c in vs_posix]
    return {
        "claims": [c for c in claims if c["passed"] is not None],
        "sentences": sentences,
        "poll_vs_interrupt": pvi["table"],
        "crossover_degree": pvi["crossover_degree"],
        "thesis": thesis_rows(rows, sweep_ratio, degrees, ratios),
        "plugin": plugin_table(rows),
    }


def findings(rows, sweep_ratio, degrees, ratios, records=()):
    """Everything rocksdb.json and the report say about the cell rows: per
    device the judged claims, the sentences and the tables (each entry names
    its device), and the threads experiment's claim. The runs (records) give
    each claim its paired, per-round interval and state."""
    out = {"claims": [], "sentences": [], "poll_vs_interrupt": [], "crossover_degree": {}, "thesis": [], "plugin": []}
    for device in [d for d in DEVICES if any(r["device"] == d for r in rows)]:
        mine = [r for r in rows if r["device"] == device and r["threads"] == 1]
        runs = [r for r in records if r.get("device", "disk") == device and r.get("threads", 1) == 1]
        f = device_findings(mine, sweep_ratio, degrees, ratios, runs)
        for c in f["claims"]:
            out["claims"].append(dict(c, device=device, text=f"{device}: {c['text']}"))
        out["sentences"] += [f"{device}: {s}" for s in f["sentences"]]
        for k in ("poll_vs_interrupt", "thesis", "plugin"):
            out[k] += [dict(t, device=device) for t in f[k]]
        out["crossover_degree"][device] = f["crossover_degree"]
    many = threads_claim([r for r in rows if r["threads"] > 1], [r for r in records if r.get("threads", 1) > 1])
    if many:
        out["claims"].append(dict(many, device="disk"))
        out["sentences"].append(f"disk: {many['sentence']}")
    return out
