#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The project's own C and C++ files, one per line (what clang-format and
# clang-tidy look at); fetched sources and build folders are not ours.
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -- '*.c' '*.h' '*.cpp' '*.hpp'
else
  find . \( -path ./.deps -o -path './build*' -o -path ./.venv \) -prune -o -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' \) -print | sed 's|^\./||'
fi
