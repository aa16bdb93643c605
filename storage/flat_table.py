"""Store a large CSV as one flat table, streamed into SQLite without a Python object per cell.

A CSV past `Limits.flat_csv_cells` filled cells would take about 1 GB per million cells if its
structure were analysed whole (every cell a `Cell`, a typed value and a tree entry). Most such
files are one flat table: a header row, then records. So (all inside the caller's
transaction, which a failure or Stop rolls back whole):

1. Its head (the first `HEAD_ROWS` records) is analysed like any grid (ingest/structure.py).
   It must be one table with its headers on top and at most one row-label column;
   otherwise `store_flat` returns None and the caller decides (analyse it whole under the
   cell limit, or refuse it).
2. Every record after the header rows goes, as its field texts, into a temporary staging
   table, in batches of `BATCH` rows (`executemany`).
3. Each column's values are typed: plain integers and decimals, with or without thousands
   separators, by SQL (`_fast_number`, held to `parse_raw` by a test); every other distinct
   text once with `ingest.values.parse_raw`, into a temporary lookup table (a column of a
   million cells holds a few thousand distinct dates, labels or percentages).
4. The `cell_rows` rows (every cell at its A1 ref, with its role and typed value), the wide
   table, the row and column paths, the long view, the catalog entry (its HO-Tree's row side
   written chunk by chunk) and the search index over distinct values are derived from the
   staging table with set-based SQL (INSERT ... SELECT, GROUP BY), which runs in SQLite's C
   code.

Every record after the header is a data row: a flat table has no section bands, row groups,
repeated headers or notes, and blank records are skipped rather than splitting it in tables.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson
from openpyxl.utils.cell import get_column_letter
from sqlite_utils import Database
from sqlite_utils.db import quote_identifier

from ingest import cancel
from ingest.errors import NotEnoughDisk
from ingest.grid import Cell, Grid, Progress
from ingest.structure import NUMERIC_KINDS, Override, TableStructure, analyse_grid
from ingest.values import (
    SLASH_DATE,
    apply_context_scale,
    as_day_first,
    parse_raw,
    scale_from_context,
    writes_day_first,
)
from storage.cells_codec import CELL_COLUMNS, NO_ANNOTATION, cell_row, sql_text
from storage.header_tree import ROW_CHUNK, STORED_SCHEMA_VERSION
from storage.plain_cells import ROW_TABLE
from storage.records import ColumnInfo, TableInfo
from storage.search_index import MAX_VALUE_CHARS, MAX_VALUES_PER_COLUMN, index_flat_table
from storage.views import (
    MAX_WIDE_COLUMNS,
    PATH_SEPARATOR,
    ROW_COLUMN,
    catalog_row,
    create_long_view,
    level_names,
    long_name,
    path_names,
    storable,
    table_id_in,
    wide_name,
    wide_plan,
)

HEAD_ROWS = 1_000
"""Records whose structure is analysed to find the header rows, the row-label column and the
column paths: a title and a header of a few rows fit many times over."""

DISK_BYTES_PER_CSV_BYTE = 75
"""Disk a flat table needs per byte of its CSV while it is stored, with room to spare: measured,
a 59 MB file became 2.0 GB of workspace.sqlite (the `cell_rows` rows and their covering index are
most of it, then the wide table and the search index), and the write-ahead log holds as much
again until the commit's checkpoint; the staging tables take about the file's size."""

BATCH = 20_000
"""Records per `executemany` into the staging table: bounds the rows held at once."""

_STAGE = "temp.flat_stage"
_TYPED = "temp.flat_typed"

_NUMERIC = ", ".join(map(sql_text, sorted(NUMERIC_KINDS)))


def _plain_number(t: str) -> str:
    """The SQL test that text `t` is a plain integer ("-12", "640000") or decimal ("12.50"):
    no sign but a leading minus, no leading zero, no exponent, at most 15 digits (exact in a
    double)."""
    shape = f"NOT {t} GLOB '*[^0-9.]*' AND NOT {t} GLOB '*.*.*' AND NOT {t} GLOB '*.'"
    return (f"((({t} GLOB '[1-9]*' OR {t} = '0' OR {t} GLOB '0.[0-9]*') AND {shape} "
            f"AND length({t}) <= 15) OR ({t} GLOB '-[1-9]*' AND NOT substr({t}, 2) GLOB "
            f"'*[^0-9.]*' AND NOT {t} GLOB '*.*.*' AND NOT {t} GLOB '*.' "
            f"AND length({t}) <= 16))")


def _fast_number(t: str) -> str:
    """The SQL test that text `t` is a number `parse_raw` reads as just that number (kind
    "number", no unit): a plain integer or decimal, or one with thousands separators
    ("795,193.57", its groups checked by printf's own). Tested against `parse_raw`."""
    whole = f"substr({t}, 1, instr({t} || '.', '.') - 1)"
    return (f"((NOT {t} GLOB '*,*' AND {_plain_number(t)}) OR ({t} GLOB '[1-9]*,*' AND "
            f"{_plain_number(f'replace({t}, {chr(39)},{chr(39)}, {chr(39)}{chr(39)})')} AND "
            f"printf('%,d', CAST(replace({whole}, ',', '') AS INTEGER)) = {whole}))")


def _cast(t: str) -> str:
    """The number of a text that passed `_fast_number`."""
    plain = f"replace({t}, ',', '')"
    return f"CASE WHEN {t} GLOB '*.*' THEN CAST({plain} AS REAL) ELSE CAST({plain} AS INTEGER) END"


@dataclass(frozen=True)
class FlatLayout:
    """What the head says of a flat table."""

    head: TableStructure
    """The head's structure (its title, header cells and column paths)."""
    first_data_row: int
    label_col: int | None
    """The row-label column (its text is each row's path), None when rows have no label."""
    data_cols: list[int]
    """Every other column of the file, left to right."""
    col_paths: dict[int, tuple[str, ...]]
    scales: dict[int, tuple[float, str]]
    """A column's context scale and where it was stated ("header", "title"), if any."""


def check_disk_space(name: str, size: int, folder: Path) -> None:
    """Refuse a file whose flat table would not fit on the disk of the workspace's `folder`
    (and of SQLite's temporary files, which hold the staging tables), before writing."""
    needed = size * DISK_BYTES_PER_CSV_BYTE
    places = {folder, Path(tempfile.gettempdir())}
    free = min(shutil.disk_usage(place).free for place in places)
    if needed > free:
        raise NotEnoughDisk(name, f"storing it needs about {needed / 2**30:.1f} GB of disk "
                            f"space and {free / 2**30:.1f} GB is free.",
                            "Free some disk space where the workspaces are kept "
                            "(TABLELENS_DATA_DIR), or split the file.")


def flat_layout(head: Grid, n_cols: int, overrides: dict[int, Override]) -> FlatLayout | None:
    """Find a flat table's layout in its head; None when the head is not one flat table."""
    structures = analyse_grid(head, overrides)
    if len(structures) != 1 or n_cols > MAX_WIDE_COLUMNS:
        return None
    head_table = structures[0]
    if (head_table.orientation != "top" or len(head_table.header_cols) > 1
            or head_table.repeated_header_rows):
        return None
    label_col = head_table.header_cols[0] if head_table.header_cols else None
    first = max(head_table.header_rows, default=head_table.region.top - 1) + 1
    data_cols = [c for c in range(1, n_cols + 1) if c != label_col]
    col_paths = {c: head_table.col_paths.get(c, ()) for c in data_cols}
    scales: dict[int, tuple[float, str]] = {}
    for c in data_cols:
        header = scale_from_context(" ".join(col_paths[c])) if col_paths[c] else None
        if header:
            scales[c] = (header, "header")
        elif head_table.scale:
            scales[c] = (head_table.scale, "title")
    return FlatLayout(head_table, first, label_col, data_cols, col_paths, scales)


def head_grid(grid: Grid) -> Grid:
    """The first `HEAD_ROWS` records of a streamed grid as an in-memory grid."""
    cells: dict[tuple[int, int], Cell] = {}
    rows = grid.text_rows()
    try:
        for r, fields in enumerate(rows, 1):
            if r > HEAD_ROWS:
                break
            for c, text in enumerate(fields, 1):
                if text.strip():
                    cells[(r, c)] = Cell(r, c, text, text)
    finally:
        rows.close()
    return Grid(grid.source, grid.sheet, grid.index, min(grid.n_rows, HEAD_ROWS), grid.n_cols,
                grid.kind, cells, grid.caption, list(grid.warnings))


def store_flat(db: Database, grid: Grid, grid_id: str, source: str, file_name: str,
               overrides: dict[int, Override], progress: Progress) -> str | None:
    """Store a streamed grid as one flat table (in the caller's transaction); return its table
    id, or None when its head is not one flat table (nothing is written then)."""
    head = head_grid(grid)
    layout = flat_layout(head, grid.n_cols, overrides)
    if layout is None:
        return None
    tid = table_id_in(grid_id, layout.head.index)
    conn = db.conn
    # The staging tables live in the temporary database; a bigger cache for it keeps their
    # pages in memory while the cells are derived (the main database has its own).
    conn.execute("PRAGMA temp.cache_size = -32768")
    _write_head_cells(conn, head, grid_id, tid, layout)
    del head
    n_rows = _stage(conn, grid, layout, progress)
    progress(0.5, "typing values")
    _type_values(conn, layout)
    progress(0.6, "writing cells")
    _write_cells(conn, grid_id, tid, layout)
    progress(0.8, "writing the wide table")
    columns = _column_infos(conn, grid_id, tid, layout)
    _write_wide(conn, tid, layout, columns)
    _write_paths(conn, tid, layout)
    create_long_view(db, tid, grid_id, kv=False)
    progress(0.9, "catalog and search index")
    last_row = conn.execute(f"SELECT max(r) FROM {_STAGE}").fetchone()[0] or layout.first_data_row
    entry = _catalog_entry(conn, layout, tid, grid_id, source, file_name, columns, n_rows,
                           last_row, overrides)
    index_flat_table(db, entry, _labels(layout), _text_values(conn, grid_id, tid, layout))
    conn.execute(f"DROP TABLE {_STAGE}")
    conn.execute(f"DROP TABLE {_TYPED}")
    return tid


def _write_head_cells(conn: sqlite3.Connection, head: Grid, grid_id: str, tid: str,
                      layout: FlatLayout) -> None:
    """Write the cells above the first data row (title and header) with their roles."""
    roles = layout.head.roles
    rows = []
    for (r, c), cell in sorted(head.cells.items()):
        if r >= layout.first_data_row:
            break
        role = roles.get((r, c))
        rows.append(cell_row(grid_id, cell, (role, tid, *NO_ANNOTATION[2:]) if role
                             else NO_ANNOTATION))
    conn.executemany(f"INSERT INTO {ROW_TABLE} ({', '.join(CELL_COLUMNS)}) "
                     f"VALUES ({', '.join('?' * len(CELL_COLUMNS))})", rows)


def _column(c: int) -> str:
    return f"c{c}"


def _stage(conn: sqlite3.Connection, grid: Grid, layout: FlatLayout, progress: Progress) -> int:
    """Insert every filled record from the first data row on into the staging table, blank
    fields as NULL, with the row label stripped; return the number of records."""
    n_cols = grid.n_cols
    body = ", ".join(f"{_column(c)} TEXT" for c in range(1, n_cols + 1))
    conn.execute(f"CREATE TABLE {_STAGE} (r INTEGER PRIMARY KEY, label TEXT, {body})")
    insert = f"INSERT INTO {_STAGE} VALUES (?, ?, {', '.join('?' * n_cols)})"
    pad = [None] * n_cols
    label = layout.label_col - 1 if layout.label_col is not None else None
    first = layout.first_data_row
    total = max(grid.n_rows, 1)
    batch: list[list[Any]] = []
    staged = 0
    progress(0.0, "streaming rows")
    rows = grid.text_rows()
    try:
        for r, fields in enumerate(rows, 1):
            if r < first:
                continue
            # A field of spaces is no cell, as in the CSV reader.
            values: list[Any] = [v if v and not v.isspace() else None for v in fields]
            if not any(values):
                continue
            if len(values) < n_cols:
                values += pad[len(values):]
            text = values[label] if label is not None else None
            batch.append([r, text.strip() if text is not None else None, *values])
            if len(batch) >= BATCH:
                conn.executemany(insert, batch)
                staged += len(batch)
                batch.clear()
                cancel.check()
                progress(0.5 * r / total, "streaming rows")
    finally:
        rows.close()
    conn.executemany(insert, batch)
    return staged + len(batch)


def _type_values(conn: sqlite3.Connection, layout: FlatLayout) -> None:
    """Type every distinct text of each data column that is not a plain number, once, into
    the lookup table (with the column's header or title scale, as the full analysis does)."""
    conn.execute(f"CREATE TABLE {_TYPED} (col INTEGER NOT NULL, text TEXT NOT NULL, number, "
                 "value, kind TEXT, unit TEXT, scale REAL, scale_source TEXT, date TEXT, "
                 "PRIMARY KEY (col, text)) WITHOUT ROWID")
    insert = f"INSERT INTO {_TYPED} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
    for c in layout.data_cols:
        cancel.check()
        column = _column(c)
        scale = layout.scales.get(c)
        plain = "" if scale else f" AND NOT ({_fast_number(column)})"
        texts = conn.execute(f"SELECT DISTINCT {column} FROM {_STAGE} "
                             f"WHERE {column} IS NOT NULL{plain}")
        conn.executemany(insert, cancel.checked(
            _typed_rows(c, texts, scale, _day_first(conn, column))))


def _day_first(conn: sqlite3.Connection, column: str) -> bool:
    """Whether a column writes its slash dates day first (`writes_day_first`), looked for
    only when its first records hold one: a column of numbers is not scanned for them."""
    head = conn.execute(f"SELECT {column} FROM {_STAGE} LIMIT 20").fetchall()
    if not any(isinstance(t, str) and SLASH_DATE.match(t) for (t,) in head):
        return False
    return writes_day_first([t for (t,) in conn.execute(
        f"SELECT DISTINCT {column} FROM {_STAGE} WHERE {column} LIKE '%/%/%' LIMIT 5000")])


def _typed_rows(c: int, texts: Iterator[tuple[str]], scale: tuple[float, str] | None,
                day_first: bool = False) -> Iterator[tuple[Any, ...]]:
    """The lookup rows of one column's distinct texts, each read as the full analysis reads
    a CSV cell (`parse_raw` of its text as both raw value and display)."""
    for (text,) in texts:
        read = as_day_first(text) if day_first else text
        value = parse_raw(read, read)
        if scale:
            value = apply_context_scale(value, *scale)
        yield (c, text, storable(value.number), storable(value.value()), value.kind,
               value.unit, value.scale, value.scale_source, value.date)


def _write_cells(conn: sqlite3.Connection, grid_id: str, tid: str, layout: FlatLayout) -> None:
    """Derive the `cell_rows` rows of the data records in one INSERT ... SELECT, record by record
    (the primary key's order: inserted column by column, every pass rewrote the whole tree,
    which took 4.7 s against 2.8 s for a million cells)."""
    columns = sorted([*layout.data_cols, *([layout.label_col] if layout.label_col else [])])
    conn.execute("CREATE TABLE temp.flat_columns (c INTEGER PRIMARY KEY, letter TEXT, "
                 "role TEXT)")
    conn.executemany("INSERT INTO temp.flat_columns VALUES (?, ?, ?)",
                     [(c, get_column_letter(c), "header" if c == layout.label_col else "data")
                      for c in columns])
    pick = " ".join(f"WHEN {c} THEN s.{_column(c)}" for c in columns)
    number = _cast("x.text")
    cancel.check()
    conn.execute(
        f"INSERT INTO {ROW_TABLE} ({', '.join(CELL_COLUMNS)}) "
        f"SELECT {sql_text(grid_id)}, x.r, x.c, "
        "x.letter || x.r, 1, 1, x.text, 'str', x.text, NULL, 0, 0, NULL, NULL, NULL, x.role, "
        f"{sql_text(tid)}, "
        f"CASE WHEN x.role = 'header' THEN NULL WHEN t.col IS NULL THEN {number} "
        "ELSE t.number END, "
        f"CASE WHEN x.role = 'header' THEN NULL WHEN t.col IS NULL THEN {number} "
        "ELSE t.value END, "
        "CASE WHEN x.role = 'header' THEN NULL ELSE coalesce(t.kind, 'number') END, "
        "t.unit, t.scale, t.scale_source, t.date, NULL "
        f"FROM (SELECT s.r AS r, k.c AS c, k.letter AS letter, k.role AS role, "
        f"CASE k.c {pick} END AS text FROM {_STAGE} s CROSS JOIN temp.flat_columns k) x "
        f"LEFT JOIN {_TYPED} t ON t.col = x.c AND t.text = x.text WHERE x.text IS NOT NULL")
    conn.execute("DROP TABLE temp.flat_columns")


def _column_infos(conn: sqlite3.Connection, grid_id: str, tid: str, layout: FlatLayout
                  ) -> list[tuple[ColumnInfo, str]]:
    """Each data column's catalog summary (commonest kind and unit, first three distinct
    texts) and the wide table's declared type, read from `cells_by_column`."""
    names = path_names([layout.col_paths[c] for c in layout.data_cols], layout.data_cols,
                       {ROW_COLUMN.casefold(), *(n.casefold() for n in _levels(layout))})
    # A flat table's cells are all rows of `cell_rows` (`_write_cells`), none plain.
    where = (f"FROM {ROW_TABLE} INDEXED BY cells_by_column WHERE grid = ? AND table_id = ? "
             "AND col = ? AND kind IS NOT NULL")
    out = []
    for c, name in zip(layout.data_cols, names, strict=True):
        cancel.check()
        key = [grid_id, tid, c]
        numeric = f"coalesce(kind IN ({_NUMERIC}) AND number IS NOT NULL, 0)"
        # One pass over the column's index range: kinds and units with their counts.
        groups = conn.execute(f"SELECT kind, unit, count(*), min(row), max({numeric}), "
                              f"max(NOT {numeric}) {where} GROUP BY kind, unit", key).fetchall()
        has_number = any(g[4] for g in groups)
        has_text = any(g[5] for g in groups)
        declared = ("NUMERIC" if has_number and not has_text else
                    "" if has_number else "TEXT")
        kind = _commonest((g[0], g[2], g[3]) for g in groups)
        unit = _commonest((g[1], g[2], g[3]) for g in groups if g[1] is not None)
        samples: list[str] = []
        for (text,) in conn.execute(f"SELECT text {where} ORDER BY row", key):
            if text not in samples:
                samples.append(text)
            if len(samples) == 3:
                break
        out.append((ColumnInfo(name, layout.col_paths[c], kind, unit, tuple(samples)),
                    declared))
    return out


def _commonest(counted: Iterable[tuple[Any, int, int]]) -> Any:
    """The value with the highest count, the first seen (lowest row) on a tie; None if none."""
    totals: dict[Any, list[int]] = {}
    for value, count, first in counted:
        seen = totals.setdefault(value, [0, first])
        seen[0] += count
        seen[1] = min(seen[1], first)
    return min(totals, key=lambda v: (-totals[v][0], totals[v][1]), default=None)


def _levels(layout: FlatLayout) -> list[str]:
    """The wide table's level column (the row label), if the table has one."""
    if layout.label_col is None:
        return []
    return level_names(layout.head, 1, {ROW_COLUMN.casefold()})


def _write_wide(conn: sqlite3.Connection, tid: str, layout: FlatLayout,
                columns: list[tuple[ColumnInfo, str]]) -> None:
    """Create `<table>__wide` from the staging table: the number for numeric kinds, the text
    otherwise (as `storage.views` writes any table's)."""
    name = quote_identifier(wide_name(tid))
    levels = _levels(layout)
    body = [f"{quote_identifier(ROW_COLUMN)} INTEGER", *(f"{quote_identifier(n)} TEXT"
                                                        for n in levels)]
    body += [f"{quote_identifier(info.name or '')} {declared}".rstrip()
             for info, declared in columns]
    conn.execute(f"CREATE TABLE {name} ({', '.join(body)})")
    values = ["s.r", *(["s.label"] if levels else [])]
    for c in layout.data_cols:
        column = f"s.{_column(c)}"
        plain = "0" if layout.scales.get(c) else _fast_number(column)
        values.append(
            f"CASE WHEN {column} IS NULL THEN NULL WHEN {plain} THEN {_cast(column)} "
            f"ELSE coalesce((SELECT t.number FROM {_TYPED} t WHERE t.col = {c} AND "
            f"t.text = {column} AND t.kind IN ({_NUMERIC}) AND t.number IS NOT NULL), "
            f"{column}) END")
    cancel.check()
    conn.execute(f"INSERT INTO {name} SELECT {', '.join(values)} FROM {_STAGE} s ORDER BY s.r")


def _write_paths(conn: sqlite3.Connection, tid: str, layout: FlatLayout) -> None:
    """Write the table's row paths (its label, or none) and column paths."""
    table = sql_text(tid)
    cancel.check()
    conn.execute(f"INSERT INTO row_paths SELECT {table}, r, 0, CASE WHEN label IS NULL "
                 "THEN '[]' ELSE json_array(label) END, coalesce(label, '') "
                 f"FROM {_STAGE} ORDER BY r")
    conn.executemany("INSERT INTO col_paths VALUES (?, ?, ?, ?)",
                     [(tid, c, orjson.dumps(list(p)).decode(), PATH_SEPARATOR.join(p))
                      for c, p in layout.col_paths.items()])


def _catalog_entry(conn: sqlite3.Connection, layout: FlatLayout, tid: str, grid_id: str,
                   source: str, file_name: str, columns: list[tuple[ColumnInfo, str]],
                   n_rows: int, last_row: int, overrides: dict[int, Override]) -> TableInfo:
    """Insert the table's catalog row; return its entry (whose tree holds the head's rows
    only: the stored tree has them all)."""
    head = layout.head
    region = head.region
    last_col = get_column_letter(max(layout.data_cols + [layout.label_col or 1]))
    entry = catalog_row(head, wide_plan(head), grid_id=grid_id, source=source,
                        file_name=file_name, version=1, override=overrides.get(head.index))
    entry = replace(entry, region=f"{get_column_letter(region.left)}{region.top}:"
                                  f"{last_col}{max(last_row, region.top)}",
                    columns=tuple(info for info, _ in columns), row_levels=tuple(_levels(layout)),
                    wide=wide_name(tid), wide_note=None, long=long_name(tid), n_rows=n_rows)
    row = entry.to_row()
    _write_tree_chunks(conn, layout)
    columns_side = {"nodes": [n.to_dict() for n in head.col_nodes],
                    "paths": [{"col": c, "path": list(layout.col_paths[c]),
                               "nodes": head.col_node_paths.get(c, [])}
                              for c in layout.data_cols]}
    levels = list(head.row_levels) if layout.label_col is not None else []
    prefix = (b'{"schema_version":' + orjson.dumps(STORED_SCHEMA_VERSION) + b',"decisions":'
              + orjson.dumps(entry.decisions()) + b',"columns":' + orjson.dumps(columns_side)
              + b',"rows":{"levels":' + orjson.dumps(levels) + b',"chunks":[')
    suffix = b"]}}"
    [(chunks, size)] = conn.execute("SELECT count(*), coalesce(sum(length(text)), 0) "
                                    "FROM temp.flat_tree").fetchall()
    del row["tree"]  # the head's: written below
    conn.execute(f"INSERT INTO catalog ({', '.join(row)}, tree) "
                 f"VALUES ({', '.join(':' + k for k in row)}, zeroblob(:size))",
                 {**row, "size": len(prefix) + size + max(chunks - 1, 0) + len(suffix)})
    # The tree of a million rows is tens of MB of JSON: written into its place a chunk at a
    # time (SQLite's incremental BLOB I/O), it is never one string in memory. Built as one
    # string, in Python or with SQLite's JSON functions, it added 400 MB to the peak. It is
    # stored as UTF-8 JSON bytes, which `HeaderTree.from_stored` reads as it reads text.
    [(rowid,)] = conn.execute("SELECT rowid FROM catalog WHERE id = ?", [tid]).fetchall()
    with conn.blobopen("catalog", "tree", rowid, name="main") as blob:
        blob.write(prefix)
        for n, (text,) in enumerate(conn.execute("SELECT text FROM temp.flat_tree ORDER BY n")):
            blob.write(b"," + text if n else text)
        blob.write(suffix)
    conn.execute("DROP TABLE temp.flat_tree")
    return entry


def _write_tree_chunks(conn: sqlite3.Connection, layout: FlatLayout) -> None:
    """Write the stored HO-Tree's row side (storage/header_tree.py, layout 2) into a temporary
    table, `ROW_CHUNK` records per chunk, each as the JSON string literal of its JSON (as
    `HeaderTree.to_dict` stores chunks): one "row" node per labelled record."""
    conn.execute("CREATE TABLE temp.flat_tree (n INTEGER PRIMARY KEY, text BLOB)")
    letter = get_column_letter(layout.label_col) if layout.label_col is not None else ""
    node = 0
    records = conn.execute(f"SELECT r, label FROM {_STAGE} ORDER BY r")
    for n, batch in enumerate(iter(lambda: records.fetchmany(ROW_CHUNK), [])):
        cancel.check()
        labelled = [(r, label) for r, label in batch if label is not None]
        ids = list(range(node, node + len(labelled)))
        chain = dict(zip((r for r, _ in labelled), ids, strict=True))
        node += len(labelled)
        text = orjson.dumps({
            "nodes": [ids, [label for _, label in labelled],
                      [f"{letter}{r}" for r, _ in labelled], ["row"] * len(ids),
                      [[]] * len(ids), [[]] * len(ids)],
            "paths": [[r for r, _ in batch],
                      [[label] if label is not None else [] for _, label in batch],
                      [[chain[r]] if r in chain else [] for r, _ in batch]]}).decode()
        conn.execute("INSERT INTO temp.flat_tree VALUES (?, ?)", (n, orjson.dumps(text)))


def _labels(layout: FlatLayout) -> str:
    """The SELECT of each distinct row label with the ref of its first cell, first seen
    first (none without a label column)."""
    if layout.label_col is None:
        return "SELECT NULL AS label, NULL AS ref WHERE 0"
    letter = sql_text(get_column_letter(layout.label_col))
    return (f"SELECT label, {letter} || min(r) AS ref FROM {_STAGE} WHERE label IS NOT NULL "
            "GROUP BY label ORDER BY min(r)")


def _text_values(conn: sqlite3.Connection, grid_id: str, tid: str, layout: FlatLayout
                 ) -> Iterator[tuple[int, str, str]]:
    """Each data column's distinct short text values with their first ref (set-based)."""
    for c in layout.data_cols:
        cancel.check()
        yield from ((c, text, ref) for text, ref in conn.execute(
            f"SELECT text, ref FROM (SELECT text, ref, min(row) AS first FROM {ROW_TABLE} "
            "INDEXED BY cells_by_column WHERE grid = ? AND table_id = ? AND col = ? "
            "AND kind = 'text' AND length(text) <= ? GROUP BY text) ORDER BY first LIMIT ?",
            [grid_id, tid, c, MAX_VALUE_CHARS, MAX_VALUES_PER_COLUMN]))
