"""Write a grid's cells with what its structures say of each: role, table and typed value.

An upload writes every anchor cell once, already annotated, so no second pass of UPDATEs (or a
second per-cell table) is needed: the long views read the typed values straight from the cells.

Plain data cells (single, unmerged, unhidden, with a typed value without unit, scale or date:
almost every value cell of a big sheet) are grouped by column and by what they share (raw type,
kind, style, whether the number or text repeats the raw value), and each group is stored a
block of rows at a time in `plain_cells` (`storage.plain_cells`): a row of it per 128 sheet
rows, the cells' raw values (and texts or numbers, when those are not the raw value's) as JSON
arrays. As a row each of `cell_rows`, with their entries in its covering index, they were most
of an upload's SQLite work. Other cells take a row of `cell_rows` each, every column bound.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from openpyxl.utils.cell import get_column_letter

from ingest import cancel
from ingest.grid import Cell, Grid, given_text, shows_text
from ingest.roles import Roles
from ingest.structure import TableStructure
from storage import plain_cells
from storage.cells_codec import (
    CELL_COLUMNS,
    NO_ANNOTATION,
    SQLITE_INT_MAX,
    SQLITE_INT_MIN,
    cell_row,
    encode_raw,
    sql_text,
    style_json,
)
from storage.plain_cells import ROW_TABLE, block_row, row_blocks
from storage.views import storable, table_id_in, typed_columns

BATCH = 20_000
"""Rows per executemany call: bounds the rows held at once for a streamed grid."""

_COLUMNS = ", ".join(CELL_COLUMNS)

_PARAMS_PER_STATEMENT = 2_000
"""Parameters one INSERT binds (`_insert`): 80 whole rows.
Its compiled VALUES list is held while it is cached: 6,000 rows' worth of parameters a
statement raised a 100k-cell upload's peak by 5 MB, 2,000 by none, in the same time."""

Param = Callable[[int], str]
"""How an INSERT's VALUES name their k-th parameter (1-based)."""
_NUMBERED: Param = "?{}".format
_OF_VALUES: Param = "column{}".format  # the columns of a VALUES list, as SQLite names them

_CHECK_EVERY = 1023
"""Cells annotated between two Stop checks, less one (a mask): about a millisecond of work.
The inserts themselves are not walked row by row for Stop (a generator hop per row, a tenth
of their cost): an upload's connection has a progress handler that ends a statement once
Stop is pressed (`storage.interrupt`), and a header correction has no Stop."""

T = TypeVar("T")
_GroupKey = tuple[str, str, "str | None", str, str]
"""Raw type tag ("number" for plain numbers, ints and floats alike), kind, style JSON, where
the number comes from ("raw": it equals the raw value, "param": its own parameter, "none": no
number) and where the text comes from ("raw": it equals the raw value, "param": its own
parameter, "cast": the raw number's General text, written by SQLite)."""


def insert_cells(conn: sqlite3.Connection, grid: Grid, grid_id: str,
                 structures: Sequence[TableStructure]) -> None:
    """Insert every anchor cell of a grid, annotated by the grid's table structures.

    The structures must have been built from this grid (a streamed grid's `materialize()`
    copy, not the stream): the data cells they list are written from them, and every other
    cell of the grid is told from those by the structures' roles (`_is_data_cell`).
    """
    letters = [""] + [get_column_letter(c) for c in range(1, grid.n_cols + 1)]
    styles: dict[int, str | None] = {}  # id(style) -> JSON; the grid keeps the styles alive
    for structure in structures:
        tid = table_id_in(grid_id, structure.index)
        groups: dict[tuple[int, _GroupKey], list[tuple[Any, ...]]] = {}
        # By column, id(style) -> the group of plain numbers of that style with a text of
        # their own, and of those whose General text SQLite writes (lists of `groups`): found
        # without building a key per cell.
        texted: defaultdict[int, dict[int, list[tuple[Any, ...]]]] = defaultdict(dict)
        general: defaultdict[int, dict[int, list[tuple[Any, ...]]]] = defaultdict(dict)
        flushed = 0
        full: list[tuple[Any, ...]] = []
        data = structure.data
        # dc None: a plain number of an unmerged cell, held without its DataCell (`DataCells`).
        for n, (cell, dc) in enumerate(data.pairs()):
            if not n & _CHECK_EVERY:
                cancel.check()
                if n - flushed >= BATCH:  # bounds the cells held for a big table
                    _flush(conn, grid_id, tid, letters, groups)
                    flushed = n
            value = None if dc is None else dc.typed  # None: a plain number
            if not (cell.rowspan == 1 and cell.colspan == 1 and not cell.hidden
                    and not cell.formula_uncached and cell.box is None
                    and cell.confidence is None and not cell.flags
                    and (dc is None or len(dc.col_paths) <= 1)
                    and (value is None or (value.unit is None and value.scale is None
                                           and value.date is None))
                    and cell.raw is not None):  # a JSON null is a gap between plain cells
                full.append(cell_row(grid_id, cell, ("data", tid, *typed_columns(data[n]))))
                if len(full) >= BATCH:
                    _insert(conn, _every_column, full)
                    full = []
                continue
            raw = cell.raw
            if value is None and (raw.__class__ is float
                                  or SQLITE_INT_MIN <= raw <= SQLITE_INT_MAX):
                # A plain number (most cells): its own number, kind "number", its text. Ints
                # and floats share a group (raw type "number"): JSON tells them apart.
                text = given_text(cell)
                # A General float's text here is repr's, of at most 11 significant digits and
                # no exponent (a plain number's: `DataCell.typed`), which SQLite's CAST writes
                # too ('%!.15g': the same shortest digits, as they read back as the same
                # double), and a General int's text is its digits, which CAST writes too:
                # neither built nor stored (tests/test_cell_writer.py checks the CAST on such
                # floats; `plain_cells.PLAIN_COLUMNS` casts).
                plain = texted if text is not None else general
                rows = plain[cell.col].get(id(cell.style))
                if rows is None:
                    rows = plain[cell.col][id(cell.style)] = groups.setdefault(
                        (cell.col, ("number", "number", style_json(cell.style), "raw",
                                    "param" if text is not None else "cast")), [])
                rows.append((cell.row, raw) if text is None else (cell.row, raw, text))
                continue
            if raw.__class__ is float:  # the usual numbers, without encode_raw's checks
                tag = "float"
            elif raw.__class__ is int and SQLITE_INT_MIN <= raw <= SQLITE_INT_MAX:
                tag = "int"
            else:
                raw, tag = encode_raw(raw)
            style = styles.get(id(cell.style), _UNSEEN)
            if style is _UNSEEN:
                style = styles[id(cell.style)] = style_json(cell.style)
            row: tuple[Any, ...] = (cell.row, raw)
            same_text = tag == "str" and raw == cell.text
            if not same_text:
                row += (cell.text,)
            number, kind = (cell.raw, "number") if value is None else (value.number, value.kind)
            if number.__class__ is int and not SQLITE_INT_MIN <= number <= SQLITE_INT_MAX:
                number = storable(number)
            if number is None:
                source = "none"
            elif type(number) is type(raw) and number == raw:
                source = "raw"
            else:
                source = "param"
                row += (number,)
            key = (cell.col, (tag, kind, style, source, "raw" if same_text else "param"))
            rows = groups.get(key)
            if rows is None:
                rows = groups[key] = []
            rows.append(row)
        _flush(conn, grid_id, tid, letters, groups)
        _insert(conn, _every_column, full)
    roles = [(structure.roles, table_id_in(grid_id, structure.index))
             for structure in structures]
    # Reading order does not matter here, so skip iter_cells' sorting (the grid is in memory).
    for batch in _batches(_unwritten(grid, roles)):
        _insert(conn, _every_column, [cell_row(grid_id, cell, _annotation(cell, roles))
                                      for cell in batch])


_UNSEEN = object()
_NO_COLS: frozenset[int] = frozenset()


def _flush(conn: sqlite3.Connection, grid_id: str, tid: str, letters: list[str],
           groups: dict[tuple[int, _GroupKey], list[tuple[Any, ...]]]) -> None:
    """Store and forget the pending cells of every group, a block of rows at a time
    (`storage.plain_cells`); a block JSON cannot hold exactly goes in as rows."""
    blocks: list[tuple[Any, ...]] = []
    for (col, key), cells in groups.items():
        if not cells:
            continue
        head = (grid_id, tid, col, letters[col])
        for block, block_cells in row_blocks(cells):
            stored = block_row(head, key, block, block_cells)
            if stored is not None:
                blocks.append(stored)
            else:
                _insert(conn, lambda param, key=key: _group_values(grid_id, tid, key, param),
                        [(row, col, f"{letters[col]}{row}", *rest)
                         for row, *rest in block_cells])
        cells.clear()
    conn.executemany(plain_cells.INSERT, blocks)


def _insert(conn: sqlite3.Connection, values: Callable[[Param], str],
            rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert rows of parameters into `cell_rows`, `values(param)` being the VALUES expressions.

    Most go in statements of many rows (`_PARAMS_PER_STATEMENT`), the rest by executemany. A
    statement per row set up its run and opened the table and its indexes once a row: on 1M
    cells written alike, 3.1-3.3 s against 2.6-2.8 s in statements of 1,000 rows and 2.9-3.1 s
    of 400 (rows and index entries identical)."""
    if not rows:
        return
    width = len(rows[0])
    per = min(_PARAMS_PER_STATEMENT,
              conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)) // width
    whole = len(rows) - len(rows) % per
    if whole:
        one = f"({', '.join('?' * width)})"
        sql = (f"INSERT INTO {ROW_TABLE} ({_COLUMNS}) SELECT {values(_OF_VALUES)} "
               f"FROM (VALUES {', '.join([one] * per)})")
        for start in range(0, whole, per):
            conn.execute(sql, list(itertools.chain.from_iterable(rows[start:start + per])))
    if whole < len(rows):
        conn.executemany(f"INSERT INTO {ROW_TABLE} ({_COLUMNS}) VALUES ({values(_NUMBERED)})",
                         rows[whole:])


def _every_column(param: Param) -> str:
    """The VALUES of a whole `cell_row`: a parameter per column."""
    return ", ".join(param(k) for k in range(1, len(CELL_COLUMNS) + 1))


def _group_values(grid_id: str, tid: str, key: _GroupKey, param: Param) -> str:
    """The VALUES of plain data cells of one group that go in as rows (a block JSON cannot
    hold exactly, `_flush`): parameters row, col, ref, raw, then the text unless it equals raw
    or is a General int's digits, then the number unless it equals raw or is missing; the
    group's shared values are literals.

    In `CELL_COLUMNS` order: grid, row, col, ref, rowspan, colspan, raw, raw_type, text, style,
    hidden, formula_uncached, box, confidence, flags, then the annotations role, table_id,
    number, value, kind, unit, scale, scale_source, date, col_paths. Without a scale, a
    number is its own value.
    """
    tag, kind, style, source, text_source = key
    # CAST of an int (all of SQLite's ints fit a 64-bit one) writes its decimal digits, as
    # str() and `numfmt.general` do; of a General float of a plain number, its repr (above).
    raw = param(4)
    raw_type = (f"CASE typeof({raw}) WHEN 'integer' THEN 'int' ELSE 'float' END"
                if tag == "number" else sql_text(tag))
    text = {"raw": raw, "param": param(5), "cast": f"CAST({raw} AS TEXT)"}[text_source]
    number = {"raw": raw, "none": "NULL",
              "param": param(5) if text_source != "param" else param(6)}[source]
    return (f"{sql_text(grid_id)}, {param(1)}, {param(2)}, {param(3)}, 1, 1, "
            f"{raw}, {raw_type}, {text}, {sql_text(style)}, 0, 0, NULL, NULL, NULL, "
            f"'data', {sql_text(tid)}, {number}, {number}, {sql_text(kind)}, NULL, NULL, "
            "NULL, NULL, NULL")


def _batches(items: Iterable[T]) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, BATCH)):
        yield batch


def _unwritten(grid: Grid, roles: list[tuple[Roles, str]]) -> list[Cell]:
    """The cells that are not one of their structure's `data` (written above): all but the
    cells with a data role and text or an uncached formula, as `ingest.structure` picks them.
    Told from the roles rather than from a set of the written cells' ids, which at 1M cells
    was 80 MB on the upload's peak; one table per grid, the usual case, is tested inline."""
    by_row = grid.cells.by_row.items()
    if len(roles) == 1:
        # `Roles.get`, inlined: a method call per cell of the grid was 0.4 s at 1M cells.
        data_rows, explicit = roles[0][0].data_rows, roles[0][0].explicit
        return [cell for r, row in by_row for cols in (data_rows.get(r, _NO_COLS),)
                for c, cell in row.items()
                if not (c in cols or explicit.get((r, c)) == "data")
                or not (cell.formula_uncached or shows_text(cell))]
    return [cell for r, row in by_row for c, cell in row.items()
            if not any(table_roles.get((r, c)) == "data" for table_roles, _ in roles)
            or not (cell.formula_uncached or shows_text(cell))]


def _annotation(cell: Cell, roles: list[tuple[Roles, str]]
                ) -> tuple[Any, ...]:
    """The annotation of a cell that is not a written data cell: its role and table, if any."""
    key = (cell.row, cell.col)
    for table_roles, tid in roles:
        role = table_roles.get(key)
        if role is not None:
            return (role, tid, *NO_ANNOTATION[2:])
    return NO_ANNOTATION
