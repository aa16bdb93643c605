"""Store grid cells as rows of the `cells` table and rebuild them exactly (no pickle)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from ingest.grid import Cell, Grid, Style, Value


def encode_raw(raw: Value) -> tuple[Any, str]:
    """Return (SQLite-storable value, type tag) for a raw cell value."""
    if raw is None:
        return None, "empty"
    if isinstance(raw, bool):
        return int(raw), "bool"
    if isinstance(raw, int):
        # SQLite integers are 64-bit; larger ones survive as text.
        return (raw, "int") if -(2**63) <= raw < 2**63 else (str(raw), "bigint")
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


CELL_COLUMNS = ("grid", "row", "col", "ref", "rowspan", "colspan", "raw", "raw_type", "text",
                "style", "hidden", "formula_uncached", "box", "confidence", "flags", "role",
                "table_id")
"""The `cells` table's columns, in the order `cell_rows` yields them."""


def cell_rows(grid: Grid, grid_id: str,
              roles: Mapping[tuple[int, int], tuple[str, str]] | None = None
              ) -> Iterator[tuple[Any, ...]]:
    """Yield one `cells` row per anchor cell of a grid, as a tuple in `CELL_COLUMNS` order
    (streams large grids); `roles` maps (row, col) to (role, table id) when known."""
    roles = roles or {}
    for cell in grid.iter_cells():
        raw, tag = encode_raw(cell.raw)
        role, table_id = roles.get((cell.row, cell.col), (None, None))
        yield (grid_id, cell.row, cell.col, cell.ref, cell.rowspan, cell.colspan, raw, tag,
               cell.text, _style_json(cell.style), int(cell.hidden), int(cell.formula_uncached),
               json.dumps(list(cell.box)) if cell.box is not None else None, cell.confidence,
               json.dumps(list(cell.flags)) if cell.flags else None, role, table_id)


@lru_cache(maxsize=4096)
def _style_json(style: Style) -> str | None:
    """JSON of a style; cells share a few style objects, so encode each once."""
    data = style.to_dict()
    return json.dumps(data) if data else None


def cell_from_row(row: Mapping[str, Any]) -> Cell:
    """Rebuild a Cell from a `cells` row."""
    return Cell(
        row=row["row"],
        col=row["col"],
        raw=decode_raw(row["raw"], row["raw_type"]),
        text=row["text"],
        rowspan=row["rowspan"],
        colspan=row["colspan"],
        style=Style.from_dict(json.loads(row["style"]) if row["style"] else None),
        hidden=bool(row["hidden"]),
        formula_uncached=bool(row["formula_uncached"]),
        box=tuple(json.loads(row["box"])) if row["box"] else None,  # type: ignore[arg-type]
        confidence=row["confidence"],
        flags=tuple(json.loads(row["flags"])) if row["flags"] else (),
    )
