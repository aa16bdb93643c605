"""Pause Python's cyclic garbage collector while building millions of small objects.

Reading a sheet creates one Cell per filled cell; each allocation burst triggers full GC passes
over every object already built, which made reading and analysing a 1M-cell workbook about twice
as slow. Our objects hold no reference cycles, so reference counting frees them anyway.

The pause is shared by every thread: an upload and a question running at once each pause
it, and it resumes when the last of them ends (the collector's switch is global, so a
pause that restored its own "before" state would turn it back on under the other one).
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


@contextmanager
def gc_paused(on_resume: Callable[[], None] | None = None) -> Iterator[None]:
    """Disable the cyclic collector for the block (re-entrant, across threads too).
    `on_resume` runs, with the collector still off, when this block is the last to end."""
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0:
                if on_resume is not None:
                    on_resume()
                if _resume:
                    gc.enable()
