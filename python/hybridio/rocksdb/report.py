# SPDX-License-Identifier: MIT
"""The RocksDB study's figures (the thesis's Figures 12-17, from the cell
medians) and its self-contained report.html."""

from ..report import html
from ..report.figures import plt, save_figure
from .experiments import CONFIGS, FULL_DEGREE, RATIOS_DEGREE, ratio_label


def _configs(rows):
    present = {r["config"] for r in rows}
    return [c for c in CONFIGS if c in present]


def _mix(rows):
    return [r for r in rows if r["workload"] == "mixgraph"]


def _val(x):
    return float("nan") if x is None else x


def sweep(rows, ratio, degrees, path):
    """ops/s, mean and p99 latency against the interference degree, one line
    per configuration (Figure 16)."""
    mine = [r for r in _mix(rows) if r["ratio"] == ratio and r["degree"] in degrees]
    if len({r["degree"] for r in mine}) < 2:
        return False
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for i, c in enumerate(_configs(mine)):
        pts = sorted((r for r in mine if r["config"] == c), key=lambda r: r["degree"])
        x = [r["degree"] for r in pts]
        for ax, f in zip(axes, ("ops_per_s", "micros_per_op", "p99_us")):
            ax.plot(x, [_val(r[f]) for r in pts], marker="o", color=f"C{i}", label=c)
    for ax, title in zip(axes, ("ops/s", "mean latency (µs/op)", "p99 latency (µs, all operations)")):
        ax.set_xlabel("interference degree (% of the core)")
        ax.set_title(title)
        ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=8)
    return save_figure(fig, f"mixgraph at {ratio_label(ratio)} against the interference degree", path)


def ratios(rows, path):
    """ops/s against the dataset:cache ratio, alone and at 50% (Figure 17)."""
    mine = _mix(rows)
    rs = sorted({r["ratio"] for r in mine if r["degree"] in (0, RATIOS_DEGREE)})
    if len(rs) < 2:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    for ax, degree in zip(axes, (0, RATIOS_DEGREE)):
        for i, c in enumerate(_configs(mine)):
            by = {r["ratio"]: r for r in mine if r["config"] == c and r["degree"] == degree}
            ax.plot(
                range(len(rs)),
                [_val(by[x]["ops_per_s"]) if x in by else float("nan") for x in rs],
                marker="o",
                color=f"C{i}",
                label=c,
            )
        ax.set_xticks(range(len(rs)), [ratio_label(x) for x in rs])
        ax.set_xlabel("dataset : cache")
        ax.set_title("alone" if not degree else f"co-runner at {degree}%")
        ax.set_ylim(bottom=0)
    axes[0].set_ylabel("ops/s")
    axes[0].legend(fontsize=8)
    return save_figure(fig, "mixgraph against the dataset:cache ratio", path)


def full(rows, ratio, path):
    """ops/s and mean latency alone and beside a full co-runner, per
    configuration (Figures 12-15)."""
    mine = [r for r in _mix(rows) if r["ratio"] == ratio and r["degree"] in (0, FULL_DEGREE)]
    configs = [c for c in _configs(mine) if {r["degree"] for r in mine if r["config"] == c} == {0, FULL_DEGREE}]
    if not configs:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(12, 4))
    width = 0.4
    for ax, f, title in zip(axes, ("ops_per_s", "micros_per_op"), ("ops/s", "mean latency (µs/op)")):
        for j, (degree, label) in enumerate(((0, "alone"), (FULL_DEGREE, f"co-runner at {FULL_DEGREE}%"))):
            by = {r["config"]: r for r in mine if r["degree"] == degree}
            ax.bar(
                [i + j * width for i in range(len(configs))],
                [_val(by[c][f]) for c in configs],
                width,
                label=label,
                color=f"C{j}",
            )
        ax.set_xticks([i + width / 2 for i in range(len(configs))], configs, rotation=20, ha="right")
        ax.set_title(title)
    axes[0].legend(fontsize=8)
    return save_figure(fig, f"mixgraph at {ratio_label(ratio)}: alone and beside a full co-runner", path)


def draw(rows, sweep_ratio, degrees, plot_dir):
    """The figures the rows allow, per device: [(title, path), ...]."""
    plot_dir.mkdir(parents=True, exist_ok=True)
    out = []
    for device in dict.fromkeys(r["device"] for r in rows):
        mine = [r for r in rows if r["device"] == device and r["threads"] == 1]
        for name, title, fn in (
            ("sweep", "against the interference degree (Figure 16)", lambda p: sweep(mine, sweep_ratio, degrees, p)),
            ("ratios", "against the dataset:cache ratio (Figure 17)", lambda p: ratios(mine, p)),
            ("full", "alone and beside a full co-runner (Figures 12-15)", lambda p: full(mine, sweep_ratio, p)),
        ):
            path = plot_dir / f"rocksdb-{device}-{name}.png"
            if fn(path):
                out.append((f"{device}: {title}", path))
    return out


def fmt(v):
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "met" if v else "NOT met"
    if isinstance(v, float):
        if abs(v) < 10:
            return f"{v:.3g}"
        return f"{v:,.1f}" if abs(v) < 1e4 else f"{v:,.0f}"
    return str(v)


def render(out, doc, figures):
    """report.html from rocksdb.json's document and the figures."""
    return html.render(
        out,
        "rocksdb.html.j2",
        {"fmt": fmt, "ratio": ratio_label, "pct": lambda v: "–" if v is None else f"{100 * v:.0f}%"},
        doc=doc,
        meta=doc["meta"],
        figures=[(t, html.data_uri(p)) for t, p in figures],
    )
