#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs every test: unit tests, hio-sim's models and the RocksDB
# plugin's tests (GoogleTest), the same under ASan+UBSan, the threaded suite
# under TSan, and hio-bench's and hio-sim's command-line tests, the study's
# tests and the plugin under db_bench and ldb, and the fio engine under fio
# (pytest), the Debian packages (make deb, lintian, unpacked and used), and
# RocksDB's crash test through the plugin (its short form).
# Stops at the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
py=.venv/bin/python  # scripts/deps.sh test makes it

step() { printf '\n=== %s\n' "$*"; }

build() {  # dir, extra cmake flags... [-- targets...]
  local dir=$1 flags=() targets=(); shift
  while (($#)) && [ "$1" != -- ]; do flags+=("$1"); shift; done
  (($#)) && shift && targets=("$@")
  cmake -S . -B "$dir" -G Ninja -DHIO_WERROR=ON "${flags[@]}" >/dev/null
  ninja -C "$dir" -j "$jobs" "${targets[@]}"
}

step "lint"
scripts/lint.sh

step "release build + unit tests"
build build
(cd build && ctest --output-on-failure -j "$jobs")

step "ASan+UBSan build + unit tests"
build build-asan -DCMAKE_BUILD_TYPE=Debug -DHIO_SANITIZE=address,undefined
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build-asan/tests/library/hio-library-tests
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build-asan/tests/hio-bench/hio-bench-tests
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build-asan/tests/rocksdb/hio-rocksdb-tests
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 build-asan/tests/hio-sim/hio-sim-tests
# The fio engine inside Debian's fio, with the sanitizers' runtimes preloaded
# (fio's own allocations are not ours to check for leaks).
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  HIO_BUILD=build-asan "$py" -m pytest -q tests/fio

step "TSan build + threaded tests"
build build-tsan -DCMAKE_BUILD_TYPE=Debug -DHIO_SANITIZE=thread -- hio-library-tests
TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/library/hio-library-tests --gtest_filter='Threads*'

step "hio-bench command-line tests, hio-sim's commands, hio-study tests, RocksDB plugin end to end, fio engine, Debian packages (pytest)"
# PYTHONPATH: test this checkout's study package, wherever one is installed.
# tests/packaging runs make deb (build-deb/); HIO_SKIP_DEB=1 skips it.
HIO_BENCH=build/hio-bench HIO_BUILD=build PYTHONPATH="$PWD/python" "$py" -m pytest -q tests/hio-bench tests/bench tests/hio-sim tests/study tests/rocksdb tests/fio tests/packaging

step "RocksDB's crash test through the plugin: db_crashtest.py blackbox, 60 s per wait strategy"
# The short form; `make crashtest` runs blackbox and whitebox, on the disk and
# under emu:pcie4, beside the Posix control (docs/rocksdb.md).
scripts/db-stress.sh build/crashtest
"$py" tests/rocksdb/crashtest.py --build build --modes blackbox --targets disk --no-control --duration 60 --interval 15
