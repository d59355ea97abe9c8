#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that everything that states hybridio's version states the one in
# VERSION: hio_version() (through hio-bench --version), the .pc file CMake
# generated, the shared library's file name and SONAME, and the Python
# package (whose version pip takes from hybridio.__version__).
# Usage: tests/abi/check_version.sh VERSION_FILE LIBRARY HIO_BENCH BUILD_DIR PYTHON_DIR
set -eu
version=$(head -n1 "$1") lib=$2 bench=$3 build=$4 py=$5
fail=0
check() {  # what, what it says, what it should say
  if [ "$2" = "$3" ]; then echo "check_version: $1: $2"; else
    echo "check_version: $1 says '$2', VERSION ($version) means '$3'" >&2; fail=1; fi
}
check "hio_version()" "$("$bench" --version)" "hio-bench $version"
check "hybridio.pc" "$(PKG_CONFIG_PATH="$build" pkg-config --modversion hybridio)" "$version"
check "library file" "$(basename "$(readlink -f "$lib")")" "libhybridio.so.$version"
check "SONAME" "$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')" "libhybridio.so.${version%%.*}"
check "Python package" "$(PYTHONPATH="$py" python3 -c 'import hybridio; print(hybridio.__version__)')" "$version"
exit $fail
