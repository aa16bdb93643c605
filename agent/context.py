"""The run context: the live handles a run's nodes need and a checkpoint must not keep.

LangGraph passes it to every node as `runtime.context` (the graph's `context_schema`). What a
step finds or computes goes into the graph state (`agent/state.py`), never here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.errors import StaleTable
from agent.frame import Frame, TableRef, load_frames
from agent.planner import Planner
from agent.retriever import Retriever
from agent.stop import Cancelled
from agent.trace import Trace
from storage.workspace import Workspace


class FrameCache:
    """The frames of a run's tables.

    Calling it with a `TableRef` gives that table's frame, as a plan's forms need
    (`agent.plan.Frames`). Frames outlive the run, in `SHARED_FRAMES`: the next question in
    this process starts with the columns and table facts the last one read.
    """

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._frames: dict[str, Frame] = {}

    def load(self, table_ids: Sequence[str]) -> list[Frame]:
        """The frames of these tables, in order."""
        missing = [t for t in table_ids if t not in self._frames]
        self._frames.update((f.table, f) for f in SHARED_FRAMES.load(self.workspace, missing))
        return [self._frames[t] for t in table_ids if t in self._frames]

    def __call__(self, ref: TableRef) -> Frame:
        [frame] = self.load([ref.id])
        if frame.version != ref.version:
            raise StaleTable(f"{frame.caption} was read again (version {frame.version}) after "
                             f"the plan was made on version {ref.version}; ask again")
        return frame


class SharedFrames:
    """Frames kept across runs in this process, least recently used first out, within a
    budget of cells read into them.

    A frame is found again by its workspace file, table id, version and source file hash: a
    corrected header makes a new version, and a file removed and another of the same name
    added has another hash, so a kept frame never answers for a table that changed. Frames
    are only read outside `agent/frame.py`, which fills their columns as they are asked for;
    the columns are read on the caller's connection.
    """

    def __init__(self, max_cells: int) -> None:
        self.max_cells = max_cells
        self._frames: OrderedDict[tuple[str, str, int, str], Frame] = OrderedDict()
        self._lock = threading.Lock()

    def load(self, workspace: Workspace, table_ids: Sequence[str]) -> list[Frame]:
        if not table_ids:
            return []
        root = workspace.location
        marks = ", ".join("?" * len(table_ids))
        keys = {row[0]: (root, row[0], row[1], row[2]) for row in workspace.db.execute(
            f"SELECT id, version, source FROM catalog WHERE id IN ({marks})", list(table_ids))}
        with self._lock:
            found = {t: self._frames.get(k) for t, k in keys.items()}
        missing = [t for t, f in found.items() if f is None]
        for frame in load_frames(workspace, missing):
            found[frame.table] = frame
        with self._lock:
            for t, frame in found.items():
                if frame is None or keys[t][2] != frame.version:
                    continue
                frame.rebind(workspace.db)
                self._frames[keys[t]] = frame
                self._frames.move_to_end(keys[t])
            self._evict()
        return [f for t in table_ids if (f := found.get(t)) is not None]

    def _evict(self) -> None:
        while len(self._frames) > 1 and sum(f.cells_read for f in self._frames.values()) \
                > self.max_cells:
            self._frames.popitem(last=False)


SHARED_FRAMES = SharedFrames(max_cells=2_000_000)
"""Two million values (a few hundred MB) is the largest file a workspace accepts by default
(TABLELENS_MAX_CELLS): its table stays whole; more tables than that share the budget."""


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
    text_sources: list[str] | None = None
    """Besides the run's tables' files, the files (sha256) whose text it may quote."""
    frames: FrameCache = field(init=False)
    citations: dict[Any, Any] = field(init=False, default_factory=dict)
    """The run's citations by what they cite: tree_navigate, validate and answer cite the
    same result, and building 100,000 evidence items took a second each time."""

    def __post_init__(self) -> None:
        self.frames = FrameCache(self.workspace)

    def check(self) -> None:
        """Raise Cancelled when the user has asked to stop."""
        if self.cancel.is_set():
            raise Cancelled()
