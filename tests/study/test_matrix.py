# SPDX-License-Identifier: MIT
from hybridio.common import rounds
from hybridio.study import matrix


def test_contention_cells_cover_every_target_strategy_load():
    cells = matrix.expand(
        ["a", "emu:x"], {"a": ["interrupt", "poll", "sqpoll"], "emu:x": ["interrupt", "poll"]}, [0, 50, 100], [1], 1
    )
    assert len(cells) == (3 + 2) * 3
    assert all(c.experiment == "contention" and c.threads == 1 and c.cores == "limited" for c in cells)
    assert {(c.target, c.strategy) for c in cells} == {
        ("a", "interrupt"),
        ("a", "poll"),
        ("a", "sqpoll"),
        ("emu:x", "interrupt"),
        ("emu:x", "poll"),
    }


def test_scaling_cells_only_with_several_thread_counts():
    strategies = {"t": ["interrupt", "poll"]}
    assert not [c for c in matrix.expand(["t"], strategies, [0], [1], 1) if c.experiment == "scaling"]
    scaling = [c for c in matrix.expand(["t"], strategies, [0], [1, 2, 4], 4) if c.experiment == "scaling"]
    assert len(scaling) == 2 * 3 * 2
    assert {c.cores for c in scaling} == {"limited", "all"}
    assert all(c.load_pct == 0 and c.iodepth == 4 for c in scaling)


def test_schedule_runs_every_cell_once_per_round():
    cells = matrix.expand(["t", "u"], {"t": ["interrupt", "poll"], "u": ["poll", "adaptive"]}, [0, 50, 100], [1], 1)
    plan = rounds.schedule(cells, 3)
    assert len(plan) == 3 * len(cells)
    orders = [[c for rep, c in plan if rep == r] for r in range(3)]
    for order in orders:
        assert sorted(order, key=lambda c: c.key) == sorted(cells, key=lambda c: c.key)
    assert [rep for rep, _ in plan] == sorted(rep for rep, _ in plan)
    assert orders[0] != orders[1] and orders[1] != orders[2]  # drift within a round lands elsewhere each time
    assert rounds.schedule(cells, 3) == plan  # and the same study runs in the same order


def test_the_cells_a_verdict_compares_run_next_to_each_other():
    cells = matrix.expand(["t", "u"], {"t": ["interrupt", "poll"], "u": ["poll", "adaptive"]}, [0, 50, 100], [1, 2], 1)
    plan = rounds.schedule(cells, 3, block=matrix.compared)
    assert sorted(plan, key=lambda p: (p[0], p[1].key)) == sorted(
        rounds.schedule(cells, 3), key=lambda p: (p[0], p[1].key)
    )  # the same runs
    for r in range(3):
        order = [matrix.compared(c) for rep, c in plan if rep == r]
        # Each block's cells are consecutive: a block, once left, never comes back.
        left = set()
        for prev, cur in zip(order, order[1:]):
            if cur != prev:
                assert cur not in left, order
                left.add(prev)
        assert len(set(order)) == len({matrix.compared(c) for c in cells})
    orders = [[c for rep, c in plan if rep == r] for r in range(3)]
    assert orders[0] != orders[1] and orders[1] != orders[2]
