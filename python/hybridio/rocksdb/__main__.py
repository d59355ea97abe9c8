# SPDX-License-Identifier: MIT
import sys

from .study import main

sys.exit(main())
