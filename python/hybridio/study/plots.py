# SPDX-License-Identifier: MIT
"""The contention study's figures (PNG), analogues of the thesis's Figures
5-10 and 16, with the 95% interval of each median as its error bar; the
timeline's and the bursty neighbour's."""

from ..report.figures import plt, save_figure, slug
from .bursty import burst_name, objective_of


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


def normalized(rows, target, path):
    """I/O and co-runner throughput, each normalised to running alone, per
    strategy and co-runner load (Figures 7-10)."""
    mine = [r for r in _contention(rows, target) if r["corunner_load_pct"]]
    if not mine:
        return False
    loads = sorted({r["corunner_load_pct"] for r in mine})
    strategies = _strategies(mine)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    width = 0.8 / len(strategies)
    for i, s in enumerate(strategies):
        by = {r["corunner_load_pct"]: r for r in mine if r["strategy"] == s}
        xs = [j + i * width for j in range(len(loads))]
        io = [by[ld]["iops"] / by[ld]["iops_solo"] if ld in by and by[ld]["iops_solo"] else 0 for ld in loads]
        app = [
            (by[ld]["corunner_ops_per_s"] or 0) / by[ld]["corunner_solo_ops_per_s"]
            if ld in by and by[ld]["corunner_solo_ops_per_s"]
            else 0
            for ld in loads
        ]
        pts = [by.get(ld, {}) for ld in loads]
        axes[0].bar(xs, io, width, label=s, yerr=_err(pts, "iops", lambda p: p.get("iops_solo")), capsize=2)
        axes[1].bar(
            xs,
            app,
            width,
            label=s,
            yerr=_err(pts, "corunner_ops_per_s", lambda p: p.get("corunner_solo_ops_per_s")),
            capsize=2,
        )
    for ax, title in zip(axes, ("I/O throughput / I/O alone", "co-runner throughput / co-runner alone")):
        ax.set_xticks([j + width * (len(strategies) - 1) / 2 for j in range(len(loads))])
        ax.set_xticklabels([f"{ld}%" for ld in loads])
        ax.set_xlabel("co-runner load")
        ax.set_title(title)
        ax.axhline(1.0, color="grey", linewidth=0.8)
    axes[0].legend()
    return save_figure(fig, f"{target}: both tenants, normalised to running alone", path)


def interference(rows, target, path):
    """IOPS, mean and p99 latency against the co-runner's load (Figure 16)."""
    mine = _contention(rows, target)
    if len({r["corunner_load_pct"] for r in mine}) < 2:
        return False
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for s in _strategies(mine):
        pts = sorted((r for r in mine if r["strategy"] == s), key=lambda r: r["corunner_load_pct"])
        x = [r["corunner_load_pct"] for r in pts]
        for ax, key in zip(axes, ("iops", "lat_mean_us", "lat_p99_us")):
            ax.errorbar(x, [r[key] for r in pts], yerr=_err(pts, key), marker="o", capsize=2, label=s)
    for ax, title in zip(axes, ("IOPS", "mean latency (µs)", "p99 latency (µs)")):
        ax.set_xlabel("co-runner load (%)")
        ax.set_title(title)
        ax.set_ylim(bottom=0)
    axes[0].legend()
    return save_figure(fig, f"{target}: against the interference degree", path)


def scaling(rows, target, path):
    """IOPS against I/O threads, on the limited cores and on all (Figures 5-6)."""
    mine = [r for r in rows if r["experiment"] == "scaling" and r["target"] == target]
    if not mine:
        return False
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for i, s in enumerate(_strategies(mine)):
        for cores, style in (("limited", "-"), ("all", "--")):
            pts = sorted((r for r in mine if r["strategy"] == s and r["cores"] == cores), key=lambda r: r["threads"])
            if pts:
                ax.errorbar(
                    [r["threads"] for r in pts],
                    [r["iops"] for r in pts],
                    yerr=_err(pts, "iops"),
                    linestyle=style,
                    marker="o",
                    color=f"C{i}",
                    capsize=2,
                    label=f"{s}, {cores} cores",
                )
    ax.set_xticks(sorted({r["threads"] for r in mine}))
    ax.set_xlabel("I/O threads")
    ax.set_ylabel("IOPS")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    return save_figure(fig, f"{target}: IOPS vs threads", path)


def draw_all(rows, targets, plot_dir):
    """Draws every figure the rows allow; returns {target: [(title, path), ...]}."""
    plot_dir.mkdir(parents=True, exist_ok=True)
    out = {}
    for t in targets:
        figs = []
        for name, title, fn in (
            ("normalized", "Both tenants, normalised to alone", normalized),
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


def bursty(rows, target, path):
    """Each strategy's score by its objective against the neighbour's burst
    length, with the spread over rounds as error bars."""
    mine = [r for r in rows if r["target"] == target]
    if not mine:
        return False
    fig, ax = plt.subplots(figsize=(8, 4))
    names = sorted({s for r in mine for s in r["strategies"]})
    width = 0.8 / max(1, len(names))
    for i, s in enumerate(names):
        obj = objective_of(s)
        xs, ys, lo, hi = [], [], [], []
        for j, r in enumerate(mine):
            v = r["strategies"].get(s, {}).get(obj)
            if v:
                xs.append(j + (i - (len(names) - 1) / 2) * width)
                ys.append(v["median"])
                lo.append(v["median"] - v["min"])
                hi.append(v["max"] - v["median"])
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=f"{s} ({obj})")
    ax.set_xticks(range(len(mine)), [burst_name(r["burst_ms"]).replace(" / ", "\n") for r in mine], fontsize=8)
    ax.set_ylabel("score (shared: both tenants; own: ours)")
    ax.legend(fontsize=8)
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
