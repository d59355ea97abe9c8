#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what hybridio needs on Debian 12, or says exactly what is missing.
# Usage: scripts/deps.sh build|study|test|bench|lint
set -euo pipefail
level=${1:-build}

apt_pkgs=(cmake ninja-build g++ pkg-config liburing-dev nlohmann-json3-dev libisal-dev librocksdb-dev)
case "$level" in
  build) ;;
  study) apt_pkgs+=(stress-ng rocksdb-tools) ;;
  test) apt_pkgs+=(libgtest-dev fio stress-ng chromium rocksdb-tools) ;;
  bench) apt_pkgs+=(fio stress-ng) ;;
  lint) apt_pkgs=() ;;
  *) echo "deps.sh: unknown level '$level' (build, study, test, bench, lint)" >&2; exit 2 ;;
esac

missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    echo "Installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    echo "Installing: ${missing[*]}"
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "Missing Debian packages: ${missing[*]}" >&2
    echo "Install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

# The fio engine (plugins/fio) is built against the source of the installed fio.
if [ "$level" = test ] || [ "$level" = bench ]; then
  "$(dirname "$0")/fio-source.sh"
fi

[ "$level" = build ] && exit 0

# The Python side (hio-study, the benchmarks, the tests, the lint) runs from
# a virtual environment of the checkout's own, .venv, never from the system
# interpreter: the study's package is installed there, editable, so that it
# runs this checkout's code.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
if [ ! -x "$venv/bin/python" ]; then
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv"
    # Debian's python3 makes virtual environments only with python3-venv.
    if [ "$(id -u)" = 0 ]; then
      echo "Installing: python3-venv"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      echo "Installing: python3-venv"
      sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    fi
    python3 -m venv "$venv" || {
      echo "deps.sh: cannot make the virtual environment $venv: install python3-venv (apt-get install -y python3-venv)" >&2
      exit 1
    }
  fi
fi
pip_install() {
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "$@" || {
    echo "Could not install Python packages into $venv: $venv/bin/python -m pip install $*" >&2
    exit 1
  }
}
if [ "$level" != lint ]; then
  "$venv/bin/python" -c 'import matplotlib, jinja2, tqdm, hybridio' 2>/dev/null && [ -x "$venv/bin/hio-study" ] ||
    pip_install -e "$(dirname "$0")/../python"
fi
if [ "$level" = test ]; then
  "$venv/bin/python" -c 'import pytest' 2>/dev/null || pip_install pytest
fi
if [ "$level" = test ] || [ "$level" = lint ]; then
  "$venv/bin/python" -m ruff --version >/dev/null 2>&1 || pip_install ruff
fi
