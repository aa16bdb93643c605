"""Read a Word document (`.docx`, python-docx) into paragraphs and the grids of its tables.

Body paragraphs and tables are read in document order. A paragraph whose style is a heading
("Heading 1", "Title") is the section of what follows it. The k-th table (1-based, document
order) is the grid of sheet `table<k>` (CONTRACTS.md): one cell per `w:tc`, a horizontal merge
(`gridSpan`) a colspan, a vertical merge (`vMerge`) a rowspan, refs A1 as on any sheet.

A password-protected .docx is not a zip at all but an OLE2 container holding an
"EncryptionInfo" stream; `ingest/read.py` tells it apart from a legacy .doc before this runs.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any, BinaryIO

from ingest import cancel
from ingest.errors import DecompressedTooLarge, NotADocument, TooManyCells
from ingest.grid import Cell, Grid, Progress
from ingest.limits import Limits
from ingest.text_chunks import Document, ParagraphList

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def read_docx(stream: BinaryIO, *, name: str, limits: Limits, progress: Progress) -> Document:
    """Read a .docx's paragraphs and tables. Raises `NotADocument` for a file that is not a
    Word document (another zip, or no zip), `DecompressedTooLarge` past
    `limits.max_unzipped_bytes` and `TooManyCells` past `limits.max_cells`."""
    import docx  # python-docx: imported on first use, it loads lxml's element classes

    progress(0.0, "opening the Word document")
    data = stream.read()
    _check_package(data, name, limits)
    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises bare KeyError/ValueError on foreign zips
        raise NotADocument(name, f"it could not be read as a Word document ({exc}).",
                           "Open it in Word or LibreOffice and save it again as .docx.") from exc
    progress(0.2, "reading the Word document")
    paragraphs = ParagraphList()
    grids: list[Grid] = []
    cell_count = 0
    number = 0
    for el in document.element.body.iterchildren():
        cancel.check()
        if el.tag == f"{_W}p":
            paragraphs.add(_text(el), heading=_is_heading(el, document))
        elif el.tag == f"{_W}tbl":
            number += 1
            cells, n_rows, n_cols = _table_cells(el)
            cell_count += len(cells)
            if cell_count > limits.max_cells:
                raise TooManyCells(name, f"its tables hold more than {limits.max_cells:,} "
                                   "cells.", "Split the document, or raise TABLELENS_MAX_CELLS.")
            if cells:
                grids.append(Grid(name, f"table{number}", len(grids), n_rows, n_cols, "docx",
                                  cells))
    return Document(grids, paragraphs.items)


def _check_package(data: bytes, name: str, limits: Limits) -> None:
    """Refuse a file that is not a Word package before python-docx opens it."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise NotADocument(name, "it is not a Word document (a .docx is a zip package, and "
                           "this file is not one).",
                           "Open it in Word or LibreOffice and save it as .docx.") from exc
    with archive:
        names = set(archive.namelist())
        declared = sum(info.file_size for info in archive.infolist())
    if "word/document.xml" not in names:
        what = _what_zip(names)
        raise NotADocument(name, f"it is a zip file but not a Word document ({what}).",
                           "Upload the Word document itself, or give the file its own ending "
                           "(.xlsx for a workbook).")
    if declared > limits.max_unzipped_bytes:
        raise DecompressedTooLarge(name, f"it expands to {declared:,} bytes; the limit is "
                                   f"{limits.max_unzipped_bytes:,}.",
                                   "Split it, or raise TABLELENS_MAX_UNZIPPED_BYTES.")


def _what_zip(names: set[str]) -> str:
    if "xl/workbook.xml" in names:
        return "it is an Excel workbook: name it .xlsx"
    if "ppt/presentation.xml" in names:
        return "it is a PowerPoint presentation"
    if "content.xml" in names and "mimetype" in names:
        return "it is an OpenDocument file"
    shown = ", ".join(sorted(names)[:3]) or "nothing"
    return f"it holds {shown}"


def _text(el: Any) -> str:
    """A paragraph's text: its runs' text, tabs and breaks as spaces."""
    parts = []
    for node in el.iter(f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr"):
        parts.append(node.text or "" if node.tag == f"{_W}t" else " ")
    return "".join(parts)


def _is_heading(el: Any, document: Any) -> bool:
    style = el.find(f"{_W}pPr/{_W}pStyle")
    if style is None:
        return False
    style_id = style.get(f"{_W}val") or ""
    try:
        shown = document.styles.get_by_id(style_id, 1).name or style_id  # 1: paragraph styles
    except Exception:  # noqa: BLE001 - an unknown style id is just not a heading
        shown = style_id
    return shown.lower().startswith(("heading", "title")) or style_id.lower().startswith(
        ("heading", "title"))


def _table_cells(tbl: Any) -> tuple[dict[tuple[int, int], Cell], int, int]:
    """The anchor cells of a table, with its merges, and its size."""
    cells: dict[tuple[int, int], Cell] = {}
    column_anchor: dict[int, tuple[int, int]] = {}  # column -> anchor of an open vertical merge
    n_rows = n_cols = 0
    for r, tr in enumerate(tbl.iterchildren(f"{_W}tr"), start=1):
        n_rows = r
        c = 1
        for tc in tr.iterchildren(f"{_W}tc"):
            props = tc.find(f"{_W}tcPr")
            span, vmerge = 1, None
            if props is not None:
                grid_span = props.find(f"{_W}gridSpan")
                if grid_span is not None:
                    span = max(1, int(grid_span.get(f"{_W}val") or 1))
                merge = props.find(f"{_W}vMerge")
                if merge is not None:
                    vmerge = merge.get(f"{_W}val") or "continue"
            if vmerge == "continue" and c in column_anchor:
                anchor = cells[column_anchor[c]]
                anchor.rowspan = r - anchor.row + 1
            else:
                text = "\n".join(t for t in (_text(p).strip() for p in
                                             tc.iterchildren(f"{_W}p")) if t)
                if text or span > 1:
                    cells[(r, c)] = Cell(r, c, text or None, text, colspan=span)
                if vmerge == "restart" and (r, c) in cells:
                    column_anchor[c] = (r, c)
                else:
                    column_anchor.pop(c, None)
            c += span
        n_cols = max(n_cols, c - 1)
    return cells, n_rows, n_cols
