# SPDX-License-Identifier: MIT
"""report.html: one self-contained page (images inlined) with the verdicts, plots and tables."""

import datetime

from ..report import html
from .plots import HEADLINE
from .summary import COLUMNS


def fmt(v):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.1f}" if abs(v) < 1e4 else f"{v:,.0f}"
    return str(v)


def hfmt(v):
    """The handle tables: small figures (ratios, hit ratios) keep three significant digits."""
    if isinstance(v, bool):
        return "met" if v else "NOT met"
    if isinstance(v, float) and abs(v) < 10:
        return f"{v:.3g}"
    return fmt(v)


def render(out, rows, verdicts, figures, meta, handles=None):
    """handles: None, or {"findings": handles.findings(...), "figures": [(experiment, title, path)], "repeats",
    "runs", "planned", "error", "file"} for the section on the handle experiments."""
    if handles:
        by = {}
        for experiment, title, p in handles.get("figures", []):
            by.setdefault(experiment, []).append((title, html.data_uri(p)))
        handles = dict(handles, figures=by)
    inlined = {t: [(title, html.data_uri(p)) for title, p in figs] for t, figs in figures.items()}
    return html.render(
        out,
        "report.html.j2",
        {"fmt": fmt, "hfmt": hfmt},
        rows=rows,
        columns=COLUMNS,
        verdicts=verdicts,
        meta=meta,
        # The figure that shows the answer opens the report beside it; the rest follow the verdicts.
        headline={t: [(title, uri) for title, uri in figs if title == HEADLINE] for t, figs in inlined.items()},
        figures={t: [(title, uri) for title, uri in figs if title != HEADLINE] for t, figs in inlined.items()},
        handles=handles,
        generated=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
    )
