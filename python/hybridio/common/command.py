# SPDX-License-Identifier: MIT
"""A study command's plumbing: the options every one has, its steps, and
the exit status and one line each failure gets."""

import argparse
import sys

from .errors import UsageError


def parser(prog, doc):
    """A command's parser: its name, and its module's docstring as the help's text, laid out as written."""
    return argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def study_parser(prog, doc, quick_help=None):
    """The command's parser, with what every study command has: --out, and
    --quick where the command has a short form (quick_help says what it is)."""
    ap = parser(prog, doc)
    if quick_help:
        ap.add_argument("--quick", action="store_true", help=quick_help)
    ap.add_argument("--out", help="results folder (default: a new folder in the system temp directory)")
    return ap


def with_defaults(a, defaults, quick):
    """Fills the options a left unset (None) from quick under --quick, from
    defaults otherwise, and returns a."""
    for k, v in (quick if a.quick else defaults).items():
        if getattr(a, k) is None:
            setattr(a, k, v)
    return a


def run_command(prog, argv, parse_args, resolve, run):
    """parse_args(argv) (the process's arguments where argv is None) gives
    the argparse Namespace; resolve(namespace), the
    command's edge and the last to see it, checks it and returns (options,
    cfg): a frozen dataclass of the options the command reads further and
    its configuration; then run(options, cfg), whose status is returned.
    Bad input (UsageError, from resolve or run) is one line naming it and
    status 2; a failed run (RuntimeError) one line and status 1; Ctrl-C
    status 130."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        options, cfg = resolve(args)
        return run(options, cfg)
    except UsageError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
