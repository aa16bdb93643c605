"""Run a question through the graph: stream its step events, return its Answer."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from langchain_core.messages import HumanMessage

from agent.context import Cancelled, RunContext
from agent.events import Answer, StepError, StepEvent
from agent.graph import build_graph
from storage.workspace import Workspace


@lru_cache(maxsize=1)
def default_graph():
    """The compiled graph without a checkpointer (shared: it holds no per-run data)."""
    return build_graph()


def new_run_id() -> str:
    return secrets.token_hex(6)


def stream_question(workspace: Workspace, question: str, *, run_id: str | None = None,
                    table_ids: list[str] | None = None, paragraphs: list[str] | None = None,
                    cancel: threading.Event | None = None, graph: Any = None,
                    thread_id: str | None = None) -> Iterator[StepEvent | Answer]:
    """Yield each StepEvent as its node emits it, then the Answer (last)."""
    return _stream(workspace, question, run_id, table_ids, paragraphs, cancel, graph, thread_id)


def _stream(workspace: Workspace, question: str, run_id: str | None,
            table_ids: list[str] | None, paragraphs: list[str] | None,
            cancel: threading.Event | None, graph: Any, thread_id: str | None
            ) -> Iterator[StepEvent | Answer]:
    start = time.perf_counter()
    ctx = RunContext(workspace, run_id or new_run_id(), cancel or threading.Event(),
                     table_ids=table_ids, paragraphs=paragraphs or [])
    graph = graph or default_graph()
    config = {"configurable": {"run": ctx, "thread_id": thread_id or ctx.run_id}}
    # Fields of the previous turn are reset; `grounding` and `messages` carry over in a
    # checkpointed chat, so a follow-up can refer to what the last answer was about.
    state = {"question": question, "run_id": ctx.run_id, "sub_questions": [], "tables": [],
             "outcome": "", "refusal": "", "verified": False,
             "messages": [HumanMessage(content=question)]}
    final: dict[str, Any] = {}
    try:
        for mode, data in graph.stream(state, config, stream_mode=["custom", "updates"]):
            if mode == "custom":
                yield StepEvent.model_validate(data)
            elif mode == "updates":
                for update in data.values():
                    if isinstance(update, dict) and "answer" in update:
                        final = update["answer"]
    except Cancelled:
        event = ctx.emit(_last_node(ctx), "cancelled", "Stopped by the user")
        yield event
        final = Answer(answer=None, steps=ctx.end_events(), llm_calls=ctx.llm_calls,
                       error=StepError(kind="cancelled",
                                       message="The run was stopped.")).to_json_dict()
    answer = Answer.model_validate(final) if final else Answer(
        answer=None, error=StepError(kind="no_answer", message="The run ended without an answer."))
    answer.latency_ms = int((time.perf_counter() - start) * 1000)
    yield answer


def _last_node(ctx: RunContext) -> str:
    return ctx.events[-1].node if ctx.events else "decompose"


def answer_question(workspace: Workspace, question: str, *, run_id: str | None = None,
                    table_ids: list[str] | None = None, paragraphs: list[str] | None = None,
                    cancel: threading.Event | None = None, graph: Any = None,
                    thread_id: str | None = None,
                    on_event: Callable[[StepEvent], None] | None = None) -> Answer:
    """Answer a question over a workspace; `on_event` sees every StepEvent as it happens."""
    answer: Answer | None = None
    for item in _stream(workspace, question, run_id, table_ids, paragraphs, cancel, graph,
                        thread_id):
        if isinstance(item, Answer):
            answer = item
        elif on_event is not None:
            on_event(item)
    assert answer is not None
    return answer
