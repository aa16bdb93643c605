"""Tell a word's dashes apart by their length: tesseract reads them all alike.

Tesseract's English model writes a hyphen for an en dash ("20–17" as "20-17", a lone "–" in
a column of numbers as "-") and an em dash for a minus sign ("−95" as "—95"). The glyphs
differ in length, which the ink shows: measured against the height of the page's digits, a
hyphen's bar is about 0.4 of it, an en dash's 0.6, a minus sign's 0.9 and an em dash's 1.3
(DejaVu Sans, Verdana and Helvetica-like faces; in faces whose minus sign is no longer than
their en dash, such as Arial, a minus reads as an en dash, which the number check turns into
"-"). Each run of dash characters in a word's text is matched, left to right, with the flat
bars of ink in the word's box; when the counts agree, each run becomes the dash its bar's
length says.
"""

from __future__ import annotations

import re
from dataclasses import replace

import cv2
import numpy as np

from ingest.ocr_engine import Word

DASH_RUN = re.compile(r"[-\u2010-\u2015\u2212]+")
"""A run of characters tesseract writes for a dash (one glyph is sometimes read as two)."""
_DIGITS = re.compile(r"^\d+$")
# (longest length, relative to the digit height, of each dash) from shortest to longest
_BY_LENGTH = ((0.48, "-"), (0.73, "\u2013"), (1.07, "\u2212"), (float("inf"), "\u2014"))


def _components(ink: np.ndarray, box: tuple[int, int, int, int]) -> list[tuple[int, ...]]:
    """(x, y, w, h) of the ink blobs centred in a box, in the image's pixels, left to right."""
    x0, y0, x1, y1 = box
    height, width = ink.shape
    # a word's box can clip its first or last glyph by a pixel
    ax0, ax1 = max(0, x0 - 2), min(width, x1 + 2)
    ay0, ay1 = max(0, y0), min(height, y1)
    if ax1 <= ax0 or ay1 <= ay0:
        return []
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink[ay0:ay1, ax0:ax1], connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h = (int(v) for v in stats[i, :4])
        if x0 <= ax0 + x + w / 2 <= x1:
            out.append((ax0 + x, ay0 + y, w, h))
    return sorted(out)


def digit_height(ink: np.ndarray, found: list[Word]) -> float | None:
    """The median height of the digits of the words that are whole numbers (None without
    any): the yardstick a dash's length is measured against."""
    heights = [max(h for *_, h in comps) for w in found if _DIGITS.match(w.text)
               for comps in [_components(ink, (w.x0, w.y0, w.x1, w.y1))] if comps]
    return float(np.median(heights)) if heights else None


def _bars(comps: list[tuple[int, ...]], digit: float) -> list[tuple[int, ...]]:
    """The blobs that are one flat bar: thin, at least twice as long as thick, and not one
    of a stack ("=" is two bars one above the other)."""
    flat = [c for c in comps if c[3] <= 0.25 * digit and c[2] >= 2 * c[3]]
    return [c for c in flat if not any(o is not c and o[0] < c[0] + c[2] and c[0] < o[0] + o[2]
                                       for o in flat)]


def _dash(length: float) -> str:
    return next(ch for limit, ch in _BY_LENGTH if length < limit)


def measure_dashes(found: list[Word], ink: np.ndarray) -> list[Word]:
    """The words with each dash written as the one its ink's length shows (`ink`: the page
    without rules, ink as 1)."""
    digit = digit_height(ink, found)
    if digit is None:
        return found
    out = []
    for w in found:
        runs = list(DASH_RUN.finditer(w.text))
        if runs:
            bars = _bars(_components(ink, (w.x0, w.y0, w.x1, w.y1)), digit)
            if len(bars) == len(runs):
                text = w.text
                for run, bar in zip(reversed(runs), reversed(bars), strict=True):
                    text = text[:run.start()] + _dash(bar[2] / digit) + text[run.end():]
                w = replace(w, text=text)
        out.append(w)
    return out
