"""Ending an ingest part-way: the user's Stop, or the ingest time limit.

`Workspace.add_file` reads and stores a file under `watching(Watch(...))`; the long Python
loops of the readers, the structure analysis and the writers call `check()` every few hundred
rows or cells (each stretch between two checks stays well under the 300 ms Stop goal), which
raises `IngestStopped` or `IngestTimeLimit`. The caller's transaction then rolls back, so
nothing of the file is stored. The watch lives in a context variable, as the question
engine's cancel flag does (`agent/stop.py`), so that no reader or writer takes it as a
parameter; outside a watch (a reader used alone, `tablelens inspect` of a path) `check()`
costs one lookup and does nothing.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from ingest.errors import IngestStopped, IngestTimeLimit

T = TypeVar("T")


class Watch:
    """What ends one file's ingest early: a cancel flag, and a time limit counted from now."""

    __slots__ = ("cancel", "deadline", "limit_s", "name")

    def __init__(self, name: str, *, cancel: threading.Event | None = None,
                 limit_s: float | None = None) -> None:
        self.name = name
        self.cancel = cancel
        self.limit_s = limit_s
        self.deadline = None if limit_s is None else time.monotonic() + limit_s

    def check(self) -> None:
        """Raise `IngestStopped` once the flag is set, `IngestTimeLimit` past the deadline."""
        if self.cancel is not None and self.cancel.is_set():
            raise IngestStopped(self.name)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise IngestTimeLimit(self.name, self.limit_s or 0)

    def ended(self) -> bool:
        """Whether `check()` would raise (for callbacks that must not raise, such as
        SQLite's progress handler)."""
        return ((self.cancel is not None and self.cancel.is_set())
                or (self.deadline is not None and time.monotonic() > self.deadline))

    def as_flag(self) -> threading.Event:
        """An event that reads as set once this watch has ended: for code that takes a
        cancel flag (the question engine's loops, `agent/stop.py`)."""
        return _WatchFlag(self)

    def remaining_s(self) -> float | None:
        """Seconds left before the time limit (None: no limit)."""
        return None if self.deadline is None else max(self.deadline - time.monotonic(), 0.0)


class _WatchFlag(threading.Event):
    """A cancel flag that is set when its watch ends (Stop, or past the time limit)."""

    def __init__(self, watch: Watch) -> None:
        super().__init__()
        self._watch = watch

    def is_set(self) -> bool:
        return self._watch.ended() or super().is_set()


_WATCH: ContextVar[Watch | None] = ContextVar("tablelens_ingest_watch", default=None)


@contextmanager
def watching(watch: Watch) -> Iterator[Watch]:
    """Let `check()` see this watch for the duration of the block."""
    token = _WATCH.set(watch)
    try:
        yield watch
    finally:
        _WATCH.reset(token)


def check() -> None:
    """Raise when the ingest this code works for was stopped or ran out of time."""
    watch = _WATCH.get()
    if watch is not None:
        watch.check()


def current() -> Watch | None:
    """The watch of the ingest this code works for, if any."""
    return _WATCH.get()


def checked(items: Iterable[T], every: int = 1024) -> Iterator[T]:
    """Yield the items, checking for Stop every `every` of them (rows fed to executemany)."""
    for n, item in enumerate(items):
        if not n % every:
            check()
        yield item
