# SPDX-License-Identifier: MIT
"""The contention study (hio-study, python3 -m hybridio.study): its command
line (cli), the cells (matrix) and the programs that run them (drivers),
the runs (runner), the experiments beside the matrix (timeline, bursty),
and from the runs to the outputs (summary, verdict, plots, report,
outputs)."""
