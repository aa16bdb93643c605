"""The prompt's view of the candidate tables: header paths, types, units and cells, within a
token budget, the same text for the same workspace and question.

A table whose whole text fits the budget is shown whole: every column with its id, header
path, type and unit, then every data row with its id (its sheet row), row path and cells as
the sheet shows them. A larger table is shown as its columns, each with up to three sample
values, and as many row paths as the rest of the budget holds, with a note of how many rows
there are. Tables are added best first while the budget lasts; the first is always shown,
summarised if it must be. Tokens are estimated as characters / 4 (no tokenizer is available
offline: tiktoken downloads its encodings at run time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openpyxl.utils import get_column_letter

from agent.frame import Attr, Frame
from agent.llm.reply import Shown

MAX_TABLES = 4
SAMPLE_VALUES = 3
MAX_CELL_CHARS = 60


def estimate_tokens(text: str) -> int:
    """Roughly how many tokens a text costs (characters / 4, rounded up)."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class TableContext:
    """The tables as the prompt shows them, and how."""

    text: str
    shown: list[Shown]
    whole: list[bool]
    """Per shown table: True when every cell was shown."""


def build_context(frames: Sequence[Frame], budget_tokens: int) -> TableContext:
    """Show the candidate tables (best first) within `budget_tokens`."""
    parts: list[str] = []
    shown: list[Shown] = []
    whole: list[bool] = []
    left = budget_tokens
    for index, frame in enumerate(frames[:MAX_TABLES]):
        table = Shown.of(index, frame)
        full = render_whole(table, left)
        if full is not None:
            text, is_whole = full, True
        else:
            text, is_whole = render_summary(table, left if shown else max(left, 400)), False
            if shown and estimate_tokens(text) > left:
                break
        parts.append(text)
        shown.append(table)
        whole.append(is_whole)
        left -= estimate_tokens(text)
        if left <= 0:
            break
    return TableContext("\n\n".join(parts), shown, whole)


def _heading(table: Shown) -> str:
    frame = table.frame
    head = f"## {table.id}: {frame.file_name}, sheet {frame.sheet}"
    if frame.title:
        head += f" ({_clip(frame.title)})"
    lines = [head, f"{len(frame.rows)} data rows; columns:"]
    for cid, key in table.column_ids.items():
        lines.append(f"{cid} = {_describe_column(frame.attr(key))}")
    if frame.wide:
        columns = ", ".join(f'{cid} "{_quoted(key)}"' for cid, key in table.column_ids.items())
        lines.append(f'SQL view "{frame.wide}": "_row" (sheet row), {columns}')
    for note in frame.notes[:3]:
        lines.append(f"note: {_clip(note, 200)}")
    return "\n".join(lines)


def _describe_column(attr: Attr) -> str:
    """ "H1 2024 > Q2 [number, USD] (sheet column D)": its path, type, unit and where it is,
    so a cell is `r<row>` of a column letter, as the citations show it."""
    where = f" (sheet column {get_column_letter(attr.col)})" if attr.col else ""
    if attr.kind == "level":
        label = f" ({attr.label})" if attr.path else ""
        return f"row header {attr.index + 1}{label}{where}"
    kind = "number" if attr.numeric else ("duration/ordinal" if attr.derivable else "text")
    unit = f", {attr.unit}" if attr.unit else ""
    return f"{attr.label} [{kind}{unit}]{where}"


def _row_line(table: Shown, row: int) -> str:
    frame = table.frame
    cells = []
    for key in table.column_ids.values():
        value = frame.value(row, key)
        cells.append(_clip(value.text) if value is not None else "")
    return f"r{row} | " + " | ".join(cells)


def render_whole(table: Shown, budget_tokens: int) -> str | None:
    """Every column and every data row of a table; None as soon as that exceeds the budget
    (a large table is never written out just to be measured)."""
    lines = [_heading(table), "cells:", "row | " + " | ".join(table.column_ids)]
    chars = len("\n".join(lines))  # counted as the joined text is, so the estimate is its own
    for r in table.frame.rows:
        line = _row_line(table, r)
        chars += len(line) + 1
        if (chars + 3) // 4 > budget_tokens:
            return None
        lines.append(line)
    text = "\n".join(lines)
    return text if estimate_tokens(text) <= budget_tokens else None


def render_summary(table: Shown, budget_tokens: int) -> str:
    """The columns with sample values, then as many rows as the budget holds."""
    frame = table.frame
    lines = [_heading(table), "sample values per column:"]
    for cid, key in table.column_ids.items():
        seen: list[str] = []
        for r in frame.rows:
            value = frame.value(r, key)
            if value is not None and value.text.strip() and value.text not in seen:
                seen.append(_clip(value.text, 40))
                if len(seen) == SAMPLE_VALUES:
                    break
        lines.append(f"{cid}: " + "; ".join(seen))
    lines.append("cells (the first rows; pick others with `where` or all rows with "
                 '["all"]):')
    lines.append("row | " + " | ".join(table.column_ids))
    used = estimate_tokens("\n".join(lines))
    shown = 0
    for r in frame.rows:
        line = _row_line(table, r)
        cost = estimate_tokens(line) + 1
        if used + cost > budget_tokens:
            break
        lines.append(line)
        used += cost
        shown += 1
    if shown < len(frame.rows):
        lines.append(f"... {len(frame.rows) - shown} more rows not shown "
                     f"(r{frame.rows[shown]} to r{frame.rows[-1]})")
    return "\n".join(lines)


def _quoted(name: str) -> str:
    return name.replace('"', '""')


def _clip(text: str, limit: int = MAX_CELL_CHARS) -> str:
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
