# SPDX-License-Identifier: MIT
"""The two programs that can run the study's cells (hio-study --driver):
hio-bench (the default), or fio with hybridio's fio engine. Each gives a
cell's command, reads its output into the same figures, and says whether a
target can run a strategy."""

from ..common import hiobench
from ..fio import engine as fioengine

NAMES = ("hio-bench", "fio")


class HioBench:
    name = "hio-bench"

    def __init__(self, path):
        self.path = path

    def check(self):
        hiobench.check(self.path)

    def command(self, target, strategy, threads, iodepth, runtime, cpus, size=None):
        return hiobench.command(self.path, target, strategy, threads, iodepth, runtime, cpus, size)

    def parse(self, text, target):
        return hiobench.parse(text)

    def probe(self, target, strategy, size=None):
        return hiobench.probe(self.path, target, strategy, size)


class Fio:
    name = "fio"

    def __init__(self, fio, engine):
        self.fio, self.engine = fio, engine

    def check(self):
        fioengine.check(self.fio, self.engine)

    def command(self, target, strategy, threads, iodepth, runtime, cpus, size=None):
        return fioengine.command(self.fio, self.engine, target, strategy, threads, iodepth, runtime, cpus, size)

    def parse(self, text, target):
        return fioengine.parse(text, target)

    def probe(self, target, strategy, size=None):
        return fioengine.probe(self.fio, self.engine, target, strategy, size)


def make(name, hio_bench, fio, fio_engine):
    """The driver `name` (one of NAMES)."""
    return HioBench(hio_bench) if name == "hio-bench" else Fio(fio, fio_engine)


def probe(driver, target, strategy, size):
    """None if the target can run the strategy, else the driver's reason. The
    first probe of a missing file creates it, `size` large."""
    return driver.probe(target, strategy, size if not target.startswith("emu:") else None)
