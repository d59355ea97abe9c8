#!/usr/bin/env bash
# Installs what hybridio needs on Debian 12, or says exactly what is missing.
# Usage: scripts/deps.sh [build|test|bench]   (each includes the previous)
set -euo pipefail
level=${1:-build}

apt_pkgs=(cmake ninja-build g++ pkg-config liburing-dev nlohmann-json3-dev libisal-dev)
case "$level" in
  test) apt_pkgs+=(libgtest-dev fio) ;;
  bench) apt_pkgs+=(libgtest-dev fio stress-ng) ;;
  build) ;;
  *) echo "deps.sh: unknown level '$level' (build, test, bench)" >&2; exit 2 ;;
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

if [ "$level" != build ]; then
  python3 -c 'import pytest' 2>/dev/null || python3 -m pip install -q pytest || {
    echo "Missing Python package pytest: python3 -m pip install pytest" >&2
    exit 1
  }
fi
