# SPDX-License-Identifier: MIT
"""report.html: one self-contained page (images inlined) with the verdicts, plots and tables."""

import base64
import datetime

import jinja2

from .summary import COLUMNS


def _data_uri(path):
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def render(out, rows, verdicts, figures, meta, handles=None):
    """handles: None, or {"findings": handles.findings(...), "figures": [(experiment, title, path)], "repeats",
    "runs", "planned", "error", "file"} for the section on the handle experiments."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("hybridio", "templates"), autoescape=True)

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

    env.filters["fmt"] = fmt
    env.filters["hfmt"] = hfmt
    if handles:
        by = {}
        for experiment, title, p in handles.get("figures", []):
            by.setdefault(experiment, []).append((title, _data_uri(p)))
        handles = dict(handles, figures=by)
    html = env.get_template("report.html.j2").render(
        rows=rows,
        columns=COLUMNS,
        verdicts=verdicts,
        meta=meta,
        figures={t: [(title, _data_uri(p)) for title, p in figs] for t, figs in figures.items()},
        handles=handles,
        generated=datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
    )
    path = out / "report.html"
    path.write_text(html)
    return path
