# SPDX-License-Identifier: MIT
"""The study's one error type for bad input: main prints it and exits 2."""


class UsageError(Exception):
    pass
