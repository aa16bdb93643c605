"""Tell when a picture was cropped through its table: text running into an edge of the image.

A screenshot cropped too tight loses what lies past the edge, and nothing read from it can say
what that was: a ruled table's last column has no closing rule, so its words fall in no cell
and the column is gone; a borderless table keeps the glyphs left of the cut, read as other
characters ("3.1%" as "3.15"). So the reader reads what is there, invents nothing, and each
grid of such a picture carries a warning asking for the screenshot again.

The test is on the picture as people see it (after its EXIF rotation, before any turn or
deskew of the working copy): ink of a glyph's height touching an edge. Rules and frames are
thin, or joined into one shape much taller than a glyph; specks are shorter.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from ingest.ocr_prep import binarise, glyph_height

GLYPH_SHARE = (0.4, 2.0)
"""Heights, in glyph heights, of the ink at an edge that counts as text: a glyph cut across
(at the top or bottom edge) keeps part of its height, a cut word its whole height."""


def cut_edges(gray: np.ndarray) -> list[str]:
    """The edges of a grayscale picture that text runs into, of "left", "top", "right",
    "bottom" in that order."""
    ink = binarise(gray)
    glyph = glyph_height(ink)
    if glyph is None:
        return []
    _, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    x, y, w, h = (stats[1:, k] for k in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP,
                                          cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
    low, high = GLYPH_SHARE
    text = (h >= low * glyph) & (h <= high * glyph)
    height, width = ink.shape
    touching = {"left": x == 0, "top": y == 0, "right": x + w == width,
                "bottom": y + h == height}
    return [edge for edge, at in touching.items() if bool((text & at).any())]


def cut_off_warning(edges: Sequence[str], turn: int = 0) -> str | None:
    """The warning of a picture cut off at `edges` (None when it is not), as a clause like the
    readers' other warnings. `turn`: degrees the picture was turned to read it upright, which
    makes its left and right edges cut the table's rows rather than its columns."""
    if not edges:
        return None
    sideways = turn in (90, 270)
    lost = dict.fromkeys("a column" if (edge in ("left", "right")) != sideways else "a row"
                         for edge in edges)
    plural = len(edges) > 1
    return (f"the picture seems cut off at its {' and '.join(edges)} edge{'s' * plural}: "
            f"text runs into {'them' if plural else 'it'}, so {' or '.join(lost)} of the "
            "table may be missing or read only in part; take the screenshot again with the "
            "whole table in it")
