# SPDX-License-Identifier: MIT
import csv
import json

import pytest

from hybridio.study import summary
from hybridio.study.matrix import Cell


def io(iops, lat=10.0):
    return {
        "iops": iops,
        "lat_mean_us": lat,
        "lat_p99_us": lat * 2,
        "cpu_us_per_io": 5.0,
        "emulated": True,
        "error": None,
    }


def m(strategy, load, iops, ops=None):
    return {
        "cell": Cell("contention", "emu:x", strategy, 1, 1, load, "limited"),
        "io": io(iops),
        "corunner_ops_per_s": ops,
    }


@pytest.fixture
def rows():
    ms = [
        m("poll", 0, 100),
        m("poll", 0, 110),
        m("poll", 0, 90),
        m("poll", 100, 50, 40),
        m("poll", 100, 60, 50),
        m("poll", 100, 70, 45),
        m("interrupt", 0, 80),
    ]
    return summary.summarize(ms, {100: [100.0, 90.0, 110.0]})


def test_one_row_per_cell_with_medians(rows):
    assert len(rows) == 3
    p100 = next(r for r in rows if r["strategy"] == "poll" and r["corunner_load_pct"] == 100)
    assert p100["iops"] == 60 and p100["repeats"] == 3
    assert p100["corunner_ops_per_s"] == 45 and p100["corunner_solo_ops_per_s"] == 100
    assert p100["spread_pct"] == pytest.approx(100 * 20 / 60)


def test_solo_iops_is_the_same_cell_without_a_co_runner(rows):
    by = {(r["strategy"], r["corunner_load_pct"]): r for r in rows}
    assert by[("poll", 100)]["iops_solo"] == 100
    assert by[("poll", 0)]["iops_solo"] == 100
    assert by[("interrupt", 0)]["iops_solo"] == 80
    assert by[("poll", 0)]["corunner_ops_per_s"] is None and by[("poll", 0)]["corunner_solo_ops_per_s"] is None


def test_written_schema(rows, tmp_path):
    summary.write(rows, tmp_path)
    data = json.loads((tmp_path / "summary.json").read_text())
    assert all(set(summary.COLUMNS) <= set(r) for r in data)
    with open(tmp_path / "summary.csv") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == summary.COLUMNS
        assert len(list(reader)) == 3
    required = [
        "target",
        "emulated",
        "strategy",
        "threads",
        "iodepth",
        "corunner_load_pct",
        "iops",
        "iops_solo",
        "lat_mean_us",
        "lat_p99_us",
        "cpu_us_per_io",
        "corunner_ops_per_s",
        "corunner_solo_ops_per_s",
        "repeats",
        "spread_pct",
    ]
    assert set(required) <= set(summary.COLUMNS)


def test_figures_carry_the_interval_of_their_centre(rows):
    p0 = next(r for r in rows if r["strategy"] == "poll" and r["corunner_load_pct"] == 0)
    assert p0["iops_ci95_low"] < p0["iops"] == 100 < p0["iops_ci95_high"]
    assert p0["lat_mean_us_ci95_low"] == pytest.approx(10.0) == p0["lat_mean_us_ci95_high"]  # the same in every repeat
    one = next(r for r in rows if r["strategy"] == "interrupt")
    assert one["iops_ci95_low"] == one["iops_ci95_high"] == 80  # one repeat: no interval
    assert one["corunner_ops_per_s_ci95_low"] is None


def test_plots_draw_the_intervals_as_error_bars(rows, tmp_path):
    from hybridio.study import plots

    p100 = [r for r in rows if r["strategy"] == "poll"]
    lo, hi = plots._err(p100, "iops")
    assert all(x >= 0 for x in lo + hi) and any(lo) and any(hi)
    assert plots._err([{"iops": 1.0, "iops_ci95_low": None, "iops_ci95_high": None}], "iops") is None
    figs = plots.draw_all(rows, ["emu:x"], tmp_path)
    assert [t for t, _ in figs["emu:x"]] == ["Both tenants, normalised to alone", "Against the interference degree"]
    assert all(p.stat().st_size > 1000 for _, p in figs["emu:x"])
