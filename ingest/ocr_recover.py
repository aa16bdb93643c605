"""Find the ink the page's OCR pass left unread, and read it alone.

The page pass (tesseract psm 11, sparse text) drops lone symbols and short marks: a cell
holding only "5" or "—", the "%" of "% Change", the "$" of "$ million", the "-" of
"32.42% - 32.84%". Ink that no word's box covers is grouped into blobs along a text line,
and each blob is read alone as one line of text (psm 7, else 13); what it reads joins the
words.
"""

from __future__ import annotations

import cv2
import numpy as np

from ingest import cancel
from ingest.ocr_engine import Word, words

MAX_BLOBS = 150
"""Blobs read alone per image, at most (about 40 ms each)."""


def missed_ink(ink: np.ndarray, found: list[Word], glyph: float) -> list[tuple[int, int, int, int]]:
    """Boxes of glyph-sized ink outside every word box, joined along a line."""
    rest = ink.copy()
    pad = max(2, int(glyph * 0.15))
    for w in found:
        rest[max(0, w.y0 - pad):w.y1 + pad, max(0, w.x0 - pad):w.x1 + pad] = 0
    # join the glyphs of one short word, not two columns' marks
    joined = cv2.dilate(rest, np.ones((max(1, int(glyph * 0.25)), max(3, int(glyph * 0.6))),
                                      np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h = (int(v) for v in stats[i, :4])
        ink_px = int(rest[y:y + h, x:x + w].sum())
        if ink_px < glyph * glyph * 0.02 or h > glyph * 3 or w > glyph * 40:
            continue
        if _touches_word(found, (x, y, x + w, y + h), glyph * 0.2):
            continue  # a piece of a word tesseract read (a tail outside its box), not a word
        out.append((x, y, x + w, y + h))
    return sorted(out, key=lambda b: (b[1], b[0]))[:MAX_BLOBS]


def _touches_word(found: list[Word], box: tuple[int, int, int, int], gap: float) -> bool:
    x0, y0, x1, y1 = box
    return any(w.x0 - gap <= x1 and x0 <= w.x1 + gap and w.y0 - gap <= y1 and y0 <= w.y1 + gap
               for w in found)


def recover(clean: np.ndarray, ink: np.ndarray, found: list[Word], glyph: float) -> list[Word]:
    """The words of `found` plus those read from the ink it missed."""
    extra: list[Word] = []
    margin = int(glyph)
    height, width = clean.shape
    for k, (x0, y0, x1, y1) in enumerate(missed_ink(ink, found, glyph)):
        if not k % 10:
            cancel.check()
        # widen thin marks ("-", "—") to a line's height so tesseract sees a text line
        cy = (y0 + y1) // 2
        y0, y1 = min(y0, max(0, cy - int(glyph * 0.7))), max(y1, min(height, cy + int(glyph * 0.7)))
        crop = cv2.copyMakeBorder(clean[y0:y1, x0:x1], margin, margin, margin, margin,
                                  cv2.BORDER_CONSTANT, value=255)
        # one line of text, else a raw line (a blurred lone word reads as nothing with psm 7
        # and 8, and right with 13)
        # kept however unsure: a blurred word read at 12% is flagged, not lost
        for w in words(crop, psm=7) or words(crop, psm=13):
            wx0 = max(x0, min(x1, w.x0 + x0 - margin))
            wx1 = max(wx0 + 1, min(x1, w.x1 + x0 - margin))
            extra.append(Word(wx0, max(y0, w.y0 + y0 - margin), wx1,
                              min(y1, w.y1 + y0 - margin), w.text, w.conf, (-1, -1, k)))
    return found + extra
