"""Pause Python's cyclic garbage collector while building millions of small objects.

Reading a sheet creates one Cell per filled cell; each allocation burst triggers full GC passes
over every object already built, which made reading and analysing a 1M-cell workbook about twice
as slow. Our objects hold no reference cycles, so reference counting frees them anyway.

The pause is shared by every thread: an upload and a question running at once each pause
it, and it resumes when the last of them ends (the collector's switch is global, so a
pause that restored its own "before" state would turn it back on under the other one).

A block that ends with an exception (a file refused part-way, an upload stopped) leaves what
it built alive in the traceback's frames until the error is handled, all of it still in the
youngest generation: the first collection once the collector is back on would walk it before
the error reaches anyone (0.45 s at 300k cells, most of a Stop's latency). So on that way out
the objects are frozen (`gc.freeze`: left to reference counting, which frees them when the
error is dropped), and unfrozen at the next pause, since a traceback's own cycles need the
collector.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_resume = False
"""Whether the collector was on when the first of the current pauses began."""
_frozen = False
"""Whether a failed block froze the collector's objects (the next pause unfreezes them)."""


@contextmanager
def gc_paused(on_resume: Callable[[], None] | None = None) -> Iterator[None]:
    """Disable the cyclic collector for the block (re-entrant, across threads too).
    `on_resume` runs, with the collector still off, when this block is the last to end."""
    global _pauses, _resume, _frozen
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
            if _frozen:  # the error that froze them has long been handled
                gc.unfreeze()
                _frozen = False
        _pauses += 1
    failed = False
    try:
        yield
    except BaseException:
        failed = True
        raise
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0:
                if failed and _resume:
                    gc.freeze()
                    _frozen = True
                elif on_resume is not None:
                    on_resume()
                if _resume:
                    gc.enable()
