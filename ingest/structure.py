"""The HO-Tree of a table region: which cells are headers, and the path that names every value.

After ST-Raptor's hierarchical-orthogonal tree: header rows on top give every data column a
*column path* ("H1 2024 > Q2"); header columns on the left, section bands and indentation give
every data row a *row path* ("Operating Expenses > Rent"). A merged header cell that spans several
columns is one node shared by all of them; a header cell that straddles two parents gets both.
Unlike ST-Raptor, nothing is dropped: every filled cell of the region gets exactly one role
(header, data, title or note), and the detector reports its decisions and a confidence so a user
can correct them (`Override`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from ingest import cancel
from ingest.data_cells import DataCell, DataCells
from ingest.gcpause import gc_paused
from ingest.grid import Cell, Grid, given_text
from ingest.regions import LABEL_END, YEARISH, Region, find_regions
from ingest.roles import Roles
from ingest.scale_exceptions import excepted_rows, rows_of_own_unit
from ingest.values import (
    SLASH_DATE,
    apply_context_scale,
    as_day_first,
    has_own_unit,
    parse_raw,
    scale_from_context,
    title_sentences,
    writes_day_first,
)

TREE_SCHEMA_VERSION = 1
MAX_HEADER_ROWS = 8
NUMERIC_KINDS = frozenset({"number", "percent", "currency"})


CLOSING_TOTAL = re.compile(r"^\W*(?:grand\s+|sub-?)?totals?\b|\b(?:sub-?)?totals?\W*$",
                            re.IGNORECASE)
"""A total's label ("Total current assets", "Revenue, total", "Northern Region subtotal"): it
sums the rows above it, unless the rows after it are indented under it."""

_WHOLE_PERIOD = re.compile(r"^\W*(?:annual|full[- ]year|whole year|year|calendar year|"
                           r"fiscal year|ytd|year[- ]to[- ]date)(?:\s+(?:total|average|avg|sum|"
                           r"value))?\W*$", re.IGNORECASE)
"""A row of a year as a whole ("Annual", "Full year", "Year total") beside its quarters or
months."""


_BULLETS = "\u00b7\u2022\u25e6\u2023\u2219"
_LEADING_MARKS = re.compile(rf"^\s*(?:[{_BULLETS}]\s*)+(?=[^\s{_BULLETS}])")
"""Bullets before a label's text ("·  Bavaria, TL2", "·  15-24 years"): its indentation where
the text writes it (statistics downloads). Leading spaces alone are not: exported statements
pad labels at random. (No-break and figure spaces are spaces to `re`.)"""


def depth(cell: Cell, spaces: bool = False) -> int:
    """A label cell's indentation: Excel's indent, else one level per leading bullet, else
    (when `spaces`: the sheet indents its members with spaces) one per two leading spaces."""
    if cell.style.indent:
        return cell.style.indent
    m = _LEADING_MARKS.match(cell.text)
    if m is not None:
        return sum(ch in _BULLETS for ch in m.group())
    return _leading_spaces(cell.text) // 2 if spaces else 0


def _leading_spaces(text: str) -> int:
    return len(text) - len(text.lstrip(" \u00a0"))


SPACED_MEMBERS = 2
"""Labels padded by two or more spaces under bold unpadded ones that make a sheet's leading
spaces its indentation."""


def _indents_with_spaces(view: _View, label_col: int | None) -> bool:
    """Whether a styled sheet indents its label column with spaces: bold labels (or labels
    ending in a colon) without leading spaces, plain ones with two or more, and no Excel
    indent anywhere in the column (an export of a statement pads at random, with no groups
    to pad under)."""
    if label_col is None or view.grid.kind not in ("xlsx", "xls", "ods"):
        return False
    bold = spaced = 0
    for row in view.by_row.values():
        cell = row.get(label_col)
        if cell is None or not cell.text.strip():
            continue
        if cell.style.indent:
            return False
        lead = _leading_spaces(cell.text)
        if (cell.style.bold or cell.text.rstrip().endswith(":")) and lead == 0:
            bold += 1  # (a group's heading, bold or ending in a colon: "Denominator:")
        elif not cell.style.bold and lead >= 2:
            spaced += 1
    return bold >= 2 and spaced >= SPACED_MEMBERS


def _labelled_at(view, r: int, col: int) -> bool:
    """Whether sheet row `r` starts a label of its own in column `col`."""
    cell = view.by_row[r].get(col)
    return cell is not None and cell.row == r and bool(cell.text.strip())


def _names_group(total: str, group: str) -> bool:
    """Whether a total's label names a group by all its words ("Total current assets" and
    "Current assets:")."""
    group_words = set(re.findall(r"\w+", group.casefold()))
    return bool(group_words) and group_words <= set(re.findall(r"\w+", total.casefold()))


@dataclass(frozen=True)
class Override:
    """A user's correction of one region's header rows and columns (sheet row/col numbers)."""

    header_rows: tuple[int, ...] | None = None
    header_cols: tuple[int, ...] | None = None


@dataclass
class Node:
    """A header node: one header cell (or band, or group label), shared by the paths under it."""

    id: int
    text: str
    ref: str | None
    kind: str
    """"column", "row", "band" (a section band) or "group" (a row-group label)."""
    parents: list[int] = field(default_factory=list)
    children: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "ref": self.ref, "kind": self.kind,
                "parents": self.parents, "children": self.children}


@dataclass
class TableStructure:
    """The structure of one table region."""

    grid: Grid
    index: int
    """k of the table on its sheet (0-based reading order)."""
    region: Region
    header_rows: list[int]
    header_cols: list[int]
    orientation: str
    """"top" (headers on top), "left" (headers on the left) or "kv" (label/value pairs)."""
    confidence: float
    row_levels: list[str]
    """Names of the row-path levels (from the header cells above the header columns)."""
    col_paths: dict[int, tuple[str, ...]]
    """Data column -> its column path."""
    row_paths: dict[int, tuple[str, ...]]
    """Data row -> its row path."""
    data: DataCells
    roles: Roles
    """Every filled anchor of the region (and its title/notes) -> header|data|title|note."""
    col_nodes: list[Node]
    row_nodes: list[Node]
    col_node_paths: dict[int, list[int]]
    row_node_paths: dict[int, list[int]]
    repeated_header_rows: list[int] = field(default_factory=list)
    scale: float | None = None
    """A scale stated in the title or notes ("in thousands"), applied to cells without one."""

    @property
    def region_ref(self) -> str:
        from ingest.grid import a1

        r = self.region
        return f"{a1(r.top, r.left)}:{a1(r.bottom, r.right)}"

    def decisions(self) -> dict[str, Any]:
        return {"header_rows": self.header_rows, "header_cols": self.header_cols,
                "orientation": self.orientation, "confidence": round(self.confidence, 2),
                "repeated_header_rows": self.repeated_header_rows}

    def tree_json(self) -> dict[str, Any]:
        """The HO-Tree as JSON: both path trees with their nodes and each leaf's node chain."""
        return {
            "schema_version": TREE_SCHEMA_VERSION,
            "decisions": self.decisions(),
            "columns": {"nodes": [n.to_dict() for n in self.col_nodes],
                        "paths": [{"col": c, "path": list(self.col_paths[c]),
                                   "nodes": self.col_node_paths.get(c, [])}
                                  for c in sorted(self.col_paths)]},
            "rows": {"levels": self.row_levels,
                     "nodes": [n.to_dict() for n in self.row_nodes],
                     "paths": [{"row": r, "path": list(self.row_paths[r]),
                                "nodes": self.row_node_paths.get(r, [])}
                               for r in sorted(self.row_paths)]},
        }


def analyse_grid(grid: Grid, overrides: dict[int, Override] | None = None
                 ) -> list[TableStructure]:
    """Find the tables of a grid and build each one's HO-Tree (overrides keyed by table k)."""
    overrides = overrides or {}
    structures = []
    with gc_paused():
        for k, region in enumerate(find_regions(grid)):
            structures.append(analyse_region(grid, region, k, overrides.get(k)))
            # The row index is the analysis' own (a dict entry per cell, 45 MB at 1M cells);
            # the structure keeps the region's bounds, titles and notes.
            region.by_row = {}
    return structures


def header_only_warning(structures: list[TableStructure]) -> str | None:
    """A warning when a grid's tables are a header row and nothing under it (a title above it
    aside): a CSV or sheet saved before any row was filled ("Region,Units,Revenue" alone),
    which holds no value a question could find. A one-row table beside a table of data is
    more often a stray line, and is not warned of. Read from the structures' grid, whose
    cells are still there."""
    rows = [_row_of_names(structure) for structure in structures]
    headers = [names for names in rows if names is not None and len(names) >= 2]
    if not headers or any(names is None for names in rows):
        return None
    names = headers[0]
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return (f"the table has a header row ({shown}) but no rows of data under it, so questions "
            "about it will find nothing")


def _row_of_names(structure: TableStructure) -> list[str] | None:
    """The cells' texts of a table that is one row of names (text, or years as headers write
    them: "Region, 2023, 2024"), else None."""
    region = structure.region
    if region.top != region.bottom:
        return None
    cells = [cell for col in range(region.left, region.right + 1)
             if (cell := structure.grid.cells.get((region.top, col))) is not None
             and _kind(cell) != "empty"]
    if not cells or any(_kind(cell) not in ("text", "year") for cell in cells):
        return None
    return [cell.text.strip() for cell in cells]


# --- cell typing used by the detector --------------------------------------------------------

_YEAR_LABEL = re.compile(r"^\s*(1[89]\d\d|20\d\d)\s+(?:census|estimates?|estimated|actuals?|"
                         r"budget(?:ed)?|forecasts?|projections?|projected|plan|target|"
                         r"prelim(?:inary)?|provisional|revised|final|survey|election|season|"
                         r"totals?|average|mean|ytd|year-to-date|full year|annual|"
                         # "2020 share", "2021 sales": a year's column of a measure.
                         r"shares?|sales|revenues?|values?|volumes?|prices?|costs?|income|"
                         r"profits?|growth|rates?|population|amounts?|spend|spending)"
                         r"(?:\s+[a-z]+)?\s*$|"
                         # "2019 (mins per property)": a year with its column's unit.
                         r"^\s*(?:1[89]\d\d|20\d\d)\s*\([^)]*[a-z][^)]*\)\s*$", re.IGNORECASE)
"""A year and a word ("2020 census", "2019 estimate", "2019 (mins per property)"): a column's
name, though it reads as 2020 with a unit."""
_YEAR_WORDED = re.compile(r"^\s*(?:1[89]\d\d|20\d\d)(?:\s*[-\u2013/]\s*(?:1[89]\d\d|20\d\d|\d\d))?"
                          r"(?:\s+|\s*[\[(]\s*)[^\W\d]", re.IGNORECASE)
"""A year or span of years written before a word ("2024 anomaly", "1991-2020 normal") or a
mark in brackets ("2021 [p]", "2022(P)": provisional, revised): beside a plain year in the
same row ("2023 | 2024 | 2024 anomaly"), merged over columns, or in a row of names with no
other number, it names a column as the years do, though on its own it reads as a number with
a unit."""


def _kind(cell: Cell) -> str:
    """Classify a cell for layout decisions: "num", "year", "text" or "empty"."""
    raw = cell.raw
    if cell.formula_uncached:
        return "num"
    if isinstance(raw, bool):
        return "text"
    if isinstance(raw, (int, float)):
        if isinstance(raw, int) or float(raw).is_integer():
            return "year" if 1800 <= raw <= 2100 else "num"
        return "num"
    text = cell.text.strip()
    if not text:
        return "empty"
    if YEARISH.match(text) or _YEAR_LABEL.match(text):
        return "year"
    value = parse_raw(raw, text)
    if value.kind in NUMERIC_KINDS:
        return "num"
    if value.kind == "empty":
        return "empty"
    return "text"


class _View:
    """The region's anchors indexed by row, with kinds and per-column counts computed in one
    pass (the detectors below would otherwise each walk every cell of a big sheet)."""

    def __init__(self, grid: Grid, region: Region) -> None:
        self.grid = grid
        self.region = region
        self.by_row = region.by_row
        self.rows = list(self.by_row)
        self.cols = list(range(region.left, region.right + 1))
        width, left = len(self.cols), region.left
        self.kinds: dict[int, str] = {}
        """Row -> the first letter of the layout kind (see `_kind`) of each column's anchor,
        from region.left ("e" where there is none): a string per row, where a dict per row
        was 45 MB of a 1M-cell upload's peak."""
        self.col_cells = [0] * width
        """Anchors per column (index: column - region.left)."""
        self.col_labels = [0] * width
        """Cells per column whose text ends like a form label ("Name:")."""
        self.col_bold_texts = [0] * width
        """Bold text cells per column (a form's labels, when no colon ends them)."""
        self.col_filled = [0] * width
        """Non-empty cells per column below the first row."""
        self.col_numbers = [0] * width
        """Numeric cells per column below the first row."""
        first = self.rows[0] if self.rows else None
        for r, row in self.by_row.items():
            cancel.check()  # once per row, here and below: a row is microseconds of work
            below = r != first
            row_kinds = ["e"] * width
            for c, cell in row.items():
                raw = cell.raw
                if (type(raw) is int or type(raw) is float) and not cell.formula_uncached:
                    # Inlined fast path of _kind: most cells of a big sheet are numbers.
                    kind = "year" if (type(raw) is int or raw.is_integer()) and \
                        1800 <= raw <= 2100 else "num"
                else:
                    kind = _kind(cell)
                i = c - left
                row_kinds[i] = kind[0]
                self.col_cells[i] += 1
                if kind == "text" and LABEL_END.search(cell.text):
                    self.col_labels[i] += 1
                if kind == "text" and cell.style.bold:
                    self.col_bold_texts[i] += 1
                if below and kind != "empty":
                    self.col_filled[i] += 1
                    if kind == "num":
                        self.col_numbers[i] += 1
            self.kinds[r] = "".join(row_kinds)

    def at(self, row: int, col: int) -> Cell | None:
        """The anchor showing at (row, col) if it lies in this region."""
        cell = self.grid.anchor_of(row, col)
        if cell is None or not self.region.contains(cell):
            return None
        return cell

    def kind(self, cell: Cell) -> str:
        i = cell.col - self.region.left
        row = self.kinds.get(cell.row, "")
        return _KIND_NAMES[row[i]] if 0 <= i < len(row) else "empty"

    def numbers_right_of(self, rows: list[int], col: int) -> bool:
        """Whether an anchor right of `col` in any of `rows` is a number (kind "num")."""
        start = col + 1 - self.region.left
        return any("n" in self.kinds[r][start:] for r in rows)


_KIND_NAMES = {name[0]: name for name in ("num", "year", "text", "empty")}


# --- detection --------------------------------------------------------------------------------

def analyse_region(grid: Grid, region: Region, index: int,
                   override: Override | None = None) -> TableStructure:
    """Detect header rows/columns of a region (unless overridden) and build its paths."""
    view = _View(grid, region)
    confidence = 0.9
    kv = _kv_label_cols(view) if override is None else None
    if override is not None and override.header_rows is not None:
        header_rows = sorted(r for r in override.header_rows if region.top <= r <= region.bottom)
    elif kv:
        header_rows = []
    else:
        header_rows, confidence = _detect_header_rows(view)
    body_rows = [r for r in view.rows if r > max(header_rows, default=region.top - 1)
                 and r not in header_rows]
    repeated = _repeated_header_rows(view, header_rows, body_rows)
    body_rows = [r for r in body_rows if r not in repeated]
    if override is not None and override.header_cols is not None:
        header_cols = sorted(c for c in override.header_cols if region.left <= c <= region.right)
        orientation = "top"
        confidence = 1.0
    elif kv:
        header_cols, orientation, confidence = kv, "kv", 0.75
    else:
        header_cols = _detect_header_cols(view, body_rows)
        orientation = "top" if header_rows else ("left" if header_cols else "top")
        if not header_rows:
            confidence = min(confidence, 0.5)
    if override is not None:
        confidence = 1.0
    builder = _TreeBuilder(view, header_rows, header_cols, body_rows, orientation)
    return builder.build(index, confidence, repeated)


def _data_cols_guess(view: _View) -> list[int]:
    """Columns whose filled cells below the first row are mostly numbers (for row typing)."""
    return [c for i, c in enumerate(view.cols)
            if view.col_filled[i] and view.col_numbers[i] >= 0.5 * view.col_filled[i]]


def _label_cols_guess(view: _View, numeric_cols: list[int]) -> set[int]:
    """Columns left of the first numeric column: they hold labels, not values."""
    if not numeric_cols:
        return set()
    return {c for c in view.cols if c < numeric_cols[0]}


def _detect_header_rows(view: _View) -> tuple[list[int], float]:
    """Return the header rows on top and a confidence.

    A header row has no plain numbers in the value columns (years and period labels are fine,
    they name columns); the header block ends at the first row that carries values.
    """
    rows = view.rows
    if len(rows) < 2:
        return [], 0.5
    numeric_cols = _data_cols_guess(view)
    label_cols = _label_cols_guess(view, numeric_cols)
    header: list[int] = []
    for r in rows[:MAX_HEADER_ROWS + 1]:
        cells = [cell for c, cell in view.by_row[r].items() if c not in label_cols]
        kinds = [view.kind(cell) for cell in cells]
        # ("2024 by month (thousands)" merged over the months is a header all the same, and
        # so are "2023 sales (USD m)" | "2022 sales (USD m)" in a row of names.)
        worded = [k == "num" and isinstance(cell.raw, str) and bool(_YEAR_WORDED.match(cell.text))
                  for k, cell in zip(kinds, cells, strict=True)]
        named = any(view.kind(c) == "text" for c in view.by_row[r].values())
        if not header and ("text" in kinds or any(cell.colspan > 1 for cell in cells)):
            # "Place | Athlete | 5K | 10K | Half | Finish" over times: a distance written as a
            # number with its unit names its column, as "Half" beside it does; so does "1 year"
            # merged over "Fund % | Benchmark %". (No header yet: this is the first row.)
            worded = [w or k == "num" and _names_its_column(view, rows[1], cell)
                      for k, w, cell in zip(kinds, worded, cells, strict=True)]
        plain_numbers = sum(k == "num" for k in kinds) - sum(worded)
        kinds = ["year" if w and ("year" in kinds or cell.colspan > 1 or not plain_numbers
                                  and named) else k
                 for k, w, cell in zip(kinds, worded, cells, strict=True)]
        row_cells = list(view.by_row[r].values())
        if header and len(row_cells) == 1 and row_cells[0].colspan >= len(view.cols) \
                and len(view.by_row[header[-1]]) >= 2:
            # "Season 1 (2019)" merged across the table under its column names: the first
            # section band of the body, which subdivides no column.
            break
        if header and any(k == "num" for k in kinds) \
                and _numbers_name_columns(view, header, r, cells, kinds):
            kinds = ["year" if k == "num" else k for k in kinds]
        if any(k == "num" for k in kinds):
            break
        if header and kinds and all(k == "year" for k in kinds) \
                and _names_every_column(view, header[-1], label_cols, cells):
            break  # "Reed | 1843" under "Player | PTS": a year under a named column is data
        if not cells:
            # A row with only a label: a corner cell of the header, or the first band.
            header.append(r)
            continue
        header.append(r)
    # Label-only rows at the bottom of the block are section bands of the body, not headers
    # (unless a header cell above is merged down into the row: "Product" over rows 3-4 with
    # "US | EU | Japan" under "Expected expiry year").
    while header and not [c for c in view.by_row[header[-1]] if c not in label_cols] \
            and not _spans_into(view, header[:-1], header[-1]):
        header.pop()
    if header and header[-1] == rows[-1]:
        return _text_table_header(view), 0.6
    if len(header) > MAX_HEADER_ROWS:
        return _text_table_header(view), 0.5
    if not header:
        return [], 0.5
    # Keep the block contiguous from the top: a wide gap means the rows below are something
    # else; one blank spacer row (as between a region row and a year row) does not.
    block = [header[0]]
    for r in header[1:]:
        if r <= block[-1] + 2 or _spans_into(view, block, r):
            block.append(r)
        else:
            break
    # A header row with no text at all (an empty merged strip) names nothing.
    block = [r for r in block if any(cell.text.strip() for cell in view.by_row[r].values())]
    confidence = 0.9 if len(block) <= 4 else 0.7
    return block, confidence


_LETTERED_NUMBER = re.compile(r"\d+(?:\.\d+)?\s?[^\W\d_]{1,5}")
"""A number written with a letter unit ("5K", "10 km", "400m")."""


def _names_its_column(view: _View, next_row: int, cell: Cell) -> bool:
    """Whether a lettered number in the first row ("5K") is a column name: the cell below it,
    in `next_row`, is not one of the same unit ("14:26" or 1,240 under it; "5K" under "5K" is
    data)."""
    text = cell.text.strip()
    if not isinstance(cell.raw, str) or not _LETTERED_NUMBER.fullmatch(text):
        return False
    below = view.at(next_row, cell.col)
    if below is None:
        return False
    unit = text.lstrip("0123456789. ").lower()
    return below.text.strip().lstrip("0123456789.,- ").lower() != unit


def _names_every_column(view: _View, row: int, label_cols: set[int], below: list) -> bool:
    """Whether a header row names each column of the row below on its own: a distinct label
    over every cell, none merged across columns. Years under such a row are values; years
    that subdivide a header ("Population" over "2010 | 2020") have a label spanning them."""
    above = {c: cell for c, cell in view.by_row[row].items() if c not in label_cols}
    texts = []
    for cell in below:
        over = above.get(cell.col)
        if over is None or over.colspan > 1 or not over.text.strip():
            return False
        texts.append(over.text.strip())
    return len(set(texts)) == len(texts)


def _numbers_name_columns(view: _View, header: list[int], row: int, cells: list[Cell],
                          kinds: list[str]) -> bool:
    """Whether the numbers of a row under the header name columns: header cells are merged
    down into the row ("Player" over rows 2-3), and each number sits under a header merged
    across it, one number a column ("Results vs. opponent" over 1 ... 10)."""
    if not _spans_into(view, header, row):
        return False
    numbers = [cell for k, cell in zip(kinds, cells, strict=True) if k == "num"]
    if len({cell.text.strip() for cell in numbers}) < len(numbers):
        return False
    for cell in numbers:
        over = view.at(header[-1], cell.col)
        if over is None or over.colspan < 2 or over.row not in header or cell.colspan > 1:
            return False
    return True


def _spans_into(view: _View, block: list[int], row: int) -> bool:
    """True when a vertical merge in the block reaches down to `row`."""
    return any(cell.row + cell.rowspan - 1 >= row
               for r in block for cell in view.by_row[r].values())


def _text_table_header(view: _View) -> list[int]:
    """For a table without numbers: the first row, plus the next if the first has column merges
    (a two-level header)."""
    rows = view.rows
    first = rows[0]
    header = [first]
    spans = any(cell.colspan > 1 for cell in view.by_row[first].values())
    if spans and len(rows) > 2 and rows[1] == first + 1:
        header.append(rows[1])
    else:
        # Vertical merges in the first row stretch the header over the rows they cover.
        bottom = max(cell.row + cell.rowspan - 1 for cell in view.by_row[first].values())
        header.extend(r for r in rows[1:] if r <= bottom and bottom < rows[-1])
    return header


def _repeated_header_rows(view: _View, header_rows: list[int], body: list[int]) -> list[int]:
    """Body rows that repeat a header row's texts (page-break repeats in long reports)."""
    if not header_rows:
        return []
    repeated = []
    for h in header_rows:
        reference = {c: cell.text.strip().lower() for c, cell in view.by_row.get(h, {}).items()
                     if cell.text.strip()}
        if len(reference) < 2:
            continue
        numeric = {c for c, text in reference.items() if _GENERAL_LETTERS.issuperset(text)}
        for r in body:
            cancel.check()
            if r not in repeated and _repeats(view.by_row[r], reference, numeric):
                repeated.append(r)
    return sorted(repeated)


_GENERAL_LETTERS = frozenset("0123456789.-+enaif")
"""Every letter of a General number's text in lower case ("-1.5e+20", "nan", "inf")."""


def _repeats(row: dict[int, Cell], reference: dict[int, str], numeric: set[int]) -> bool:
    """True when at least two and 80% of the row's filled cells equal the reference's texts.

    Stops once the misses pass a fifth of the row's anchors (then they pass a fifth of its
    filled cells too): a value row of a long table costs a few cells. `numeric` holds the
    columns whose reference text a General number could show.
    """
    give_up = 0.2 * len(row)
    filled = misses = 0
    for cell in row.values():
        expected = reference.get(cell.col)
        text = given_text(cell)
        # A General number is filled; its text is written out only where it could match
        # ("Q1" is no number's: a value row under "Q1".."Q5" wrote out a fifth of its numbers
        # only to miss, 0.1 s at 1M cells).
        if text is None:
            text = cell.text if cell.col in numeric else ""
        else:
            text = text.strip()
            if not text:
                continue
        filled += 1
        if expected != text.lower():
            misses += 1
            if misses > give_up:
                return False
    return filled - misses >= max(2, 0.8 * filled)


def _detect_header_cols(view: _View, body: list[int]) -> list[int]:
    """Return the header columns on the left: row-group columns, then one label column."""
    if not body:
        return []
    body_set = set(body)
    cols: list[int] = []
    for c in view.cols[:-1]:
        cancel.check()  # each column reads every body row
        cells = [view.by_row[r][c] for r in body if c in view.by_row[r]]
        if not cells:
            if cols:
                break
            continue
        if _is_serial(cells):
            continue  # a running number (1, 2, 3 ...) counts rows; the labels are further right
        # Shares count filled cells: an empty merged strip across the body labels nothing.
        kinds = [k for k in map(view.kind, cells) if k != "empty"] or ["empty"]
        text_share = sum(k == "text" for k in kinds) / len(kinds)
        merged = any(cell.rowspan > 1 and cell.row in body_set for cell in cells)
        # Years label rows too (a band such as "Women" may sit among them).
        years = sum(k == "year" for k in kinds)
        # A year written once atop its months ("2023" over Jan, Feb, ...) groups them as a
        # label written once does.
        sparse = len(cells) < 0.7 * len(body) and len(cells) >= 2 and (
            text_share >= 0.8 or years >= 0.8 * len(kinds))
        numeric_elsewhere = view.numbers_right_of(body, c)
        yearish = years >= 0.8 * len(kinds) and years + sum(k == "text" for k in kinds) == \
            len(kinds) and numeric_elsewhere
        if (merged or sparse) and (text_share >= 0.6 or yearish) and len(cols) < 4:
            cols.append(c)  # a row-group column: its label covers the rows below it
            continue
        if yearish and len({cell.text for cell in cells}) < 0.5 * len(cells) and len(cols) < 4:
            cols.append(c)  # a year repeated over its quarters or months groups the rows
            continue
        # Years above text labels ("2020" ... "2024", "Thereafter", "Total lease payments"):
        # a schedule's rows, named by their years, beside the figures.
        texts = sum(k == "text" for k in kinds)
        schedule = numeric_elsewhere and kinds[0] == "year" and years >= 2 and texts >= 1 \
            and years + texts == len(kinds)
        if text_share >= 0.6 or yearish or schedule or not numeric_elsewhere and \
                text_share >= 0.5:
            cols.append(c)
        break
    if len(cols) >= len(view.cols):
        cols = cols[:-1]
    return cols


def _is_serial(cells: list[Cell]) -> bool:
    """True for a column of running numbers 1, 2, 3 ... (or starting at 0), possibly closed
    by a label row ("Total") at the end."""
    numbers = []
    for i, cell in enumerate(cells):
        raw = cell.raw
        if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
            return False
        text = str(raw).strip()
        if text.isdecimal():  # not isdigit: "²" is a digit that int() refuses
            numbers.append(int(text))
        elif isinstance(raw, float) and raw.is_integer():
            numbers.append(int(raw))
        elif i >= len(cells) - 1 and len(numbers) >= 3:
            break  # a closing total row
        else:
            return False
    return len(numbers) >= 3 and numbers[0] in (0, 1) and all(
        b == a + 1 for a, b in zip(numbers, numbers[1:], strict=False))


def _kv_label_cols(view: _View) -> list[int]:
    """Label columns of a key/value form ("Name:" | "Ana" | "Age:" | "31"), else []."""
    if len(view.cols) < 2 or len(view.rows) < 2:
        return []
    label_cols = [c for i, c in enumerate(view.cols)
                  if view.col_cells[i] and view.col_labels[i] >= max(2, 0.6 * view.col_cells[i])]
    if not label_cols:
        label_cols = _bold_label_cols(view)
    if not label_cols:
        return []
    # Every label column needs a value column right of it.
    if any(c + 1 > view.region.right for c in label_cols):
        return []
    return label_cols


def _bold_label_cols(view: _View) -> list[int]:
    """Label columns of a form whose labels are bold instead of ending in a colon ("Project
    name" | "Harbor Bridge" | "Project code" | "HB-7"): the columns alternate, label then
    value, across the whole region, every label column bold throughout and every value
    column bold nowhere, and there are two pairs at least (one bold column beside a plain one
    is a table's row labels as often as a form)."""
    width = len(view.cols)
    if width < 4 or width % 2:
        return []
    for i in range(0, width, 2):
        labels, values = i, i + 1
        if not view.col_cells[labels] or view.col_cells[labels] < 2 or \
                view.col_bold_texts[labels] < view.col_cells[labels] or \
                view.col_bold_texts[values] or not view.col_cells[values]:
            return []
    return [view.cols[i] for i in range(0, width, 2)]


def _spacer_cols(view: _View, header_rows: list[int], header_cols: list[int]) -> set[int]:
    """Blank spacer columns between column groups: no path, no wide-view column.

    A spacer has no filled cell of its own in the body nor a header label of its own: only a
    group header merged across it (over the columns on both sides) may cover it. A column with
    a blank header but values below is a column like any other.
    """
    first = view.rows[0] if view.rows else None
    first_is_header = first in header_rows
    spacers: set[int] = set()
    for i, c in enumerate(view.cols):
        if view.col_filled[i] or c in header_cols:
            continue  # filled anchors below the first row (the common case, decided at once)
        top = view.by_row[first].get(c) if first is not None else None
        if top is not None and view.kind(top) != "empty" and (
                top.colspan == 1 or not first_is_header):
            continue
        spacers.add(c)
    if len(spacers) == len(view.cols) - len(header_cols):
        return set()  # a table with no value at all keeps its columns
    return spacers


# --- building the paths -----------------------------------------------------------------------

class _TreeBuilder:
    def __init__(self, view: _View, header_rows: list[int], header_cols: list[int],
                 body_rows: list[int], orientation: str) -> None:
        self.view = view
        self.header_rows = header_rows
        self.header_cols = header_cols
        self.body_rows = body_rows
        self.orientation = orientation
        self.roles = Roles()
        self.col_nodes: list[Node] = []
        self.row_nodes: list[Node] = []
        self._node_of: dict[tuple[str, int, int], int] = {}
        self._text_counts: dict[int, Counter[str]] | None = None
        """Per column outside the row labels, how often each text recurs in the body (read
        on the first unlabelled row, `_repeating_texts`)."""

    def _node(self, nodes: list[Node], cell: Cell | None, text: str, kind: str,
              key: tuple[str, int, int]) -> int:
        existing = self._node_of.get(key)
        if existing is not None:
            return existing
        node = Node(len(nodes), text, cell.ref if cell is not None else None, kind)
        nodes.append(node)
        self._node_of[key] = node.id
        return node.id

    @staticmethod
    def _link(nodes: list[Node], chain: list[int]) -> None:
        for parent, child in zip(chain, chain[1:], strict=False):
            if child not in nodes[parent].children:
                nodes[parent].children.append(child)
            if parent not in nodes[child].parents:
                nodes[child].parents.append(parent)

    def build(self, index: int, confidence: float, repeated: list[int]) -> TableStructure:
        view = self.view
        region = view.region
        for cell in region.title_cells:
            self.roles[(cell.row, cell.col)] = "title"
        for cell in region.note_cells:
            self.roles[(cell.row, cell.col)] = "note"
        spacers = _spacer_cols(view, self.header_rows, self.header_cols)
        # The layout kinds were for the detectors, the last of which is done: freed before
        # the data cells are built, they are not on the peak (a dict entry per cell).
        view.kinds = {}
        data_cols = [c for c in view.cols if c not in self.header_cols and c not in spacers]
        col_paths, col_node_paths = self._column_paths(data_cols, spacers)
        row_levels = self._row_levels()
        for r in repeated:
            for c in view.by_row[r]:
                self.roles[(r, c)] = "header"
        # A note's sentence about one row or column ("Capital grant is a district total in
        # GBP millions") gives that one's unit, not every figure's.
        # (With one column of figures, a sentence naming it is about all of them.)
        # So is a title's later sentence ("Headcount by site. Agency spend in GBP thousands."
        # over FTE columns and "Agency spend 2024 (GBP k)").
        notes = [sentence for note in region.notes for sentence in _SENTENCE.split(note)]
        title = region.title or self.view.grid.caption
        # Each title row is a sentence of its own: a subtitle row ("Admissions in thousands;
        # box office in GBP m") is no part of the first sentence, which is about every figure.
        sentences = [sentence for line in (region.title_lines or [title] if title else [])
                     for sentence in title_sentences(line)]
        # The scale such a sentence states is its columns' own ("Production in thousand
        # tonnes" over the Production columns, beside a Yield in tonnes per hectare).
        column_scales: dict[int, float | None] = {}
        if (notes or len(sentences) > 1) and len(data_cols) >= 2:
            column_labels = {c: _with_yearless({_fold_label(t) for t in path})
                             for c, path in col_paths.items()}
            labels = set().union(*column_labels.values()) | _with_yearless({
                _fold_label(c.text) for row in view.by_row.values() for col in self.header_cols
                if (c := row.get(col)) is not None and c.text.strip()})

            def about_some(sentence: str) -> bool:
                # A sentence naming a label that every column has ("Revenue in USD millions"
                # over "Revenue > 2023 | Revenue > 2024") is about all the figures.
                named = _named_labels(sentence, labels)
                if not named or all(named & own for own in column_labels.values()):
                    return False
                if (stated := scale_from_context(sentence)) is not None:
                    for c, own in column_labels.items():
                        if named & own:
                            # Two sentences stating different scales for one column: neither.
                            column_scales[c] = (stated if column_scales.get(c, stated) == stated
                                                else None)
                return True

            notes = [sentence for sentence in notes if not about_some(sentence)]
            # When every sentence states a scale ("Options in thousands; aggregate intrinsic
            # value in $ thousands."), the first is about its columns as the others are: the
            # exercise prices beside them are dollars.
            scoped = len(sentences) > 1 and all(scale_from_context(sentence) is not None
                                                for sentence in sentences)
            first = [] if scoped and about_some(sentences[0]) else sentences[:1]
            title = " ".join(first + [sentence for sentence in sentences[1:]
                                      if not about_some(sentence)])
        context = " ".join(filter(None, [title, *notes]))
        scale = scale_from_context(context) if context else None
        if scale is not None and len(data_cols) >= 2:
            # "... ODI payments in £m" over one column headed "ODI payment (£m)" beside
            # targets in minutes: the title's scale is that column's own, which states it.
            own = [c for c in data_cols if scale_from_context(" ".join(col_paths[c])) == scale]
            if own and len(own) < len(data_cols) and _named_labels(context, set().union(*(
                    {_fold_label(t) for t in col_paths[c]} for c in own))):
                scale = None
        if self.orientation == "kv":
            row_paths, row_node_paths, data = self._kv_pairs(scale)
        else:
            row_paths, row_node_paths, data_rows = self._row_paths(data_cols)
            data = self._data_cells(data_rows, data_cols, row_paths, col_paths, scale, context,
                                    column_scales)
        # Anything still without a role (e.g. a stray cell in a header column of a band row)
        # is a header node: it names something rather than measuring it.
        roles = self.roles
        for r, row in view.by_row.items():
            cancel.check()
            # A data row's data cells have their role: only its other cells are looked at.
            for c in row.keys() - roles.data_cols(r):
                roles.setdefault((r, c), "header")
        return TableStructure(
            grid=view.grid, index=index, region=region, header_rows=self.header_rows,
            header_cols=self.header_cols, orientation=self.orientation, confidence=confidence,
            row_levels=row_levels, col_paths=col_paths, row_paths=row_paths, data=data,
            roles=self.roles, col_nodes=self.col_nodes, row_nodes=self.row_nodes,
            col_node_paths=col_node_paths, row_node_paths=row_node_paths,
            repeated_header_rows=repeated, scale=scale)

    def _column_paths(self, data_cols: list[int], spacers: set[int]
                      ) -> tuple[dict[int, tuple[str, ...]], dict[int, list[int]]]:
        view = self.view
        paths: dict[int, tuple[str, ...]] = {}
        node_paths: dict[int, list[int]] = {}
        spans = self._implicit_spans(data_cols, spacers)
        for c in data_cols:
            texts: list[str] = []
            chain: list[int] = []
            seen: set[tuple[int, int]] = set()
            for h in self.header_rows:
                cell = view.at(h, c) or spans.get((h, c))
                if cell is None or (cell.row, cell.col) in seen:
                    continue
                seen.add((cell.row, cell.col))
                self.roles[(cell.row, cell.col)] = "header"
                text = cell.text.strip()
                if not text:
                    continue
                chain.append(self._node(self.col_nodes, cell, text, "column",
                                        ("col", cell.row, cell.col)))
                texts.append(text)
            self._link(self.col_nodes, chain)
            paths[c] = tuple(texts)
            node_paths[c] = chain
        return paths, node_paths

    def _implicit_spans(self, data_cols: list[int], spacers: set[int]
                        ) -> dict[tuple[int, int], Cell]:
        """Upper header labels that span the empty cells to their right without a merge.

        Files without merges (CSV, exports) write a group header once, left-aligned over its
        columns: "Year ended | (blank) | % Change" above "2019 | 2018 | 2019". Each empty slot of
        an upper header row takes the nearest label on its left, up to the next label or a
        blank spacer column (which closes the group).
        """
        view = self.view
        spans: dict[tuple[int, int], Cell] = {}
        for h in self.header_rows[:-1]:
            current: Cell | None = None
            for c in sorted({*data_cols, *spacers}):
                if c in spacers:
                    current = None
                    continue
                cell = view.at(h, c)
                if cell is not None and cell.text.strip():
                    current = cell if cell.colspan == 1 and cell.rowspan == 1 else None
                elif cell is None and current is not None:
                    spans[(h, c)] = current
        return spans

    def _row_levels(self) -> list[str]:
        """Name each header column by the header text above it (the table's corner)."""
        names = []
        for c in self.header_cols:
            label = ""
            for h in self.header_rows:
                cell = self.view.at(h, c)
                # One name merged over every header column ("Region" over regions and their
                # countries) names each of them: "which region" cannot say which level.
                if cell is not None and cell.text.strip() and (
                        cell.colspan == 1 or set(range(cell.col, cell.col + cell.colspan))
                        <= set(self.header_cols)):
                    self.roles[(cell.row, cell.col)] = "header"
                    label = cell.text.strip()
            names.append(label)
        return names

    def _row_paths(self, data_cols: list[int]
                   ) -> tuple[dict[int, tuple[str, ...]], dict[int, list[int]], list[int]]:
        """Walk the body top-down, tracking bands, row groups and indentation."""
        view = self.view
        paths: dict[int, tuple[str, ...]] = {}
        node_paths: dict[int, list[int]] = {}
        data_rows: list[int] = []
        band: tuple[str, int] | None = None  # full-width section band (text, node)
        flat: tuple[str, int] | None = None  # label row without values, same indent as rows
        flat_indent = 0
        group_rows = 0  # data rows since the last band or flat label
        members_lead: int | None = None  # the fewest leading spaces of `flat`'s member labels
        stack: list[tuple[int, str, int]] = []  # indentation parents: (indent, text, node)
        carried: dict[int, tuple[str, int]] = {}  # sparse group columns carry their label down
        # The last labelled row's path and its sheet row, for the unlabelled rows under it.
        continued: tuple[list[str], list[int], int] | None = None
        label_col = self.header_cols[-1] if self.header_cols else None
        width = len(view.cols)
        data_col_set = set(data_cols)
        spaces = _indents_with_spaces(view, label_col)
        for i, r in enumerate(self.body_rows):
            cancel.check()
            row = view.by_row[r]
            # `given_text` None: a General number, never blank (its text is not written out).
            # Whether the row has values, not which: the first one found ends the search.
            values = any(c in data_col_set and cell.row == r
                         and ((given := given_text(cell)) is None or given.strip()
                              or cell.formula_uncached) for c, cell in row.items())
            anchors = list(row.values())
            if len(anchors) == 1 and anchors[0].colspan >= max(2, width - 1) and not \
                    (label_col is None and anchors[0].col in data_col_set and len(data_cols) == 1):
                cell = anchors[0]
                self.roles[(r, cell.col)] = "header"
                if not cell.text.strip():
                    continue  # an empty merged strip separates; it names nothing
                band = (cell.text.strip(), self._node(self.row_nodes, cell, cell.text.strip(),
                                                     "band", ("row", r, cell.col)))
                flat, stack, carried, continued = None, [], {}, None
                group_rows = 0
                continue
            if not values and len(anchors) == 1 and anchors[0].row == r \
                    and anchors[0].col != label_col and anchors[0].col in self.header_cols \
                    and anchors[0].text.strip() and i + 1 < len(self.body_rows) \
                    and _labelled_at(view, self.body_rows[i + 1], anchors[0].col) \
                    and (band is not None or not data_rows):
                # "Experiment 1" alone in the Gene column, above CD40 > Set A, Set B: a band
                # over the rows under it, whose first column names a gene of its own. (Only
                # bands over every row: a label row after rows under none, "Percentage
                # change, latest quarter", would give the rows after it a level the rows
                # before it lack.)
                cell = anchors[0]
                self.roles[(r, cell.col)] = "header"
                band = (cell.text.strip(), self._node(self.row_nodes, cell, cell.text.strip(),
                                                     "band", ("row", r, cell.col)))
                flat, stack, carried, continued = None, [], {}, None
                group_rows = 0
                continue
            # Only a row without values can be such a label: a row of figures is not read
            # for its texts (each General number's written out, 0.05 s of a 100k-cell upload).
            said = [] if values else [cell for cell in anchors
                                      if cell.row == r and cell.text.strip()]
            if not values and len(said) == 1 and i + 1 < len(self.body_rows) \
                    and said[0].col == self.header_cols[0] != label_col \
                    and not _labelled_at(view, self.body_rows[i + 1], said[0].col) \
                    and label_col is not None \
                    and _labelled_at(view, self.body_rows[i + 1], label_col):
                # "**FASTENERS**" alone in the Category column, the items below it leaving
                # that column blank: the label of the rows under it (carried down), no row of
                # its own to count.
                for cell in said:
                    text = cell.text.strip()
                    carried[cell.col] = (text, self._node(self.row_nodes, cell, text, "group",
                                                          ("row", r, cell.col)))
                    self.roles[(r, cell.col)] = "header"
                continued = None
                continue
            label_cell = row.get(label_col) if label_col is not None else None
            indent = depth(label_cell, spaces) if label_cell is not None else 0
            if label_cell is not None:
                while stack and stack[-1][0] >= indent:
                    stack.pop()
                lead = _leading_spaces(label_cell.text)
                if flat and members_lead is not None and lead < members_lead and i \
                        and r > self.body_rows[i - 1] + 1:
                    # "   Wales" under WALES, a blank row, then "England and Wales": a row
                    # after a gap, less indented than the group's members, is not one of them.
                    flat = None
            if not values and label_cell is not None and label_cell.text.strip() \
                    and i + 1 < len(self.body_rows):
                # A label with no values of its own heads the rows below it.
                text = label_cell.text.strip()
                node = self._node(self.row_nodes, label_cell, text, "group",
                                  ("row", r, label_col))
                self.roles[(r, label_col)] = "header"
                for c in row:
                    self.roles.setdefault((r, c), "header")
                nxt = view.by_row[self.body_rows[i + 1]].get(label_col)
                if nxt is not None and depth(nxt, spaces) > indent:
                    stack.append((indent, text, node))
                    if flat and indent <= flat_indent:
                        flat = None  # "SOUTHERN REGION" over indented rows ends "CENTRAL ..."
                else:
                    flat, members_lead, flat_indent, group_rows = (text, node), None, indent, 0
                continued = None
                continue
            texts: list[str] = []
            chain: list[int] = []
            own: tuple[str, int] | None = None  # this row's label, a parent if rows indent
            if band:
                texts.append(band[0])
                chain.append(band[1])
            used: set[tuple[int, int]] = set()
            for c in self.header_cols:
                cell = view.at(r, c)
                if cell is not None and (cell.row, cell.col) in used:
                    continue  # one label merged across two header columns counts once
                if cell is not None:
                    used.add((cell.row, cell.col))
                if cell is not None and cell.row != r and cell.rowspan > 1:
                    pass  # a vertical merge from above: its label covers this row too
                elif cell is None or not cell.text.strip():
                    if c != label_col and c in carried:
                        texts.append(carried[c][0])
                        chain.append(carried[c][1])
                    continue
                text = cell.text.strip()
                node = self._node(self.row_nodes, cell, text,
                                  "row" if c == label_col else "group", ("row", cell.row, cell.col))
                self.roles[(cell.row, cell.col)] = "header"
                if c == label_col:
                    if flat and not stack:
                        texts.append(flat[0])
                        chain.append(flat[1])
                        lead = _leading_spaces(cell.text)
                        members_lead = lead if members_lead is None else min(members_lead, lead)
                    for _, parent_text, parent_node in stack:
                        texts.append(parent_text)
                        chain.append(parent_node)
                    own = (text, node)
                else:
                    carried[c] = (text, node)
                texts.append(text)
                chain.append(node)
            if label_col is None and flat:
                texts.insert(1 if band else 0, flat[0])
                chain.insert(1 if band else 0, flat[1])
            if own is None and label_col is not None and continued is not None \
                    and self._repeating_texts(r) & set(self._text_columns(continued[2])):
                # "Germany | Prepaid" then " | Postpaid": a blank label under a labelled row,
                # the two told apart by a text column, continues the label above (a market
                # written once for its contract types).
                texts, chain = list(continued[0]), list(continued[1])
            if own is not None:
                continued = None if CLOSING_TOTAL.search(own[0]) else (texts, chain, r)
            self._link(self.row_nodes, chain)
            paths[r] = tuple(texts)
            node_paths[r] = chain
            data_rows.append(r)
            nxt = view.by_row[self.body_rows[i + 1]].get(label_col) \
                if own is not None and i + 1 < len(self.body_rows) else None
            heads = nxt is not None and depth(nxt, spaces) > indent
            group_rows += 1
            if own is not None and CLOSING_TOTAL.search(own[0]) \
                    and not (heads and group_rows == 1):
                # "Total current assets" ends the "Current assets" section: the rows after it
                # (property, goodwill) are none of its members. A group's first row with the
                # group's rows indented under it ("Central Region subtotal" right under
                # "CENTRAL REGION", then its provinces) leads the group and ends nothing.
                if band and _names_group(own[0], band[0]):
                    band = None
                if flat and _names_group(own[0], flat[0]):
                    flat = None
            if own is not None and heads and not CLOSING_TOTAL.search(own[0]) \
                    and not _WHOLE_PERIOD.match(own[0]):
                # A row with figures of its own (a group's total, "Urban") heads the rows
                # indented under it ("15-24"): theirs are "Urban > 15-24", not a second "15-24".
                # A total closes the rows above it: those indented after "Total current
                # assets" are the next group's members, not its own. A year's "Annual" row
                # above its quarters is their sibling, the year as a whole, no group of them.
                stack.append((indent, *own))
        return paths, node_paths, data_rows

    def _text_columns(self, r: int) -> dict[int, str]:
        """The columns outside the row labels where row `r` has text of its own, with it."""
        return {c: cell.text.strip() for c, cell in self.view.by_row[r].items()
                if c not in self.header_cols and cell.row == r and isinstance(cell.raw, str)
                and _kind(cell) == "text"}

    def _repeating_texts(self, r: int) -> set[int]:
        """The columns where row `r`'s text is a category other rows of the body repeat
        ("Postpaid" under each market), not a name of its own ("Subtotal Public Works")."""
        if self._text_counts is None:
            counts: dict[int, Counter[str]] = defaultdict(Counter)
            for row in self.body_rows:
                for c, text in self._text_columns(row).items():
                    counts[c][text] += 1
            self._text_counts = counts
        return {c for c, text in self._text_columns(r).items()
                if self._text_counts[c][text] > 1 and not CLOSING_TOTAL.search(text)}

    def _kv_pairs(self, table_scale: float | None
                  ) -> tuple[dict[int, tuple[str, ...]], dict[int, list[int]], DataCells]:
        """Read a form: each label names the values right of it up to the next label."""
        view = self.view
        label_cols = set(self.header_cols)
        paths: dict[int, tuple[str, ...]] = {}
        node_paths: dict[int, list[int]] = {}
        data = DataCells(paths, {})  # a form's cells are each named by their own label
        for r in view.rows:
            cancel.check()
            label: tuple[str, int] | None = None
            for c, cell in sorted(view.by_row[r].items()):
                text = cell.text.strip()
                if c in label_cols or (label is None and text and LABEL_END.search(text)):
                    node = self._node(self.row_nodes, cell, text, "row", ("row", r, c))
                    label = (text, node)
                    self.roles[(r, c)] = "header"
                    paths.setdefault(r, (text,))
                    node_paths.setdefault(r, [node])
                    continue
                if not (text or cell.formula_uncached):
                    self.roles[(r, c)] = "data"
                    continue
                value = parse_raw(cell.raw, cell.text)
                if table_scale:
                    value = apply_context_scale(value, table_scale, "title")
                self.roles[(r, c)] = "data"
                data.add(DataCell(cell, (label[0],) if label else (), [()], value))
        return paths, node_paths, data

    def _day_first_columns(self, data_rows: list[int], data_cols: list[int]) -> set[int]:
        """The columns whose text dates are written day first (`writes_day_first`), looked
        for only in columns whose first rows hold an "a/b/year" date."""
        by_row = self.view.by_row
        head = data_rows[:20]
        dated = [c for c in data_cols
                 if any((cell := by_row[r].get(c)) is not None and cell.raw.__class__ is str
                        and SLASH_DATE.match(cell.text) for r in head)]
        return {c for c in dated
                if writes_day_first([cell.text for r in data_rows
                                     if (cell := by_row[r].get(c)) is not None
                                     and cell.raw.__class__ is str])}

    def _data_cells(self, data_rows: list[int], data_cols: list[int],
                    row_paths: dict[int, tuple[str, ...]], col_paths: dict[int, tuple[str, ...]],
                    table_scale: float | None, context: str = "",
                    column_scales: dict[int, float | None] | None = None) -> DataCells:
        view = self.view
        data_col_set = set(data_cols)
        # A scale stated in a column's header ("Revenue ($ million)") applies to its cells.
        header_scale = {c: scale_from_context(" ".join(col_paths[c])) if col_paths[c] else None
                        for c in data_cols}
        # One path list per column, shared by that column's unmerged cells (read-only).
        single = {c: [col_paths[c]] for c in data_cols}
        out = DataCells(row_paths, single)
        # A plain number's anchor and None go straight onto `out`'s lists (`DataCells`), with
        # no method call per cell (0.1 s at 1M cells).
        plain_cell, plain_held = out.cells.append, out.held.append
        # A column whose header states a unit of its own ("Useful life (years)", "Margin %",
        # "Percent of GERD" over "2020") takes no scale from the title's "(in thousands)".
        # So does a column of megawatts under "Investment shown in $ millions per MW".
        own_unit = {c for c in data_cols if has_own_unit(col_paths[c], context)}
        # Then one a title or note sentence states for the column alone.
        column_scales = {c: scale for c, scale in (column_scales or {}).items()
                         if scale and not header_scale.get(c) and c not in own_unit}
        unscaled = {c: not (header_scale[c] or c in column_scales
                             or table_scale and c not in own_unit)
                    for c in data_cols}
        # "($ in thousands, except per share data)": those rows keep their own numbers.
        # Rows labelled as percents or ratios ("Solvency ratio (%)") too.
        excepted = (excepted_rows(context, row_paths, data_rows)
                    | rows_of_own_unit(row_paths, data_rows)) if table_scale else set()
        day_first = self._day_first_columns(data_rows, data_cols)
        roles = self.roles
        # The columns of each row whose cell already has a role (its label, a rare header cell
        # in a data row): told apart by a set per row, not a `Roles` lookup per cell.
        taken: dict[int, set[int]] = {}
        for r, c in roles.explicit:
            taken.setdefault(r, set()).add(c)
        for r in data_rows:
            cancel.check()
            row_path = row_paths[r]
            row_taken = roles.data_cols(r).union(taken.get(r, ()))
            cols: list[int] = []  # the row's data cells, given their role together below
            for c, cell in view.by_row[r].items():  # columns in order (regions sorts them)
                if c not in data_col_set or c in row_taken:
                    continue
                cols.append(c)
                raw = cell.raw
                text = given_text(cell)
                written = repr(raw) if raw.__class__ is float else None
                if text is None:  # a General number: never blank, and an int shows as str(raw)
                    if written is not None:
                        # What General writes (`cell.text`), sooner: a float that is not whole,
                        # written by repr in at most 12 characters without an exponent, has at
                        # most 11 significant digits, which General's '.11g' writes as repr
                        # does (0.02 s of a 100k-cell upload's 50,000 floats).
                        text = written if len(written) <= 12 and "e" not in written \
                            and "n" not in written and not raw.is_integer() else cell.text
                elif not (text.strip() or cell.formula_uncached):
                    continue  # an empty merged value cell: a data cell without a value
                if cell.colspan == 1:
                    paths = single[c]
                else:
                    paths = [col_paths[col] for col in range(c, c + cell.colspan)
                             if col in data_col_set]
                # A plain number (`DataCell.typed`): a stored int or float shown exactly as
                # General writes it ("1234", "12.5"), which parse_raw's fast paths type as that
                # number and nothing else. Tested inline: a call per cell was 0.3 s at 1M.
                bare = unscaled[c] or (r in excepted and not header_scale[c])
                if bare and (
                        (raw.__class__ is int and (text is None or text == str(raw)))
                        or (written is not None and text == written
                            and "e" not in text and "n" not in text)):
                    if cell.colspan == 1:
                        plain_cell(cell)
                        plain_held(None)
                    else:
                        out.add(DataCell(cell, row_path, paths, None))
                    continue
                if c in day_first and cell.raw.__class__ is str:
                    read = as_day_first(cell.text)
                    value = parse_raw(read, read)._replace(text=cell.text)
                else:
                    value = parse_raw(cell.raw, cell.text)
                if header_scale[c]:
                    value = apply_context_scale(value, header_scale[c], "header")
                elif c in column_scales:
                    value = apply_context_scale(value, column_scales[c], "title")
                elif table_scale and r not in excepted and c not in own_unit:
                    value = apply_context_scale(value, table_scale, "title")
                out.add(DataCell(cell, row_path, paths, value))
            roles.add_data_row(r, cols)
        return out


_SENTENCE = re.compile(r"(?<=[.;])\s+")
"""Where a note's sentences end."""
_LABEL_UNIT = re.compile(r"\s*[\(\[].*$")
_YEARS = re.compile(r"\s*\b(?:fy\s?)?(?:19|20)\d\d(?:[/-]\d{2,4})?\b")
"""The years of a label ("agency spend 2024"), which a note naming it leaves out."""


def _fold_label(text: str) -> str:
    """A header or row label as a note would say it: lower case, its bracketed unit and
    indentation left out ("Capital grant (GBP m, district)" is "capital grant")."""
    return " ".join(_LABEL_UNIT.sub("", text).lower().split())


def _with_yearless(labels: set[str]) -> set[str]:
    """Labels, and each without its years ("agency spend 2024" is also "agency spend")."""
    return labels | {without for label in labels
                     if (without := _YEARS.sub(" ", label).strip()) and without != label}


_UNIT_SUBJECT = re.compile(r"^\W*(?P<subject>[^\W\d_]{3,}(?: [^\W\d_]{3,}){0,2}) "
                           r"(?:(?:are|is) )?in (?!the\b|which\b|each\b|all\b)")
"""The opening words of a statement of a unit ("salary in GBP thousands", "(Area in thousand
hectares"): the thing whose unit it states."""


def _named_labels(sentence: str, labels: set[str]) -> set[str]:
    """The header and row labels of the table a sentence names: one of two words or more (or
    one of eight letters or more) anywhere, or a shorter one that opens a statement of its
    unit ("Funding in GBP thousands", "Sales: USD m") or is followed by it in brackets
    ("... and revenue (GBP m)"), or every label holding the words a statement of a unit opens
    with ("salary in GBP thousands" names "average salary"). The sentence is about those."""
    said = " ".join(sentence.lower().split())
    subject = _UNIT_SUBJECT.match(said)
    subject_words = set(subject["subject"].split()) if subject else set()
    return {label for label in labels
            if label and subject_words and subject_words <= set(label.split())
            or label and label in said
            and ((" " in label or len(label) >= 8)
                 and re.search(rf"(?<!\w){re.escape(label)}(?:s|es)?(?!\w)", said)
                 or len(label) >= 4
                 and (re.match(rf"{re.escape(label)}(?:\s+(?:are|is|figures|values)\b)?"
                               r"(?:\s+in\b|\s*[:=(])", said)
                      or re.search(rf"(?<!\w){re.escape(label)}\s*\(", said)))}
