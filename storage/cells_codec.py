"""Store grid cells as rows of the `cells` table and rebuild them exactly (no pickle)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ingest.grid import Cell, Style, Value

SQLITE_INT_MIN, SQLITE_INT_MAX = -(2**63), 2**63 - 1
"""The integers SQLite stores exactly (others go in as text or as reals)."""


def sql_text(text: str | None) -> str:
    """Quote text as an SQL string literal (None as NULL), for values written into SQL."""
    return "NULL" if text is None else "'" + text.replace("'", "''") + "'"


def encode_raw(raw: Value) -> tuple[Any, str]:
    """Return (SQLite-storable value, type tag) for a raw cell value."""
    if raw is None:
        return None, "empty"
    if isinstance(raw, bool):
        return int(raw), "bool"
    if isinstance(raw, int):
        # SQLite integers are 64-bit; larger ones survive as text.
        return (raw, "int") if SQLITE_INT_MIN <= raw <= SQLITE_INT_MAX else (str(raw), "bigint")
    if isinstance(raw, float):
        return raw, "float"
    if isinstance(raw, dt.datetime):
        return raw.isoformat(), "datetime"
    if isinstance(raw, dt.date):
        return raw.isoformat(), "date"
    if isinstance(raw, dt.time):
        return raw.isoformat(), "time"
    return str(raw), "str"


def decode_raw(value: Any, tag: str) -> Value:
    """Invert `encode_raw`."""
    if tag == "empty":
        return None
    if tag == "bool":
        return bool(value)
    if tag == "bigint":
        return int(value)
    if tag == "datetime":
        return dt.datetime.fromisoformat(value)
    if tag == "date":
        return dt.date.fromisoformat(value)
    if tag == "time":
        return dt.time.fromisoformat(value)
    return value


ANNOTATIONS = (("role", "TEXT"), ("table_id", "TEXT"), ("number", "NUMERIC"), ("value", "REAL"),
               ("kind", "TEXT"), ("unit", "TEXT"), ("scale", "REAL"), ("scale_source", "TEXT"),
               ("date", "TEXT"), ("col_paths", "TEXT"))
"""Columns of `cells` that structure analysis fills (storage/views.py): the role and table of
every anchor, and the typed value of every data cell (NULL elsewhere); `col_paths` lists the
column paths of a data cell merged across several leaf columns."""
ANNOTATION_COLUMNS = tuple(name for name, _ in ANNOTATIONS)
NO_ANNOTATION: tuple[None, ...] = (None,) * len(ANNOTATIONS)

GRID_CELL_COLUMNS = ("row", "col", "ref", "rowspan", "colspan", "raw", "raw_type", "text",
                     "style", "hidden", "formula_uncached", "box", "confidence", "flags")
"""The columns of the cell itself (not its grid or annotations), in the order `cell_from_row`
reads them."""
CELL_COLUMNS = ("grid", *GRID_CELL_COLUMNS, *ANNOTATION_COLUMNS)
"""The `cells` table's columns, in order."""


def cell_row(grid_id: str, cell: Cell, annotation: tuple[Any, ...] = NO_ANNOTATION
             ) -> tuple[Any, ...]:
    """Return a cell's `cells` row in `CELL_COLUMNS` order, with its annotation values."""
    raw, tag = encode_raw(cell.raw)
    return (grid_id, cell.row, cell.col, cell.ref, cell.rowspan, cell.colspan, raw, tag,
            cell.text, style_json(cell.style), int(cell.hidden), int(cell.formula_uncached),
            json.dumps(list(cell.box)) if cell.box is not None else None, cell.confidence,
            json.dumps(list(cell.flags)) if cell.flags else None, *annotation)


@lru_cache(maxsize=4096)
def style_json(style: Style) -> str | None:
    """JSON of a style; cells share a few style objects, so encode each once."""
    data = style.to_dict()
    return json.dumps(data) if data else None


@lru_cache(maxsize=4096)
def _style_from_json(text: str | None) -> Style:
    """Invert `style_json`; cells share a few styles, so decode each once (Style is frozen)."""
    return Style.from_dict(json.loads(text) if text else None)


def cell_from_row(row: Sequence[Any]) -> Cell:
    """Rebuild a Cell from a `cells` row of the `GRID_CELL_COLUMNS`, in that order."""
    (r, c, _ref, rowspan, colspan, raw, raw_type, text, style, hidden, formula_uncached, box,
     confidence, flags) = row
    return Cell(r, c, decode_raw(raw, raw_type), text, rowspan, colspan,
                _style_from_json(style), bool(hidden), bool(formula_uncached),
                tuple(json.loads(box)) if box else None, confidence,
                tuple(json.loads(flags)) if flags else ())
