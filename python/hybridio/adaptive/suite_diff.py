# SPDX-License-Identifier: MIT
"""Whether a change to the adaptive policy moved the simulator's suite: the
suites before and after it, run on the same seeds, paired scenario by
scenario.

    python3 -m hybridio.adaptive.suite_diff BEFORE... --after AFTER... [--json]

Each folder is one that `hio-sim suite --out` wrote. Before and after pair
by their seed, and their grids must match. Prints adaptive's geometric mean
over the best static strategy per seed, before and after; then, over every
paired scenario of every seed, the geometric mean of after / before with
its 95% interval and what it shows: better (the interval clears 1), worse
(it lies below 1) or nothing the suite can see (it holds 1); and the
scenarios that moved most each way.

Any change that moves the simulated timing at all reorders the policy's
decisions in some scenarios, so a single seed's geometric mean moves by a
few tenths of a percent either way with no real effect behind it. The
interval is over scenarios and seeds together: four seeds of the medium
grid (2,016 pairs) resolve about 0.1%.
"""

import json
import math
import statistics
import sys
from pathlib import Path

from ..common import command
from ..common.errors import UsageError
from ..common.stats import LEVEL, t_quantile

SCORE = "adaptive_vs_best_static"


def load_suite(folder):
    """{"seed", "grid", "scores": {scenario name: adaptive over the best static strategy}} of one suite folder."""
    path = Path(folder) / "suite.json"
    try:
        d = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file (a folder `hio-sim suite --out` wrote)") from None
    except (OSError, ValueError) as e:
        raise UsageError(f"{path}: not a suite's results ({e})") from None
    if not isinstance(d, dict) or "scenarios" not in d or "seed" not in d:
        raise UsageError(f"{path}: not a suite's results (no seed or scenarios)")
    scores = {s["name"]: s[SCORE] for s in d["scenarios"] if s.get(SCORE)}
    return {"seed": d["seed"], "grid": d.get("grid", "?"), "scores": scores, "path": str(path)}


def by_seed(suites, side):
    out = {}
    for s in suites:
        if s["seed"] in out:
            raise UsageError(f"two {side} suites with seed {s['seed']}: {out[s['seed']]['path']} and {s['path']}")
        out[s["seed"]] = s
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def compare(before, after, most=5):
    """The paired comparison of two lists of suites (load_suite's): per seed and pooled."""
    b, a = by_seed(before, "before"), by_seed(after, "after")
    if set(b) != set(a):
        raise UsageError(f"the seeds differ: before {sorted(b)}, after {sorted(a)}")
    seeds, pairs = [], []
    for seed in sorted(b):
        if b[seed]["grid"] != a[seed]["grid"]:
            raise UsageError(f"seed {seed}: grid {b[seed]['grid']} before, {a[seed]['grid']} after")
        names = sorted(set(b[seed]["scores"]) & set(a[seed]["scores"]))
        if not names:
            raise UsageError(f"seed {seed}: no scenario scored in both suites")
        xb = [b[seed]["scores"][n] for n in names]
        xa = [a[seed]["scores"][n] for n in names]
        seeds.append({"seed": seed, "scenarios": len(names), "before": geomean(xb), "after": geomean(xa)})
        pairs += [(math.log(y / x), seed, n, x, y) for n, x, y in zip(names, xb, xa)]
    logs = [p[0] for p in pairs]
    n = len(logs)
    mean = statistics.fmean(logs)
    # Student's t over all pairs: the study's bootstrap (stats.ratio_interval)
    # is for a few rounds, and would resample thousands of pairs 4,000 times.
    half = t_quantile(1 - (1 - LEVEL) / 2, n - 1) * statistics.stdev(logs) / math.sqrt(n) if n > 1 else math.inf
    lo, hi = math.exp(mean - half), math.exp(mean + half)
    shows = "better" if lo > 1 else "worse" if hi < 1 else "nothing the suite can see"
    moved = sorted(pairs)

    def row(p):
        return {"seed": p[1], "scenario": p[2], "before": p[3], "after": p[4]}

    return {
        "seeds": seeds,
        "pairs": n,
        "ratio": math.exp(mean),
        "interval": [lo, hi],
        "shows": shows,
        "moved_more_than_1pct": {"worse": sum(x < -0.01 for x in logs), "better": sum(x > 0.01 for x in logs)},
        "most_worse": [row(p) for p in moved[:most] if p[0] < 0],
        "most_better": [row(p) for p in reversed(moved[-most:]) if p[0] > 0],
    }


def render(r):
    lines = ["seed  scenarios  before  after"]
    lines += [f"{s['seed']:>4}  {s['scenarios']:>9}  {s['before']:.4f}  {s['after']:.4f}" for s in r["seeds"]]
    lo, hi = r["interval"]
    m = r["moved_more_than_1pct"]
    lines.append(
        f"after / before over {r['pairs']} paired scenarios: {r['ratio']:.4f} [{lo:.4f}, {hi:.4f}]: "
        f"{r['shows']}; {m['worse']} fell and {m['better']} rose by more than 1%"
    )
    for title, rows in (("fell most", r["most_worse"]), ("rose most", r["most_better"])):
        if rows:
            lines.append(title + ":")
            lines += [
                f"  {x['after'] / x['before']:.3f}  {x['before']:.3f} -> {x['after']:.3f}  seed {x['seed']}  "
                f"{x['scenario']}"
                for x in rows
            ]
    return lines


def parse_args(argv):
    ap = command.parser("python3 -m hybridio.adaptive.suite_diff", __doc__)
    ap.add_argument("before", nargs="+", help="the suites before the change, one folder per seed")
    ap.add_argument("--after", nargs="+", required=True, help="the suites after it, on the same seeds")
    ap.add_argument("--json", action="store_true", help="the comparison as JSON on stdout")
    return ap.parse_args(argv)


def resolve(a):
    return a.json, compare([load_suite(f) for f in a.before], [load_suite(f) for f in a.after])


def run(as_json, r):
    if as_json:
        json.dump(r, sys.stdout, indent=1)
        print()
    else:
        print("\n".join(render(r)))
    return 0


def main(argv=None):
    return command.run_command("python3 -m hybridio.adaptive.suite_diff", argv, parse_args, resolve, run)


if __name__ == "__main__":
    sys.exit(main())
