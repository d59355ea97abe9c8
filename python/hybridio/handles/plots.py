# SPDX-License-Identifier: MIT
"""The handle experiments' figures (PNG), from their findings: the queues'
IOPS and lock wait against jobs, and the polling period's IOPS and CPU."""

from ..report.figures import plt, save_figure, slug


def _column(pts, key):
    """pts' `key`, a gap (NaN) where a run gave none."""
    return [float("nan") if r[key] is None else r[key] for r in pts]


def handle_queues(found, path):
    """Total IOPS against jobs, dedicated and shared queues, and the mean lock
    wait % on a second axis (dashed)."""
    rows = (found.get("queues") or {}).get("rows") or []
    if not rows:
        return False
    fig, ax = plt.subplots(figsize=(7, 4))
    twin = ax.twinx()
    queues = [q for q in ("dedicated", "shared") if any(r["queue"] == q for r in rows)]
    queues += sorted({r["queue"] for r in rows} - set(queues))
    lines = []
    for i, q in enumerate(queues):
        pts = sorted((r for r in rows if r["queue"] == q), key=lambda r: r["jobs"])
        x = [r["jobs"] for r in pts]
        lines += ax.plot(x, _column(pts, "IOPS"), marker="o", color=f"C{i}", label=f"{q}: IOPS")
        lines += twin.plot(
            x, _column(pts, "lock wait %"), "--", marker="x", color=f"C{i}", alpha=0.8, label=f"{q}: lock wait %"
        )
    ax.set_xticks(sorted({r["jobs"] for r in rows}))
    ax.set_xlabel("jobs (one thread each)")
    ax.set_ylabel("IOPS (all jobs)")
    ax.set_ylim(bottom=0)
    twin.set_ylabel("lock wait (% of the run, mean over jobs)")
    twin.set_ylim(0, 105)
    ax.legend(lines, [ln.get_label() for ln in lines], fontsize=8, loc="best")
    emulated = all(r.get("device") == "emulated" for r in rows)
    return save_figure(fig, f"Dedicated and shared queues{' (emulated SSD)' if emulated else ''}", path)


def _period_x(p, spin_x):
    return spin_x if p == 0 else p


def handle_poll_period(found, target, path):
    """IOPS and the completion thread's CPU against its polling period, one
    line per block size, for one target; x log scale with spinning (0) drawn
    at the left; auto as a marker at the mean period it took."""
    pp = found.get("poll_period") or {}
    rows = [r for r in pp.get("rows", []) if r["target"] == target]
    fixed = [r for r in rows if r["period_us"] != "auto"]
    if not fixed:
        return False
    positive = sorted({r["period_us"] for r in fixed if r["period_us"]}) or [1]
    # Spinning has no period: half the shortest one puts it left of them on the log scale.
    spin_x = positive[0] / 2
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    sizes = list(dict.fromkeys(r["bs"] for r in rows))  # in the order they came
    for i, bs in enumerate(sizes):
        _plot_block_size(axes, rows, fixed, bs, f"C{i}", spin_x)
    _period_axes(axes, spin_x, positive)
    axes[0].legend(fontsize=8, ncol=2)
    emulated = all(r.get("target") == "emulated" for r in rows)
    return save_figure(
        fig,
        f"{'emulated SSD' if emulated else target}: the completion thread's polling period (★ auto at its mean period)",
        path,
    )


def _plot_block_size(axes, rows, fixed, bs, color, spin_x):
    """One block size: its fixed periods' IOPS and CPU as a line on each
    axes, and auto's star where it gave IOPS."""
    pts = sorted((r for r in fixed if r["bs"] == bs), key=lambda r: r["period_us"])
    x = [_period_x(r["period_us"], spin_x) for r in pts]
    for ax, col in zip(axes, ("IOPS", "CPU %")):
        ax.plot(x, _column(pts, col), marker="o", color=color, label=bs)
    auto = next((r for r in rows if r["bs"] == bs and r["period_us"] == "auto"), None)
    if auto and auto["IOPS"] is not None:
        _plot_auto(axes, auto, color, bs, spin_x)


def _plot_auto(axes, auto, color, bs, spin_x):
    """auto's IOPS and CPU as a star at the mean period it took (at spin
    without one); labelled once, on the IOPS axes."""
    mean = auto.get("mean period µs")
    ax_x = _period_x(mean, spin_x) if mean is not None and mean > 0 else spin_x
    for ax, col in zip(axes, ("IOPS", "CPU %")):
        if auto[col] is not None:
            ax.plot(
                [ax_x],
                [auto[col]],
                marker="*",
                markersize=14,
                color=color,
                markeredgecolor="black",
                linestyle="none",
                label=f"{bs}: auto" if ax is axes[0] else None,
            )


def _period_axes(axes, spin_x, positive):
    """The period axes: log scale, spin then the fixed periods as ticks, a
    faint line between spin and the shortest period; a title on each."""
    ticks = [spin_x] + positive
    for ax, title in zip(axes, ("IOPS (read)", "completion thread CPU (%)")):
        ax.set_xscale("log")
        ax.set_xticks(ticks)
        ax.set_xticklabels(["spin"] + [f"{p:g}" for p in positive])
        ax.minorticks_off()
        ax.axvline((spin_x * positive[0]) ** 0.5, color="0.85", linewidth=0.8)
        ax.set_xlabel("polling period (µs, log scale)")
        ax.set_title(title)
        ax.set_ylim(bottom=0)


def draw_handles(found, plot_dir):
    """The handle experiments' figures the findings allow; [(experiment, title, path), ...]."""
    if not found:
        return []
    plot_dir.mkdir(parents=True, exist_ok=True)
    out = []
    path = plot_dir / "handles-queues.png"
    if handle_queues(found, path):
        out.append(("queues", "Dedicated and shared queues: IOPS and lock wait against jobs", path))
    targets = []
    for r in (found.get("poll_period") or {}).get("rows", []):
        if r["target"] not in targets:
            targets.append(r["target"])
    for t in targets:
        path = plot_dir / f"handles-poll-period-{slug(t)}.png"
        if handle_poll_period(found, t, path):
            out.append(("poll_period", f"Polling period on {'the emulated SSD' if t == 'emulated' else t}", path))
    return out
