"""Pick the reader for a file by its name and first bytes, and read it into grids."""

from __future__ import annotations

from pathlib import Path

from ingest import csv_reader, html_reader, image_reader, markdown_reader, xlsx_reader
from ingest.errors import EmptyFile, FileTooLarge, LegacyFormat, UnsupportedFormat
from ingest.gcpause import gc_paused
from ingest.grid import Grid, Progress, no_progress
from ingest.limits import DEFAULT_LIMITS, Limits, check_grids
from ingest.source import Source, byte_size, open_binary, source_name

SUPPORTED = (".xlsx", ".xlsm", ".csv", ".tsv", ".html", ".htm", ".md", ".markdown",
             *image_reader.IMAGE_EXTENSIONS)
"""File endings with a reader, for upload widgets and help texts."""

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # legacy .xls / .doc container


def read_file(src: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
              progress: Progress = no_progress) -> list[Grid]:
    """Read a file into its grids: one per sheet, per HTML/Markdown table, one for a CSV, one
    per table found in an image.

    Raises an `IngestError` subclass whose message names the file and says what to do.
    """
    name = source_name(src, name)
    ext = Path(name).suffix.lower()
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
        with gc_paused():
            grids = reader(stream, name=name, limits=limits, progress=progress)
    finally:
        if stream is not src:
            stream.close()
    if not grids:
        raise EmptyFile(name, "no table was found in the file.",
                        "Check that it holds a table with at least one filled cell.")
    check_grids(name, grids, limits)
    progress(1.0, "read")
    return grids


def _refuse_foreign(name: str, ext: str, head: bytes) -> None:
    """Raise a clear message for formats without a reader (checked by name, then by bytes)."""
    if ext == ".xls" or (head.startswith(_OLE2) and ext not in (".xlsx", ".xlsm")):
        raise LegacyFormat(name, "this is a legacy Excel 97-2003 (.xls) workbook, which "
                           "Tablelens does not read.",
                           "Open it in Excel or LibreOffice and save it as .xlsx.")
    if ext in (".ods", ".fods"):
        raise LegacyFormat(name, "OpenDocument spreadsheets are not read.",
                           "Open it in LibreOffice and save it as .xlsx (File > Save As).")
    if ext in (".xlsb", ".numbers"):
        raise LegacyFormat(name, f"{ext} workbooks are not read.", "Save it as .xlsx.")
    if ext not in _READERS:
        shown = ext or "(no file ending)"
        raise UnsupportedFormat(name, f"files of type {shown} are not supported.",
                                "Upload one of: " + ", ".join(SUPPORTED) + ".")


_READERS = {
    ".xlsx": xlsx_reader.read_xlsx,
    ".xlsm": xlsx_reader.read_xlsx,
    ".csv": csv_reader.read_csv,
    ".tsv": csv_reader.read_csv,
    ".html": html_reader.read_html,
    ".htm": html_reader.read_html,
    ".md": markdown_reader.read_markdown,
    ".markdown": markdown_reader.read_markdown,
    **{ext: image_reader.read_image for ext in image_reader.IMAGE_EXTENSIONS},
}
