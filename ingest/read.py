"""Pick the reader for a file by its name and first bytes, and read it into grids (and, for
documents, paragraphs of text: `read_document`)."""

from __future__ import annotations

import importlib
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from ingest.errors import (
    EmptyFile,
    FileTooLarge,
    LegacyFormat,
    PasswordProtected,
    UnsupportedFormat,
)
from ingest.gcpause import gc_paused
from ingest.grid import Grid, Progress, no_progress
from ingest.limits import DEFAULT_LIMITS, Limits, check_grids
from ingest.renamed_text import refuse_renamed_text
from ingest.source import Source, byte_size, open_binary, source_name
from ingest.text_chunks import Document

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp", ".tif", ".tiff", ".bmp")
"""Pictures, read by OCR (`ingest/image_reader.py`)."""

SUPPORTED = (".xlsx", ".xlsm", ".xls", ".ods", ".csv", ".tsv", ".html", ".htm", ".md",
             ".markdown", ".txt", ".docx", ".pdf", *IMAGE_EXTENSIONS)
"""File endings with a reader, for upload widgets and help texts."""

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy .xls / .doc container
_ZIP = b"PK\x03\x04"
_ENCRYPTED_OOXML = "EncryptionInfo".encode("utf-16-le")
"""The stream an OLE2 container of a password-protected .docx/.xlsx holds."""


def read_file(src: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
              progress: Progress = no_progress) -> list[Grid]:
    """Read a file into its grids: one per sheet, per HTML/Markdown table, one for a CSV, one
    per table found in an image.

    Raises an `IngestError` subclass whose message names the file and says what to do.
    """
    name = source_name(src, name)
    ext = Path(name).suffix.lower()
    if ext in _DOCUMENTS and ext not in _READERS:  # .txt, .docx, .pdf: their tables only
        grids = read_document(src, name, limits=limits, progress=progress).grids
        if not grids:
            raise EmptyFile(name, "no table was found in the file.",
                            "Check that it holds a table with at least one filled cell.")
        return grids
    stream = open_binary(src)
    try:
        size = byte_size(stream)
        if size == 0:
            raise EmptyFile(name, "the file is empty.", "Upload a file that has a table in it.")
        head = stream.read(8)
        stream.seek(0)
        _refuse_foreign(name, ext, head)
        if ext in (".csv", ".tsv"):
            if size > limits.max_csv_bytes:
                raise FileTooLarge(name, f"the file has {size:,} bytes; the limit is "
                                   f"{limits.max_csv_bytes:,}.",
                                   "Split it, or raise TABLELENS_MAX_CSV_BYTES.")
        elif size > limits.max_file_bytes:
            raise FileTooLarge(name, f"the file has {size:,} bytes; the limit is "
                               f"{limits.max_file_bytes:,}.",
                               "Split it, or raise TABLELENS_MAX_FILE_BYTES.")
        reader = _READERS[ext]
        warning = None
        if ext == ".xls" and not head.startswith((_OLE2, _ZIP)):
            from ingest import disguised_xls  # with calamine and lxml: for these files only

            kind = disguised_xls.disguised_kind(stream, name)
            reader, warning = _DISGUISED_XLS[kind], disguised_xls.WARNINGS[kind]
        elif ext in _SPREADSHEET_ZIPS and head.startswith(_ZIP):
            # A workbook saved under another workbook's name (some publishers' .xls downloads
            # are .xlsx): read by what it holds, so an .xlsx keeps the styles calamine would
            # not read and an .ods is not called damaged.
            kind = _zip_kind(name, ext, stream) or (".xlsx" if ext == ".xls" else ext)
            reader = _SPREADSHEET_ZIPS[kind]
        elif ext in _SPREADSHEET_ZIPS and not head.startswith(_OLE2):
            # No zip, so no workbook: a CSV or a web page renamed is told so, with its name.
            refuse_renamed_text(stream, name, ext)
        with gc_paused():
            grids = reader(stream, name=name, limits=limits, progress=progress)
        for grid in grids if warning else ():
            grid.warnings.append(warning)
    finally:
        if stream is not src:
            stream.close()
    if not grids:
        raise EmptyFile(name, "no table was found in the file.",
                        "Check that it holds a table with at least one filled cell.")
    check_grids(name, grids, limits)
    progress(1.0, "read")
    return grids


def read_document(src: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
                  progress: Progress = no_progress) -> Document:
    """Read a file into its tables' grids and its text's paragraphs: a spreadsheet or CSV
    has grids only, a .txt paragraphs only, Markdown, HTML, .docx and .pdf both.

    Raises an `IngestError` subclass whose message names the file and says what to do; a
    file with neither a table nor any text is `EmptyFile`.
    """
    name = source_name(src, name)
    ext = Path(name).suffix.lower()
    if ext not in _DOCUMENTS:
        return Document(read_file(src, name, limits=limits, progress=progress))
    stream = open_binary(src)
    try:
        size = byte_size(stream)
        if size == 0:
            raise EmptyFile(name, "the file is empty.", "Upload a file with text or a table.")
        head = stream.read(8)
        stream.seek(0)
        _refuse_foreign(name, ext, head, stream)
        if size > limits.max_text_bytes:
            raise FileTooLarge(name, f"the file has {size:,} bytes; the limit for documents "
                               f"is {limits.max_text_bytes:,}.",
                               "Split it into smaller files, or raise TABLELENS_MAX_TEXT_BYTES.")
        with gc_paused():
            document = _DOCUMENTS[ext](stream, name=name, limits=limits, progress=progress)
    finally:
        if stream is not src:
            stream.close()
    if not document.grids and not document.paragraphs:
        raise EmptyFile(name, "no table and no text was found in the file.",
                        "Check that it holds text or a table (a scanned page is an image: "
                        "upload it as .png for OCR).")
    check_grids(name, document.grids, limits)
    progress(1.0, "read")
    return document


def _zip_kind(name: str, ext: str, stream) -> str | None:  # noqa: ANN001
    """What an Office zip holds, by its parts (".xlsx", ".ods"; None when unsure), read from
    the archive's directory alone. A Word document under a spreadsheet's name is refused here
    with its real kind, where the spreadsheet reader would call it damaged."""
    try:
        with zipfile.ZipFile(stream) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        return None  # the reader says how it is damaged
    finally:
        stream.seek(0)
    if "xl/workbook.xml" in names or "xl/workbook.bin" in names:
        return ".xlsx"
    if "content.xml" in names and "word/document.xml" not in names:
        return ".ods"
    if "word/document.xml" in names:
        raise UnsupportedFormat(name, f"this is a Word document (.docx) saved under a {ext} "
                                "name.", "Rename it to end in .docx and upload it again.")
    return None


def _refuse_foreign(name: str, ext: str, head: bytes, stream=None) -> None:  # noqa: ANN001
    """Raise a clear message for formats without a reader (checked by name, then by bytes)."""
    if ext in (".docx", ".doc") and head.startswith(_OLE2):
        data = stream.read() if stream is not None else b""
        if stream is not None:
            stream.seek(0)
        if _ENCRYPTED_OOXML in data:
            raise PasswordProtected(name, "the Word document is password-protected.",
                                    "Open it in Word with its password, remove the password "
                                    "(File > Info > Protect Document), save, and upload it "
                                    "again.")
        raise LegacyFormat(name, "this is a legacy Word 97-2003 (.doc) document, which "
                           "Tablelens does not read.",
                           "Open it in Word or LibreOffice and save it as .docx.")
    if ext == ".doc":
        raise LegacyFormat(name, "legacy Word (.doc) documents are not read.",
                           "Open it in Word or LibreOffice and save it as .docx.")
    if head.startswith(_OLE2) and ext not in (".xlsx", ".xlsm", ".xls"):
        raise LegacyFormat(name, "its bytes are an Office 97-2003 file, not "
                           f"{ext or 'what its name says'}.",
                           "If it is an Excel workbook, rename it to end in .xls and upload it "
                           "again.")
    if ext == ".fods":
        raise LegacyFormat(name, "flat OpenDocument (.fods) spreadsheets are not read.",
                           "Open it in LibreOffice and save it as .ods or .xlsx "
                           "(File > Save As).")
    if ext in (".xlsb", ".numbers"):
        raise LegacyFormat(name, f"{ext} workbooks are not read.", "Save it as .xlsx.")
    if ext not in _READERS and ext not in _DOCUMENTS:
        shown = ext or "(no file ending)"
        raise UnsupportedFormat(name, f"files of type {shown} are not supported.",
                                "Upload one of: " + ", ".join(SUPPORTED) + ".")


def _lazy(module: str, function: str) -> Callable[..., Any]:
    """`ingest.<module>.<function>`, its module imported on the first call: a process imports
    the readers of the files it reads only. The others (python-calamine for .xls/.ods, the
    HTML, Markdown, text, .docx and .pdf readers) were 2 MB of an .xlsx upload's peak, and
    OpenCV (for pictures) 15 MB."""

    def read(stream: BinaryIO, **options: Any) -> Any:
        return getattr(importlib.import_module(f"ingest.{module}"), function)(stream, **options)

    read.__name__ = read.__qualname__ = function
    return read


_read_xlsx = _lazy("xlsx_reader", "read_xlsx")
_read_ods = _lazy("calamine_reader", "read_ods")
_read_html = _lazy("html_reader", "read_html")
_read_csv = _lazy("csv_reader", "read_csv")

_READERS = {
    ".xlsx": _read_xlsx,
    ".xlsm": _read_xlsx,
    ".xls": _lazy("calamine_reader", "read_xls"),
    ".ods": _read_ods,
    ".csv": _read_csv,
    ".tsv": _read_csv,
    ".html": _read_html,
    ".htm": _read_html,
    ".md": _lazy("markdown_reader", "read_markdown"),
    ".markdown": _lazy("markdown_reader", "read_markdown"),
    **dict.fromkeys(IMAGE_EXTENSIONS, _lazy("image_reader", "read_image")),
}

_SPREADSHEET_ZIPS = {".xlsx": _read_xlsx, ".xlsm": _read_xlsx, ".xls": _read_xlsx,
                     ".ods": _read_ods}
"""The workbook endings whose bytes may be another workbook's zip, and the reader for each
kind of zip found (`_zip_kind`)."""

_DISGUISED_XLS = {"html": _read_html, "text": _read_csv}
"""The reader of an .xls that is a web page or separated text (`disguised_xls`)."""

_DOCUMENTS = {
    ".txt": _lazy("text_reader", "read_text"),
    ".md": _lazy("markdown_text", "read_markdown_document"),
    ".markdown": _lazy("markdown_text", "read_markdown_document"),
    ".html": _lazy("html_text", "read_html_document"),
    ".htm": _lazy("html_text", "read_html_document"),
    ".docx": _lazy("docx_reader", "read_docx"),
    ".pdf": _lazy("pdf_reader", "read_pdf"),
}
"""Readers of documents (text beside tables): each returns a `Document`."""
