# SPDX-License-Identifier: MIT
"""hio-study: the contention study (hybridio.study), or, with `rocksdb`
first, the RocksDB study (hybridio.rocksdb)."""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["rocksdb"]:
        from .rocksdb.study import main as rocksdb_main

        return rocksdb_main(argv[1:])
    from .study.cli import main as study_main

    return study_main(argv)
