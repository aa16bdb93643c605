"""The workspace: a file's grids, cells, views and search index in SQLite.

sqlite-utils imports pandas and numpy when they are installed (90 MB, most of a 100k-cell
upload's peak), only to know the SQLite type of their scalars in `insert`, which this app never
passes it. Imported here, first, with those of the two not yet imported hidden from it, it
keeps them out of a process that needs neither (an upload); one that has them already (the
app, through Streamlit) is left as it is, so no other thread can find them hidden.
"""

import sys

if "sqlite_utils" not in sys.modules:
    _hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    sys.modules.update(dict.fromkeys(_hidden))  # None: `import pandas` raises ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for _name in _hidden:
            del sys.modules[_name]
