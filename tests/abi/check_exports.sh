#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks that a libhybridio.so exports exactly the symbols listed in a file
# (one name@@VERSION-NODE a line, sorted, with the nodes themselves): an
# export added, lost or moved to another node is an ABI change, and the list
# is where it is made on purpose.
# Usage: tests/abi/check_exports.sh LIBRARY LIST
set -eu
lib=$1 list=$2
got=$(nm -D --defined-only --format=posix "$lib" | awk '{print $1}' | sort)
if ! diff=$(printf '%s\n' "$got" | diff -u "$list" -); then
  echo "check_exports: $lib exports differ from $list (+ exported but not listed, - listed but not exported):" >&2
  printf '%s\n' "$diff" | sed -n '3,$p' | grep '^[-+]' >&2
  exit 1
fi
echo "check_exports: $lib exports the $(printf '%s\n' "$got" | wc -l) symbols of $list"
