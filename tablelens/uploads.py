"""Run one upload on a worker thread while the app's script thread shows its progress.

Streamlit reruns the script when any widget is clicked, and raises its rerun (or stop)
exception at the script's next `st.*` call. An upload run in the script thread would be cut
off at whatever progress report it made, deep inside storing; here the worker does the upload
and the script thread only draws the bar, every `POLL_S`. When that drawing raises (a click on
"Stop upload", or anywhere else, or the session ending), the upload's cancel flag is set, the
worker ends through ingest's own typed stop (`IngestStopped`: the transaction rolled back, no
file copy left) within a fraction of a second, `on_interrupt` records how it ended, and the
exception goes on to Streamlit. So the rollback never depends on where Streamlit's exception
happened to land, and the stop latency does not depend on how often ingest reports progress.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from ingest.grid import Progress

T = TypeVar("T")

POLL_S = 0.05
"""How often the script thread redraws the bar, and so how soon a click reaches the upload."""


class _Outcome(Generic[T]):
    """What the worker left: its result or its exception, and its last progress report."""

    def __init__(self) -> None:
        self.result: T | None = None
        self.error: BaseException | None = None
        self.progress: tuple[float, str] = (0.0, "reading")


def run_upload(work: Callable[[threading.Event, Progress], T],
               show: Callable[[float, str], None], *,
               on_interrupt: Callable[[T | None, BaseException | None], None],
               poll_s: float = POLL_S) -> T:
    """Run `work(cancel, progress)` on a worker thread and return its result (or raise its
    exception), calling `show(fraction, stage)` from this thread meanwhile.

    If `show` raises, the upload is cancelled and waited for, `on_interrupt(result, error)`
    says how the worker ended (an `IngestStopped` error, or a result when it finished first),
    and `show`'s exception is re-raised.
    """
    cancel = threading.Event()
    outcome: _Outcome[T] = _Outcome()

    def progress(fraction: float, stage: str) -> None:
        outcome.progress = (fraction, stage)  # one assignment: no lock needed to read it

    def target() -> None:
        try:
            outcome.result = work(cancel, progress)
        except BaseException as exc:  # handed to the script thread, which raises it
            outcome.error = exc

    worker = threading.Thread(target=target, name="tablelens-upload", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            show(*outcome.progress)
            worker.join(poll_s)
    except BaseException:
        cancel.set()
        worker.join()
        on_interrupt(outcome.result, outcome.error)
        raise
    if outcome.error is not None:
        raise outcome.error
    return outcome.result  # type: ignore[return-value]  # set when no error was
