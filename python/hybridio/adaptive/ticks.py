# SPDX-License-Identifier: MIT
"""What each adaptive queue did, from the tick log HIO_ADAPTIVE_TICKS writes.

    python3 -m hybridio.adaptive.ticks LOG [--queue N] [--changes] [--json]

Per queue, the busiest first: at each contention level and in each mode,
the share of the queue's time, its completions per second, how much of
that time was measured into the level's table, and over the time that was
not, the share of it the queue's thread ran (a tick that hardly waited ran
the application, not the mode; a thread held off the CPU then was slowed by
its neighbours). Then the probes taken and the changes of the settled mode;
--changes lists those changes with the level's table at each.
"""

import csv
import json
import sys
from dataclasses import dataclass, field

from ..common import command
from ..common.errors import UsageError

MODES = ("interrupt", "poll", "hybrid")
COLUMNS = ("t_us", "queue", "ran", "learned", "level", "completions", "wall_us", "cpu_us", "next", "probe")
TABLE = tuple(f"iops_{m}" for m in MODES)


@dataclass
class Cell:
    """One mode at one level of one queue: sums over its ticks."""

    wall_us: float = 0.0
    completions: int = 0
    learned_us: float = 0.0
    learned_completions: int = 0
    unlearned_cpu_us: float = 0.0

    def add(self, t):
        self.wall_us += t["wall_us"]
        self.completions += t["completions"]
        if t["learned"]:
            self.learned_us += t["wall_us"]
            self.learned_completions += t["completions"]
        else:
            self.unlearned_cpu_us += t["cpu_us"]

    def summary(self, total_us):
        unlearned_us = self.wall_us - self.learned_us
        return {
            "share": self.wall_us / total_us if total_us else 0.0,
            "completions_per_s": self.completions * 1e6 / self.wall_us if self.wall_us else 0.0,
            "measured_share": self.learned_us / self.wall_us if self.wall_us else 0.0,
            "measured_completions_per_s": self.learned_completions * 1e6 / self.learned_us if self.learned_us else None,
            "cpu_per_wall_unmeasured": self.unlearned_cpu_us / unlearned_us if unlearned_us > 0 else None,
        }


@dataclass
class Queue:
    """One queue's ticks, in the order they ended."""

    number: int
    ticks: list = field(default_factory=list)

    def cells(self):
        cells = {}
        for t in self.ticks:
            cells.setdefault((t["level"], t["ran"]), Cell()).add(t)
        return cells

    def changes(self):
        """Each change of the settled mode: the mode a tick leads to when
        that tick is not a probe."""
        out, settled = [], None
        for t in self.ticks:
            if t["probe"]:
                continue
            if settled is not None and t["next"] != settled:
                out.append(
                    {"t_s": t["t_us"] / 1e6, "from": settled, "to": t["next"], "level": t["level"], "table": t["table"]}
                )
            settled = t["next"]
        return out

    def summary(self):
        total = sum(t["wall_us"] for t in self.ticks)
        cells = self.cells()
        return {
            "queue": self.number,
            "seconds": total / 1e6,
            "completions": sum(t["completions"] for t in self.ticks),
            "probes": sum(1 for t in self.ticks if t["probe"]),
            "changes": self.changes(),
            "cells": [
                {"level": lv, "mode": m, **cells[(lv, m)].summary(total)}
                for lv, m in sorted(cells, key=lambda k: (k[0], MODES.index(k[1])))
            ],
        }


def parse_tick(row):
    """One CSV row as a tick; ValueError where a field does not parse."""
    t = {
        "t_us": float(row["t_us"]),
        "queue": int(row["queue"]),
        "ran": row["ran"],
        "learned": row["learned"] == "1",
        "level": int(row["level"]),
        "completions": int(row["completions"]),
        "wall_us": float(row["wall_us"]),
        "cpu_us": float(row["cpu_us"]),
        "next": row["next"],
        "probe": row["probe"] == "1",
        "table": {m: v for m, c in zip(MODES, TABLE) if (v := float(row[c])) >= 0},
    }
    if t["ran"] not in MODES or t["next"] not in MODES:
        raise ValueError(f"unknown mode {t['ran']!r} or {t['next']!r}")
    return t


def read_log(path):
    """The log's queues by number, and how many lines did not parse (a
    killed run may leave half a line). Bad input raises UsageError."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror}") from None
    with f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS + TABLE if c not in (reader.fieldnames or [])]
        if missing:
            raise UsageError(f"{path} is not a tick log of HIO_ADAPTIVE_TICKS (no column {missing[0]})")
        queues, bad = {}, 0
        for row in reader:
            try:
                t = parse_tick(row)
            except (TypeError, ValueError):
                bad += 1
                continue
            queues.setdefault(t["queue"], Queue(t["queue"])).ticks.append(t)
    return queues, bad


def pct(x):
    return f"{100 * x:.1f}%"


def rate(x):
    return "-" if x is None else f"{x:,.0f}"


def fraction(x):
    return "-" if x is None else f"{x:.2f}"


def render(s):
    n = len(s["changes"])
    lines = [
        f"queue {s['queue']}: {s['seconds']:.2f} s, {s['completions']:,} completions, "
        f"{s['probes']} probe{'' if s['probes'] == 1 else 's'}, {n} change{'' if n == 1 else 's'} of mode"
    ]
    head = ("level", "mode", "time", "completions/s", "measured", "measured c/s", "cpu/wall unmeasured")
    rows = [
        (
            str(c["level"]),
            c["mode"],
            pct(c["share"]),
            rate(c["completions_per_s"]),
            pct(c["measured_share"]),
            rate(c["measured_completions_per_s"]),
            fraction(c["cpu_per_wall_unmeasured"]),
        )
        for c in s["cells"]
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, *rows]:
        lines.append("  " + "  ".join(v.ljust(w) if i < 2 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths))))
    return lines


def render_changes(s):
    lines = []
    for c in s["changes"]:
        table = ", ".join(f"{m} {v:,.0f}" for m, v in c["table"].items())
        lines.append(f"  {c['t_s']:8.3f} s  level {c['level']}  {c['from']} -> {c['to']}  ({table})")
    return lines


def parse_args(argv):
    ap = command.parser("python3 -m hybridio.adaptive.ticks", __doc__)
    ap.add_argument("log", help="the file HIO_ADAPTIVE_TICKS named")
    ap.add_argument("--queue", type=int, help="only this queue (its number in the log)")
    ap.add_argument("--changes", action="store_true", help="list each change of the settled mode")
    ap.add_argument("--json", action="store_true", help="the summary as JSON on stdout")
    return ap.parse_args(argv)


@dataclass(frozen=True)
class TicksOptions:
    """What run reads of the command line: the log, and how to show it."""

    log: str
    changes: bool
    json: bool


def resolve(a):
    """The command's edge: (TicksOptions, {"queues": the queues to show, "bad": lines that did not parse})."""
    queues, bad = read_log(a.log)
    if a.queue is not None and a.queue not in queues:
        have = ", ".join(map(str, sorted(queues))) or "none"
        raise UsageError(f"no queue {a.queue} in {a.log} (queues: {have})")
    picked = (
        [queues[a.queue]]
        if a.queue is not None
        else sorted(queues.values(), key=lambda q: -sum(t["completions"] for t in q.ticks))
    )
    return TicksOptions(a.log, a.changes, a.json), {"queues": picked, "bad": bad}


def run(o, cfg):
    summaries = [q.summary() for q in cfg["queues"]]
    if o.json:
        json.dump({"queues": summaries, "unparsed_lines": cfg["bad"]}, sys.stdout, indent=1)
        print()
        return 0
    if not summaries:
        print(f"{o.log}: no ticks (no adaptive queue waited in that run)")
    for s in summaries:
        print("\n".join(render(s)))
        if o.changes:
            print("\n".join(render_changes(s)))
    if cfg["bad"]:
        print(f"{cfg['bad']} line(s) did not parse and were skipped", file=sys.stderr)
    return 0


def main(argv=None):
    return command.run_command("python3 -m hybridio.adaptive.ticks", argv, parse_args, resolve, run)


if __name__ == "__main__":
    sys.exit(main())
