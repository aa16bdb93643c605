"""The graph's state: small, serialisable, and shaped for follow-up questions.

Live objects (frames, plans, the workspace) are in the run context (agent/context.py); the
state holds what a checkpointer should keep between turns of a chat.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class Grounded(TypedDict, total=False):
    """What the last turn was tied to, so a follow-up ("and in Q3?") can reuse it."""

    table: str
    op: str
    rows: list[int]
    columns: list[str]
    description: str


class AgentState(TypedDict, total=False):
    """State of one chat's graph. Updates replace fields, except `messages` (appended)."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The chat so far: user questions and answer texts (appended by add_messages)."""
    question: str
    """The question of this run."""
    run_id: str
    sub_questions: list[str]
    """Parallel parts of the question found by decompose (just the question when single)."""
    tables: list[str]
    """Candidate table ids, best first (retrieve)."""
    grounding: Grounded
    """This turn's grounding; kept in the checkpoint as the last turn's for follow-ups."""
    outcome: str
    """"planned", "refused" or "answered"."""
    refusal: str
    """Why the engine would not answer (plain words), when it would not."""
    verified: bool
    """validate agreed: cited cells match the source and the SQL re-derivation agrees."""
    answer: dict[str, Any]
    """The Answer (agent/events.py) as JSON."""
