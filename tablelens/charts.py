"""Decide whether a result deserves a chart, and which: a pure function of its rows.

A chart is drawn below a table that is a series or a small grouped table: one label per row
(from its text columns), one to three numeric columns, two to 50 rows, labels all different.
Labels that read as periods (years, quarters, halves, months, dates) make a line chart; other
labels a bar chart. Columns whose name starts with "_" (such as the sheet row `_row`), or that
the caller names as bookkeeping, are never plotted or used as labels. A column holding numbers
and blanks is a series with gaps; one holding numbers and text is a label column.

`vega_lite_spec` writes the chart as a plain Vega-Lite dict: building it through Altair (what
`st.bar_chart` does) validates a JSON schema on every draw, about 0.1 s a chart.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from storage.slug import unique_labels

MIN_ROWS = 2
MAX_ROWS = 50
MAX_SERIES = 3
LABEL_SEPARATOR = " > "

_MONTHS = ("jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|"
           "june|july|august|september|october|november|december")
_PERIOD = re.compile(
    rf"^(?:(?:fy|cy)\s*)?(?:19|20)\d\d(?:[-/](?:\d\d?|(?:19|20)\d\d))?(?:[-/]\d\d?)?$|"
    rf"^(?:q[1-4]|h[12])(?:\s*(?:fy\s*)?'?(?:(?:19|20)?\d\d))?$|"
    rf"^(?:(?:19|20)\d\d\s*)?(?:q[1-4]|h[12])$|"
    rf"^(?:{_MONTHS})\.?(?:\s*'?(?:(?:19|20)?\d\d))?$", re.IGNORECASE)


@dataclass(frozen=True)
class ChartSpec:
    """A chart to draw: labels along x, one line or bar series per numeric column."""

    kind: Literal["bar", "line"]
    label: str
    """Name of the label axis."""
    labels: tuple[str, ...]
    series: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]
    """values[i][j]: series i at label j."""



def _is_number(value: Any) -> bool:
    """A finite int or float (not a bool): what a chart can place."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _column_kind(values: Sequence[Any]) -> Literal["number", "label", "empty"]:
    present = [v for v in values if v is not None and v != ""]
    if not present:
        return "empty"
    if not all(_is_number(v) for v in present):
        return "label"
    return "number" if len(present) >= MIN_ROWS else "empty"  # one point is not a series


def _labels(rows: Sequence[Sequence[Any]], idx: list[int]) -> tuple[list[str], bool] | None:
    """One label per row from the label columns: the most specific part when that is unique
    ("Salaries"), else all parts joined ("Operating Expenses > Salaries"), else None. Also
    say whether the labels are the most specific parts."""
    parts = [[str(row[i]).strip() for i in idx if row[i] not in (None, "")] for row in rows]
    if any(not p for p in parts):
        return None
    if len(idx) == 1:  # one column of row paths ("Operating Expenses > Rent"): its parts
        parts = [p[0].split(LABEL_SEPARATOR) for p in parts]
    for labels, leaf in (([p[-1] for p in parts], True),
                         ([LABEL_SEPARATOR.join(p) for p in parts], False)):
        if len(set(labels)) == len(labels):
            return labels, leaf
    return None


def looks_like_period(label: str) -> bool:
    """Tell whether a label names a period: 2024, FY2023, 2023-24, Q1, Q2 2024, H1, Mar 2024."""
    text = label.strip()
    last = text.rsplit(LABEL_SEPARATOR, 1)[-1].strip()
    return bool(_PERIOD.match(text) or _PERIOD.match(last))


def chart_for(columns: Sequence[str], rows: Sequence[Sequence[Any]], *,
              skip: Collection[str] = ()) -> ChartSpec | None:
    """Return the chart for a table, or None when it is not a series or small grouped table.

    Columns named in `skip` (or starting with "_") are bookkeeping, such as the sheet row.
    """
    if not MIN_ROWS <= len(rows) <= MAX_ROWS or any(len(r) != len(columns) for r in rows):
        return None
    kinds = [_column_kind([r[i] for r in rows])
             if not str(c).startswith("_") and c not in skip else "empty"
             for i, c in enumerate(columns)]
    numeric = [i for i, k in enumerate(kinds) if k == "number"]
    label_idx = [i for i, k in enumerate(kinds) if k == "label"]
    if not 1 <= len(numeric) <= MAX_SERIES or not label_idx:
        return None
    found = _labels(rows, label_idx)
    if found is None:
        return None
    labels, leaf = found
    series = tuple(unique_labels([columns[i] for i in numeric]))
    label_name = (str(columns[label_idx[-1]]) if leaf or len(label_idx) == 1
                  else LABEL_SEPARATOR.join(str(columns[i]) for i in label_idx))
    if label_name in series:
        label_name = f"{label_name} (label)"
    # A numeric column may still hold blanks (None or ""): those points are gaps.
    values = tuple(tuple(float(r[i]) if _is_number(r[i]) else None for r in rows)
                   for i in numeric)
    kind: Literal["bar", "line"] = (
        "line" if len(labels) >= 3 and all(looks_like_period(x) for x in labels) else "bar")
    return ChartSpec(kind, label_name, tuple(labels), series, values)


def chart_for_answer(answer: Mapping[str, Any]) -> ChartSpec | None:
    """Return a chart of a multi-item numeric answer, labelled by its cited cells, or None."""
    values = answer.get("values") or []
    if not MIN_ROWS <= len(values) <= MAX_ROWS or not all(_is_number(v) for v in values):
        return None
    evidence = answer.get("evidence") or []
    if len(evidence) == len(values):
        labels = [f"{e.get('sheet', '')}!{e.get('ref', '')}" for e in evidence]
    else:
        labels = [str(i) for i in range(1, len(values) + 1)]
    if len(set(labels)) != len(labels):
        labels = [str(i) for i in range(1, len(values) + 1)]
    name = "value" + (f" ({answer['unit']})" if answer.get("unit") else "")
    return ChartSpec("bar", "item", tuple(labels), (name,),
                     (tuple(float(v) for v in values),))



def vega_lite_spec(spec: ChartSpec) -> dict[str, Any]:
    """Return the chart as a Vega-Lite spec with its data inline.

    The data is long-form (label, series, value) under fixed field names, so labels and header
    paths holding dots, brackets or quotes never become Vega field paths; they appear only as
    values and titles. Rows keep their table order.
    """
    values = [{"label": label, "series": name, "value": spec.values[i][j]}
              for i, name in enumerate(spec.series) for j, label in enumerate(spec.labels)]
    several = len(spec.series) > 1
    value_title = spec.series[0] if not several else "Value"
    label_axis = {"field": "label", "type": "ordinal" if spec.kind == "line" else "nominal",
                  "sort": list(spec.labels), "title": spec.label,
                  "axis": {"labelLimit": 220}}
    value_axis = {"field": "value", "type": "quantitative", "title": value_title}
    encoding: dict[str, Any] = {
        "tooltip": [{"field": "label", "title": spec.label},
                    *([{"field": "series", "title": "Series"}] if several else []),
                    {"field": "value", "title": value_title, "format": ","}]}
    if several:
        encoding["color"] = {"field": "series", "type": "nominal", "title": None,
                             "sort": list(spec.series)}
    if spec.kind == "line":
        encoding.update(x=label_axis, y=value_axis)
        mark: dict[str, Any] = {"type": "line", "point": True}
        height = 220
    else:
        encoding.update(y=label_axis, x=value_axis)
        if several:
            encoding["yOffset"] = {"field": "series", "sort": list(spec.series)}
        mark = {"type": "bar"}
        height = min(50 + 30 * len(spec.labels) * len(spec.series), 480)
    return {"data": {"values": values}, "mark": mark, "encoding": encoding, "height": height}
