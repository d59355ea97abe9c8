# SPDX-License-Identifier: MIT
"""From the handle experiments' runs (hybridio.handles.runner) to their
tables, claims and sentences: medians per configuration for the figures, and
each claim judged on its ratio within every repeat, with its 95% interval
(hybridio.common.stats): met, not met or unresolved."""

from ..common import stats
from .experiments import CACHE_MB, EXPERIMENTS, QUEUE_JOBS, QUEUE_MODES, READAHEAD_PATTERNS

TITLES = {
    "priority": "Priority",
    "queues": "Dedicated and shared queues",
    "poll_period": "Polling period",
    "cache": "Block cache",
    "readahead": "Read-ahead",
    "split": "Reads apart from writes",
}

# The claims' rules (hybridio.common.stats.Rule) and the figures they rest on.
PRIORITY_RATIO = 2.0
PRIORITY = stats.superior(PRIORITY_RATIO - 1)  # the high job's IOPS over each other job's
PRIORITY_SPREAD = 0.10
EVEN = stats.non_inferior(PRIORITY_SPREAD, lower_is_better=True)  # the jobs' max / min IOPS against even
AUTO_IOPS = stats.non_inferior(0.05)  # auto's IOPS against the best fixed period's
REACH = AUTO_IOPS.threshold()  # a fixed period "reaches" the best when its IOPS >= REACH x best
AUTO_CPU = 1.25  # auto may spend up to this x the cheapest CPU among those that reach the best
AUTO_CPU_RULE = stats.non_inferior(AUTO_CPU - 1, lower_is_better=True)
READAHEAD = stats.non_inferior(stats.RATE_MARGIN)  # auto read-ahead's IOPS against the better of on and off
EPS = 1e-9  # relative slack so that a figure exactly on a threshold counts as meeting it


def _finding(rows, said, claims=(), columns=None, **extra):
    """One experiment's table, claims and sentences, as findings() returns them.
    The table's columns are its rows' keys unless named."""
    columns = list(columns) if columns else (list(rows[0]) if rows else [])
    return {"columns": columns, "rows": rows, "claims": list(claims), "sentences": said, **extra}


def _row(rec, keys, figures, spread=None):
    """One configuration's table row: what tells it apart, the device it ran on,
    its figures, then (spread = (label, figure)) that figure's spread between
    repeats, and the repeat count."""
    row = {**keys, "device": device(rec["target"], rec["emulated"]), **figures}
    if spread:
        label, figure = spread
        row[f"{label} spread %"] = rec["spread"].get(figure)
    row["repeats"] = rec["repeats"]
    return row


def medians(results, experiment):
    """{key: {"config":..., "emulated":..., "target":..., "repeats": n, "figures": {name: median},
    "spread": {name: %}, "ci95": {name: [low, high]}}} for one experiment, in the order the runs came;
    nested dicts of figures (per job) are medianed per entry; ci95 holds the 95% interval of each
    numeric figure's centre (hybridio.common.stats) where it has two repeats or more."""
    by = {}
    for rec in results.get("runs", []):
        if rec.get("experiment") == experiment:
            by.setdefault(rec["key"], []).append(rec)
    out = {}
    for key, recs in by.items():
        names = _figure_names(recs)
        out[key] = {
            "config": recs[0]["config"],
            "target": recs[0].get("target"),
            "emulated": all(rec.get("emulated") for rec in recs),
            "repeats": len(recs),
            "figures": {n: _median_figure([rec["figures"].get(n) for rec in recs]) for n in names},
            "spread": {n: stats.spread_pct([rec["figures"].get(n) for rec in recs]) for n in names},
            "ci95": _intervals(recs, names),
        }
    return out


def _figure_names(recs):
    """Every figure any of the repeats has, in the order they first appear."""
    names = []
    for rec in recs:
        for n in rec.get("figures", {}):
            if n not in names:
                names.append(n)
    return names


def _median_figure(vals):
    """One figure's median over the repeats: per entry for a dict (per job);
    a list (names, not numbers) is taken from the first repeat that has one."""
    if any(isinstance(v, dict) for v in vals):
        sub = {}
        for v in vals:
            for k in v or {}:
                sub.setdefault(k, []).append(v[k])
        return {k: stats.median(v) for k, v in sub.items()}
    if any(isinstance(v, list) for v in vals):
        return next((v for v in vals if v), [])
    return stats.median(stats.number(v) for v in vals)


def _intervals(recs, names):
    """{name: [low, high]}: the 95% interval of each figure's centre, for those with two repeats or more."""
    ci95 = {}
    for n in names:
        iv = stats.figure_interval([stats.number(rec["figures"].get(n)) for rec in recs])
        if iv and iv.n > 1:
            ci95[n] = [iv.low, iv.high]
    return ci95


def by_repeat(results, experiment):
    """[{key: figures}, ...]: one experiment's runs, a dict per repeat, in repeat order."""
    reps = {}
    for rec in results.get("runs", []):
        if rec.get("experiment") == experiment:
            reps.setdefault(rec["repeat"], {})[rec["key"]] = rec["figures"]
    return [reps[k] for k in sorted(reps)]


def ratio(a, b):
    """a / b, None where either is missing or b is not positive; an a of 0
    counts as stats.STARVED of b, so that the ratio stays defined."""
    a, b = stats.number(a), stats.number(b)
    if a is None or b is None or b <= 0:
        return None
    return max(a, stats.STARVED * b) / b


def repeat_ratios(reps, num, den, figure):
    """figure of configuration num over that of den, in each repeat where both ran."""
    return [ratio(rep[num].get(figure), rep[den].get(figure)) for rep in reps if num in rep and den in rep]


def judged(cid, text, ratios, rule, measured):
    """A claim judged on its per-repeat ratios (hybridio.common.stats.claim), with the medians it was drawn from."""
    ratios = [r for r in ratios if r is not None]
    c = stats.claim(cid, text, ratios, rule)
    c["measured"] = measured
    return c


def _at_least(x, limit):
    return x >= limit * (1 - EPS)


def device(target, is_emulated):
    return "emulated" if is_emulated else target


def _fx(x, digits=1):
    return "–" if x is None else f"{x:.{digits}f}"


def _k(x):
    return "–" if x is None else f"{x:,.0f}"


def _high_over_others(jobs, high):
    others = [v for j, v in (jobs or {}).items() if j != high and v is not None]
    return ratio((jobs or {}).get(high), max(others)) if others else None


def _max_over_min(jobs):
    vals = [v for v in (jobs or {}).values() if v is not None]
    return ratio(max(vals), min(vals)) if len(vals) >= 2 else None


def _job_medians(rounds):
    jobs = dict.fromkeys(j for r in rounds for j in r)
    return {j: stats.median(r.get(j) for r in rounds) for j in jobs}


def priority_claims(on_rounds, high, off_rounds):
    """on_rounds/off_rounds: [{job: IOPS}, ...], one dict per repeat, with
    priority and without; high: the high-priority job's name. Each claim is
    judged on its ratio within each repeat. Returns (claims, sentences)."""
    claims, said = [], []
    med_on, med_off = _job_medians(on_rounds), _job_medians(off_rounds)
    ratios = [_high_over_others(r, high) for r in on_rounds]
    if any(x is not None for x in ratios):
        others = [v for j, v in med_on.items() if j != high and v is not None]
        c = judged(
            "priority-high",
            f"with priority, the high job's IOPS >= {PRIORITY_RATIO:g} x each other job's",
            ratios,
            PRIORITY,
            {"high_iops": med_on.get(high), "max_other_iops": max(others)},
        )
        claims.append(c)
        said.append(
            f"Priority: the high-priority job got {c['interval_text']}x the IOPS of the busiest other job "
            f"(claim: {PRIORITY.words()}): {stats.STATE_WORDS[c['state']]}."
        )
    else:
        said.append("Priority: the run with priority is missing, so its claim is not judged.")
    spreads = [_max_over_min(r) for r in off_rounds]
    if any(x is not None for x in spreads):
        vals = [v for v in med_off.values() if v is not None]
        c = judged(
            "priority-off-even",
            f"without priority, the {len(vals)} jobs' IOPS are within "
            f"{PRIORITY_SPREAD:.0%} of each other (max / min <= {1 + PRIORITY_SPREAD:g})",
            spreads,
            EVEN,
            {"min_iops": min(vals), "max_iops": max(vals)},
        )
        claims.append(c)
        said.append(
            f"Without priority the busiest of the {len(vals)} jobs got {c['interval_text']}x the IOPS of "
            f"the least busy (claim: {EVEN.words()}): {stats.STATE_WORDS[c['state']]}."
        )
    else:
        said.append("Priority: the run without priority is missing, so its claim is not judged.")
    return claims, said


def _priority(results):
    m = medians(results, "priority")
    on, off = m.get("priority-high"), m.get("priority-normal")
    high = ((on["figures"].get("high") or [None])[0] if on else None) or "high"
    rows = []
    for label, rec in (("on", on), ("off", off)):
        if rec:
            for j, v in rec["figures"].get("jobs", {}).items():
                rows.append(_row(rec, {"priority": label, "job": j}, {"IOPS": v}))
    reps = by_repeat(results, "priority")
    claims, said = priority_claims(
        [r["priority-high"].get("jobs", {}) for r in reps if "priority-high" in r],
        high,
        [r["priority-normal"].get("jobs", {}) for r in reps if "priority-normal" in r],
    )
    return _finding(rows, said, claims=claims)


def queue_peaks(points):
    """points: {queue: {jobs: IOPS}} -> {queue: jobs with the most IOPS} (the
    fewest jobs on a tie: where scaling stopped)."""
    peaks = {}
    for q, by in points.items():
        good = {n: v for n, v in by.items() if v is not None}
        if good:
            top = max(good.values())
            peaks[q] = min(n for n, v in good.items() if v >= top)
    return peaks


def _queues(results):
    m = medians(results, "queues")
    rows, points, waits = [], {}, {}
    for rec in m.values():
        q, n = rec["config"]["queue"], rec["config"]["jobs"]
        f = rec["figures"]
        points.setdefault(q, {})[n] = f.get("iops")
        waits.setdefault(q, {})[n] = f.get("lock_wait_pct")
        figures = {"IOPS": f.get("iops"), "lock wait %": f.get("lock_wait_pct")}
        rows.append(_row(rec, {"queue": q, "jobs": n}, figures, spread=("IOPS", "iops")))
    rows.sort(key=lambda r: (QUEUE_MODES.index(r["queue"]) if r["queue"] in QUEUE_MODES else 9, r["jobs"]))
    peaks = queue_peaks(points)
    said = []
    if peaks:
        parts = [
            f"{q} queues stop scaling at {n} job{'s' if n != 1 else ''} ({_k(points[q][n])} IOPS)"
            for q, n in peaks.items()
        ]
        said.append("Queues: " + "; ".join(parts) + ".")
    top = max(QUEUE_JOBS)
    d, s = points.get("dedicated", {}).get(top), points.get("shared", {}).get(top)
    measured = {"peak_jobs": peaks}
    if d is not None and s:
        measured["dedicated_over_shared_at_4"] = d / s
        said.append(
            f"At {top} jobs dedicated queues gave {d / s:.2f}x the IOPS of one shared queue "
            f"({_k(d)} against {_k(s)}); the shared queue's jobs waited for its lock "
            f"{_fx(waits['shared'].get(top))}% of the time, the dedicated ones "
            f"{_fx(waits.get('dedicated', {}).get(top))}%."
        )
    elif not peaks:
        said.append("Queues: no runs.")
    return _finding(rows, said, measured=measured)


def poll_claim(fixed, auto):
    """What auto is measured against, from the medians. fixed: {period_us:
    (IOPS, CPU %)} of the fixed periods; auto: (IOPS, CPU %) or None. best =
    the most IOPS of any fixed period; the periods that reach it have IOPS
    >= 0.95 x best; cpu_floor = the least CPU among them, at floor_period_us.
    Returns those and auto's ratios to them (None where a figure is missing)."""
    good = {p: (i, c) for p, (i, c) in fixed.items() if i is not None}
    f = {
        "best_period_us": None,
        "best_iops": None,
        "floor_period_us": None,
        "cpu_floor": None,
        "reaching_periods_us": [],
        "auto_iops_ratio": None,
        "auto_cpu_ratio": None,
    }
    if not good:
        return f
    best = max(i for i, _ in good.values())
    # On a tie for the most IOPS: the cheaper period, then the longer one.
    best_p = min(
        (p for p, (i, _) in good.items() if i >= best),
        key=lambda p: (good[p][1] if good[p][1] is not None else float("inf"), -p),
    )
    reach = {p: c for p, (i, c) in good.items() if _at_least(i, REACH * best) and c is not None}
    floor_p = min(reach, key=lambda p: (reach[p], -p)) if reach else None
    f.update(
        best_period_us=best_p,
        best_iops=best,
        floor_period_us=floor_p,
        cpu_floor=reach[floor_p] if reach else None,
        reaching_periods_us=sorted(p for p, (i, _) in good.items() if _at_least(i, REACH * best)),
    )
    if auto is not None:
        f["auto_iops_ratio"] = ratio(auto[0], best)
        f["auto_cpu_ratio"] = ratio(auto[1], f["cpu_floor"]) if f["cpu_floor"] else None
    return f


def _period_label(p):
    return "spin" if p == 0 else ("auto" if p == "auto" else f"{p} µs")


# The polling period's table and summary columns.
POLL_COLUMNS = (
    "target",
    "bs",
    "period",
    "IOPS",
    "CPU %",
    "mean period µs",
    "last period µs",
    "IOPS spread %",
    "repeats",
)
POLL_SUMMARY_COLUMNS = (
    "target",
    "bs",
    "best_period_us",
    "best_iops",
    "cpu_floor",
    "auto_period_us_mean",
    "auto_iops_ratio",
    "auto_cpu_ratio",
    "state",
)


def _poll_period(results):
    m = medians(results, "poll_period")
    rows, groups = [], {}
    for key, rec in m.items():
        c, f = rec["config"], rec["figures"]
        dev = device(c["target"], rec["emulated"])
        g = groups.setdefault((c["target"], c["bs"]), {"device": dev, "fixed": {}, "auto": None, "keys": {}})
        g["keys"][c["period"]] = key
        if c["period"] == "auto":
            g["auto"] = f
        else:
            g["fixed"][c["period"]] = f
        rows.append(_poll_row(rec, dev))
    claims, said, summary = [], [], []
    reps = by_repeat(results, "poll_period")
    for (target, bs), g in groups.items():
        r, c, sentence = _poll_group(target, bs, g, reps)
        summary.append(r)
        said.append(sentence)
        if c:
            claims.append(c)
    return _finding(
        rows, said, claims=claims, columns=POLL_COLUMNS, summary=summary, summary_columns=list(POLL_SUMMARY_COLUMNS)
    )


def _poll_row(rec, dev):
    """One configuration's table row of the polling period."""
    c, f = rec["config"], rec["figures"]
    return {
        "target": dev,
        "bs": c["bs"],
        "period": _period_label(c["period"]),
        "period_us": c["period"],
        "IOPS": f.get("iops"),
        "CPU %": f.get("cpu_pct"),
        "mean period µs": f.get("period_us_mean"),
        "last period µs": f.get("period_us_last"),
        "IOPS spread %": rec["spread"].get("iops"),
        "repeats": rec["repeats"],
    }


def _poll_group(target, bs, g, reps):
    """One (target, block size)'s summary row, claim (None where a figure it
    needs is missing) and sentence."""
    fixed = {p: (f.get("iops"), f.get("cpu_pct")) for p, f in g["fixed"].items()}
    auto = (g["auto"].get("iops"), g["auto"].get("cpu_pct")) if g["auto"] else None
    r = poll_claim(fixed, auto)
    r.update(target=g["device"], bs=bs, state=None)
    if g["auto"]:
        r.update(
            auto_period_us_mean=g["auto"].get("period_us_mean"), auto_period_us_last=g["auto"].get("period_us_last")
        )
    where = f"{g['device']}, {bs}"
    if auto is None or r["best_iops"] is None or r["cpu_floor"] is None:
        why = (
            "auto did not run"
            if auto is None
            else "no fixed period ran"
            if r["best_iops"] is None
            else "a CPU figure is missing"
        )
        return r, None, f"Polling period, {where}: {why}, so the claim is not judged."
    c, iops, cpu = _poll_judged(target, bs, where, g["keys"], r, reps)
    r["state"] = c["state"]
    sentence = (
        f"Polling period, {where}: the best fixed period was {_period_label(r['best_period_us'])} "
        f"({_k(r['best_iops'])} IOPS); those within {1 - REACH:.0%} of it need at least "
        f"{_fx(r['cpu_floor'])}% CPU ({_period_label(r['floor_period_us'])}); auto (mean period "
        f"{_fx(r.get('auto_period_us_mean'))} µs) got {iops['interval_text']}x the IOPS of the best at "
        f"{cpu['interval_text']}x the CPU of the cheapest (claim: IOPS {AUTO_IOPS.words()}, CPU "
        f"{AUTO_CPU_RULE.words()}): "
        f"{stats.STATE_WORDS[c['state']]}."
    )
    return r, c, sentence


def _poll_judged(target, bs, where, key, r, reps):
    """The polling period's claim on auto, judged on each repeat's ratios: its
    IOPS over the best fixed period's, its CPU over the cheapest reaching
    one's; the claim's state is the worse of the two. Returns (claim, IOPS
    part, CPU part)."""
    measured = {
        k: r[k]
        for k in ("best_period_us", "best_iops", "floor_period_us", "cpu_floor", "auto_iops_ratio", "auto_cpu_ratio")
    }
    iops = judged(
        f"poll-{target}-{bs}-iops",
        "IOPS",
        repeat_ratios(reps, key["auto"], key[r["best_period_us"]], "iops"),
        AUTO_IOPS,
        measured,
    )
    cpu = judged(
        f"poll-{target}-{bs}-cpu",
        "CPU",
        repeat_ratios(reps, key["auto"], key[r["floor_period_us"]], "cpu_pct"),
        AUTO_CPU_RULE,
        measured,
    )
    c = {
        "id": f"poll-{target}-{bs}",
        **AUTO_IOPS.as_dict(),
        "rule": f"IOPS {AUTO_IOPS.words()}, CPU {AUTO_CPU_RULE.words()}",
        "cpu_rule": AUTO_CPU_RULE.as_dict(),
        "state": stats.worst_state([iops["state"], cpu["state"]]),
        "text": f"{where}: auto gets >= {REACH:.0%} of the best fixed period's IOPS at <= {AUTO_CPU:g} x the "
        f"least CPU of the periods that reach {REACH:.0%} of it",
        "interval": iops["interval"],
        "cpu_interval": cpu["interval"],
        "interval_text": f"IOPS {iops['interval_text']}, CPU {cpu['interval_text']}",
        "measured": measured,
    }
    return c, iops, cpu


def _cache(results):
    m = medians(results, "cache")
    expected = {mb: (ratio, exp) for mb, ratio, exp in CACHE_MB}
    base = next((rec["figures"].get("iops") for rec in m.values() if rec["config"]["cache_mb"] == 0), None)
    rows, parts = [], []
    for rec in sorted(m.values(), key=lambda r: -r["config"]["cache_mb"]):
        mb, f = rec["config"]["cache_mb"], rec["figures"]
        ratio, exp = expected.get(mb, (rec["config"].get("ratio"), None))
        iops = f.get("iops")
        figures = {
            "IOPS": iops,
            "hit ratio": f.get("hit_ratio"),
            "expected hit ratio": exp,
            "IOPS / no cache": iops / base if iops is not None and base else None,
        }
        rows.append(_row(rec, {"cache MiB": mb, "dataset:cache": ratio}, figures, spread=("IOPS", "iops")))
        if mb and f.get("hit_ratio") is not None:
            parts.append(
                f"{f['hit_ratio']:.2f} at {ratio} (expected {exp:.2f})"
                + (f", {iops / base:.2f}x the IOPS of no cache" if iops is not None and base else "")
            )
    said = [f"Cache: hit ratio {'; '.join(parts)}."] if parts else (["Cache: no runs."] if not m else [])
    return _finding(rows, said)


def readahead_claim(by_mode):
    """by_mode: {"auto"|"on"|"off": median IOPS}: the better of on and off,
    which auto is measured against, and auto's ratio to it; None when a run is missing."""
    a, on, off = by_mode.get("auto"), by_mode.get("on"), by_mode.get("off")
    if a is None or (on is None and off is None):
        return None
    best_mode = max((m for m in ("on", "off") if by_mode.get(m) is not None), key=lambda m: by_mode[m])
    return {"ratio": ratio(a, by_mode[best_mode]), "better_of_on_off": best_mode}


def _readahead(results):
    m = medians(results, "readahead")
    rows, by, keys = [], {}, {}
    for key, rec in m.items():
        c, f = rec["config"], rec["figures"]
        by.setdefault(c["rw"], {})[c["readahead"]] = f.get("iops")
        keys[(c["rw"], c["readahead"])] = key
        figures = {"IOPS": f.get("iops"), "hit ratio": f.get("hit_ratio"), "read-ahead I/Os": f.get("readahead_ios")}
        rows.append(_row(rec, {"pattern": c["rw"], "readahead": c["readahead"]}, figures, spread=("IOPS", "iops")))
    claims, said = [], []
    reps = by_repeat(results, "readahead")
    for rw in READAHEAD_PATTERNS + tuple(k for k in by if k not in READAHEAD_PATTERNS):
        if rw not in by:
            continue
        words = "random reads" if rw == "randread" else ("sequential reads" if rw == "read" else rw)
        r = readahead_claim(by[rw])
        if r is None:
            said.append(f"Read-ahead, {words}: a run is missing, so the claim is not judged.")
            continue
        auto, best = keys[(rw, "auto")], keys[(rw, r["better_of_on_off"])]
        c = judged(
            f"readahead-{rw}",
            f"{words}: auto's IOPS is no worse than the better of on and off at {READAHEAD.margin:.0%}",
            repeat_ratios(reps, auto, best, "iops"),
            READAHEAD,
            {"ratio": r["ratio"], "better_of_on_off": r["better_of_on_off"]},
        )
        claims.append(c)
        said.append(
            f"Read-ahead, {words}: auto got {c['interval_text']}x the IOPS of the better of on and off "
            f"({r['better_of_on_off']}) (claim: {READAHEAD.words()}): {stats.STATE_WORDS[c['state']]}."
        )
    return _finding(rows, said, claims=claims)


def _split(results):
    m = medians(results, "split")
    rows, by = [], {}
    for rec in m.values():
        q, f = rec["config"]["queue"], rec["figures"]
        by[q] = f
        figures = {
            "reader p99 µs": f.get("read_p99_us"),
            "reader mean µs": f.get("read_mean_us"),
            "writer IOPS": f.get("write_iops"),
        }
        rows.append(_row(rec, {"queue": q}, figures, spread=("p99", "read_p99_us")))
    said, measured = [], {}
    s, t = (by.get("shared") or {}).get("read_p99_us"), (by.get("split_rw") or {}).get("read_p99_us")
    if s is not None and t:
        measured["p99_shared_over_split"] = s / t
        said.append(
            f"Split: the reader's p99 was {_fx(s)} µs on the shared queue and {_fx(t)} µs with reads and "
            f"writes on separate queues ({s / t:.2f}x); the writer got {_k(by['shared'].get('write_iops'))} "
            f"and {_k(by['split_rw'].get('write_iops'))} IOPS."
        )
    elif m:
        said.append("Split: a run is missing, so no comparison.")
    return _finding(rows, said, measured=measured)


BUILDERS = {
    "priority": _priority,
    "queues": _queues,
    "poll_period": _poll_period,
    "cache": _cache,
    "readahead": _readahead,
    "split": _split,
}


def findings(results):
    """{experiment: {"title", "emulated", "columns", "rows", "claims", "sentences", ...}} for every experiment
    with at least one run, in EXPERIMENTS order."""
    runs = results.get("runs", []) if results else []
    present = {r.get("experiment") for r in runs}
    out = {}
    for e in EXPERIMENTS:
        if e not in present:
            continue
        f = BUILDERS[e](results)
        f["title"] = TITLES[e]
        f["emulated"] = all(r.get("emulated") for r in runs if r.get("experiment") == e)
        out[e] = f
    return out


def sentences(found):
    return [s for f in found.values() for s in f["sentences"]]
