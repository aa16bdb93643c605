"""Finished turns as HTML: everything they said, at the cost of one element.

The browser pays for every Streamlit element on the page each time a question reruns the app,
so a chat drawn element by element gets slower with every turn. The newest turn keeps a widget
per step; the four before it draw their step timeline here (`steps_html`, one element) and keep
their widgets for what needs one (the tables to sort and download, cited cells that open their
table); turns before those are drawn here whole (`older_turns_html`), in full but without
widgets: the question, each step as a native <details> with its text, SQL, retrieved items and
table, and the answer with its confidence and cited cells. Pure functions of the stored
transcript.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from tablelens.chat_store import Turn
from tablelens.chat_view import (
    INTERRUPTED_MESSAGE,
    SUPERSEDED_NOTE,
    StepView,
    answer_message,
    answer_text,
    close_steps,
    confidence_text,
    details_line,
    evidence_labels,
    grounded_line,
    group_steps,
    model_failure_note,
    outcome_of,
    retrieved_rows,
    set_line,
    sql_names_line,
    usage_line,
)
from tablelens.llm_calls_view import CALLS_CSS, attempts_html, calls_html
from tablelens.table_view import table_view

log = logging.getLogger(__name__)
Places = Mapping[str, tuple[str, str]]
"""Table id -> (file name, sheet): where retrieved items are, in words (never an id)."""

TURN_CSS = """
<style>
.tl-turns { font-size: 0.95rem; }
.tl-turn { border-bottom: 1px solid rgba(128, 128, 128, 0.3); padding: 0.6rem 0 0.8rem 0; }
.tl-question { background: rgba(128, 128, 128, 0.12); border-radius: 0.5rem;
  padding: 0.4rem 0.75rem; margin-bottom: 0.4rem; }
.tl-question small, .tl-step small, .tl-cited { opacity: 0.65; }
.tl-step { margin: 0.15rem 0 0.15rem 2.75rem; }
.tl-step summary { cursor: pointer; }
.tl-step pre { background: rgba(128, 128, 128, 0.08); padding: 0.4rem; white-space: pre-wrap;
  font-size: 0.8rem; }
.tl-step .tl-table { overflow: auto; max-height: 320px; }
.tl-step table { border-collapse: collapse; font-size: 0.8rem; }
.tl-step td, .tl-step th { border: 1px solid rgba(128, 128, 128, 0.35); padding: 1px 5px; }
.tl-step th { background: rgba(128, 128, 128, 0.12); font-weight: 600; }
.tl-answer { font-size: 1.2rem; font-weight: 600; margin: 0.4rem 0 0.1rem 2.75rem; }
.tl-older { margin: 0 0 0.6rem 0; font-size: 0.85rem; opacity: 0.7; }
.tl-note { margin: 0.4rem 0 0 2.75rem; padding: 0.3rem 0.6rem; border-radius: 0.4rem;
  background: rgba(255, 193, 7, 0.15); }
.tl-note.tl-error { background: rgba(244, 67, 54, 0.15); }
.tl-confidence, .tl-cited { margin-left: 2.75rem; font-size: 0.85rem; }
.tl-steps .tl-step { margin-left: 0; }
.tl-steps .tl-step summary { list-style: none; font-size: 0.875rem; padding: 0.2rem 0; }
.tl-steps .tl-step summary::-webkit-details-marker { display: none; }
.tl-steps .tl-step summary::after { content: " ▸"; opacity: 0.5; }
.tl-steps .tl-step[open] summary::after { content: " ▾"; }
.tl-mark { display: inline-block; width: 1.4rem; font-weight: 700; }
.tl-mark-complete { color: #21c354; }
.tl-mark-short { color: #808495; }
.tl-mark-error { color: #ff4b4b; }
</style>
"""
"""Colours are translucent greys and tints over the page's own, so the block reads in the
light and the dark theme alike."""
STEP_MARKS = {"running": "…", "complete": "✓", "short": "–", "error": "✗"}
"""A step's state as a mark before its title (the recent turns show the same as icons)."""


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text))


OLDER_TURNS_NOTE = ("Earlier questions are shown as text, with the cells each answer cites "
                    "listed under it. The last {recent} questions have the buttons to open a "
                    "citation in its table, copy, report or edit.")
"""Why the older turns have no buttons (they are one block of HTML, so that a long chat
redraws fast)."""


def older_turns_html(turns: Sequence[Turn], places: Places | None = None,
                     recent: int | None = None) -> str:
    """One HTML block for these finished turns, oldest first; with `recent` (how many
    questions are drawn with their buttons after it), a note first that says so."""
    body = "".join(turn_html(turn, places or {}) for turn in turns)
    note = (f'<div class="tl-older">{_e(OLDER_TURNS_NOTE.format(recent=recent))}</div>'
            if recent else "")
    return f'{TURN_CSS}{CALLS_CSS}<div class="tl-turns">{note}{body}</div>'


def steps_html(steps: Sequence[StepView], places: Places | None = None) -> str:
    """A finished turn's step timeline as one HTML block: each step a native <details>."""
    body = "".join(step_html(step, places or {}) for step in steps)
    return f'{TURN_CSS}{CALLS_CSS}<div class="tl-steps">{body}</div>'


def turn_html(turn: Turn, places: Places) -> str:
    if turn.is_upload:
        lines = "".join(
            f'<div class="{"tl-cited" if item.get("ok") else "tl-note tl-error"}">'
            f'{_e(item.get("message", ""))}</div>' for item in turn.uploads)
        return f'<div class="tl-turn">{lines}</div>'
    question = turn.question or {}
    files = question.get("files") or []
    attached = f"<br><small>Attached: {_e(', '.join(files))}</small>" if files else ""
    outcome = outcome_of(turn.answer, turn.error, active=False)
    steps = close_steps(group_steps(turn.events), outcome)
    superseded = (f'<div class="tl-cited">{_e(SUPERSEDED_NOTE)}</div>'
                  if turn.superseded_by else "")
    return (f'<div class="tl-turn"><div class="tl-question">{_e(question.get("text", ""))}'
            f'{attached}</div>{"".join(step_html(step, places) for step in steps)}'
            f'{superseded}{outcome_html(outcome, turn.answer, turn.error, places)}</div>')


def step_html(step: StepView, places: Places) -> str:
    parts = []
    if step.detail:
        parts.append(f"<div>{_e(step.detail)}</div>")
    if step.error:
        parts.append(f'<div class="tl-note tl-error">'
                     f'{_e(step.error.get("message") or "This step failed.")}</div>')
    if step.sql:
        parts.append(f"<pre>{_e(step.sql)}</pre>")
        if names := sql_names_line(step.sql, places):
            parts.append(f"<div><small>{_e(names)}</small></div>")
    if step.retrieved:
        parts.append(retrieved_html(step.retrieved, places))
    if step.cells or step.evidence_sets:
        line = grounded_line(step.cells, step.evidence_sets, places)
        parts.append(f"<div><small>Grounded cells: {_e(line)}</small></div>")
    if step.table and step.state != "running":
        parts.append(table_html(step.table))
    if step.llm or step.sql_attempts:
        parts.append(_llm_calls(step))
    parts.append(f"<div><small>{_e(details_line(step))}</small></div>")
    mark = (f'<span class="tl-mark tl-mark-{step.status_state}">'
            f'{STEP_MARKS[step.status_state]}</span>')
    return (f'<details class="tl-step"><summary>{mark}{_e(step.label)}</summary>'
            f'{"".join(parts)}</details>')


def _llm_calls(step: StepView) -> str:
    """The step's LLM calls; records that cannot be drawn become a notice, never a lost turn
    (they come from stored transcripts, which older or newer versions may have written)."""
    try:
        return attempts_html(step.sql_attempts, css=False) + calls_html(step.llm, css=False)
    except Exception:
        log.exception("could not show the LLM calls of a %s step", step.node)
        return ('<div class="tl-note">The LLM calls of this step could not be shown here; '
                "the details are in the server log.</div>")


def retrieved_html(items: Sequence[Mapping[str, Any]], places: Places) -> str:
    """What the retrieve step found, as the newest turn lists it (file and sheet, no ids)."""
    columns, rows = retrieved_rows(items, places)
    return "<div><small>Retrieved</small></div>" + _grid(columns, rows)


def _grid(columns: Sequence[Any], rows: Sequence[Sequence[Any]],
          notes: Mapping[str, str] | None = None) -> str:
    tips = notes or {}
    head = "".join(f'<th title="{_e(tips[c])}">{_e(c)}</th>' if c in tips else f"<th>{_e(c)}</th>"
                   for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in row) + "</tr>"
                   for row in rows)
    return f'<div class="tl-table"><table><tr>{head}</tr>{body}</table></div>'


def table_html(table: Mapping[str, Any]) -> str:
    """A step table with its header paths and row paths, as the recent turns show it."""
    view = table_view(table)
    return (f"<div><small>{_e(view.caption())}</small></div>"
            + _grid(view.columns, view.rows, view.notes))


def outcome_html(outcome: str, answer: Mapping[str, Any] | None, error: str | None,
                 places: Places | None = None) -> str:
    if outcome == "failed":
        return (f'<div class="tl-note tl-error">'
                f'{_e(error or "The question could not be answered.")}</div>')
    if outcome == "interrupted":
        return f'<div class="tl-note">{_e(INTERRUPTED_MESSAGE)}</div>'
    if answer is None:
        return ""
    message = answer_message(answer)
    if message is not None:
        out = f'<div class="tl-note">{_e(message)}</div>'
    else:
        out = (f'<div class="tl-answer">{_e(answer_text(answer))}</div>'
               f'<div class="tl-confidence">{_e(confidence_text(answer))}</div>')
        if failure := model_failure_note(answer):
            out += f'<div class="tl-note">{_e(failure)}</div>'
    usage = usage_line(answer)
    if usage:
        out += f'<div class="tl-confidence">{_e(usage)}</div>'
    sets = list(answer.get("evidence_sets") or [])
    evidence = list(answer.get("evidence") or [])
    labels = [set_line(sets, places or {})] if sets else []
    labels += evidence_labels(evidence[:50], places or {})
    if labels:
        out += f'<div class="tl-cited">Cited cells: {_e(", ".join(labels))}</div>'
    return out
