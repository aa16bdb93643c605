"""Pause Python's cyclic garbage collector while building millions of small objects.

Reading a sheet creates one Cell per filled cell; each allocation burst triggers full GC passes
over every object already built, which made reading and analysing a 1M-cell workbook about twice
as slow. Our objects hold no reference cycles, so reference counting frees them anyway.

A block that ends with an exception (a file refused part-way, an upload stopped) leaves what
it built alive in the traceback's frames until the error is handled, all of it still in the
youngest generation: the first collection once the collector is back on would walk it before
the error reaches anyone (0.45 s at 300k cells, most of a Stop's latency). So on that way out
the objects are frozen (`gc.freeze`: left to reference counting, which frees them when the
error is dropped), and unfrozen at the next pause.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_frozen = False
"""Whether this module froze the collector's objects (and should unfreeze them)."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (re-entrant; restores the previous state)."""
    global _frozen
    was_enabled = gc.isenabled()
    gc.disable()
    if _frozen:  # the error that froze them has long been handled
        gc.unfreeze()
        _frozen = False
    try:
        yield
    except BaseException:
        if was_enabled:
            gc.freeze()
            _frozen = True
        raise
    finally:
        if was_enabled:
            gc.enable()
