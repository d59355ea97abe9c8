# SPDX-License-Identifier: MIT
"""What the adaptive strategy did, from what it logs: the per-queue tick log
(ticks) and the settle times on its mode timeline (settle)."""
