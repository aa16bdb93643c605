"""A table's plain data cells, stored a block of a column at a time rather than a row each.

Almost every value cell of a big sheet is plain: a single, unmerged, unhidden data cell with a
typed value without unit, scale or date (`cell_writer` tells them). As a row each of the cells
table, with an entry each in its covering `cells_by_column` index, they were most of an
upload's SQLite work: 4 s of a 1M-cell upload's 8, and the whole of what kept the upload
slower than `pandas.read_excel`. Here the plain cells of one column of a table that share
their raw type, kind, style and where their text and number come from are one `plain_cells`
row per `BLOCK_ROWS` sheet rows: the shared fields once, and the cells' raw values as a JSON
array from the block's first such cell on (null on a row of the block that holds none of
them), with their texts and numbers beside it when those are not the raw value's.

Every reader sees the same cells as before, through views that expand the blocks with
`json_each`; the other cells are rows of `cell_rows`, the cells table of schema 9 renamed:

- `cells`: every anchor cell, with the columns the table had (`CELL_COLUMNS`), then
  `row_block` (`row / BLOCK_ROWS`). A plain block has no row bounds SQLite can narrow to, so a
  lookup of a few rows names their blocks too (`row_block = ?`), or the plain side of the view
  expands every block of the grid's column.
- `column_cells`: the same, its rows read down a table's column through `cells_by_column` (a
  view cannot be named in INDEXED BY, and left to itself SQLite reads a column through the
  primary key, the whole grid).

A question's column reads decode the blocks in Python instead (`plain_values`), and merged
cells are never plain: their readers read `cell_rows` through `cells_merged` directly.
A long view is its own UNION of both stores (`storage.views`): the SQL guard lets a query read
the tables an allowed view reads, not those of a view inside it.
"""

from __future__ import annotations

import bisect
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import orjson

from storage.cells_codec import CELL_COLUMNS

BLOCK_ROWS = 128
"""Sheet rows per block. A lookup of one cell expands the blocks of its row and column, at
most this many elements each; a 1M-cell sheet of 20,000 rows and 50 columns stores about
8,000 blocks."""

ROW_TABLE = "cell_rows"
"""The cells that are not plain, a row each (the `cells` table of schema 9, renamed)."""

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS plain_cells (
        grid TEXT NOT NULL REFERENCES grids(id), table_id TEXT NOT NULL, col INTEGER NOT NULL,
        letter TEXT NOT NULL, row_block INTEGER NOT NULL, first INTEGER NOT NULL,
        n INTEGER NOT NULL, raw_type TEXT NOT NULL, kind TEXT NOT NULL, style TEXT,
        text_from TEXT NOT NULL, number_from TEXT NOT NULL, raws TEXT NOT NULL, texts TEXT,
        numbers TEXT)""",
    # A table's column, block by block (reads of a column, `column_cells`).
    "CREATE INDEX IF NOT EXISTS plain_cells_by_column ON plain_cells (grid, table_id, col, "
    "row_block)",
    # A grid's rows (lookups of a cell or a window, which name the blocks).
    "CREATE INDEX IF NOT EXISTS plain_cells_by_row ON plain_cells (grid, row_block, col)",
)
"""`raw_type`: the cells' type tag (`cells_codec.encode_raw`), or "number" for plain numbers,
ints and floats alike, which a column of a sheet mixes and JSON tells apart. `text_from`: "raw"
(the text is the raw value, a string), "cast" (a number's General text,
SQLite's CAST of it, as the cell writer stored it) or "param" (`texts`, an array beside
`raws`). `number_from`: "raw", "none" or "param" (`numbers`, already as the cells table's
NUMERIC affinity made them: a whole float an integer). `n` counts the block's cells."""

_ROW = "b.first + e.key"
_NUMBER = "CASE b.number_from WHEN 'raw' THEN e.value WHEN 'param' THEN b.numbers ->> e.key END"
_RAW_AS_NUMERIC = (
    # What the cells table's NUMERIC column made of a whole float: an integer, as
    # sqlite3VdbeIntegerAffinity does (both ends of the 64-bit range excluded).
    "CASE WHEN typeof(e.value) = 'real' AND e.value = CAST(e.value AS INTEGER) "
    "AND e.value > -9223372036854775808.0 AND e.value < 9223372036854775807.0 "
    "THEN CAST(e.value AS INTEGER) ELSE e.value END")
PLAIN_COLUMNS = {
    "grid": "b.grid", "row": _ROW, "col": "b.col", "ref": f"b.letter || ({_ROW})",
    "rowspan": "1", "colspan": "1", "raw": "e.value",
    "raw_type": "CASE b.raw_type WHEN 'number' THEN CASE e.type WHEN 'integer' THEN 'int' "
                "ELSE 'float' END ELSE b.raw_type END",
    "text": "CASE b.text_from WHEN 'raw' THEN e.value WHEN 'cast' THEN CAST(e.value AS TEXT) "
            "ELSE b.texts ->> e.key END",
    "style": "b.style", "hidden": "0", "formula_uncached": "0", "box": "NULL",
    "confidence": "NULL", "flags": "NULL", "role": "'data'", "table_id": "b.table_id",
    "number": f"CASE b.number_from WHEN 'raw' THEN {_RAW_AS_NUMERIC} "
              "WHEN 'param' THEN b.numbers ->> e.key END",
    "value": f"CAST({_NUMBER} AS REAL)", "kind": "b.kind", "unit": "NULL", "scale": "NULL",
    "scale_source": "NULL", "date": "NULL", "col_paths": "NULL",
}
"""Each column of the cells table, as SQL over a block `b` and an element `e` of its raws:
what the cell writer wrote in that column for such a cell, with the column's affinity."""
PLAIN_FROM = "plain_cells b CROSS JOIN json_each(b.raws) e"
PLAIN_WHERE = "e.type <> 'null'"
"""The plain cells: each element of a block's raws but the nulls between its cells. CROSS
JOIN keeps the blocks the outer loop, as a join on a cell's row must too (`storage.views`)."""


def _view(name: str, rows_from: str) -> str:
    rows = ", ".join(CELL_COLUMNS)
    plain = ", ".join(f"{PLAIN_COLUMNS[c]} AS {c}" for c in CELL_COLUMNS)
    return (f"CREATE VIEW IF NOT EXISTS {name} AS "
            f"SELECT {rows}, row / {BLOCK_ROWS} AS row_block FROM {rows_from} UNION ALL "
            f"SELECT {plain}, b.row_block AS row_block FROM {PLAIN_FROM} WHERE {PLAIN_WHERE}")


VIEWS = (_view("cells", ROW_TABLE),
         _view("column_cells", f"{ROW_TABLE} INDEXED BY cells_by_column"))


BLOCK_FIELDS = "first, letter, kind, text_from, number_from, raws, texts, numbers"
"""What `plain_values` reads of each block (`SELECT {BLOCK_FIELDS} FROM plain_cells ...`)."""


def plain_values(blocks: Iterable[Sequence[Any]]) -> Iterator[tuple[int, str, Any, str, str]]:
    """Each plain cell of these blocks (rows of `BLOCK_FIELDS`) as (row, text, number, kind,
    ref), what `PLAIN_COLUMNS` makes of it in SQL, in the blocks' order.

    For the reads of a question's columns (`agent.frame.CellSource`), which this makes about
    as fast as they were from the covering index: SQLite's expansion of a 20,000-cell column,
    its CAST of each number to text above all, took 1.6 times as long. A text left to CAST
    ("cast") is a plain General number's, whose CAST is `repr` (a float's: at most 11
    significant digits, no exponent, `ingest.structure`) or its digits (an int's), as
    tests/test_cell_writer.py checks on this SQLite; tests/test_plain_cells.py holds this
    to the view.
    """
    for first, letter, kind, text_from, number_from, raws, texts, numbers in blocks:
        values = orjson.loads(raws)
        shown = orjson.loads(texts) if text_from == "param" else (
            values if text_from == "raw" else None)
        counted = orjson.loads(numbers) if number_from == "param" else None
        for offset, raw in enumerate(values):
            if raw is None:
                continue  # a gap between the block's cells
            row = first + offset
            text = shown[offset] if shown is not None else (
                repr(raw) if raw.__class__ is float else str(raw))
            number = (_numeric(raw) if number_from == "raw" else
                      counted[offset] if counted is not None else None)
            yield row, text, number, kind, f"{letter}{row}"


def ensure_cell_store(conn: sqlite3.Connection) -> None:
    """Give the workspace its plain cells and the views over both stores; rename the cells
    table of an older workspace (or the one just made for a new workspace) `cell_rows`.

    The rename is cheap at any size (SQLite rewrites the schema only), and it makes the long
    views of older tables read `cell_rows`, which holds every cell of theirs. `plain_cells`
    is made first: the rename checks every view of the schema, those of newer tables too.
    `storage.views.ensure_schema` calls it before it adds columns and indexes to `cell_rows`.
    """
    for statement in SCHEMA:
        conn.execute(statement)
    found = conn.execute("SELECT type FROM sqlite_master WHERE name = 'cells'").fetchone()
    if found is not None and found[0] == "table":
        conn.execute(f"ALTER TABLE cells RENAME TO {ROW_TABLE}")


def create_views(conn: sqlite3.Connection) -> None:
    """Create `cells` and `column_cells` (after `ensure_schema`: the latter names its index)."""
    for statement in VIEWS:
        conn.execute(statement)


def delete_cells(conn: sqlite3.Connection, grids: str, params: Sequence[Any]) -> None:
    """Delete the cells of the grids whose ids `grids` selects (SQL), from both stores."""
    for table in (ROW_TABLE, "plain_cells"):
        conn.execute(f"DELETE FROM {table} WHERE grid IN ({grids})", params)


def row_blocks(rows: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Sequence[tuple[Any, ...]]]]:
    """Split cells given as tuples led by their row, in row order, into blocks: each block's
    number and its cells."""
    start, n = 0, len(rows)
    while start < n:
        block = rows[start][0] // BLOCK_ROWS
        end = bisect.bisect_left(rows, ((block + 1) * BLOCK_ROWS,), start)
        yield block, rows[start:end]
        start = end


INSERT = (f"INSERT INTO plain_cells (grid, table_id, col, letter, row_block, first, n, raw_type, "
          "kind, style, text_from, number_from, raws, texts, numbers) "
          f"VALUES ({', '.join('?' * 15)})")


def block_row(head: tuple[str, str, int, str], key: tuple[str, str, str | None, str, str],
              block: int, cells: Sequence[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """The `plain_cells` row (for `INSERT`) of one block's cells of a column; None when JSON
    cannot hold them exactly: orjson writes a NaN or an infinity as null (SQLite stores a NaN
    as NULL, an infinity as itself) and refuses a string that is not valid Unicode, and
    SQLite's JSON reads a string up to its first NUL character only.

    `head` is (grid, table_id, col, column letter), `key` what the cells share (raw type,
    kind, style, number_from, text_from); each cell is (row, raw, then the text when
    `text_from` is "param", then the number when `number_from` is), in row order.
    """
    raw_type, kind, style, number_from, text_from = key
    columns = list(zip(*cells, strict=True))
    first, last = columns[0][0], columns[0][-1]
    gaps = last - first + 1 - len(cells)
    if gaps:
        columns[1:] = [_spread(columns[0], first, last, values) for values in columns[1:]]
    if number_from == "param":
        columns[-1] = [_numeric(number) for number in columns[-1]]
    try:
        arrays = [orjson.dumps(values) for values in columns[1:]]
    except orjson.JSONEncodeError:
        return None
    # Only the gaps may be null, in each array: a cell's null is a NaN or an infinity. (A
    # string holding "null" is counted too, and such a block is written as rows.)
    if any(array.count(b"null") != gaps or b"\\u0000" in array for array in arrays):
        return None
    texts = arrays[1].decode() if text_from == "param" else None
    numbers = arrays[-1].decode() if number_from == "param" else None
    return (*head, block, first, len(cells), raw_type, kind, style, text_from, number_from,
            arrays[0].decode(), texts, numbers)


def _spread(rows: Sequence[int], first: int, last: int, values: Sequence[Any]) -> list[Any]:
    """Values placed at their rows' offsets from `first`, None between them."""
    out: list[Any] = [None] * (last - first + 1)
    for row, value in zip(rows, values, strict=True):
        out[row - first] = value
    return out


def _numeric(number: Any) -> Any:
    """A number as the cells table's NUMERIC column stored it: a whole float within the
    64-bit range as an integer (what `_RAW_AS_NUMERIC` does in SQL for raw numbers)."""
    if number.__class__ is float and number.is_integer() and -2.0**63 < number < 2.0**63:
        return int(number)
    return number
