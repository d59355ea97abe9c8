"""The co-runner's lifecycle: nothing of it outlives a run, an error or Ctrl-C."""
import signal
import subprocess
import sys
import time

import pytest

from stress_procs import stress_ng_pids
from hybridio import corunner
from hybridio.corunner import CoRunner


@pytest.mark.parametrize("kind", ["cpu", "memory"])
def test_runs_measures_and_leaves_nothing(no_stray_stress_ng, kind):
    with CoRunner(kind, 50, "0", 1) as co:
        assert co.proc.poll() is None
        ops = co.result()
    assert ops > 0


def test_killed_when_the_block_fails(no_stray_stress_ng):
    with pytest.raises(RuntimeError):
        with CoRunner("cpu", 100, "0", 30):
            time.sleep(0.3)
            assert stress_ng_pids()
            raise RuntimeError("the I/O side failed")


def test_study_stops_cleanly_on_sigint(no_stray_stress_ng, hio_bench, tmp_path):
    out = tmp_path / "study"
    p = subprocess.Popen([sys.executable, "-m", "hybridio.study", "--hio-bench", hio_bench, "--handles", "0", "--bursty", "0",
                          "--out", str(out),
                          "--targets", "emu:pcie4", "--strategies", "interrupt,poll", "--loads", "0,100",
                          "--threads", "1", "--repeats", "5", "--runtime", "1"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
    meter.samples = [(0.0, {10: 1_000_000, 11: 5_000_000}),
                     (0.5, {10: 1_000_000, 11: 255_000_000, 12: 50_000_000}),
                     (1.0, {10: 2_000_000, 12: 300_000_000})]
    # 1 ms + 250 ms + 300 ms over 1 s: the sum over live processes would read 0.296.
    assert meter.rate() == pytest.approx(0.551)
