# SPDX-License-Identifier: MIT
"""suite_diff: a change to the policy judged by paired suites: a real effect
is called by its direction, noise is not, and bad folders are named."""

import json
import random

import pytest

from hybridio.adaptive import suite_diff


def write_suite(folder, seed, scores, grid="medium"):
    folder.mkdir(parents=True, exist_ok=True)
    scenarios = [{"name": n, "adaptive_vs_best_static": v} for n, v in scores.items()]
    (folder / "suite.json").write_text(json.dumps({"seed": seed, "grid": grid, "scenarios": scenarios}))
    return str(folder)


def suites(tmp_path, effect, noise, seeds=(1, 2, 3, 4), n=500):
    """Before and after folders: after is before times effect, each scenario moved by up to +-noise."""
    rng = random.Random(7)
    before, after = [], []
    for seed in seeds:
        b = {f"s{i}": rng.uniform(0.7, 1.1) for i in range(n)}
        a = {k: v * effect * (1 + rng.uniform(-noise, noise)) for k, v in b.items()}
        before.append(write_suite(tmp_path / f"b{seed}", seed, b))
        after.append(write_suite(tmp_path / f"a{seed}", seed, a))
    return before, after


@pytest.mark.parametrize("effect, shows", [(1.01, "better"), (0.99, "worse"), (1.0, "nothing the suite can see")])
def test_an_effect_is_called_by_its_direction_and_noise_is_not(tmp_path, capsys, effect, shows):
    before, after = suites(tmp_path, effect, noise=0.05)
    assert suite_diff.main([*before, "--after", *after, "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["shows"] == shows
    assert r["pairs"] == 2000
    lo, hi = r["interval"]
    assert lo < effect < hi
    assert r["ratio"] == pytest.approx(effect, abs=0.003)
    assert [s["seed"] for s in r["seeds"]] == [1, 2, 3, 4]


def test_one_seed_cannot_see_what_four_can(tmp_path, capsys):
    before, after = suites(tmp_path, 1.004, noise=0.08)
    suite_diff.main([before[0], "--after", after[0], "--json"])
    one = json.loads(capsys.readouterr().out)
    suite_diff.main([*before, "--after", *after, "--json"])
    four = json.loads(capsys.readouterr().out)
    assert one["shows"] == "nothing the suite can see"
    assert four["interval"][1] - four["interval"][0] < one["interval"][1] - one["interval"][0]


def test_the_text_names_the_pooled_figure_and_the_scenarios_that_moved(tmp_path, capsys):
    before, after = suites(tmp_path, 1.0, noise=0.05, seeds=(1,), n=20)
    assert suite_diff.main([*before, "--after", *after]) == 0
    out = capsys.readouterr().out
    assert "after / before over 20 paired scenarios:" in out
    assert "fell most:" in out and "rose most:" in out


def test_the_same_suite_twice_is_no_change(sim, tmp_path, capsys):
    for side in ("b", "a"):
        p = sim("suite", "--grid", "quick", "--seed", "3", "--out", tmp_path / side)
        assert p.returncode == 0, p.stderr
    assert suite_diff.main([str(tmp_path / "b"), "--after", str(tmp_path / "a"), "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["ratio"] == 1.0 and r["interval"] == [1.0, 1.0]
    assert r["shows"] == "nothing the suite can see"
    assert r["most_worse"] == [] and r["most_better"] == []


def test_bad_folders_are_named(tmp_path, capsys):
    b = write_suite(tmp_path / "b", 1, {"x": 1.0})
    a2 = write_suite(tmp_path / "a2", 2, {"x": 1.0})
    aq = write_suite(tmp_path / "aq", 1, {"x": 1.0}, grid="quick")
    other = write_suite(tmp_path / "other", 1, {"y": 1.0})
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "suite.json").write_text("[1, 2]")
    cases = [
        ([b, "--after", str(tmp_path / "none")], "none/suite.json: no such file"),
        ([b, "--after", str(tmp_path / "junk")], "not a suite's results"),
        ([b, "--after", a2], "the seeds differ: before [1], after [2]"),
        ([b, b, "--after", b], "two before suites with seed 1"),
        ([b, "--after", aq], "seed 1: grid medium before, quick after"),
        ([b, "--after", other], "seed 1: no scenario scored in both suites"),
    ]
    for argv, said in cases:
        assert suite_diff.main(argv) == 2
        assert said in capsys.readouterr().err
