# SPDX-License-Identifier: MIT
"""The handle experiments (python3 -m hybridio.handles, and a part of
hio-study): priority, queues, the polling period, the cache, read-ahead and
split queues. What they are (experiments), running them (runner), their
claims (findings) and figures (plots)."""
