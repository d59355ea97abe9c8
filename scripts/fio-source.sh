#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches the source of the installed fio (Debian's source package of the
# same version) into .deps/fio-VERSION and configures it, so that the fio
# ioengine (plugins/fio) is built against the headers of the fio that will
# load it. .deps/fio points at it. Usage: scripts/fio-source.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$root/scripts/debian-source.sh" fio fio)
if [ ! -f "$dir/config-host.h" ]; then
  # Debian's own configure line, less what only the fio binary links
  # (gfio, libnbd): the engine ABI does not depend on them.
  (cd "$dir" && ./configure --disable-native --prefix=/usr >"$dir/.configure.log" 2>&1) || {
    tail -20 "$dir/.configure.log" >&2
    echo "fio-source.sh: fio's configure failed (log: $dir/.configure.log)" >&2
    exit 1
  }
  echo "fio source ready in $dir"
fi
ln -sfn "$(basename "$dir")" "$root/.deps/fio"
