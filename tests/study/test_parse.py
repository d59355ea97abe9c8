# SPDX-License-Identifier: MIT
import subprocess

import pytest

from hybridio.common import cores, corunner, hiobench
from hybridio.common.errors import UsageError

YAML = """---
system-info:
      stress-ng-version: 0.15.06
metrics:
    - stressor: cpu
      bogo-ops: 1297
      bogo-ops-per-second-usr-sys-time: 1273.920384
      bogo-ops-per-second-real-time: 635.661671
    - stressor: stream
      bogo-ops: 12
      bogo-ops-per-second-real-time: 4.5
...
"""


def test_stress_ng_yaml_sums_real_time_rates():
    assert corunner.parse_yaml_ops(YAML) == pytest.approx(640.161671)


def test_stress_ng_yaml_without_metrics_is_an_error():
    with pytest.raises(ValueError):
        corunner.parse_yaml_ops("---\nsystem-info:\n  cpus: 2\n")


@pytest.mark.parametrize("spec, cpus", [("1", [1]), ("0-2", [0, 1, 2]), ("0,3", [0, 3]), ("0-1,3", [0, 1, 3])])
def test_cpu_lists(spec, cpus):
    assert cores.expand_cpus(spec) == cpus


@pytest.mark.parametrize("spec", ["", "a", "2-1", "-1", "1,,2"])
def test_bad_cpu_lists_name_the_value(spec):
    with pytest.raises(UsageError, match=repr(spec)):
        cores.expand_cpus(spec)


def test_real_hio_bench_output_parses(hio_bench):
    cmd = hiobench.command(hio_bench, "emu:pcie4,size=16m", "poll", 2, 4, 0.3, None)
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    got = hiobench.parse(out)
    assert got["emulated"] is True and got["error"] is None
    assert got["iops"] > 0 and 0 < got["lat_mean_us"] <= got["lat_p99_us"] * 10
    assert got["cpu_us_per_io"] > 0


def test_strategies_come_from_hio_bench(hio_bench):
    assert hiobench.strategies(hio_bench)[:3] == ["interrupt", "poll", "hybrid"]
