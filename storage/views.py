"""SQL views of analysed tables: a wide table and a long view each, the catalog, cell roles and
typed values, overrides.

Pure *plan* functions (`wide_plan`, `typed_columns`, `catalog_row`) turn a `TableStructure` into
column names and rows; thin *apply* functions write them to the workspace database. Names follow
CONTRACTS.md ("Table and cell identity"): table `<file-slug>__<sheet-slug>__t<k>`, stored as
`<table>__wide` and `<table>__long`.

The wide table has one row per data row: `_row` (the sheet row), one column per row-path level,
then one column per leaf column path ("H1 2024 > Q2"). Row paths of different lengths share the
level columns from the left: `("Revenue",)` fills `level_1` and leaves `level_2` NULL, while
`("Operating Expenses", "Salaries")` fills both. Level columns take the names of the header
cells above the header columns (`structure.row_levels`) only when there is one such name per
level; otherwise (a section band or group label adds a level the header row does not name)
they are `level_1`, `level_2`, ... so a name never sits over the wrong level. When every row
is under a band (a grand total after the last band aside), the bands are `level_1` and the
header names name the levels under them.

Wide cells hold the number as written for numeric kinds (number, percent, currency) and the
displayed text otherwise; a merged data cell fills every data row and column it spans.

The long view has one row per data cell (a merged cell once, at its anchor), with its paths,
typed value and source position, so every value can be cited (Evidence: table, sheet, ref, text,
value). Its `number` and `value` (number times scale) are set whenever the cell's typed value
has a number, whatever its kind (a year or an ordinal too); `kind` tells them apart.

The long view is a SQL view, not a copy: the typed value of every data cell is written with the
cell itself (a row of `cell_rows`, or a block of a column's plain cells: `storage.plain_cells`),
and the view joins each cell to its
row path (`row_paths`, one row per data row, or per cell in a key/value form) and column path
(`col_paths`, one row per data column), both keyed by table id. This halves the writes of an
upload. The path tables are shared by all tables: every schema object SQLite adds rescans its
schema, so a page of 4,000 tiny tables took four objects each, and quadratic time (older
workspaces keep their per-table `<table>__row_paths` and `<table>__col_paths`).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import partial
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, Literal

from openpyxl.utils.cell import get_column_letter
from sqlite_utils import Database
from sqlite_utils.db import quote_identifier

from ingest import cancel
from ingest.structure import CLOSING_TOTAL, NUMERIC_KINDS, DataCell, Override, TableStructure
from storage import table_profiles
from storage.cells_codec import ANNOTATIONS, SQLITE_INT_MAX, SQLITE_INT_MIN, sql_text
from storage.header_tree import CHUNKS_STARTS, HeaderTree
from storage.plain_cells import (
    PLAIN_COLUMNS,
    PLAIN_FROM,
    PLAIN_WHERE,
    ROW_TABLE,
    create_views,
    ensure_cell_store,
)
from storage.records import ColumnInfo, TableInfo

MAX_WIDE_COLUMNS = 1500
"""Leaf columns above which no wide table is built (SQLite allows 2,000 columns by default)."""
MAX_NAME_LENGTH = 120
PATH_SEPARATOR = " > "
ROW_COLUMN = "_row"

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS catalog (
        id TEXT PRIMARY KEY, grid TEXT NOT NULL REFERENCES grids(id),
        source TEXT NOT NULL REFERENCES sources(sha256), file_name TEXT NOT NULL,
        sheet TEXT NOT NULL, k INTEGER NOT NULL, region TEXT NOT NULL, title TEXT,
        notes TEXT NOT NULL, header_rows TEXT NOT NULL, header_cols TEXT NOT NULL,
        orientation TEXT NOT NULL, confidence REAL NOT NULL, decisions TEXT NOT NULL,
        column_paths TEXT NOT NULL, row_levels TEXT NOT NULL, wide TEXT, wide_note TEXT,
        long TEXT NOT NULL, n_rows INTEGER NOT NULL, tree TEXT NOT NULL,
        version INTEGER NOT NULL, override TEXT)""",
    table_profiles.SCHEMA,
    table_profiles.KEYED_SCHEMA,
    """CREATE TABLE IF NOT EXISTS row_paths (
        table_id TEXT NOT NULL, row INTEGER NOT NULL, col INTEGER NOT NULL,
        row_path TEXT NOT NULL, row_path_text TEXT NOT NULL,
        PRIMARY KEY (table_id, row, col)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS col_paths (
        table_id TEXT NOT NULL, col INTEGER NOT NULL, col_path TEXT NOT NULL,
        col_path_text TEXT NOT NULL, PRIMARY KEY (table_id, col)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS overrides (
        source TEXT NOT NULL REFERENCES sources(sha256), sheet TEXT NOT NULL,
        k INTEGER NOT NULL, header_rows TEXT, header_cols TEXT, PRIMARY KEY (source, sheet, k))""",
)

LONG_COLUMNS = ("table", "row_path", "col_path", "col_paths", "row_path_text", "col_path_text",
                "text", "number", "value", "kind", "unit", "scale", "scale_source", "date", "ref",
                "sheet", "row", "col")
"""The long view's columns, in order (`table` is the table id, for citations)."""


# --- schema -----------------------------------------------------------------------------------

COLUMN_INDEX = ("grid, table_id, col, row, kind, rowspan, colspan, text, number, unit, ref, "
                "date, scale, scale_source")
"""The columns of `cells_by_column`: a table's column in row order, and what a value holds."""

def ensure_schema(db: Database) -> None:
    """Create the catalog and overrides tables, the plain cells and the views over both cell
    stores (`storage.plain_cells`), and add annotation columns to an older cells table."""
    for statement in _SCHEMA:
        db.execute(statement)
    ensure_cell_store(db.conn)
    present = {row[1] for row in db.execute(f"PRAGMA table_info({ROW_TABLE})").fetchall()}
    for name, sql_type in ANNOTATIONS:
        if name not in present:
            # Older workspaces keep their cells; the new columns start NULL.
            db.execute(f"ALTER TABLE {ROW_TABLE} ADD COLUMN {quote_identifier(name)} {sql_type}")
    # A question reads the one or two columns it names (agent/frame.py), not the whole table,
    # from this index alone: it holds every field a frame's value needs, so a column is one
    # range of the index and not a lookup of the wide cell row per row (8 ms for a 2,000-row
    # column, 3.5 ms so). It replaces the narrow (grid, table_id, col) index of schema 5.
    found = db.execute("SELECT sql FROM sqlite_master WHERE type = 'index' "
                       "AND name = 'cells_by_column'").fetchone()
    if found is not None and COLUMN_INDEX not in found[0]:
        db.execute("DROP INDEX cells_by_column")
    db.execute(f"CREATE INDEX IF NOT EXISTS cells_by_column ON {ROW_TABLE} ({COLUMN_INDEX})")
    # A table's merged cells, without a scan of all its cells (agent/frame.py).
    db.execute(f"CREATE INDEX IF NOT EXISTS cells_merged ON {ROW_TABLE} (grid, table_id) "
               "WHERE rowspan > 1 OR colspan > 1")
    create_views(db.conn)


# --- names ------------------------------------------------------------------------------------

def table_id(file_slug: str, sheet_slug: str, k: int) -> str:
    """Return the table id `<file-slug>__<sheet-slug>__t<k>`."""
    return table_id_in(f"{file_slug}__{sheet_slug}", k)


def table_id_in(grid_id: str, k: int) -> str:
    """Return the id of the k-th table of a grid (grid ids are `<file-slug>__<sheet-slug>`)."""
    return f"{grid_id}__t{k}"


def wide_name(table: str) -> str:
    """Return the SQLite name of a table's wide view."""
    return f"{table}__wide"


def long_name(table: str) -> str:
    """Return the SQLite name of a table's long view."""
    return f"{table}__long"


def _clean(text: str) -> str:
    """Return text without control characters (NUL, newlines), whitespace collapsed."""
    return " ".join(_CONTROL.sub(" ", text).split())


def _truncate(name: str, length: int = MAX_NAME_LENGTH) -> str:
    """Cut a name to `length` characters, without trailing spaces."""
    return name[:length].rstrip()


def _path_name(path: Sequence[str], col: int) -> str:
    """Name a leaf column by its path, or by its column letter when the path is empty."""
    name = _truncate(PATH_SEPARATOR.join(p for p in map(_clean, path) if p))
    return name or f"col_{get_column_letter(col)}"


def _unique_names(names: Iterable[str], taken: set[str]) -> list[str]:
    """Make names unique case-insensitively (as SQLite compares identifiers): "X", "X (2)".

    `taken` holds the casefolded names already used and is updated.
    """
    out = []
    for name in names:
        candidate, n = name, 1
        while candidate.casefold() in taken:
            n += 1
            suffix = f" ({n})"
            candidate = _truncate(name, MAX_NAME_LENGTH - len(suffix)) + suffix
        taken.add(candidate.casefold())
        out.append(candidate)
    return out


def level_names(structure: TableStructure, n_levels: int, taken: set[str]) -> list[str]:
    """Name the row-path level columns (see the module docstring for when headers name them)."""
    labels = [_truncate(_clean(label)) for label in structure.row_levels]
    if len(labels) == 1 and n_levels > 1 and len(parts := re.split(r"\s*/\s*",
                                                                    labels[0])) == n_levels:
        # One corner header over bands and the rows under them, "Region / Category": a name
        # for each level, top first.
        labels = parts
    if len(labels) + 1 == n_levels and structure.row_paths and all(
            len(p) == n_levels or len(p) == 1 and CLOSING_TOTAL.search(p[0])
            for p in structure.row_paths.values()):
        # Every row under a section band, a level the header row does not name: the bands
        # are `level_1`, and the header cells name the levels under them ("Gene", "Sample").
        # (A grand total under no band, "Total network" after the last band's subtotal,
        # is no row of another kind.)
        labels = ["", *labels]
    if len(labels) != n_levels:
        labels = [""] * n_levels
    return _unique_names((label or f"level_{i}" for i, label in enumerate(labels, 1)), taken)


# --- the wide table ---------------------------------------------------------------------------

@dataclass(frozen=True)
class WideTable:
    """The leaf columns and rows of a wide table (level columns are in `WidePlan`)."""

    leaf_names: list[str]
    """Column names parallel to `WidePlan.column_paths`."""
    leaf_types: list[str]
    """Declared SQLite types of the leaf columns: NUMERIC, TEXT, or "" for mixed columns."""
    rows: list[list[Any]]
    """One row per data row: sheet row, level values, leaf values."""


@dataclass(frozen=True)
class WidePlan:
    """What to build for one table's wide view; `wide` is None past the column limit."""

    column_paths: list[tuple[str, ...]]
    """Leaf column paths, left to right."""
    leaf_cols: list[int]
    """Sheet columns of the leaves, parallel to `column_paths`."""
    level_names: list[str]
    wide: WideTable | None
    reason: str | None
    """Why there is no wide table (None when there is one)."""

    @property
    def columns(self) -> list[str]:
        """Return every column name of the wide table, in order ([] without one)."""
        if self.wide is None:
            return []
        return [ROW_COLUMN, *self.level_names, *self.wide.leaf_names]


def wide_plan(structure: TableStructure) -> WidePlan:
    """Plan the wide table of a structure: column names, declared types and rows."""
    leaf_cols = sorted(structure.col_paths)
    paths = [structure.col_paths[c] for c in leaf_cols]
    n_levels = max((len(p) for p in structure.row_paths.values()), default=0)
    taken = {ROW_COLUMN.casefold()}
    levels = level_names(structure, n_levels, taken)
    if len(leaf_cols) > MAX_WIDE_COLUMNS:
        reason = (f"{len(leaf_cols)} data columns exceed the wide-table limit of "
                  f"{MAX_WIDE_COLUMNS}; use the long view")
        return WidePlan(paths, leaf_cols, levels, None, reason)
    names = path_names(paths, leaf_cols, taken)
    rows = _wide_rows(structure, leaf_cols, n_levels)
    # Each column's types taken in C (itemgetter, then a set of classes): a Python step per
    # value was 0.3 s of a 1M-cell upload, and a transposed copy of the rows 8 MB of its peak.
    types = [_declared_type(map(itemgetter(i), rows))
             for i in range(1 + n_levels, 1 + n_levels + len(leaf_cols))]
    return WidePlan(paths, leaf_cols, levels, WideTable(names, types, rows), None)


def path_names(paths: Sequence[Sequence[str]], cols: Sequence[int], taken: set[str]
               ) -> list[str]:
    """Name leaf columns by their paths (or column letters), unique among `taken`, which is
    updated."""
    return _unique_names((_path_name(p, c) for p, c in zip(paths, cols, strict=True)), taken)


def _wide_rows(structure: TableStructure, leaf_cols: list[int], n_levels: int
               ) -> list[list[Any]]:
    """Lay the data cells out as rows; merged cells fill every data row and column they span."""
    first = 1 + n_levels
    position = {c: first + i for i, c in enumerate(leaf_cols)}
    rows: dict[int, list[Any]] = {}
    for r in sorted(structure.row_paths):
        path = list(structure.row_paths[r])
        rows[r] = [r, *path, *[None] * (n_levels - len(path)), *[None] * len(leaf_cols)]
    data = structure.data
    for n, (cell, dc) in enumerate(data.pairs()):
        if not n & 1023:
            cancel.check()
        typed = None if dc is None else dc.typed
        # `_wide_value`, inlined for the usual number that fits SQLite (one call less per cell);
        # no typed value is a plain number, the cell's own (`DataCell.typed`).
        number = cell.raw if typed is None else typed.number
        if (typed is None or typed.kind in NUMERIC_KINDS) and (number.__class__ is float or (
                number.__class__ is int and SQLITE_INT_MIN <= number <= SQLITE_INT_MAX)):
            value = number
        else:
            value = _wide_value(data[n])
        if cell.rowspan == 1 and cell.colspan == 1:  # almost every cell: no span loops
            row = rows.get(cell.row)
            if row is not None and cell.col in position:
                row[position[cell.col]] = value
            continue
        for r in range(cell.row, cell.row + cell.rowspan):
            if r not in rows:
                continue  # a repeated header row or a band inside the merge
            for c in range(cell.col, cell.col + cell.colspan):
                if c in position:
                    rows[r][position[c]] = value
    return list(rows.values())


def _wide_value(dc: DataCell) -> Any:
    """Return a number as written for numeric kinds, else the displayed text (None if blank)."""
    if dc.value.kind in NUMERIC_KINDS and dc.value.number is not None:
        return storable(dc.value.number)
    return dc.cell.text if dc.cell.text.strip() else None


def storable(number: float | int | None) -> float | int | None:
    """Return a number SQLite can store: integers beyond 64 bits become (approximate) reals."""
    if isinstance(number, int) and not SQLITE_INT_MIN <= number <= SQLITE_INT_MAX:
        return float(number)
    return number


def _declared_type(values: Iterable[Any]) -> str:
    """Return NUMERIC or TEXT for a uniform column, "" (no affinity) for a mixed one.

    A mixed column must not have NUMERIC affinity: it would turn a code such as "007" into 7.
    """
    present = {issubclass(kind, str) for kind in set(map(type, values)) - {type(None)}}
    if present == {False}:
        return "NUMERIC"
    if present == {True} or not present:
        return "TEXT"
    return ""


# --- the long view ---------------------------------------------------------------------------

def _json(value: Any) -> str:
    """Encode JSON keeping non-ASCII text readable."""
    return json.dumps(value, ensure_ascii=False)


def typed_columns(dc: DataCell) -> tuple[Any, ...]:
    """Return the annotation columns after role and table id: a data cell's typed value."""
    value = dc.value
    return (storable(value.number), storable(value.value()), value.kind, value.unit,
            value.scale, value.scale_source, value.date,
            _json([list(p) for p in dc.col_paths]) if len(dc.col_paths) > 1 else None)


def legacy_path_tables(table: str) -> tuple[str, str]:
    """The per-table row and column path tables of workspaces written before the shared
    `row_paths` and `col_paths` (dropped with their table)."""
    return f"{table}__row_paths", f"{table}__col_paths"


def _path_rows(structure: TableStructure) -> Iterator[tuple[int, int, str, str]]:
    """Yield (row, col, row_path JSON, row_path_text): col 0 stands for the whole row; a key/value
    form names each value by the label left of it, so its rows are keyed per cell."""
    if structure.orientation == "kv":
        for dc in structure.data:
            yield (dc.cell.row, dc.cell.col, _json(list(dc.row_path)),
                   PATH_SEPARATOR.join(dc.row_path))
        return
    for r, path in structure.row_paths.items():
        yield r, 0, _json(list(path)), PATH_SEPARATOR.join(path)


def _long_view_sql(tid: str, grid_id: str, kv: bool) -> str:
    """The SELECT behind `<table>__long`, its columns named and ordered by `LONG_COLUMNS`: the
    table's cells of `cell_rows`, then its plain cells (`storage.plain_cells`), each joined to
    their paths. Not over the `cells` view: the SQL guard lets a query read what an allowed
    view reads, not what a view inside it reads."""
    key = sql_text(tid)
    rows = _long_branch(key, kv, "c.{}".format, f"{ROW_TABLE} c",
                        f"c.grid = {sql_text(grid_id)} AND c.table_id = {key} "
                        "AND c.kind IS NOT NULL")
    plain = _long_branch(key, kv, PLAIN_COLUMNS.__getitem__, PLAIN_FROM,
                         f"b.grid = {sql_text(grid_id)} AND b.table_id = {key} "
                         f"AND {PLAIN_WHERE}")
    return f"{rows} UNION ALL {plain}"


def _long_branch(key: str, kv: bool, cell: Callable[[str], str], cells: str, where: str) -> str:
    """One store's part of a long view: `cell(name)` is a cell column's SQL over `cells`."""
    source = {"table": key, "sheet": "g.sheet"} | {
        name: f"p.{name}" for name in ("row_path", "row_path_text")} | {
        name: cell(name) for name in ("col_paths", "text", "number", "value", "kind", "unit",
                                      "scale", "scale_source", "date", "ref", "row", "col")}
    if kv:  # a form's values are named by their row label only
        source |= {"col_path": "'[]'", "col_path_text": "''"}
        joins, row_key = "", f"p.col = {cell('col')}"
    else:
        source |= {"col_path": "q.col_path", "col_path_text": "q.col_path_text"}
        joins = f" JOIN col_paths q ON q.table_id = {key} AND q.col = {cell('col')}"
        row_key = "p.col = 0"
    select = ", ".join(f"{source[name]} AS {quote_identifier(name)}" for name in LONG_COLUMNS)
    # CROSS JOIN: the row paths are looked up per cell. Left to itself, SQLite read them
    # before expanding a plain block (the row is the block's first plus an offset), every
    # row path of the table per block: 20 s for a sum over the long view at 1M cells.
    return (f"SELECT {select} FROM {cells} JOIN grids g ON g.id = {cell('grid')} "
            f"CROSS JOIN row_paths p ON p.table_id = {key} AND p.row = {cell('row')} AND "
            f"{row_key}{joins} WHERE {where}")


@dataclass(frozen=True)
class CellPaths:
    """How a data cell is named in its table, each path joined with " > "."""

    row: str
    """Its row path ("Operating Expenses > Salaries"); a form's value: the label left of it."""
    columns: tuple[str, ...]
    """Its column path ("H1 2024 > Q2"), one per column a merged cell spans; none in a form."""


def cell_paths(db: Database, table: TableInfo, row: int, col: int) -> CellPaths | None:
    """The paths of a table's data cell at (row, col), as its long view joins them; None for
    a cell that holds no data (a header, a title, a note)."""
    found = db.execute(f"SELECT row_path_text, col_path_text, col_paths "
                       f"FROM {quote_identifier(table.long)} WHERE row = ? AND col = ?",
                       [row, col]).fetchone()
    if found is None:
        return None
    row_path, col_path, spanned = found
    columns = [PATH_SEPARATOR.join(p) for p in json.loads(spanned)] if spanned else [col_path]
    return CellPaths(row_path, tuple(c for c in columns if c))


# --- the catalog ------------------------------------------------------------------------------

_COL = attrgetter("col")
_COLSPAN = attrgetter("colspan")
_TEXT = attrgetter("text")
_UNIT = itemgetter(1)


def _kind_of(dc: DataCell | None) -> str:
    """A data cell's kind, without building the TypedValue of a plain number (None)."""
    return "number" if dc is None or dc.typed is None else dc.typed.kind


def _unit_of(dc: DataCell | None) -> str | None:
    return None if dc is None or dc.typed is None else dc.typed.unit


def _column_summaries(structure: TableStructure, plan: WidePlan) -> tuple[ColumnInfo, ...]:
    """Describe each leaf column: wide name, path, dominant kind, commonest unit, samples."""
    # Read from the anchors and held DataCells (`DataCells.pairs`): a plain number has none.
    cells, held = structure.data.cells, structure.data.held
    leaf = set(plan.leaf_cols)
    if max(map(_COLSPAN, cells), default=1) > 1:  # merged cells count for each column
        spread = [(c, cell, dc) for cell, dc in structure.data.pairs()
                  for c in range(cell.col, cell.col + cell.colspan) if c in leaf]
        spread_cols = [c for c, _, _ in spread]
        cells, held = [cell for _, cell, _ in spread], [dc for _, _, dc in spread]

        def cols() -> Iterable[int]:
            return spread_cols
    else:
        def cols() -> Iterable[int]:
            # Read again for each count rather than held: a list of them was 8 MB at 1M cells.
            return map(_COL, cells)
    # Counted over (column, kind) pairs in C (map/zip), not per cell in Python: this runs
    # over every data cell of an upload, and builds nothing a cell long.
    kinds = _commonest(Counter(zip(cols(), map(_kind_of, held), strict=True)))
    units = _commonest(Counter(filter(_UNIT, zip(cols(), map(_unit_of, held), strict=True))))
    # Only columns with cells can give samples (a header may name an empty column).
    samples = _samples(cols(), map(_TEXT, cells), leaf & kinds.keys(), 3)
    names: list[str | None] = list(plan.wide.leaf_names) if plan.wide else \
        [None] * len(plan.leaf_cols)
    return tuple(ColumnInfo(name, tuple(path), kinds.get(c), units.get(c),
                            tuple(samples.get(c, ())))
                 for c, path, name in zip(plan.leaf_cols, plan.column_paths, names, strict=True))


def _commonest(counts: Counter[tuple[int, Any]]) -> dict[int, Any]:
    """Each column's most frequent value in (column, value) counts; the first seen on a tie."""
    best: dict[int, tuple[Any, int]] = {}
    for (col, value), n in counts.items():
        if col not in best or n > best[col][1]:
            best[col] = (value, n)
    return {col: value for col, (value, _) in best.items()}


def _samples(cols: Iterable[int], texts: Iterable[str], wanted: set[int], n: int
             ) -> dict[int, list[str]]:
    """The first n distinct non-blank texts of each column (stops once every column has n)."""
    out: dict[int, list[str]] = {c: [] for c in wanted}
    missing = len(wanted)
    for c, text in zip(cols, texts, strict=True):
        seen = out.get(c)
        if seen is None or len(seen) == n or not text.strip() or text in seen:
            continue
        seen.append(text)
        if len(seen) == n:
            missing -= 1
            if not missing:
                break
    return out


def catalog_row(structure: TableStructure, plan: WidePlan, *, grid_id: str, source: str,
                file_name: str, version: int, override: Override | None) -> TableInfo:
    """Return the catalog entry of one table."""
    tid = table_id_in(grid_id, structure.index)
    region = structure.region
    columns = _column_summaries(structure, plan)
    cancel.check()
    tree = HeaderTree.from_dict(structure.tree_json())
    return TableInfo(
        id=tid, grid=grid_id, source=source, file_name=file_name, sheet=structure.grid.sheet,
        k=structure.index, region=structure.region_ref,
        # An HTML <caption> titles its table when no title line sits above it.
        title=region.title or structure.grid.caption,
        notes=tuple(region.notes),
        header_rows=tuple(structure.header_rows), header_cols=tuple(structure.header_cols),
        orientation=structure.orientation, confidence=structure.confidence,
        repeated_header_rows=tuple(structure.repeated_header_rows),
        columns=columns,
        row_levels=tuple(plan.level_names),
        wide=wide_name(tid) if plan.wide is not None else None,
        wide_note=plan.reason,
        long=long_name(tid),
        n_rows=len(structure.row_paths),
        tree=tree,
        version=version,
        override=override,
    )


def read_catalog(db: Database, table: str | None = None) -> list[TableInfo]:
    """Return the catalog (or one table's entry) in reading order of files and sheets. A
    tree's row chunks are read when its rows are (`_stored_tree`)."""
    names = [row[1] for row in db.execute("PRAGMA table_info(catalog)").fetchall()
             if row[1] != "tree"]
    sql = (f"SELECT c.rowid AS _rowid, {', '.join(f'c.{quote_identifier(n)}' for n in names)} "
           "FROM catalog c JOIN grids g ON g.id = c.grid JOIN sources s ON s.sha256 = c.source")
    args: list[Any] = []
    if table is not None:
        sql += " WHERE c.id = ?"
        args.append(table)
    sql += " ORDER BY s.added_at, s.rowid, g.idx, c.k"
    return [TableInfo.from_row({**row, "tree": _stored_tree(db, row)})
            for row in db.query(sql, args)]


_HEAD_READ = 1 << 16


def _stored_tree(db: Database, row: dict[str, Any]) -> HeaderTree:
    """A catalog row's tree, its start read alone (SQLite's incremental BLOB I/O) up to the
    row chunks, which are read with the rest of the text when first needed."""
    head = b""
    with db.conn.blobopen("catalog", "tree", row["_rowid"], readonly=True) as blob:
        while part := blob.read(_HEAD_READ):
            head += part
            for start in CHUNKS_STARTS:
                at = head.find(start, max(0, len(head) - len(part) - len(start)))
                if at >= 0:
                    key = [row["id"], row["version"]]
                    [(_, _, file, *_)] = [d for d in db.execute("PRAGMA database_list")
                                          .fetchall() if d[1] == "main"]
                    return HeaderTree.from_stored_head(head[:at + len(start)],
                                                       partial(_whole_tree, db, file, key))
    return HeaderTree.from_stored(head)  # an older layout, or a tree without chunks


def _whole_tree(db: Database, file: str, key: list[Any]) -> bytes | str:
    """A stored tree's whole text, on the connection that read its start or, once that is
    closed (the process keeps trees across connections: `Workspace._kept_tree`), on a new
    one to the same file."""
    sql = "SELECT tree FROM catalog WHERE id = ? AND version = ?"
    try:
        found = db.execute(sql, key).fetchone()
    except sqlite3.ProgrammingError:
        if not file:
            raise
        with closing(sqlite3.connect(f"{Path(file).as_uri()}?mode=ro", uri=True)) as conn:
            found = conn.execute(sql, key).fetchone()
    if found is None:
        raise LookupError(f"table {key[0]} version {key[1]} is no longer in the catalog")
    return found[0]


# --- applying ---------------------------------------------------------------------------------

def _create_table(db: Database, name: str, columns: Sequence[tuple[str, str]]) -> None:
    """Create a table from (name, declared type) pairs, every identifier quoted."""
    body = ", ".join(f"{quote_identifier(c)} {t}".rstrip() for c, t in columns)
    db.execute(f"CREATE TABLE {quote_identifier(name)} ({body})")


def _insert_rows(db: Database, name: str, n_columns: int, rows: Iterable[Sequence[Any]]) -> None:
    """Insert rows of values (always as parameters) into a table."""
    marks = ", ".join("?" * n_columns)
    db.conn.executemany(f"INSERT INTO {quote_identifier(name)} VALUES ({marks})",
                        cancel.checked(rows))


def _write_wide(db: Database, tid: str, plan: WidePlan) -> None:
    """Create `<table>__wide` from a plan (nothing when the plan has no wide table)."""
    if plan.wide is None:
        return
    name = wide_name(tid)
    types = ["INTEGER", *["TEXT"] * len(plan.level_names), *plan.wide.leaf_types]
    _create_table(db, name, list(zip(plan.columns, types, strict=True)))
    _insert_rows(db, name, len(types), plan.wide.rows)


def _write_long(db: Database, tid: str, grid_id: str, structure: TableStructure) -> None:
    """Create `<table>__long`: its rows of the path tables and the view joining them to the
    cells."""
    _insert_rows(db, "row_paths", 5, ((tid, *row) for row in _path_rows(structure)))
    kv = structure.orientation == "kv"
    if not kv:
        _insert_rows(db, "col_paths", 4, ((tid, c, _json(list(p)), PATH_SEPARATOR.join(p))
                                          for c, p in structure.col_paths.items()))
    create_long_view(db, tid, grid_id, kv=kv)


def create_long_view(db: Database, tid: str, grid_id: str, *, kv: bool) -> None:
    """Create `<table>__long` over the table's cells and path rows."""
    db.execute(f"CREATE VIEW {quote_identifier(long_name(tid))} AS "
               f"{_long_view_sql(tid, grid_id, kv)}")


def _drop(db: Database, name: str) -> None:
    """Drop a table or view if it exists (long views were tables in older workspaces)."""
    found = db.execute("SELECT type FROM sqlite_master WHERE name = ? AND type IN "
                       "('table', 'view')", [name]).fetchone()
    if found:
        db.execute(f"DROP {found[0].upper()} {quote_identifier(name)}")


def _drop_views(db: Database, column: Literal["grid", "source"], key: str) -> dict[str, int]:
    """Drop the wide tables, long views (with their path tables) and catalog rows of a grid or
    source; return id -> version."""
    where = f"WHERE {quote_identifier(column)} = ?"
    rows = list(db.query(f"SELECT id, wide, long, version FROM catalog {where}", [key]))
    for row in rows:
        for name in (row["wide"], row["long"], *legacy_path_tables(row["id"])):
            if name:
                _drop(db, name)
        for paths in ("row_paths", "col_paths"):
            db.execute(f"DELETE FROM {paths} WHERE table_id = ?", [row["id"]])
    db.execute(f"DELETE FROM catalog {where}", [key])
    table_profiles.drop_facts(db, [row["id"] for row in rows])
    return {row["id"]: row["version"] for row in rows}


def apply_structures(db: Database, grid_id: str, source_sha: str, file_name: str,
                     structures: Sequence[TableStructure],
                     overrides: Mapping[int, Override] | None = None, *,
                     fresh: bool = False) -> None:
    """Write a grid's wide tables, long views and catalog rows.

    The grid's cells must carry these structures' annotations already (`cell_writer`
    writes them with the cells). Replaces whatever the grid had before (bumping each table's
    version) and leaves other grids alone; `fresh` says the grid is new and has nothing to
    replace (looking would scan the catalog once per grid: quadratic in a page of many
    tables). Runs in a savepoint of the caller's transaction, if any: it never commits that.
    """
    overrides = overrides or {}
    with db.atomic():
        versions = {} if fresh else _drop_views(db, "grid", grid_id)
        for structure in structures:
            cancel.check()
            tid = table_id_in(grid_id, structure.index)
            plan = wide_plan(structure)
            _write_wide(db, tid, plan)
            if plan.wide is not None:
                # Written: the catalog entry reads the names alone (the rows: 9 MB at 1M cells).
                plan.wide.rows.clear()
            _write_long(db, tid, grid_id, structure)
            # Between the steps of a big table's entry (its column summaries, its tree, the
            # tree's JSON), each a tenth of a second or more at 300k cells, Stop is checked.
            cancel.check()
            entry = catalog_row(structure, plan, grid_id=grid_id, source=source_sha,
                                file_name=file_name, version=versions.get(tid, 0) + 1,
                                override=overrides.get(structure.index))
            cancel.check()
            row = entry.to_row()
            cancel.check()
            # A plain execute: sqlite-utils' insert re-reads sqlite_master on every call.
            db.conn.execute(f"INSERT INTO catalog ({', '.join(row)}) "
                            f"VALUES ({', '.join(':' + k for k in row)})", row)


def remove_source_views(db: Database, source_sha: str) -> None:
    """Drop a file's wide tables, long views, catalog rows and overrides (its cells go
    elsewhere)."""
    with db.atomic():
        _drop_views(db, "source", source_sha)
        db.execute("DELETE FROM overrides WHERE source = ?", [source_sha])


# --- overrides --------------------------------------------------------------------------------

def set_override(db: Database, source: str, sheet: str, k: int,
                 header_rows: Sequence[int] | None, header_cols: Sequence[int] | None) -> None:
    """Store a user's header rows/columns for table k of a sheet (None keeps detection)."""
    with db.atomic():
        db.execute(
            "INSERT INTO overrides (source, sheet, k, header_rows, header_cols) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (source, sheet, k) DO UPDATE SET "
            "header_rows = excluded.header_rows, header_cols = excluded.header_cols",
            [source, sheet, k, _nullable_json(header_rows), _nullable_json(header_cols)])


def _nullable_json(values: Sequence[int] | None) -> str | None:
    """Encode sheet row/column numbers, keeping None as SQL NULL."""
    return _json([int(v) for v in values]) if values is not None else None


def load_overrides(db: Database, source: str, sheet: str) -> dict[int, Override]:
    """Return the stored overrides of a sheet, keyed by table k."""
    rows = db.query("SELECT k, header_rows, header_cols FROM overrides "
                    "WHERE source = ? AND sheet = ?", [source, sheet])
    return {row["k"]: Override(_tuple_or_none(row["header_rows"]),
                               _tuple_or_none(row["header_cols"])) for row in rows}


def _tuple_or_none(text: str | None) -> tuple[int, ...] | None:
    """Decode `_nullable_json` output into an `Override` field."""
    return tuple(json.loads(text)) if text is not None else None
