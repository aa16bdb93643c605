"""A chat as one download: a zip of the transcript in Markdown (questions, every step with its
SQL and a preview of its table, answers with their cited cells, uploads) and an .xlsx with every
step table whole, one sheet each, named as the Markdown names it.

Pure functions over the stored transcript (`tablelens/chat_store.py`) and the workspace's step
tables (`tablelens/exports.py`'s `full_table`); the app builds it only when the download is
clicked.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tablelens.chat_store import Turn
from tablelens.chat_view import NODE_LABELS, SUPERSEDED_NOTE
from tablelens.exports import full_table, sheets_xlsx

PREVIEW_ROWS = 10
"""Rows of a step table written into the Markdown; the .xlsx has them all."""


def chat_zip(turns: Sequence[Turn], db_path: str | Path, title: str) -> bytes:
    """The zip: `chat.md` and `step-tables.xlsx`."""
    sheets: list[tuple[str, list[Any], list[list[Any]]]] = []
    markdown = chat_markdown(turns, title, db_path, sheets)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("chat.md", markdown)
        z.writestr("step-tables.xlsx", sheets_xlsx(sheets or [("no step tables", [], [])]))
    return out.getvalue()


def chat_markdown(turns: Sequence[Turn], title: str, db_path: str | Path,
                  sheets: list[tuple[str, list[Any], list[list[Any]]]] | None = None) -> str:
    """The transcript in Markdown; each step table's full rows go into `sheets` (its sheet
    name, columns, rows) for the workbook."""
    sheets = [] if sheets is None else sheets
    lines = [f"# {_text(title)}", ""]
    question_no = 0
    for turn in turns:
        if turn.is_upload:
            lines += [f"- {_text(u.get('message', ''))}" for u in turn.uploads] + [""]
            continue
        if turn.question is None:
            continue
        question_no += 1
        lines += [f"## Question {question_no}: {_text(turn.question.get('text', ''))}", ""]
        for n, event in enumerate(e for e in turn.events if e.get("phase") == "end"):
            lines += _step(event, question_no, n + 1, db_path, sheets)
        if turn.superseded_by:
            lines += [f"*{SUPERSEDED_NOTE}*", ""]
        lines += _outcome(turn)
    return "\n".join(lines).rstrip() + "\n"


def _step(event: dict[str, Any], question_no: int, step_no: int, db_path: str | Path,
          sheets: list[tuple[str, list[Any], list[list[Any]]]]) -> list[str]:
    node = NODE_LABELS.get(event.get("node", ""), event.get("node", ""))
    lines = [f"### {node}: {_text(event.get('title', ''))}", ""]
    if event.get("detail"):
        lines += [_text(event["detail"]), ""]
    sql = event.get("sql")
    if sql:
        lines += ["```sql", str(sql), "```", ""]
    table = event.get("table")
    if table:
        columns, rows = full_table(db_path, table.get("name", ""), table.get("columns", []),
                                   table.get("rows", []))
        labels = table.get("labels") if len(table.get("labels") or []) == len(columns) \
            else columns
        sheet = f"Q{question_no} step {step_no}"
        sheets.append((sheet, list(labels), rows))
        shown = rows[:PREVIEW_ROWS]
        lines += [f"{_text(table.get('title') or table.get('name', ''))} ({len(rows)} "
                  f"row{'s' * (len(rows) != 1)}; in full in step-tables.xlsx, sheet "
                  f"\u201c{sheet}\u201d):", ""]
        lines += _markdown_table(labels, shown)
        if len(rows) > len(shown):
            lines += [f"\u2026 {len(rows) - len(shown)} more rows", ""]
    cells = event.get("cells") or []
    if cells:
        lines += ["Cells: " + ", ".join(_cited(c) for c in cells), ""]
    return lines


def _outcome(turn: Turn) -> list[str]:
    answer = turn.answer or {}
    if answer.get("answer"):
        lines = [f"**Answer:** {_text(answer['answer'])}", ""]
        cited = answer.get("evidence") or []
        if cited:
            lines += ["Cited: " + ", ".join(_cited(c) for c in cited), ""]
        return lines
    error = (answer.get("error") or {}).get("message") or turn.error
    return [f"**No answer:** {_text(error or 'the question was not answered')}", ""]


def _cited(cell: dict[str, Any]) -> str:
    where = f"{cell.get('sheet')}!{cell.get('ref')}" if cell.get("sheet") else cell.get("ref", "")
    return f"{where} = {_text(cell.get('text', ''))}"


def _markdown_table(columns: Sequence[Any], rows: Sequence[Sequence[Any]]) -> list[str]:
    head = "| " + " | ".join(_cell(c) for c in columns) + " |"
    rule = "| " + " | ".join("---" for _ in columns) + " |"
    body = ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return [head, rule, *body, ""]


def _cell(value: Any) -> str:
    return "" if value is None else _text(str(value)).replace("|", "\\|")


def _text(value: Any) -> str:
    """One line of text (a cell or a label may hold line breaks)."""
    return " ".join(str(value).split())

