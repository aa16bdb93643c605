"""Read a PDF (pdfplumber) into paragraphs by page and the grids of the tables it finds.

pdfplumber over pypdf, measured on three real files (a Chromium-printed report page with a
table, two manuals of 17 and 36 pages): pypdf reads text about 5x faster (0.8 s against 5.0 s
for 36 pages) but finds no tables and leaves ligatures ("ﬀ") in the text; pdfplumber finds the
ruled table as rows of cells and lets the text inside a table's box be left out of the prose,
so a figure is read once, as a cell. Both are MIT/BSD; no AGPL library (PyMuPDF) is used.

Page p's k-th table (1-based, top to bottom) is the grid of sheet `page<p>-table<k>`
(CONTRACTS.md); its refs are A1. The text outside tables is cut into paragraphs at vertical
gaps wider than a line; a short line alone in a larger font than the page's body is a heading.
A PDF with pages but no text at all is a scan: `NoTextLayer` points to the screenshot (OCR)
path. An encrypted PDF that opens only with a password is `PasswordProtected`.
"""

from __future__ import annotations

import io
import statistics
from typing import Any, BinaryIO

from ingest import cancel
from ingest.errors import NotADocument, NoTextLayer, PasswordProtected, TooManyCells
from ingest.grid import Cell, Grid, Progress
from ingest.limits import Limits
from ingest.text_chunks import Document, ParagraphList
from ingest.text_reader import is_heading

GAP_LINES = 0.9
"""A vertical gap above a line of more than this many line heights starts a paragraph."""
HEADING_SIZE = 1.15
"""A line in a font this much larger than the page's usual one may be a heading."""


def read_pdf(stream: BinaryIO, *, name: str, limits: Limits, progress: Progress) -> Document:
    """Read a PDF's text by page and its tables (see the module's docstring)."""
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfparser import PDFSyntaxError

    progress(0.0, "opening the PDF")
    data = stream.read()
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise NotADocument(name, "it is not a PDF (it does not start with %PDF).",
                           "Check the file, or give it the ending of what it is.")
    try:
        pdf = pdfplumber.open(io.BytesIO(data))
        pages = pdf.pages
    except (PDFPasswordIncorrect, PDFEncryptionError) as exc:
        raise _locked(name) from exc
    except PDFSyntaxError as exc:
        raise NotADocument(name, f"the PDF is damaged ({exc}).",
                           "Open it in a PDF viewer and save or print it to a new PDF.") from exc
    except Exception as exc:
        # pdfplumber wraps pdfminer's errors: the cause is its first argument.
        cause = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
        if isinstance(cause, (PDFPasswordIncorrect, PDFEncryptionError)):
            raise _locked(name) from exc
        raise NotADocument(name, f"the PDF could not be read ({exc}).",
                           "Open it in a PDF viewer and save or print it to a new PDF.") from exc
    paragraphs = ParagraphList()
    grids: list[Grid] = []
    cell_count = 0
    any_text = False
    with pdf:
        for p, page in enumerate(pages, start=1):
            cancel.check()
            progress(0.1 + 0.9 * (p - 1) / max(1, len(pages)), f"reading page {p}")
            try:
                tables = page.find_tables()
            except Exception:  # noqa: BLE001 - a page whose drawing confuses the table finder
                tables = []
            boxes = [t.bbox for t in tables]
            for k, table in enumerate(tables, start=1):
                cells = _cells(table.extract())
                cell_count += len(cells)
                if cell_count > limits.max_cells:
                    raise TooManyCells(name, f"its tables hold more than {limits.max_cells:,} "
                                       "cells.", "Split the PDF, or raise TABLELENS_MAX_CELLS.")
                if cells:
                    n_rows = max(r for r, _ in cells)
                    n_cols = max(c for _, c in cells)
                    grids.append(Grid(name, f"page{p}-table{k}", len(grids), n_rows, n_cols,
                                      "pdf", cells))
            if page.chars:
                any_text = True
            outside = page.filter(lambda obj, boxes=boxes: not _inside(obj, boxes)) \
                if boxes else page
            _page_paragraphs(outside, p, paragraphs)
            page.flush_cache()  # pdfplumber keeps every page's objects otherwise
        if not any_text and pages:
            raise NoTextLayer(name, "the PDF has no text layer: its pages are images (a scan).",
                              "Take a screenshot of the table and upload the image (.png), "
                              "which Tablelens reads with OCR, or run the PDF through OCR "
                              "first (e.g. ocrmypdf).")
    return Document(grids, paragraphs.items)


def _locked(name: str) -> PasswordProtected:
    return PasswordProtected(name, "the PDF is password-protected.",
                             "Open it with its password and save or print a copy without "
                             "one, then upload that.")


def _inside(obj: dict[str, Any], boxes: list[tuple[float, float, float, float]]) -> bool:
    x = (obj.get("x0", 0) + obj.get("x1", 0)) / 2
    y = (obj.get("top", 0) + obj.get("bottom", 0)) / 2
    return any(x0 <= x <= x1 and top <= y <= bottom for x0, top, x1, bottom in boxes)


def _cells(rows: list[list[str | None]]) -> dict[tuple[int, int], Cell]:
    """A table's cells: pdfplumber gives None for the slots a merged cell covers, which
    become the colspan of the cell to their left."""
    cells: dict[tuple[int, int], Cell] = {}
    for r, row in enumerate(rows, start=1):
        last: Cell | None = None
        for c, value in enumerate(row, start=1):
            if value is None:
                if last is not None and last.col + last.colspan == c:
                    last.colspan += 1
                continue
            text = " ".join(value.split())
            last = Cell(r, c, text, text) if text else None
            if last is not None:
                cells[(r, c)] = last
    return cells


def _page_paragraphs(page: Any, number: int, out: ParagraphList) -> None:
    """Group a page's text lines into paragraphs at wide vertical gaps."""
    lines = page.extract_text_lines(return_chars=True, strip=True)
    if not lines:
        return
    sizes = [ch.get("size", 0) for line in lines for ch in line["chars"]]
    body = statistics.median(sizes) if sizes else 0
    block: list[str] = []
    prev_bottom = None
    prev_height = None

    def flush(heading: bool = False) -> None:
        if block:
            out.add(" ".join(block), page=number, heading=heading)
            block.clear()

    for line in lines:
        text = line["text"]
        height = max(1.0, line["bottom"] - line["top"])
        size = max((ch.get("size", 0) for ch in line["chars"]), default=0)
        if body and size >= body * HEADING_SIZE and is_heading(text):
            flush()
            block.append(text)
            flush(heading=True)
            prev_bottom, prev_height = line["bottom"], height
            continue
        if prev_bottom is not None and line["top"] - prev_bottom > GAP_LINES * (prev_height
                                                                               or height):
            flush()
        block.append(text)
        prev_bottom, prev_height = line["bottom"], height
    flush()
