# SPDX-License-Identifier: MIT
"""The co-runner's lifecycle: nothing of it outlives a run, an error or Ctrl-C;
and what it measures: its CPU over the I/O's own runtime."""

import signal
import subprocess
import sys
import tempfile
import time

import pytest

from stress_procs import stress_ng_pids
from hybridio.common import corunner
from hybridio.common.corunner import CoRunner
from hybridio.study import matrix, runner


@pytest.mark.parametrize("kind", ["cpu", "memory"])
def test_runs_measures_and_leaves_nothing(no_stray_stress_ng, kind):
    with CoRunner(kind, 50, "0", 1) as co:
        assert co.proc.poll() is None
        ops = co.result()
    assert ops > 0


def test_a_co_runner_that_cannot_start_leaves_no_report_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no stress-ng
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with pytest.raises(FileNotFoundError):
        with CoRunner("cpu", 50, "0", 1):
            pass
    assert list(tmp_path.iterdir()) == []


def test_killed_when_the_block_fails(no_stray_stress_ng):
    with pytest.raises(RuntimeError):
        with CoRunner("cpu", 100, "0", 30):
            time.sleep(0.3)
            assert stress_ng_pids()
            raise RuntimeError("the I/O side failed")


def test_study_stops_cleanly_on_sigint(no_stray_stress_ng, hio_bench, tmp_path):
    out = tmp_path / "study"
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hybridio.study",
            "--hio-bench",
            hio_bench,
            "--handles",
            "0",
            "--bursty",
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
            "1",
            "--repeats",
            "5",
            "--runtime",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A test command started in the background inherits SIGINT ignored, and
        # Python then never raises KeyboardInterrupt: the study takes the default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 30
    while not stress_ng_pids() and time.time() < deadline:
        time.sleep(0.05)
    assert stress_ng_pids(), "the co-runner never started"
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err
    assert (out / "summary.csv").exists() and (out / "report.html").exists()
    assert "partial results" in (out / "report.html").read_text()


def test_cpu_meter_reads_the_co_runners_cpu_in_cores():
    with corunner.CoRunner("cpu", 50, "0", 2) as co:
        with corunner.CpuMeter(co, period=0.05) as meter:
            time.sleep(1.0)
        rate = meter.rate()
    assert rate is not None and 0.3 < rate < 0.7, rate  # half of one core, give or take the scheduler


def test_cpu_meter_without_samples_says_none():
    class Gone:
        def cpu_by_pid(self):
            return {}

    with corunner.CpuMeter(Gone(), period=0.01) as meter:
        time.sleep(0.05)
    assert meter.rate() is None


def test_cpu_meter_keeps_what_an_exited_worker_used_and_counts_a_late_one_whole():
    meter = corunner.CpuMeter(None)
    # The parent and worker 11 at 0 s; worker 12 starts late; 11 exits before the end.
    meter.samples = [
        (0.0, {10: 1_000_000, 11: 5_000_000}),
        (0.5, {10: 1_000_000, 11: 255_000_000, 12: 50_000_000}),
        (1.0, {10: 2_000_000, 12: 300_000_000}),
    ]
    # 1 ms + 250 ms + 300 ms over 1 s: the sum over live processes would read 0.296.
    assert meter.rate() == pytest.approx(0.551)


def test_cpu_meter_reads_a_window_between_samples():
    meter = corunner.CpuMeter(None)
    meter.samples = [
        (0.0, {10: 1_000_000, 11: 5_000_000}),
        (0.5, {10: 1_000_000, 11: 255_000_000, 12: 50_000_000}),
        (1.0, {10: 2_000_000, 12: 300_000_000}),
    ]
    # The second half: 1 ms + 0 + 250 ms over 0.5 s.
    assert meter.rate((0.5, 1.0)) == pytest.approx(0.502)
    # The middle half, interpolated: 0.5 ms + 125 ms + 150 ms over 0.5 s.
    assert meter.rate((0.25, 0.75)) == pytest.approx(0.551)
    # A window reaching past the samples is cut to them; one outside them has no rate.
    assert meter.rate((-5.0, 0.5)) == pytest.approx(0.6)
    assert meter.rate((2.0, 3.0)) is None


def test_a_co_runner_finished_early_reports_its_ops():
    with corunner.CoRunner("cpu", 50, "0", 30) as co:
        time.sleep(0.5)
        started = time.monotonic()
        ops = co.finish()
    assert time.monotonic() - started < 10, "SIGINT did not end stress-ng"
    assert ops > 0


def test_the_co_runner_outlives_an_io_run_that_starts_late(tmp_path, monkeypatch):
    """fio starts its job about 0.3 s after it starts: the co-runner must
    still be running when the job ends, and its CPU is read over the job's
    runtime only. Here the "job" is 1 s of sleep after 0.5 s of start-up.
    Whether the co-runner lived is read from the meter's samples, which stop
    when it ends; its share of a core is left to the machine's load."""
    report = tmp_path / "report.json"
    report.write_text("{}")
    meters = []

    class RecordedMeter(corunner.CpuMeter):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            meters.append(self)

    monkeypatch.setattr(corunner, "CpuMeter", RecordedMeter)

    class LateDriver:
        name = "late"

        def command(self, *args):
            return ["sh", "-c", f"sleep 1.5; cat {report}"]

        def parse(self, text, target):
            return {"runtime_s": 1.0}

    class NoLimit:
        def add(self, pid):
            pass

    cell_runner = runner.Runner("cpu", 1, {"cores": "0", "driver": LateDriver()}, NoLimit())
    started = time.monotonic()
    _, io, ops, cpu = cell_runner.cell(matrix.Cell("contention", "emu:pcie4", "poll", 1, 1, 100, "limited"))
    assert io == {"runtime_s": 1.0} and ops > 0
    (meter,) = meters
    last_seen = meter.samples[-1][0] - started
    assert last_seen > 1.4, last_seen  # a co-runner ended by a 1 s clock is last seen at about 1 s
    assert cpu == pytest.approx(meter.rate((meter.samples[-1][0] - 1.0, meter.samples[-1][0])), abs=0.1)
