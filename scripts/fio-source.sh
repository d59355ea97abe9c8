#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches the source of the installed fio (Debian's source package of the
# same version) into .deps/fio-VERSION and configures it, so that the fio
# ioengine (plugins/fio) is built against the headers of the fio that will
# load it. .deps/fio points at it. Usage: scripts/fio-source.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps=$root/.deps

version=$(dpkg-query -W -f='${Version}' fio 2>/dev/null || true)
if [ -z "$version" ]; then
  echo "fio-source.sh: Debian's fio is not installed (apt-get install -y fio)" >&2
  exit 1
fi
upstream=${version%-*}
upstream=${upstream#*:}
dir=$deps/fio-$upstream
if [ -f "$dir/config-host.h" ] && [ "$(cat "$dir/.debian-version" 2>/dev/null)" = "$version" ]; then
  ln -sfn "fio-$upstream" "$deps/fio"
  exit 0
fi

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else
    echo "fio-source.sh: needs root to run: $*" >&2
    exit 1
  fi
}

# apt-get source needs a deb-src entry for the suites the binary came from.
if ! apt-get source --print-uris -qq "fio=$version" >/dev/null 2>&1; then
  src=/etc/apt/sources.list.d/hybridio-deb-src.sources
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    echo "Adding the deb-src entries of /etc/apt/sources.list.d/debian.sources to $src"
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$deps.sources.tmp"
  elif [ -f /etc/apt/sources.list ]; then
    echo "Adding the deb-src lines of /etc/apt/sources.list to ${src%.sources}.list"
    src=${src%.sources}.list
    sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$deps.sources.tmp"
  else
    echo "fio-source.sh: no apt source list to derive a deb-src entry from" >&2
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
echo "Fetching the source of fio $version (apt-get source)"
(cd "$tmp" && apt-get source -qq "fio=$version" >/dev/null 2>"$tmp/log") || {
  cat "$tmp/log" >&2
  echo "fio-source.sh: apt-get source fio=$version failed" >&2
  exit 1
}
rm -rf "$dir"
mv "$tmp/fio-$upstream" "$dir"
# Debian's own configure line, less what only the fio binary links
# (gfio, libnbd): the engine ABI does not depend on them.
(cd "$dir" && ./configure --disable-native --prefix=/usr >"$dir/.configure.log" 2>&1) || {
  tail -20 "$dir/.configure.log" >&2
  echo "fio-source.sh: fio's configure failed (log: $dir/.configure.log)" >&2
  exit 1
}
echo "$version" >"$dir/.debian-version"
ln -sfn "fio-$upstream" "$deps/fio"
echo "fio $upstream source ready in $dir"
