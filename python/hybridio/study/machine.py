# SPDX-License-Identifier: MIT
"""The machine facts that decide which way of waiting wins, read from sysfs:
how an idle CPU waits (the cpuidle driver, its states, guest halt-polling),
the clock source every timestamp comes from, and whether each disk target's
block device has kernel poll queues. A fact sysfs does not have is "not
available": the study runs on kernels and in guests that lack some of them."""

import os
import re
import stat
from pathlib import Path

NOT_AVAILABLE = "not available"
SYSFS = Path("/sys")

CPUIDLE_DRIVER = "devices/system/cpu/cpuidle/current_driver"
CPUIDLE_STATES = "devices/system/cpu/cpu0/cpuidle"
HALT_POLL_NS = "module/haltpoll/parameters/guest_halt_poll_ns"
CLOCKSOURCE = "devices/system/clocksource/clocksource0/current_clocksource"
NVME_POLL_QUEUES = "module/nvme/parameters/poll_queues"


def read(root, rel):
    """The stripped text of root/rel, or None where it cannot be read."""
    try:
        return (Path(root) / rel).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def _state_number(path):
    m = re.search(r"(\d+)$", path.name)
    return int(m.group(1)) if m else 0


def cpuidle_states(root):
    """cpu0's idle states by name, shallowest first; None without any."""
    try:
        dirs = sorted(Path(root, CPUIDLE_STATES).glob("state*"), key=_state_number)
    except OSError:
        return None
    names = [read(d, "name") for d in dirs]
    names = [n for n in names if n]
    return ", ".join(names) if names else None


def block_dir(target, root):
    """root/dev/block/MAJ:MIN of the block device a target lives on (itself
    where it is one; its directory's where the file is not created yet), or
    None where it is on no block device."""
    path = target if os.path.exists(target) else os.path.dirname(os.path.abspath(target))
    try:
        st = os.stat(path)
    except OSError:
        return None
    dev = st.st_rdev if stat.S_ISBLK(st.st_mode) else st.st_dev
    d = Path(root, "dev/block", f"{os.major(dev)}:{os.minor(dev)}")
    return d if d.exists() else None


def poll_queues(target, root=SYSFS):
    """Whether the disk target's device has kernel poll queues, in words:
    its queue/io_poll (a partition's is on its parent disk), and the nvme
    module's poll_queues where that module is loaded."""
    nvme = read(root, NVME_POLL_QUEUES)
    nvme_text = f"; nvme.poll_queues = {nvme}" if nvme is not None else ""
    d = block_dir(target, root)
    if d is None:
        return f"{NOT_AVAILABLE} (not on a block device sysfs lists){nvme_text}"
    for rel in ("queue/io_poll", "../queue/io_poll"):
        v = read(d, rel)
        if v is not None:
            words = "yes" if v == "1" else "no"
            return f"{words} ({os.path.basename(os.path.realpath(d))}: io_poll = {v}){nvme_text}"
    return f"{NOT_AVAILABLE} (no queue/io_poll){nvme_text}"


def facts(targets, root=SYSFS):
    """[(what, value)] of this machine for the report's header and the
    terminal; each disk target (not emu:) adds its poll queues."""
    out = [
        ("cpuidle driver", read(root, CPUIDLE_DRIVER) or NOT_AVAILABLE),
        ("idle states", cpuidle_states(root) or NOT_AVAILABLE),
        ("guest_halt_poll_ns", read(root, HALT_POLL_NS) or NOT_AVAILABLE),
        ("clock source", read(root, CLOCKSOURCE) or NOT_AVAILABLE),
    ]
    out += [(f"poll queues of {t}", poll_queues(t, root)) for t in targets if not t.startswith("emu:")]
    return out
