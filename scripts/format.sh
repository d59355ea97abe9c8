#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Applies the formatting that scripts/lint.sh checks: ruff's on the Python
# code (ruff.toml), clang-format's on the C and C++ code (.clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m ruff format --quiet .
scripts/cxx-files.sh | xargs -r clang-format -i
echo "format: done"
