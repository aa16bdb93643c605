"""Render a grid as an HTML table that looks like its source: merges span, styles show.

Header cells and cited cells can be highlighted, and a window of the sheet can be drawn instead
of its top-left corner (a merged cell cut by the window's edge is drawn clipped, from its first
visible slot).
"""

from __future__ import annotations

import html
from collections.abc import Collection

from openpyxl.utils.cell import get_column_letter

from ingest.grid import Grid

GRID_CSS = """
<style>
.tl-scroll { overflow: auto; max-height: 480px; }
.tl-grid { border-collapse: collapse; font-size: 0.85rem; }
.tl-grid td, .tl-grid th { border: 1px solid #d0d4da; padding: 2px 6px; vertical-align: top;
  white-space: pre-wrap; }
.tl-grid th.tl-axis { background: #f3f4f6; color: #6b7280; font-weight: normal; }
.tl-grid tr:first-child th.tl-axis { position: sticky; top: 0; z-index: 1; }
.tl-grid th.tl-axis:first-child { position: sticky; left: 0; }
.tl-grid td.tl-merged { background: #eef6ff; }
.tl-grid td.tl-hidden { color: #9ca3af; }
.tl-grid td.tl-uncached { background: #fff4e5; }
.tl-grid td.tl-uncertain { text-decoration: underline wavy #dc2626; }
.tl-grid td.tl-corrected { text-decoration: underline dotted #2563eb; }
.tl-grid td.tl-header { background: #e0e7ff; color: #1e1b4b; }
.tl-grid td.tl-cited { background: #fef08a; outline: 2px solid #ca8a04; outline-offset: -2px; }
.tl-grid td.tl-focus { background: #fde047; outline: 3px solid #a16207; outline-offset: -3px;
  font-weight: bold; }
</style>
"""

SCROLL_TO_CITED = """<script>
// A cited cell far down (or right) in its table's scroll box is scrolled into view, a third
// of the box from its top (or left), once: the row labels stay on screen when they can.
for (const box of document.querySelectorAll(".tl-scroll:not([data-tl-scrolled])")) {
  const cell = box.querySelector("td.tl-focus") || box.querySelector("td.tl-cited");
  if (!cell) continue;
  box.dataset.tlScrolled = "1";
  const outer = box.getBoundingClientRect(), inner = cell.getBoundingClientRect();
  if (inner.bottom > outer.bottom || inner.top < outer.top)
    box.scrollTop += inner.top - outer.top - box.clientHeight / 3;
  if (inner.right > outer.right || inner.left < outer.left)
    box.scrollLeft += inner.left - outer.left - box.clientWidth / 3;
}
</script>"""
"""Appended to a grid with cited cells, shown with `st.html(..., unsafe_allow_javascript=True)`
(every text of `grid_html` is escaped, so the script is the page's only code)."""

Window = tuple[int, int, int, int]
"""(first row, first column, last row, last column), 1-based and inclusive."""


SHOWN_ROWS = 200
SHOWN_COLS = 50
"""The part of a sheet `grid_html` draws at most."""


def drawn_window(window: Window | None) -> Window:
    """The cells `grid_html` draws for a window (None: the top left), to read only those
    (`Workspace.load_window`)."""
    r0, c0 = (max(1, window[0]), max(1, window[1])) if window else (1, 1)
    return r0, c0, r0 + SHOWN_ROWS - 1, c0 + SHOWN_COLS - 1


def grid_html(grid: Grid, max_rows: int = SHOWN_ROWS, max_cols: int = SHOWN_COLS, *,
              header: Collection[str] = (), highlight: Collection[str] = (),
              focus: str | None = None, window: Window | None = None) -> str:
    """Return an HTML table of the grid with spreadsheet axes.

    Draws the top-left max_rows x max_cols, or `window` (cut to the same size). Cells whose
    anchor ref is in `header` are marked as header cells, those in `highlight` as cited, and
    `focus` (one ref) strongest of all.
    """
    r0, c0, r1, c1 = window or (1, 1, grid.n_rows, grid.n_cols)
    r0, c0 = max(1, r0), max(1, c0)
    r1 = min(r1, grid.n_rows, r0 + max_rows - 1)
    c1 = min(c1, grid.n_cols, c0 + max_cols - 1)
    if grid.streamed:
        grid = _head(grid, r1)
    header, highlight = set(header), set(highlight)
    out = [GRID_CSS, '<div class="tl-scroll"><table class="tl-grid"><tr><th class="tl-axis"></th>']
    out += [f'<th class="tl-axis">{get_column_letter(c)}</th>' for c in range(c0, c1 + 1)]
    out.append("</tr>")
    for r in range(r0, r1 + 1):
        out.append(f'<tr><th class="tl-axis">{r}</th>')
        for c in range(c0, c1 + 1):
            cell = grid.get(r, c)
            if cell is None and (r, c) in grid.covered:
                ar, ac = grid.covered[(r, c)]
                if (ar >= r0 and ac >= c0) or (r, c) != (max(ar, r0), max(ac, c0)):
                    continue  # drawn by the merged anchor (or its clipped first slot)
                cell = grid.cells[(ar, ac)]
            if cell is None:
                out.append("<td></td>")
                continue
            rowspan = min(cell.row + cell.rowspan - 1, r1) - r + 1
            colspan = min(cell.col + cell.colspan - 1, c1) - c + 1
            out.append(_cell_html(cell, rowspan, colspan, header, highlight, focus))
        out.append("</tr>")
    out.append("</table></div>")
    return "".join(out)


def _cell_html(cell, rowspan: int, colspan: int, header: set[str], highlight: set[str],
               focus: str | None) -> str:
    attrs = []
    if rowspan > 1:
        attrs.append(f'rowspan="{rowspan}"')
    if colspan > 1:
        attrs.append(f'colspan="{colspan}"')
    ref = cell.ref
    classes = [name for flag, name in ((cell.is_merged, "tl-merged"),
                                       (cell.hidden, "tl-hidden"),
                                       (cell.formula_uncached, "tl-uncached"),
                                       (_uncertain(cell), "tl-uncertain"),
                                       ("corrected" in cell.flags, "tl-corrected"),
                                       (ref in header, "tl-header"),
                                       (ref in highlight, "tl-cited"),
                                       (ref == focus, "tl-focus")) if flag]
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
    title = ref + (" (formula without a stored result)" if cell.formula_uncached else "")
    if cell.confidence is not None:
        title += _ocr_note(cell)
    attrs.append(f'title="{html.escape(title)}"')
    attrs.append(f'data-ref="{html.escape(ref)}"')
    return f"<td {' '.join(attrs)}>{html.escape(cell.text)}</td>"


def ocr_caption(grid: Grid) -> str:
    """What the preview of a grid read from an image says about its doubtful cells."""
    cells = list(grid.iter_cells())
    doubtful = sum(_uncertain(c) for c in cells)
    corrected = sum("corrected" in c.flags for c in cells)
    return (f"Read from an image with OCR: {doubtful} cell{'s' if doubtful != 1 else ''} "
            f"uncertain (wavy red underline), {corrected} corrected (dotted blue underline); "
            "point at a cell to see how sure OCR was and what it read.")


def _uncertain(cell) -> bool:
    return any(f in ("low_confidence", "not_a_number") for f in cell.flags)


def _ocr_note(cell) -> str:
    """A tooltip for a cell read from an image: how sure OCR was, and what it read."""
    note = f" (read from an image, {cell.confidence:.0%} sure"
    if "corrected" in cell.flags and isinstance(cell.raw, str):
        note += f"; OCR read \u201c{cell.raw}\u201d"
    if "not_a_number" in cell.flags:
        note += "; not a number in a column of numbers"
    return note + ")"


def _head(grid: Grid, max_rows: int) -> Grid:
    """Return the first rows of a streamed grid as an in-memory grid."""
    cells = {}
    for row in grid.rows():
        if row and row[0].row > max_rows:
            break
        cells.update({(c.row, c.col): c for c in row})
    return Grid(grid.source, grid.sheet, grid.index, grid.n_rows, grid.n_cols, grid.kind, cells,
                grid.caption, list(grid.warnings))
