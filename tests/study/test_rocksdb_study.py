# SPDX-License-Identifier: MIT
"""The RocksDB study (hio-study rocksdb): db_bench's output parsed, the
claims' arithmetic, the plan and the command lines, the page-cache limit on
a fake cgroup tree, bad input, and one tiny real run through Posix."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stress_procs import stress_ng_pids
from hybridio.rocksdb import dbbench, pagecache
from hybridio.rocksdb import experiments as ex
from hybridio.rocksdb import findings as rf
from hybridio.rocksdb import study as rs

DATA = Path(__file__).parent / "data"
HAVE_DB_BENCH = shutil.which("db_bench") is not None
needs_db_bench = pytest.mark.skipif(not HAVE_DB_BENCH, reason="db_bench is not installed (rocksdb-tools)")


# --- db_bench's output ---


def test_parse_mixgraph():
    r = dbbench.parse((DATA / "dbbench-mixgraph.txt").read_text(), "mixgraph")
    assert (r["benchmark"], r["ops_per_s"], r["micros_per_op"], r["operations"]) == ("mixgraph", 80347.0, 12.446, 80999)
    assert r["mix"] == {"gets": 67252, "puts": 11336, "seeks": 2411}
    h = r["histograms"]
    assert set(h) == {"read", "write", "seek"}
    assert (h["read"]["count"], h["read"]["p99"], h["write"]["p99"], h["seek"]["p99"]) == (67252, 45.55, 29.36, 1823.01)
    assert all(sum(n for _, _, n in x["buckets"]) == x["count"] for x in h.values())
    # The buckets give back the printed percentiles: RocksDB's own interpolation.
    for x in h.values():
        assert dbbench.percentile([x], 99) == pytest.approx(x["p99"], abs=0.006)
        assert dbbench.percentile([x], 50) == pytest.approx(x["p50"], abs=0.006)
    # Over all operations the slow 3% of Seeks own the top percent.
    assert h["read"]["p99"] < r["p99_us"] < h["seek"]["p99"]


def test_parse_readrandom_and_its_first_bucket():
    r = dbbench.parse((DATA / "dbbench-readrandom.txt").read_text(), "readrandom")
    assert (r["ops_per_s"], r["micros_per_op"], r["mix"]) == (226510.0, 4.415, None)
    read = r["histograms"]["read"]
    assert read["buckets"][0] == (0, 1, 7678)  # printed "[ 0, 1 ]"
    assert sum(n for _, _, n in read["buckets"]) == read["count"] == 226999
    assert r["p99_us"] == pytest.approx(9.89, abs=0.006)


def test_parse_without_a_result_line():
    with pytest.raises(ValueError, match="no result line"):
        dbbench.parse("Initializing RocksDB Options from command-line flags\n")
    with pytest.raises(ValueError, match="no readrandom result"):
        dbbench.parse((DATA / "dbbench-mixgraph.txt").read_text(), "readrandom")


def test_percentile_of_merged_histograms():
    a = {"min": 1, "max": 10, "buckets": [(0, 10, 90)]}
    b = {"min": 50, "max": 100, "buckets": [(50, 100, 10)]}
    assert dbbench.percentile([a, b], 50) == pytest.approx(10 * 50 / 90)
    assert dbbench.percentile([a, b], 99) == pytest.approx(50 + 50 * 0.9)
    assert dbbench.percentile([a, b], 100) == 100.0
    assert dbbench.percentile([{"min": 0, "max": 0, "buckets": []}], 99) is None


def test_a_failing_db_bench_names_the_command_and_its_last_lines(tmp_path):
    cmd = [
        sys.executable,
        "-c",
        "import sys; sys.stderr.write('... finished 100 ops\\rInvalid argument: "
        "hybridio URI: bad value\\n'); sys.exit(1)",
    ]
    with pytest.raises(RuntimeError) as e:
        dbbench.run(cmd, tmp_path / "o", tmp_path / "e", 30)
    head, tail = str(e.value).split("\n", 1)
    assert "failed (exit 1)" in head and sys.executable in head
    assert tail.strip() == "Invalid argument: hybridio URI: bad value"  # without the progress line


def test_a_run_past_its_time_is_killed(tmp_path):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="did not finish within 0.5 s"):
        dbbench.run([sys.executable, "-c", "import time; time.sleep(30)"], tmp_path / "o", tmp_path / "e", 0.5)
    assert time.monotonic() - t0 < 5


# --- the database between runs ---


def test_reset_links_tables_copies_the_rest_and_leaves_the_loaded_db_alone(tmp_path):
    loaded, work = tmp_path / "loaded", tmp_path / "work"
    loaded.mkdir()
    for name, text in (
        ("000012.sst", "table"),
        ("MANIFEST-000005", "m"),
        ("CURRENT", "MANIFEST-000005\n"),
        ("LOCK", ""),
        ("LOG", "log"),
        ("LOG.old.1", "old"),
    ):
        (loaded / name).write_text(text)
    (tmp_path / "work").mkdir()
    (work / "000099.sst").write_text("left by the last run")
    dbbench.reset(loaded, work)
    assert sorted(p.name for p in work.iterdir()) == ["000012.sst", "CURRENT", "MANIFEST-000005"]
    assert (work / "000012.sst").stat().st_ino == (loaded / "000012.sst").stat().st_ino
    (work / "MANIFEST-000005").write_text("changed by a run")
    assert (loaded / "MANIFEST-000005").read_text() == "m"
    dbbench.drop_cached(work)  # every file, no error
    assert dbbench.db_bytes(loaded) == len("table")


# --- the plan and the commands ---


def test_default_plan():
    a = rs.parse_args([])
    cells, sweep = ex.cells_for(
        ex.EXPERIMENTS, list(ex.CONFIGS), rs.parse_ratios(a.ratios), rs.parse_degrees(a.degrees), a.devices.split(",")
    )
    assert sweep == 5.0 and len(set(cells)) == len(cells)
    disk = [c for c in cells if c.device == "disk" and c.threads == 1]
    # per configuration and workload: 6 degrees at 5:1; mixgraph also 2:1 and 10:1 alone and at 50%
    assert len(disk) == 7 * (2 * 6 + 4)
    for dev in ("pcie3", "pcie4"):
        mine = [c for c in cells if c.device == dev]
        assert {c.config for c in mine} == set(ex.plugin_configs(ex.CONFIGS)) and len(mine) == 5 * (2 * 6 + 4)
        assert all(c.threads == 1 for c in mine)
    threads = [c for c in cells if c.threads == ex.THREADS]
    assert {(c.device, c.degree, c.ratio) for c in threads} == {("disk", 0, 5.0)} and len(threads) == 7 * 2


def test_plan_options():
    cells, sweep = ex.cells_for(["sweep", "threads"], ["posix"], [2.0, 10.0], [0, 30], ["pcie4"], ["mixgraph"])
    assert sweep == 2.0  # the middle of the ratios (the lower one of two)
    assert cells == []  # posix cannot run on an emulated device, and threads runs on the disk
    cells, _ = ex.cells_for(["sweep"], ["posix", "hybridio-poll"], [2.0], [0, 30], ["disk", "pcie4"], ["readrandom"])
    assert [(c.device, c.config, c.degree) for c in cells] == [
        ("disk", "posix", 0),
        ("disk", "posix", 30),
        ("disk", "hybridio-poll", 0),
        ("disk", "hybridio-poll", 30),
        ("pcie4", "hybridio-poll", 0),
        ("pcie4", "hybridio-poll", 30),
    ]
    assert all(c.workload == "readrandom" for c in cells)
    assert rs.parse_ratios("10:1, 2,5:1") == [2.0, 5.0, 10.0]
    assert rs.parse_degrees("50,10") == [0, 10, 50]


def test_budgets_and_the_plugin_uri():
    assert rs.budgets(2_000 * pagecache.MIB, [2.0, 5.0, 10.0]) == {2.0: 1000, 5.0: 400, 10.0: 200}
    assert rs.budgets(1000, [5.0]) == {5.0: 1}
    # The same memory for all: posix adds its page cache to the block cache.
    assert rs.block_cache_mib("posix", 400) == 400
    assert rs.block_cache_mib("posix-direct", 400) == rs.block_cache_mib("hybridio-poll", 400) == 800
    assert (
        rs.plugin_uri("hybridio-adaptive", "disk", "/o/raw/1.stats.json")
        == "hybridio://?completion=adaptive&stats=/o/raw/1.stats.json"
    )
    assert (
        rs.plugin_uri("hybridio-adaptive-own", "pcie4", "/s")
        == "hybridio://?completion=adaptive&adaptive_objective=own&emulate=pcie4&stats=/s"
    )


def runner(tmp_path, **over):
    a = rs.parse_args(
        [
            "--db-bench",
            "db_bench",
            "--plugin",
            "/p/libhybridio-rocksdb.so",
            *sum(([f"--{k}", str(v)] for k, v in over.items()), []),
        ]
    )
    o = rs.RocksdbOptions(a.db_bench, int(a.runtime), int(a.repeats), a.corunner, a.reload)
    cfg = {
        "num": 1000,
        "core": 1,
        "ratios": [2.0, 5.0],
        "plugin": Path(a.plugin),
        "out": tmp_path,
        "dir": tmp_path,
        "memory": None,
    }
    limit = pagecache.PageCacheLimit(root=tmp_path / "no-cgroups", proc_cgroup="")
    return rs.Runner(o, cfg, {"path": str(tmp_path / "loaded"), "size_bytes": 1000 * pagecache.MIB}, limit)


def test_commands_per_configuration(tmp_path):
    r = runner(tmp_path)
    posix = r.command(ex.Cell("mixgraph", "posix", 5.0, 0), 1000, None, 9)
    assert posix[:4] == ["taskset", "-c", "1", "db_bench"]
    assert {
        "--benchmarks=mixgraph",
        "--use_existing_db=1",
        "--duration=9",
        "--threads=1",
        "--histogram=1",
        "--statistics=0",
        "--mix_get_ratio=0.83",
        "--mix_put_ratio=0.14",
        "--mix_seek_ratio=0.03",
        "--keyrange_num=30",
        f"--cache_size={200 * pagecache.MIB}",
        "--use_direct_reads=0",
        "--seed=1000",
        f"--db={tmp_path / 'work'}",
        "--num=1000",
        "--key_size=16",
        "--value_size=1000",
    } <= set(posix)
    assert not any(x.startswith(("--fs_uri", "--sine")) for x in posix)
    direct = r.command(ex.Cell("mixgraph", "posix-direct", 2.0, 50), 1000, None, 9)
    assert "--use_direct_reads=1" in direct and f"--cache_size={1000 * pagecache.MIB}" in direct
    poll = r.command(ex.Cell("mixgraph", "hybridio-poll", 2.0, 50), 1001, "/s.json", 9)
    assert poll[:5] == ["taskset", "-c", "1", "env", "LD_PRELOAD=/p/libhybridio-rocksdb.so"]
    assert "--fs_uri=hybridio://?completion=poll&stats=/s.json" in poll
    assert f"--cache_size={1000 * pagecache.MIB}" in poll and "--use_direct_reads=0" in poll
    rr = r.command(ex.Cell("readrandom", "hybridio-interrupt", 5.0, 0), 1000, "/s.json", 9)
    assert "--benchmarks=readrandom" in rr and "--fs_uri=hybridio://?completion=interrupt&stats=/s.json" in rr
    assert not any(x.startswith("--mix_") for x in rr)
    many = r.command(ex.Cell("readrandom", "hybridio-adaptive", 5.0, 0, "disk", 4), 1000, "/s.json", 9)
    assert many[:3] == ["taskset", "-c", f"0-{os.cpu_count() - 1}"] and "--threads=4" in many


def test_the_co_runner_per_degree(tmp_path):
    assert runner(tmp_path).corunner(0).__enter__() is None
    co = runner(tmp_path).corunner(30)
    assert "--cpu-load=30" in co.command("/y") and "--taskset=1" in co.command("/y")
    fill = runner(tmp_path, corunner="dbbench").corunner(30)
    assert isinstance(fill, dbbench.FillCoRunner) and fill.load == 30
    assert fill.cmd[:4] == ["taskset", "-c", "1", "db_bench"] and "--benchmarks=fillrandom" in fill.cmd


class Calls:
    """Stands in for the runner and the progress bar: records what ran."""

    def __init__(self):
        self.log = []

    def warm_up(self, cell):
        self.log.append(("warm-up", cell.device, cell.config))

    def run(self, cell, rep, index):
        self.log.append(("run", cell.device, cell.config))
        return {"index": index}

    def set_description(self, text):
        pass

    def update(self):
        pass


def test_each_device_is_warmed_up_once_before_its_first_measured_run():
    cells = [ex.Cell("mixgraph", c, 5.0, 0, d) for d in ("pcie3", "disk") for c in ("hybridio-poll", "posix")]
    plan = [(r, c) for r in range(2) for c in cells]
    calls, records = Calls(), []
    rs.run_plan(calls, plan, records, calls)
    assert calls.log[0] == ("warm-up", "pcie3", "hybridio-poll")
    assert calls.log[3] == ("warm-up", "disk", "hybridio-poll")
    assert [x for x in calls.log if x[0] == "warm-up"] == [calls.log[0], calls.log[3]]
    assert len(records) == len(plan) and [r["index"] for r in records] == list(range(len(plan)))


def test_a_warm_up_runs_the_cell_for_the_full_time_and_is_kept_apart(tmp_path, monkeypatch):
    r = runner(tmp_path)
    ran = []
    monkeypatch.setattr(dbbench, "reset", lambda *a: None)
    monkeypatch.setattr(dbbench, "drop_cached", lambda *a: None)
    monkeypatch.setattr(dbbench, "run", lambda cmd, out, err, timeout: ran.append((cmd, out, err, timeout)))
    r.warm_up(ex.Cell("mixgraph", "hybridio-poll", 5.0, 0, "disk"))
    ((cmd, out, err, timeout),) = ran
    assert f"--duration={r.o.runtime}" in cmd and any(x.startswith("--fs_uri=hybridio://") for x in cmd)
    assert out.name == "warmup-disk.out" and err.name == "warmup-disk.err" and timeout > r.o.runtime


class Rounds(Calls):
    """A runner whose adaptive-own gets the next of `ratios` of poll's ops/s, round by round."""

    def __init__(self, ratios):
        super().__init__()
        self.ratios = list(ratios)
        self.total = 0

    def run(self, cell, rep, index):
        self.log.append(("run", rep, cell.config))
        ratio = self.ratios[rep] if cell.config == "hybridio-adaptive-own" else 1.0
        return {
            "round": rep + 1,
            "index": index,
            "device": cell.device,
            "threads": 1,
            "workload": cell.workload,
            "config": cell.config,
            "ratio": cell.ratio,
            "degree": cell.degree,
            "budget_mib": 1,
            "ops_per_s": 10000 * ratio,
            "corunner_progress": 0.9,
        }

    def write(self, text):
        self.log.append(("said", text))


BUDGET_CELLS = [ex.Cell("readrandom", c, 5.0, 50, "pcie4") for c in ("hybridio-poll", "hybridio-adaptive-own")]


def budget_study(ratios, budget_s, runtime=0):
    cells = BUDGET_CELLS
    cfg = {"cells": cells, "sweep_ratio": 5.0, "degrees": [50], "ratios": [5.0], "budget_s": budget_s}
    runner = Rounds(ratios)
    records = [runner.run(c, r, i) for i, (r, c) in enumerate((r, c) for r in range(3) for c in cells)]
    runner.log.clear()
    extra = []
    rs.extra_rounds(runner, cfg, 3, runtime, records, runner, extra)
    return runner, records, extra


def test_extra_rounds_go_where_the_adaptive_claim_is_unresolved_until_it_resolves():
    # Three rounds straddle 0.95; later rounds at 1.0 decide it.
    runner, records, extra = budget_study([0.85, 1.05, 0.99] + [1.0] * 20, budget_s=3600)
    assert extra and len(extra) < 20
    assert [e["round"] for e in extra] == list(range(4, 4 + len(extra)))
    assert all((e["device"], e["workload"], e["degree"]) == ("pcie4", "readrandom", 50) for e in extra)
    for e in extra:  # each extra round measures every configuration of the cell
        assert sorted(c for k, rep, c in (x for x in runner.log if x[0] == "run") if rep == e["round"] - 1) == [
            "hybridio-adaptive-own",
            "hybridio-poll",
        ]
    assert any("is unresolved" in x[1] for x in runner.log if x[0] == "said")
    found = rf.findings(rf.summarize(records), 5.0, [50], [5.0], records)
    own = next(c for c in found["claims"] if c["id"] == "hybridio-adaptive-own")
    assert own["cells"][0]["state"] == "met" and rs.next_cell(found, BUDGET_CELLS, 0, 3600) is None


def test_no_extra_round_without_a_budget_or_past_it():
    for budget, runtime in ((0, 0), (5, 5)):  # none; one round of 2 runs of 5 s would not fit in 5 s
        runner, records, extra = budget_study([0.85, 1.05, 0.99] + [1.0] * 20, budget_s=budget, runtime=runtime)
        assert extra == [] and runner.log == [] and len(records) == 6


# --- the page-cache limit, on a fake cgroup tree ---


def fake_v1(tmp_path):
    root = tmp_path / "cg"
    (root / "memory" / "study").mkdir(parents=True)
    (root / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    return root, "9:pids:/\n4:memory:/study\n0::/\n"


def test_page_cache_limit_follows_anonymous_memory(tmp_path, monkeypatch):
    monkeypatch.setattr(pagecache, "GRACE_S", 0.0)
    root, proc = fake_v1(tmp_path)
    limit = pagecache.PageCacheLimit(root=root, proc_cgroup=proc)
    group = root / "memory" / "study" / f"hybridio-rocksdb-{os.getpid()}"
    assert limit.group == group and "v1" in limit.how
    assert limit.wrap(["db_bench"])[-2:] == [str(group / "cgroup.procs"), "db_bench"]
    (group / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    mib = pagecache.MIB
    tracker = limit.start(100 * mib)
    assert int((group / "memory.limit_in_bytes").read_text()) == 100 * mib + pagecache.START_SLACK
    (group / "memory.stat").write_text(f"cache {130 * mib}\nrss {300 * mib}\nmapped_file {10 * mib}\n")
    tracker.tick()
    assert int((group / "memory.limit_in_bytes").read_text()) == 410 * mib + pagecache.SLACK
    assert tracker.result() == {"pagecache_peak_mib": 120.0, "anon_peak_mib": 300.0}
    assert not tracker.oom_killed()
    (group / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n")
    assert tracker.oom_killed()


def test_no_memory_cgroup_means_no_limit(tmp_path):
    limit = pagecache.PageCacheLimit(root=tmp_path, proc_cgroup="0::/\n")
    assert limit.group is None and "not limited" in limit.how
    assert limit.wrap(["db_bench"]) == ["db_bench"]
    tracker = limit.start(1)
    tracker.tick()
    assert tracker.result() == {"pagecache_peak_mib": None, "anon_peak_mib": None}


# --- the claims ---


def row(config, ratio, degree, ops, lat=None, p99=None, workload="mixgraph", device="disk", threads=1, **more):
    """A cell's medians as summarize gives them."""
    return {
        **{f: None for f in ex.FIGURES},
        "device": device,
        "threads": threads,
        "workload": workload,
        "config": config,
        "ratio": ratio,
        "degree": degree,
        "ops_per_s": ops,
        "micros_per_op": lat if lat is not None else 1e6 / ops,
        "p99_us": p99,
        **more,
    }


def test_summarize_medians_and_spread():
    recs = [dict(row("posix", 5.0, 0, ops), budget_mib=1, round=i) for i, ops in enumerate((100.0, 300.0, 200.0))]
    recs.append(dict(row("posix", 5.0, 0, 50.0, device="pcie4"), budget_mib=1, round=1))
    cell, other = rf.summarize(recs)
    assert cell["ops_per_s"] == 200.0 and cell["repeats"] == 3 and cell["spread_pct"] == 100.0
    assert cell["ops_per_s_ci95_low"] < 200.0 < cell["ops_per_s_ci95_high"]
    assert other["ops_per_s_ci95_low"] == other["ops_per_s_ci95_high"] == 50.0  # one run: no interval
    assert cell["cache_hit_ratio"] is None
    assert (other["device"], other["ops_per_s"], other["repeats"]) == ("pcie4", 50.0, 1)


def test_adaptive_claim_own_met_and_not_met():
    rows = [
        row("posix", 5.0, 0, 100.0),
        row("hybridio-adaptive-own", 5.0, 0, 100.0),
        row("posix", 5.0, 10, 100.0),
        row("hybridio-adaptive-own", 5.0, 10, 95.0),  # exactly 0.95: met
        row("hybridio-poll", 5.0, 50, 100.0),
        row("hybridio-adaptive-own", 5.0, 50, 99.0),
        row("hybridio-adaptive", 5.0, 50, 200.0),
    ]  # the other objective's run is not a rival
    c = rf.adaptive_claim(rows, "hybridio-adaptive-own")
    assert [(x["degree"], x["passed"]) for x in c["cells"]] == [(0, True), (10, True), (50, True)]
    assert c["passed"] is True and "in 3 of 3 cells" in c["sentence"] and ": met. Paired" in c["sentence"]
    assert c["state"] == "unresolved"  # medians alone, without the runs, decide nothing
    c = rf.adaptive_claim(
        rows + [row("posix", 2.0, 50, 100.0), row("hybridio-adaptive-own", 2.0, 50, 94.0)], "hybridio-adaptive-own"
    )
    assert c["passed"] is False and "missed at mixgraph 2:1, 50%: 0.94 of posix" in c["sentence"]
    assert ": NOT met. Paired" in c["sentence"]
    # Every cell within 5%, but a static configuration has the higher mean: not met.
    rows = [row("posix", 5.0, d, 100.0) for d in (10, 50)] + [
        row("hybridio-adaptive-own", 5.0, d, 96.0) for d in (10, 50)
    ]
    c = rf.adaptive_claim(rows, "hybridio-adaptive-own")
    assert all(x["passed"] for x in c["cells"]) and c["passed"] is False and "against posix's 1.000" in c["sentence"]
    assert rf.adaptive_claim([row("posix", 5.0, 10, 1.0)], "hybridio-adaptive-own")["passed"] is None


def runs_of(cells, rounds):
    """Runs, as records with their round, from {(config, degree): [ops per round]}."""
    return [
        dict(row(config, 5.0, degree, ops), round=k + 1)
        for (config, degree), per in cells.items()
        for k, ops in enumerate(per[:rounds])
    ]


@pytest.mark.parametrize(
    "adaptive, state",
    [
        ([101.0, 99.5, 103.0, 100.0, 102.0], "met"),  # level with the rival, round after round
        ([80.0, 78.0, 83.0, 81.0, 79.0], "not_met"),  # a fifth short in every round
        ([85.0, 108.0, 90.0, 104.0, 88.0], "unresolved"),  # the rounds disagree: the interval straddles 0.95
    ],
)
def test_paired_rounds_decide_the_adaptive_claim(adaptive, state):
    # The co-runner's drift moves both in each round: medians alone would be close either way.
    poll = [100.0, 98.0, 102.0, 99.0, 101.0]
    records = runs_of({("hybridio-poll", 10): poll, ("hybridio-adaptive-own", 10): adaptive}, 5)
    rows = rf.summarize([dict(r, budget_mib=1) for r in records])
    c = rf.adaptive_claim(rows, "hybridio-adaptive-own", records)
    cell = c["cells"][0]
    assert cell["rival"] == "hybridio-poll" and cell["state"] == state
    assert (
        cell["interval"]["n"] == 5
        and cell["interval"]["ci95_low"] <= cell["interval"]["value"] <= cell["interval"]["ci95_high"]
    )
    assert c["state"] == state
    assert {"met": ": met.", "not_met": ": NOT met.", "unresolved": ": unresolved."}[state] in c["sentence"]


def test_a_round_missing_one_side_is_left_out_of_the_pairs():
    records = runs_of({("hybridio-poll", 0): [100.0, 100.0, 100.0], ("hybridio-adaptive-own", 0): [99.0, 98.0]}, 3)
    assert rf.paired(
        records, "mixgraph", 5.0, 0, "hybridio-adaptive-own", "hybridio-poll", lambda r: r["ops_per_s"]
    ) == pytest.approx([0.99, 0.98])


def test_adaptive_claim_shared_scores_both_tenants():
    # Poll gets more ops/s beside the co-runner, but takes its CPU: by the combined score interrupt is better.
    rows = [
        row("hybridio-poll", 5.0, 0, 100.0),
        row("hybridio-interrupt", 5.0, 0, 80.0),
        row("hybridio-adaptive", 5.0, 0, 100.0),
        row("hybridio-poll", 5.0, 50, 60.0, corunner_progress=0.5),
        row("hybridio-interrupt", 5.0, 50, 50.0, corunner_progress=0.95),
        row("hybridio-adaptive", 5.0, 50, 50.0, corunner_progress=0.95),
    ]
    assert rf.combined(rows, rows[3]) == pytest.approx(1.1) and rf.combined(rows, rows[4]) == pytest.approx(1.45)
    c = rf.adaptive_claim(rows, "hybridio-adaptive")
    assert c["passed"] is True and [x["best"] for x in c["cells"]] == ["hybridio-poll", "hybridio-interrupt"]
    rows[5] = row("hybridio-adaptive", 5.0, 50, 60.0, corunner_progress=0.5)  # it polled
    c = rf.adaptive_claim(rows, "hybridio-adaptive")
    assert c["passed"] is False and c["cells"][1]["score"] == pytest.approx(1.1 / 1.45)
    # Without the co-runner's progress a contended cell cannot be scored.
    rows[5]["corunner_progress"] = None
    assert [x["degree"] for x in rf.adaptive_claim(rows, "hybridio-adaptive")["cells"]] == [0]


def test_threads_claim():
    rows = [
        row("posix-direct", 5.0, 0, 100.0, threads=4),
        row("hybridio-adaptive", 5.0, 0, 97.0, threads=4),
        row("posix-direct", 5.0, 0, 100.0, threads=4, workload="readrandom"),
        row("hybridio-adaptive", 5.0, 0, 96.0, threads=4, workload="readrandom"),
    ]
    c = rf.threads_claim(rows)
    assert c["passed"] is False and [x["passed"] for x in c["cells"]] == [True, False]
    assert rf.threads_claim(rows[:2])["passed"] is True and rf.threads_claim(rows[:1]) is None
    # The other objective's run is no rival.
    assert rf.threads_claim(rows[:2] + [row("hybridio-adaptive-own", 5.0, 0, 200.0, threads=4)])["passed"] is True


def test_threads_claim_is_judged_round_by_round():
    rows = [row("posix-direct", 5.0, 0, 100.0, threads=4), row("hybridio-adaptive", 5.0, 0, 99.0, threads=4)]
    runs = [
        dict(row(c, 5.0, 0, ops, threads=4), round=k)
        for k, (p, a) in enumerate(((100.0, 99.0), (110.0, 109.0), (90.0, 89.5)))
        for c, ops in (("posix-direct", p), ("hybridio-adaptive", a))
    ]
    c = rf.threads_claim(rows, runs)
    assert c["state"] == "met" and c["cells"][0]["rival"] == "posix-direct"
    assert c["cells"][0]["interval"]["n"] == 3 and "met" in c["sentence"]
    # Without runs nothing is paired: unresolved, whatever the medians say.
    assert rf.threads_claim(rows)["state"] == "unresolved"
    # A drift that moves both alike in a round does not hide a 20% shortfall.
    short = [
        dict(r, ops_per_s=r["ops_per_s"] * (0.8 if r["config"] == "hybridio-adaptive" else 1.0) / 0.99)
        if r["config"] == "hybridio-adaptive"
        else r
        for r in runs
    ]
    assert rf.threads_claim(rows, short)["state"] == "not_met"


def pvi_rows(alone, contended):
    """hybridio-poll / hybridio-interrupt ops/s ratios alone per ratio and contended per (ratio, degree)."""
    rows = []
    for (ratio, degree), x in list(alone.items()) + list(contended.items()):
        rows += [
            row("hybridio-interrupt", ratio, degree, 1000.0, p99=100.0),
            row("hybridio-poll", ratio, degree, 1000.0 * x, p99=100.0 / x),
        ]
    return rows


def test_poll_against_interrupt_met():
    rows = pvi_rows({(2.0, 0): 1.0, (5.0, 0): 1.2}, {(5.0, 5): 1.0, (5.0, 10): 0.6, (5.0, 50): 0.4, (2.0, 50): 0.9})
    r = rf.poll_vs_interrupt(rows, 5.0)
    by = {(t["ratio"], t["degree"]): t for t in r["table"]}
    assert (
        by[(5.0, 0)]["verdict"] == "helps" and by[(5.0, 5)]["verdict"] == "tie" and by[(5.0, 10)]["verdict"] == "hurts"
    )
    assert by[(5.0, 10)]["ops_ratio"] == pytest.approx(0.6) and by[(5.0, 10)]["p99_ratio"] == pytest.approx(1 / 0.6)
    assert [(c["id"], c["passed"]) for c in r["claims"]] == [("poll-alone", True), ("poll-contended", True)]
    assert r["crossover_degree"] == 10
    assert "polling hurts from 10% interference on" in r["sentences"][-1]


def test_poll_against_interrupt_not_met():
    rows = pvi_rows({(5.0, 0): 0.9}, {(5.0, 10): 0.5, (5.0, 30): 1.0, (5.0, 50): 0.5})
    r = rf.poll_vs_interrupt(rows, 5.0)
    assert [(c["id"], c["passed"]) for c in r["claims"]] == [("poll-alone", False), ("poll-contended", False)]
    assert r["crossover_degree"] == 50  # it hurts at 10%, not at 30%, and again from 50%
    assert [c["state"] for c in r["claims"]] == ["unresolved", "unresolved"]  # no runs, no rounds


def test_the_plugin_against_posix_direct():
    def rows(interrupt, poll, cpu):
        out = []
        for w in ("readrandom", "mixgraph"):
            out += [
                row("posix-direct", 5.0, 0, 1000.0, workload=w, cpu_us_per_op=40.0),
                row("hybridio-interrupt", 5.0, 0, interrupt, workload=w, cpu_us_per_op=cpu),
                row("hybridio-poll", 5.0, 0, poll, workload=w, cpu_us_per_op=90.0),
            ]
        return out

    ok = rf.posix_claims(rows(1000.0, 1300.0, 40.0), 5.0)
    assert [(c["id"], c["passed"]) for c in ok] == [
        ("readrandom-hybridio-interrupt-vs-posix", True),
        ("readrandom-hybridio-poll-vs-posix", True),
        ("mixgraph-hybridio-interrupt-vs-posix", True),
        ("mixgraph-hybridio-poll-vs-posix", True),
    ]
    assert "(1.00x, CPU 40.0 against 40.0 µs/op): met; paired by round, ops/s no paired rounds" in ok[0]["sentence"]
    assert ok[0]["state"] == "unresolved"
    # Non-inferiority at 5%: 0.96x passes, 0.94x does not; so for CPU per operation, 1.04x and 1.06x.
    assert [c["passed"] for c in rf.posix_claims(rows(960.0, 1300.0, 41.6), 5.0)] == [True] * 4
    assert ok[0]["kind"] == "non_inferiority" and ok[0]["margin"] == 0.05
    slower = rf.posix_claims(rows(940.0, 1300.0, 30.0), 5.0)
    assert [c["passed"] for c in slower] == [False, True, False, True]
    costlier = rf.posix_claims(rows(1100.0, 940.0, 42.4), 5.0)
    assert [c["passed"] for c in costlier] == [False, False, False, False]
    assert rf.posix_claims([row("posix-direct", 5.0, 0, 1.0, workload="readrandom")], 5.0) == []


def test_findings_per_device():
    rows = [row("hybridio-interrupt", 5.0, 0, 100.0, device=d) for d in ("disk", "pcie4")] + [
        row("hybridio-poll", 5.0, 0, 150.0, device=d) for d in ("disk", "pcie4")
    ]
    f = rf.findings(rows, 5.0, [0], [5.0])
    assert [(c["device"], c["id"]) for c in f["claims"]] == [("disk", "poll-alone"), ("pcie4", "poll-alone")]
    assert f["claims"][1]["text"].startswith("pcie4: ") and f["sentences"][1].startswith("pcie4: Alone")
    assert {t["device"] for t in f["poll_vs_interrupt"]} == {"disk", "pcie4"}


def test_the_thesis_beside_ours():
    rows = []
    for config, alone, at10, full, lat_full in (
        ("posix", 1000.0, 990.0, 570.0, 1.8),
        ("hybridio-poll", 1120.0, 560.0, 360.0, 3.0),
        ("hybridio-interrupt", 1000.0, 980.0, 600.0, 1.7),
    ):
        rows += [
            row(config, 5.0, 0, alone, lat=100.0),
            row(config, 5.0, 10, at10, lat=100.0),
            row(config, 5.0, 100, full, lat=100.0 * lat_full),
        ]
    t = {x["finding"]: x for x in rf.thesis_rows(rows, 5.0, [0, 10], [5.0])}
    assert t["alone at 5:1: SPDK against Posix, ops/s"]["ours"] == "poll vs posix +12%, poll vs interrupt +12%"
    assert t["alone at 5:1: SPDK against Posix, ops/s"]["thesis"] == "+12%"
    assert t["10% interference at 5:1, ops/s against alone"]["ours"] == "poll -50%, posix -1%, interrupt -2%"
    assert t["full co-runner (100%) at 5:1, ops/s against alone"]["ours"] == "poll -68%, posix -43%, interrupt -40%"
    assert (
        t["full co-runner (100%) at 5:1, mean latency against alone"]["ours"]
        == "poll +200%, posix +80%, interrupt +70%"
    )
    assert t["worst of hybridio-poll over the contention cells, against alone"]["ours"] == "latency +200%, ops/s -68%"
    json.dumps(rf.findings(rows, 5.0, [0, 10], [5.0]))  # rocksdb.json takes it as it is


# --- bad input ---


def study(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "hybridio.study", "rocksdb", *args], capture_output=True, text=True, env=env, timeout=60
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--ratios", "0.5"], "'0.5'"),
        (["--ratios", "5,x"], "'x'"),
        (["--degrees", "0,150"], "'150'"),
        (["--degrees", "half"], "'half'"),
        (["--configs", "posix,spdk"], "'spdk'"),
        (["--experiments", "fig99"], "'fig99'"),
        (["--devices", "disk,pcie9"], "'pcie9'"),
        (["--workloads", "fillseq"], "'fillseq'"),
        (["--runtime", "0"], "'0'"),
        (["--repeats", "x"], "'x'"),
        (["--core", "63"], "'63'"),
        (["--corunner", "gpu"], "'gpu'"),
        (["--dataset-gb", "-1"], "'-1'"),
        (["--num", "5"], "'5'"),
        (["--budget", "soon"], "--budget 'soon'"),
    ],
)
def test_bad_input_exits_2_naming_it(capsys, tmp_path, args, needle):
    out = tmp_path / "o"
    assert rs.main(["--db-bench", "true", "--out", str(out), *args]) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith("hio-study rocksdb: ") and "\n" not in line and needle in line, line
    assert not out.exists()


@pytest.mark.skipif(dbbench.filesystem_type("/dev/shm") != "tmpfs", reason="no tmpfs at /dev/shm")
def test_a_db_in_memory_is_refused(capsys, tmp_path):
    assert (
        rs.main(
            [
                "--db-bench",
                "true",
                "--configs",
                "posix",
                "--dir",
                "/dev/shm/hio-rocksdb-test",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    assert "'/dev/shm/hio-rocksdb-test' is in memory (tmpfs)" in capsys.readouterr().err
    assert not os.path.exists("/dev/shm/hio-rocksdb-test") and not (tmp_path / "o").exists()


def test_bad_input_through_hio_study():
    p = study("--db-bench", "true", "--configs", "spdk")
    assert p.returncode == 2 and p.stderr.startswith("hio-study rocksdb: --configs 'spdk'"), p.stderr


def test_missing_plugin_says_how_to_build_it(tmp_path):
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "hybridio.rocksdb",
            "--db-bench",
            "true",
            "--degrees",
            "0",
            "--experiments",
            "sweep",
            "--plugin",
            str(tmp_path / "libhybridio-rocksdb.so"),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2, p.stderr
    assert str(tmp_path / "libhybridio-rocksdb.so") in p.stderr and "make build" in p.stderr
    assert not (tmp_path / "o").exists()


def test_missing_db_bench(tmp_path):
    p = study("--out", str(tmp_path / "o"), env=dict(os.environ, PATH=str(tmp_path)))
    assert p.returncode == 2 and "rocksdb-tools" in p.stderr


# --- a tiny real run, through Posix only ---


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    if not HAVE_DB_BENCH:
        pytest.skip("db_bench is not installed (rocksdb-tools)")
    base = tmp_path_factory.mktemp("rocksdb")
    before = set(stress_ng_pids())
    p = study(
        "--num",
        "2000",
        "--runtime",
        "1",
        "--repeats",
        "1",
        "--configs",
        "posix",
        "--degrees",
        "0,50",
        "--ratios",
        "5",
        "--experiments",
        "sweep",
        "--workloads",
        "mixgraph",
        "--devices",
        "disk",
        "--dir",
        str(base / "db"),
        "--out",
        str(base / "out"),
    )
    assert p.returncode == 0, p.stderr
    assert not set(stress_ng_pids()) - before, "the co-runner outlived the study"
    return base, p


@needs_db_bench
def test_tiny_run_writes_its_outputs(tiny):
    base, p = tiny
    out = base / "out"
    assert "2 cells" in p.stdout and "loading 2,000 keys" in p.stdout and f"Report: {out}/report.html" in p.stdout
    lines = (out / "runs.csv").read_text().splitlines()
    assert lines[0].split(",") == rs.RUN_COLUMNS and len(lines) == 3
    doc = json.loads((out / "rocksdb.json").read_text())
    cells = {(c["config"], c["degree"]): c for c in doc["cells"]}
    assert set(cells) == {("posix", 0), ("posix", 50)}
    assert all(c["ops_per_s"] > 0 and c["p99_us"] > 0 and c["micros_per_op"] > 0 for c in cells.values())
    assert all(0 < c["cpu_us_per_op"] < 1e4 for c in cells.values())
    # stress-ng asked for half the core and, beside one db_bench thread, got some of it
    assert 0.05 < cells[("posix", 50)]["corunner_progress"] <= 1.2 and cells[("posix", 0)]["corunner_progress"] is None
    assert doc["dataset"]["num"] == 2000 and doc["dataset"]["rocksdb_version"]
    assert (out / "plots" / "rocksdb-disk-sweep.png").exists()
    html = (out / "report.html").read_text()
    assert "data:image/png;base64," in html and "complete" in html
    assert not (base / "db" / "mixgraph-n2000" / "work").exists()  # the per-run copy is cleaned up


PLUGIN = Path(os.environ.get("HIO_BUILD", "build"))
PLUGIN = (
    (PLUGIN if PLUGIN.is_absolute() else Path(__file__).resolve().parents[2] / PLUGIN)
    / "plugins"
    / "rocksdb"
    / "libhybridio-rocksdb.so"
)


@needs_db_bench
@pytest.mark.skipif(not PLUGIN.exists(), reason="the RocksDB plugin is not built")
@pytest.mark.skipif(dbbench.filesystem_type("/dev/shm") != "tmpfs", reason="no tmpfs at /dev/shm")
def test_tiny_run_on_an_emulated_ssd(tiny):
    """The plugin on emulate=pcie4, the DB copied to tmpfs: both strategies ran
    and waited as named, and the copy is gone afterwards."""
    base, _ = tiny
    out = base / "emu-out"
    copies = set(Path("/dev/shm").glob("hybridio-rocksdb-*"))
    p = study(
        "--num",
        "2000",
        "--runtime",
        "1",
        "--repeats",
        "1",
        "--configs",
        "hybridio-interrupt,hybridio-poll",
        "--degrees",
        "0",
        "--ratios",
        "5",
        "--experiments",
        "sweep",
        "--workloads",
        "readrandom",
        "--devices",
        "pcie4",
        "--plugin",
        str(PLUGIN),
        "--dir",
        str(base / "db"),
        "--out",
        str(out),
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads((out / "rocksdb.json").read_text())
    cells = {c["config"]: c for c in doc["cells"]}
    assert set(cells) == {"hybridio-interrupt", "hybridio-poll"} and {c["device"] for c in doc["cells"]} == {"pcie4"}
    assert cells["hybridio-interrupt"]["wait_interrupt"] == 1.0 and cells["hybridio-poll"]["wait_poll"] == 1.0
    assert all(r["command"][-1].startswith("--fs_uri=") and "emulate=pcie4" in r["command"][-1] for r in doc["runs"])
    assert "copying the DB to /dev/shm/hybridio-rocksdb-" in p.stdout
    assert set(Path("/dev/shm").glob("hybridio-rocksdb-*")) == copies, "the DB's copy in memory outlived the study"


@needs_db_bench
def test_a_loaded_db_is_reused(tiny, capsys):
    base, _ = tiny
    cfg = {"num": 2000, "dir": base / "db"}
    ds = rs.ensure_loaded(cfg, "db_bench")
    assert ds["reused"] is True and ds["size_bytes"] > 0
    assert "reusing the DB" in capsys.readouterr().out


@needs_db_bench
def test_fill_co_runner_is_killed_on_leaving(tmp_path):
    with dbbench.FillCoRunner("db_bench", tmp_path / "db", 50, 0, 30) as co:
        time.sleep(0.3)
        assert co.proc.poll() is None
    assert co.proc.poll() is not None
