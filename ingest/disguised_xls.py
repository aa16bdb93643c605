"""What an `.xls` holds when it is not an Excel 97-2003 workbook.

Many "Export to Excel" buttons of web applications (banks, HR and accounting systems, report
servers) save a web page of `<table>`s, or tab- or comma-separated text, under an `.xls` name:
Excel opens them with a warning, so people keep them. They are read here by what they hold. An
Excel 2003 XML spreadsheet, or bytes that are neither text nor a workbook, get a message that
says what the file is, not the OLE library's error.
"""

from __future__ import annotations

from typing import BinaryIO, Literal

from ingest.calamine_reader import XLS_AGAIN
from ingest.errors import CorruptFile, LegacyFormat
from ingest.text_decode import head_text, looks_like_html

_XML_SPREADSHEET = "urn:schemas-microsoft-com:office:spreadsheet"

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
    text = head_text(stream, name=name)
    if text is None:
        raise CorruptFile(name, "it does not start as an Excel 97-2003 workbook does: it is "
                          "another kind of file under an .xls name, or it is damaged.",
                          XLS_AGAIN)
    if _XML_SPREADSHEET in text.casefold():
        raise LegacyFormat(name, "this is an Excel 2003 XML spreadsheet saved under an .xls "
                           "name, which Tablelens does not read.", XLS_AGAIN)
    return "html" if looks_like_html(text) else "text"

