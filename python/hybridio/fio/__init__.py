# SPDX-License-Identifier: MIT
"""fio with hybridio's fio engine (plugins/fio): its command lines, its JSON,
and whether the engine can run a strategy on a target (engine)."""
