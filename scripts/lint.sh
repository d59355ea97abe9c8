#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The lint checks, run by `make lint` and first by `make test`: ruff on the
# Python code (ruff.toml), and an SPDX line in every source file.
set -euo pipefail
cd "$(dirname "$0")/.."

.venv/bin/python -m ruff check --quiet . && echo "lint: ruff found nothing"  # scripts/deps.sh lint makes .venv
.venv/bin/python -m ruff format --check --quiet . || {
  echo "lint: the Python files above are not formatted: make format" >&2
  exit 1
}
echo "lint: ruff's formatting holds"

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
