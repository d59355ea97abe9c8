# SPDX-License-Identifier: MIT
"""Bad input: one line naming the value, exit status 2, nothing run."""

import os
import tempfile
from pathlib import Path

import pytest

EMU = "--filename=emu:pcie4,size=16m"


def assert_usage_error(p, *needles):
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("hio-bench: ")
    for n in needles:
        assert n in lines[0], (n, lines[0])
    assert p.stdout == ""


@pytest.mark.parametrize(
    "arg, needles",
    [
        ("--bs=0", ["'0'", "--bs"]),
        ("--bs=4q", ["'4q'", "--bs"]),
        ("--iodepth=-1", ["'-1'", "--iodepth"]),
        ("--iodepth=5000", ["'5000'", "--iodepth"]),
        ("--rw=sideways", ["'sideways'", "--rw"]),
        ("--numjobs=0", ["'0'", "--numjobs"]),
        ("--rwmixread=101", ["'101'", "--rwmixread"]),
        ("--runtime=ten", ["'ten'", "--runtime"]),
        ("--completion=spin", ["'spin'", "--completion"]),
        ("--verify=md5", ["'md5'", "--verify"]),
        ("--adaptive_log=yes", ["'yes'", "--adaptive_log"]),
        ("--adaptive_log=100us", ["'100us'", "--adaptive_log", "1ms"]),
        ("--adaptive_objective=both", ["'both'", "--adaptive_objective", "shared or own"]),
        ("--cpus_allowed=1-0", ["'1-0'", "--cpus_allowed"]),
        ("--direct=maybe", ["'maybe'", "--direct"]),
        ("--frobnicate=1", ["'--frobnicate'"]),
        ("--queue=private", ["'private'", "--queue", "split_rw"]),
        ("--handle_priority=urgent", ["'urgent'", "--handle_priority"]),
        ("--cache_mb=-5", ["'-5'", "--cache_mb"]),
        ("--reaper=kernel", ["'kernel'", "--reaper"]),
        ("--norandommap=sometimes", ["'sometimes'", "--norandommap"]),
        ("--output-format=xml", ["'xml'"]),
    ],
)
def test_bad_option_value(run, arg, needles):
    assert_usage_error(run("--name=j", EMU, arg), *needles)


def test_objective_without_adaptive(run):
    assert_usage_error(
        run("--name=j", EMU, "--completion=poll", "--adaptive_objective=own"),
        "--adaptive_objective applies to --completion=adaptive only",
    )


def test_option_without_value(run):
    assert_usage_error(run("--name=j", EMU, "--bs"), "--bs")


def test_no_job(run):
    assert_usage_error(run(), "no job")


def test_no_filename(run):
    assert_usage_error(run("--name=j", "--rw=read"), "--filename")


def test_missing_file(run, disk_dir):
    f = disk_dir / "absent"
    assert_usage_error(run("--name=j", f"--filename={f}"), str(f), "No such file")


def test_missing_directory(run, disk_dir):
    f = disk_dir / "no" / "such" / "dir"
    assert_usage_error(run("--name=j", f"--filename={f}", "--size=1m"), str(f))


def test_unaligned_direct_block_size(run, disk_dir):
    f = disk_dir / "data"
    f.write_bytes(b"\0" * (1 << 20))
    assert_usage_error(run("--name=j", f"--filename={f}", "--direct=1", "--bs=1000"), "--bs=1000", "--direct=1")


def test_read_past_end(run, disk_dir):
    f = disk_dir / "small"
    f.write_bytes(b"\0" * 65536)
    assert_usage_error(
        run("--name=j", f"--filename={f}", "--rw=read", "--size=1m", "--runtime=1"), "past the end", "--size=1048576"
    )


def test_emulated_size_past_capacity(run):
    assert_usage_error(run("--name=j", "--filename=emu:pcie4,size=1m", "--size=2m"), "past the end")


@pytest.mark.parametrize(
    "spec, needle",
    [("emu:pcie9", "'pcie9'"), ("emu:pcie4,lat_us=abc", "'abc'"), ("emu:pcie4,colour=red", "'colour'")],
)
def test_bad_emulated_spec(run, spec, needle):
    assert_usage_error(run("--name=j", f"--filename={spec}"), needle)


def test_kernel_poll_mode_without_poll_queues(run, disk_dir):
    f = disk_dir / "data"
    f.write_bytes(b"\0" * (1 << 20))
    assert_usage_error(run("--name=j", f"--filename={f}", "--direct=1", "--completion=iopoll"), "poll queues")


def test_kernel_mode_on_emulated(run):
    assert_usage_error(run("--name=j", EMU, "--completion=iopoll"), "iopoll", "emulated")


def test_unknown_job_file_key(run, tmp_path):
    jf = tmp_path / "jobs.fio"
    jf.write_text("[global]\nrw=randread\n\n[a]\nfilename=emu:pcie4\nioengine=io_uring\n")
    assert_usage_error(run(jf), f"{jf}:6", "'ioengine'")


def test_bad_job_file_value(run, tmp_path):
    jf = tmp_path / "jobs.fio"
    jf.write_text("[a]\nfilename=emu:pcie4\nbs=0\n")
    assert_usage_error(run(jf), f"{jf}:3", "'0'", "--bs")


def test_missing_job_file(run, tmp_path):
    assert_usage_error(run(tmp_path / "nope.fio"), "nope.fio")


def test_unwritable_output(run, tmp_path):
    p = run("--name=j", "--filename=emu:pcie4,size=1m", "--size=64k", f"--output={tmp_path}/no/dir/out.json")
    assert p.returncode == 2 and "--output=" in p.stderr


def test_cpus_allowed_not_on_this_machine(run):
    assert_usage_error(run("--name=j", EMU, "--cpus_allowed=1000"), "--cpus_allowed=1000")


@pytest.mark.parametrize(
    "args, needles",
    [
        (["--cache_policy=writeback"], ["--cache_policy", "--cache_mb"]),
        (["--readahead=on"], ["--readahead", "--cache_mb"]),
        (["--cache_mb=8", "--readahead=sometimes"], ["'sometimes'", "--readahead"]),
        (["--cache_mb=8", "--cache_policy=later"], ["'later'", "--cache_policy"]),
        (["--cache_mb=8", "--bs=512"], ["--cache_mb", "4096-byte pages", "512"]),
        (["--poll_period_us=10"], ["--poll_period_us", "--reaper=thread"]),
        (["--reaper=thread", "--poll_period_us=fast"], ["'fast'", "--poll_period_us"]),
        (["--reaper=thread", "--poll_period_us=2000000"], ["'2000000'", "--poll_period_us"]),
    ],
)
def test_bad_handle_options(run, args, needles):
    assert_usage_error(run("--name=j", EMU, *args), *needles)


def test_shared_queue_needs_one_strategy(run):
    p = run("--queue=shared", EMU, "--name=a", "--completion=poll", "--name=b", "--completion=interrupt")
    assert_usage_error(p, "'a'", "'b'", "--completion")


@pytest.fixture
def shm_file():
    """A 1 MiB file on tmpfs (/dev/shm), what --emulate is meant for, else in the temporary directory."""
    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
    with tempfile.TemporaryDirectory(dir=base, prefix="hio-cli-") as d:
        f = Path(d) / "data"
        f.write_bytes(b"\0" * (1 << 20))
        yield f


@pytest.mark.parametrize(
    "args, needles",
    [
        (["--emulate=bogus"], ["'bogus'", "--emulate"]),
        (["--emulate="], ["''", "--emulate"]),
        (["--emulate=pcie4,lat_us=abc"], ["'abc'", "--emulate"]),
        (["--emulate=pcie4,fail_rate=0.1"], ["'pcie4,fail_rate=0.1'", "--emulate"]),
        (["--emulate=pcie4,corrupt_offset=0"], ["'pcie4,corrupt_offset=0'", "--emulate"]),
        (["--emulate=pcie4,size=1g"], ["'pcie4,size=1g'", "--emulate", "size"]),
        # The kernel cannot wait on a completion only the emulated timing knows of.
        (["--emulate=pcie4", "--completion=sqpoll"], ["'sqpoll'", "emu:pcie4"]),
    ],
)
def test_bad_emulate(run, shm_file, args, needles):
    assert_usage_error(run("--name=j", f"--filename={shm_file}", *args), *needles)


def test_emulate_on_an_emulated_ssd(run):
    assert_usage_error(run("--name=j", "--filename=emu:pcie4", "--emulate=pcie4"), "--emulate", "emu:pcie4")


@pytest.mark.parametrize(
    "first, second",
    [(["--emulate=pcie4"], ["--emulate=nand"]), (["--emulate=pcie4"], []), ([], ["--emulate=pcie4"])],
    ids=["pcie4_nand", "pcie4_none", "none_pcie4"],
)
def test_emulate_differs_between_jobs(run, shm_file, first, second):
    p = run(f"--filename={shm_file}", "--size=64k", "--name=a", *first, "--name=b", *second)
    assert_usage_error(p, "'a'", "'b'", "--emulate")
