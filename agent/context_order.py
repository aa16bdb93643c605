"""The rows an extreme, an order or a numeric condition needs, for a focused context to show
first.

A question such as "which team scored the most goals" or "who finished last" is answered by
one column of every row, which a small budget cannot show row by row. The rows that decide it
are few, though: the top and bottom rows by the numeric or dated column the question names
(among the rows it names, such as "in the South region", and among all), and the first and
last rows of the sheet. "In which county did Wyckoff get fewer than 5 votes" is decided by the
rows that meet the condition. `priority_rows` finds them from the question's analysis
(`agent/question.py`) and the columns and rows the question names, so that the context builder
shows them before the other rows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.frame import Frame, Value
from agent.question import Analysis, Condition
from agent.table_facts import total_labelled

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
CONDITION_ROWS = 6
"""Rows shown first that meet the question's numeric conditions ("less than 5 votes")."""


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
    # A dash or an ellipsis stands for no value: it does not count against the numbers.
    filled = [r for r in frame.rows
              if (v := column.get(r)) is not None and any(ch.isalnum() for ch in v.text)]
    values = {r: v for r in filled if (v := _order_value(column[r])) is not None}
    dates = {r: v for r, v in values.items() if isinstance(v, str)}
    numbers = {r: v for r, v in values.items() if not isinstance(v, str)}
    best: dict[int, Any] = max((dates, numbers), key=len)
    if len(best) < MIN_ORDERED or len(best) < NUMERIC_SHARE * len(filled):
        return []
    return sorted(best, key=lambda r: best[r])


def priority_rows(frame: Frame, analysis: Analysis, col_scores: Mapping[str, float],
                  named_rows: Mapping[int, float] | None = None
                  ) -> tuple[list[int], str | None]:
    """The rows that decide the question's extreme, order or numeric conditions, best first,
    and the column an extreme or order is taken over (None when the question names none).

    An extreme is taken over the rows the question names too ("the highest amount for
    *local*", "the most lives saved by *antenatal care*"), and rows labelled as totals are
    never its top: they head every column of amounts."""
    rows = condition_rows(frame, analysis, col_scores)
    extreme = analysis.superlative or {"argmax": "max", "max": "max", "argmin": "min",
                                       "min": "min", "first": "min", "last": "max"
                                       }.get(analysis.op)
    if extreme is None:
        return rows, None
    key = measure_column(frame, col_scores, temporal=analysis.op in ("first", "last"))
    if key is not None:
        # The rows labelled as totals: the rows found to sum others (`profile`) would cost a
        # scan of the whole table on its first question, seconds at 1M cells.
        totals = total_labelled(frame)
        ordered = [r for r in _ordered(frame, key) if r not in totals]
        if extreme == "max":
            ordered.reverse()
        named = set(named_rows or ())
        if named and len(named) < len(frame.rows):
            rows += [r for r in ordered if r in named][:EXTREME_ROWS]
        rows += ordered[:EXTREME_ROWS] + ordered[::-1][:OTHER_END_ROWS]
    # "The first venue on the list", "the last hospital in the table": the sheet's order.
    if analysis.op == "first":
        rows += frame.rows[:ORDER_ROWS]
    elif analysis.op == "last":
        rows += frame.rows[-ORDER_ROWS:][::-1]
    return list(dict.fromkeys(rows)), key


def condition_rows(frame: Frame, analysis: Analysis, col_scores: Mapping[str, float]
                   ) -> list[int]:
    """The rows that meet the question's numeric conditions, each on the best named column of
    numbers its words name (the words after the number first: "less than 5 *votes*"), and
    met by some rows but not all: those meeting the most conditions first, at most
    CONDITION_ROWS."""
    met: dict[int, int] = {}
    conditions = [c for c in analysis.conditions if not c.on_year]
    if not conditions:
        return []
    data = {a.key for a in frame.data_attrs}
    named = [k for k in sorted(col_scores, key=lambda k: -col_scores[k]) if k in data]
    for condition in conditions:
        # The words of the condition must name the column: "between 6 and 17 years old" is
        # an age band of the rows, not a bound on the best named column's numbers.
        for words in (set(condition.words_after), set(condition.words_before)):
            rows = next((rows for k in named if frame.attr(k).tokens & words
                         and _ordered(frame, k)
                         and 0 < len(rows := _meeting(frame, k, condition)) < len(frame.rows)),
                        None)
            if rows is not None:
                for r in rows:
                    met[r] = met.get(r, 0) + 1
                break
    return sorted(met, key=lambda r: -met[r])[:CONDITION_ROWS]


def _meeting(frame: Frame, key: str, condition: Condition) -> list[int]:
    column = frame.column(key)
    return [r for r in frame.rows if (value := column.get(r)) is not None
            and value.number is not None and _meets(float(value.number), condition)]


def _meets(number: float, condition: Condition) -> bool:
    bound = condition.number
    if condition.op == "between":
        return condition.high is not None and min(bound, condition.high) <= number <= max(
            bound, condition.high)
    return {">": number > bound, "<": number < bound, ">=": number >= bound,
            "<=": number <= bound, "=": number == bound}[condition.op]
