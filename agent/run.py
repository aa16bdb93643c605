"""Run a question through the graph: stream its step events, return its Answer."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

# LangGraph's first run configures LangChain's callbacks, which imports its tracers: imported
# with this module instead, so that a new process's first question does not pay it.
import langchain_core.tracers.context  # noqa: F401
import langchain_core.tracers.run_collector  # noqa: F401
import langchain_core.tracers.stdout  # noqa: F401
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from agent.context import Cancelled, RunContext
from agent.events import Answer, StepError, StepEvent
from agent.graph import build_graph
from agent.llm.settings import LLMSettings
from agent.planner import Planner, RulePlanner
from agent.retriever import LexicalRetriever, Retriever
from agent.state import fresh_run
from agent.trace import Trace
from storage.workspace import Workspace


@lru_cache(maxsize=1)
def default_graph():
    """The compiled graph without a checkpointer (shared: it holds no per-run data)."""
    return build_graph()


def new_run_id() -> str:
    return secrets.token_hex(6)


def stream_question(workspace: Workspace, question: str, *, run_id: str | None = None,
                    table_ids: list[str] | None = None, cancel: threading.Event | None = None,
                    graph: Any = None, thread_id: str | None = None,
                    planner: Planner | None = None, retriever: Retriever | None = None,
                    llm: LLMSettings | None = None, chat_model: BaseChatModel | None = None,
                    on_event: Callable[[StepEvent], None] | None = None,
                    text_sources: list[str] | None = None
                    ) -> Iterator[StepEvent | Answer]:
    """Yield the StepEvents of each node once the node has run, then the Answer (last).

    The graph runs on the thread that iterates, one node per step of the iteration. A caller
    that must see an event the moment it is emitted, inside a long node (an LLM call, SQL on a
    large table), passes `on_event`: it is called with each event as it is emitted, and the
    same events are still yielded after their node.

    `table_ids` limits the run to those tables; `planner` and `retriever` replace the offline
    engine's (`RulePlanner`, `LexicalRetriever`); `thread_id` names a checkpointed chat. With
    `llm` naming a model (`llm.enabled`), the run plans with it (`LLMPlanner`) and finds its
    tables with the hybrid search (`HybridRetriever`); `chat_model` is that model already
    built (tests pass a scripted one).

    Offline, a question the tables do not answer may be answered from the documents' text
    (`agent/text_answer.py`): the chunks of every file, or with `table_ids` those of the
    tables' files and of the files `text_sources` (sha256) names.
    """
    planner = planner or _llm_planner(workspace, llm, chat_model)
    if retriever is None and llm is not None and llm.enabled:
        # The model's tables are chosen as its context's are, by the hybrid search (no
        # vectors: see `_llm_planner`); the offline engine keeps the lexical retriever its
        # rules were measured with.
        from agent.hybrid import HybridRetriever

        retriever = HybridRetriever()
    return _stream(workspace, question, run_id, table_ids, cancel, graph, thread_id, planner,
                   retriever, llm.model if llm is not None and llm.enabled else None, on_event,
                   text_sources)


def _llm_planner(workspace: Workspace, llm: LLMSettings | None,
                 chat_model: BaseChatModel | None) -> Planner | None:
    """A planner for this run's model, with its own call budget; None offline."""
    if llm is None or not llm.enabled:
        return None
    # Imported here: the provider SDKs take a while to import, and offline runs need none.
    from agent.context_builder import ContextBuilder
    from agent.llm.cache import ResponseCache
    from agent.llm.client import LLMClient
    from agent.llm.planner import LLMPlanner

    cache = ResponseCache(workspace.db) if llm.cache else None
    # Full text and exact values find the rows to show; no vectors, whose model would add
    # seconds of loading to a run's first question.
    builder = ContextBuilder(workspace, sql_views=True)
    return LLMPlanner(LLMClient(llm, model=chat_model, cache=cache), llm.prompt_budget_tokens,
                      builder)


def _stream(workspace: Workspace, question: str, run_id: str | None,
            table_ids: list[str] | None, cancel: threading.Event | None, graph: Any,
            thread_id: str | None, planner: Planner | None, retriever: Retriever | None,
            model_name: str | None = None,
            on_event: Callable[[StepEvent], None] | None = None,
            text_sources: list[str] | None = None
            ) -> Iterator[StepEvent | Answer]:
    # The compiled graph is the process's, like its imports: built once (by the first
    # question), it is not part of any question's latency.
    graph = graph or default_graph()
    start = time.perf_counter()
    run_id = run_id or new_run_id()
    trace = Trace(run_id, on_event)
    ctx = RunContext(workspace, trace, retriever or LexicalRetriever(),
                     planner or RulePlanner(), cancel or threading.Event(), model_name,
                     text_sources)
    config = {"configurable": {"thread_id": thread_id or run_id}}
    state = {**fresh_run(question, run_id, table_ids), "messages": [HumanMessage(content=question)]}
    final: dict[str, Any] = {}
    shown = 0  # the trace's events yielded so far

    def new_events() -> list[StepEvent]:
        nonlocal shown
        events, shown = trace.events[shown:], len(trace.events)
        return events

    try:
        # "updates" alone: LangGraph then runs each node on this thread (see agent.trace).
        # durability="exit": a checkpointer stores the run's state once, when it ends (a
        # follow-up reads only that), not after every step (44 ms more per question here).
        durability = {"durability": "exit"} if graph.checkpointer is not None else {}
        for data in graph.stream(state, config, context=ctx, stream_mode="updates",
                                 **durability):
            yield from new_events()
            for update in data.values():
                if isinstance(update, dict) and "answer" in update:
                    final = update["answer"]
    except Cancelled:
        trace.emit(trace.last_node, "cancelled", "Stopped by the user")
        yield from new_events()  # the stopped node's events so far, then the cancellation
        final = Answer(answer=None, steps=ctx.trace.end_events(),
                       error=StepError(kind="cancelled",
                                       message="The run was stopped.")).to_json_dict()
    answer = Answer.model_validate(final) if final else Answer(
        answer=None, error=StepError(kind="no_answer", message="The run ended without an answer."))
    answer.latency_ms = int((time.perf_counter() - start) * 1000)
    yield answer


def answer_question(workspace: Workspace, question: str, *, run_id: str | None = None,
                    table_ids: list[str] | None = None, cancel: threading.Event | None = None,
                    graph: Any = None, thread_id: str | None = None,
                    planner: Planner | None = None, retriever: Retriever | None = None,
                    llm: LLMSettings | None = None, chat_model: BaseChatModel | None = None,
                    on_event: Callable[[StepEvent], None] | None = None,
                    text_sources: list[str] | None = None) -> Answer:
    """Answer a question over a workspace; `on_event` sees every StepEvent as it happens.
    The arguments are `stream_question`'s."""
    answer: Answer | None = None
    for item in stream_question(workspace, question, run_id=run_id, table_ids=table_ids,
                                cancel=cancel, graph=graph, thread_id=thread_id,
                                planner=planner, retriever=retriever, llm=llm,
                                chat_model=chat_model, on_event=on_event,
                                text_sources=text_sources):
        if isinstance(item, Answer):
            answer = item
    assert answer is not None
    return answer
