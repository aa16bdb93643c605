"""The graph's state: what each step found or computed, small and serialisable.

Every field is plain data (a plan names its table by id and version, cells by row and column),
so a checkpointer keeps a finished run whole. Live handles (the workspace, frames, the cancel
flag, the event trace) are the run context (`agent/context.py`). An update replaces a field,
except `messages` (appended by `add_messages`). `agent/run.py` resets the step fields at the
start of every run; `grounding` and `messages` carry over between turns of a checkpointed chat.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict, get_args

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, ConfigDict

from agent.combine import PartAnswer
from agent.decompose import Split
from agent.derived import DerivedColumn
from agent.frame import TableRef
from agent.plan import Filter, Plan
from agent.question import Analysis, Condition
from agent.results import Result


class Grounded(TypedDict, total=False):
    """What the last turn was tied to, so a follow-up ("and in Q3?") can reuse it."""

    table: str
    op: str
    rows: list[int]
    columns: list[str]
    description: str


class Previous(TypedDict):
    """A question the chat planned over a table, for the next turn's follow-up."""

    question: str
    table: str


class SqlAnswer(BaseModel):
    """What the SQL step derived: its step table and the values of the answer columns."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: str
    """The step table holding the SQL result."""
    values: list[str | float | int] | None
    """The non-empty values of the answer columns, row by row; None when the result has none
    of the answer columns."""


class AgentState(TypedDict, total=False):
    """State of one chat's graph."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The chat so far: user questions and answer texts (appended by add_messages)."""
    question: str
    """The question of this run."""
    asked: str
    """The question the run answers: the message, or a follow-up read as the previous
    question with a part swapped (`agent/followup.py`)."""
    previous: Previous
    """The last turn that was planned over a table: kept in the checkpoint, the next turn's
    follow-up is read against it."""
    run_id: str
    only_tables: list[str] | None
    """The tables the caller allows (None: every table of the workspace)."""
    sub_questions: list[str]
    """Parts of the question found by decompose (just the question when single)."""
    split: Split | None
    """How the message splits and how its parts' answers combine (None: one question)."""
    part: int
    """The part being answered (index into `sub_questions`); -1 while the whole message is
    tried as one question first (`Split.whole_first`). Each part runs retrieve ->
    tree_navigate -> ... -> validate, then decompose moves on to the next."""
    parts_done: list[PartAnswer]
    """The validated answers of the parts answered so far (decompose appends; the answer
    step combines them)."""
    analysis: Analysis
    """What the question (or the part being answered) asks (decompose)."""
    tables: list[str]
    """Candidate table ids, best first (retrieve)."""
    grounding: Grounded
    """This turn's grounding; kept in the checkpoint as the last turn's for follow-ups."""
    plan: Plan | None
    """The computation tree_navigate chose and walked."""
    result: Result | None
    """The tree walk's result (tree_navigate)."""
    derived_columns: list[str]
    """Columns the plan computes on whose numbers come from text: the column step runs."""
    derived: DerivedColumn | None
    """The column a model's plan computes on that the model derives from another column's
    text (`agent/derived.py`): the column step asks the model for it, then walks the plan."""
    step_tables: list[str]
    """The step tables the run wrote, in order (`step_<run>_<n>`)."""
    column_step_table: str | None
    """The column step's intermediate table, which the SQL step then queries."""
    sql_answer: SqlAnswer | None
    """What the SQL step derived (None when it did not run or failed)."""
    outcome: Literal["", "planned", "refused", "answered"]
    refusal: str
    """Why the engine would not answer (plain words), when it would not."""
    problems: list[str]
    """What validate found wrong with the answer (empty when verified)."""
    verified: bool
    """validate agreed: cited cells match the source and the SQL re-derivation agrees."""
    answer: dict[str, Any]
    """The Answer (agent/events.py) as JSON."""
    llm_usage: dict[str, int]
    """What planning cost: `llm_calls`, `prompt_tokens`, `completion_tokens` (empty offline)."""
    llm_failed: bool
    """The model failed and the rules could not answer either."""
    llm_failure: str | None
    """Why the model could not be used, when it failed (the run's first such failure)."""
    phrasing: str | None
    """The model's answer sentence, with `{result}` where the computed value goes."""
    planned_by: str
    """Who chose the plan: "rules", "model", or "rules, checked by the model"."""
    features: dict[str, Any]
    """What the plan's computation looked like, for calibration (`agent/features.py`)."""


def fresh_run(question: str, run_id: str, only_tables: list[str] | None) -> AgentState:
    """The input of a run: its question, with every step field of a previous turn reset."""
    return {"question": question, "run_id": run_id, "only_tables": only_tables,
            "sub_questions": [], "split": None, "part": 0, "parts_done": [], "tables": [],
            "plan": None, "result": None, "derived_columns": [], "derived": None,
            "step_tables": [], "column_step_table": None,
            "sql_answer": None, "outcome": "", "refusal": "", "problems": [], "verified": False,
            "llm_usage": {}, "llm_failed": False, "llm_failure": None, "phrasing": None,
            "planned_by": "rules", "features": {}}


def checkpoint_types() -> list[tuple[str, str]]:
    """The agent's own classes a checkpoint of this state holds, as (module, name): what a
    strict checkpointer's serializer must allow to restore them
    (`JsonPlusSerializer(allowed_msgpack_modules=checkpoint_types())`)."""
    operations = get_args(get_args(Plan)[0])
    classes = [Analysis, Condition, TableRef, Filter, *operations, Result, SqlAnswer,
               DerivedColumn, Split, PartAnswer]
    return [(c.__module__, c.__name__) for c in classes]
