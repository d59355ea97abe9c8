# SPDX-License-Identifier: MIT
"""bench/compare_builds.py: two builds interleaved, their paired ratio, the low rounds, and bad input."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "compare_builds.py"


def fake_bench(tmp_path, name, iops_by_call):
    """An executable that logs its name and prints hio-bench's JSON with the
    next IOPS figure of iops_by_call for each call (two jobs, half each)."""
    calls = tmp_path / f"{name}.calls"
    script = tmp_path / name
    figures = " ".join(str(x) for x in iops_by_call)

    def side(n):
        return {"iops": n, "total_ios": n, "lat_ns": {"mean": 1000}, "clat_ns": {}}

    job = {"read": side("HALF"), "write": side(0), "usr_cpu": 1, "sys_cpu": 1, "job_runtime": 1000, "error": 0}
    report = json.dumps({"jobs": [job, job]}).replace('"HALF"', "$half")
    script.write_text(
        "#!/bin/sh\n"
        f'echo {name} >> "{tmp_path}/order"\n'
        f'n=$(cat "{calls}" 2>/dev/null || echo 0); echo $((n + 1)) > "{calls}"\n'
        f"set -- {figures}; shift $n; half=$(($1 / 2))\n"
        f"cat <<EOF\n{report}\nEOF\n"
    )
    script.chmod(0o755)
    return str(script)


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_rounds_alternate_and_the_ratio_and_low_rounds_are_counted(tmp_path):
    a = fake_bench(tmp_path, "a", [1000, 1000, 1000, 1000])
    b = fake_bench(tmp_path, "b", [2000, 2000, 2000, 200])  # the last round locks low
    out = tmp_path / "r.json"
    p = run("--a", a, "--b", b, "--rounds", "4", "--low-share", "0.5", "--out", str(out), "--", "--runtime=1")
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "order").read_text().split() == ["a", "b", "b", "a", "a", "b", "b", "a"]
    r = json.loads(out.read_text())
    assert r["iops"] == {"a": [1000, 1000, 1000, 1000], "b": [2000, 2000, 2000, 200]}
    assert r["b_over_a"]["n"] == 4
    assert r["b_over_a"]["ci95_low"] < r["b_over_a"]["value"] < r["b_over_a"]["ci95_high"]
    assert abs(r["b_over_a"]["value"] - (2 * 2 * 2 * 0.2) ** 0.25) < 1e-9
    # The median round of both is 1500: B's 200 is below half of it, none of A's is.
    assert r["low_rounds"] == {"a": 0, "b": 1}
    assert "rounds below 0.5 of the median round: A 0 of 4, B 1 of 4" in p.stdout
    assert r["job"] == ["--runtime=1"]


def test_a_failing_run_names_its_command(tmp_path):
    bad = tmp_path / "bad"
    bad.write_text("#!/bin/sh\necho 'bs: banana is not a size' >&2\nexit 2\n")
    bad.chmod(0o755)
    p = run("--a", str(bad), "--b", str(bad), "--rounds", "2", "--", "--bs=banana")
    assert p.returncode != 0
    assert "--bs=banana" in p.stderr and "banana is not a size" in p.stderr


def test_bad_input_is_named_with_status_2(tmp_path):
    a = fake_bench(tmp_path, "a", [1000])
    for args, named in [
        (["--a", a, "--b", a, "--rounds", "1", "--", "--runtime=1"], "--rounds"),
        (["--a", a, "--b", a, "--low-share", "1.5", "--", "--runtime=1"], "1.5"),
        (["--a", a, "--b", a], "no job"),
        (["--a", str(tmp_path / "missing"), "--b", a, "--", "--runtime=1"], "missing"),
    ]:
        p = run(*args)
        assert p.returncode == 2, (args, p.stderr)
        assert named in p.stderr, (args, p.stderr)


def test_against_itself_on_the_emulated_ssd(hio_bench, tmp_path):
    out = tmp_path / "r.json"
    job = ["--filename=emu:pcie4", "--rw=randread", "--bs=4k", "--runtime=0.2", "--time_based"]
    p = run("--a", hio_bench, "--b", hio_bench, "--rounds", "2", "--out", str(out), "--", *job)
    assert p.returncode == 0, p.stderr
    r = json.loads(out.read_text())
    assert all(x > 0 for x in r["iops"]["a"] + r["iops"]["b"])
    assert "B / A over 2 paired rounds" in p.stdout
