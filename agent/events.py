"""The shapes the agent emits and the chat, the CLI and stored sessions read (CONTRACTS.md).

`StepEvent` is one moment of a run (a node starting, ending, failing, or being cancelled);
`Answer` is the result of a run. Both are pydantic models with a schema version, serialised as
JSON; optional keys are left out when empty ("absent when empty, never null").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

EVENT_SCHEMA_VERSION = 1
MAX_EVENT_ROWS = 50
"""Rows of an intermediate table carried inside an event (the full table is a step table)."""

NodeName = Literal["decompose", "retrieve", "tree_navigate", "sql_step", "llm_column_step",
                   "validate", "answer"]
Phase = Literal["start", "progress", "end", "error", "cancelled"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def to_json_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict without the optional keys that are empty."""
        return self.model_dump(mode="json", exclude_none=True)


class Evidence(_Model):
    """One cited cell: where it is and what it says."""

    table: str
    sheet: str
    ref: str
    text: str
    value: float | int | str | None = None
    box: list[int] | None = None


class TextLocation(_Model):
    """Where a cited span of a document's text is: the page (pdf) or section (the heading
    above it), the paragraph's 0-based index in the document, and the span's [start, end)
    characters in that paragraph's text."""

    page: int | None = None
    section: str | None = None
    paragraph: int
    start: int
    end: int


class TextEvidence(_Model):
    """One cited span of a document's text (CONTRACTS.md "Evidence kinds", kind "text")."""

    kind: Literal["text"] = "text"
    source: str
    """The original file name."""
    file: str
    """The file's slug in the workspace."""
    location: TextLocation
    text: str
    """The cited span."""
    chunk: str | None = None
    """The id of the stored chunk the span is in (the passage the chat opens)."""


class EvidenceSet(_Model):
    """Many cited cells of one table at once (CONTRACTS.md "Evidence sets"): the cells an
    aggregate read, as maximal A1 ranges of the table's sheet, and how many cells they hold."""

    table: str
    sheet: str
    ranges: list[str]
    count: int


class TablePayload(_Model):
    """An intermediate table as shown in the chat: its first rows and its real size.

    `name` and `columns` are the SQL names (a step table's name, wide-view columns); the
    optional `title`, `labels` and `row_labels` say the same for people. Events stored before
    these fields existed load without them.
    """

    name: str
    columns: list[str]
    rows: list[list[Any]] = Field(default_factory=list)
    row_count: int = 0
    title: str | None = None
    """A caption for people: "Rows used, from financial.xlsx (sheet P&L)", "SQL result"."""
    labels: list[str] | None = None
    """One display label per column, same length as `columns`: a column path joined with
    " > " ("H1 2024 > Q2"), a row level's header label or "Row"/"Row group n", "Sheet row" for
    `_row`, plain words for computed columns ("Total", "Average", "Value (as written)")."""
    row_labels: list[str] | None = None
    """For a table with a `_row` column: the row path of each shown row, joined with " > "
    ("Operating Expenses > Rent"), one per item of `rows`."""
    notes: list[str | None] | None = None
    """A header tooltip per column, same length as `columns` (None where a column has none):
    a derived column's instruction ("the country this nationality implies")."""


class StepError(_Model):
    kind: str
    message: str


class LLMCallRecord(_Model):
    """One call to a chat model, as the step that made it shows it: exactly what left the
    machine (`messages`) and what came back (`response`), with its cost."""

    purpose: str
    """What the call was for, in words ("plan the question", "test connection")."""
    model: str
    messages: list[dict[str, str]] = Field(default_factory=list)
    """Each message sent, `{"role": system|user|assistant, "content": text}`, in order."""
    response: str = ""
    """The model's reply as text (a structured reply as its JSON)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    """The provider reported no counts (llama.cpp when streaming): characters / 4."""
    latency_ms: int = 0
    attempts: int = 1
    """Requests made for this call (1 plus its retries); each one counts as an LLM call."""
    method: str | None = None
    """How structured output was asked for: json_schema, function_calling or json_mode."""
    cached: bool = False
    """Answered from the chat's response cache: no request was made."""
    error: str | None = None
    """Why the call failed, after its retries."""


def with_calls(usage: dict[str, int], calls: list[LLMCallRecord]) -> dict[str, int]:
    """A run's LLM cost (`llm_calls`, `prompt_tokens`, `completion_tokens`) with these calls
    added (cached replies cost nothing), and how many of its requests failed
    (`llm_failed_calls`: a call that failed after its retries failed every attempt)."""
    made = [c for c in calls if not c.cached]
    return {"llm_calls": usage.get("llm_calls", 0) + sum(c.attempts for c in made),
            "llm_failed_calls": usage.get("llm_failed_calls", 0)
            + sum(c.attempts for c in made if c.error),
            "prompt_tokens": usage.get("prompt_tokens", 0) + sum(c.prompt_tokens for c in made),
            "completion_tokens": usage.get("completion_tokens", 0)
            + sum(c.completion_tokens for c in made)}


class SqlAttempt(_Model):
    """One try at a model-written query: the SQL as written and, when it failed, why (the
    message the model was sent back for its repair)."""

    sql: str
    error: StepError | None = None
    rows: int | None = None
    """Rows it returned, when it ran."""


SHORT_TITLES = frozenset({
    "No tables", "Could not tie the question to the table", "Could not plan it as one question",
    "Cannot answer", "Cannot answer offline", "Found the cells, but cannot compute",
    "No wide view to query", "Cannot derive the column", "Could not verify", "Not verified",
    "Not sure", "No answer from the tables", "No answer", "Cannot combine the parts",
    "No passage states it",
})
"""The titles of the steps that end without what they are for (no plan, no check, no answer):
the chat marks such a step as stopped short, not with a check mark (`tablelens.chat_view`).
The nodes give these steps these titles and no other."""


class StepEvent(_Model):
    """One event of a run, in order (`seq` counts from 0 within the run)."""

    schema_version: int = EVENT_SCHEMA_VERSION
    run_id: str
    seq: int
    node: NodeName
    phase: Phase
    title: str
    detail: str | None = None
    """Plain-words description of what the step did or found."""
    sql: str | None = None
    table: TablePayload | None = None
    cells: list[Evidence] | None = None
    evidence_sets: list[EvidenceSet] | None = None
    """The whole set of cited cells when there are many (`cells` then holds a few of them)."""
    retrieved: list[dict[str, Any]] | None = None
    error: StepError | None = None
    llm: list[LLMCallRecord] | None = None
    """The LLM calls this step made (absent offline)."""
    sql_attempts: list[SqlAttempt] | None = None
    """Each try at a model-written query, in order (absent for the engine's own SQL)."""
    elapsed_ms: int = 0


class AnswerBasis(_Model):
    """How an answer was computed, as calibration reads it: the plan's operation, the planner's
    own confidence before calibration, who chose the plan, and the features of the computation
    (`agent/features.py`). A feature is absent (None) when it does not apply or the basis was
    stored before it existed; calibration then weighs it as an average answer's."""

    op: str
    prior: float
    planned_by: str = "rules"
    # How the question grounded in the table the rules chose.
    content_words: int | None = None
    coverage: float | None = None
    """Share of the question's content words the table explains."""
    unmatched_words: int | None = None
    rewritten_words: int | None = None
    """Content words tied through another form of a table word (stem, short form, month)."""
    value_matches: int | None = None
    inexact_values: int | None = None
    """Named values found only inside cells that list several ("Aeromexico, Interjet")."""
    ambiguous_values: int | None = None
    """Named values found in more than one column."""
    named_rows: int | None = None
    column_matches: int | None = None
    full_column_matches: int | None = None
    top_column_score: float | None = None
    tied_columns: int | None = None
    """Columns sharing the best column score: the candidates the rules chose among."""
    column_score_gap: float | None = None
    unused_columns: int | None = None
    """Columns the question names in full that the computation neither reads nor filters by."""
    # What the plan read and returned.
    rows_read: int | None = None
    rows_share: float | None = None
    """Share of the table's data rows the plan reads."""
    filters: int | None = None
    measure_columns: int | None = None
    result_values: int | None = None
    cited_cells: int | None = None
    single_cell: bool | None = None
    numeric_result: bool | None = None
    answer_column_numeric: bool | None = None
    cited_text_cells: int | None = None
    # The table's shape.
    header_depth: int | None = None
    row_levels: int | None = None
    flat_table: bool | None = None
    """One header row and one row level: a CSV-like table."""
    table_rows: int | None = None
    table_columns: int | None = None
    # The question.
    asked_op: str | None = None
    """The operation the question's words ask for (`agent/question.py`)."""
    op_differs: bool | None = None
    conditions: int | None = None
    question_words: int | None = None


class Tentative(_Model):
    """What a run below the answer threshold would have answered (scorers never read it)."""

    values: list[str | float | int] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    evidence_sets: list[EvidenceSet] | None = None


class Answer(_Model):
    """The result of a run (CONTRACTS.md "Answers")."""

    answer: str | None = None
    values: list[str | float | int] = Field(default_factory=list)
    unit: str | None = None
    evidence: list[Evidence | TextEvidence] = Field(default_factory=list)
    evidence_sets: list[EvidenceSet] | None = None
    """An aggregate over many cells: every cell it read, as ranges (`evidence` then holds the
    first and last few)."""
    confidence: float = 0.0
    confidence_label: Literal["high", "medium", "low"] = "low"
    steps: list[StepEvent] = Field(default_factory=list)
    llm_calls: int = 0
    llm_failed_calls: int = 0
    """Of `llm_calls`, the requests that failed (no reply came back)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_failure: str | None = None
    """Why the model could not be used, when the answer stands without it (the rules' own,
    unchecked): the chat shows it under the answer."""
    latency_ms: int = 0
    ingest_ms: int = 0
    error: StepError | None = None
    basis: AnswerBasis | None = None
    tentative: Tentative | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict; `answer` is always present (null when there is none)."""
        out = super().to_json_dict()
        out.setdefault("answer", None)
        return out


HIGH_CONFIDENCE = 0.8
"""The high cut-off when no calibration has fitted one (`agent/calibration.py`)."""
MEDIUM_CONFIDENCE = 0.5


def confidence_label(confidence: float, high: float = HIGH_CONFIDENCE
                     ) -> Literal["high", "medium", "low"]:
    """Map a confidence in [0, 1] to the label the chat shows; `high` is the calibration's
    fitted cut-off (high answers right at least 95% of the time on unseen tables)."""
    if confidence >= high:
        return "high"
    if confidence >= MEDIUM_CONFIDENCE:
        return "medium"
    return "low"
