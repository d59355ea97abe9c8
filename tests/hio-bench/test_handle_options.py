# SPDX-License-Identifier: MIT
"""hio-bench's handle options: queues, priority, cache, read-ahead and the
completion thread, each with data checked; and the benchmark job files."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
JOBS = sorted((ROOT / "bench" / "jobs").glob("*.fio"))


def handle(job):
    return job["hybridio"]["handle"]


@pytest.mark.parametrize("queue", ["dedicated", "shared", "split_rw"])
@pytest.mark.parametrize("reaper", ["self", "thread"])
def test_queues_and_reapers_keep_data_intact(run_json, queue, reaper):
    out = run_json(
        "--filename=emu:pcie4,size=16m",
        "--rw=randrw",
        "--iodepth=8",
        "--verify=crc32c",
        "--runtime=0.3",
        "--time_based",
        f"--queue={queue}",
        f"--reaper={reaper}",
        "--name=a",
        "--name=b",
    )
    for j in out["jobs"]:
        assert j["error"] == 0
        assert j["hybridio"]["verify"]["mismatches"] == 0
        assert j["hybridio"]["verify"]["blocks_verified"] > 0
        h = handle(j)
        assert h["queue"] == queue and h["reaper"] == reaper
        assert h["queues"] == (2 if queue == "split_rw" else 1)
        if reaper == "thread":
            assert h["completion_thread"]["rounds"] > 0
            assert h["completion_thread"]["poll_period_us"] == "auto"


def test_high_priority_gets_its_own_queue(run_json):
    out = run_json(
        "--filename=emu:pcie4",
        "--rw=randwrite",
        "--iodepth=4",
        "--runtime=0.3",
        "--time_based",
        "--queue=shared",
        "--name=hi",
        "--handle_priority=high",
        "--name=lo1",
        "--name=lo2",
    )
    hi, lo1, lo2 = out["jobs"]
    assert handle(hi)["queue"] == "dedicated" and handle(hi)["priority"] == "high"
    assert handle(hi)["lock_wait_ns"] == 0  # nobody else uses its queue
    assert handle(lo1)["queue"] == "shared" and handle(lo1)["priority"] == "normal"


@pytest.mark.parametrize("policy", ["writethrough", "writeback"])
def test_cache_keeps_data_intact(run_json, policy):
    out = run_json(
        "--name=c",
        "--filename=emu:pcie4,size=8m",
        "--rw=randrw",
        "--iodepth=4",
        "--verify=crc32c",
        "--runtime=0.3",
        "--time_based",
        "--cache_mb=2",
        f"--cache_policy={policy}",
    )
    j = out["jobs"][0]
    assert j["error"] == 0, j["hybridio"].get("error_message")
    assert j["hybridio"]["verify"]["mismatches"] == 0
    c = handle(j)["cache"]
    assert c["policy"] == policy and c["mb"] == 2
    assert c["hits"] + c["misses"] > 0
    assert c["pages"] <= 512


def test_writeback_cache_reaches_the_file(run, run_json, disk_dir):
    f = disk_dir / "wb"
    out = run_json(
        "--name=w",
        f"--filename={f}",
        "--size=4m",
        "--rw=randwrite",
        "--direct=1",
        "--verify=crc32c",
        "--cache_mb=1",
        "--cache_policy=writeback",
    )
    assert out["jobs"][0]["error"] == 0
    # A second run without a cache reads the file itself back.
    out = run_json("--name=r", f"--filename={f}", "--rw=read", "--direct=1", "--verify=crc32c")
    j = out["jobs"][0]
    assert j["error"] == 0 and j["hybridio"]["verify"]["mismatches"] == 0
    assert j["hybridio"]["verify"]["blocks_verified"] == 1024


def test_readahead_on_sequential_reads(run_json):
    out = run_json("--name=s", "--filename=emu:pcie4,size=16m", "--rw=read", "--cache_mb=4", "--readahead=auto")
    c = handle(out["jobs"][0])["cache"]
    assert c["readahead_ios"] > 0
    assert c["hit_ratio"] > 0.8
    out = run_json(
        "--name=s",
        "--filename=emu:pcie4,size=16m",
        "--rw=randread",
        "--cache_mb=4",
        "--readahead=auto",
        "--runtime=0.2",
        "--time_based",
    )
    assert handle(out["jobs"][0])["cache"]["readahead_ios"] == 0


def test_norandommap_repeats_blocks(run_json):
    # 16 blocks, 200 reads: without a random map blocks repeat, and a cache
    # as large as the range serves most of them.
    out = run_json(
        "--name=n",
        "--filename=emu:pcie4,size=64k",
        "--rw=randread",
        "--norandommap",
        "--cache_mb=1",
        "--runtime=0.1",
        "--time_based",
    )
    assert handle(out["jobs"][0])["cache"]["hit_ratio"] > 0.5


@pytest.mark.parametrize("jobfile", JOBS, ids=[p.name for p in JOBS])
def test_benchmark_job_files_run(run_json, jobfile):
    out = run_json(str(jobfile), "--runtime=0.2", "--ramp_time=0")
    assert out["jobs"]
    for j in out["jobs"]:
        assert j["error"] == 0
        assert j["read"]["iops"] + j["write"]["iops"] > 0
