"""A run's event trace: numbers, times and hands on each StepEvent, and keeps them for the
answer's `steps`.

Events go to a plain callback (`sink`), called on the thread that runs the node, not through
LangGraph's "custom" stream: that mode makes LangGraph run every node on a fresh thread pool
with a waiter task beside it, which cost about 3 ms of a 15 ms warm question here, and
converted every event to a dict and back."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent.events import StepError, StepEvent


@dataclass
class Trace:
    """The events of one run, in order."""

    run_id: str
    sink: Callable[[StepEvent], None] | None = None
    """Called with each event as it is emitted (the run's stream)."""
    events: list[StepEvent] = field(default_factory=list)
    _started: dict[str, float] = field(default_factory=dict)

    def emit(self, node: str, phase: str, title: str, **fields: Any) -> StepEvent:
        """Record an event and send it to the run's stream."""
        now = time.perf_counter()
        if phase == "start":
            self._started[node] = now
        elapsed = int((now - self._started.get(node, now)) * 1000)
        event = StepEvent(run_id=self.run_id, seq=len(self.events), node=node, phase=phase,
                          title=title, elapsed_ms=elapsed, **fields)
        self.events.append(event)
        if self.sink is not None:
            self.sink(event)
        return event

    def error(self, node: str, title: str, kind: str, message: str) -> StepEvent:
        return self.emit(node, "error", title, error=StepError(kind=kind, message=message))

    def end_events(self) -> list[StepEvent]:
        """The end (and error/cancelled) events: the answer's `steps`."""
        return [e for e in self.events if e.phase in ("end", "error", "cancelled")]

    @property
    def last_node(self) -> str:
        """The node that emitted last (where a cancelled run stopped)."""
        return self.events[-1].node if self.events else "decompose"
