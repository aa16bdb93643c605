"""Build `tablelens inspect` output from a workspace: each table with its structure and cells."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

from openpyxl.utils.cell import coordinate_to_tuple

from storage.plain_cells import BLOCK_ROWS, ROW_TABLE
from storage.records import GridInfo, TableInfo
from storage.workspace import Workspace


def tables_json(workspace: Workspace, source: str, path: str, max_cells: int
                ) -> list[dict[str, Any]]:
    """Return the inspect JSON of every table read from one stored file."""
    grids = {g.id: g for g in workspace.grids(source)}
    out = []
    for table in (t for t in workspace.tables() if t.source == source):
        grid = grids[table.grid]
        out.append(_table_json(workspace, table, grid, path, max_cells))
    return out


def _table_json(workspace: Workspace, table: TableInfo, grid: GridInfo, path: str,
                max_cells: int) -> dict[str, Any]:
    tree = table.tree
    wide_columns, wide_paths = _wide_columns(workspace, table)
    cells, truncated = _cells(workspace, table, max_cells)
    out: dict[str, Any] = {
        "source": path, "table": table.id, "sheet": table.sheet, "kind": grid.kind,
        "region": table.region,
        "header_rows": list(table.header_rows), "header_cols": list(table.header_cols),
        "orientation": table.orientation, "confidence": table.confidence,
        "column_paths": [list(p.path) for p in tree.columns.paths],
        "row_paths": [list(p.path) for p in tree.rows.paths],
        "wide_columns": wide_columns, "wide_column_paths": wide_paths,
        "merged": _merged(workspace, table),
        "cells": cells,
    }
    if table.title:
        out["title"] = table.title
    if table.notes:
        out["notes"] = list(table.notes)
    if truncated:
        out["cells_truncated"] = True
    if table.wide_note:
        out["wide_note"] = table.wide_note
    if grid.warnings:
        out["warnings"] = grid.warnings
    return out


def _wide_columns(workspace: Workspace, table: TableInfo
                  ) -> tuple[list[str], list[list[str]]]:
    """The wide view's column names and, in parallel, the column path each one stands for."""
    if not table.wide:
        return [], []
    names = [row["name"] for row in workspace.db.query(
        f"SELECT name FROM pragma_table_info('{table.wide}') ORDER BY cid")]
    levels = table.row_levels
    by_name = {c.name: list(c.path) for c in table.columns if c.name}
    paths = [["_row"] if n == "_row" else [n] if n in levels else by_name.get(n, [n])
             for n in names]
    return names, paths


def _cells(workspace: Workspace, table: TableInfo, max_cells: int
           ) -> tuple[list[dict[str, Any]], bool]:
    cells = []
    for row in itertools.islice(_first_cells(workspace, table), max_cells + 1):
        item: dict[str, Any] = {k: row[k] for k in ("ref", "row", "col", "text", "rowspan",
                                                    "colspan", "role")}
        if row["style"]:
            item["style"] = json.loads(row["style"])
        if row["hidden"]:
            item["hidden"] = True
        if row["formula_uncached"]:
            item["formula_uncached"] = True
        cells.append(item)
    return cells[:max_cells], len(cells) > max_cells


def _first_cells(workspace: Workspace, table: TableInfo) -> Iterator[dict[str, Any]]:
    """The table's cells in reading order, a block of rows at a time: in one query, the
    plain cells of every block were expanded and sorted to list the first few (0.55 s at
    1M cells, `storage.plain_cells`)."""
    [n_rows] = workspace.db.execute("SELECT n_rows FROM grids WHERE id = ?",
                                    [table.grid]).fetchone()
    for block in range(n_rows // BLOCK_ROWS + 1):
        yield from workspace.db.query(
            "SELECT ref, row, col, text, rowspan, colspan, role, style, hidden, "
            "formula_uncached FROM cells WHERE grid = ? AND table_id = ? AND row_block = ? "
            "AND row BETWEEN ? AND ? ORDER BY row, col",
            [table.grid, table.id, block, block * BLOCK_ROWS, (block + 1) * BLOCK_ROWS - 1])


def _merged(workspace: Workspace, table: TableInfo) -> list[str]:
    from ingest.grid import a1

    top_left, bottom_right = table.region.split(":")
    (r1, c1), (r2, c2) = coordinate_to_tuple(top_left), coordinate_to_tuple(bottom_right)
    rows = workspace.db.query(  # merged cells are never plain (`storage.plain_cells`)
        f"SELECT row, col, rowspan, colspan FROM {ROW_TABLE} WHERE grid = ? AND table_id = ? "
        "AND (rowspan > 1 OR colspan > 1) ORDER BY row, col", [table.grid, table.id])
    return [f"{a1(r['row'], r['col'])}:"
            f"{a1(r['row'] + r['rowspan'] - 1, r['col'] + r['colspan'] - 1)}"
            for r in rows if r1 <= r["row"] <= r2 and c1 <= r["col"] <= c2]


def passages_json(workspace: Workspace, source: str, path: str) -> list[dict[str, Any]]:
    """The passages (chunks) of text read from one stored file, in reading order, each with
    where it is: page (pdf) or section, paragraph and character span."""
    from storage.chunks import read_chunks

    return [{"source": path, "chunk": c.id, "page": c.chunk.page, "section": c.chunk.section,
             "paragraph": c.chunk.paragraph, "start": c.chunk.start, "end": c.chunk.end,
             "text": c.text} for c in read_chunks(workspace.db, source)]
