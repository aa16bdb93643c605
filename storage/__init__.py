"""The workspace: a file's grids, cells, views and search index in SQLite.

sqlite-utils imports pandas and numpy when they are installed (90 MB), only to know the SQLite
type of their scalars in `insert`, which this app never passes it: imported here first, without
them.
"""

from ingest.lean_imports import import_without

import_without("sqlite_utils", "pandas", "numpy")
