# SPDX-License-Identifier: MIT
"""RocksDB's own crash test, db_crashtest.py with db_stress, through the
plugin under each wait strategy, with RocksDB's Posix file system as the
control.

Each run is one `db_crashtest.py blackbox|whitebox` of --duration seconds:
blackbox kills db_stress with SIGKILL every --interval seconds, whitebox
lets RocksDB kill itself at random points of its write paths; each restart
reopens the database and db_stress verifies every key against the state it
expected ("Crash-recovery verification"). The plugin's runs load
libhybridio-rocksdb.so into db_stress with LD_PRELOAD and select it with
--fs_uri; the control runs the same seed without either. db_crashtest.py
draws its options from Python's random module, seeded per run, so the
plugin's runs and the control's draw the same options.

Prints one line per run (kills, reopens, verifications, verified keys,
failures) and ends with `crashtest: R runs, K kills, F verification
failures`. Exit status: 0 when every run passed, 1 when a verification
failed or a run failed otherwise (its output is kept and named), 2 on bad
arguments.

Usage: crashtest.py [--duration S] [--interval S] [--modes blackbox,whitebox]
                    [--strategies interrupt,poll,adaptive] [--targets disk,pcie4]
                    [--no-control] [--seed N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODES = ("blackbox", "whitebox")
STRATEGIES = ("interrupt", "poll", "adaptive")
# Where the database lives, and the URI's keys for it: the disk with
# O_DIRECT reads, or tmpfs under an emulated PCIe 4.0 SSD's timing.
TARGETS = {"disk": ("/var/tmp", ""), "pcie4": ("/dev/shm", "&emulate=pcie4")}
# A key space that a restart verifies in about a second here (db_crashtest's
# default, 25 million keys, takes minutes per restart on two cores); whitebox
# runs of a fortieth of db_crashtest's operations per thread and a fifth of
# its reopens, so that a run that RocksDB does not kill ends inside the
# duration: with 20 reopens, a run under emulated PCIe 4.0 timing on
# interrupts took over 12 minutes, each reopen reading every table's
# metadata through the emulated device. Whitebox's kill runs do 100 times
# the operations and end only at a kill: at db_crashtest's odds (one kill
# point in 888,887) two of them under emulated timing ran past the limit
# below without one, so the odds here are ten times higher.
DB_STRESS_ARGS = {
    "blackbox": ["--max_key=200000", "--threads=8"],
    "whitebox": ["--max_key=200000", "--threads=8", "--ops_per_thread=5000", "--reopen=4", "--random_kill_odd=88889"],
}

# db_stress's own words for a verification, from its stdout and stderr.
PASSED = ("Crash-recovery verification passed", "Verification successful")
FAILED = re.compile(r"verification failed", re.I)
# A reopen: db_stress starting on the database a kill left, or closing and
# reopening it within a run (db_crashtest's --reopen).
REOPENED = ("Crash-recovery verification", "Reopening database for the")


@dataclass
class Run:
    mode: str
    target: str
    strategy: str  # a wait strategy, or "posix" for the control
    seed: int
    kills: int = 0
    reopens: int = 0
    verifications: int = 0
    verified_keys: int = 0
    failures: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def name(self) -> str:
        return f"{self.mode}/{self.target}/{self.strategy}"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--duration", type=int, default=120, help="seconds of each db_crashtest.py run (default 120)")
    p.add_argument("--interval", type=int, default=15, help="blackbox: seconds between kills (default 15)")
    p.add_argument("--modes", default=",".join(MODES), help="blackbox, whitebox or both (default both)")
    p.add_argument("--strategies", default=",".join(STRATEGIES), help="the plugin's wait strategies (default all)")
    p.add_argument("--targets", default=",".join(TARGETS), help="disk (O_DIRECT), pcie4 (tmpfs, emulated timing)")
    p.add_argument("--no-control", action="store_true", help="skip the Posix control runs")
    p.add_argument("--seed", type=int, default=1, help="the first run's seed; each cell adds its index")
    p.add_argument("--build", type=Path, default=ROOT / "build", help="the build directory (default build)")
    p.add_argument("--keep", type=Path, help="keep every run's output here (default: only a failed run's)")
    a = p.parse_args(argv)

    def pick(value: str, allowed, what: str) -> list[str]:
        items = [v for v in value.split(",") if v]
        bad = [v for v in items if v not in allowed]
        if bad or not items:
            p.error(f"--{what}: {','.join(bad) or repr(value)} is not one of {', '.join(allowed)}")
        return items

    a.build = a.build.resolve()  # the stand-in runs from db_crashtest.py's own folder
    a.modes = pick(a.modes, MODES, "modes")
    a.strategies = pick(a.strategies, STRATEGIES, "strategies")
    a.targets = pick(a.targets, tuple(TARGETS), "targets")
    if a.duration < 10:
        p.error(f"--duration: {a.duration} is under 10 seconds")
    if not 2 <= a.interval <= a.duration:
        p.error(f"--interval: {a.interval} is not between 2 and --duration ({a.duration})")
    return a


def wrapper(path: Path, db_stress: Path, log: Path, preload: Path | None) -> None:
    """A stand-in for db_stress that logs its arguments and output (which
    db_crashtest.py's blackbox mode swallows) and execs it, so that a kill
    reaches db_stress itself; preload (the plugin) goes into db_stress alone,
    not into db_crashtest.py or the tees."""
    env = f'LD_PRELOAD="{preload}" ' if preload else ""
    path.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "ARGS $*" >>"{log}"\n'
        # Line-buffered: a killed db_stress loses no line it printed (stdbuf
        # adds its own library to LD_PRELOAD, keeping what is there).
        f'{env}exec stdbuf -oL -eL "{db_stress}" "$@" > >(tee -a "{log}") 2> >(tee -a "{log}" >&2)\n'
    )
    path.chmod(0o755)


def flag(args: str, name: str, default: int) -> int:
    m = re.search(rf"--{name}=(\d+)", args)
    return int(m.group(1)) if m else default


def tally(run: Run, crashtest_out: str, log: str) -> None:
    if run.mode == "blackbox":
        run.kills = crashtest_out.count("\nKILLED ")
    else:
        run.kills = len(re.findall(r"exitcode=-\d+", crashtest_out))
    keys = 0
    for line in log.splitlines():
        if line.startswith("ARGS "):
            keys = flag(line, "max_key", 25000000) * flag(line, "column_families", 10)
            continue
        run.reopens += any(w in line for w in REOPENED)
        if any(w in line for w in PASSED):
            run.verifications += 1
            run.verified_keys += keys
        elif FAILED.search(line):
            run.failures.append(line.strip())


def one_run(run: Run, build: Path, duration: int, interval: int, out: Path) -> None:
    """One db_crashtest.py run of duration seconds (blackbox: a kill every
    interval seconds) on the build's db_stress and plugin, its output in out."""
    crash = build / "crashtest"
    plugin = build / "plugins/rocksdb/libhybridio-rocksdb.so"
    base, uri_keys = TARGETS[run.target]
    tmp = Path(tempfile.mkdtemp(prefix=f"hio-crashtest-{run.mode}-", dir=base))
    out.mkdir(parents=True, exist_ok=True)
    log = out / "db_stress.log"
    stand_in = out / "db_stress"
    wrapper(stand_in, crash / "db_stress", log, plugin if run.strategy != "posix" else None)
    argv = [run.mode, f"--stress_cmd={stand_in}", f"--duration={duration}", *DB_STRESS_ARGS[run.mode]]
    if run.mode == "blackbox":
        argv.append(f"--interval={interval}")
    env = dict(os.environ, TEST_TMPDIR=str(tmp))
    if run.strategy != "posix":
        argv.append(f"--fs_uri=hybridio://?completion={run.strategy}{uri_keys}")
    seeded = (
        "import random, runpy, sys\n"
        f"random.seed({run.seed})\n"
        f"sys.argv = {[str(crash / 'db_crashtest.py'), *argv]!r}\n"
        f"runpy.run_path({str(crash / 'db_crashtest.py')!r}, run_name='__main__')\n"
    )
    # db_crashtest.py lets its last whitebox run overrun the duration by up
    # to 15 minutes; 10 (a whitebox run without kills reads every key from
    # the disk with O_DIRECT under the plugin, and from the page cache under
    # the control) tell a slow run from a hung one.
    limit = duration + 600
    with open(out / "db_crashtest.out", "w") as f:
        proc = subprocess.Popen(
            [sys.executable, "-c", seeded], stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
        try:
            rc = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            rc = None
    text = (out / "db_crashtest.out").read_text(errors="replace")
    tally(run, text, log.read_text(errors="replace") if log.exists() else "")
    if rc is None:
        run.error = f"still running after {limit} s: killed (output: {out / 'db_crashtest.out'})"
    elif rc != 0:
        last = [line for line in text.splitlines() if line.strip()][-3:]
        run.error = f"db_crashtest.py exited {rc}: {' | '.join(last)} (output: {out / 'db_crashtest.out'})"
    elif run.verifications == 0:
        run.error = f"no verification ran (output: {out / 'db_crashtest.out'})"
    shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    missing = [
        p
        for p in (a.build / "crashtest/db_stress", a.build / "plugins/rocksdb/libhybridio-rocksdb.so")
        if not p.exists()
    ]
    if missing:
        print(f"crashtest: missing {', '.join(map(str, missing))} (make crashtest builds them)", file=sys.stderr)
        return 2
    keep = a.keep or Path(tempfile.mkdtemp(prefix="hio-crashtest-out-"))
    cells = [(m, t) for m in a.modes for t in a.targets]
    runs: list[Run] = []
    for i, (mode, target) in enumerate(cells):
        for strategy in [*a.strategies, *([] if a.no_control else ["posix"])]:
            run = Run(mode, target, strategy, seed=a.seed + i)
            total = len(cells) * (len(a.strategies) + (not a.no_control))
            print(f"[{len(runs) + 1}/{total}] {run.name}, seed {run.seed}, {a.duration} s ...", flush=True)
            started = time.monotonic()
            one_run(run, a.build, a.duration, a.interval, keep / f"{mode}-{target}-{strategy}")
            runs.append(run)
            status = "FAILED" if run.failures else ("ERROR" if run.error else "ok")
            print(
                f"    {status}: {run.kills} kills, {run.reopens} reopens, {run.verifications} verifications "
                f"({run.verified_keys:,} keys), {len(run.failures)} failures, {time.monotonic() - started:.0f} s",
                flush=True,
            )
            for line in run.failures[:5]:
                print(f"    {line}")
            if run.error:
                print(f"    {run.error}")
    plugin = [r for r in runs if r.strategy != "posix"]
    for label, group in (("plugin", plugin), ("posix control", [r for r in runs if r.strategy == "posix"])):
        if group:
            print(
                f"{label}: {len(group)} runs, {sum(r.kills for r in group)} kills, "
                f"{sum(r.reopens for r in group)} reopens, {sum(r.verified_keys for r in group):,} keys verified, "
                f"{sum(len(r.failures) for r in group)} verification failures"
            )
    failures = sum(len(r.failures) for r in runs)
    errors = [r for r in runs if r.error]
    print(
        f"crashtest: {len(runs)} runs, {sum(r.kills for r in runs)} kills, {failures} verification failures"
        + (f", {len(errors)} runs with errors" if errors else "")
    )
    if not a.keep and not failures and not errors:
        shutil.rmtree(keep, ignore_errors=True)
    elif failures or errors:
        print(f"crashtest: the runs' output is in {keep}")
    return 1 if failures or errors else 0


if __name__ == "__main__":
    sys.exit(main())
