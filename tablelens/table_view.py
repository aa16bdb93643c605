"""How an intermediate table reads on screen: header paths and row paths, not SQL names.

The wide views' column names (`_row`, `level_1`, `H1_2024_Q2`) are the SQL contract and stay
in the stored step tables; people read each column's header path and each row's path. A table
payload from the engine carries `labels` (one per column), `row_labels` (the row path of each
row, when it has a `_row` column) and a `title`; payloads stored before those existed are
labelled from their column names alone. Pure functions: the app lays the result out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.text import plural
from storage.slug import unique_labels
from storage.views import PATH_SEPARATOR, ROW_COLUMN

SHEET_ROW = "Sheet row"
ROW_PATH = "Row"
DEFAULT_TITLE = "Intermediate table"

_LEVEL = re.compile(r"level_(\d+)")
_PLAIN = {"avg": "Average", "total": "Total", "value": "Value", "n": "Count",
          "count": "Count", "diff": "Difference", "pct_change": "Percentage change"}


def column_label(name: Any) -> str:
    """The words for a column that came without a label ("_row" is "Sheet row")."""
    text = "" if name is None else str(name)
    if text == ROW_COLUMN:
        return SHEET_ROW
    if level := _LEVEL.fullmatch(text):
        return f"Row level {level.group(1)}"
    return _PLAIN.get(text.casefold(), text)


@dataclass(frozen=True)
class TableView:
    """An intermediate table as shown: a caption, unique column labels and its rows."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    count: int
    """Rows in the whole table (the event carries at most 50)."""
    sheet_row: str | None = None
    """The label of the sheet-row column (shown small, last), when there is one."""
    labels: dict[str, str] | None = None
    """Column name -> label, for the downloads of the whole stored table."""
    notes: dict[str, str] | None = None
    """Shown column label -> its header tooltip (a derived column's instruction)."""

    @property
    def truncated(self) -> bool:
        return self.count > len(self.rows)

    def caption(self) -> str:
        """"Rows used, from report.xlsx (sheet P&L): 3 rows" (with how many are shown)."""
        shown = (f", the first {len(self.rows)} shown" if self.truncated else "")
        return f"{self.title}: {plural(self.count, 'row')}{shown}"


def _fit(row: Sequence[Any], width: int) -> list[Any]:
    """A row cut or padded to the table's width (a malformed payload still shows)."""
    cells = list(row)[:width]
    return cells + [None] * (width - len(cells))


def _strings(items: Any, n: int) -> list[str] | None:
    if not isinstance(items, Sequence) or isinstance(items, str) or len(items) != n:
        return None
    return ["" if x is None else str(x) for x in items]


def _parts_of_paths(values: list[Any], parts: list[set[str]]) -> bool:
    """Whether a column only repeats a part of each row's path (blanks allowed)."""
    texts = [v for v in values if v not in (None, "")]
    return bool(texts) and all(isinstance(v, str) and v in p
                               for v, p in zip(values, parts, strict=True)
                               if v not in (None, ""))


def table_view(table: Mapping[str, Any]) -> TableView:
    """Lay out a step event's table: row path first, header paths as column labels, the sheet
    row last."""
    names = [str(c) for c in table.get("columns") or []]
    rows = [_fit(r, len(names)) for r in table.get("rows") or []
            if isinstance(r, Sequence) and not isinstance(r, str)]
    count = table.get("row_count")
    count = count if isinstance(count, int) and count >= len(rows) else len(rows)
    labels = _strings(table.get("labels"), len(names)) or [column_label(n) for n in names]
    labels = [label or column_label(name) for label, name in zip(labels, names, strict=True)]
    order = list(range(len(names)))
    sheet_row = None
    if ROW_COLUMN in names:
        i = names.index(ROW_COLUMN)
        order = [j for j in order if j != i] + [i]
    shown = [labels[j] for j in order]
    origin: list[int | None] = list(order)  # each shown column's index in the payload
    body = [[row[j] for j in order] for row in rows]
    paths = _strings(table.get("row_labels"), len(rows)) if ROW_COLUMN in names else None
    if paths is not None and any(paths):
        parts = [set(path.split(PATH_SEPARATOR)) for path in paths]
        # A row-level column repeats a part of each row's path: the path says it once; one
        # blank in every row shown (a level these rows do not reach) says nothing.
        keep = [k for k in range(len(shown))
                if not _parts_of_paths([r[k] for r in body], parts)
                and not (_LEVEL.fullmatch(names[order[k]])
                         and all(r[k] in (None, "") for r in body))]
        shown = [ROW_PATH, *(shown[k] for k in keep)]
        origin = [None, *(origin[k] for k in keep)]
        body = [[path, *(row[k] for k in keep)] for path, row in zip(paths, body, strict=True)]
    unique = unique_labels(shown)
    if ROW_COLUMN in names:
        sheet_row = unique[-1]
    title = str(table.get("title") or "").strip() or DEFAULT_TITLE
    tips = _tips(table.get("notes"), len(names))
    notes = {unique[i]: tips[j] for i, j in enumerate(origin) if j is not None and tips[j]}
    return TableView(title, unique, body, count, sheet_row,
                     dict(zip(names, unique_labels(labels), strict=True)), notes or None)


def _tips(items: Any, n: int) -> list[str]:
    """One tooltip per column ("" for none); none at all when the payload's list is not one
    per column (a malformed or older payload still shows)."""
    if not isinstance(items, Sequence) or isinstance(items, str) or len(items) != n:
        return [""] * n
    return [x if isinstance(x, str) else "" for x in items]


def download_columns(view: TableView, columns: Sequence[Any]) -> list[str]:
    """The header of a download of the whole table: each stored column by its label."""
    mapping = view.labels or {}
    return [mapping.get(str(c), column_label(c)) for c in columns]
