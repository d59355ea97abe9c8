# SPDX-License-Identifier: MIT
"""How a study command ends: its steps, and the exit status and one line
each failure gets."""

import sys

from .errors import UsageError


def run_command(prog, argv, parse_args, resolve, run):
    """parse_args(argv), then cfg = resolve(a), then run(a, cfg), whose
    status is returned. Bad input (UsageError, from resolve or run) is one
    line naming it and status 2; a failed run (RuntimeError) one line and
    status 1; Ctrl-C status 130."""
    a = parse_args(argv)
    try:
        cfg = resolve(a)
        return run(a, cfg)
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
