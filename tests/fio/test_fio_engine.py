# SPDX-License-Identifier: MIT
"""The hybridio ioengine under Debian's fio: fio's own examples, verify,
the engine's options, its figures and its errors."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from fio_examples import DISKLESS_EXAMPLES, FILE_EXAMPLES, adapt

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("HIO_BUILD", ROOT / "build")).resolve()
ENGINE = BUILD / "plugins/fio/libhybridio-fio.so"
EXAMPLES = ROOT / ".deps/fio/examples"

# Examples that cannot run here, and why (docs/fio.md says the same).
CANNOT_RUN = {
    "fixed-rate-submission": "io_submit_mode=offload: fio 3.33 hangs in workqueue_init in about 1 run in 4, "
    "with its own libaio engine too",
    "poisson-rate-submission": "io_submit_mode=offload: fio 3.33 hangs in workqueue_init in about 1 run in 4, "
    "with its own libaio engine too",
}


@pytest.fixture(scope="module")
def engine():
    if not ENGINE.exists():
        pytest.fail(f"{ENGINE} is not built: scripts/fio-source.sh fetches fio's source, then build again")
    return f"external:{ENGINE}"


@pytest.fixture(autouse=True)
def in_scratch(tmp_path, monkeypatch):
    """fio leaves verify state files in its working directory."""
    monkeypatch.chdir(tmp_path)


def fio(*args, cwd=None, timeout=120):
    return subprocess.run(
        ["fio", *map(str, args)], capture_output=True, text=True, errors="replace", cwd=cwd, timeout=timeout
    )


def assert_ran(p, job):
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Run status group" in p.stdout and f"{job}: (groupid=" in p.stdout, p.stdout
    assert "err= 0" in p.stdout, p.stdout


@pytest.mark.parametrize("name", FILE_EXAMPLES + DISKLESS_EXAMPLES)
def test_fio_example_runs_on_hybridio(name, engine, tmp_path):
    if name in CANNOT_RUN:
        pytest.skip(CANNOT_RUN[name])
    text = (EXAMPLES / f"{name}.fio").read_text()
    job = tmp_path / f"{name}.fio"
    job.write_text(adapt(text, engine, tmp_path, "pcie4" if name in DISKLESS_EXAMPLES else None))
    p = fio(job, cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "Run status group 0 (all jobs)" in p.stdout, p.stdout
    assert "ioengine=hybridio" in p.stdout
    assert "hybridio " in p.stdout + p.stderr  # the engine's own line per job


MODES = [
    ["--hio_completion=interrupt"],
    ["--hio_completion=poll"],
    ["--hio_completion=hybrid"],
    ["--hio_completion=adaptive", "--hio_adaptive_objective=own"],
    ["--hio_cache_mb=4", "--hio_cache_policy=writeback"],
    ["--hio_queue=split_rw", "--hio_reaper=thread", "--hio_poll_period_us=0"],
    ["--hio_emulate=pcie4"],
]


@pytest.mark.parametrize("verify", ["crc32c", "md5"])
@pytest.mark.parametrize("mode", MODES, ids=lambda m: "+".join(a.split("=", 1)[1] for a in m))
def test_written_data_verifies_in_every_mode(verify, mode, engine, tmp_path):
    p = fio(
        "--name=v",
        f"--ioengine={engine}",
        f"--filename={tmp_path / 'v.dat'}",
        "--size=4m",
        "--bs=4k",
        "--rw=randwrite",
        "--iodepth=8",
        "--direct=1",
        f"--verify={verify}",
        *mode,
    )
    assert_ran(p, "v")
    assert "verify" not in p.stderr.lower(), p.stderr


@pytest.mark.parametrize("verify", ["crc32c", "md5"])
def test_written_data_verifies_on_an_emulated_ssd(verify, engine):
    p = fio(
        "--name=e",
        f"--ioengine={engine}",
        "--hio_emu=pcie3",
        "--size=4m",
        "--bs=4k",
        "--rw=randwrite",
        "--iodepth=16",
        f"--verify={verify}",
        "--hio_completion=poll",
    )
    assert_ran(p, "e")


@pytest.mark.parametrize("verify", ["crc32c", "md5"])
def test_a_planted_corruption_is_caught(verify, engine, tmp_path):
    data = tmp_path / "c.dat"
    common = [
        "--name=c",
        f"--ioengine={engine}",
        f"--filename={data}",
        "--size=1m",
        "--bs=4k",
        "--rw=write",
        f"--verify={verify}",
    ]
    assert_ran(fio(*common, "--do_verify=0"), "c")
    with open(data, "r+b") as f:
        f.seek(10 * 4096 + 100)
        f.write(b"\xde\xad\xbe\xef")
    p = fio(*common, "--verify_only=1")
    assert p.returncode != 0
    assert f"{verify}: verify failed at file {data} offset 40960" in p.stdout + p.stderr, p.stdout + p.stderr


def test_figures_go_to_the_line_and_the_json_file(engine, tmp_path):
    out = tmp_path / "hio.json"
    # 100 us reads at depth 1: every reap waits, so the strategy decides.
    p = fio(
        "--name=a",
        f"--ioengine={engine}",
        "--hio_emu=lat_us=100,iops=100000",
        "--size=64m",
        "--rw=randread",
        "--bs=4k",
        "--runtime=1",
        "--time_based",
        "--hio_completion=adaptive",
        "--hio_adaptive_objective=own",
        f"--hio_stats_json={out}",
    )
    assert_ran(p, "a")
    assert "hybridio a: adaptive (objective own)" in p.stdout
    rec = json.loads(out.read_text().splitlines()[-1])
    assert rec["job"] == "a" and rec["completion"] == "adaptive" and rec["objective"] == "own"
    assert rec["ios"] > 1000 and rec["waits"] > 1000
    pct = rec["adaptive"]["mode_pct"]
    assert abs(sum(pct.values()) - 100) < 0.01
    assert rec["adaptive"]["monitor"]["samples"] > 0


def syscalls(tmp_path, *args):
    """{system call: count} of a fio run (io_uring_enter and pread64, from
    strace's count), and fio's JSON."""
    out = tmp_path / "strace.txt"
    p = subprocess.run(
        ["strace", "-f", "-c", "-e", "trace=io_uring_enter,pread64", "-o", out, "fio", "--output-format=json"]
        + list(map(str, args)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    rows = [line.split() for line in out.read_text().splitlines()]
    counts = {r[-1]: int(r[3]) for r in rows if r[-1:] in (["io_uring_enter"], ["pread64"]) and len(r) >= 5}
    return counts, json.loads(p.stdout[p.stdout.index("{") :])["jobs"][0]


def test_at_depth_1_a_read_waited_for_by_interrupt_is_one_pread(engine, tmp_path):
    # Each command is waited for before the next: hybridio's synchronous
    # read makes it one pread, where fio's io_uring engine enters to submit
    # and again to wait unless the completion is already in its ring (so
    # between one and two entries per read). fio times it as a sync
    # engine's, so its completion latency is the read's and not a queued
    # command's.
    ios = 1000
    job = ["--name=q", f"--filename={tmp_path / 'data'}", "--size=8m", "--rw=randread", "--bs=4k", "--direct=1"]
    job += ["--iodepth=1", f"--number_ios={ios}"]
    ours, rec = syscalls(tmp_path, *job, f"--ioengine={engine}", "--hio_completion=interrupt")
    theirs, _ = syscalls(tmp_path, *job, "--ioengine=io_uring")
    assert ios <= ours.get("pread64", 0) <= 1.1 * ios, ours
    assert ours.get("io_uring_enter", 0) < 0.1 * ios, ours
    assert theirs.get("io_uring_enter", 0) >= ios, theirs
    assert rec["read"]["total_ios"] == ios
    assert rec["read"]["clat_ns"]["mean"] >= 0.9 * rec["read"]["lat_ns"]["mean"], rec["read"]


@pytest.mark.parametrize("mode", [["--hio_completion=poll"], ["--hio_completion=adaptive"], ["--hio_cache_mb=4"]])
def test_at_depth_1_other_modes_wait_on_the_ring(mode, engine, tmp_path):
    # Polling, adaptive's polling ticks and a cache keep the ring's path; fio
    # still sees every read done.
    ios = 500
    job = ["--name=q", f"--filename={tmp_path / 'data'}", "--size=8m", "--rw=randread", "--bs=4k", "--direct=1"]
    job += ["--iodepth=1", f"--number_ios={ios}", f"--ioengine={engine}", *mode]
    counts, rec = syscalls(tmp_path, *job)
    assert rec["read"]["total_ios"] == ios and rec["error"] == 0, rec
    if mode == ["--hio_completion=poll"]:
        assert counts.get("pread64", 0) < 0.1 * ios, counts


def test_fios_buffers_are_registered_with_the_ring(engine, tmp_path):
    # Registered buffers spare the kernel a pinning of each I/O's pages.
    trace = tmp_path / "strace.txt"
    job = ["--name=b", f"--filename={tmp_path / 'data'}", "--size=8m", "--rw=randrw", "--bs=16k", "--iodepth=4"]
    job += ["--direct=1", "--number_ios=200", "--verify=crc32c", f"--ioengine={engine}"]
    p = subprocess.run(
        ["strace", "-f", "-e", "trace=io_uring_register", "-o", trace, "fio", *map(str, job)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_ran(p, "b")
    lengths = [
        int(x) for x in re.findall(r"IORING_REGISTER_BUFFERS, \[\{iov_base=\w+, iov_len=(\d+)\}\]", trace.read_text())
    ]
    assert len(lengths) == 1 and lengths[0] >= 4 * 16384, trace.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping CAP_IPC_LOCK from the bounding set needs root")
def test_a_refused_buffer_registration_is_reported_and_the_job_runs(engine, tmp_path):
    # Without CAP_IPC_LOCK and with an 8 KiB memlock limit the kernel refuses
    # a 256 KiB registration; the job goes on without it.
    job = ["--name=m", f"--filename={tmp_path / 'data'}", "--size=8m", "--rw=randread", "--bs=64k", "--iodepth=4"]
    job += ["--direct=1", "--number_ios=100", f"--ioengine={engine}"]
    p = subprocess.run(
        ["setpriv", "--bounding-set", "-ipc_lock", "prlimit", "--memlock=8192:8192", "fio", *job],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_ran(p, "m")
    assert "the job's I/O goes without registered buffers" in p.stdout + p.stderr, p.stdout + p.stderr
    assert "Cannot allocate memory" in p.stdout + p.stderr


def test_json_output_stays_json(engine, tmp_path):
    p = fio("--name=j", f"--ioengine={engine}", "--hio_emu=pcie4", "--size=4m", "--rw=read", "--output-format=json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["jobs"][0]["read"]["io_bytes"] == 4 << 20
    assert "hybridio j: interrupt" in p.stderr


def test_an_io_error_reaches_fio_with_its_offset(engine):
    # The emulated SSD fails reads of the range it is told to.
    p = fio(
        "--name=x",
        f"--ioengine={engine}",
        "--hio_emu=pcie4,fail_offset=8192,fail_op=read",
        "--size=1m",
        "--rw=read",
        "--bs=4k",
    )
    assert p.returncode != 0
    assert "offset=8192" in p.stdout + p.stderr, p.stdout + p.stderr


@pytest.mark.parametrize(
    "args, says",
    [
        (["--hio_completion=bogus"], "failed parsing hio_completion=bogus"),
        (["--hio_adaptive_objective=most"], "failed parsing hio_adaptive_objective=most"),
        (["--hio_nonsense=1"], "unrecognized option '--hio_nonsense=1'"),
        (["--hio_emu=bogus"], "hio_emu=bogus: bad emulated device 'emu:bogus'"),
        (["--hio_emulate=warp9", "--filename={file}"], "hio_emulate=warp9:"),
        (["--hio_emu=pcie4", "--filename={file}"], "hio_emu=pcie4 makes the job's files emulated SSDs, but filename"),
        (["--hio_emu=pcie4", "--hio_emulate=pcie4"], "hio_emu=pcie4 and hio_emulate=pcie4"),
        (["--hio_poll_period_us=soon", "--filename={file}"], "hio_poll_period_us=soon"),
    ],
)
def test_bad_input_is_one_line_naming_it(args, says, engine, tmp_path):
    file = tmp_path / "f.dat"
    file.write_bytes(b"\0" * 65536)
    p = fio("--name=b", f"--ioengine={engine}", "--size=64k", *[a.format(file=file) for a in args])
    assert p.returncode != 0
    assert says in p.stdout + p.stderr, p.stdout + p.stderr


def test_an_engine_built_against_another_fio_is_refused_in_one_line(tmp_path):
    other = BUILD / "plugins/fio/libhybridio-fio-mismatch.so"
    if not other.exists():
        pytest.fail(f"{other} is not built (a build with tests enabled makes it)")
    version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
    file = tmp_path / "f.dat"
    file.write_bytes(b"\0" * 65536)
    p = fio("--name=m", f"--ioengine=external:{other}", f"--filename={file}", "--size=64k", "--rw=read")
    assert p.returncode != 0 and p.returncode < 128, f"exit {p.returncode}\n{p.stdout}{p.stderr}"
    said = [line for line in (p.stdout + p.stderr).splitlines() if "hybridio engine" in line]
    assert said == [
        f"fio: the hybridio engine was built against fio-0.0 headers, but this fio is {version}: rebuild it "
        "against this fio's source (scripts/fio-source.sh)"
    ], p.stdout + p.stderr
