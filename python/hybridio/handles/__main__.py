# SPDX-License-Identifier: MIT
import sys

from .runner import main

sys.exit(main())
