"""The RocksDB study's medians, claims and the thesis's figures beside ours.

A cell is (workload, configuration, dataset:cache ratio, interference
degree); its row holds the median of each figure over the repeats. The
claims: (1) in each contention cell hybridio-adaptive reaches 95% of the
best configuration's ops/s; (2) where polling helps RocksDB and where it
hurts, hybridio-poll against hybridio-interrupt per cell, with the thesis's
two directions (alone polling does not lose; from 10% interference it
does); (3) readrandom alone, the plugin's I/O path (hybridio-interrupt
without a cache of its own) reaches 95% of Posix's direct reads.
"""
from .handles import median, spread_pct

CONFIGS = ("posix", "posix-direct", "hybridio-interrupt", "hybridio-poll", "hybridio-hybrid", "hybridio-adaptive")
READRANDOM_CONFIGS = ("posix-direct", "hybridio-interrupt")
RATIOS_DEGREE = 50     # the ratios experiment's contended degree, as in the thesis's Figure 17
FULL_DEGREE = 100

# The claims' thresholds.
ADAPTIVE_REACH = 0.95   # adaptive's ops/s >= this x the best configuration's in each contention cell
HELPS, HURTS = 1.05, 0.95   # poll / interrupt ops/s: "helps" at or above HELPS, "hurts" below HURTS, else a tie
READRANDOM_REACH = 0.95    # hybridio-interrupt's ops/s >= this x posix-direct's
EPS = 1e-9                 # relative slack: a figure exactly on a threshold meets it

# The thesis (PCIe 4.0 SSD; SPDK polls, Posix takes interrupts).
THESIS = {
    "alone_spdk_over_posix": {2.0: "≈ equal", 5.0: "+12%", 10.0: "+48%"},
    "at10": "SPDK −50%, Posix < 1% (against alone)",
    "gap": "≈ 20% below ~5% interference, > 40% above it (poll only when ≥ 95% of the CPU is free)",
    "full_ops": "SPDK −66…−68%, Posix −43% (against alone)",
    "full_latency": "SPDK +194…+215%, Posix +76…+97% (against alone)",
    "worst": "SPDK up to +318% latency and −76% throughput",
}

FIGURES = ["ops_per_s", "micros_per_op", "p99_us", "get_p99_us", "put_p99_us", "seek_p99_us", "pagecache_peak_mib",
           "anon_peak_mib", "cache_hit_ratio", "wait_interrupt", "wait_poll", "wait_hybrid"]


def ratio_label(r):
    return f"{r:g}:1"


def summarize(records):
    """One row per cell: the median of each figure over the repeats, and the
    spread of ops/s, (max - min) / median in %."""
    by = {}
    for r in records:
        by.setdefault((r["workload"], r["config"], r["ratio"], r["degree"]), []).append(r)
    rows = []
    for (workload, config, ratio, degree), recs in by.items():
        row = {"workload": workload, "config": config, "ratio": ratio, "degree": degree,
               "budget_mib": recs[0]["budget_mib"], "repeats": len(recs)}
        for f in FIGURES:
            row[f] = median(r.get(f) for r in recs)
        row["spread_pct"] = spread_pct([r["ops_per_s"] for r in recs])
        rows.append(row)
    order = {c: i for i, c in enumerate(CONFIGS)}
    rows.sort(key=lambda r: (r["workload"] != "mixgraph", r["ratio"], r["degree"], order.get(r["config"], 99)))
    return rows


def _at_least(x, limit):
    return x >= limit * (1 - EPS)


def met(passed):
    return "met" if passed else "NOT met"


def _pct(x):
    return "–" if x is None else f"{x:+.0f}%"


def _cell(rows, workload, config, ratio, degree):
    return next((r for r in rows if (r["workload"], r["config"], r["ratio"], r["degree"]) ==
                 (workload, config, ratio, degree)), None)


def _where(ratio, degree):
    return f"{ratio_label(ratio)}, {'alone' if not degree else f'{degree}%'}"


def adaptive_claim(rows):
    """Claim 1: in each contention cell (mixgraph with a co-runner) adaptive's
    ops/s is within 5% of the best configuration's."""
    cells = sorted({(r["ratio"], r["degree"]) for r in rows if r["workload"] == "mixgraph" and r["degree"]})
    judged = []
    for ratio, degree in cells:
        here = [r for r in rows if r["workload"] == "mixgraph" and (r["ratio"], r["degree"]) == (ratio, degree)
                and r["ops_per_s"] is not None]
        ad = next((r for r in here if r["config"] == "hybridio-adaptive"), None)
        if ad is None or len(here) < 2:
            continue
        best = max(here, key=lambda r: r["ops_per_s"])
        judged.append({"ratio": ratio, "degree": degree, "adaptive": ad["ops_per_s"], "best": best["config"],
                       "best_ops_per_s": best["ops_per_s"], "score": ad["ops_per_s"] / best["ops_per_s"],
                       "passed": _at_least(ad["ops_per_s"], ADAPTIVE_REACH * best["ops_per_s"])})
    text = f"in each contention cell, hybridio-adaptive's ops/s >= {ADAPTIVE_REACH:g} x the best configuration's"
    if not judged:
        return {"id": "adaptive", "text": text, "passed": None, "cells": [],
                "sentence": "Adaptive: no contention cell with adaptive and another configuration, so not judged."}
    ok = [c for c in judged if c["passed"]]
    worst = min(judged, key=lambda c: c["score"])
    misses = "; ".join(f"{_where(c['ratio'], c['degree'])}: {c['score']:.2f} of {c['best']}"
                       for c in judged if not c["passed"])
    sentence = (f"Adaptive reached {ADAPTIVE_REACH:.0%} of the best configuration's ops/s in {len(ok)} of "
                f"{len(judged)} contention cells (lowest {worst['score']:.2f}, {_where(worst['ratio'], worst['degree'])}"
                f", against {worst['best']}){'; missed at ' + misses if misses else ''}: {met(len(ok) == len(judged))}.")
    return {"id": "adaptive", "text": text, "passed": len(ok) == len(judged), "cells": judged, "sentence": sentence}


def verdict_word(ratio):
    if ratio is None:
        return None
    return "helps" if _at_least(ratio, HELPS) else ("hurts" if ratio < HURTS else "tie")


def poll_vs_interrupt(rows, sweep_ratio):
    """Claim 2, where polling helps RocksDB and where it hurts: per mixgraph
    cell, hybridio-poll's ops/s, mean and p99 latency over
    hybridio-interrupt's; then the thesis's two directions: alone polling
    does not lose (>= 0.95x), and from 10% interference it loses (< 0.95x);
    and the lowest degree at the sweep ratio from which it hurts."""
    table = []
    for ratio, degree in sorted({(r["ratio"], r["degree"]) for r in rows if r["workload"] == "mixgraph"}):
        p = _cell(rows, "mixgraph", "hybridio-poll", ratio, degree)
        i = _cell(rows, "mixgraph", "hybridio-interrupt", ratio, degree)
        if not p or not i or not p["ops_per_s"] or not i["ops_per_s"]:
            continue
        ops = p["ops_per_s"] / i["ops_per_s"]
        table.append({"ratio": ratio, "degree": degree, "poll_ops_per_s": p["ops_per_s"],
                      "interrupt_ops_per_s": i["ops_per_s"], "ops_ratio": ops,
                      "mean_latency_ratio": p["micros_per_op"] / i["micros_per_op"] if i["micros_per_op"] else None,
                      "p99_ratio": p["p99_us"] / i["p99_us"] if p["p99_us"] and i["p99_us"] else None,
                      "verdict": verdict_word(ops)})
    claims, said = [], []
    alone = [t for t in table if not t["degree"]]
    contended = [t for t in table if t["degree"] >= 10]
    if alone:
        ok = all(_at_least(t["ops_ratio"], HURTS) for t in alone)
        claims.append({"id": "poll-alone", "text": f"alone, hybridio-poll's ops/s >= {HURTS:g} x hybridio-interrupt's "
                                                   f"at every ratio (the thesis: polling wins or ties alone)",
                       "passed": ok})
        said.append("Alone, poll / interrupt ops/s: " + ", ".join(f"{t['ops_ratio']:.2f} at {ratio_label(t['ratio'])}"
                                                                  for t in alone) +
                    f" (the thesis, SPDK / Posix: 2:1 ≈ equal, 5:1 +12%, 10:1 +48%): {met(ok)}.")
    if contended:
        ok = all(t["ops_ratio"] < HURTS for t in contended)
        claims.append({"id": "poll-contended", "text": f"from 10% interference on, hybridio-poll's ops/s < {HURTS:g} x "
                                                       f"hybridio-interrupt's in every cell (the thesis: 10% costs "
                                                       f"SPDK ~50%, Posix < 1%)", "passed": ok})
        said.append("With a co-runner at 10% or more, poll / interrupt ops/s: " +
                    ", ".join(f"{t['ops_ratio']:.2f} at {_where(t['ratio'], t['degree'])}" for t in contended) +
                    f": {met(ok)}.")
    sweep = sorted((t for t in table if t["ratio"] == sweep_ratio and t["degree"]), key=lambda t: t["degree"])
    crossover = None
    for k, t in enumerate(sweep):
        if all(u["verdict"] == "hurts" for u in sweep[k:]):
            crossover = t["degree"]
            break
    if sweep:
        said.append(f"At {ratio_label(sweep_ratio)} polling hurts from "
                    + (f"{crossover}% interference on" if crossover is not None else "no degree on (it never "
                       "stays below interrupts)")
                    + " (the thesis: from ~5%; poll only when ≥ 95% of the CPU is free).")
    return {"table": table, "claims": claims, "sentences": said, "crossover_degree": crossover}


def readrandom_claim(rows, sweep_ratio):
    """Claim 3: readrandom alone, hybridio-interrupt (no cache of its own) >=
    0.95 x posix-direct's ops/s: the plugin's I/O path costs no more than
    RocksDB's own direct reads."""
    p = _cell(rows, "readrandom", "posix-direct", sweep_ratio, 0)
    h = _cell(rows, "readrandom", "hybridio-interrupt", sweep_ratio, 0)
    text = f"readrandom alone: hybridio-interrupt's ops/s >= {READRANDOM_REACH:g} x posix-direct's"
    if not p or not h or not p["ops_per_s"] or h["ops_per_s"] is None:
        return None
    r = h["ops_per_s"] / p["ops_per_s"]
    ok = _at_least(h["ops_per_s"], READRANDOM_REACH * p["ops_per_s"])
    return {"id": "readrandom", "text": text, "passed": ok, "ratio": r,
            "sentence": f"readrandom alone: hybridio-interrupt {h['ops_per_s']:,.0f} ops/s, posix-direct "
                        f"{p['ops_per_s']:,.0f} ({r:.2f}x; claim: >= {READRANDOM_REACH:g}x): {met(ok)}."}


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


def thesis_rows(rows, sweep_ratio, degrees, ratios):
    """The thesis's figures beside ours: SPDK ↔ hybridio-poll, Posix ↔ posix
    (and hybridio-interrupt, hybridio-adaptive beside them)."""
    out = []
    configs = [c for c in ("hybridio-poll", "posix", "hybridio-interrupt", "hybridio-adaptive")
               if any(r["config"] == c for r in rows)]
    short = {"hybridio-poll": "poll", "posix": "posix", "hybridio-interrupt": "interrupt",
             "hybridio-adaptive": "adaptive"}

    def per_config(fn):
        parts = [f"{short[c]} {_pct(fn(c))}" for c in configs if fn(c) is not None]
        return ", ".join(parts) if parts else None

    for r in ratios:
        ours = []
        for x, y in (("hybridio-poll", "posix"), ("hybridio-poll", "hybridio-interrupt")):
            v = _vs(rows, x, y, r, 0)
            if v is not None:
                ours.append(f"{short[x]} vs {short[y]} {_pct(v)}")
        if ours:
            out.append({"finding": f"alone at {ratio_label(r)}: SPDK against Posix, ops/s",
                        "thesis": THESIS["alone_spdk_over_posix"].get(r, "–"), "ours": ", ".join(ours)})
    if 10 in degrees:
        ours = per_config(lambda c: _change(rows, c, sweep_ratio, 10))
        if ours:
            out.append({"finding": f"10% interference at {ratio_label(sweep_ratio)}, ops/s against alone",
                        "thesis": THESIS["at10"], "ours": ours})
    low = [d for d in degrees if 0 < d <= 5]
    high = [d for d in degrees if d > 5]
    if low or high:
        parts = []
        for d in low + high:
            v, w = _change(rows, "hybridio-poll", sweep_ratio, d), _vs(rows, "hybridio-poll", "posix", sweep_ratio, d)
            if v is not None or w is not None:
                parts.append(f"{d}%: poll {_pct(v)} against alone, {_pct(w)} against posix")
        if parts:
            out.append({"finding": f"polling's loss below and above ~5% interference ({ratio_label(sweep_ratio)})",
                        "thesis": THESIS["gap"], "ours": "; ".join(parts)})
    ours = per_config(lambda c: _change(rows, c, sweep_ratio, FULL_DEGREE))
    if ours:
        out.append({"finding": f"full co-runner (100%) at {ratio_label(sweep_ratio)}, ops/s against alone",
                    "thesis": THESIS["full_ops"], "ours": ours})
    ours = per_config(lambda c: _change(rows, c, sweep_ratio, FULL_DEGREE, "micros_per_op"))
    if ours:
        out.append({"finding": f"full co-runner (100%) at {ratio_label(sweep_ratio)}, mean latency against alone",
                    "thesis": THESIS["full_latency"], "ours": ours})
    contended = [(r["ratio"], r["degree"]) for r in rows if r["workload"] == "mixgraph"
                 and r["config"] == "hybridio-poll" and r["degree"]]
    lat = [v for v in (_change(rows, "hybridio-poll", r, d, "micros_per_op") for r, d in contended) if v is not None]
    ops = [v for v in (_change(rows, "hybridio-poll", r, d) for r, d in contended) if v is not None]
    if lat and ops:
        out.append({"finding": "worst of hybridio-poll over the contention cells, against alone",
                    "thesis": THESIS["worst"], "ours": f"latency {_pct(max(lat))}, ops/s {_pct(min(ops))}"})
    return out


def plugin_table(rows):
    """Per plugin configuration and cell: the plugin's cache hit ratio and wait-mode shares."""
    return [{k: r[k] for k in ("workload", "config", "ratio", "degree", "cache_hit_ratio", "wait_interrupt",
                               "wait_poll", "wait_hybrid")}
            for r in rows if r["config"].startswith("hybridio-")]


def findings(rows, sweep_ratio, degrees, ratios):
    """Everything rocksdb.json and the report say about the cell rows: the
    judged claims, the sentences, the tables."""
    adaptive = adaptive_claim(rows)
    pvi = poll_vs_interrupt(rows, sweep_ratio)
    rr = readrandom_claim(rows, sweep_ratio)
    claims = [adaptive] + pvi["claims"] + ([rr] if rr else [])
    sentences = [adaptive["sentence"]] + pvi["sentences"] + ([rr["sentence"]] if rr else [])
    return {"claims": [c for c in claims if c["passed"] is not None],
            "sentences": sentences, "poll_vs_interrupt": pvi["table"], "crossover_degree": pvi["crossover_degree"],
            "thesis": thesis_rows(rows, sweep_ratio, degrees, ratios), "plugin": plugin_table(rows)}
