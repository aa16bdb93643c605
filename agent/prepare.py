"""Ready new tables for questions right after an upload: the facts of a whole table that the
rules consult (`agent/table_profile.py`) are computed and stored while the upload's progress
shows, so the first question costs what every later one does."""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import BinaryIO

from agent import stop
from agent.frame import load_frames
from agent.solver import prepare_table
from ingest import cancel as ingest_cancel
from ingest.grid import Progress, no_progress
from ingest.limits import DEFAULT_LIMITS, Limits
from storage.records import SourceInfo
from storage.workspace import Workspace


def prepare_tables(workspace: Workspace, table_ids: Sequence[str]) -> None:
    """Compute and store the facts of these tables. Their frames are let go afterwards: the
    facts are in the workspace, and a question reads only the columns it names."""
    for frame in load_frames(workspace, list(table_ids)):
        prepare_table(frame)


def add_prepared(workspace: Workspace, src: str | os.PathLike[str] | BinaryIO,
                 name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
                 progress: Progress = no_progress, cancel: threading.Event | None = None
                 ) -> tuple[SourceInfo, bool]:
    """Add a file and ready its tables for questions as one upload; return its entry and
    whether it is new (a file already there is neither stored nor readied again).

    The facts are computed inside the file's transaction (`Workspace.add_file`'s `ready`),
    so Stop (`cancel`) or the ingest time limit while they are computed ends the upload with
    `IngestStopped` or `IngestTimeLimit` and nothing stored, as it does while reading.
    """
    known = {s.sha256 for s in workspace.sources()}
    info = workspace.add_file(src, name, limits=limits, progress=progress, cancel=cancel,
                              ready=lambda table_ids: _ready(workspace, table_ids))
    return info, info.sha256 not in known


def _ready(workspace: Workspace, table_ids: list[str]) -> None:
    """Prepare the tables under the ingest's watch: the engine's loops check `agent.stop`'s
    flag, which the watch sets once Stop is pressed or the time is up."""
    watch = ingest_cancel.current()
    if watch is None:
        prepare_tables(workspace, table_ids)
        return
    try:
        with stop.watching(watch.as_flag()):
            prepare_tables(workspace, table_ids)
    except stop.Cancelled:
        watch.check()  # the ingest's own error: IngestStopped or IngestTimeLimit
        raise
