"""Ready new tables for questions right after an upload: the facts of a whole table that the
rules consult (`agent/table_profile.py`) are computed and stored while the upload's progress
shows, so the first question costs what every later one does."""

from __future__ import annotations

from collections.abc import Sequence

from agent.frame import load_frames
from agent.solver import prepare_table
from storage.workspace import Workspace


def prepare_tables(workspace: Workspace, table_ids: Sequence[str]) -> None:
    """Compute and store the facts of these tables. Their frames are let go afterwards: the
    facts are in the workspace, and a question reads only the columns it names."""
    for frame in load_frames(workspace, list(table_ids)):
        prepare_table(frame)
