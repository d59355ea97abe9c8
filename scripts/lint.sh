#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The lint checks, run by `make lint` and first by `make test`: ruff on the
# Python code (ruff.toml), clang-format (.clang-format) on the C and C++
# code, clang-tidy (.clang-tidy) on the library, hio-bench and the RocksDB
# plugin, lizard's function size limits, and an SPDX line in every source
# file.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}

# scripts/deps.sh lint makes .venv
.venv/bin/python -m ruff check --quiet . || {
  echo "lint: ruff found the problems above" >&2
  exit 1
}
echo "lint: ruff found nothing"
.venv/bin/python -m ruff format --check --quiet . || {
  echo "lint: the Python files above are not formatted: make format" >&2
  exit 1
}
echo "lint: ruff's formatting holds"

scripts/cxx-files.sh | xargs -r clang-format --dry-run --Werror || {
  echo "lint: the C/C++ files above are not formatted: make format" >&2
  exit 1
}
echo "lint: clang-format's formatting holds"

# clang-tidy compiles each file as the build does: a configured build folder
# has compile_commands.json (configuring builds nothing).
[ -f "$build/compile_commands.json" ] || cmake -S . -B "$build" -G Ninja -DHIO_WERROR=ON >/dev/null
git ls-files 'src/*.cpp' 'tools/*.cpp' 'plugins/rocksdb/*.cpp' | xargs -r -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null || {
  echo "lint: clang-tidy found the problems above" >&2
  exit 1
}
echo "lint: clang-tidy found nothing"

# Function size (lizard): at most 80 lines and a cyclomatic complexity of
# 25 in the C, C++ and Python code. scripts/lizard-allow.txt names the
# functions still above that, each to be split; no other may join them.
limits=(--length 80 --CCN 25)
git ls-files '*.c' '*.cpp' '*.hpp' '*.h' '*.py' | grep -v '^\.deps/' |
  xargs .venv/bin/python -m lizard --warnings_only "${limits[@]}" --whitelist scripts/lizard-allow.txt || {
  echo "lint: the functions above are longer or branch more than ${limits[*]} allows: split them" >&2
  exit 1
}
echo "lint: lizard found no function over ${limits[*]}"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  files=$(git ls-files)
else
  files=$(find . -path ./.deps -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||')
fi
missing=$(printf '%s\n' "$files" | grep -E '\.(c|h|cpp|hpp|py|sh|map)$|(^|/)CMakeLists\.txt$|^Makefile$' |
  while read -r f; do [ -f "$f" ] && ! grep -q 'SPDX-License-Identifier' "$f" && echo "$f"; done || true)
if [ -n "$missing" ]; then
  echo "lint: no SPDX-License-Identifier line in:" >&2
  printf '  %s\n' $missing >&2
  exit 1
fi
echo "lint: every source file has its SPDX line"
