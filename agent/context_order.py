"""The rows an extreme or an order needs, for a focused context to show first.

A question such as "which team scored the most goals" or "who finished last" is answered by
one column of every row, which a small budget cannot show row by row. The rows that decide it
are few, though: the top and bottom rows by the numeric or dated column the question names,
and the first and last rows of the sheet. `priority_rows` finds them from the question's
analysis (`agent/question.py`) and the columns the question names, so that the context builder
shows them before the other rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.frame import Frame, Value
from agent.question import Analysis

EXTREME_ROWS = 3
"""Rows shown from the asked end of the order ("the most": the top 3)."""
OTHER_END_ROWS = 1
"""Rows shown from the other end: a rank or a time reads the other way round ("first" place
is the lowest number, "the fastest" the shortest time)."""
ORDER_ROWS = 2
"""Rows shown from the start or the end of the sheet for "first" or "last"."""
NUMERIC_SHARE = 0.5
"""A column orders the rows when at least this share of its filled cells are numbers, or
dates."""
MIN_ORDERED = 2
YEARS = (1000, 2100)
"""Whole numbers in this range, in a column of nothing else, are years."""


def _order_value(value: Value | None) -> str | float | None:
    """What a cell is ordered by: its date (ISO text) or its number."""
    if value is None:
        return None
    return value.date if value.date is not None else value.number


def measure_column(frame: Frame, col_scores: Mapping[str, float], *, temporal: bool = False
                   ) -> str | None:
    """The named column an extreme or an order is taken over: the best named data column
    whose filled cells are mostly numbers or mostly dates (with `temporal`, dates or years:
    "the first", "the last one born" read a time, not any number)."""
    data = {a.key for a in frame.data_attrs}
    for key in sorted((k for k in col_scores if k in data), key=lambda k: -col_scores[k]):
        ordered = _ordered(frame, key)
        if ordered and (not temporal or _is_time(frame, key, ordered)):
            return key
    return None


def _is_time(frame: Frame, key: str, rows: list[int]) -> bool:
    column = frame.column(key)
    values = [column[r] for r in rows]
    return all(v.date is not None or (isinstance(v.number, int | float) and
                                      float(v.number).is_integer() and
                                      YEARS[0] <= v.number <= YEARS[1]) for v in values)


def _ordered(frame: Frame, key: str) -> list[int]:
    """The rows of a column whose filled cells are mostly numbers or mostly dates, by that
    value, smallest first; [] when it is neither. Empty cells do not count against it: a
    "Points" column is often filled for the first few rows only."""
    column = frame.column(key)
    filled = [r for r in frame.rows if (v := column.get(r)) is not None and v.text.strip()]
    values = {r: v for r in filled if (v := _order_value(column[r])) is not None}
    dates = {r: v for r, v in values.items() if isinstance(v, str)}
    numbers = {r: v for r, v in values.items() if not isinstance(v, str)}
    best: dict[int, Any] = max((dates, numbers), key=len)
    if len(best) < MIN_ORDERED or len(best) < NUMERIC_SHARE * len(filled):
        return []
    return sorted(best, key=lambda r: best[r])


def priority_rows(frame: Frame, analysis: Analysis, col_scores: Mapping[str, float]
                  ) -> tuple[list[int], str | None]:
    """The rows that decide the question's extreme or order, best first, and the
    column they are ordered by (None when the question names none)."""
    extreme = analysis.superlative or {"argmax": "max", "max": "max", "argmin": "min",
                                       "min": "min", "first": "min", "last": "max"
                                       }.get(analysis.op)
    if extreme is None:
        return [], None
    rows: list[int] = []
    key = measure_column(frame, col_scores, temporal=analysis.op in ("first", "last"))
    if key is not None:
        ordered = _ordered(frame, key)
        if extreme == "max":
            ordered.reverse()
        rows += ordered[:EXTREME_ROWS] + ordered[::-1][:OTHER_END_ROWS]
    # "The first venue on the list", "the last hospital in the table": the sheet's order.
    if analysis.op == "first":
        rows += frame.rows[:ORDER_ROWS]
    elif analysis.op == "last":
        rows += frame.rows[-ORDER_ROWS:][::-1]
    return list(dict.fromkeys(rows)), key
