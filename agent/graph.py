"""The LangGraph state machine: decompose -> retrieve -> tree_navigate -> [llm_column_step]
-> sql_step -> validate -> answer -> [read_text], with a short cut to answer when nothing can
be planned, and read_text only when the answer is a refusal the documents' text may still
answer (`agent/text_step.py`).

A message decompose splits into parts loops: each part runs retrieve -> ... -> validate as a
question of its own (its steps, tables and citations in the trace like any question's), then
goes back to decompose for the next part; answer combines them. A part that cannot be
answered goes straight to answer, which refuses the whole message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Checkpointer

from agent import nodes, text_step
from agent.collector import step_collector
from agent.context import RunContext
from agent.state import AgentState
from agent.stop import check, watching
from storage.interrupt import ending_statements


def after_navigate(state: AgentState
                   ) -> Literal["llm_column_step", "sql_step", "answer", "decompose"]:
    """Plan found: derive columns if the plan needs them, then SQL; else straight to answer,
    or, when the whole message was tried as one question first, to its parts."""
    if state.get("outcome") != "planned":
        return "decompose" if _trying_whole(state) else "answer"
    return ("llm_column_step" if state.get("derived_columns") or state.get("derived")
            else "sql_step")


def after_column_step(state: AgentState) -> Literal["sql_step", "answer"]:
    """The model's derived column could not be used (a row cap, a missing or malformed
    value): straight to the refusal."""
    return "answer" if state.get("outcome") == "refused" else "sql_step"


def after_sql(state: AgentState) -> Literal["validate", "answer"]:
    """The model's SQL could not be used even after repairs: straight to the refusal."""
    return "answer" if state.get("outcome") == "refused" else "validate"


def after_validate(state: AgentState) -> Literal["decompose", "answer"]:
    """A verified part with parts after it: on to the next part; else the answer."""
    split, part = state.get("split"), state.get("part", 0)
    if split is not None and part >= 0 and state.get("verified") \
            and part + 1 < len(split.parts):
        return "decompose"
    return "answer"


def after_answer(state: AgentState) -> Literal["read_text", "__end__"]:
    """A refusal (or a "not sure") may still be stated by the documents' text."""
    return "read_text" if text_step.wants_text(state) else END


def _trying_whole(state: AgentState) -> bool:
    split = state.get("split")
    return split is not None and state.get("part", 0) == -1


class _Stoppable:
    """A node run with its run's cancel flag visible to the loops it calls (`agent.stop`) and
    to the SQL it runs on the workspace (`storage.interrupt`), and without full passes of the
    garbage collector inside it (`agent.collector`).

    A class, not a closure made with `functools.wraps`: on compiling, LangGraph looks for
    subgraphs in what a node function reaches, and follows `__wrapped__` into the node's
    code, disassembling it (about 20 ms of a new process's first question here)."""

    def __init__(self, node: Callable[[AgentState, Runtime[RunContext]], dict[str, Any]]
                 ) -> None:
        self.node = node
        self.__name__ = node.__name__

    def __call__(self, state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        cancel = runtime.context.cancel
        # Stop ends a long statement on the workspace too, raised as Cancelled: validate's
        # re-reading of a 137,511-cell set went on for half an hour after Stop.
        with watching(cancel), step_collector(), \
                ending_statements(runtime.context.workspace.db.conn, cancel.is_set, check):
            return self.node(state, runtime)


def build_graph(checkpointer: Checkpointer | None = None):
    """Compile the graph (optionally with a checkpointer, keyed by thread_id = chat id)."""
    builder = StateGraph(AgentState, context_schema=RunContext)
    builder.add_node("decompose", _Stoppable(nodes.decompose))
    builder.add_node("retrieve", _Stoppable(nodes.retrieve))
    builder.add_node("tree_navigate", _Stoppable(nodes.tree_navigate))
    builder.add_node("llm_column_step", _Stoppable(nodes.llm_column_step))
    builder.add_node("sql_step", _Stoppable(nodes.sql_step))
    builder.add_node("validate", _Stoppable(nodes.validate))
    builder.add_node("answer", _Stoppable(nodes.answer))
    builder.add_node("read_text", _Stoppable(text_step.read_text))
    builder.add_edge(START, "decompose")
    builder.add_edge("decompose", "retrieve")
    builder.add_edge("retrieve", "tree_navigate")
    builder.add_conditional_edges("tree_navigate", after_navigate)
    builder.add_conditional_edges("llm_column_step", after_column_step)
    builder.add_conditional_edges("sql_step", after_sql)
    builder.add_conditional_edges("validate", after_validate)
    builder.add_conditional_edges("answer", after_answer)
    builder.add_edge("read_text", END)
    return builder.compile(checkpointer=checkpointer)
