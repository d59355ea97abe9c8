# SPDX-License-Identifier: MIT
"""What the reports are made with, for any study: figures saved as PNG
(figures) and self-contained HTML pages from the package's templates (html)."""
