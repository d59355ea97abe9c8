#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds RocksDB's db_stress from Debian's source package of the installed
# librocksdb-dev, against that installed library: only db_stress_tool/ is
# compiled, with the definitions RocksDB's own CMake gives it under Debian's
# configure switches, so that its classes match the library's. The binary
# and RocksDB's tools/db_crashtest.py end up in OUT (default
# build/crashtest); a build of the same Debian version is kept.
# Usage: scripts/db-stress.sh [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/crashtest}
mkdir -p "$out"
out=$(cd "$out" && pwd)  # the compile commands run from inside it
me=db-stress.sh
version=$(dpkg-query -W -f='${Version}' librocksdb-dev 2>/dev/null || true)
if [ -x "$out/db_stress" ] && [ "$(cat "$out/.debian-version" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
for p in libgflags-dev libsnappy-dev liblz4-dev libzstd-dev libbz2-dev zlib1g-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || {
    echo "$me: Debian's $p is missing (apt-get install -y $p; make deps installs it)" >&2
    exit 1
  }
done
src=$("$root/scripts/debian-source.sh" librocksdb-dev rocksdb)
mkdir -p "$out/cmake" "$out/obj"
# debian/rules' switches; liburing is not among Debian's build dependencies,
# so the library was built without it.
echo "Configuring RocksDB $version's CMake for db_stress's compile flags"
cmake -S "$src" -B "$out/cmake" -DCMAKE_BUILD_TYPE=None -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DWITH_BZ2=ON -DWITH_LZ4=ON -DWITH_ZLIB=ON -DWITH_ZSTD=ON -DWITH_SNAPPY=ON -DROCKSDB_BUILD_SHARED=ON \
  -DWITH_BENCHMARK_TOOLS=ON -DWITH_CORE_TOOLS=ON -DWITH_TOOLS=ON -DWITH_TESTS=OFF -DPORTABLE=ON \
  -DFAIL_ON_WARNINGS=OFF -DWITH_LIBURING=OFF >"$out/cmake.log" 2>&1 || {
  tail -20 "$out/cmake.log" >&2
  echo "$me: RocksDB's CMake configure failed (log: $out/cmake.log)" >&2
  exit 1
}
# One compile command per db_stress source, built at -O2 without warnings
# (they are RocksDB's), run in parallel.
python3 - "$out/cmake/compile_commands.json" "$out/obj" >"$out/compile.sh" <<'PY'
import json, os, shlex, sys
entries, obj = json.load(open(sys.argv[1])), sys.argv[2]
for e in entries:
    if "/db_stress_tool/" not in e["file"]:
        continue
    args = shlex.split(e["command"])
    i = args.index("-o")
    args[i + 1] = os.path.join(obj, os.path.basename(e["file"]) + ".o")
    print(shlex.join(args[:1] + ["-O2", "-w"] + args[1:]))
PY
[ -s "$out/compile.sh" ] || { echo "$me: no db_stress sources in $out/cmake/compile_commands.json" >&2; exit 1; }
echo "Compiling db_stress ($(wc -l <"$out/compile.sh") files)"
(cd "$out/cmake" && xargs -P "$(nproc)" -I{} -d '\n' sh -c '{}' <"$out/compile.sh") >"$out/compile.log" 2>&1 || {
  tail -30 "$out/compile.log" >&2
  echo "$me: compiling db_stress failed (log: $out/compile.log)" >&2
  exit 1
}
g++ -o "$out/db_stress" "$out"/obj/*.o -Wl,--as-needed -lrocksdb -lgflags -lsnappy -llz4 -lzstd -lbz2 -lz -pthread
cp "$src/tools/db_crashtest.py" "$out/db_crashtest.py"
echo "$version" >"$out/.debian-version"
echo "db_stress of RocksDB $version built in $out"
