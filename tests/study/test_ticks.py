# SPDX-License-Identifier: MIT
"""python3 -m hybridio.adaptive.ticks on hand-made tick logs: the per-level, per-mode
summary, the changes of mode, and every kind of bad input."""

import json
import subprocess
import sys

import pytest

from hybridio.adaptive import ticks

HEADER = (
    "t_us,queue,ran,learned,level,others,others_level,idle,sleeps_per_s,completions,wall_us,wait_us,cpu_us,"
    "iops_interrupt,iops_poll,iops_hybrid,next,probe"
)


def line(t, queue, ran, learned, level, completions, wall, cpu, nxt, probe, table=(-1, -1, -1)):
    return (
        f"{t},{queue},{ran},{int(learned)},{level},0.5,0.5,0.0,0,{completions},{wall},{wall * 0.8},{cpu},"
        f"{table[0]},{table[1]},{table[2]},{nxt},{int(probe)}"
    )


def write(tmp_path, lines, name="ticks.csv"):
    p = tmp_path / name
    p.write_text("\n".join([HEADER, *lines]) + "\n")
    return str(p)


# Queue 2 polls at level 3: two measured ticks of 2 ms (20 reads each), one
# not measured (4 ms, 8 reads, its thread running 1 ms of it); then probes
# interrupts (8 ms, 40 reads) and settles there. Queue 1 does less.
LOG = [
    line(2000, 2, "poll", True, 3, 20, 2000, 2000, "poll", False, (-1, 10000, -1)),
    line(4000, 2, "poll", True, 3, 20, 2000, 2000, "poll", False, (-1, 10000, -1)),
    line(8000, 2, "poll", False, 3, 8, 4000, 1000, "interrupt", True, (-1, 10000, -1)),
    line(16000, 2, "interrupt", True, 3, 40, 8000, 2000, "interrupt", False, (5000, 10000, -1)),
    line(18000, 1, "poll", True, 0, 10, 2000, 2000, "poll", False),
]


def summarise(tmp_path, capsys, *args, lines=LOG):
    assert ticks.main([write(tmp_path, lines), "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_each_mode_at_each_level_its_time_rate_and_what_was_measured(tmp_path, capsys):
    out = summarise(tmp_path, capsys)
    assert [q["queue"] for q in out["queues"]] == [2, 1], "the busiest queue first"
    q = out["queues"][0]
    assert q["seconds"] == pytest.approx(0.016) and q["completions"] == 88 and q["probes"] == 1
    cells = {(c["level"], c["mode"]): c for c in q["cells"]}
    assert list(cells) == [(3, "interrupt"), (3, "poll")]
    poll = cells[(3, "poll")]
    assert poll["share"] == pytest.approx(0.5)
    assert poll["completions_per_s"] == pytest.approx(48 / 0.008)
    assert poll["measured_share"] == pytest.approx(0.5)
    assert poll["measured_completions_per_s"] == pytest.approx(40 / 0.004)
    assert poll["cpu_per_wall_unmeasured"] == pytest.approx(0.25), "1 ms of the 4 ms not measured"
    irq = cells[(3, "interrupt")]
    assert irq["measured_share"] == 1 and irq["cpu_per_wall_unmeasured"] is None


def test_a_probe_is_not_a_change_of_mode_settling_elsewhere_is(tmp_path, capsys):
    q = summarise(tmp_path, capsys, "--queue", "2")["queues"][0]
    assert q["changes"] == [
        {
            "t_s": pytest.approx(0.016),
            "from": "poll",
            "to": "interrupt",
            "level": 3,
            "table": {"interrupt": 5000, "poll": 10000},
        }
    ]
    probe_only = [ln for ln in LOG if ",2," in ln][:3] + [
        line(16000, 2, "interrupt", True, 3, 40, 8000, 2000, "poll", False, (5000, 10000, -1))
    ]
    assert summarise(tmp_path, capsys, lines=probe_only)["queues"][0]["changes"] == []


def test_the_text_summary_and_the_changes(tmp_path, capsys):
    assert ticks.main([write(tmp_path, LOG), "--queue", "2", "--changes"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "queue 2: 0.02 s, 88 completions, 1 probe, 1 change of mode"
    assert out[1].split() == [
        "level",
        "mode",
        "time",
        "completions/s",
        "measured",
        "measured",
        "c/s",
        "cpu/wall",
        "unmeasured",
    ]
    assert out[3].split() == ["3", "poll", "50.0%", "6,000", "50.0%", "10,000", "0.25"]
    assert out[4].split() == [
        "0.016",
        "s",
        "level",
        "3",
        "poll",
        "->",
        "interrupt",
        "(interrupt",
        "5,000,",
        "poll",
        "10,000)",
    ]


def test_a_half_written_last_line_is_skipped_and_counted(tmp_path, capsys):
    path = write(tmp_path, [*LOG, "19000,2,poll,1,3,2"])
    assert ticks.main([path]) == 0
    out = capsys.readouterr()
    assert "queue 2:" in out.out and out.err.strip() == "1 line(s) did not parse and were skipped"


def test_a_log_without_ticks_says_so(tmp_path, capsys):
    path = write(tmp_path, [])
    assert ticks.main([path]) == 0
    assert capsys.readouterr().out.strip() == f"{path}: no ticks (no adaptive queue waited in that run)"


def one_line_status_2(args, capsys):
    assert ticks.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("python3 -m hybridio.adaptive.ticks: ")
    return err[0][len("python3 -m hybridio.adaptive.ticks: ") :]


def test_a_missing_log_is_one_line_and_status_2(tmp_path, capsys):
    path = tmp_path / "missing.csv"
    assert one_line_status_2([str(path)], capsys) == f"{path}: No such file or directory"


def test_a_file_that_is_not_a_tick_log_is_one_line_and_status_2(tmp_path, capsys):
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    assert one_line_status_2([str(path)], capsys) == f"{path} is not a tick log of HIO_ADAPTIVE_TICKS (no column t_us)"


def test_an_unknown_queue_names_the_queues_there_are(tmp_path, capsys):
    path = write(tmp_path, LOG)
    assert one_line_status_2([path, "--queue", "7"], capsys) == f"no queue 7 in {path} (queues: 1, 2)"


def test_it_runs_as_a_module(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "hybridio.adaptive.ticks", write(tmp_path, LOG), "--queue", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "queue 1: 0.00 s, 10 completions, 0 probes, 0 changes of mode"
