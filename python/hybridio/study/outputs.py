# SPDX-License-Identifier: MIT
"""hio-study's outputs from a Study, measured in full or in part:
summary.json and summary.csv, bursty.json, verdicts.json, handles.json, the
plots, report.html, and the findings on the terminal."""

import json
import os
import platform

from ..handles import findings as handle_findings
from ..handles import plots as handle_plots
from ..report.figures import slug
from . import bursty, machine, plots, recommend, report, summary, timeline, verdict


def write(study):
    """Writes every output and prints the findings; returns the exit status."""
    out, targets = study.out, study.cfg["targets"]
    by_round = study.corunner_rounds["corunner_ops_per_s"]
    rows = summary.summarize(study.measurements, {ld: list(v.values()) for ld, v in by_round.items()})
    summary.write(rows, out)
    figures = plots.draw_all(rows, targets, out / "plots")
    burst_rows, burst_react = bursty_summary(study)
    verdicts = [target_verdict(study, rows, t, burst_rows, burst_react, figures[t]) for t in targets]
    (out / "verdicts.json").write_text(json.dumps(verdicts, indent=1, default=str))
    handle_section = handles_section(study)
    overall = verdict.adaptive_overall(rows)
    about = meta(study, overall)
    path = report.render(out, rows, verdicts, figures, about, handle_section)
    say(study, verdicts, overall, handle_section, about["facts"])
    print(f"\nReport: {path}\nSummary: {out / 'summary.csv'}")
    return 130 if study.interrupted else (1 if study.handles_failed else 0)


def bursty_summary(study):
    """The bursty neighbour's rows and reaction times, written to bursty.json; none without its runs."""
    results, targets = study.burst.results, study.cfg["targets"]
    if not results:
        return [], {}
    rows = bursty.summarize(results, targets, study.cfg["bursts"])
    react = bursty.reaction_summary(results, rows, targets)
    (study.out / "bursty.json").write_text(json.dumps({"rows": rows, "reactions": react, "results": results}, indent=1))
    return rows, react


def target_verdict(study, rows, t, burst_rows, burst_react, figs):
    """Target t's verdict: its claims, extra rounds, noise and sentences; its
    timeline and bursty figures are added to figs."""
    plot_dir = study.out / "plots"
    path = plot_dir / f"{slug(t)}-timeline.png"
    if plots.timeline(study.tl.get(t), t, path):
        figs.append(("The co-runner starts and stops", path))
    p = study.paired(t)
    v = verdict.verdict(rows, t, p)
    v["claims"] = p["claims"] + bursty.claims(burst_rows, t)
    v["paired_winners"] = p["winners"]
    v["extra_rounds"] = [e for e in study.extra_rounds if e["target"] == t]
    v["claim_counts"] = {k: sum(c["state"] == k for c in v["claims"]) for k in ("met", "not_met", "unresolved")}
    v["noise"] = verdict.noise(study.measurements, t)
    v["progress_agreement"] = verdict.progress_agreement(study.measurements, study.corunner_rounds, t)
    v["sentences"] = (
        v["sentences"]
        + p["sentences"]
        + ([v["noise"]["sentence"]] if v["noise"] else [])
        + ([v["progress_agreement"]["sentence"]] if v["progress_agreement"] else [])
    )
    v["timeline"], said = timeline.findings(study.tl, rows, t)
    v["sentences"] = v["sentences"] + said + bursty.findings(burst_rows, burst_react, t)
    path = plot_dir / f"{slug(t)}-bursty.png"
    if plots.bursty(burst_rows, t, path):
        figs.append(("A neighbour in bursts", path))
    path = plot_dir / f"{slug(t)}-bursty-timeline.png"
    if plots.bursty_timeline(bursty.example_run(study.burst.results, t), t, path):
        figs.append(("Adaptive following the bursts, 1 ms log", path))
    v["emulated"] = any(r["emulated"] for r in rows if r["target"] == t)
    v["bookkeeping"] = [x["sentence"] for x in (v["noise"], v["progress_agreement"]) if x]
    v["findings"] = [s for s in v["sentences"] if s not in v["bookkeeping"]]
    v["recommendation"] = recommend.recommend(v)
    return v


def handles_section(study):
    """The handle experiments' findings, written to handles.json, and the
    report's section on them; None where they did not run."""
    if not study.handle_plan:
        return None
    results = study.handle_results
    found = handle_findings.findings(results)
    results["findings"] = found
    (study.out / "handles.json").write_text(json.dumps(results, indent=1, default=str))
    return {
        "findings": found,
        "figures": handle_plots.draw_handles(found, study.out / "plots"),
        "repeats": study.o.handles,
        "runs": len(results["runs"]),
        "planned": len(study.handle_plan),
        "error": results["error"],
        "file": study.o.file,
    }


def meta(study, overall):
    """The report's account of the machine and of how the study ran."""
    o = study.o
    return {
        "machine": f"{platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}",
        "driver": study.cfg["driver"].name,
        "corunner": f"stress-ng {o.corunner}",
        "cores": study.limit.how,
        "runtime": o.runtime,
        "repeats": o.repeats,
        "interrupted": study.interrupted,
        "unsupported": study.unsupported,
        "extra_rounds": study.extra_rounds,
        "budget_s": study.cfg["budget_s"],
        "adaptive_overall": overall["sentence"] if overall else None,
        "facts": machine.facts(study.cfg["targets"]),
    }


def say(study, verdicts, overall, handle_section, facts=()):
    """The findings on the terminal: the details first (each target's
    sentences, the handle experiments'), then the answer, so that the last
    screen leads with it: the recommendation per target, the machine facts
    behind it, the claims' count and adaptive's overall figure."""
    for v in verdicts:
        print(f"\n{v['target']}:")
        for s in v["sentences"]:
            print(f"  {s}")
    if handle_section:
        print("\nHandles, queues and the cache (all cores, no co-runner):")
        for f in handle_section["findings"].values():
            print(f"  {f['title']}{' (emulated SSD)' if f['emulated'] else ''}:")
            for s in f["sentences"]:
                print(f"    {s}")
        if handle_section["error"]:
            print(f"  Stopped early: {handle_section['error']}")
    print()
    for line in recommend.lines([v["recommendation"] for v in verdicts]):
        print(line)
    if facts:
        print("  On: " + "; ".join(f"{k} {val}" for k, val in facts) + ".")
    n = {k: sum(v["claim_counts"][k] for v in verdicts) for k in ("met", "not_met", "unresolved")}
    print(
        f"Verdicts: {n['met']} met, {n['not_met']} not met, {n['unresolved']} unresolved "
        f"({len(study.extra_rounds)} extra round(s) within the {study.cfg['budget_s'] / 60:g} min budget)."
    )
    if overall:
        print(overall["sentence"])
