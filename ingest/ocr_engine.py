"""Tesseract through pytesseract: words with their pixel boxes and confidences.

Tesseract runs as a subprocess with `OMP_THREAD_LIMIT=1` (793 ms against 149 ms for a small
table on two shared cores, ../shared/notes/STACK.md pitfall 9). Page segmentation mode 6
returns nothing on a table with its rules still drawn (pitfall 8): the layout step erases the
rules before calling `words`, and mode 6 reads the cleaned page as one block of text lines,
which keeps a wrapped cell's lines apart from its neighbours'.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

import numpy as np

from ingest.errors import OcrUnavailable

INSTALL_ADVICE = ("Install tesseract (Debian/Ubuntu: apt-get install tesseract-ocr; macOS: brew "
                  "install tesseract), or run `make setup`, then upload the image again.")


@dataclass(frozen=True, slots=True)
class Word:
    """One word tesseract read: its box in the image it was given, text and confidence 0-100."""

    x0: int
    y0: int
    x1: int
    y1: int
    text: str
    conf: float
    line: tuple[int, int, int]
    """(block, paragraph, line) numbers: words of one text line share them."""
    read: str | None = None
    """What tesseract read, where a check of the ink's shape changed `text`
    (`ingest/ocr_glyphs.py`)."""

    @property
    def as_read(self) -> str:
        return self.text if self.read is None else self.read

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def tesseract_path() -> str | None:
    """Where the tesseract program is (None when it is not installed)."""
    return shutil.which("tesseract")


def require_tesseract(name: str) -> None:
    """Raise `OcrUnavailable` naming the file when tesseract is not installed."""
    if tesseract_path() is None:
        raise OcrUnavailable(name, "reading tables from images needs the tesseract OCR "
                             "program, which is not installed on this server.", INSTALL_ADVICE)


def words(image: np.ndarray, *, psm: int = 11, lang: str = "eng",
          timeout_s: float | None = None) -> list[Word]:
    """OCR a grayscale image (uint8 array) and return its words, in reading order."""
    import pytesseract
    from PIL import Image

    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    # preserve_interword_spaces keeps "1 234" apart from "1234" only where the image does.
    # Parsed here rather than with Output.DICT, whose parser drops the missing text of a
    # row and shifts every later word's text onto the wrong box.
    tsv = pytesseract.image_to_data(Image.fromarray(image), lang=lang,
                                    config=f"--psm {psm} -c preserve_interword_spaces=1",
                                    timeout=timeout_s or 0)
    out: list[Word] = []
    for line in tsv.splitlines()[1:]:
        parts = line.split("\t")
        if len(parts) < 12:
            continue
        text = parts[11].strip()
        try:
            conf = float(parts[10])
            block, par, ln, x, y, w, h = (int(parts[k]) for k in (2, 3, 4, 6, 7, 8, 9))
        except ValueError:
            continue
        if not text or conf < 0:
            continue
        out.append(Word(x, y, x + w, y + h, text, conf, (block, par, ln)))
    return out
