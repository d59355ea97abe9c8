# SPDX-License-Identifier: MIT
"""What every study stands on, and which knows none of them: bad input and a
command's plumbing, output folders, processes and their duty cycle, core
sets, the stress-ng co-runner, statistics, rounds, and running hio-bench."""
