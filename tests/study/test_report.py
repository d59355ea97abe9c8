# SPDX-License-Identifier: MIT
"""A real (tiny) study writes its outputs; the report opens in headless Chromium with every image loaded."""

import json
import re
import shutil
import subprocess
import sys
import tempfile
from html import unescape

import matplotlib.image
import pytest

from hybridio.study import plots, report, summary

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def study_out(hio_bench, tmp_path_factory):
    out = tmp_path_factory.mktemp("study")
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "hybridio.study",
            "--hio-bench",
            hio_bench,
            "--handles",
            "0",
            "--out",
            str(out),
            "--targets",
            "emu:pcie4",
            "--strategies",
            "interrupt,poll",
            "--loads",
            "0,100",
            "--threads",
            "1,2",
            "--repeats",
            "3",
            "--budget",
            "30s",
            "--runtime",
            "1",
            "--timeline",
            "1",
            "--bursty",
            "1",
            "--bursts",
            "50,0",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert f"Report: {out}/report.html" in p.stdout
    return out


def test_outputs(study_out):
    rows = json.loads((study_out / "summary.json").read_text())
    assert {(r["experiment"], r["strategy"], r["corunner_load_pct"]) for r in rows} >= {
        ("contention", "interrupt", 0),
        ("contention", "poll", 100),
        ("scaling", "poll", 0),
    }
    assert all(set(summary.COLUMNS) <= set(r) for r in rows)
    assert (study_out / "summary.csv").read_text().splitlines()[0] == ",".join(summary.COLUMNS)
    assert sorted(p.name for p in (study_out / "plots").glob("*.png")) == [
        "emu_pcie4-bursty-timeline.png",
        "emu_pcie4-bursty.png",
        "emu_pcie4-interference.png",
        "emu_pcie4-normalized.png",
        "emu_pcie4-scaling.png",
        "emu_pcie4-timeline.png",
    ]
    # 3 rounds, the scaling experiment's 2, and per extra round at a load the
    # cells it lists: what its claim compares and the references alone.
    extra = json.loads((study_out / "verdicts.json").read_text())[0]["extra_rounds"]
    extra_runs = sum(len(e["cells"]) for e in extra if e["experiment"] == "contention")
    assert len(list((study_out / "raw").glob("*.json"))) == 3 * 2 * 2 + 2 * 2 * 2 * 2 + extra_runs
    tl = json.loads((study_out / "timeline.json").read_text())["emu:pcie4"]
    assert set(tl) == {"adaptive", "poll", "interrupt"}
    a = tl["adaptive"]
    assert 0 < a["on_ms"] < a["off_ms"] < a["end_ms"]
    assert len(a["points"]) >= 10 and all("settled" in p for p in a["points"])
    v = json.loads((study_out / "verdicts.json").read_text())[0]
    assert any(s.startswith("Timeline:") for s in v["sentences"])
    assert v["timeline"]["right_mode_alone"] in ("interrupt", "poll")
    # Every claim carries its state and the interval of its per-round ratio.
    assert {c["id"] for c in v["claims"]} == {"poll-beats-interrupt-alone", "poll-starves-corunner"} | {
        f"bursty-{b}-{s}" for b in (50, 0) for s in ("adaptive", "adaptive-own")
    }
    assert all(c["state"] in ("met", "not_met", "unresolved") for c in v["claims"])
    # ...and its kind and margin: what it says of the ratio, stated before measuring.
    kinds = {c["id"]: (c["kind"], c["margin"]) for c in v["claims"]}
    assert kinds["poll-beats-interrupt-alone"] == ("superiority", 0.0)
    assert all(kinds[f"bursty-{b}-adaptive"] == ("non_inferiority", 0.05) for b in (50, 0))
    # The budget's extra rounds go to unresolved claims, bursty ones too, and
    # each adds a round to the claims of its group.
    extra = v["extra_rounds"]
    assert extra and all(e["experiment"] in ("contention", "bursty") and e["projected_rounds"] >= 1 for e in extra)
    assert all([s, e["group"]] in e["cells"] for e in extra for s in e["compared"]), extra
    for c in v["claims"]:
        bursty_claim = c["id"].startswith("bursty-")
        experiment, at = ("bursty", c["burst_ms"]) if bursty_claim else ("contention", c["load"])
        # A claim gains a round from every extra round that ran both its
        # strategies where it compares them (alone, the references count too).
        added = sum(e["experiment"] == experiment and all([s, at] in e["cells"] for s in c["compared"]) for e in extra)
        assert c["interval"]["n"] == (1 if bursty_claim else 3) + added, (c["id"], extra)
    # One bursty round gives no interval: such verdicts stay unresolved.
    assert all(c["state"] == "unresolved" for c in v["claims"] if c["interval"]["n"] == 1)
    assert sum(v["claim_counts"].values()) == 6
    assert all(r["iops_ci95_low"] <= r["iops"] <= r["iops_ci95_high"] for r in rows)
    bursty = json.loads((study_out / "bursty.json").read_text())
    assert {(r["strategy"], r["burst"]) for r in bursty["results"]} == {
        (s, b) for s in ("poll", "interrupt", "adaptive", "adaptive-own") for b in (50, 0)
    }
    assert all(r["neighbour_cpu_ns"] > 0 and r["scores"]["shared"] > r["scores"]["own"] > 0 for r in bursty["results"])
    assert any("of the better static strategy by its objective (shared)" in s for s in v["sentences"])
    assert any(s.startswith("Bursty neighbour, adaptive:") for s in v["sentences"])


def chromium():
    exe = shutil.which("chromium")
    if not exe:
        pytest.fail("chromium is not installed (apt-get install -y chromium)")
    return exe


def test_report_opens_with_every_image_loaded(study_out, tmp_path):
    html = (study_out / "report.html").read_text()
    assert html.count("<img ") == 6  # normalized, interference, scaling, timeline, bursty, its timeline
    # The same page, plus a script that records whether every image decoded.
    probe = tmp_path / "probe.html"
    probe.write_text(
        html.replace(
            "</body>",
            "<script>window.addEventListener('load', () => {"
            "const ok = [...document.images].every(i => i.complete && i.naturalWidth > 0);"
            "document.body.setAttribute('data-images', ok ? 'all-loaded' : 'broken');"
            "});</script></body>",
        )
    )
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [
                chromium(),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=5000",
                "--dump-dom",
                probe.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    assert 'data-images="all-loaded"' in dom


def dump_dom_with(html, script, tmp_path):
    """Chromium's DOM of html with script run once the page has loaded, in a
    1280 x 800 window (a laptop's first screen)."""
    probe = tmp_path / "probe.html"
    probe.write_text(
        html.replace("</body>", f"<script>window.addEventListener('load', () => {{{script}}});</script></body>")
    )
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [
                chromium(),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--window-size=1280,800",
                "--virtual-time-budget=5000",
                "--dump-dom",
                probe.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout


# Records, on <body>, what a reader meets first and where the bookkeeping is.
LAYOUT_PROBE = """
const first = document.querySelector('h1').nextElementSibling;
const imgs = [...document.querySelectorAll('#recommendation img')];
const d = document.querySelector('details#bookkeeping');
document.body.setAttribute('data-first', first ? first.id : 'none');
document.body.setAttribute('data-first-text', first ? first.innerText.slice(0, 300) : '');
const loaded = (xs) => xs.every(i => i.complete && i.naturalWidth > 0);
document.body.setAttribute('data-top-images', loaded(imgs) ? imgs.length : 'broken');
document.body.setAttribute('data-all-images', loaded([...document.images]) ? 'loaded' : 'broken');
document.body.setAttribute('data-details', d ? (d.open ? 'open' : 'collapsed') : 'none');
let after = d && d.nextElementSibling;
while (after && after.tagName === 'SCRIPT') after = after.nextElementSibling;  // this probe's own
document.body.setAttribute('data-details-last', d && !after ? 'yes' : 'no');
const answer = [...document.querySelectorAll('#recommendation .verdict, #recommendation img')];
const lowest = Math.max(...answer.map(e => e.getBoundingClientRect().bottom));
document.body.setAttribute('data-first-screen', lowest <= window.innerHeight ? 'all' : 'below ' + lowest);
"""


def test_report_opens_with_the_recommendation(study_out, tmp_path):
    html = (study_out / "report.html").read_text()
    v = json.loads((study_out / "verdicts.json").read_text())[0]
    dom = dump_dom_with(html, LAYOUT_PROBE, tmp_path)
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-first="recommendation"' in body, body
    assert "Which way of waiting to use on this machine" in body and "emu:pcie4 (emulated SSD):" in body, body
    assert 'data-top-images="1"' in body, body  # both tenants normalised to alone
    assert 'data-first-screen="all"' in body, body  # the answer and its figure without scrolling
    assert 'data-all-images="loaded"' in body, body
    assert 'data-details="collapsed"' in body and 'data-details-last="yes"' in body, body
    # Its words are the study's own: composed from the verdict, with the claims' count.
    text = unescape(html)
    assert v["recommendation"]["text"] in text
    assert "Verdicts: <span" in html
    # Bookkeeping is folded away at the end, and nothing of it is lost.
    details = text[text.index('<details id="bookkeeping">') :]
    assert "Extra rounds within the 0.5 min budget" in details
    assert v["bookkeeping"] and all(s in details for s in v["bookkeeping"]) and v["noise"]["sentence"] in details
    assert all(s in text for s in v["sentences"])
    assert "Extra rounds within" not in html[: html.index('<details id="bookkeeping">')]
    # The machine facts that decide the result stand in the header.
    assert all(
        f"{what}: <b>" in html for what in ("cpuidle driver", "idle states", "guest_halt_poll_ns", "clock source")
    )


def test_report_screenshot_is_not_blank(study_out, tmp_path):
    shot = tmp_path / "report.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium(),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--window-size=1280,2000",
                f"--screenshot={shot}",
                (study_out / "report.html").as_uri(),
            ],
            capture_output=True,
            timeout=120,
        )
    assert shot.exists()
    pixels = matplotlib.image.imread(shot)
    assert pixels.std() > 0.05  # text, tables and plots, not one flat colour


def test_three_targets_answers_all_fit_the_first_screen(study_out, tmp_path):
    """A default study has three targets: their recommendations and figures stand side by side."""
    rows = json.loads((study_out / "summary.json").read_text())
    verdict = json.loads((study_out / "verdicts.json").read_text())[0]
    names = ["/tmp/hybridio-study.dat", "emu:pcie3", "emu:pcie4"]
    rows = [dict(r, target=t) for t in names for r in rows]
    verdicts = [dict(verdict, target=t, recommendation=dict(verdict["recommendation"], label=t)) for t in names]
    meta = {"machine": "m", "driver": "hio-bench", "corunner": "cpu", "cores": "1", "runtime": 1, "repeats": 1}
    meta.update(interrupted=False, unsupported={}, extra_rounds=[], budget_s=0, adaptive_overall=None, facts=[])
    path = report.render(tmp_path, rows, verdicts, plots.draw_all(rows, names, tmp_path / "plots"), meta)
    dom = dump_dom_with(path.read_text(), LAYOUT_PROBE, tmp_path)
    body = re.search(r"<body([^>]*)>", dom).group(1)
    assert 'data-top-images="3"' in body, body
    assert 'data-first-screen="all"' in body, body


def test_report_verdicts_read_met_not_met_or_unresolved(study_out, tmp_path):
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [
                chromium(),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                "--virtual-time-budget=2000",
                "--dump-dom",
                (study_out / "report.html").as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    states = re.findall(r'<td class="state-(\w+)">([^<]*)</td>', dom)
    assert len(states) == 6, dom[:2000]
    assert all(text == {"met": "met", "not_met": "not met", "unresolved": "unresolved"}[cls] for cls, text in states)
    assert "Unresolved: the interval reaches over the bound" in dom
    # Each claim's kind and margin stand beside its interval.
    assert re.search(r"<td>(superiority|non-inferiority)[^<]*\((&gt;=|&lt;=) \d\.\d\d\)</td>", dom), dom[:2000]
