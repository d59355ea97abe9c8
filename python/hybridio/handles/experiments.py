# SPDX-License-Identifier: MIT
"""The handle experiments and the configurations each one sweeps: what the
runner runs and the findings read."""

EXPERIMENTS = ("priority", "queues", "poll_period", "cache", "readahead", "split")
QUEUE_JOBS = (1, 2, 3, 4)
QUEUE_MODES = ("dedicated", "shared")
POLL_SIZES = ("4k", "8k", "16k", "64k")
POLL_PERIODS = (0, 2, 5, 10, 20, 50, 100, 200)  # µs; 0 spins; plus "auto"
# hio-study --quick: the smallest and largest size, a period per decade.
SHORT_POLL_SIZES = ("4k", "64k")
SHORT_POLL_PERIODS = (0, 5, 20, 100)
POLL_TARGET_EMU = "emu:pcie4"
CACHE_MB = ((128, "2:1", 1 / 2), (51, "5:1", 1 / 5), (26, "10:1", 1 / 10), (0, "no cache", None))
READAHEAD_PATTERNS = ("randread", "read")
READAHEAD_MODES = ("auto", "on", "off")
SPLIT_QUEUES = ("shared", "split_rw")
