"""Find a table's rows, columns and merged cells in an image.

Ruled tables: rules are the ink that survives a morphological opening with a long, thin
kernel (horizontal, then vertical). Their positions cut the table into slots; two neighbouring
slots with no rule between them are one merged cell (a header spanning columns, a label
spanning rows).

Borderless tables (and tables with horizontal rules only): columns are the x ranges that the
words of the table's lines cover, separated by gaps that (nearly) no line crosses; a phrase
that crosses a gap (a header over two columns) spans those columns. Rows are text lines, with
the lines of a wrapped cell kept together when the line pitch shows it (a row's lines sit
closer together than two rows' do), or the rules where there are horizontal rules.

Everything here works in the working image's pixels (`ingest/ocr_prep.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from ingest.ocr_engine import Word


@dataclass
class Slot:
    """One cell of the found layout: grid position (0-based), span and pixel box."""

    row: int
    col: int
    rowspan: int
    colspan: int
    box: tuple[int, int, int, int]
    words: list[Word] = field(default_factory=list)


@dataclass
class Rules:
    """The rules of one table: line positions and the masks they were found in."""

    ys: list[int]
    xs: list[int]
    horizontal: np.ndarray
    vertical: np.ndarray
    tol: int = 3
    """Pixels either side of a position a rule may lie (half the span of merged rules)."""


def _positions(profile: np.ndarray, min_fill: int) -> list[int]:
    """Centres of the runs where a projection of a line mask reaches `min_fill`."""
    on = profile >= min_fill
    out: list[int] = []
    i, n = 0, len(on)
    while i < n:
        if on[i]:
            j = i
            while j + 1 < n and on[j + 1]:
                j += 1
            out.append((i + j) // 2)
            i = j + 1
        else:
            i += 1
    return out


def line_masks(ink: np.ndarray, glyph: float, faint: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the horizontal and vertical rules: runs of ink much longer than a word, and
    the sides of the boxes a table draws around each of its cells (found in `faint` ink when
    given: a browser draws a box's lower and right sides light grey, which Otsu's threshold
    drops, leaving an open corner)."""
    length = max(int(glyph * 4), 20)
    horizontal = cv2.morphologyEx(ink, cv2.MORPH_OPEN,
                                  cv2.getStructuringElement(cv2.MORPH_RECT, (length, 1)))
    vertical = cv2.morphologyEx(ink, cv2.MORPH_OPEN,
                                cv2.getStructuringElement(cv2.MORPH_RECT, (1, length)))
    add_box_sides(ink if faint is None else faint, glyph, horizontal, vertical)
    return horizontal, vertical


BOX_MIN_HEIGHT = 1.2
"""Glyph heights a cell's box is at least tall: one line of text and its padding (a box
drawn round each cell, as HTML's cellspacing does, is a cell high only: its sides are too
short for the long opening above). Taller glyphs ("(", "[") are never closed on four sides."""
BOX_MIN_WIDTH = 0.8
"""Glyph widths a cell's box is at least wide: a one-digit cell and its padding."""


def add_box_sides(ink: np.ndarray, glyph: float, horizontal: np.ndarray,
                  vertical: np.ndarray) -> None:
    """Add to the rule masks the sides of every hollow box of ink (a separately boxed cell,
    and the frame round such cells); in place."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    side = max(2, round(glyph * 0.2))
    w, h, area = (stats[:, k] for k in (cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT,
                                        cv2.CC_STAT_AREA))
    # box-sized and mostly hollow (a filled block, a shaded cell, is not a frame); a page's
    # glyphs, most of its components, go no further
    sized = (h >= glyph * BOX_MIN_HEIGHT) & (w >= glyph * BOX_MIN_WIDTH) & (w > 2 * side) \
        & (h > 2 * side) & (area <= 0.5 * w * h)
    sized[0] = False  # the background
    for i in np.flatnonzero(sized):
        x, y, bw, bh = (int(v) for v in stats[i, :4])
        own = labels[y:y + bh, x:x + bw] == i
        if not _closed_box(own, side):
            continue
        ink_of = own.astype(horizontal.dtype)
        horizontal[y:y + side, x:x + bw] |= ink_of[:side]
        horizontal[y + bh - side:y + bh, x:x + bw] |= ink_of[bh - side:]
        vertical[y:y + bh, x:x + side] |= ink_of[:, :side]
        vertical[y:y + bh, x + bw - side:x + bw] |= ink_of[:, bw - side:]


def _closed_box(own: np.ndarray, side: int) -> bool:
    """Whether a component's ink runs along all four sides of its bounding box (a rectangle
    drawn as lines; a letter's curves and open sides leave gaps)."""
    h, w = own.shape
    return bool(own[:side].any(axis=0).mean() > 0.9 and own[h - side:].any(axis=0).mean() > 0.9
                and own[:, :side].any(axis=1).mean() > 0.9
                and own[:, w - side:].any(axis=1).mean() > 0.9)


def table_regions(horizontal: np.ndarray, vertical: np.ndarray, glyph: float
                  ) -> list[tuple[int, int, int, int]]:
    """Boxes of the separate ruled tables (connected groups of rules), top to bottom."""
    both = ((horizontal | vertical) > 0).astype(np.uint8)
    # Bridge the spacing between separately boxed cells (HTML's cellspacing: 2 px at 1x,
    # a fifth of a glyph or so): one table, not one region per cell.
    reach = max(3, int(glyph * 0.4)) | 1
    both = cv2.dilate(both, np.ones((reach, reach), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(both, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h = stats[i, :4]
        if w >= glyph * 6 and h >= glyph * 2:
            out.append((int(x), int(y), int(x + w), int(y + h)))
    return sorted(out, key=lambda b: (b[1], b[0]))


def find_rules(horizontal: np.ndarray, vertical: np.ndarray,
               region: tuple[int, int, int, int], glyph: float = 20.0) -> Rules:
    """The rule positions inside a region: rules nearer each other than a few tenths of a
    glyph (the double lines of boxed cells, a frame round them) are one, as no cell of text
    is that thin."""
    x0, y0, x1, y1 = region
    hm = horizontal[y0:y1, x0:x1]
    vm = vertical[y0:y1, x0:x1]
    ys = [y + y0 for y in _positions(hm.sum(axis=1), max(10, int((x1 - x0) * 0.25)))]
    xs = [x + x0 for x in _positions(vm.sum(axis=0), max(10, int((y1 - y0) * 0.25)))]
    near = max(4, int(glyph * 0.4))
    return Rules(_dedupe(ys, near), _dedupe(xs, near), horizontal, vertical,
                 tol=max(3, near // 2 + 1))


def _dedupe(values: list[int], near: int = 4) -> list[int]:
    out: list[int] = []
    for v in values:
        if out and v - out[-1] <= near:
            out[-1] = (out[-1] + v) // 2
        else:
            out.append(v)
    return out


def _has_rule(mask: np.ndarray, fixed: int, a: int, b: int, vertical: bool,
              tol: int = 3) -> bool:
    """Whether a rule runs along most of the segment a..b at position `fixed`."""
    lo, hi = a + (b - a) // 6, b - (b - a) // 6
    if hi <= lo:
        return True
    if vertical:
        strip = mask[lo:hi, max(0, fixed - tol):fixed + tol + 1]
        return bool(strip.any(axis=1).mean() > 0.6)
    strip = mask[max(0, fixed - tol):fixed + tol + 1, lo:hi]
    return bool(strip.any(axis=0).mean() > 0.6)


def ruled_slots(rules: Rules) -> list[Slot]:
    """The cells of a fully ruled table, merging slots that no rule separates."""
    ys, xs = rules.ys, rules.xs
    n_r, n_c = len(ys) - 1, len(xs) - 1
    parent = list(range(n_r * n_c))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(a: int, b: int) -> None:
        parent[find(a)] = find(b)

    for r in range(n_r):
        for c in range(n_c):
            if c + 1 < n_c and not _has_rule(rules.vertical, xs[c + 1], ys[r], ys[r + 1], True,
                                             rules.tol):
                union(r * n_c + c, r * n_c + c + 1)
            if r + 1 < n_r and not _has_rule(rules.horizontal, ys[r + 1], xs[c], xs[c + 1],
                                             False, rules.tol):
                union(r * n_c + c, (r + 1) * n_c + c)
    groups: dict[int, list[tuple[int, int]]] = {}
    for r in range(n_r):
        for c in range(n_c):
            groups.setdefault(find(r * n_c + c), []).append((r, c))
    slots = []
    for members in groups.values():
        rows = [r for r, _ in members]
        cols = [c for _, c in members]
        r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
        if len(members) != (r1 - r0 + 1) * (c1 - c0 + 1):  # not a rectangle: keep slots apart
            for r, c in members:
                slots.append(Slot(r, c, 1, 1, (xs[c], ys[r], xs[c + 1], ys[r + 1])))
            continue
        slots.append(Slot(r0, c0, r1 - r0 + 1, c1 - c0 + 1,
                          (xs[c0], ys[r0], xs[c1 + 1], ys[r1 + 1])))
    return sorted(slots, key=lambda s: (s.row, s.col))


RULE_MARKS = "|¦"
"""What OCR reads a remnant of a vertical rule as (a rule not erased, or its grey fringe)."""


def without_rule_marks(words: list[Word]) -> list[Word]:
    """The words without the rule remnants OCR glued to them ("|1,350") or read alone ("|"):
    a table's text does not start or end in a bar, a rule beside it does."""
    out = []
    for w in words:
        text = w.text.strip(RULE_MARKS)
        if not text:
            continue
        if text != w.text:  # the bar was never the cell's: not a correction of its text
            w = replace(w, text=text, read=w.read.strip(RULE_MARKS) or None if w.read else None)
        out.append(w)
    return out


def place_words(slots: list[Slot], words: list[Word], glyph: float) -> list[Word]:
    """Put each word in the slot holding its start (its centre, or a glyph into it for a
    long box: on blurred images tesseract sometimes stretches a word's box over the next
    cell); return the words outside every slot."""
    left = []
    for w in words:
        x = min(w.cx, w.x0 + glyph * 0.8)
        for s in slots:
            x0, y0, x1, y1 = s.box
            if x0 <= x <= x1 and y0 <= w.cy <= y1:
                s.words.append(w)
                break
        else:
            left.append(w)
    return left


def without_spacing(slots: list[Slot], rules: Rules, glyph: float) -> list[Slot]:
    """The slots without the empty rows and columns thinner than a glyph: the spacing between
    separately boxed cells (HTML's cellspacing), which no text fits; spans across it shrink."""
    thin_rows = _thin_empty(slots, rules.ys, glyph, by_row=True)
    thin_cols = _thin_empty(slots, rules.xs, glyph, by_row=False)
    if not thin_rows and not thin_cols:
        return slots
    out = []
    for s in slots:
        rows = [r for r in range(s.row, s.row + s.rowspan) if r not in thin_rows]
        cols = [c for c in range(s.col, s.col + s.colspan) if c not in thin_cols]
        if not rows or not cols:
            continue
        out.append(replace(s, row=rows[0] - sum(1 for r in thin_rows if r < rows[0]),
                           col=cols[0] - sum(1 for c in thin_cols if c < cols[0]),
                           rowspan=len(rows), colspan=len(cols)))
    return out


def _thin_empty(slots: list[Slot], edges: list[int], glyph: float, *, by_row: bool
                ) -> set[int]:
    """The rows (or columns) narrower than a glyph with no cell of their own that holds
    words (a cell spanning the spacing, as "Department" over two header rows does, centres
    its words there: it does not keep it)."""
    own = {s.row if by_row else s.col for s in slots
           if s.words and (s.rowspan if by_row else s.colspan) == 1}
    return {k for k in range(len(edges) - 1) if edges[k + 1] - edges[k] < glyph
            and k not in own}


# --- borderless ----------------------------------------------------------------------------

@dataclass
class Line:
    """A text line: its words left to right and its vertical extent."""

    words: list[Word]

    @property
    def y0(self) -> int:
        return min(w.y0 for w in self.words)

    @property
    def y1(self) -> int:
        return max(w.y1 for w in self.words)

    @property
    def cy(self) -> float:
        return float(np.median([w.cy for w in self.words]))


def text_lines(words: list[Word], glyph: float) -> list[Line]:
    """Group words into text lines: a word joins the line its box overlaps vertically by at
    least half its height (descenders and capitals shift centres, not overlaps)."""
    lines: list[Line] = []
    for w in sorted(words, key=lambda w: (w.y0 + w.y1) / 2):
        height = max(1, w.y1 - w.y0)
        best = None
        for line in lines[-3:]:
            overlap = min(w.y1, line.y1) - max(w.y0, line.y0)
            if overlap >= 0.5 * min(height, line.y1 - line.y0):
                best = line
        if best is not None:
            best.words.append(w)
        else:
            lines.append(Line([w]))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
    return sorted(lines, key=lambda line: line.cy)


def phrases(line: Line, gap: float) -> list[list[Word]]:
    """Split a line's words where the space between two words is at least `gap`."""
    out: list[list[Word]] = []
    for w in line.words:
        if out and w.x0 - out[-1][-1].x1 < gap:
            out[-1].append(w)
        else:
            out.append([w])
    return out


def column_bounds(lines: list[Line], glyph: float) -> list[tuple[int, int]]:
    """The x ranges of the columns: runs covered by the lines' phrases, between gaps that at
    most a few lines cross (a header spanning two columns crosses one). A column that few
    lines fill (a header and three values in forty rows) looks like such a gap: the phrases
    outside every range found so, at least `NEW_COLUMN_GAP` glyphs from each range and from
    the phrases beside them on their line, make columns of their own. Nearer ones are a
    cell's words set wide apart, as a monospaced face sets them: `borderless_slots` gives
    them to the nearest column."""
    by_line = [[(p[0].x0, p[-1].x1) for p in phrases(line, glyph * 1.2)] for line in lines]
    spans = [span for line in by_line for span in line]
    if not spans:
        return []
    allowed = max(0, int(len(lines) * 0.1)) if len(lines) >= 5 else 0
    bounds = _covered_runs(spans, allowed, glyph)
    gap = NEW_COLUMN_GAP * glyph
    apart = [span for line in by_line for k, span in enumerate(line)
             if all(_distance(span, other) >= gap for other in bounds + line[max(0, k - 1):k]
                    + line[k + 1:k + 2])]
    return sorted(bounds + _covered_runs(apart, 0, glyph))


NEW_COLUMN_GAP = 2.0
"""Glyph heights between a phrase and every column for it to start a column of its own (the
phrases of one cell are split at 1.2; columns of the bench's tables sit 2.7 apart)."""


def _distance(span: tuple[int, int], bound: tuple[int, int]) -> int:
    """Pixels between two x ranges (0 when they overlap)."""
    return max(0, span[0] - bound[1], bound[0] - span[1])


def _covered_runs(spans: list[tuple[int, int]], allowed: int, glyph: float
                  ) -> list[tuple[int, int]]:
    """The x runs that more than `allowed` of the spans cover, bridging gaps narrower than a
    column gap."""
    if not spans:
        return []
    x0 = min(a for a, _ in spans)
    x1 = max(b for _, b in spans)
    cover = np.zeros(x1 - x0 + 2, dtype=np.int32)
    for a, b in spans:
        cover[a - x0:b - x0 + 1] += 1
    covered = cover > allowed
    bounds: list[tuple[int, int]] = []
    i, n = 0, len(covered)
    while i < n:
        if covered[i]:
            j = i
            while j + 1 < n and (covered[j + 1] or _short_gap(covered, j + 1, glyph * 1.2)):
                j += 1
            bounds.append((i + x0, j + x0))
            i = j + 1
        else:
            i += 1
    return bounds


def _short_gap(covered: np.ndarray, start: int, min_gap: float) -> bool:
    """Whether the uncovered run starting at `start` is narrower than a column gap."""
    j = start
    while j < len(covered) and not covered[j]:
        j += 1
    return j < len(covered) and (j - start) < min_gap


def row_groups(lines: list[Line], rule_ys: list[int]) -> list[list[Line]]:
    """Group text lines into table rows: by horizontal rules when there are several, else by
    line pitch (a wrapped cell's lines sit closer than two rows)."""
    if not lines:
        return []
    if len(rule_ys) >= 3:
        groups: dict[int, list[Line]] = {}
        for line in lines:
            k = sum(1 for y in rule_ys if y < line.cy)
            groups.setdefault(k, []).append(line)
        return [groups[k] for k in sorted(groups)]
    pitches = [b.cy - a.cy for a, b in zip(lines, lines[1:], strict=False)]
    if not pitches:
        return [lines]
    tight = min(pitches)
    split = tight * 1.45 if max(pitches) > tight * 1.45 else float("inf")
    out = [[lines[0]]]
    for pitch, line in zip(pitches, lines[1:], strict=True):
        if pitch > split or split == float("inf"):
            out.append([line])
        else:
            out[-1].append(line)
    return out


def table_lines(lines: list[Line], glyph: float) -> tuple[int, int]:
    """The range [head, tail) of the lines from the first to the last that has several
    phrases (cells side by side): the single-phrase lines before it are a heading or prose,
    whose words cross every column gap; after it, `_table_tail` tells the table's own from
    notes (all lines when none has several)."""
    heights = [_word_height(line) for line in lines]
    usual = float(np.median(heights)) if heights else 1.0
    # a heading's larger type spaces its words wider: scale the gap by the line's type
    several = [i for i, line in enumerate(lines)
               if len(phrases(line, glyph * 1.2 * max(1.0, heights[i] / usual))) > 1]
    if not several:
        return 0, len(lines)
    return several[0], several[-1] + 1


def _word_height(line: Line) -> float:
    """The median height of a line's word boxes (the size of its type)."""
    return float(np.median([w.y1 - w.y0 for w in line.words]))


def _line_cells(line: Line, banner: bool, bounds: list[tuple[int, int]], glyph: float
                ) -> list[tuple[list[Word], list[int]]]:
    """A line's phrases, each with the columns it overlaps. A heading or prose line outside
    the table that crosses a column gap is one phrase across every column (its wide-set
    words are not cells)."""
    if banner and len(_overlapped(line.words, bounds)) > 1:
        return [(line.words, list(range(len(bounds))))]
    return [(p, _overlapped(p, bounds)) for p in phrases(line, glyph * 1.2)]


def _overlapped(words: list[Word], bounds: list[tuple[int, int]]) -> list[int]:
    """The columns a run of words overlaps."""
    return [i for i, (a, b) in enumerate(bounds) if words[0].x0 <= b and words[-1].x1 >= a]


def _table_tail(lines: list[Line], tail: int, bounds: list[tuple[int, int]]) -> int:
    """Where the table's lines end: single-phrase lines after its last row of several cells
    are still its own (a wrapped cell's next line, a row with one cell) until one crosses a
    column gap, as a note's prose does."""
    while tail < len(lines) and len(_overlapped(lines[tail].words, bounds)) <= 1:
        tail += 1
    return tail


def borderless_slots(lines: list[Line], glyph: float, rule_ys: list[int]
                     ) -> list[Slot]:
    """The cells of a table without vertical rules, from word alignment. A page's heading
    and prose above the table (or notes below it) are whole-width rows of their own: their
    lines neither hide the column gaps nor set the row pitch."""
    if len(rule_ys) >= 3:  # rules bound the table: every line is in it
        head, tail = 0, len(lines)
    else:
        head, tail = table_lines(lines, glyph)
    bounds = column_bounds(lines[head:tail], glyph)
    if not bounds:
        return []
    tail = _table_tail(lines, tail, bounds)
    if len(rule_ys) >= 3:
        groups = row_groups(lines, rule_ys)
    else:
        groups = (row_groups(lines[:head], []) + row_groups(lines[head:tail], [])
                  + row_groups(lines[tail:], []))
    banners = {id(line) for line in lines[:head] + lines[tail:]}
    slots: list[Slot] = []
    for r, group in enumerate(groups):
        by_col: dict[int, list[Word]] = {}
        spans: dict[int, int] = {}
        for line in group:
            for p, cols in _line_cells(line, id(line) in banners, bounds, glyph):
                if not cols:  # a cell's word set apart: the nearest column's, not lost
                    cols = [min(range(len(bounds)),
                                key=lambda i: _distance((p[0].x0, p[-1].x1), bounds[i]))]
                c = cols[0]
                by_col.setdefault(c, []).extend(p)
                spans[c] = max(spans.get(c, 1), cols[-1] - c + 1)
        for c in sorted(by_col):
            ws = by_col[c]
            span = spans[c]
            if any(c < o < c + span for o in by_col):  # overlaps a filled cell: no span
                span = 1
            slots.append(Slot(r, c, 1, span, (min(w.x0 for w in ws), min(w.y0 for w in ws),
                                              max(w.x1 for w in ws), max(w.y1 for w in ws)),
                              list(ws)))
    return slots
