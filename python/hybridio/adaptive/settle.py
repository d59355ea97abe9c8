# SPDX-License-Identifier: MIT
"""How long adaptive took to settle on the right mode after a change beside
it, from its mode timeline (hio-bench's --adaptive_log: points of t_ms and
the settled mode)."""


def settle_ms(points, change_ms, end_ms, right, start_ms=0):
    """Time from a change until the settled mode is one of `right` and stays
    so until end_ms; None if it never is. points' t_ms count from start_ms,
    on the clock of change_ms and end_ms; the resolution is the log's."""
    settled_at = None
    for p in points:
        at = start_ms + p["t_ms"]
        if not change_ms < at <= end_ms:
            continue
        if p.get("settled") in right:
            if settled_at is None:
                settled_at = at
        else:
            settled_at = None
    return None if settled_at is None else settled_at - change_ms
