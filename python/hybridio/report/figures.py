# SPDX-License-Identifier: MIT
"""Figures as PNG files: pyplot without a display, file names from what a
figure shows, and the title, layout and resolution every figure shares."""

import re
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def slug(name):
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def save_figure(fig, title, path, width=None):
    """Titles, lays out and writes fig; width: wrap the title at that many
    characters (a narrow figure)."""
    fig.suptitle(textwrap.fill(title, width) if width else title, fontsize=10 if width else None)
    fig.tight_layout()
    # "tight": legends placed beside the axes stay inside the image.
    fig.savefig(path, dpi=90, bbox_inches="tight")
    plt.close(fig)
    return True
