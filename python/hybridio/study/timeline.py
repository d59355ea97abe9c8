# SPDX-License-Identifier: MIT
"""The timeline experiment: a co-runner starts and stops in the middle of a
run; the adaptive strategy's mode and every strategy's IOPS over time, and how
long adaptive takes to settle on the right mode after each change."""

import json
import subprocess
import threading
import time
from dataclasses import dataclass

from ..adaptive.settle import settle_ms
from ..common import corunner, hiobench, process
from .verdict import score

PHASES = (("alone", 0), ("beside the co-runner", 100), ("alone again", 0))
STRATEGIES = ("adaptive", "poll", "interrupt")


@dataclass(frozen=True)
class Options:
    """What the experiment runs with: hio-bench, its queue depth, the
    co-runner's kind and the core set the I/O and the co-runner share."""

    hio_bench: str
    iodepth: int
    corunner: str
    cores: str


def command(o, target, strategy, seconds):
    return hiobench.command(o.hio_bench, target, strategy, 1, o.iodepth, seconds, o.cores) + ["--adaptive_log"]


def run_one(o, limit, target, strategy, phase_s):
    """Runs hio-bench for 3 phases; the co-runner (100 %) runs in the middle one.
    Returns the job's hybridio key and the co-runner's start/stop in unix ms."""
    cmd = command(o, target, strategy, 3 * phase_s)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    limit.add(p.pid)
    span = {}

    def neighbour():
        time.sleep(phase_s)
        if p.poll() is not None:
            return
        with corunner.CoRunner(o.corunner, 100, o.cores, phase_s) as co:
            limit.add(co.proc.pid)
            span["on"] = time.time() * 1e3
            co.result()
            span["off"] = time.time() * 1e3

    t = threading.Thread(target=neighbour, daemon=True)
    t.start()
    try:
        out, err = p.communicate(timeout=process.timeout_s(3 * phase_s))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    t.join()
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {err.strip()}")
    h = json.loads(out)["jobs"][0]["hybridio"]
    return h, span


def best_static_modes(rows, target):
    """The best static user-space mode alone and at 100 % load, by the study's
    score, from the contention rows; None where the rows do not say."""
    mine = [
        r
        for r in rows
        if r["experiment"] == "contention"
        and r["target"] == target
        and r["strategy"] in ("poll", "interrupt", "hybrid")
    ]
    alone = [r for r in mine if r["corunner_load_pct"] == 0]
    if not alone:
        return None, None
    best = max(
        r["iops"]
        for r in rows
        if r["experiment"] == "contention" and r["target"] == target and r["corunner_load_pct"] == 0
    )

    def top(load):
        cells = [r for r in mine if r["corunner_load_pct"] == load]
        return max(cells, key=lambda r: score(r, best))["strategy"] if cells else None

    return top(0), top(100)


def run(o, limit, targets, phase_s, progress=None):
    """{target: {strategy: {"points": [...], "on_ms": .., "off_ms": ..}}}, times
    relative to each run's start."""
    out = {}
    for target in targets:
        out[target] = {}
        for s in STRATEGIES:
            h, span = run_one(o, limit, target, s, phase_s)
            t0 = h.get("start_unix_ms", 0)
            out[target][s] = {
                "points": h.get("timeline", []),
                "on_ms": span.get("on", t0 + phase_s * 1e3) - t0,
                "off_ms": span.get("off", t0 + 2 * phase_s * 1e3) - t0,
                "end_ms": 3 * phase_s * 1e3,
            }
            if progress:
                progress(f"timeline {target[:18]} {s}")
    return out


def findings(tl, rows, target):
    """Settle times of adaptive after the co-runner starts and stops, against the
    right mode from the contention rows, and sentences that say them."""
    run = tl.get(target, {}).get("adaptive")
    if not run:
        return {}, []
    alone_mode, loaded_mode = best_static_modes(rows, target)
    if alone_mode is None or loaded_mode is None:
        return {}, []
    on = settle_ms(run["points"], run["on_ms"], run["off_ms"], (loaded_mode,))
    off = settle_ms(run["points"], run["off_ms"], run["end_ms"], (alone_mode,))
    f = {"right_mode_alone": alone_mode, "right_mode_loaded": loaded_mode, "settle_on_ms": on, "settle_off_ms": off}

    def say(ms):
        return "did not settle" if ms is None else f"settled within {ms:.0f} ms"

    s = [
        f"Timeline: when the co-runner started, adaptive {say(on)} on {loaded_mode} (the best static mode at "
        f"100% load); when it stopped, adaptive {say(off)} on {alone_mode} (the best alone). "
        f"The log samples every 100 ms."
    ]
    return f, s
