# SPDX-License-Identifier: MIT
"""The RocksDB study (hio-study rocksdb, python3 -m hybridio.rocksdb): its
experiments (experiments), db_bench (dbbench), the page-cache limit
(pagecache), the runner (study), the claims (findings) and the report
(report)."""
