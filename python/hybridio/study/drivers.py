# SPDX-License-Identifier: MIT
"""The two programs that can run the study's cells (hio-study --driver):
hio-bench (the default), or fio with hybridio's fio engine. Each gives a
cell's command, reads its output into the same figures, and says whether a
target can run a strategy."""

from . import fioengine, hiobench

NAMES = ("hio-bench", "fio")


class HioBench:
    name = "hio-bench"

    def __init__(self, a):
        self.path = a.hio_bench

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

    def __init__(self, a):
        self.fio, self.engine = a.fio, a.fio_engine

    def check(self):
        fioengine.check(self.fio, self.engine)

    def command(self, target, strategy, threads, iodepth, runtime, cpus, size=None):
        return fioengine.command(self.fio, self.engine, target, strategy, threads, iodepth, runtime, cpus, size)

    def parse(self, text, target):
        return fioengine.parse(text, target)

    def probe(self, target, strategy, size=None):
        return fioengine.probe(self.fio, self.engine, target, strategy, size)


def make(a):
    return {"hio-bench": HioBench, "fio": Fio}[a.driver](a)
