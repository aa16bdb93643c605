"""The LangGraph state machine: decompose -> retrieve -> tree_navigate -> [llm_column_step]
-> sql_step -> validate -> answer, with a short cut to answer when nothing can be planned."""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.types import Checkpointer

from agent import nodes
from agent.context import RunContext
from agent.state import AgentState


def after_navigate(state: AgentState) -> Literal["llm_column_step", "sql_step", "answer"]:
    """Plan found: derive columns if the plan needs them, then SQL; else straight to answer."""
    if state.get("outcome") != "planned":
        return "answer"
    return "llm_column_step" if state.get("derived_columns") else "sql_step"


def build_graph(checkpointer: Checkpointer | None = None):
    """Compile the graph (optionally with a checkpointer, keyed by thread_id = chat id)."""
    builder = StateGraph(AgentState, context_schema=RunContext)
    builder.add_node("decompose", nodes.decompose)
    builder.add_node("retrieve", nodes.retrieve)
    builder.add_node("tree_navigate", nodes.tree_navigate)
    builder.add_node("llm_column_step", nodes.llm_column_step)
    builder.add_node("sql_step", nodes.sql_step)
    builder.add_node("validate", nodes.validate)
    builder.add_node("answer", nodes.answer)
    builder.add_edge(START, "decompose")
    builder.add_edge("decompose", "retrieve")
    builder.add_edge("retrieve", "tree_navigate")
    builder.add_conditional_edges("tree_navigate", after_navigate)
    builder.add_edge("llm_column_step", "sql_step")
    builder.add_edge("sql_step", "validate")
    builder.add_edge("validate", "answer")
    builder.add_edge("answer", END)
    return builder.compile(checkpointer=checkpointer)
