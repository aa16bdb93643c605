"""Read the tables in a picture (a screenshot, a scan) into grids, with tesseract.

The pipeline: open the image within the pixel limit and prepare a working copy (grayscale,
turned upright when its text runs sideways or it reads poorly, text scaled to about 30 px,
small skews undone; `ingest/ocr_prep.py`); find the rules
(`ingest/ocr_layout.py`); erase them and OCR the page once with positions
(`ingest/ocr_engine.py`); place the words in the ruled cells, or, where there are no vertical
rules, in columns found from the words' alignment; check every cell against its column
(`ingest/ocr_validate.py`).

Each separately ruled table of the image is its own grid ("image1", "image2", ... in reading
order); an image whose text has no rules is one borderless grid, "image1". Cells carry their
box in the *original* image's pixels, tesseract's confidence (0-1, of the cell's least sure
word), flags ("corrected", "low_confidence", "not_a_number"), and in `raw` the text as OCR
read it before any correction, by the shape of its glyphs or against its column (`text` is
the corrected text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import BinaryIO

import cv2
import numpy as np

from ingest import cancel
from ingest.errors import NoTableInImage
from ingest.grid import Cell, Grid, Progress
from ingest.limits import Limits
from ingest.ocr_edges import cut_edges, cut_off_warning
from ingest.ocr_engine import Word, require_tesseract, words
from ingest.ocr_glyphs import measure_glyphs
from ingest.ocr_layout import (
    Slot,
    borderless_slots,
    find_rules,
    line_masks,
    place_words,
    ruled_slots,
    table_regions,
    text_lines,
    without_rule_marks,
    without_spacing,
)
from ingest.ocr_prep import (
    Transform,
    binarise,
    faint_ink,
    glyph_height,
    open_image,
    prepare,
    quarter_turn,
)
from ingest.ocr_recover import recover
from ingest.ocr_validate import check_cell, comma_grouped, numeric_columns


def read_image(stream: BinaryIO, *, name: str, limits: Limits,
               progress: Progress) -> list[Grid]:
    """Read the tables of an image file into grids (kind "image")."""
    require_tesseract(name)
    image = open_image(stream, name, limits.max_ocr_pixels)
    progress(0.05, "preparing the image")
    cancel.check()
    gray, transform = prepare(image)
    cancel.check()
    progress(0.2, "reading the text with OCR")
    found = page(gray, deadline_s=_remaining())
    if _unsure(found.words):
        turn = quarter_turn(found.clean)
        if turn:
            progress(0.3, f"the image is turned {turn} degrees: reading it upright")
            gray, transform = prepare(image, turn)
            found = page(gray, deadline_s=_remaining())
    tables = layout(found, progress=progress)
    grids = []
    for k, slots in enumerate(tables):
        grid = to_grid(slots, transform, source=name, sheet=f"image{k + 1}", index=len(grids))
        if grid is not None:
            grids.append(grid)
    if not grids:
        raise NoTableInImage(name, "no table was found in the image: no text in rows and "
                             "columns could be read.",
                             "Upload a screenshot or scan in which the table is clearly "
                             "visible (text at least 10 px high), cropped to the table.")
    warning = cut_off_warning(cut_edges(np.asarray(image)), transform.turn)
    for grid in grids if warning else ():
        grid.warnings.append(warning)
    return grids


_SYMBOLS = frozenset("%$€£¥#&*+-–—−=<>/()•")


def _meaningful(text: str) -> bool:
    """Whether a word is text or a symbol a table writes alone ("%", "$", "—"), not a speck
    read as "'", "|" or "."."""
    return any(ch.isalnum() for ch in text) or (len(text) <= 3 and all(
        ch in _SYMBOLS for ch in text))


def _unsure(found: list[Word]) -> bool:
    """Whether OCR read the page poorly (nothing, or its median word under 70% sure; an
    upright screenshot reads at about 95%): it may be turned."""
    return not found or float(np.median([w.conf for w in found])) < 70


def _remaining() -> float | None:
    watch = cancel.current()
    return watch.remaining_s() if watch is not None else None


@dataclass
class Page:
    """A working image read once: its rules, the image without them, and the words."""

    clean: np.ndarray
    horizontal: np.ndarray
    vertical: np.ndarray
    glyph: float
    words: list[Word]


def page(gray: np.ndarray, *, deadline_s: float | None = None) -> Page:
    """Find the rules of a working image, erase them and OCR the rest once."""
    ink = binarise(gray)
    glyph = glyph_height(ink) or 20.0
    horizontal, vertical = line_masks(ink, glyph, faint_ink(gray))
    clean = gray.copy()
    # Erase the rules, with the grey fringe scaling left beside them (read as "|" otherwise):
    # tesseract psm 6 reads nothing on a ruled page.
    grow = max(3, int(glyph * 0.2)) | 1
    rules = cv2.dilate(((horizontal | vertical) > 0).astype(np.uint8), np.ones((grow, grow),
                                                                            np.uint8))
    clean[rules > 0] = 255
    found = words(clean, timeout_s=deadline_s)
    cancel.check()
    return Page(clean, horizontal, vertical, glyph, found)


def layout(pg: Page, *, progress: Progress | None = None) -> list[list[Slot]]:
    """Find the tables of a read page and their cells, with the words in each cell."""
    horizontal, vertical, glyph, clean = pg.horizontal, pg.vertical, pg.glyph, pg.clean
    if progress is not None:
        progress(0.6, f"OCR read {len(pg.words)} words; reading what it missed")
    ink = binarise(clean)
    found = without_rule_marks(measure_glyphs(recover(clean, ink, pg.words, glyph), ink))
    if progress is not None:
        progress(0.9, "finding rows and columns")
    tables: list[list[Slot]] = []
    remaining = found
    for region in table_regions(horizontal, vertical, glyph):
        rules = find_rules(horizontal, vertical, region, glyph)
        if len(rules.ys) >= 2 and len(rules.xs) >= 2:
            slots = ruled_slots(rules)
            remaining = place_words(slots, remaining, glyph)
            tables.append(without_spacing(slots, rules, glyph))
        elif len(rules.ys) >= 2:  # horizontal rules only: columns from the words
            x0, y0, x1, y1 = region
            inside = [w for w in remaining if y0 <= w.cy <= y1 and x0 <= w.cx <= x1]
            if inside:
                slots = borderless_slots(text_lines(inside, glyph), glyph, rules.ys)
                ids = {id(w) for w in inside}
                remaining = [w for w in remaining if id(w) not in ids]
                tables.append(slots)
    if not tables:
        text = [w for w in remaining if _meaningful(w.text)]
        if text:
            tables.append(borderless_slots(text_lines(text, glyph), glyph, []))
    return [t for t in tables if any(s.words for s in t)]


_BROKEN_AFTER_HYPHEN = re.compile(r"[^\W\d_]-$")


def cell_text(words_in: list[Word], glyph: float = 20.0, *, as_read: bool = False) -> str:
    """The text of a cell's words (`as_read`: as tesseract read them, before the checks of
    their ink's shape): line by line, left to right, joined by spaces, except after a line
    that ends in a letter and a hyphen ("Re-" then "establishment"): a word wrapped where its
    hyphen allows a break, as text wrapping and browsers do."""
    text = ""
    for line in text_lines(words_in, glyph):
        joined = " ".join(w.as_read if as_read else w.text for w in line.words)
        starts_word = joined[:1].isalpha()
        text += joined if not text or (_BROKEN_AFTER_HYPHEN.search(text) and starts_word) \
            else " " + joined
    return text


def to_grid(slots: list[Slot], transform: Transform, *, source: str, sheet: str,
            index: int) -> Grid | None:
    """A grid of the slots that hold text: OCR text checked against its column."""
    # drop empty edge rows/columns a ruled frame may leave, keep inner empty cells as holes
    filled = [s for s in slots if s.words]
    if not filled:
        return None
    r0 = min(s.row for s in filled)
    c0 = min(s.col for s in filled)
    texts = {id(s): cell_text(s.words) for s in filled}
    header_row = r0
    columns: dict[int, list[str]] = {}
    for s in filled:
        if s.row > header_row and s.colspan == 1:
            columns.setdefault(s.col, []).append(texts[id(s)])
    numeric = numeric_columns(columns)
    grouped = {col for col in numeric if comma_grouped(columns[col])}
    cells: dict[tuple[int, int], Cell] = {}
    n_rows = n_cols = 0
    for s in slots:
        row, col = s.row - r0 + 1, s.col - c0 + 1
        if row < 1 or col < 1:
            continue
        if not s.words:
            continue
        measured = texts[id(s)]
        raw = cell_text(s.words, as_read=True)
        conf = min(w.conf for w in s.words) / 100.0
        body = s.row > header_row
        text, flags = check_cell(measured, conf, s.col in numeric and body,
                                 s.col in grouped and body)
        if raw != measured and "corrected" not in flags:
            flags = ("corrected", *flags)
        cells[(row, col)] = Cell(row, col, raw, text, s.rowspan, s.colspan,
                                 box=transform.to_original(s.box),
                                 confidence=round(conf, 3), flags=flags)
        n_rows = max(n_rows, row + s.rowspan - 1)
        n_cols = max(n_cols, col + s.colspan - 1)
    return Grid(source, sheet, index, n_rows, n_cols, "image", cells)
