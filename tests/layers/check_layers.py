#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The library's folders include only the folders below them, and no folder
below src/api calls the C API: the layers of docs/architecture.md, checked.

Usage: check_layers.py SRC_DIR INCLUDE_DIR. Prints each violation with its
file and line and exits 1; exits 0 when there is none.
"""

import re
import sys
from pathlib import Path

# Top to bottom; a folder may include itself and any folder after it.
ORDER = ["api", "handle", "cache", "queue", "wait", "adaptive", "emu", "backend", "util"]

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')
CALL = re.compile(r"\b(hio_[a-z0-9_]+)\s*\(")
API_DECL = re.compile(r"^HIO_API\s.*?\b(hio_[a-z0-9_]+)\s*\(", re.MULTILINE)


def api_functions(include_dir: Path) -> set:
    names = set()
    for h in include_dir.glob("hybridio/*.h"):
        names |= set(API_DECL.findall(h.read_text()))
    return names


def strip_comments(line: str) -> str:
    return line.split("//", 1)[0]


def violations(src: Path, api: set):
    for f in sorted(src.rglob("*.[ch]pp")):
        layer = f.relative_to(src).parts[0]
        if layer not in ORDER:
            yield f"{f}: folder '{layer}' is not in the layer order {ORDER}"
            continue
        allowed = set(ORDER[ORDER.index(layer) :])
        for n, line in enumerate(f.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) not in allowed and m.group(1) != "hybridio":
                yield f"{f}:{n}: '{layer}' includes '{m.group(1)}', a layer above it"
            if layer != "api":
                for name in CALL.findall(strip_comments(line)):
                    if name in api:
                        yield f"{f}:{n}: '{layer}' calls the C API's {name}(); only src/api may"


def main() -> int:
    if len(sys.argv) != 3:
        print("usage: check_layers.py SRC_DIR INCLUDE_DIR", file=sys.stderr)
        return 2
    src, inc = Path(sys.argv[1]), Path(sys.argv[2])
    api = api_functions(inc)
    if not api:
        print(f"check_layers: no HIO_API function found under {inc}", file=sys.stderr)
        return 2
    bad = list(violations(src, api))
    for v in bad:
        print(v)
    print(f"check_layers: {len(bad)} violation(s) in {src} ({len(api)} API functions known)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
