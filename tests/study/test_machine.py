# SPDX-License-Identifier: MIT
"""The machine facts the report's header names, read from a fake sysfs."""

import os

from hybridio.study import machine


def write(root, rel, text):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text + "\n")


def device_of(path):
    st = os.stat(path)
    return f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"


def test_every_fact_read(tmp_path):
    root, disk = tmp_path / "sys", tmp_path / "target.dat"
    disk.write_text("")
    write(root, "devices/system/cpu/cpuidle/current_driver", "haltpoll")
    for i, name in enumerate(["POLL", "C1", "C2"]):
        write(root, f"devices/system/cpu/cpu0/cpuidle/state{i}/name", name)
    write(root, "devices/system/cpu/cpu0/cpuidle/state10/name", "C10")  # numeric, not text, order
    write(root, "module/haltpoll/parameters/guest_halt_poll_ns", "200000")
    write(root, "devices/system/clocksource/clocksource0/current_clocksource", "tsc")
    write(root, "module/nvme/parameters/poll_queues", "4")
    # A partition: its queue attributes live on the parent disk.
    (root / "devices/nvme0n1/nvme0n1p1").mkdir(parents=True)
    write(root, "devices/nvme0n1/queue/io_poll", "1")
    (root / "dev/block").mkdir(parents=True)
    (root / "dev/block" / device_of(disk)).symlink_to(root / "devices/nvme0n1/nvme0n1p1")
    assert machine.facts([str(disk), "emu:pcie4"], root) == [
        ("cpuidle driver", "haltpoll"),
        ("idle states", "POLL, C1, C2, C10"),
        ("guest_halt_poll_ns", "200000"),
        ("clock source", "tsc"),
        (f"poll queues of {disk}", "yes (nvme0n1p1: io_poll = 1); nvme.poll_queues = 4"),
    ]


def test_a_device_without_poll_queues(tmp_path):
    root = tmp_path / "sys"
    write(root, f"dev/block/{device_of(tmp_path)}/queue/io_poll", "0")
    # The file is not created yet: its directory's device is the one it will be on.
    assert machine.poll_queues(str(tmp_path / "absent.dat"), root).startswith("no (")


def test_missing_files_are_not_available(tmp_path):
    facts = dict(machine.facts([str(tmp_path / "t.dat")], tmp_path / "empty"))
    assert facts == {
        "cpuidle driver": "not available",
        "idle states": "not available",
        "guest_halt_poll_ns": "not available",
        "clock source": "not available",
        f"poll queues of {tmp_path / 't.dat'}": "not available (not on a block device sysfs lists)",
    }


def test_the_real_sysfs_reads_without_error():
    assert all(isinstance(v, str) and v for _, v in machine.facts(["emu:pcie4"]))
