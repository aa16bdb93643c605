"""The written forms of a column's numbers over the whole table's rows, a fact of the column.

An aggregate writes its number as its cells write theirs, with their unit
(`results.computed`), read from every cited cell's text, kind, unit and scale: 20,000 values
on a 1M-cell table, on every question. What that reading needs is a handful of them: one per
shape of text (digits as 9) with each kind, unit and scale (`forms_of`). Over `whole_rows`
they are a fact of the column, computed after an upload with its doubts (`prepare_doubts`)
and stored with the table's facts; over other rows they are found in SQL (`CellScan.forms`).
"""

from __future__ import annotations

from collections.abc import Iterable

from agent.column_doubts import whole_rows
from agent.display import DIGITS_AS_NINE, one_text_tells
from agent.frame import Frame, Value
from agent.table_profile import table_fact


def column_forms(frame: Frame, key: str) -> list[Value] | None:
    """`forms_of` a column's values over `whole_rows`: kept, stored, else computed."""
    return table_fact(frame, f"forms:{key}",
                      lambda f: forms_of(f.values_of(key, whole_rows(f))),
                      _dump, _load)


def forms_of(values: Iterable[Value | None]) -> list[Value] | None:
    """Values that stand for the measurable ones where `computed` reads their written form
    and unit: the first of each shape of text with each kind, unit and scale, in order.
    None when a shape's texts must all be read (`one_text_tells`)."""
    first: dict[tuple, Value] = {}
    for v in values:
        if v is not None and v.measurable:
            first.setdefault((v.text.translate(DIGITS_AS_NINE), v.kind, v.unit, v.scale,
                              v.scale_source), v)
    if not all(one_text_tells(shape) for shape, *_ in first):
        return None
    return list(first.values())


def _dump(found: list[Value] | None) -> list[list] | None:
    return None if found is None else [list(v) for v in found]


def _load(found: list[list] | None) -> list[Value] | None:
    return None if found is None else [Value(*fields) for fields in found]
