"""What the workspace panel shows about a table: its header decisions, header cells and trees.

Pure functions over a catalog entry (`storage.records.TableInfo`) and its grid; the app only
lays them out.
"""

from __future__ import annotations

import html
from collections.abc import Iterable

from openpyxl.utils.cell import column_index_from_string, get_column_letter, range_boundaries

from ingest.grid import Grid
from storage.header_tree import TreeNode, TreeSide
from storage.records import TableInfo

MAX_OPTIONS = 40
"""Header rows/columns offered for correction: the first ones of the table's region."""
MAX_TREE_NODES = 300


def region_bounds(table: TableInfo) -> tuple[int, int, int, int]:
    """Return the table's region as (first row, first column, last row, last column)."""
    min_col, min_row, max_col, max_row = range_boundaries(table.region)
    return min_row, min_col, max_row, max_col


def header_refs(grid: Grid, tables: Iterable[TableInfo]) -> set[str]:
    """Return the anchor refs of the header cells of the given tables of one grid."""
    refs: set[str] = set()
    for table in tables:
        r0, c0, r1, c1 = region_bounds(table)
        slots = [(r, c) for r in table.header_rows for c in range(c0, c1 + 1)]
        slots += [(r, c) for c in table.header_cols for r in range(r0, r1 + 1)]
        for r, c in slots:
            cell = grid.anchor_of(r, c)
            if cell is not None:
                refs.add(cell.ref)
    return refs


def describe_decisions(table: TableInfo) -> str:
    """Say in words how the table's headers were read ("Header rows 1-2 ...")."""
    rows, cols = table.header_rows, table.header_cols
    parts = [f"header row{'s' if len(rows) != 1 else ''} {_spans(rows)}" if rows
             else "no header rows",
             f"header column{'s' if len(cols) != 1 else ''} "
             f"{_spans(cols, letters=True)}" if cols else "no header columns",
             f"orientation {table.orientation}",
             f"confidence {table.confidence:.2f}"]
    if table.corrected:
        parts.append("corrected by hand")
    if table.repeated_header_rows:
        parts.append(f"repeated header rows {_spans(table.repeated_header_rows)}")
    text = ", ".join(parts)
    return text[:1].upper() + text[1:]


def _spans(numbers: Iterable[int], letters: bool = False) -> str:
    """Return "1-3, 5" (or "A-C, E") for a set of numbers."""
    values = sorted(set(numbers))
    runs: list[tuple[int, int]] = []
    for n in values:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    name = get_column_letter if letters else str
    return ", ".join(name(a) if a == b else f"{name(a)}-{name(b)}" for a, b in runs)


def row_options(table: TableInfo) -> list[int]:
    """Return the sheet rows that can be chosen as header rows."""
    r0, _, r1, _ = region_bounds(table)
    return list(range(r0, min(r1, r0 + MAX_OPTIONS - 1) + 1))


def column_options(table: TableInfo) -> list[str]:
    """Return the column letters that can be chosen as header columns."""
    _, c0, _, c1 = region_bounds(table)
    return [get_column_letter(c) for c in range(c0, min(c1, c0 + MAX_OPTIONS - 1) + 1)]


def column_numbers(letters: Iterable[str]) -> list[int]:
    """Return the column numbers of letters ("A" -> 1), sorted."""
    return sorted(column_index_from_string(x) for x in letters)


def column_path_names(table: TableInfo) -> list[str]:
    """Return the name of each leaf column path ("H1 2024 > Q1"); a table too wide for its
    wide view has no column names, so its paths are joined here."""
    return [c.name or " > ".join(c.path) for c in table.columns]


def row_path_names(table: TableInfo) -> list[str]:
    """Return each data row's path, joined with " > " ("Operating Expenses > Salaries")."""
    return [" > ".join(item.path) for item in table.tree.rows.paths]


def tree_html(side: TreeSide | None, empty: str = "none") -> str:
    """Return one side of a header tree (its `nodes`) as nested HTML lists, roots first.

    A node with several parents (an overlapping merged header) is listed under each.
    """
    nodes = {n.id: n for n in side.nodes} if side is not None else {}
    if not nodes:
        return f'<p class="tl-tree-empty">{html.escape(empty)}</p>'
    roots = [n for n in nodes.values() if not n.parents]
    shown = 0

    def item(node: TreeNode, depth: int) -> str:
        nonlocal shown
        shown += 1
        ref = f' <code>{html.escape(node.ref)}</code>' if node.ref else ""  # a node may have none
        label = (f'{html.escape(node.text)}{ref}'
                 + (f" <em>({html.escape(node.kind)})</em>" if node.kind == "group" else ""))
        children = [nodes[c] for c in node.children if c in nodes]
        if not children or depth > 12:
            return f"<li>{label}</li>"
        inner = "".join(item(c, depth + 1) for c in children if shown < MAX_TREE_NODES)
        return f"<li>{label}<ul>{inner}</ul></li>"

    body = "".join(item(r, 0) for r in roots if shown < MAX_TREE_NODES)
    more = (f"<p>... {len(nodes) - shown} more</p>" if shown < len(nodes) and
            shown >= MAX_TREE_NODES else "")
    return f'<ul class="tl-tree">{body}</ul>{more}'


def cited_window(table: TableInfo | None, refs: Iterable[tuple[int, int]],
                 max_rows: int = 200, max_cols: int = 50) -> tuple[int, int, int, int] | None:
    """Return the window of a sheet to draw for cited cells: the table's region when it fits
    (cut to max_rows x max_cols) and holds them, else a window starting a little above them,
    from the table's first column when they fit beside it."""
    cells = list(refs)
    if table is not None:
        r0, c0, r1, c1 = region_bounds(table)
        r1, c1 = min(r1, r0 + max_rows - 1), min(c1, c0 + max_cols - 1)
        if all(r0 <= r <= r1 and c0 <= c <= c1 for r, c in cells):
            return r0, c0, r1, c1
    if not cells:
        return None
    top = max(1, min(r for r, _ in cells) - 5)
    left = max(1, min(c for _, c in cells) - 3)
    if table is not None and max(c for _, c in cells) < c0 + max_cols:
        left = c0  # the row labels stay in view when the cited columns fit beside them
    return top, left, top + max_rows - 1, left + max_cols - 1


def ref_position(ref: str) -> tuple[int, int]:
    """Return (row, column) of an A1 reference ("C5" -> (5, 3))."""
    min_col, min_row, _, _ = range_boundaries(ref)
    return min_row, min_col

