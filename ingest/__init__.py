"""The readers: every supported file into grids of cells (and documents' text).

openpyxl imports numpy when it is installed (12 MB), only to accept its scalars as the values
of cells it writes, which this app never gives it (tablelens/exports.py writes Python values):
imported here first, without it.
"""

from ingest.lean_imports import import_without

import_without("openpyxl", "numpy")
