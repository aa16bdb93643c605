"""Render a grid as an HTML table that looks like its source: merges span, styles show."""

from __future__ import annotations

import html

from openpyxl.utils.cell import get_column_letter

from ingest.grid import Grid

GRID_CSS = """
<style>
.tl-grid { border-collapse: collapse; font-size: 0.85rem; }
.tl-grid td, .tl-grid th { border: 1px solid #d0d4da; padding: 2px 6px; vertical-align: top;
  white-space: pre-wrap; }
.tl-grid th.tl-axis { background: #f3f4f6; color: #6b7280; font-weight: normal; }
.tl-grid td.tl-merged { background: #eef6ff; }
.tl-grid td.tl-hidden { color: #9ca3af; }
.tl-grid td.tl-uncached { background: #fff4e5; }
</style>
"""


def grid_html(grid: Grid, max_rows: int = 200, max_cols: int = 50) -> str:
    """Return an HTML table of the grid's top-left max_rows x max_cols, with spreadsheet axes."""
    if grid.streamed:
        grid = _head(grid, max_rows)
    n_rows, n_cols = min(grid.n_rows, max_rows), min(grid.n_cols, max_cols)
    out = [GRID_CSS, '<table class="tl-grid"><tr><th class="tl-axis"></th>']
    out += [f'<th class="tl-axis">{get_column_letter(c)}</th>' for c in range(1, n_cols + 1)]
    out.append("</tr>")
    for r in range(1, n_rows + 1):
        out.append(f'<tr><th class="tl-axis">{r}</th>')
        for c in range(1, n_cols + 1):
            if (r, c) in grid.covered:
                continue  # drawn by the merged anchor's rowspan/colspan
            cell = grid.get(r, c)
            if cell is None:
                out.append("<td></td>")
                continue
            rowspan = min(cell.rowspan, n_rows - r + 1)
            colspan = min(cell.colspan, n_cols - c + 1)
            attrs = []
            if rowspan > 1:
                attrs.append(f'rowspan="{rowspan}"')
            if colspan > 1:
                attrs.append(f'colspan="{colspan}"')
            classes = [name for flag, name in ((cell.is_merged, "tl-merged"),
                                               (cell.hidden, "tl-hidden"),
                                               (cell.formula_uncached, "tl-uncached")) if flag]
            if classes:
                attrs.append(f'class="{" ".join(classes)}"')
            style = []
            if cell.style.bold:
                style.append("font-weight:bold")
            if cell.style.italic:
                style.append("font-style:italic")
            if cell.style.indent:
                style.append(f"padding-left:{6 + 14 * cell.style.indent}px")
            if style:
                attrs.append(f'style="{";".join(style)}"')
            title = f"{cell.ref}" + (" (formula without a stored result)"
                                     if cell.formula_uncached else "")
            attrs.append(f'title="{html.escape(title)}"')
            out.append(f"<td {' '.join(attrs)}>{html.escape(cell.text)}</td>")
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _head(grid: Grid, max_rows: int) -> Grid:
    """Return the first rows of a streamed grid as an in-memory grid."""
    cells = {}
    for row in grid.rows():
        if row and row[0].row > max_rows:
            break
        cells.update({(c.row, c.col): c for c in row})
    return Grid(grid.source, grid.sheet, grid.index, grid.n_rows, grid.n_cols, grid.kind, cells,
                grid.caption, list(grid.warnings))
