# SPDX-License-Identifier: MIT
"""Runs that work: fio's JSON layout, job files, every wait mode, verify, I/O errors."""

import csv
import json
import os
import pty
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

SMALL = ["--filename=emu:pcie4,size=16m", "--size=16m"]


def test_fio_json_layout(run_json):
    out = run_json("--name=j", *SMALL, "--rw=randread", "--runtime=0.3", "--time_based")
    assert "fio version" in out
    job = out["jobs"][0]
    for key in ("jobname", "error", "usr_cpu", "sys_cpu", "ctx", "job_runtime", "read", "write", "hybridio"):
        assert key in job, key
    rd = job["read"]
    assert rd["iops"] > 0 and rd["total_ios"] > 0
    assert rd["clat_ns"]["mean"] > 0
    p = rd["clat_ns"]["percentile"]
    assert "99.000000" in p and "50.000000" in p
    assert p["50.000000"] <= p["99.000000"] <= rd["clat_ns"]["max"]
    h = job["hybridio"]
    assert h["emulated"] is True and h["backend"] == "emu" and h["strategy"] == "interrupt"
    for key in ("cpu_us_per_io", "sleep_ns", "spin_ns", "mode_changes"):
        assert key in h, key


def test_keys_match_real_fio(run_json, disk_dir):
    """A script that reads fio's JSON reads ours: same keys where it looks."""
    f = disk_dir / "data"
    f.write_bytes(os.urandom(1 << 20))
    common = [f"--filename={f}", "--rw=randread", "--bs=4k", "--runtime=0.3", "--time_based"]
    fio = subprocess.run(
        ["fio", "--name=j", "--ioengine=io_uring", *common, "--output-format=json"],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = json.loads(fio.stdout)["jobs"][0]
    ours = run_json("--name=j", *common)["jobs"][0]

    def keys(d, prefix=""):
        for k, v in d.items():
            if k == "percentile":
                continue
            yield prefix + k
            if isinstance(v, dict):
                yield from keys(v, prefix + k + ".")

    wanted = {k for k in keys(theirs) if k.split(".")[0] in ("read", "write") and k.count(".") <= 2}
    wanted -= {k for k in wanted if any(s in k for s in ("bw_", "iops_", "_agg", "bins"))}
    wanted |= {"jobname", "error", "usr_cpu", "sys_cpu", "ctx", "job_runtime"}
    missing = sorted(w for w in wanted if w not in set(keys(ours)))
    assert not missing, missing


@pytest.mark.parametrize("mode", ["interrupt", "poll", "hybrid", "adaptive"])
def test_every_mode_on_emulated(run_json, mode):
    out = run_json("--name=j", *SMALL, "--rw=randrw", "--iodepth=8", f"--completion={mode}", "--verify=crc32c")
    job = out["jobs"][0]
    assert job["error"] == 0
    assert job["read"]["total_ios"] + job["write"]["total_ios"] == (16 << 20) // 4096
    assert job["hybridio"]["verify"]["mismatches"] == 0
    assert job["hybridio"]["strategy"] == mode


@pytest.mark.parametrize("mode", ["interrupt", "poll", "hybrid", "sqpoll", "adaptive"])
def test_every_mode_on_file_with_verify(run_json, disk_dir, mode):
    f = disk_dir / "data"
    out = run_json(
        "--name=w",
        f"--filename={f}",
        "--size=4m",
        "--rw=randwrite",
        "--bs=4k",
        "--iodepth=4",
        "--direct=1",
        f"--completion={mode}",
        "--verify=crc32c",
    )
    v = out["jobs"][0]["hybridio"]["verify"]
    assert v == {"blocks_verified": 1024, "mismatches": 0}


def test_adaptive_reports_its_modes_and_monitor(run_json):
    out = run_json("--name=j", *SMALL, "--rw=randread", "--runtime=0.3", "--time_based", "--completion=adaptive")
    a = out["jobs"][0]["hybridio"]["adaptive"]
    assert set(a["mode_pct"]) == {"interrupt", "poll", "hybrid"}
    assert sum(a["mode_pct"].values()) == pytest.approx(100, abs=0.5)
    assert a["switches"] >= 0 and a["probes"] >= 0
    m = a["monitor"]
    # The monitor's cost is a share of the run's wall time, however loaded the machine is.
    assert m["samples"] > 0 and m["ns_per_sample"] > 0
    wall_ns = out["jobs"][0]["job_runtime"] * 1e6
    assert m["cpu_pct"] == pytest.approx(100 * m["samples"] * m["ns_per_sample"] / wall_ns, rel=0.05)
    assert a["wake_cpu_us"] > 0
    assert a["last"]["settled"] in ("interrupt", "poll", "hybrid")
    assert 0 <= a["last"]["contention"] <= 1
    assert a["last"]["objective"] == "shared" and a["monitor"]["source"] in ("cpuidle", "proc_stat")
    assert "timeline" not in out["jobs"][0]["hybridio"]


def test_adaptive_objective_own_is_carried_to_the_view(run_json):
    out = run_json(
        "--name=j",
        *SMALL,
        "--rw=randread",
        "--runtime=0.2",
        "--time_based",
        "--completion=adaptive",
        "--adaptive_objective=own",
    )
    assert out["jobs"][0]["hybridio"]["adaptive"]["last"]["objective"] == "own"


def test_adaptive_log_takes_an_interval(run_json):
    out = run_json(
        "--name=j",
        *SMALL,
        "--rw=randread",
        "--runtime=0.2",
        "--time_based",
        "--completion=adaptive",
        "--adaptive_log=5ms",
    )
    tl = out["jobs"][0]["hybridio"]["timeline"]
    # One sample per 5 ms of a 200 ms run, give or take the scheduler: far more than the bare flag's 100 ms.
    assert 20 <= len(tl) <= 41
    assert all(b["t_ms"] > a["t_ms"] for a, b in zip(tl, tl[1:]))
    assert all({"others_cores", "demand_cores", "idle_share", "cpu"} <= set(p) for p in tl)


def test_adaptive_log_samples_every_100ms(run_json):
    out = run_json(
        "--name=j", *SMALL, "--rw=randread", "--runtime=0.55", "--time_based", "--completion=adaptive", "--adaptive_log"
    )
    h = out["jobs"][0]["hybridio"]
    tl = h["timeline"]
    assert 4 <= len(tl) <= 5
    gaps = [b["t_ms"] - a["t_ms"] for a, b in zip(tl, tl[1:])]
    assert all(95 <= g <= 200 for g in gaps), gaps
    for p in tl:
        assert p["iops"] > 0 and p["mode"] in ("interrupt", "poll", "hybrid") and "contention" in p
    assert h["start_unix_ms"] > 1.7e12


def test_adaptive_log_with_a_static_mode_logs_iops_only(run_json):
    out = run_json(
        "--name=j", *SMALL, "--rw=randread", "--runtime=0.25", "--time_based", "--completion=poll", "--adaptive_log"
    )
    tl = out["jobs"][0]["hybridio"]["timeline"]
    assert tl and all(set(p) == {"t_ms", "iops"} for p in tl)


def test_every_run_says_when_its_measured_window_began(run_json):
    before = time.time() * 1e3
    out = run_json("--name=j", *SMALL, "--rw=randread", "--runtime=0.2", "--time_based", "--ramp_time=0.1")
    job = out["jobs"][0]
    start = job["hybridio"]["start_unix_ms"]
    assert before + 100 <= start <= time.time() * 1e3 - job["job_runtime"]  # after the ramp; the window fits the run


TICK_COLUMNS = (
    "t_us,queue,ran,learned,level,others,others_level,idle,sleeps_per_s,completions,wall_us,wait_us,cpu_us,"
    "iops_interrupt,iops_poll,iops_hybrid,next,probe"
).split(",")


def adaptive_tick_log(run_json, tmp_path):
    """Two adaptive jobs of 0.5 s with HIO_ADAPTIVE_TICKS set: the log's path and its rows."""
    log = tmp_path / "ticks.csv"
    args = ["--name=j", *SMALL, "--rw=randread", "--runtime=0.5", "--time_based", "--completion=adaptive"]
    run_json(*args, "--numjobs=2", env={**os.environ, "HIO_ADAPTIVE_TICKS": str(log)})
    with open(log) as f:
        return log, list(csv.DictReader(f))


def test_every_adaptive_tick_is_logged_where_the_environment_says(run_json, tmp_path):
    _, rows = adaptive_tick_log(run_json, tmp_path)
    assert rows and list(rows[0]) == TICK_COLUMNS
    modes = {"interrupt", "poll", "hybrid"}
    # A queue logs the ticks it leads: while it follows another of ours on
    # its core, and while it settles after a change of mode, it logs none.
    # Together the two cover the run at least once, and neither more than once.
    walls = {q: sum(float(r["wall_us"]) for r in rows if r["queue"] == q) for q in ("1", "2")}
    assert sum(walls.values()) >= 0.7 * 0.5e6, walls
    assert all(0 < w <= 1.3 * 0.5e6 for w in walls.values()), walls
    for q in ("1", "2"):  # a number per queue, one queue per job
        mine = [r for r in rows if r["queue"] == q]
        t = [float(r["t_us"]) for r in mine]
        assert t == sorted(t), q
        assert all(0 <= float(r["wait_us"]) <= float(r["wall_us"]) for r in mine), q
        assert any(float(r["cpu_us"]) > 0 for r in mine), q
        assert all(r["ran"] in modes and r["next"] in modes and 0 <= int(r["level"]) <= 3 for r in mine)
        learned = [r for r in mine if r["learned"] == "1"]
        assert learned and all(int(r["completions"]) > 0 for r in learned)
        assert float(learned[-1][f"iops_{learned[-1]['ran']}"]) > 0, "what was measured is in the level's table"


def test_the_tick_summary_reads_a_real_log(run_json, tmp_path, capsys):
    from hybridio.adaptive import ticks as summary

    log, rows = adaptive_tick_log(run_json, tmp_path)
    assert summary.main([str(log), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["unparsed_lines"] == 0
    assert sorted(q["queue"] for q in out["queues"]) == [1, 2]
    for q in out["queues"]:
        mine = [r for r in rows if r["queue"] == str(q["queue"])]
        assert q["completions"] == sum(int(r["completions"]) for r in mine)
        assert q["seconds"] == pytest.approx(sum(float(r["wall_us"]) for r in mine) / 1e6)
        assert sum(c["share"] for c in q["cells"]) == pytest.approx(1)
        assert q["probes"] == sum(r["probe"] == "1" for r in mine)


def test_no_tick_log_without_adaptive_and_a_bad_path_is_said_once(run, tmp_path):
    ticks = tmp_path / "ticks.csv"
    env = {**os.environ, "HIO_ADAPTIVE_TICKS": str(ticks)}
    args = ["--name=j", *SMALL, "--rw=randread", "--runtime=0.1", "--time_based"]
    assert run(*args, "--completion=poll", env=env).returncode == 0
    assert not ticks.exists()
    env["HIO_ADAPTIVE_TICKS"] = str(tmp_path / "missing" / "ticks.csv")
    p = run(*args, "--completion=adaptive", "--numjobs=2", env=env)
    assert p.returncode == 0, p.stderr
    said = [ln for ln in p.stderr.splitlines() if "HIO_ADAPTIVE_TICKS" in ln]
    assert said == [f"hybridio: HIO_ADAPTIVE_TICKS={env['HIO_ADAPTIVE_TICKS']}: No such file or directory; no tick log"]


def test_list_strategies(run):
    p = run("--list-strategies")
    assert p.returncode == 0
    lines = dict(line.split("\t") for line in p.stdout.splitlines())
    assert lines["adaptive"] == "user-space" and lines["poll"] == "user-space" and lines["sqpoll"] == "kernel-side"


def test_verify_catches_corruption_on_emulated(run):
    p = run(
        "--name=w",
        "--filename=emu:pcie4,size=4m,corrupt_offset=41960",
        "--rw=write",
        "--bs=4k",
        "--verify=crc32c",
        "--output-format=json",
    )
    assert p.returncode == 1
    assert "block at offset 40960" in p.stderr and "crc32c" in p.stderr  # the block holding byte 41960
    assert json.loads(p.stdout)["jobs"][0]["hybridio"]["verify"]["mismatches"] == 1


def test_verify_catches_corruption_in_file(run, run_json, disk_dir):
    f = disk_dir / "data"
    run_json("--name=w", f"--filename={f}", "--size=1m", "--rw=write", "--bs=4k", "--verify=crc32c")
    clean = run_json("--name=r", f"--filename={f}", "--rw=randread", "--bs=4k", "--verify=crc32c")
    assert clean["jobs"][0]["hybridio"]["verify"] == {"blocks_verified": 256, "mismatches": 0}
    with open(f, "r+b") as fh:
        fh.seek(200_000)
        b = fh.read(1)
        fh.seek(200_000)
        fh.write(bytes([b[0] ^ 0x10]))
    p = run("--name=r", f"--filename={f}", "--rw=read", "--bs=4k", "--verify=crc32c")
    assert p.returncode == 1
    assert "offset 196608" in p.stderr  # the 4 KiB block holding byte 200000


def test_injected_eio_names_operation_offset_errno(run):
    p = run("--name=j", "--filename=emu:pcie4,size=4m,fail_offset=65536", "--rw=read", "--bs=4k")
    assert p.returncode == 1
    assert "read at offset 65536" in p.stderr and "errno 5" in p.stderr


def test_job_file_with_global_section(run_json, tmp_path):
    jf = tmp_path / "jobs.fio"
    jf.write_text(
        "; two jobs\n[global]\nfilename=emu:pcie4,size=8m\nsize=8m\nbs=4k\n\n"
        "[reader]\nrw=randread\ncompletion=poll\n\n[writer]\nrw=randwrite\niodepth=4\n"
    )
    out = run_json(jf)
    names = [j["jobname"] for j in out["jobs"]]
    assert names == ["reader", "writer"]
    assert out["jobs"][0]["hybridio"]["strategy"] == "poll"
    assert out["jobs"][1]["write"]["total_ios"] == 2048


def test_command_line_overrides_job_file(run_json, tmp_path):
    jf = tmp_path / "jobs.fio"
    jf.write_text("[a]\nfilename=emu:pcie4,size=8m\nsize=8m\nbs=4k\n")
    out = run_json("--bs=8k", jf)
    assert out["jobs"][0]["read"]["total_ios"] == 1024


def test_numjobs_runs_clones(run_json):
    out = run_json("--name=j", *SMALL, "--numjobs=3", "--rw=randread", "--runtime=0.2", "--time_based")
    assert len(out["jobs"]) == 3


def test_rate_iops_caps_the_job(run_json):
    out = run_json("--name=j", *SMALL, "--rw=randread", "--rate_iops=500", "--runtime=1", "--time_based")
    assert out["jobs"][0]["read"]["total_ios"] <= 500 * 1.05 + 1


def test_normal_output_says_emulated(run):
    p = run("--name=j", *SMALL, "--runtime=0.2", "--time_based")
    assert p.returncode == 0 and "emulated SSD" in p.stdout and "clat percentiles" in p.stdout


def test_progress_line_on_a_terminal(hio_bench):
    """A run longer than a few seconds shows fio's status line on a terminal."""
    master, slave = pty.openpty()
    p = subprocess.Popen(
        [hio_bench, "--name=j", *SMALL, "--runtime=4", "--time_based"], stdout=subprocess.DEVNULL, stderr=slave
    )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert p.wait(timeout=30) == 0
    assert b"Jobs: 1" in seen and b"eta" in seen


def test_help_and_version(run):
    h = run("--help")
    assert h.returncode == 0 and "--completion" in h.stdout and "--hybrid_sleep_us" in h.stdout
    assert run("--version").stdout.startswith("hio-bench ")


def test_ramp_time_is_not_measured(run_json):
    """At a capped rate, the I/O of the ramp does not count in the result."""
    out = run_json(
        "--name=j", *SMALL, "--rw=randread", "--rate_iops=1000", "--ramp_time=0.5", "--runtime=0.5", "--time_based"
    )
    assert out["jobs"][0]["read"]["total_ios"] <= 500 * 1.05 + 1


def test_cpus_allowed_pins_the_job(run_json):
    out = run_json("--name=j", *SMALL, "--cpus_allowed=0", "--runtime=0.2", "--time_based")
    assert out["jobs"][0]["error"] == 0 and out["jobs"][0]["job options"]["cpus_allowed"] == "0"


@pytest.fixture
def shm_file():
    """A 4 MiB file on tmpfs (/dev/shm), what --emulate is meant for, else in the temporary directory."""
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
    with tempfile.TemporaryDirectory(dir=base, prefix="hio-cli-") as d:
        f = Path(d) / "data"
        f.write_bytes(os.urandom(4 << 20))
        yield f


def require_o_direct(path):
    try:
        os.close(os.open(path, os.O_RDONLY | os.O_DIRECT))
    except OSError as e:
        pytest.skip(f"no O_DIRECT on {path.parent}: {e}")


def test_emulate_runs_on_a_file(run_json, shm_file):
    require_o_direct(shm_file)
    out = run_json(
        "--name=j",
        f"--filename={shm_file}",
        "--emulate=pcie4",
        "--direct=1",
        "--rw=randread",
        "--runtime=1",
        "--time_based",
    )
    job = out["jobs"][0]
    assert job["error"] == 0
    h = job["hybridio"]
    assert h["emulate"] == "pcie4"
    assert h["backend"] == "uring"  # the file's own, timed; not the emulated SSD's RAM
    assert job["read"]["iops"] > 0 and job["read"]["total_ios"] > 0


def test_emulate_latency_is_a_floor(run_json, shm_file):
    """Every read waits the device's 500 us; the same file without --emulate answers far sooner."""
    common = ["--name=j", f"--filename={shm_file}", "--rw=randread", "--iodepth=1", "--runtime=0.5", "--time_based"]
    out = run_json(*common, "--emulate=lat_us=500,jitter_us=0")
    h, rd = out["jobs"][0]["hybridio"], out["jobs"][0]["read"]
    assert h["emulate"] == "lat_us=500,jitter_us=0"
    assert rd["total_ios"] > 0
    assert rd["clat_ns"]["mean"] >= 500_000
    assert rd["clat_ns"]["min"] >= 500_000
    plain = run_json(*common)["jobs"][0]
    assert plain["hybridio"]["emulate"] == ""
    assert plain["read"]["clat_ns"]["percentile"]["50.000000"] < 250_000


def test_emulate_one_device_serves_every_job(run_json, shm_file):
    """Two jobs under one --emulate share its IOPS ceiling: at 2000 IOPS on one channel (500 us a command), they
    complete 2000 reads a second together, where a device each would let each job reach 2000."""
    out = run_json(
        f"--filename={shm_file}",
        "--emulate=lat_us=50,iops=2000,jitter_us=0",
        "--rw=randread",
        "--iodepth=1",
        "--runtime=1",
        "--time_based",
        "--name=a",
        "--name=b",
    )
    jobs = out["jobs"]
    assert [j["hybridio"]["emulate"] for j in jobs] == ["lat_us=50,iops=2000,jitter_us=0"] * 2
    assert all(j["read"]["total_ios"] > 0 for j in jobs)
    # The ceiling is exact; 10% for the jobs' start and end not lining up.
    assert sum(j["read"]["iops"] for j in jobs) <= 2000 * 1.1
