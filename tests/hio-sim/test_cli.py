# SPDX-License-Identifier: MIT
"""hio-sim's commands as a user runs them: bad input named with exit status 2,
the suite deterministic and complete, each command's file in its documented
shape."""

import json

import pytest

# make study's summary.csv columns.
HEAD = (
    "experiment,target,emulated,strategy,threads,iodepth,cores,corunner_load_pct,iops,iops_solo,lat_mean_us,"
    "lat_p99_us,cpu_us_per_io,corunner_ops_per_s,corunner_solo_ops_per_s,repeats,spread_pct\n"
)


def test_help_and_no_command(sim):
    p = sim("--help")
    assert p.returncode == 0 and "suite" in p.stdout and "calibrate" in p.stdout
    p = sim()
    assert p.returncode == 2 and "subcommand" in p.stderr.lower()


@pytest.mark.parametrize(
    "args, named",
    [
        (["run", "--neighbour", "wobbly"], "wobbly"),
        (["run", "--neighbour", "steady:150"], "steady:150"),
        (["run", "--strategy", "spin"], "spin"),
        (["run", "--profile", "/nonexistent/p.json"], "/nonexistent/p.json"),
        (["run", "--device", "emu:lat_us=-3"], "lat_us"),
        (["run", "--iodepth", "0"], "iodepth"),
        (["suite"], "--out"),
        (["run", "--param", "fresh_ns=1"], "'fresh_ns'"),
        (["run", "--param", "memory_ns=-1"], "memory_ns=a number"),
        (["run", "--param", "tick_ns"], "tick_ns=a number"),
        (["run", "--poll_period_us", "soon"], "soon"),
        (["periods", "--grid", "huge", "--out", "x"], "huge"),
    ],
)
def test_bad_input_is_named(sim, args, named):
    p = sim(*args)
    assert p.returncode == 2, p.stderr
    assert named in p.stderr, p.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["suite", "--param", "fresh_ns=1"],
        ["sensitivity", "--only", "saturated"],
    ],
)
def test_a_bad_parameter_leaves_no_folder(sim, tmp_path, args):
    out = tmp_path / "out"
    p = sim(*args, "--out", out)
    assert p.returncode == 2 and "--" in p.stderr, p.stderr
    assert not out.exists()


def test_run_prints_every_strategy(sim):
    p = sim(
        "run",
        "--device",
        "pcie3",
        "--neighbour",
        "steady:50",
        "--strategy",
        "interrupt,poll,adaptive",
        "--runtime",
        "0.3",
        "--output-format",
        "json",
    )
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["strategy"] for r in rows] == ["interrupt", "poll", "adaptive"]
    assert all(r["iops"] > 0 and 0 < r["neighbour_cores"] <= 1 for r in rows)


def test_quick_suite_is_deterministic_and_complete(sim, tmp_path):
    outs = []
    for k in range(2):
        out = tmp_path / f"s{k}"
        p = sim("suite", "--quick", "--seed", "7", "--out", out)
        assert p.returncode == 0, p.stderr
        outs.append((out / "suite.json").read_bytes())
    assert outs[0] == outs[1], "two runs of the same seed differ"
    suite = json.loads(outs[0])
    assert len(suite["scenarios"]) >= 100
    for s in suite["scenarios"]:
        assert {"name", "scores", "adaptive_vs_best_static", "adaptive_vs_oracle"} <= set(s)
        assert s["scores"]["adaptive"] > 0
        # The oracle picks the best static strategy per interval: never below the best static one.
        assert s["oracle"] >= max(v for k, v in s["scores"].items() if k != "adaptive") * 0.999
    assert {"adaptive_vs_best_static", "adaptive_vs_oracle", "by", "worst"} <= set(suite["summary"])
    light = [s for s in suite["scenarios"] if s["workload"] == "rate30" and s["neighbour"] == "none"]
    assert light and all("light_demand" not in s for s in suite["scenarios"] if s not in light)
    for s in light:
        ld, cpu, lat = s["light_demand"], s["cpu_ns_per_io"], s["lat_mean_ns"]
        assert ld["cpu_vs_poll"] == pytest.approx(cpu["adaptive"] / cpu["poll"])
        assert ld["lat_vs_poll"] == pytest.approx(lat["adaptive"] / lat["poll"])
        assert ld["met"] == (ld["cpu_vs_poll"] <= 0.5 and ld["lat_vs_poll"] <= 1.10)
        assert ld["applies"] == (ld["read_in_wakeups"] >= 10)
    assert [e["name"] for e in suite["summary"]["light_demand"]] == [s["name"] for s in light]
    # A read is fewer of here's wake-ups than of bare metal's, which cost less.
    reads_in_wakeups = {s["name"]: s["light_demand"]["read_in_wakeups"] for s in light}
    for name, n in reads_in_wakeups.items():
        if "/here/" in name:
            assert n < reads_in_wakeups[name.replace("/here/", "/baremetal/")]
    html = (tmp_path / "s0" / "suite.html").read_text()
    assert "<table>" in html and "of the best static strategy" in html and "Light demand" in html


def test_quick_periods_judge_auto_against_every_fixed_period(sim, tmp_path):
    p = sim("periods", "--grid", "quick", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    out = json.loads((tmp_path / "periods.json").read_text())
    cells = out["cells"]
    assert len(cells) == 4 and out["summary"]["cells"] == 4
    for c in cells:
        fixed = c["fixed"]
        assert [f["fixed_us"] for f in fixed][:2] == [0, 2] and len(fixed) == 16
        best = max(fixed, key=lambda f: f["iops"])
        assert c["best_fixed_us"] == best["fixed_us"]
        assert c["auto_vs_best_iops"] == pytest.approx(c["auto"]["iops"] / best["iops"])
        reach = [f for f in fixed if f["iops"] >= 0.95 * best["iops"]]
        floor = min(f["cpu_cores"] for f in reach)
        assert c["auto_vs_floor_cpu"] == pytest.approx(c["auto"]["cpu_cores"] / floor)
        assert c["met"] == (c["auto_vs_best_iops"] >= 0.95 and c["auto_vs_floor_cpu"] <= 1.25)
        # A spin costs the completion thread more CPU than the ladder's longest sleep.
        assert fixed[0]["cpu_cores"] > fixed[-1]["cpu_cores"] > 0
    assert out["summary"]["met"] == sum(c["met"] for c in cells)
    # The quick grid keeps the completion thread on a core of its own.
    assert {c["reaper"] for c in cells} == {"apart"}
    assert out["summary"]["by_reaper"] == {"apart": {"cells": 4, "met": out["summary"]["met"]}}
    assert out["summary"]["missed"] == [c["name"] for c in cells if not c["met"]]
    assert f"in {out['summary']['met']} of 4 cells" in p.stdout


def test_quick_periods_weigh_the_neighbours_share_where_there_is_one(sim, tmp_path):
    p = sim("periods", "--grid", "quick", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    out = json.loads((tmp_path / "periods.json").read_text())
    beside = [c for c in out["cells"] if c["neighbour"] != "none"]
    alone = [c for c in out["cells"] if c["neighbour"] == "none"]
    assert len(beside) == 2 and len(alone) == 2
    for c in alone:
        assert "auto_vs_best_shared" not in c and c["auto"]["neighbour_cores"] == 0
    for c in beside:
        fixed = c["fixed"]
        best = max(f["iops"] for f in fixed)
        alone_cores = c["neighbour_alone_cores"]
        # A CPU-bound neighbour alone has its core; beside us it has less.
        assert 0.9 < alone_cores <= 1.0
        assert all(0 < f["neighbour_cores"] < alone_cores for f in fixed)

        def both(f):
            return f["iops"] / best + f["neighbour_cores"] / alone_cores

        top = max(fixed, key=both)
        assert c["best_shared_fixed_us"] == top["fixed_us"]
        assert c["auto_vs_best_shared"] == pytest.approx(both(c["auto"]) / both(top))
        assert c["shared_met"] == (c["auto_vs_best_shared"] >= 0.95)
    w = out["summary"]["with_neighbour"]
    assert w == {"cells": 2, "shared_met": sum(c["shared_met"] for c in beside)}
    assert f"in {w['shared_met']} of 2 cells" in p.stdout


def test_scale_writes_its_points(sim, tmp_path):
    p = sim("scale", "--cores", "2,4", "--runtime", "0.05", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    points = json.loads((tmp_path / "scale.json").read_text())["points"]
    assert [pt["cores"] for pt in points] == [2, 4]
    assert all(pt["simulated_s_per_wall_s"] > 0 and pt["governor_cpu_ns_per_sample"] > 0 for pt in points)


def test_thesis_writes_every_figure(sim, tmp_path):
    p = sim("thesis", "--out", tmp_path)
    assert p.returncode == 0, p.stderr
    figs = json.loads((tmp_path / "thesis.json").read_text())["figures"]
    keys = {(f["figure"], f["device"], f["interface"], f["metric"]) for f in figs}
    for dev in ("pcie3", "pcie4"):
        for iface in ("libaio", "spdk"):
            assert ("7", dev, iface, "app_change_pct") in keys
            assert ("8", dev, iface, "io_change_pct") in keys
    assert ("16", "pcie4", "spdk", "crossover_pct") in keys
    assert all(isinstance(f["thesis"], (int, float)) and isinstance(f["sim"], (int, float)) for f in figs)


def _study(tmp_path):
    """A contention study's output in make study's layout: two loads of one target, one burst."""
    d = tmp_path / "study"
    d.mkdir()
    rows = [
        "contention,emu:pcie3,True,interrupt,1,1,limited,0,20000,20000,50,80,6,,,3,5",
        "contention,emu:pcie3,True,poll,1,1,limited,0,30000,30000,33,40,33,,,3,5",
        "contention,emu:pcie3,True,interrupt,1,1,limited,100,25000,20000,40,80,6,700,1000,3,5",
        "contention,emu:pcie3,True,poll,1,1,limited,100,15000,30000,66,4000,33,500,1000,3,5",
        "scaling,emu:pcie3,True,poll,2,1,all,0,50000,50000,33,40,33,,,2,5",
    ]
    (d / "summary.csv").write_text(HEAD + "\n".join(rows) + "\n")
    med = lambda x: {"median": x, "min": x, "max": x, "n": 3}  # noqa: E731
    bursty = {
        "rows": [
            {
                "target": "emu:pcie3",
                "burst_ms": 50,
                "strategies": {
                    s: {"own": med(o), "theirs": med(t), "shared": med(o + t)}
                    for s, o, t in (("poll", 0.7, 0.5), ("interrupt", 0.8, 0.8), ("adaptive", 0.8, 0.7))
                },
            }
        ]
    }
    (d / "bursty.json").write_text(json.dumps(bursty))
    return d


def test_validate_compares_every_cell(sim, tmp_path):
    study = _study(tmp_path)
    out = tmp_path / "v"
    p = sim("validate", "--study", study, "--out", out)
    assert p.returncode == 0, p.stderr
    v = json.loads((out / "validate.json").read_text())
    cells = v["cells"]
    assert len([c for c in cells if c["experiment"] == "contention"]) == 4, "the scaling row is not a contention cell"
    assert len([c for c in cells if c["experiment"] == "bursty"]) == 3
    for c in cells:
        assert {"measured", "predicted", "target", "strategy", "best_measured", "best_predicted"} <= set(c)
        assert c["measured"]["iops_over_best_alone"] > 0 and c["predicted"]["iops_over_best_alone"] > 0
        assert set(c["predicted"]) == {"iops_over_best_alone", "corunner_progress"}
    assert {b["load"] for b in v["best"] if b["experiment"] == "contention"} == {0, 100}
    assert 0 <= v["best_static_agreement"] <= 1 and v["median_abs_log_error"] >= 0


def test_validate_names_a_folder_that_is_no_study(sim, tmp_path):
    p = sim("validate", "--study", tmp_path, "--out", tmp_path / "v")
    assert p.returncode == 2 and "summary.csv" in p.stderr


def test_calibrate_writes_a_profile_the_simulator_runs(sim, tmp_path):
    prof = tmp_path / "here.json"
    p = sim(
        "calibrate", "--out", prof, "--file", tmp_path / "disk.dat", "--seconds", "0.2", "--size-mb", "16", timeout=300
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(prof.read_text())
    machine = doc["about"]["machine"]
    assert machine["cpuidle_driver"] and "kernel" in machine
    assert doc["devices"]["disk"]["latency_ns"]["4096"]
    p = sim("run", "--profile", prof, "--device", "disk", "--strategy", "interrupt,poll", "--runtime", "0.2")
    assert p.returncode == 0, p.stderr


def test_a_recorded_io_trace_replays(sim, tmp_path):
    """HIO_IO_TRACE records what a program's queues read; hio-sim replays it."""
    import os
    import subprocess
    from pathlib import Path

    bench = Path(os.environ.get("HIO_BUILD", Path(__file__).resolve().parents[2] / "build")) / "hio-bench"
    trace = tmp_path / "t.csv"
    p = subprocess.run(
        [bench, "--name=t", "--filename=emu:pcie4", "--rw=randread", "--bs=8k", "--runtime=0.2", "--time_based"],
        env=dict(os.environ, HIO_IO_TRACE=str(trace)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    lines = trace.read_text().splitlines()
    assert lines[0] == "queue,len,gap_ns" and len(lines) > 1000
    rows = [tuple(map(int, line.split(","))) for line in lines[1:]]
    assert len({q for q, _, _ in rows}) == 1 and {n for _, n, _ in rows} == {8192}, "one queue read, 8 KiB at a time"
    assert all(g >= 0 for _, _, g in rows[1:]) and rows[0][2] == 0, "the first read follows no reap"
    p = sim("run", "--trace", trace, "--device", "pcie4", "--strategy", "poll", "--runtime", "0.1")
    assert p.returncode == 0, p.stderr
