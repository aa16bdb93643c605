"""Import a library without the optional packages it imports for what this app never asks of
it: pandas and numpy are a 100k-cell upload's largest imports, and an upload uses neither."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


def import_without(module: str, *optional: str) -> ModuleType:
    """Import `module` with those of the `optional` packages not imported yet hidden from it
    (it finds them not installed), unless `module` is imported already. Those a process has
    imported already stay as they are (in the app, the agent has numpy before either
    library is imported; pandas comes later, with the exports)."""
    if module in sys.modules:
        return sys.modules[module]
    hidden = [name for name in optional if name not in sys.modules]
    sys.modules.update(dict.fromkeys(hidden))  # None: `import pandas` raises ImportError
    try:
        return importlib.import_module(module)
    finally:
        for name in hidden:
            del sys.modules[name]
