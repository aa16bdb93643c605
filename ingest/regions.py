"""Split a grid into table regions, and find the titles above and notes below each table.

A sheet often holds several tables separated by blank rows or columns, each with a caption line
above ("Table 3. Population by region") and notes below ("Source: ...", "in thousands").
Regions are found by recursive XY-cuts on blank rows and columns (a merged cell occupies every
slot it covers, so it never looks blank), then lone text lines are attached to the table they
caption or annotate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ingest import cancel
from ingest.grid import Cell, Grid, given_text, shows_text

YEARISH = re.compile(r"^\s*(fy\s*)?(1[89]\d\d|20\d\d)(\s*[/-]\s*\d{2,4})?\s*[a-z]?\s*$",
                     re.IGNORECASE)
"""A year label ("2024", "FY2019", "2019/20"): it names a column rather than measuring."""
LABEL_END = re.compile(r"[:：]\s*$")
"""The end of a form label ("Name:", "姓名："): a colon, perhaps followed by spaces."""
_FOOTNOTE_START = re.compile(
    r"^\s*(?:(?:sources?|notes?|nb|n\.b\.|footnotes?|remarks?)\s*[:.\-\u2013]"
    r"|[*\u2020\u2021\u00a7\u00b9\u00b2\u00b3])", re.IGNORECASE)
"""A line that is a note ("Note: ...", "Source: ...", "* ..."): below a table it is that
table's, and it is never the caption of the table under it."""
_NOTE_START = re.compile(
    r"^\s*(source|sources|note|notes|nb|n\.b\.|footnote|remark|\*|†|‡|§|¹|²|³|\(?\d{1,2}[).]\s|"
    r"\[(?:[a-z]|\d{1,2})\]\s|(?:[a-z]|\d{1,2})/\s|[-\u2013\u2014.]{1,3}\s*[:=]\s|"
    r"\(?[a-z][).]\s|in (thousands|millions|billions)|figures|data|unit|units|单位|注|资料来源|"
    r"数据来源|说明)", re.IGNORECASE)


@dataclass
class Region:
    """A rectangle of the grid holding one table, with its caption and notes cells."""

    top: int
    left: int
    bottom: int
    right: int
    title_cells: list[Cell] = field(default_factory=list)
    note_cells: list[Cell] = field(default_factory=list)
    by_row: dict[int, dict[int, Cell]] = field(default_factory=dict, repr=False)
    """The filled anchors of the table itself (titles and notes excluded), by row then column."""

    @property
    def title(self) -> str | None:
        return " ".join(self.title_lines) or None

    @property
    def title_lines(self) -> list[str]:
        """The title's lines: each row of title cells (a title, then a subtitle that may say
        which columns are in which unit)."""
        parts: list[str] = []
        for i, c in enumerate(self.title_cells):
            if not c.text.strip():
                continue
            before = self.title_cells[i - 1] if i else None
            if before is not None and before.row == c.row and c.text[:1].isspace() and parts:
                parts[-1] += "," + c.text.rstrip()  # a line a CSV split at its commas
            else:
                parts.append(c.text.strip())
        return parts

    @property
    def notes(self) -> list[str]:
        return [c.text.strip() for c in self.note_cells if c.text.strip()]

    def contains(self, cell: Cell) -> bool:
        return self.top <= cell.row <= self.bottom and self.left <= cell.col <= self.right


Bounds = tuple[int, int, int, int]
"""(top, left, bottom, right) of a block of cells, merged spans included."""


def find_regions(grid: Grid) -> list[Region]:
    """Return the grid's table regions in reading order, with titles and notes attached."""
    # `given_text` None: a General number, never blank (its text is not written out here).
    cells = [c for c in grid.cells.values()
             if (given := given_text(c)) is None or given.strip() or c.rowspan > 1
             or c.colspan > 1 or c.formula_uncached]
    if not cells:
        return []
    blocks = _merge_spaced_blocks(_xy_cut(cells, depth=0))
    blocks.sort(key=lambda b: b[1][:2])
    regions = [Region(*bounds) for _, bounds in blocks]
    members = [block for block, _ in blocks]
    regions, members = _attach_lone_lines(regions, members)
    for region, cells_in in zip(regions, members, strict=True):
        _peel_title_and_notes(region, cells_in, grid.cells.by_row)
    return regions


def _bounds(cells: list[Cell]) -> Bounds:
    return (min(c.row for c in cells), min(c.col for c in cells),
            max(c.row + c.rowspan - 1 for c in cells), max(c.col + c.colspan - 1 for c in cells))


def _union(boxes: list[Bounds]) -> Bounds:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes),
            max(b[2] for b in boxes), max(b[3] for b in boxes))


def _bands(cells: list[Cell], axis: str) -> tuple[list[list[Cell]], list[tuple[int, int]]]:
    """Group cells into runs along rows ("row") or columns ("col") separated by blank lines;
    return the groups (cells in their given order) and each one's first and last line.

    A merged cell occupies every line it spans. The occupied lines are collected first, so a
    block without a blank line (the usual case, and a big one) is returned as is, unsorted.
    """
    if axis == "row":
        occupied = {c.row for c in cells}
        spans = [(c.row, c.row + c.rowspan) for c in cells if c.rowspan > 1]
    else:
        occupied = {c.col for c in cells}
        spans = [(c.col, c.col + c.colspan) for c in cells if c.colspan > 1]
    for start, stop in spans:
        occupied.update(range(start, stop))
    lines = sorted(occupied)
    runs = [[lines[0], lines[0]]]
    band_of: dict[int, int] = {}
    for line in lines:
        if line > runs[-1][1] + 1:
            runs.append([line, line])
        runs[-1][1] = line
        band_of[line] = len(runs) - 1
    extents = [(first, last) for first, last in runs]
    if len(runs) == 1:
        return [cells], extents
    groups: list[list[Cell]] = [[] for _ in runs]
    if axis == "row":
        for c in cells:
            groups[band_of[c.row]].append(c)
    else:
        for c in cells:
            groups[band_of[c.col]].append(c)
    return groups, extents


def _xy_cut(cells: list[Cell], depth: int) -> list[tuple[list[Cell], Bounds]]:
    """Split recursively on blank rows, then blank columns, until nothing splits; return the
    blocks with their bounds."""
    row_groups, row_extents = _bands(cells, "row")
    out: list[tuple[list[Cell], Bounds]] = []
    for group, (top, bottom) in zip(row_groups, row_extents, strict=True):
        col_groups, col_extents = _bands(group, "col")
        if len(col_groups) == 1 and len(row_groups) == 1:
            left, right = col_extents[0]
            out.append((group, (top, left, bottom, right)))
        elif depth > 6:
            out.extend((sub, _bounds(sub)) for sub in col_groups)
        else:
            for sub in col_groups:
                out.extend(_xy_cut(sub, depth + 1))
    return out


MAX_GAP = 2
"""Blank rows (or columns) that reports put inside one table for spacing."""


def _merge_spaced_blocks(blocks: list[tuple[list[Cell], Bounds]]
                         ) -> list[tuple[list[Cell], Bounds]]:
    """Re-join pieces of one table that blank rows or columns separated.

    Reports space out their tables: a blank row between the header and the body, around a
    section label ("White", "TOTAL"), or a blank spacer column between column groups. Two pieces
    join when they are close, overlap on the other axis, and the second does not start a table of
    its own (a text header row followed by values); a note line below is left for the notes.
    """
    cells = [list(b) for b, _ in blocks]
    bounds = [b for _, b in blocks]
    changed = True
    while changed:
        cancel.check()  # a page of many small blocks joins them one pair per pass
        changed = False
        for i, j in _neighbour_pairs(bounds):
            if _should_join(cells[i], cells[j], bounds[i], bounds[j]):
                cells[i].extend(cells[j])
                top, left, bottom, right = joined = _union([bounds[i], bounds[j]])
                # Pieces the joined rectangle now reaches into belong to it (no overlaps).
                inside = [k for k, (t, lf, b, r) in enumerate(bounds) if k not in (i, j)
                          and t <= bottom and b >= top and lf <= right and r >= left]
                for k in inside:
                    cells[i].extend(cells[k])
                bounds[i] = _union([joined, *(bounds[k] for k in inside)])
                for k in sorted([j, *inside], reverse=True):
                    del cells[k]
                    del bounds[k]
                changed = True
                break
    return list(zip(cells, bounds, strict=True))


def _neighbour_pairs(bounds: list[Bounds]) -> list[tuple[int, int]]:
    """Pairs (i, j) where j lies just below or just right of i, closest first, side by side
    before one above the other."""
    pairs = []
    for i, (t1, l1, b1, r1) in enumerate(bounds):
        cancel.check()  # quadratic in the blocks
        for j, (t2, l2, b2, r2) in enumerate(bounds):
            if i == j:
                continue
            below = 0 <= t2 - b1 - 1 <= MAX_GAP and _overlap(l1, r1, l2, r2) > 0
            right = 0 <= l2 - r1 - 1 <= MAX_GAP and _overlap(t1, b1, t2, b2) > 0
            if below or right:
                # (At equal distance a piece beside joins first: a label column split from its
                # figures by a spacer column is one table before it meets the one above.)
                pairs.append((t2 - b1 if below else l2 - r1, 1 if below else 0, i, j))
    return [(i, j) for _, _, i, j in sorted(pairs)]


def _overlap(a1: int, a2: int, b1: int, b2: int) -> int:
    return min(a2, b2) - max(a1, b1) + 1


def _should_join(upper: list[Cell], lower: list[Cell], ub: Bounds, lb: Bounds) -> bool:
    t1, l1, b1, r1 = ub
    t2, l2, b2, r2 = lb
    side_by_side = t2 <= b1 and l2 > r1
    if side_by_side:
        # A spacer column: same rows (give or take a header row), the right piece has no
        # label column of its own.
        rows_overlap = _overlap(t1, b1, t2, b2)
        if rows_overlap < 0.6 * min(b1 - t1 + 1, b2 - t2 + 1):
            return False
        first_col = [c for c in lower if c.col == l2 and c.text.strip()]
        return bool(first_col) and sum(_looks_numeric(c.text) for c in first_col) \
            >= 0.5 * len(first_col)
    width = min(r1 - l1 + 1, r2 - l2 + 1)
    if _overlap(l1, r1, l2, r2) < 0.5 * width:
        return False
    if _is_form(upper) != _is_form(lower):
        return False  # a key/value panel ("Source:" | "ONS") is not part of a table beside it
    if _is_lone_line(lower) and any(_NOTE_START.match(c.text) for c in lower):
        return False
    if _is_note_block(lower):
        return False
    if _starts_table(lower):
        # A table with its own header starts here: keep it apart from a table above, and from
        # a much narrower block (a key/value panel, a legend) that merely sits above it. A row
        # of labels above it ("2023 | 2024" over "Q1 | Q2 | Q1 | Q2", a spacer row between) is
        # the upper level of its header.
        if l1 == r1 and not _has_values(upper) and not all(
                _FOOTNOTE_START.match(c.text) for c in upper if c.text.strip()) \
                and not _is_note_block(upper) and (
                b1 - t1 + 1 <= CAPTION_LINES
                or all(len(c.text.split()) >= 3 for c in upper if c.text.strip())):
            # A line or two of caption in one column above it, or lines that each say a
            # sentence ("Transaction: Disposable income, net"): its title, kept with it (a
            # longer column of single words, "Regions / North / South", is a list of its own).
            return True
        return (not _has_values(upper) or _is_label_row(upper)) and \
            width >= 0.5 * max(r1 - l1 + 1, r2 - l2 + 1)
    return True


def _is_form(cells: list[Cell]) -> bool:
    """Labels ending in a colon down the first column, each with a value right of it: a
    key/value form ("Data owner:" | "ONS")."""
    left = min(c.col for c in cells)
    labels = [c for c in cells if c.col == left and c.text.strip()]
    colons = sum(1 for c in labels if LABEL_END.search(c.text))
    return colons >= 2 and colons >= 0.6 * len(labels) and any(c.col > left for c in cells)


CAPTION_LINES = 2
"""The most lines of one column above a table that are read as its caption."""


def _starts_table(cells: list[Cell]) -> bool:
    """A header row (two or more labels, years among them: "Region | 2021 | 2022") followed
    by rows that carry numbers."""
    by_row: dict[int, list[Cell]] = {}
    for cell in cells:
        if cell.text.strip():
            by_row.setdefault(cell.row, []).append(cell)
    rows = sorted(by_row)
    captioned = len(rows) > 2 and len(by_row[rows[0]]) == 1 \
        and not _looks_numeric(by_row[rows[0]][0].text)
    if captioned:
        rows = rows[1:]  # its caption on the row above ("Table B. Employees by region")
    if len(rows) < 2:
        return False
    first = by_row[rows[0]]
    # Years head a table only under a caption: uncaptioned, "East | 1999 | 2005" after a
    # spacer row is a data row of the table above.
    if len(first) < 2 or any(_looks_numeric(c.text) and not (captioned and YEARISH.match(c.text))
                             for c in first) or all(_looks_numeric(c.text) for c in first):
        return False
    return any(_looks_numeric(c.text) for r in rows[1:] for c in by_row[r])


def _has_values(cells: list[Cell]) -> bool:
    return any(_looks_numeric(c.text) for c in cells)


def _is_label_row(cells: list[Cell]) -> bool:
    """One row of two or more labels, numbers only as year labels: an upper header row."""
    filled = [c for c in cells if c.text.strip()]
    return len(filled) >= 2 and len({c.row for c in cells}) == 1 and all(
        not _looks_numeric(c.text) or YEARISH.match(c.text) for c in filled)


def _is_lone_line(cells: list[Cell]) -> bool:
    """One row of text that is not a table: a caption or a note (stops early on a big block)."""
    row = cells[0].row if cells else None
    texts = []
    for cell in cells:
        if cell.row != row:
            return False
        if cell.text.strip():
            texts.append(cell)
            if len(texts) > 2:
                return False
    return len(texts) >= 1 and all(not _looks_numeric(c.text) for c in texts)


NOTE_BLOCK_LINES = 6


def _is_note_block(cells: list[Cell]) -> bool:
    """A few lines of notes under a table, one text cell each, the first starting as a note
    does ("¹ Rice was not covered ...") and each other one too ("r/ Revised.", "- : not
    reported.") or a sentence ("Best results per column in bold."): the table's notes, not
    rows of it. (A title of the table below, "Table B - Churn (%)", is no sentence.)"""
    by_row: dict[int, list[Cell]] = {}
    for cell in cells:
        if shows_text(cell):
            line = by_row.setdefault(cell.row, [])
            line.append(cell)
            # Two texts on a row, or more rows than a block of notes has: no block, known
            # without reading the rest (a big table's every cell was read here: 0.05 s of a
            # 100k-cell upload, with its General numbers' texts written out).
            if len(line) > 1 or len(by_row) > NOTE_BLOCK_LINES:
                return False
    lines = [by_row[r][0].text for r in sorted(by_row) if len(by_row[r]) == 1]
    return 0 < len(lines) == len(by_row) <= NOTE_BLOCK_LINES \
        and bool(_NOTE_START.match(lines[0])) \
        and all(_NOTE_START.match(line) or _SENTENCE_LINE.fullmatch(line) for line in lines)


_SENTENCE_LINE = re.compile(r"\s*[^\W\d_][^.]*(?:\s+\S+){3,}\.\s*")
"""A line that says a sentence: four words or more, ending in a full stop."""


def _looks_numeric(text: str) -> bool:
    return bool(re.fullmatch(r"[\s$€£¥(+-]*[\d.,]+[\s%)]*", text))


def _attach_lone_lines(regions: list[Region], members: list[list[Cell]]
                       ) -> tuple[list[Region], list[list[Cell]]]:
    """Fold caption lines into the table just below, note lines (or a block of them) into the
    table just above."""
    tables = [i for i, m in enumerate(members) if not _is_lone_line(m) and not _is_note_block(m)]
    if not tables:
        return regions, members
    keep: dict[int, Region] = {i: regions[i] for i in tables}
    kept_members = {i: list(members[i]) for i in tables}
    for i, cells in enumerate(members):
        if i in keep:
            continue
        cancel.check()
        line = regions[i]
        below = [t for t in tables if regions[t].top > line.bottom
                 and regions[t].top - line.bottom <= 3 and _overlaps(regions[t], line)]
        above = [t for t in tables if regions[t].bottom < line.top
                 and line.top - regions[t].bottom <= 3 and _overlaps(regions[t], line)]
        note_like = any(_NOTE_START.match(c.text) for c in cells)
        if above and (note_like or not below):
            target = max(above, key=lambda t: regions[t].bottom)
            keep[target].note_cells.extend(sorted(cells, key=lambda c: c.col))
        elif below:
            target = min(below, key=lambda t: regions[t].top)
            keep[target].title_cells.extend(sorted(cells, key=lambda c: c.col))
        else:
            keep[i] = line  # a line on its own stays a (one-row) table
            kept_members[i] = list(cells)
    order = sorted(keep, key=lambda i: (keep[i].top, keep[i].left))
    return [keep[i] for i in order], [kept_members[i] for i in order]


def _overlaps(table: Region, line: Region) -> bool:
    return line.left <= table.right and line.right >= table.left - 1


def _peel_title_and_notes(region: Region, cells: list[Cell],
                          grid_rows: dict[int, dict[int, Cell]]) -> None:
    """Index the region's cells by row, and move single-cell text rows at the top (captions)
    and bottom (notes) out of the table."""
    by_row = _index_by_row(cells, grid_rows)
    rows = sorted(by_row)
    # Rows in order, columns in order: later steps read them left to right. A grid's cells
    # come in reading order from every reader, so the index is sorted as built and not copied
    # (a copy is a dict per row, 44 MB of a 1M-cell upload's peak).
    if rows != list(by_row) or any(list(row) != sorted(row) for row in by_row.values()):
        by_row = {r: dict(sorted(by_row[r].items())) for r in rows}
    region.by_row = by_row
    width = region.right - region.left + 1
    if width < 2:
        return
    top_rows = []
    for r, below in zip(rows, rows[1:], strict=False):
        row_cells = [c for c in by_row[r].values() if c.text.strip()]
        if len(row_cells) == 1 and not _looks_numeric(row_cells[0].text) \
                and len(by_row[r]) == 1 and _is_caption(row_cells[0], region) \
                or _split_title(list(by_row[r].values()), list(by_row[below].values()), region):
            top_rows.append(r)
        else:
            break
    bottom_rows = []
    body = rows[len(top_rows) + 1:]
    for i in range(len(body) - 1, -1, -1):
        r = body[i]
        row_cells = [c for c in by_row[r].values() if c.text.strip()]
        # A lone text under a blank row ("Blank = excused / not submitted") is set apart from
        # the table as a note is, whatever its words.
        apart = bool(row_cells) and i > 0 and body[i - 1] < r - 1 \
            and not _looks_numeric(row_cells[0].text)
        if len(row_cells) == 1 and len(by_row[r]) == 1 and row_cells[0].col == region.left \
                and (_is_note(row_cells[0]) or apart):
            bottom_rows.append(r)
        else:
            break
    for r in top_rows:
        region.title_cells.extend(by_row[r].values())
    for r in sorted(bottom_rows):
        region.note_cells.extend(by_row[r].values())
    for r in (*top_rows, *bottom_rows):
        del region.by_row[r]
    if (top_rows or bottom_rows) and region.by_row:
        region.top = min(region.by_row)
        region.bottom = max(c.row + c.rowspan - 1 for row in region.by_row.values()
                            for c in row.values())


def _index_by_row(cells: list[Cell], grid_rows: dict[int, dict[int, Cell]]
                  ) -> dict[int, dict[int, Cell]]:
    """The cells by row, then column. A row whose cells are all of the grid's row is that row
    of the grid's own index, shared (never changed by the analysis): a table's copy was a
    dict per row, 45 MB of a 1M-cell upload's peak. The others are built."""
    by_row: dict[int, dict[int, Cell]] = {}
    n = len(cells)
    i = 0
    while i < n:
        r = cells[i].row
        j = i + 1
        while j < n and cells[j].row == r:  # a row's cells come together from the reader
            j += 1
        shared = grid_rows.get(r)
        row = by_row.get(r)
        if row is None and shared is not None and len(shared) == j - i \
                and list(shared.values()) == cells[i:j]:
            by_row[r] = shared
        else:
            if row is None or row is shared:  # a row seen before is copied before it grows
                row = by_row[r] = dict(row or {})
            for cell in cells[i:j]:
                row[cell.col] = cell
        i = j
    return by_row


def _split_title(cells: list[Cell], below: list[Cell], region: Region) -> bool:
    """A title line that a CSV's unquoted commas split into fields ("Westmarch council
    election," | " 2 May 2019"): fewer cells than the table is wide, from its left edge on,
    each after the first starting with the space that follows a comma in prose. The row below
    it does not: a file that writes a space after every comma ("Name, Q1, Q2") has a header
    there, not a title."""
    width = region.right - region.left + 1
    return 2 <= len(cells) < width and cells[0].col == region.left \
        and [c.col for c in cells] == list(range(region.left, region.left + len(cells))) \
        and _LETTER.search(cells[0].text) is not None \
        and all(c.text[:1].isspace() and c.text.strip() for c in cells[1:]) \
        and not any(c.text[:1].isspace() for c in below[1:])


_LETTER = re.compile(r"[^\W\d_]")


def _is_caption(cell: Cell, region: Region) -> bool:
    """A lone text cell at the top: a caption if it spans the table or sits at its left edge."""
    spans_all = cell.col <= region.left + 1 and cell.col + cell.colspan - 1 >= region.right - 1
    return spans_all or cell.col == region.left and len(cell.text) > 0


def _is_note(cell: Cell) -> bool:
    text = cell.text.strip()
    return bool(_NOTE_START.match(text)) or len(text) > 40
