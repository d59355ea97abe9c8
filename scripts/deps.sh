#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what hybridio needs on Debian 12, or says exactly what is missing.
# Usage: scripts/deps.sh [--check] build|study|test|bench|lint|deb|all
# --check installs nothing: it names what is missing and exits 1.
set -euo pipefail
check=0
if [ "${1:-}" = --check ]; then
  check=1
  shift
fi
level=${1:-build}

apt_pkgs=(cmake ninja-build g++ pkg-config liburing-dev nlohmann-json3-dev librocksdb-dev libcli11-dev zlib1g-dev)
lint_pkgs=(clang-format clang-tidy)
# db_stress's build (scripts/db-stress.sh) links what librocksdb was built with.
crashtest_pkgs=(libgflags-dev libsnappy-dev liblz4-dev libzstd-dev libbz2-dev)
# make deb: CPack's dpkg-shlibdeps (dpkg-dev) and file, lintian to check the
# packages; fio, whose source the packaged fio engine is built against.
deb_pkgs=(dpkg-dev file lintian fio)
case "$level" in
  build) ;;
  study) apt_pkgs+=(stress-ng rocksdb-tools) ;;
  test | all) apt_pkgs+=(libgtest-dev fio strace stress-ng chromium rocksdb-tools groff-base "${crashtest_pkgs[@]}" "${lint_pkgs[@]}" "${deb_pkgs[@]}") ;;
  bench) apt_pkgs+=(fio stress-ng valgrind linux-perf rocksdb-tools) ;;
  lint) apt_pkgs=("${lint_pkgs[@]}") ;;
  deb) apt_pkgs+=("${deb_pkgs[@]}") ;;
  *) echo "deps.sh: unknown level '$level' (build, study, test, bench, lint, deb, all)" >&2; exit 2 ;;
esac
[ "$level" = all ] && apt_pkgs+=(valgrind linux-perf) && level=test

missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if ((check)); then
    echo "Missing Debian packages: ${missing[*]}" >&2
    echo "Install them with: make deps (or sudo apt-get install -y ${missing[*]})" >&2
    exit 1
  elif [ "$(id -u)" = 0 ]; then
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

# The fio engine (plugins/fio) is built against the source of the installed
# fio; the crash test's db_stress from the source of the installed RocksDB.
if { [ "$level" = test ] || [ "$level" = bench ] || [ "$level" = deb ]; } && ((!check)); then
  "$(dirname "$0")/fio-source.sh"
fi
if [ "$level" = test ] && ((!check)); then
  "$(dirname "$0")/debian-source.sh" librocksdb-dev rocksdb >/dev/null
fi

[ "$level" = build ] || [ "$level" = deb ] && exit 0

# The Python side (hio-study, the benchmarks, the tests, the lint) runs from
# a virtual environment of the checkout's own, .venv, never from the system
# interpreter: the study's package is installed there, editable, so that it
# runs this checkout's code.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv"
if ((check)); then
  "$venv/bin/python" -c 'import matplotlib, jinja2, scipy, tqdm, hybridio' 2>/dev/null || {
    echo "The Python side is not set up in $venv: make deps" >&2
    exit 1
  }
  exit 0
fi
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
  "$venv/bin/python" -c 'import matplotlib, jinja2, scipy, tqdm, hybridio' 2>/dev/null && [ -x "$venv/bin/hio-study" ] ||
    pip_install -e "$(dirname "$0")/../python"
fi
if [ "$level" = test ]; then
  "$venv/bin/python" -c 'import pytest' 2>/dev/null || pip_install pytest
fi
if [ "$level" = test ] || [ "$level" = lint ]; then
  "$venv/bin/python" -m ruff --version >/dev/null 2>&1 || pip_install ruff
  "$venv/bin/python" -m lizard --version >/dev/null 2>&1 || pip_install 'lizard>=1.17'
fi
