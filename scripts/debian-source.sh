#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches Debian's source package of an installed binary package, of the
# binary's own version, into .deps/SOURCE-UPSTREAM (kept while its
# .debian-version matches). Adds a deb-src entry for the suites the binary
# came from when apt has none. Prints the directory on stdout.
# Usage: scripts/debian-source.sh BINARY-PACKAGE SOURCE-PACKAGE
set -euo pipefail
binary=${1:?usage: debian-source.sh BINARY-PACKAGE SOURCE-PACKAGE}
source=${2:?usage: debian-source.sh BINARY-PACKAGE SOURCE-PACKAGE}
root=$(cd "$(dirname "$0")/.." && pwd)
deps=$root/.deps
me=debian-source.sh

version=$(dpkg-query -W -f='${Version}' "$binary" 2>/dev/null || true)
if [ -z "$version" ]; then
  echo "$me: Debian's $binary is not installed (apt-get install -y $binary)" >&2
  exit 1
fi
upstream=${version%-*}
upstream=${upstream#*:}
dir=$deps/$source-$upstream
if [ -d "$dir" ] && [ "$(cat "$dir/.debian-version" 2>/dev/null)" = "$version" ]; then
  echo "$dir"
  exit 0
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else
    echo "$me: needs root to run: $*" >&2
    exit 1
  fi
}

if ! apt-get source --print-uris -qq "$source=$version" >/dev/null 2>&1; then
  src=/etc/apt/sources.list.d/hybridio-deb-src.sources
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    echo "Adding the deb-src entries of /etc/apt/sources.list.d/debian.sources to $src" >&2
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$deps.sources.tmp"
  elif [ -f /etc/apt/sources.list ]; then
    src=${src%.sources}.list
    echo "Adding the deb-src lines of /etc/apt/sources.list to $src" >&2
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$deps.sources.tmp"
  else
    echo "$me: no apt source list to derive a deb-src entry from" >&2
    exit 1
  fi
  as_root install -m 644 "$deps.sources.tmp" "$src"
  rm -f "$deps.sources.tmp"
  as_root apt-get update -qq
fi
command -v dpkg-source >/dev/null || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev >/dev/null

mkdir -p "$deps"
tmp=$(mktemp -d "$deps/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "Fetching the source of $source $version (apt-get source)" >&2
(cd "$tmp" && apt-get source -qq "$source=$version" >/dev/null 2>"$tmp/log") || {
  cat "$tmp/log" >&2
  echo "$me: apt-get source $source=$version failed" >&2
  exit 1
}
rm -rf "$dir"
mv "$tmp/$source-$upstream" "$dir"
echo "$version" >"$dir/.debian-version"
echo "$dir"
