# SPDX-License-Identifier: MIT
"""hio-study --driver fio: the co-runner matrix as fio jobs on hybridio's fio engine."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hybridio.fio import engine as fioengine

ENGINE = os.environ.get("HIO_FIO_ENGINE", fioengine.default_engine())


@pytest.fixture(scope="module")
def engine():
    if not Path(ENGINE).exists():
        pytest.fail(f"{ENGINE} is not built: scripts/fio-source.sh fetches fio's source, then `make build`")
    return ENGINE


def study(hio_bench, *args):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "hybridio.study",
            "--hio-bench",
            hio_bench,
            "--driver",
            "fio",
            "--handles",
            "0",
            "--bursty",
            "0",
            "--timeline",
            "0",
            "--budget",
            "0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_an_emulated_target_is_a_diskless_job_and_a_file_a_direct_one():
    emu = fioengine.command("fio", "/e.so", "emu:pcie4", "poll", 1, 1, 1, "1")
    assert "--ioengine=external:/e.so" in emu and "--hio_emu=pcie4" in emu and "--size=1g" in emu
    assert "--hio_completion=poll" in emu and "--runtime=1000ms" in emu and "--cpus_allowed=1" in emu
    assert not any(a.startswith("--filename") or a == "--direct=1" for a in emu)
    f = fioengine.command("fio", "/e.so", "/tmp/f.dat", "interrupt", 2, 4, 0.05, None, "1g")
    assert {"--filename=/tmp/f.dat", "--direct=1", "--numjobs=2", "--iodepth=4", "--runtime=50ms"} <= set(f)
    assert not any(a.startswith("--hio_emu") or a.startswith("--cpus_allowed") for a in f)


def test_the_engines_refusal_is_its_reason():
    err = (
        "fio: time_based requires a runtime/timeout setting\n"
        "fio: hybridio: cannot open emu:pcie4: wait mode 'iopoll' is a kernel-side mode for a real device\n"
    )
    assert fioengine.refusal(err) == "wait mode 'iopoll' is a kernel-side mode for a real device"
    assert fioengine.refusal("fio: some other failure\n") is None


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--fio", "/no/such/fio"], "/no/such/fio"),
        (["--fio-engine", "/no/such/engine.so"], "/no/such/engine.so"),
        (["--targets", "emu:pcie4", "--threads", "1,2"], "--threads=1,2"),
        (["--corunner", "memory"], "--corunner memory"),
        (["--driver", "spdk"], "'spdk'"),
    ],
)
def test_bad_input_exits_2_naming_it(hio_bench, engine, args, needle):
    p = study(hio_bench, "--fio-engine", engine, "--quick", *args)
    assert p.returncode == 2, p.stderr
    assert needle in p.stderr.strip().splitlines()[-1], p.stderr


def test_a_study_through_fio(hio_bench, engine, tmp_path, no_stray_stress_ng):
    out = tmp_path / "study"
    p = study(
        hio_bench,
        "--fio-engine",
        engine,
        "--out",
        str(out),
        "--targets",
        "emu:pcie4",
        "--strategies",
        "interrupt,poll,iopoll",
        "--loads",
        "0,100",
        "--repeats",
        "2",
        "--runtime",
        "1",
    )
    assert p.returncode == 0, p.stderr
    raw = [json.loads(f.read_text()) for f in sorted((out / "raw").glob("*.json"))]
    assert len(raw) == 2 * 2 * 2  # iopoll is not run on an emulated SSD
    assert all(r["fio"]["jobs"][0]["read"]["iops"] > 0 for r in raw)
    assert all("hio-bench" not in r for r in raw)
    html = (out / "report.html").read_text()
    assert "cells run by fio with hybridio&#39;s fio engine" in html or "cells run by fio with hybridio's fio" in html
    assert (
        "iopoll on emu:pcie4: wait mode &#39;iopoll&#39; is a kernel-side mode" in html
        or "iopoll on emu:pcie4: wait mode 'iopoll' is a kernel-side mode" in html
    )
    # Beside poll the co-runner shares the core with fio's job: about half of it each.
    beside_poll = [r for r in raw if r["cell"]["strategy"] == "poll" and r["cell"]["load_pct"] == 100]
    assert all(0.3 < r["corunner_cpu"] < 0.7 for r in beside_poll), [r["corunner_cpu"] for r in beside_poll]
