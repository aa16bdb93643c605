"""Render tables to images with Pillow, with the truth of every cell (for the OCR bench and tests).

`render_table` draws a table of text cells in DejaVu Sans (Debian's `fonts-dejavu-core`): ruled
(every cell boxed) or borderless (whitespace only), text wrapped at a width in characters, with
merged cells given as (row, col, rowspan, colspan) anchors (0-based). It returns the image and
the table as drawn: the rows of cell texts (a merged cell's text at its anchor, "" in the slots
it covers) and the merges, which is what a reader should give back.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
FONT = FONT_DIR / "DejaVuSans.ttf"
BOLD = FONT_DIR / "DejaVuSans-Bold.ttf"


@dataclass
class Rendered:
    """An image of a table and what it shows."""

    image: Image.Image
    rows: list[list[str]]
    """Cell texts as given, whitespace collapsed, one list per row: a word wrapped after
    its hyphen ("Re-" / "establishment") is still one word, as the source has it."""
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(row, col, rowspan, colspan) of each merged cell, 0-based."""
    boxes: dict[tuple[int, int], tuple[int, int, int, int]] = field(default_factory=dict)
    """The pixel box of each anchor cell, by (row, col)."""


def font_available() -> bool:
    return FONT.exists()


def render_table(rows: list[list[str]], *, font_px: int = 16, ruled: bool = True,
                 merges: list[tuple[int, int, int, int]] = (), wrap: int = 30,
                 bold_header: bool = False, pad: int | None = None,
                 margin: int = 20) -> Rendered:
    """Draw `rows` as a table image (white background, black text)."""
    font = ImageFont.truetype(str(FONT), font_px)
    bold = ImageFont.truetype(str(BOLD if bold_header else FONT), font_px)
    n_rows, n_cols = len(rows), max(len(r) for r in rows)
    grid = [list(r) + [""] * (n_cols - len(r)) for r in rows]
    covered: dict[tuple[int, int], tuple[int, int]] = {}
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    for r, c, rs, cs in merges:
        spans[(r, c)] = (rs, cs)
        for rr in range(r, r + rs):
            for cc in range(c, c + cs):
                if (rr, cc) != (r, c):
                    covered[(rr, cc)] = (r, c)
                    grid[rr][cc] = ""
    pad = pad if pad is not None else max(4, font_px // 2)
    line_h = int(font_px * 1.25)
    lines = [[(textwrap.wrap(t, wrap, break_long_words=False) or [""])
              if (r, c) not in covered else [""] for c, t in enumerate(row)]
             for r, row in enumerate(grid)]

    def width(text: str, f: ImageFont.FreeTypeFont) -> int:
        return int(f.getlength(text)) if text else 0

    col_w = [0] * n_cols
    for r in range(n_rows):
        f = bold if r == 0 else font
        for c in range(n_cols):
            if spans.get((r, c), (1, 1))[1] == 1 and (r, c) not in covered:
                col_w[c] = max(col_w[c], max(width(t, f) for t in lines[r][c]))
    col_w = [w + 2 * pad + (0 if ruled else pad * 2) for w in col_w]
    for (r, c), (_rs, cs) in spans.items():  # a wide merged text widens its last column
        need = max(width(t, bold if r == 0 else font) for t in lines[r][c]) + 2 * pad
        have = sum(col_w[c:c + cs])
        if need > have:
            col_w[c + cs - 1] += need - have
    row_h = [0] * n_rows
    for r in range(n_rows):
        row_h[r] = max(len(lines[r][c]) for c in range(n_cols)
                       if spans.get((r, c), (1, 1))[0] == 1) * line_h + 2 * pad
    xs = [margin]
    for w in col_w:
        xs.append(xs[-1] + w)
    ys = [margin]
    for h in row_h:
        ys.append(ys[-1] + h)
    image = Image.new("L", (xs[-1] + margin, ys[-1] + margin), 255)
    draw = ImageDraw.Draw(image)
    boxes: dict[tuple[int, int], tuple[int, int, int, int]] = {}
    for r in range(n_rows):
        for c in range(n_cols):
            if (r, c) in covered:
                continue
            rs, cs = spans.get((r, c), (1, 1))
            x0, y0, x1, y1 = xs[c], ys[r], xs[c + cs], ys[r + rs]
            boxes[(r, c)] = (x0, y0, x1, y1)
            if ruled:
                draw.rectangle((x0, y0, x1, y1), outline=0, width=1)
            f = bold if r == 0 else font
            text_lines = lines[r][c]
            top = y0 + pad + ((y1 - y0 - 2 * pad) - len(text_lines) * line_h) // 2 \
                if (rs, cs) != (1, 1) else y0 + pad
            for i, t in enumerate(text_lines):
                tx = x0 + pad + (((x1 - x0 - 2 * pad) - width(t, f)) // 2
                                 if cs > 1 else (0 if ruled else pad))
                draw.text((tx, top + i * line_h), t, fill=0, font=f)
    truth = [[" ".join(grid[r][c].split()) if (r, c) not in covered else ""
              for c in range(n_cols)] for r in range(n_rows)]
    return Rendered(image, truth, [m for m in merges if m[2] > 1 or m[3] > 1], boxes)
