# SPDX-License-Identifier: MIT
"""fio's own example job files, made to run on the hybridio engine.

Only what the job cannot keep on this machine is changed: the ioengine
line (a diskless null job gets an emulated SSD instead), device paths and
directories (files in a scratch folder), sizes (small) and run times (1 s).
"""

import re

# The examples of fio 3.33 that a user would run on a file engine, and the
# two null-engine ones, which run on an emulated SSD.
FILE_EXAMPLES = [
    "fio-rand-read",
    "fio-rand-RW",
    "fio-seq-read",
    "fio-seq-write",
    "fio-seq-RW",
    "basic-verify",
    "aio-read",
    "iometer-file-access-server",
    "jesd219",
    "latency-profile",
    "fixed-rate-submission",
    "ssd-test",
    "surface-scan",
    "backwards-read",
    "poisson-rate-submission",
    "tiobench-example",
]
DISKLESS_EXAMPLES = ["zipf", "null"]
SIZE = "16m"


def adapt(text, engine, scratch, emu=None):
    """The job file `text` with its engine set to `engine` and its storage under `scratch`."""
    out = []
    for line in text.splitlines():
        body = line.split(";", 1)[0].split("#", 1)[0].strip()
        key = body.split("=", 1)[0].strip() if "=" in body else body
        if key == "ioengine":
            continue
        if key == "filename":
            name = body.split("=", 1)[1].strip()
            line = f"filename={scratch}/{re.sub(r'[^A-Za-z0-9_.-]', '_', name.lstrip('/'))}"
        elif key == "directory":
            line = f"directory={scratch}"
        elif key in ("size", "runtime", "timeout", "fill_device"):
            line = {
                "size": f"size={SIZE}",
                "runtime": "runtime=1",
                "timeout": "timeout=1",
                "fill_device": f"size={SIZE}",
            }[key]
        out.append(line)
    head = ["[global]", f"ioengine={engine}", f"size={SIZE}", "runtime=1"]
    if emu:
        head.append(f"hio_emu={emu}")
    return "\n".join(head + [""] + out) + "\n"
