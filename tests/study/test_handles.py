# SPDX-License-Identifier: MIT
"""The handle experiments (hybridio.handles): the claims' arithmetic on
synthetic hio-bench JSON, the plan, the command lines, and one real run."""

import json
import subprocess
import sys

import pytest

from hybridio.common import stats
from hybridio.handles import findings as handle_findings
from hybridio.handles import plots
from hybridio.handles import runner as handles
from hybridio.study import cli as study
from hybridio.study import report


# --- synthetic hio-bench JSON: only the fields handles.py reads ---


def job(name="reader", read_iops=0.0, write_iops=0.0, handle=None, p99_ns=None, mean_ns=None):
    clat = {"mean": mean_ns if mean_ns is not None else 0.0}
    if p99_ns is not None:
        clat["percentile"] = {"99.000000": p99_ns}
    return {
        "jobname": name,
        "read": {"iops": read_iops, "clat_ns": clat},
        "write": {"iops": write_iops},
        "hybridio": {"emulated": True, "handle": handle or {}},
    }


def doc(*jobs):
    return {"jobs": list(jobs)}


def poll_doc(iops, cpu, mean=None, last=None):
    return doc(
        job(
            read_iops=iops,
            handle={"completion_thread": {"cpu_pct": cpu, "period_us_mean": mean, "period_us_last": last}},
        )
    )


def config(key):
    return next(c for c in handles.configurations(file="/f", size="1g") if c.key == key)


def results_of(*pairs, repeat=0):
    """pairs: (configuration key, hio-bench JSON dict) -> a results dict as handles.run fills it."""
    res = handles.new_results("hio-bench", 1, 1, None, "1g")
    for key, d in pairs:
        c = config(key)
        handles.record(res, handles.Run(c.experiment, c.key, c.config, c.args, c.target, repeat), d)
    return res


def results_over(*repeats):
    """repeats: one list of (configuration key, JSON) pairs per repeat -> a results dict."""
    res = handles.new_results("hio-bench", 1, len(repeats), None, "1g")
    for rep, pairs in enumerate(repeats):
        for key, d in pairs:
            c = config(key)
            handles.record(res, handles.Run(c.experiment, c.key, c.config, c.args, c.target, rep), d)
    return res


# --- the polling period: what auto is measured against, then the claim on each repeat's ratios ---

FIXED = {0: (1000.0, 90.0), 2: (990.0, 60.0), 5: (960.0, 40.0), 10: (900.0, 20.0), 50: (500.0, 5.0)}


def test_poll_auto_is_measured_against_the_best_period_and_the_cheapest_that_reaches_it():
    r = handle_findings.poll_claim(FIXED, (980.0, 45.0))
    assert r["best_period_us"] == 0 and r["best_iops"] == 1000.0
    assert r["reaching_periods_us"] == [0, 2, 5]  # 900 < 0.95 x 1000
    assert (r["floor_period_us"], r["cpu_floor"]) == (5, 40.0)
    assert r["auto_iops_ratio"] == pytest.approx(0.98) and r["auto_cpu_ratio"] == pytest.approx(45 / 40)


def test_poll_reaching_is_inclusive():
    r = handle_findings.poll_claim({0: (100.0, 80.0), 10: (95.0, 40.0)}, (95.0, 50.0))
    assert r["reaching_periods_us"] == [0, 10] and r["cpu_floor"] == 40.0


def test_poll_a_tie_for_the_best_goes_to_the_cheaper_period():
    r = handle_findings.poll_claim({2: (100.0, 70.0), 20: (100.0, 30.0), 200: (50.0, 2.0)}, (99.0, 30.0))
    assert r["best_period_us"] == 20 and r["cpu_floor"] == 30.0


def test_poll_without_auto_or_fixed_periods_has_nothing_to_compare():
    assert handle_findings.poll_claim(FIXED, None)["auto_iops_ratio"] is None
    assert handle_findings.poll_claim({}, (1.0, 1.0))["best_iops"] is None
    assert handle_findings.poll_claim({0: (100.0, None)}, (100.0, 10.0))["cpu_floor"] is None


def poll_repeat(auto_iops, auto_cpu, bs="4k", fixed=FIXED):
    pairs = [(f"poll-emu_pcie4-{bs}-p{p}", poll_doc(i, c, mean=p, last=p)) for p, (i, c) in fixed.items()]
    return pairs + [(f"poll-emu_pcie4-{bs}-pauto", poll_doc(auto_iops, auto_cpu, mean=4.2, last=5.0))]


def test_poll_claims_are_judged_on_each_repeats_ratios():
    # 4k: auto within 1-3% of the best and 1.05-1.15x the cheapest's CPU in every repeat: met.
    # 64k: auto at half the best in every repeat: not met.
    reps = [
        poll_repeat(i, c) + poll_repeat(100.0, 5.0, "64k", {0: (200.0, 90.0)})
        for i, c in ((980.0, 42.0), (970.0, 44.0), (990.0, 46.0))
    ]
    f = handle_findings.findings(results_over(*reps))["poll_period"]
    s4k, s64k = f["summary"]
    assert (s4k["bs"], s4k["state"], s4k["auto_period_us_mean"]) == ("4k", "met", 4.2)
    assert (s64k["bs"], s64k["state"]) == ("64k", "not_met")
    four, sixty_four = f["claims"]
    assert four["state"] == "met" and four["interval"]["n"] == 3 and 0.96 < four["interval"]["value"] < 0.99
    assert 1.05 < four["cpu_interval"]["value"] < 1.15
    assert sixty_four["state"] == "not_met"
    assert "emulated, 4k" in f["sentences"][0] and f["sentences"][0].endswith(": met.")
    assert f["sentences"][1].endswith("NOT met.")
    assert {r["target"] for r in f["rows"]} == {"emulated"}


def test_poll_claim_straddling_its_threshold_or_of_one_repeat_is_unresolved():
    # IOPS at 0.93, 0.99, 0.97 of the best: the interval reaches below 0.95.
    reps = [poll_repeat(i, 42.0) for i in (930.0, 990.0, 970.0)]
    assert handle_findings.findings(results_over(*reps))["poll_period"]["claims"][0]["state"] == "unresolved"
    one = handle_findings.findings(results_over(poll_repeat(990.0, 42.0)))["poll_period"]["claims"][0]
    assert one["state"] == "unresolved" and "no interval" in one["interval_text"]


# --- priority ---


def prio_doc(high, *others, high_priority=True):
    jobs = [job("high", write_iops=high, handle={"priority": "high" if high_priority else "normal"})]
    jobs += [job(f"normal-{i + 1}", write_iops=v, handle={"priority": "normal"}) for i, v in enumerate(others)]
    return doc(*jobs)


def test_priority_ratio_and_evenness_on_each_repeat():
    reps = [
        [
            ("priority-high", prio_doc(h, 100.0, 90.0, 80.0)),
            ("priority-normal", prio_doc(100.0, 105.0, top, 101.0, high_priority=False)),
        ]
        for h, top in ((500.0, 115.0), (480.0, 116.0), (520.0, 114.0))
    ]
    f = handle_findings.findings(results_over(*reps))["priority"]
    ratio, even = f["claims"]
    assert ratio["state"] == "met" and ratio["interval"]["value"] == pytest.approx(5.0, rel=0.05)
    assert ratio["measured"] == {"high_iops": 500.0, "max_other_iops": 100.0}
    assert even["state"] == "not_met" and even["interval"]["value"] == pytest.approx(1.15, rel=0.01)
    text = " ".join(f["sentences"])
    assert "x the IOPS of the busiest other job (claim: superiority by 100% (>= 2.00)): met." in text
    assert "(claim: non-inferiority at 10% (<= 1.10)): NOT met." in text


def test_priority_claims_from_repeats():
    claims, _ = handle_findings.priority_claims(
        [{"high": 400.0, "a": 100.0, "b": 50.0}, {"high": 410.0, "a": 100.0, "b": 60.0}],
        "high",
        [{"high": 100.0, "a": 101.0}, {"high": 100.0, "a": 102.0}],
    )
    assert [c["state"] for c in claims] == ["met", "met"]
    # A repeat where the high job did no better than the others pulls the interval over 2x.
    claims, _ = handle_findings.priority_claims(
        [{"high": 400.0, "a": 100.0}, {"high": 100.0, "a": 100.0}], "high", [{"a": 100.0, "b": 100.0}]
    )
    assert [c["state"] for c in claims] == ["unresolved", "unresolved"]  # the second: one repeat


def test_priority_counts_reads_and_writes():
    f = handles.figures("priority", doc(job("high", read_iops=10.0, write_iops=5.0, handle={"priority": "high"})))
    assert f == {"jobs": {"high": 15.0}, "high": ["high"]}


# --- read-ahead ---


def test_readahead_is_measured_against_the_better_of_on_and_off():
    r = handle_findings.readahead_claim({"auto": 94.0, "on": 100.0, "off": 60.0})
    assert r["better_of_on_off"] == "on" and r["ratio"] == pytest.approx(0.94)
    assert handle_findings.readahead_claim({"on": 1.0, "off": 1.0}) is None


def test_readahead_findings_per_pattern_on_each_repeat():
    def repeat(scale):
        ra = {
            "randread": {"auto": 100.0 * scale, "on": 50.0, "off": 101.0},
            "read": {"auto": 80.0, "on": 200.0 * scale, "off": 100.0},
        }
        return [(f"readahead-{rw}-{m}", doc(job(read_iops=v))) for rw, by in ra.items() for m, v in by.items()]

    f = handle_findings.findings(results_over(repeat(1.0), repeat(1.01), repeat(0.99)))["readahead"]
    assert [c["state"] for c in f["claims"]] == ["met", "not_met"]
    assert f["sentences"][0].startswith("Read-ahead, random reads: auto got 0.99") and "(off)" in f["sentences"][0]
    assert f["sentences"][1].endswith("NOT met.")


# --- queues ---


def queue_doc(n, iops_each, wait):
    return doc(*[job(read_iops=iops_each, handle={"lock_wait_pct": wait}) for _ in range(n)])


def test_queue_figures_sum_iops_and_average_lock_wait():
    d = doc(job(read_iops=10.0, handle={"lock_wait_pct": 20.0}), job(read_iops=30.0, handle={"lock_wait_pct": 40.0}))
    assert handles.figures("queues", d) == {"iops": 40.0, "lock_wait_pct": 30.0, "jobs": 2}


def test_queue_scaling_peaks_and_ratio():
    totals = {"dedicated": {1: 100, 2: 190, 3: 200, 4: 210}, "shared": {1: 100, 2: 120, 3: 90, 4: 80}}
    pairs = [
        (f"queues-{q}-{n}jobs", queue_doc(n, t / n, 0.0 if q == "dedicated" else 50.0 + n))
        for q, by in totals.items()
        for n, t in by.items()
    ]
    f = handle_findings.findings(results_of(*pairs))["queues"]
    assert f["measured"]["peak_jobs"] == {"dedicated": 4, "shared": 2}
    assert f["measured"]["dedicated_over_shared_at_4"] == pytest.approx(210 / 80)
    assert "dedicated queues stop scaling at 4 jobs" in f["sentences"][0]
    assert "shared queues stop scaling at 2 jobs" in f["sentences"][0]
    assert "2.62x" in f["sentences"][1] and "54.0%" in f["sentences"][1]
    assert [(r["queue"], r["jobs"]) for r in f["rows"]][:2] == [("dedicated", 1), ("dedicated", 2)]


def test_queue_peak_on_a_plateau_is_where_scaling_stopped():
    assert handle_findings.queue_peaks({"q": {1: 50, 2: 100, 3: 100, 4: None}}) == {"q": 2}


# --- medians, cache, split, and missing runs ---


def test_medians_over_repeats():
    res = results_of(("cache-51mb", doc(job(read_iops=100.0, handle={"cache": {"hit_ratio": 0.1}}))), repeat=0)
    for rep, (iops, hit) in enumerate([(300.0, 0.3), (200.0, 0.2)], start=1):
        c = config("cache-51mb")
        handles.record(
            res,
            handles.Run(c.experiment, c.key, c.config, c.args, c.target, rep),
            doc(job(read_iops=iops, handle={"cache": {"hit_ratio": hit}})),
        )
    m = handle_findings.medians(res, "cache")["cache-51mb"]
    assert m["repeats"] == 3 and m["figures"]["iops"] == 200.0 and m["figures"]["hit_ratio"] == 0.2
    low, high = m["ci95"]["iops"]
    assert low < 200.0 < high  # the interval of the centre, from hybridio.common.stats
    res = results_of(
        ("priority-high", prio_doc(100.0, 10.0)),
        ("priority-high", prio_doc(300.0, 30.0)),
        ("priority-high", prio_doc(200.0, 50.0)),
    )
    jobs = handle_findings.medians(res, "priority")["priority-high"]["figures"]["jobs"]
    assert jobs == {"high": 200.0, "normal-1": 30.0}


def test_cache_table_against_no_cache():
    f = handle_findings.findings(
        results_of(
            ("cache-128mb", doc(job(read_iops=200.0, handle={"cache": {"hit_ratio": 0.5}}))),
            ("cache-0mb", doc(job(read_iops=100.0))),
        )
    )["cache"]
    by = {r["cache MiB"]: r for r in f["rows"]}
    assert by[128]["expected hit ratio"] == 0.5 and by[128]["IOPS / no cache"] == 2.0
    assert by[0]["hit ratio"] is None and by[128]["device"] == "emulated"
    assert "0.50 at 2:1 (expected 0.50), 2.00x the IOPS of no cache" in f["sentences"][0]


def test_split_reader_p99_and_writer_iops():
    pairs = [
        ("split-shared", doc(job("reader", read_iops=1e4, p99_ns=400e3, mean_ns=50e3), job("writer", write_iops=2e3))),
        (
            "split-split_rw",
            doc(job("reader", read_iops=2e4, p99_ns=100e3, mean_ns=20e3), job("writer", write_iops=1.9e3)),
        ),
    ]
    f = handle_findings.findings(results_of(*pairs))["split"]
    assert f["measured"]["p99_shared_over_split"] == 4.0
    assert f["rows"][0]["reader p99 µs"] == 400.0 and f["rows"][0]["reader mean µs"] == 50.0
    assert f["rows"][1]["writer IOPS"] == 1.9e3
    assert "400.0 µs on the shared queue and 100.0 µs" in f["sentences"][0]


def test_missing_runs_and_fields_are_tolerated():
    assert handle_findings.findings(handles.new_results("x", 1, 1, None, "1g")) == {}
    assert handle_findings.findings({}) == {}
    res = results_of(
        ("priority-high", prio_doc(500.0, 100.0)),
        ("poll-emu_pcie4-4k-p0", poll_doc(10.0, 90.0)),
        ("readahead-read-on", doc(job(read_iops=5.0))),
        ("split-shared", doc()),
        ("queues-shared-2jobs", doc(job(), job())),
        ("cache-26mb", {"jobs": [{}]}),
    )
    f = handle_findings.findings(res)
    assert set(f) == set(handle_findings.EXPERIMENTS)
    assert f["priority"]["claims"][0]["state"] == "unresolved" and len(f["priority"]["claims"]) == 1
    assert "without priority is missing" in " ".join(f["priority"]["sentences"])
    assert f["poll_period"]["claims"] == [] and "auto did not run" in f["poll_period"]["sentences"][0]
    assert f["readahead"]["claims"] == [] and "not judged" in f["readahead"]["sentences"][0]
    assert f["split"]["rows"][0]["reader p99 µs"] is None
    assert f["cache"]["rows"][0]["IOPS"] is None
    json.dumps(f)  # the findings go to handles.json as they are


# --- the plan and the command line ---


def test_plan_interleaves_the_repeats():
    runs = handles.plan(2, file="/f", size="1g")
    per = len(runs) // 2
    assert per == 2 + 8 + 2 * 4 * 9 + 4 + 6 + 2
    assert [r.repeat for r in runs] == [0] * per + [1] * per
    assert [r.key for r in runs[:per]] == [r.key for r in runs[per:]]
    assert len({r.key for r in runs}) == per and len({r.raw_name for r in runs}) == 2 * per
    assert len(handles.plan(1)) == per - 36  # without a file target: the emulated SSD only
    assert {r.experiment for r in handles.plan(1, only=["cache", "split"])} == {"cache", "split"}


def test_the_short_plan_sweeps_fewer_polling_periods_and_sizes():
    full, short = handles.plan(1, file="/f", size="1g"), handles.plan(1, file="/f", size="1g", short=True)
    polled = [r for r in short if r.experiment == "poll_period"]
    assert len(polled) == 2 * 2 * 5  # two targets, 4k and 64k, four periods and auto
    assert {r.config["bs"] for r in polled} == {"4k", "64k"}
    assert {r.config["period"] for r in polled} == {0, 5, 20, 100, "auto"}
    assert [r for r in short if r.experiment != "poll_period"] == [r for r in full if r.experiment != "poll_period"]
    assert handles.plan_for(handles.Options("hio-bench", 1, 1, "/f", "1g", short=True)) == short


def test_command_overrides_the_job_file_for_every_job():
    r = config("poll-file-16k-p20")
    cmd = handles.command("hio-bench", r, 2)
    assert cmd[0] == "hio-bench" and cmd[-1].endswith("handles/jobs/poll_period.fio")
    assert {
        "--filename=/f",
        "--direct=1",
        "--size=1g",
        "--bs=16k",
        "--poll_period_us=20",
        "--runtime=2",
        "--output-format=json",
    } <= set(cmd[1:-1])
    assert "--cpus_allowed" not in " ".join(cmd)  # both cores, not the study's limited core


def test_a_failing_hio_bench_raises_with_the_command_and_stderr():
    cmd = [sys.executable, "-c", "import sys; sys.stderr.write('hio-bench: no such thing'); sys.exit(2)"]
    with pytest.raises(RuntimeError, match="no such thing") as e:
        handles.execute(cmd, 1)
    assert "failed (2)" in str(e.value) and sys.executable in str(e.value)


def hio_study(hio_bench, *args):
    return subprocess.run(
        [sys.executable, "-m", "hybridio.study", "--hio-bench", hio_bench, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("value, needle", [("21", "21"), ("-1", "-1"), ("x", "'x'"), ("2.5", "'2.5'")])
def test_study_rejects_a_bad_handles_value(hio_bench, value, needle):
    p = hio_study(hio_bench, "--quick", "--handles", value)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip()
    assert line.startswith("hio-study: --handles ") and "\n" not in line and needle in line, line


def standalone(*args, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "hybridio.handles", *args], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--repeats", "0"], "'0'"),
        (["--repeats", "many"], "'many'"),
        (["--runtime", "-3"], "'-3'"),
        (["--only", "priority,nope"], "'nope'"),
        (["--out", "/proc/hio-handles"], "/proc/hio-handles"),
    ],
)
def test_standalone_rejects_bad_arguments(hio_bench, args, needle):
    p = standalone("--hio-bench", hio_bench, *args)
    assert p.returncode == 2, p.stderr
    line = p.stderr.strip()
    assert line.startswith("hybridio.handles: ") and "\n" not in line and needle in line, line


def test_standalone_missing_hio_bench(tmp_path):
    out = tmp_path / "results"
    p = standalone("--hio-bench", str(tmp_path / "hio-bench"), "--only", "split", "--out", str(out))
    assert p.returncode == 2 and "make build" in p.stderr
    assert not out.exists(), "a refused run leaves no folder behind"


# --- the report section and the plots, from synthetic findings ---


def test_report_section_and_plots(tmp_path):
    pairs = [(f"poll-file-4k-p{p}", poll_doc(i, c, mean=p)) for p, (i, c) in FIXED.items()]
    pairs += [("poll-file-4k-pauto", poll_doc(990.0, 45.0, mean=3.0))]
    pairs += [
        (f"queues-{q}-{n}jobs", queue_doc(n, 100.0, 10.0 * n)) for q in ("dedicated", "shared") for n in (1, 2, 3, 4)
    ]
    pairs += [("priority-high", prio_doc(500.0, 100.0, 90.0, 80.0))]
    res = results_of(*pairs)
    for rec in res["runs"]:
        rec["emulated"] = not rec["key"].startswith("poll-file")
    found = handle_findings.findings(res)
    figs = plots.draw_handles(found, tmp_path / "plots")
    assert [(e, p.name) for e, _, p in figs] == [
        ("queues", "handles-queues.png"),
        ("poll_period", "handles-poll-period-f.png"),
    ]
    assert all(p.stat().st_size > 0 for _, _, p in figs)
    html = report.render(
        tmp_path,
        [],
        [],
        {},
        {"machine": "m", "interrupted": False},
        {
            "findings": found,
            "figures": figs,
            "repeats": 1,
            "runs": len(res["runs"]),
            "planned": 94,
            "error": None,
            "file": "/f",
        },
    ).read_text()
    assert "Handles, queues and the cache" in html and html.count("<img ") == 2
    # One repeat gives no interval: every claim reads unresolved.
    assert "emulated SSD" in html and '<b class="state-unresolved">unresolved</b>' in html
    assert ">/f<" in html  # the file target's rows say where they ran


# --- the study's wiring, on a tiny plan ---


def test_study_runs_the_handle_experiments_after_the_rest(hio_bench, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(handles, "plan_for", lambda o: handles.plan(o.repeats, only=["priority"]))
    monkeypatch.setattr(handles, "check", lambda o: None)
    out = tmp_path / "study"
    status = study.main(
        [
            "--hio-bench",
            hio_bench,
            "--out",
            str(out),
            "--targets",
            "emu:pcie4",
            "--strategies",
            "poll",
            "--loads",
            "0",
            "--threads",
            "1",
            "--repeats",
            "1",
            "--runtime",
            "1",
            "--timeline",
            "0",
            "--handles",
            "1",
            "--bursty",
            "0",
        ]
    )
    said = capsys.readouterr().out
    assert status == 0
    assert "+ 2 handle-experiment runs" in said and "Priority: the high-priority job got" in said
    data = json.loads((out / "handles.json").read_text())
    assert len(data["runs"]) == 2 and "priority" in data["findings"]
    assert sorted(p.name for p in (out / "raw" / "handles").iterdir()) == [
        "r1-priority-high.json",
        "r1-priority-normal.json",
    ]
    html = (out / "report.html").read_text()
    assert "Handles, queues and the cache" in html and "Priority (emulated)" in html


# --- one real run of the standalone module ---


def test_standalone_end_to_end(hio_bench, tmp_path):
    out = tmp_path / "h"
    p = standalone(
        "--hio-bench",
        hio_bench,
        "--only",
        "priority,readahead",
        "--runtime",
        "1",
        "--repeats",
        "1",
        "--out",
        str(out),
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    data = json.loads((out / "handles.json").read_text())
    assert {r["experiment"] for r in data["runs"]} == {"priority", "readahead"} and len(data["runs"]) == 8
    f = data["findings"]
    assert set(f) == {"priority", "readahead"}
    assert len(f["priority"]["claims"]) == 2 and len(f["readahead"]["claims"]) == 2
    for c in f["priority"]["claims"] + f["readahead"]["claims"]:
        assert c["state"] in ("met", "not_met", "unresolved")
        assert all(isinstance(v, (int, float)) for v in c["measured"].values() if not isinstance(v, str))
    assert all(isinstance(r["IOPS"], float) and r["IOPS"] > 0 for r in f["priority"]["rows"] + f["readahead"]["rows"])
    assert "Priority: the high-priority job got" in p.stdout and "Read-ahead, random reads" in p.stdout
    assert len(list((out / "raw" / "handles").glob("r1-*.json"))) == 8


def test_spread_is_range_over_median_of_the_repeats():
    assert stats.spread_pct([90, 100, 110]) == pytest.approx(20.0)
    assert stats.spread_pct([100, None, 100]) == 0.0
    assert stats.spread_pct([100]) is None  # one repeat says nothing of the spread
    assert stats.spread_pct([{"a": 1}, {"a": 2}]) is None
