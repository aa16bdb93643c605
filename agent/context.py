"""The run context: the live handles a run's nodes need and a checkpoint must not keep.

LangGraph passes it to every node as `runtime.context` (the graph's `context_schema`). What a
step finds or computes goes into the graph state (`agent/state.py`), never here.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.errors import StaleTable
from agent.frame import Frame, TableRef, load_frames
from agent.planner import Planner
from agent.retriever import Retriever
from agent.trace import Trace
from storage.workspace import Workspace


class Cancelled(Exception):
    """The user stopped the run."""


class FrameCache:
    """The frames of a run's tables, each loaded from the workspace once.

    Calling it with a `TableRef` gives that table's frame, as a plan's forms need
    (`agent.plan.Frames`).
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._frames: dict[str, Frame] = {}

    def load(self, table_ids: Sequence[str]) -> list[Frame]:
        """The frames of these tables, in order."""
        missing = [t for t in table_ids if t not in self._frames]
        for frame in load_frames(self.workspace, missing):
            self._frames[frame.table] = frame
        return [self._frames[t] for t in table_ids if t in self._frames]

    def __call__(self, ref: TableRef) -> Frame:
        [frame] = self.load([ref.id])
        if frame.version != ref.version:
            raise StaleTable(f"{frame.caption} was read again (version {frame.version}) after "
                             f"the plan was made on version {ref.version}; ask again")
        return frame


@dataclass
class RunContext:
    """What one run's nodes use besides the state: the workspace and its frames, the cancel
    flag, the event trace, and the retriever and planner the run was given."""

    workspace: Workspace
    trace: Trace
    retriever: Retriever
    planner: Planner
    cancel: threading.Event = field(default_factory=threading.Event)
    model_name: str | None = None
    """The chat model the run may call (`provider:model`); None offline."""
    frames: FrameCache = field(init=False)

    def __post_init__(self) -> None:
        self.frames = FrameCache(self.workspace)

    def check(self) -> None:
        """Raise Cancelled when the user has asked to stop."""
        if self.cancel.is_set():
            raise Cancelled()
