# SPDX-License-Identifier: MIT
"""Self-contained HTML pages: a template of the package rendered to
report.html, with every image inlined."""

import base64

import jinja2


def data_uri(path):
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def render(out, template, filters, **context):
    """out/report.html from templates/<template> with the given filters; returns its path."""
    env = jinja2.Environment(loader=jinja2.PackageLoader("hybridio.report", "templates"), autoescape=True)
    env.filters.update(filters)
    path = out / "report.html"
    path.write_text(env.get_template(template).render(**context))
    return path
