"""How the prompt writes a table: its heading (header paths, types, units, sheet columns and SQL
view), its row lines (`r<sheet row> | cells`), and the whole table when it fits a budget.

`agent/context_builder.py` puts these together for a question within a token budget (a table
that fits whole, else its schema and the rows the question names); `estimate_tokens` is the
character estimate the LLM client's call budget uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from openpyxl.utils import get_column_letter

from agent.frame import Attr, Frame
from agent.llm.reply import Shown

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


def place(frame: Frame) -> str:
    """Where a table is: its file, and its sheet unless that is only the file's name again (a
    CSV's one sheet is named after its file)."""
    if frame.sheet == PurePath(frame.file_name).stem:
        return frame.file_name
    return f"{frame.file_name}, sheet {frame.sheet}"


def _heading(table: Shown) -> str:
    frame = table.frame
    head = f"## {table.id}: {place(frame)}"
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


def _quoted(name: str) -> str:
    return name.replace('"', '""')


def _clip(text: str, limit: int = MAX_CELL_CHARS) -> str:
    text = " ".join(text.split()).replace("|", "/")
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
