"""The workspace: a file's grids, cells, views and search index in SQLite.

sqlite-utils imports pandas and numpy when they are installed (90 MB, most of a 100k-cell
upload's peak), only to know the SQLite type of their scalars in `insert`, which this app never
passes it. Importing it here, first, with both hidden from it keeps them out of a process that
needs neither (an upload); whoever needs them still imports them.
"""

import sys

if "sqlite_utils" not in sys.modules:
    _hidden = {name: sys.modules.get(name) for name in ("pandas", "numpy")}
    sys.modules.update(dict.fromkeys(_hidden))  # None: `import pandas` raises ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for _name, _module in _hidden.items():
            if _module is None:
                del sys.modules[_name]
            else:
                sys.modules[_name] = _module
