"""The readers: every supported file into grids of cells (and documents' text).

openpyxl imports numpy when it is installed (12 MB), only to accept its scalars as the values
of cells it writes, which this app never gives it (tablelens/exports.py writes Python values),
and Pillow (2.5 MB), only to read or write a workbook's pictures, which this app does neither
of (the readers skip drawings; the exports hold none): imported here first, without both.
"""

from ingest.lean_imports import import_without

import_without("openpyxl", "numpy", "PIL")
