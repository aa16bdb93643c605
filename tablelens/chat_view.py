"""What the chat shows, as plain data: steps grouped from events, outcomes, labels, messages.

The app lays these out with Streamlit; everything here is pure and tested without it.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.events import SHORT_TITLES
from ingest.grid import named_by_reader, table_place
from storage.views import long_name, wide_name

log = logging.getLogger(__name__)

NODE_LABELS = {
    "decompose": "Decompose",
    "retrieve": "Retrieve",
    "tree_navigate": "Tree navigation",
    "sql_step": "SQL step",
    "llm_column_step": "Column step",
    "validate": "Validate",
    "answer": "Answer",
}

StepState = Literal["running", "complete", "short", "error", "cancelled", "interrupted"]
"""A step's state; "short": it ended without what it was for (`SHORT_TITLES`), as a refusal's
"Could not tie the question to the table" does."""
Outcome = Literal["running", "answered", "no_answer", "cancelled", "failed", "interrupted"]


@dataclass
class StepView:
    """One node's run, from its start event to its end (or error, or cancellation)."""

    node: str
    title: str
    state: StepState = "running"
    detail: str | None = None
    sql: str | None = None
    table: dict[str, Any] | None = None
    cells: list[dict[str, Any]] = field(default_factory=list)
    evidence_sets: list[dict[str, Any]] = field(default_factory=list)
    """Many grounded cells at once (`cells` then holds a few of them); absent from events
    stored before sets existed."""
    retrieved: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None
    elapsed_ms: int = 0
    seq: int = 0
    """The seq of the step's first event (a stable key)."""
    llm: list[dict[str, Any]] = field(default_factory=list)
    """The LLM calls the step made (`LLMCallRecord` dicts), in order."""
    sql_attempts: list[dict[str, Any]] = field(default_factory=list)
    """Each try at a model-written query (`SqlAttempt` dicts), in order."""

    @property
    def label(self) -> str:
        """The step's label: "SQL step: SQL returned 1 row" (prefixed when it stopped)."""
        node = NODE_LABELS.get(self.node, self.node)
        text = node if self.title in ("", node) else f"{node}: {self.title}"
        if self.state == "cancelled":
            return f"Stopped - {text}"
        if self.state == "interrupted":
            return f"Interrupted - {text}"
        return text

    @property
    def status_state(self) -> Literal["running", "complete", "short", "error"]:
        """The state its icon shows: a stopped or interrupted step did not complete."""
        if self.state in ("running", "complete", "short"):
            return self.state  # type: ignore[return-value]
        return "error"


def group_steps(events: Iterable[Mapping[str, Any]]) -> list[StepView]:
    """Fold a run's events into one StepView per node run, in order.

    A node's start opens a step (a second start while it runs only renames it); progress
    renames it; end or error closes it with what it found; cancelled closes the running step
    (or adds a "stopped" step when none runs).
    """
    steps: list[StepView] = []
    open_steps: dict[str, StepView] = {}
    for event in sorted(events, key=lambda e: e.get("seq", 0)):
        node, phase = str(event.get("node", "")), event.get("phase")
        title = str(event.get("title", ""))
        step = open_steps.get(node)
        if phase == "cancelled":
            step = step or (next((s for s in reversed(steps) if s.state == "running"), None))
        if step is None:
            step = StepView(node=node, title=title, seq=int(event.get("seq", 0)))
            steps.append(step)
            open_steps[node] = step
        step.llm = merge_calls(step.llm, event.get("llm") or [])
        if phase in ("start", "progress"):
            step.title = title or step.title
            step.detail = event.get("detail") or step.detail
            step.sql = event.get("sql") or step.sql
            continue
        if phase == "cancelled":
            step.state = "cancelled"
            step.detail = step.detail or title
        else:
            step.title = title or step.title
            step.state = "error" if phase == "error" or event.get("error") else (
                "short" if step.title in SHORT_TITLES else "complete")
            step.detail = event.get("detail") or step.detail
        step.sql = event.get("sql") or step.sql
        step.table = event.get("table") or step.table
        step.cells = list(event.get("cells") or step.cells)
        step.evidence_sets = list(event.get("evidence_sets") or step.evidence_sets)
        step.retrieved = list(event.get("retrieved") or step.retrieved)
        step.sql_attempts = list(event.get("sql_attempts") or step.sql_attempts)
        step.error = event.get("error") or step.error
        step.elapsed_ms = int(event.get("elapsed_ms") or 0)
        open_steps.pop(step.node, None)
    return steps


def merge_calls(known: list[dict[str, Any]], more: Iterable[Mapping[str, Any]]
                ) -> list[dict[str, Any]]:
    """The calls known so far plus those of a later event that are new: whether a step's
    events carry each call once or all calls so far, each is shown once."""
    merged = list(known)
    for call in more:
        if dict(call) not in merged:
            merged.append(dict(call))
    return merged


def close_steps(steps: list[StepView], outcome: Outcome) -> list[StepView]:
    """Mark the steps still running once a run is over: stopped, or interrupted."""
    if outcome == "running":
        return steps
    for step in steps:
        if step.state == "running":
            step.state = "cancelled" if outcome == "cancelled" else "interrupted"
    return steps


def outcome_of(answer: Mapping[str, Any] | None, error: str | None, active: bool) -> Outcome:
    """Say how a run ended (or that it still runs)."""
    if active:
        return "running"
    if error is not None:
        return "failed"
    if answer is None:
        return "interrupted"
    kind = (answer.get("error") or {}).get("kind")
    if kind == "cancelled":
        return "cancelled"
    if answer.get("answer") is None:
        return "no_answer"
    return "answered"


def unadded_message(names: Sequence[str]) -> str:
    """Why a question sent with files was not asked: some were not added (their messages
    above say why), and an answer from the other files would not be what was asked."""
    listed = ", ".join(names)
    one = len(names) == 1
    return (f"Not asked: {listed} could not be added (see why above), and the question was "
            f"sent with {'it' if one else 'them'}. Fix {'it' if one else 'them'} and attach "
            f"{'it' if one else 'them'} again, or ask again without {'it' if one else 'them'}.")


NO_FILES_MESSAGE = ("There are no reports in this chat. Upload one in the sidebar, or attach it "
                    "to your message with the + button, then ask again.")
"""What a question asked before any upload gets (stored in the transcript as its error)."""
SUPERSEDED_NOTE = "Superseded: this question was edited and asked again further down."
"""Under a turn whose question was re-asked, edited (the turn itself stays as it was)."""
INTERRUPTED_MESSAGE = ("This question was interrupted before it finished (the app was "
                       "restarted). Ask it again.")
CANCELLED_MESSAGE = "Stopped by the user. The steps above ran before the stop."


def answer_message(answer: Mapping[str, Any]) -> str | None:
    """The plain-words reason an answer has no value (None when it has one)."""
    if answer.get("answer") is not None:
        return None
    error = answer.get("error") or {}
    if error.get("kind") == "cancelled":
        return CANCELLED_MESSAGE
    return str(error.get("message") or "No answer was found.")


def answer_text(answer: Mapping[str, Any]) -> str:
    """The answer as shown: its text, which states its unit ("$4,075.7 million"); an answer
    stored before answers did so gets its unit appended."""
    text = str(answer.get("answer") or "")
    unit = str(answer.get("unit") or "").strip()
    parts = re.findall(r"\w+|[^\w\s]", unit.casefold())
    if parts and not any(part in text.casefold() for part in parts):
        text += unit if unit == "%" else f" {unit}"
    return text


def confidence_text(answer: Mapping[str, Any]) -> str:
    label = answer.get("confidence_label", "low")
    return f"Confidence: {label} ({float(answer.get('confidence') or 0):.0%})"


CONFIDENCE_COLORS = {"high": "green", "medium": "orange", "low": "red"}


def evidence_label(evidence: Mapping[str, Any], file_name: str | None = None) -> str:
    """"P&L!C5 = 230": where a cited cell is and what it says (a cited text span: its file,
    paragraph and words). The cell's file is named when `file_name` is given
    ("report.docx, table1!B3 = 230"): a table of a document or an image, or a sheet name two
    files share."""
    if evidence.get("kind") == "text":
        from tablelens.citations import text_label

        return text_label(evidence)
    text = str(evidence.get("text", ""))
    if len(text) > 40:
        text = text[:39] + "..."
    sheet = str(evidence.get("sheet", ""))
    where = f"{file_name}, {sheet}" if file_name else sheet
    return f"{where}!{evidence.get('ref', '')} = {text}"


def evidence_labels(evidence: Iterable[Mapping[str, Any]],
                    places: Mapping[str, tuple[str, str]]) -> list[str]:
    """Each cited cell's label (`evidence_label`), its file named where its sheet alone does
    not say where it is: a sheet a reader named ("table1"), one two files share ("P&L" of
    report.ods and of fin_as.xls), or any sheet of a chat that holds more than one file
    ("region_c.xlsx, Sheet1!B4 = 470": which of three regional workbooks answered is what
    the reader needs first). `places` are the workspace's (`Workspace.table_places`): the
    chat, its older turns and a shared page label every citation alike."""
    sheets = Counter(sheet for _, sheet in set(places.values()))
    several_files = len({file_name for file_name, _ in places.values()}) > 1
    labels = []
    for item in evidence:
        sheet = str(item.get("sheet", ""))
        file_name = places.get(str(item.get("table", "")), (None, ""))[0]
        named = several_files or named_by_reader(sheet) or sheets[sheet] > 1
        labels.append(evidence_label(item, file_name if named else None))
    return labels


def cells_line(cells: Iterable[Mapping[str, Any]], limit: int = 12) -> str:
    items = list(cells)
    shown = ", ".join(evidence_label(c) for c in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def set_line(sets: Iterable[Mapping[str, Any]], places: Mapping[str, tuple[str, str]]) -> str:
    """"2,000 cells of report.xlsx, sheet Data (N3:N2002)": where each set of cited cells is."""
    return "; ".join(f"{int(s.get('count') or 0):,} cells of "
                     f"{place_name(str(s.get('table', '')), places)} ({ranges_text(s)})"
                     for s in sets)


def ranges_text(evidence_set: Mapping[str, Any], limit: int = 4) -> str:
    """A set's ranges as a person reads them: "N3:N2002, P3:P2002" (and how many more)."""
    ranges = [str(r) for r in evidence_set.get("ranges") or []]
    more = len(ranges) - limit
    return ", ".join(ranges[:limit]) + (f" and {more:,} more ranges" if more > 0 else "")


def grounded_line(cells: list[Mapping[str, Any]], sets: list[Mapping[str, Any]],
                  places: Mapping[str, tuple[str, str]]) -> str:
    """A step's grounded cells: the sets when it has any (its few cells are among them)."""
    if not sets:
        return cells_line(cells)
    return set_line(sets, places) + (f"; first and last: {cells_line(cells)}" if cells else "")


STEP_ICONS = {"running": "spinner", "complete": ":material/check:",
              "short": ":material/remove_circle_outline:", "error": ":material/error:"}
"""The icon of a step's expander by its st.status-like state (as st.status draws them)."""

_RETRIEVED_KINDS = {"table": "table", "title": "title", "column": "column path",
                    "row": "row path", "value": "cell", "cell": "cell", "chunk": "passage",
                    "column_path": "column path", "row_path": "row path"}


def step_icon(step: StepView) -> str:
    return STEP_ICONS[step.status_state]


def details_line(step: StepView) -> str:
    """The small line under a step: which step of the chain ran and for how long."""
    return f"details: {NODE_LABELS.get(step.node, step.node)}, {step.elapsed_ms:,} ms"


def usage_line(answer: Mapping[str, Any]) -> str | None:
    """What an answer cost in LLM work ("2 requests to the model, 812 prompt + 64 completion
    tokens"): requests, as a call retried is one request per attempt, and how many failed
    ("3 requests to the model, all failed"), so a model that never replied does not read as
    one that answered; None when it made none (offline answers say nothing about it)."""
    calls = int(answer.get("llm_calls") or 0)
    failed = min(int(answer.get("llm_failed_calls") or 0), calls)
    prompt = int(answer.get("prompt_tokens") or 0)
    completion = int(answer.get("completion_tokens") or 0)
    if not (calls or prompt or completion):
        return None
    text = f"{calls} request{'s' * (calls != 1)} to the model"
    if failed:
        text += (", all failed" if failed == calls and calls > 1 else
                 ", which failed" if failed == calls else f" ({failed} failed)")
    if prompt or completion:
        text += f", {prompt:,} prompt + {completion:,} completion tokens"
    return text


def model_failure_note(answer: Mapping[str, Any]) -> str | None:
    """Under an answer made without the model it was asked with, why ("The model at
    http://... could not be reached ...") and whose answer it is; None otherwise. The step
    that called the model says so too, but a collapsed step is easily missed."""
    failure = str(answer.get("llm_failure") or "").strip().rstrip(".")
    if not failure or answer.get("answer") is None:
        return None
    return f"{failure}. This answer is the offline rules' own: the model did not check it."


def place_name(table: str, places: Mapping[str, tuple[str, str]]) -> str:
    """"financial.xlsx, sheet P&L" or "ops_report.docx, table 1" for a table id (a table no
    longer here: "a removed table")."""
    if table not in places:
        return "a removed table"
    return table_place(*places[table])


def retrieved_rows(items: Iterable[Mapping[str, Any]], places: Mapping[str, tuple[str, str]]
                   ) -> tuple[list[str], list[list[Any]]]:
    """Return the retrieved items as a small table in plain words: what was found, its text,
    where (file and sheet, never a table id), its cell and its score. Items of either shape
    show: `kind` (CONTRACTS.md) or the older transcripts' `type`."""
    rows = []
    for item in items:
        kind = str(item.get("kind") or item.get("type") or "")
        path = item.get("path")
        path_text = " > ".join(str(p) for p in path) if isinstance(path, list) and path else ""
        found = str(item.get("text") or "")
        if kind in ("cell", "value") and found and path_text:
            text = f"{found} ({path_text})"  # a cell's path is its column's: say the value
        else:
            text = path_text or found
        table = item.get("table")
        where = place_name(str(table), places) if table else ""
        score = item.get("score")
        rows.append([_RETRIEVED_KINDS.get(kind, kind), text, where, item.get("ref") or "",
                     round(score, 2) if isinstance(score, (int, float)) else None])
    return ["Found", "Text", "Where", "Cell", "Score"], rows


def md_escape(text: str) -> str:
    """Escape text for Streamlit markdown (also "$", which would start LaTeX).

    A dot is escaped only where it would make a numbered list ("1. Health" at the start of a
    line): escaped elsewhere, an address such as http://127.0.0.1:8088 would be linked with
    the backslashes in it."""
    out = []
    for line in str(text).split("\n"):
        numbered = _NUMBERED_LINE.match(line)
        cut = numbered.end() - 1 if numbered else -1
        for i, ch in enumerate(line):
            if ch in "\\`*_{}[]()#+-!|>~<$" or i == cut:
                out.append("\\" + ch)
            else:
                out.append(ch)
        out.append("\n")
    return "".join(out[:-1])


_NUMBERED_LINE = re.compile(r"^\s*\d+\.")


def plain_error(exc: BaseException) -> str:
    """Turn an exception from ingest or the agent into one message a user can act on."""
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message:
        return message  # IngestError and friends carry their own plain message
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return "The workspace is busy with another change. Try again in a moment."
    if isinstance(exc, MemoryError):
        return "The question needed more memory than this machine has. Try a narrower question."
    module = type(exc).__module__ or ""
    if module.startswith("agent") and str(exc):
        return str(exc)
    # The reason is the exception's kind and first line (never a traceback): enough to report
    # or to rephrase, and the question stays in the transcript either way.
    reason = type(exc).__name__ + (f": {first}" if (first := _first_line(exc)) else "")
    return (f"Something went wrong while answering ({reason}). The details are in the server "
            "log; the rest of the chat still works, so try again or rephrase the question.")


def _first_line(exc: BaseException) -> str:
    """The exception's message up to its first line break, at most 200 characters."""
    return (str(exc).strip().splitlines() or [""])[0][:200]


def sql_names_line(sql: str, places: Mapping[str, tuple[str, str]]) -> str | None:
    """What the tables a step's SQL names are, in people's words ("financial__p_l__t0__wide:
    financial.xlsx, sheet P&L, one row per data row"); None when it names none of them."""
    said = []
    for table_id, (file_name, sheet) in places.items():
        for name, shape in ((wide_name(table_id), "one row per data row"),
                            (long_name(table_id), "one row per cell")):
            if re.search(rf"\b{re.escape(name)}\b", sql):
                said.append(f"{name}: {table_place(file_name, sheet)}, {shape}")
    return "; ".join(said) or None


def copy_text(answer: Mapping[str, Any], places: Mapping[str, tuple[str, str]]) -> str:
    """An answer with its citations as plain text, to paste elsewhere: the answer, then one
    line per cited cell ("financial.xlsx, sheet P&L, C5: 230") or set of cells."""
    lines = [answer_text(answer)]

    def where(item: Mapping[str, Any]) -> str:
        file, sheet = places.get(str(item.get("table")), (str(item.get("table", "")), ""))
        return table_place(file, str(item.get("sheet") or sheet))

    sets = list(answer.get("evidence_sets") or [])
    for group in sets:
        lines.append(f"{where(group)}, {ranges_text(group, limit=20)}: {group.get('count', 0):,} "
                     "cells")
    if not sets:
        lines += [f"{where(cell)}, {cell.get('ref')}: {cell.get('text')}"
                  for cell in answer.get("evidence") or []]
    return "\n".join(lines)
