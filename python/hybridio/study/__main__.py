# SPDX-License-Identifier: MIT
import sys

# python3 -m hybridio.study is hio-study, `rocksdb` first included: the entry
# point, not a module the study imports.
from ..cli import main

sys.exit(main())
