"""Stopping a run inside a step, not only between steps.

A node of the graph runs with its run's cancel flag in a context variable (`watching`), so
the long loops below it (reading a big column, computing a table's facts, matching words
against every label) call `check()` and end within a fraction of a second of Stop, without
the flag being passed through every function. Outside a run, `check()` does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_FLAG: ContextVar[threading.Event | None] = ContextVar("tablelens_stop_flag", default=None)


class Cancelled(Exception):
    """The user stopped the run."""


@contextmanager
def watching(flag: threading.Event) -> Iterator[None]:
    """Let `check()` see this run's cancel flag for the duration of the block."""
    token = _FLAG.set(flag)
    try:
        yield
    finally:
        _FLAG.reset(token)


def check() -> None:
    """Raise Cancelled when the run this code works for has been stopped."""
    flag = _FLAG.get()
    if flag is not None and flag.is_set():
        raise Cancelled()
