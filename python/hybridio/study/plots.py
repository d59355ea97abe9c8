# SPDX-License-Identifier: MIT
"""The contention study's figures (PNG), analogues of the thesis's Figures
5-10 and 16, with the 95% interval of each median as its error bar; the
timeline's and the bursty neighbour's."""

from ..report.figures import plt, save_figure, slug
from .bursty import STATIC, burst_name, objective_of

# The figure that shows which way of waiting to use: the report opens with it.
HEADLINE = "Both tenants, normalised to alone"
HEADROOM = 1.3  # an axis of medians reaches this far above the highest


def _contention(rows, target):
    return [r for r in rows if r["experiment"] == "contention" and r["target"] == target]


def _strategies(rows):
    return sorted({r["strategy"] for r in rows})


def _err(pts, key, scale=None):
    """matplotlib's yerr for pts' `key`: its 95% interval (summary's
    KEY_ci95_low/high) as distances below and above the median, each point
    divided by scale(point) where given; None where no point has one."""
    lo, hi = [], []
    for p in pts:
        v, a, b = p.get(key), p.get(f"{key}_ci95_low"), p.get(f"{key}_ci95_high")
        k = scale(p) if scale else 1.0
        ok = v is not None and a is not None and b is not None and k
        lo.append(max(0.0, (v - a) / k) if ok else 0.0)
        hi.append(max(0.0, (b - v) / k) if ok else 0.0)
    return [lo, hi] if any(lo) or any(hi) else None


def outside_legend(ax, fontsize=9):
    """A legend beside the axes, where it covers no data."""
    ax.legend(fontsize=fontsize, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def _normalized_series(mine, loads, s):
    """Strategy s's I/O and co-runner throughput over their own alone, per
    load, with their intervals (yerr) on the same scale."""
    by = {r["corunner_load_pct"]: r for r in mine if r["strategy"] == s}
    io = [by[ld]["iops"] / by[ld]["iops_solo"] if ld in by and by[ld]["iops_solo"] else 0 for ld in loads]
    app = [
        (by[ld]["corunner_ops_per_s"] or 0) / by[ld]["corunner_solo_ops_per_s"]
        if ld in by and by[ld]["corunner_solo_ops_per_s"]
        else 0
        for ld in loads
    ]
    pts = [by.get(ld, {}) for ld in loads]
    return (
        (io, _err(pts, "iops", lambda p: p.get("iops_solo"))),
        (app, _err(pts, "corunner_ops_per_s", lambda p: p.get("corunner_solo_ops_per_s"))),
    )


def normalized(rows, target, path):
    """I/O and co-runner throughput, each normalised to running alone, per
    strategy and co-runner load (Figures 7-10), one panel above the other so
    that the targets' figures stand side by side at the top of the report;
    the axis is set by the medians (and 1, running alone) and the intervals
    are clipped to it."""
    mine = [r for r in _contention(rows, target) if r["corunner_load_pct"]]
    if not mine:
        return False
    loads = sorted({r["corunner_load_pct"] for r in mine})
    strategies = _strategies(mine)
    series = {s: _normalized_series(mine, loads, s) for s in strategies}
    top = HEADROOM * max([1.0] + [y for both in series.values() for ys, _ in both for y in ys])
    fig, axes = plt.subplots(2, 1, figsize=(4.6, 4.6), sharex=True, sharey=True)
    width = 0.8 / len(strategies)
    clipped = False
    for i, s in enumerate(strategies):
        xs = [j + i * width for j in range(len(loads))]
        for ax, (ys, err) in zip(axes, series[s]):
            err, cut = clip_err(ys, err, top)
            clipped |= cut
            ax.bar(xs, ys, width, label=s, yerr=err, capsize=1.5, color=f"C{i}")
    for ax, title in zip(axes, ("I/O throughput / I/O alone", "co-runner throughput / co-runner alone")):
        ax.set_title(title, fontsize=9)
        ax.tick_params(labelsize=8)
        ax.axhline(1.0, color="grey", linewidth=0.8)
    axes[1].set_xticks([j + width * (len(strategies) - 1) / 2 for j in range(len(loads))])
    axes[1].set_xticklabels([f"{ld}%" for ld in loads])
    axes[1].set_xlabel("co-runner load", fontsize=9)
    axes[0].set_ylim(0, top)
    # One row up to four strategies, so that the legend is no wider than the panels.
    ncol = len(strategies) if len(strategies) <= 4 else (len(strategies) + 1) // 2
    axes[0].legend(fontsize=7, ncol=ncol, loc="lower center", bbox_to_anchor=(0.5, 1.15), frameon=False)
    note = "; error bars: 95% intervals, clipped to the axes" if clipped else ""
    return save_figure(fig, f"{target}: both tenants, normalised to running alone{note}", path, width=60)


def interference(rows, target, path):
    """IOPS, mean and p99 latency against the co-runner's load (Figure 16);
    each axis is set by the medians and the intervals are clipped to it."""
    mine = _contention(rows, target)
    if len({r["corunner_load_pct"] for r in mine}) < 2:
        return False
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    keys = ("iops", "lat_mean_us", "lat_p99_us")
    tops = {k: HEADROOM * max(r[k] or 0 for r in mine) or 1.0 for k in keys}
    clipped = False
    for s in _strategies(mine):
        pts = sorted((r for r in mine if r["strategy"] == s), key=lambda r: r["corunner_load_pct"])
        x = [r["corunner_load_pct"] for r in pts]
        for ax, key in zip(axes, keys):
            ys = [r[key] for r in pts]
            err, cut = clip_err(ys, _err(pts, key), tops[key])
            clipped |= cut
            ax.errorbar(x, ys, yerr=err, marker="o", capsize=2, label=s)
    for ax, key, title in zip(axes, keys, ("IOPS", "mean latency (µs)", "p99 latency (µs)")):
        ax.set_xlabel("co-runner load (%)")
        ax.set_title(title)
        ax.set_ylim(0, tops[key])
    outside_legend(axes[2])
    note = "; error bars: 95% intervals, clipped to the axes" if clipped else ""
    return save_figure(fig, f"{target}: against the interference degree{note}", path)


def clip_err(ys, err, top):
    """err (matplotlib's yerr) cut to the axis from 0 to top, so that one wide
    interval does not flatten every other point; and whether any was cut."""
    if not err:
        return err, False
    lo = [min(d, y) for y, d in zip(ys, err[0])]
    hi = [min(d, max(0.0, top - y)) for y, d in zip(ys, err[1])]
    return [lo, hi], lo != err[0] or hi != err[1]


def scaling(rows, target, path):
    """IOPS against I/O threads, on the limited cores and on all (Figures 5-6);
    the axis is set by the medians and the intervals are clipped to it."""
    mine = [r for r in rows if r["experiment"] == "scaling" and r["target"] == target]
    if not mine:
        return False
    fig, ax = plt.subplots(figsize=(8, 4))
    top = HEADROOM * max(r["iops"] for r in mine) or 1.0
    clipped = False
    for i, s in enumerate(_strategies(mine)):
        for cores, style in (("limited", "-"), ("all", "--")):
            pts = sorted((r for r in mine if r["strategy"] == s and r["cores"] == cores), key=lambda r: r["threads"])
            if not pts:
                continue
            ys = [r["iops"] for r in pts]
            err, cut = clip_err(ys, _err(pts, "iops"), top)
            clipped |= cut
            ax.errorbar(
                [r["threads"] for r in pts],
                ys,
                yerr=err,
                linestyle=style,
                marker="o",
                color=f"C{i}",
                capsize=2,
                label=f"{s}, {cores} cores",
            )
    ax.set_xticks(sorted({r["threads"] for r in mine}))
    ax.set_xlabel("I/O threads")
    ax.set_ylabel("IOPS")
    ax.set_ylim(0, top)
    if clipped:
        ax.set_title("error bars: 95% intervals, clipped to the axis", fontsize=9)
    outside_legend(ax)
    return save_figure(fig, f"{target}: IOPS vs threads", path)


def draw_all(rows, targets, plot_dir):
    """Draws every figure the rows allow; returns {target: [(title, path), ...]}."""
    plot_dir.mkdir(parents=True, exist_ok=True)
    out = {}
    for t in targets:
        figs = []
        for name, title, fn in (
            ("normalized", HEADLINE, normalized),
            ("interference", "Against the interference degree", interference),
            ("scaling", "IOPS against threads", scaling),
        ):
            path = plot_dir / f"{slug(t)}-{name}.png"
            if fn(rows, t, path):
                figs.append((title, path))
        out[t] = figs
    return out


MODE_LEVEL = {"interrupt": 0, "hybrid": 1, "poll": 2}


def mode_and_others(ax, t, pts, key, label, ylabel):
    """Adaptive's settled mode over t on ax, and pts' `key` (what it saw of the
    other tenants, in cores) on a second axis."""
    ax.step(t, [MODE_LEVEL.get(p["settled"], 0) for p in pts], where="post", color="C0", label="adaptive: mode")
    ax.set_yticks(list(MODE_LEVEL.values()), list(MODE_LEVEL.keys()))
    twin = ax.twinx()
    twin.plot(t, [p[key] for p in pts], color="C3", alpha=0.7, label=label)
    twin.set_ylim(0, 1.05)
    twin.set_ylabel(ylabel)
    ax.legend(loc="upper left", fontsize=8)
    twin.legend(loc="upper right", fontsize=8)


def timeline(runs, target, path):
    """IOPS over time per strategy with the co-runner's span shaded, and the
    adaptive strategy's settled mode and measured contention below."""
    if not runs or "adaptive" not in runs:
        return False
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    a = runs["adaptive"]
    for ax in (top, bottom):
        ax.axvspan(a["on_ms"] / 1e3, a["off_ms"] / 1e3, color="0.9", label="co-runner (100%)")
    for s, run in runs.items():
        pts = run["points"]
        top.plot([p["t_ms"] / 1e3 for p in pts], [p["iops"] / 1e3 for p in pts], marker=".", label=s)
    top.set_ylabel("KIOPS (100 ms)")
    top.legend(fontsize=8)
    pts = [p for p in a["points"] if "settled" in p]
    mode_and_others(bottom, [p["t_ms"] / 1e3 for p in pts], pts, "contention", "contention seen", "contention (cores)")
    bottom.set_xlabel("time (s)")
    return save_figure(fig, f"{target}: the co-runner starts and stops", path)


BURSTY_AXES = (
    ("shared", "shared score: both tenants' progress"),
    ("own", "own score: the I/O's progress alone"),
)


def _bursty_bars(ax, mine, names, obj, colour):
    """names' `obj` scores on ax, one group of bars per burst length."""
    width = 0.8 / max(1, len(names))
    for i, s in enumerate(names):
        xs, ys, lo, hi = [], [], [], []
        for j, r in enumerate(mine):
            v = r["strategies"].get(s, {}).get(obj)
            if v:
                xs.append(j + (i - (len(names) - 1) / 2) * width)
                ys.append(v["median"])
                lo.append(v["median"] - v["min"])
                hi.append(v["max"] - v["median"])
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=s, color=colour[s])
    ax.set_xticks(range(len(mine)), [burst_name(r["burst_ms"]).replace(" / ", "\n") for r in mine], fontsize=8)


def bursty(rows, target, path):
    """The strategies' scores against the neighbour's burst length, with the
    spread over rounds as error bars: the shared score on one axis, the own
    on the other, so that each axis holds one quantity. Static strategies
    stand on both as the reference; adaptive on the axis of its objective."""
    mine = [r for r in rows if r["target"] == target]
    if not mine:
        return False
    names = sorted({s for r in mine for s in r["strategies"]})
    colour = {s: f"C{i}" for i, s in enumerate(names)}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, (obj, ylabel) in zip(axes, BURSTY_AXES):
        here = [s for s in names if s in STATIC or objective_of(s) == obj]
        _bursty_bars(ax, mine, here, obj, colour)
        ax.set_ylabel(ylabel)
        # Above the axes: inside, it covered the bars.
        ax.legend(fontsize=9, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(here), frameon=False)
    return save_figure(fig, f"{target}: a neighbour in bursts (median, min-max over rounds)", path)


def bursty_timeline(run, target, path, span_ms=600):
    """One adaptive run beside a bursty neighbour, at the log's 1 ms: the
    neighbour's on phases shaded, the settled mode and the other tenants'
    use of the core as the governor saw them."""
    if not run:
        return False
    h = run["job"].get("hybridio", {})
    pts, start = h.get("timeline", []), h.get("start_unix_ms", 0)
    pts = [p for p in pts if p["t_ms"] <= span_ms]
    if not pts:
        return False
    fig, ax = plt.subplots(figsize=(8, 3.5))
    tr = run["transitions"] + [(start + span_ms, False)]
    for (at, on), (nxt, _) in zip(tr, tr[1:]):
        if on:
            ax.axvspan(at - start, nxt - start, color="0.9")
    mode_and_others(ax, [p["t_ms"] for p in pts], pts, "others_cores", "others' use of the core", "cores")
    ax.set_xlim(0, span_ms)
    ax.set_xlabel("time (ms); shaded: the neighbour runs")
    return save_figure(fig, f"{target}: adaptive beside a neighbour in {run['burst']} ms bursts", path)
