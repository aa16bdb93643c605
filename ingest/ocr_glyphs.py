"""Check characters tesseract confuses against the shape of their ink.

Tesseract's English model reads some glyphs as others that a measurement tells apart. Lengths
and heights are measured against the page's digit height (the median height of its digits,
or of its capitals on a page without digits), so they hold at any scale:

- Dashes: it writes a hyphen for an en dash ("20–17" as "20-17", a lone "–" as "-") and an em
  dash for a minus sign ("−95" as "—95"). A hyphen's bar is about 0.4 digit heights long, an
  en dash's 0.6, a minus sign's 0.9 and an em dash's 1.3 (DejaVu Sans, Verdana and
  Helvetica-like faces; in faces whose minus sign is no longer than their en dash, such as
  Arial, a minus reads as an en dash, which the number check turns into "-"). Each run of
  dash characters in a word is matched, left to right, with the flat bars of ink in its box.
- Zero and o: a "0" or "O" in a word of letters ("0z" for "oz") whose glyph is only as tall
  as a lowercase letter (under 0.87 digit heights; a digit or capital is 1) is an "o".
- Bullets: a word whose ink is one solid round blob 0.28-0.6 digit heights high is "•", whatever
  tesseract made of it ("«", "*", "¢«").
- Spaces: tesseract runs "32.3 M" together as "32.3M" where the space is narrow. In a
  proportional face the widest gap between the glyphs of a word is under 0.33 digit heights,
  a space at least 0.48; a monospaced face sets glyphs and spaces further apart (a point
  sits 0.4 from its neighbours, a space 1.0). So a gap becomes a space when it is over 0.42
  digit heights and over 0.75 of the page's usual gap between the words tesseract did
  split.
- Four and A: "4(c)" reads as "A(c)". An "A" stands on two feet, a "4" on its stem alone:
  an "A" whose bottom rows hold one run of ink, narrower than the glyph, is a "4" (upright
  or slanted alike).
- A leading point: the page read drops the point of ".925" or ".500" (a dot alone beside a
  word is too small a line for it); a dot sitting on the baseline just before a word of
  digits joins the word.

A word is changed only where its characters and its ink's glyphs pair up one to one, and
keeps what tesseract read (`Word.read`): the cell's `raw` text, flagged "corrected".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import cv2
import numpy as np

from ingest.ocr_engine import Word

DASH_RUN = re.compile(r"[-\u2010-\u2015\u2212]+")
"""A run of characters tesseract writes for a dash (one glyph is sometimes read as two)."""
_CAPITALS = frozenset("ABCDEFGHIKLMNOPRSTUVWXYZ")
"""Capitals that sit on the baseline at digit height (not J or Q, which descend)."""
# (longest length, in digit heights, of each dash) from shortest to longest
_BY_LENGTH = ((0.48, "-"), (0.73, "\u2013"), (1.07, "\u2212"), (float("inf"), "\u2014"))
SPACE_GAP = 0.42
"""A gap between two glyphs of a word wider than this many digit heights may be a space..."""
SPACE_SHARE = 0.75
"""... when it is also wider than this share of the page's median gap between words."""
LOWERCASE_HEIGHT = 0.87
"""Glyphs under this many digit heights are lowercase letters (x-height is about 0.75)."""


@dataclass(frozen=True)
class Blob:
    """Connected ink in the working image: its box and how many pixels are ink."""

    x: int
    y: int
    w: int
    h: int
    area: int

    @property
    def solid_round(self) -> bool:
        """Whether it is a filled disc (a disc fills 0.79 of its box; "o", "*", "+" far less)."""
        return 0.7 <= self.w / self.h <= 1.4 and self.area >= 0.6 * self.w * self.h


def blobs(ink: np.ndarray, box: tuple[int, int, int, int], pad: int = 2,
          whole: bool = False) -> list[Blob]:
    """The ink blobs centred in a box (widened by `pad`: a word's box can clip its first or
    last glyph by a pixel), left to right. `whole`: leave out a blob the widened box still
    cuts, as only part of a glyph (the right leg of an A looks like the stem of a 4); the
    length and height checks do well enough with a cut blob, which the pairing catches."""
    x0, y0, x1, y1 = box
    height, width = ink.shape
    ax0, ax1 = max(0, x0 - pad), min(width, x1 + pad)
    ay0, ay1 = max(0, y0), min(height, y1)
    if ax1 <= ax0 or ay1 <= ay0:
        return []
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink[ay0:ay1, ax0:ax1], connectivity=8)
    out = []
    for i in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[i, :5])
        cut = (x == 0 and ax0 > 0) or (x + w == ax1 - ax0 and ax1 < width)
        if x0 <= ax0 + x + w / 2 <= x1 and not (whole and cut):
            out.append(Blob(ax0 + x, ay0 + y, w, h, area))
    return sorted(out, key=lambda b: b.x)


def glyphs(found: list[Blob]) -> list[Blob]:
    """Blobs that overlap horizontally taken as one glyph (the dot of an "i", the two bars of
    "=", the rings of "%")."""
    out: list[Blob] = []
    for b in found:
        if out and b.x < out[-1].x + out[-1].w:
            a = out[-1]
            x0, y0 = min(a.x, b.x), min(a.y, b.y)
            x1, y1 = max(a.x + a.w, b.x + b.w), max(a.y + a.h, b.y + b.h)
            out[-1] = Blob(x0, y0, x1 - x0, y1 - y0, a.area + b.area)
        else:
            out.append(b)
    return out


def digit_height(found: list[tuple[Word, list[Blob]]]) -> float | None:
    """The median height of the digits among the words' glyphs, else of their capitals
    (nearly as tall; None without either): the yardstick glyphs are measured against. Only
    words whose characters and glyphs pair up one to one are measured."""
    digits: list[int] = []
    capitals: list[int] = []
    for w, shape in found:
        shapes = glyphs(shape)
        if len(shapes) == len(w.text):
            for ch, g in zip(w.text, shapes, strict=True):
                if ch.isdigit():
                    digits.append(g.h)
                elif ch in _CAPITALS:
                    capitals.append(g.h)
    heights = digits or capitals
    return float(np.median(heights)) if heights else None


def _bars(found: list[Blob], digit: float) -> list[Blob]:
    """The blobs that are one flat bar: thin, at least twice as long as thick, and not one
    of a stack ("=" is two bars one above the other)."""
    flat = [b for b in found if b.h <= 0.25 * digit and b.w >= 2 * b.h]
    return [b for b in flat if not any(o is not b and o.x < b.x + b.w and b.x < o.x + o.w
                                       for o in flat)]


def _dashes(text: str, found: list[Blob], digit: float) -> str:
    runs = list(DASH_RUN.finditer(text))
    bars = _bars(found, digit) if runs else []
    if not runs or len(bars) != len(runs):
        return text
    for run, bar in zip(reversed(runs), reversed(bars), strict=True):
        dash = next(ch for limit, ch in _BY_LENGTH if bar.w / digit < limit)
        text = text[:run.start()] + dash + text[run.end():]
    return text


def _small_o(text: str, found: list[Blob], digit: float) -> str:
    if not any(ch in "0O" for ch in text) or not any(ch.islower() for ch in text):
        return text
    shapes = glyphs(found)
    if len(shapes) != len(text):
        return text
    return "".join("o" if ch in "0O" and g.h < LOWERCASE_HEIGHT * digit else ch
                   for ch, g in zip(text, shapes, strict=True))


def space_gap(found: list[Word], digit: float) -> float:
    """The narrowest gap, in pixels, that is a space between words on this page."""
    lines: dict[tuple[int, int, int], list[Word]] = {}
    for w in found:
        if w.line[0] >= 0:  # words read alone (ingest/ocr_recover.py) have no line
            lines.setdefault(w.line, []).append(w)
    gaps = [b.x0 - a.x1 for ws in lines.values()
            for a, b in zip(sorted(ws, key=lambda w: w.x0), sorted(ws, key=lambda w: w.x0)[1:],
                            strict=False)
            if 0 < b.x0 - a.x1 < 1.5 * digit]  # wider ones part columns
    usual = float(np.median(gaps)) if len(gaps) >= 5 else 0.0
    return max(SPACE_GAP * digit, SPACE_SHARE * usual)


def _spaces(text: str, shapes: list[Blob], space: float) -> str:
    if len(shapes) != len(text):
        return text
    out = text[0]
    for ch, a, b in zip(text[1:], shapes, shapes[1:], strict=False):
        out += (" " if b.x - (a.x + a.w) > space else "") + ch
    return out


def _four(text: str, shapes: list[Blob], ink: np.ndarray) -> str:
    if "A" not in text or len(shapes) != len(text):
        return text
    return "".join("4" if ch == "A" and _one_foot(ink, g) else ch
                   for ch, g in zip(text, shapes, strict=True))


def _one_foot(ink: np.ndarray, g: Blob) -> bool:
    """Whether a glyph's bottom rows hold one run of ink, narrower than the glyph (a small
    A's two feet can blur into one run across its width)."""
    bottom = ink[g.y + g.h - max(2, g.h // 10):g.y + g.h, g.x:g.x + g.w].any(axis=0)
    runs = int(np.count_nonzero(bottom[1:] & ~bottom[:-1]) + bottom[0])
    return runs == 1 and bool(np.count_nonzero(bottom) < 0.7 * g.w)


def _bullet(text: str, found: list[Blob], digit: float) -> str:
    if len(found) == 1 and len(text) <= 2 and found[0].solid_round \
            and 0.28 * digit <= found[0].h <= 0.6 * digit:
        return "\u2022"
    return text


def _leading_point(w: Word, ink: np.ndarray, found: list[Word], digit: float) -> Word:
    """The word with the dot just before it joined, when it is a number and the dot no
    other word holds."""
    if not w.text[:1].isdigit():
        return w
    reach = int(0.4 * digit)
    near = [b for b in blobs(ink, (w.x0 - reach, w.y0, w.x0 - 1, w.y1), pad=0)
            if b.x + b.w < w.x0]
    if len(near) != 1:
        return w
    dot = near[0]
    on_baseline = abs((dot.y + dot.h) - w.y1) <= 0.1 * digit
    if not (dot.solid_round and dot.h <= 0.3 * digit and on_baseline):
        return w
    if any(o.x0 <= dot.x + dot.w / 2 <= o.x1 and o.y0 <= dot.y + dot.h / 2 <= o.y1
           for o in found if o is not w):
        return w
    return replace(w, x0=dot.x, text="." + w.text, read=w.as_read)


def measure_glyphs(found: list[Word], ink: np.ndarray) -> list[Word]:
    """The words with the characters above checked against their ink (`ink`: the page
    without rules, ink as 1)."""
    shaped = [(w, blobs(ink, (w.x0, w.y0, w.x1, w.y1))) for w in found]
    digit = digit_height(shaped)
    if digit is None:
        return found
    space = space_gap(found, digit)
    out = []
    for w, shape in shaped:
        text = _bullet(w.text, shape, digit)
        text = _small_o(_dashes(text, shape, digit), shape, digit)
        shapes = glyphs(shape)
        whole = glyphs(blobs(ink, (w.x0, w.y0, w.x1, w.y1), whole=True)) if "A" in text \
            else shapes
        text = _spaces(_four(text, whole, ink), shapes, space)
        checked = replace(w, text=text, read=w.text) if text != w.text else w
        out.append(_leading_point(checked, ink, found, digit))
    return out
