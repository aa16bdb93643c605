"""What an `.xls` holds when it is not an Excel 97-2003 workbook.

Many "Export to Excel" buttons of web applications (banks, HR and accounting systems, report
servers) save a web page of `<table>`s, or tab- or comma-separated text, under an `.xls` name:
Excel opens them with a warning, so people keep them. They are read here by what they hold. An
Excel 2003 XML spreadsheet, or bytes that are neither text nor a workbook, get a message that
says what the file is, not the OLE library's error.
"""

from __future__ import annotations

import codecs
from typing import BinaryIO, Literal

from ingest.errors import CorruptFile, LegacyFormat

_SAMPLE_BYTES = 64 * 1024
_XLS_AGAIN = "Open it in Excel or LibreOffice, save it as .xlsx, and upload that copy."
_XML_SPREADSHEET = "urn:schemas-microsoft-com:office:spreadsheet"
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)

Kind = Literal["html", "text"]

WARNINGS: dict[Kind, str] = {
    "html": "this .xls file is a web page (HTML), as many \"Export to Excel\" buttons save "
            "one; it was read as a web page",
    "text": "this .xls file is plain text with separated columns, as many \"Export to Excel\" "
            "buttons save one; it was read as CSV",
}
"""The warning each grid of such a file carries, so the user knows how it was read."""


def disguised_kind(stream: BinaryIO, name: str) -> Kind:
    """What a file named `.xls` whose bytes are no Office container holds: "html" or "text".

    Raises `LegacyFormat` for an Excel 2003 XML spreadsheet and `CorruptFile` for binary bytes
    of any other kind. The stream is left at its start.
    """
    sample = stream.read(_SAMPLE_BYTES)
    stream.seek(0)
    text = _as_text(sample)
    if text is None:
        raise CorruptFile(name, "it does not start as an Excel 97-2003 workbook does: it is "
                          "another kind of file under an .xls name, or it is damaged.",
                          _XLS_AGAIN)
    folded = text.casefold()
    if _XML_SPREADSHEET in folded:
        raise LegacyFormat(name, "this is an Excel 2003 XML spreadsheet saved under an .xls "
                           "name, which Tablelens does not read.", _XLS_AGAIN)
    if "<table" in folded or folded.lstrip("\ufeff \t\r\n").startswith(("<html", "<!doctype")):
        return "html"
    return "text"


def _as_text(sample: bytes) -> str | None:
    """The sample as text when it is text (UTF-16 with its byte-order mark, else bytes without
    NULs read as UTF-8 or Latin-1), else None."""
    if sample.startswith(_UTF16_BOMS):
        return sample.decode("utf-16", errors="replace")
    if b"\x00" in sample:
        return None
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    if controls > len(sample) // 100:  # a few stray controls, as text exports may hold
        return None
    return sample.decode("utf-8", errors="replace")
