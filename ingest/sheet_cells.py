"""Stream the cells of one worksheet part (`xl/worksheets/sheetN.xml`) as (row, column, value,
style id), with the sheet's hidden rows and the formulas whose result the file does not store.

openpyxl's parser builds an ElementTree element for every `<c>`, `<v>` and `<row>` and walks
them in Python: 2.7 s of CPU for the 2M elements of a 1M-cell sheet before a single value is
read, most of an .xlsx read. Nearly every cell of a real sheet has one of a few plain forms
(`<c r="B7" s="3" t="s"><v>12</v></c>`, with an optional formula before the value), so one
compiled regex finds those in the XML bytes (0.26 s for the same sheet) and their values are
converted exactly as openpyxl's `WorkSheetParser.parse_cell` does. Any other cell (inline
strings, formula strings, errors, a missing or lower-case reference, attributes in another
order, entities) is handed whole to that very `parse_cell`, so what the fast path does not
know, openpyxl still reads. What lies outside `<sheetData>` (columns, merged ranges) is parsed
by openpyxl as before, from the sheet without its cells.

python-calamine was measured too: 0.50 s to walk the same sheet's values, but it reads no styles
(bold, indents, number formats), so a second pass over the XML would still be needed for
every styled cell, and its values differ from openpyxl's (whole numbers as floats, times as
dates), which would change display texts and stored types.
"""

from __future__ import annotations

import codecs
import io
import re
from collections.abc import Callable, Iterator
from typing import Any
from xml.etree.ElementTree import fromstring

from openpyxl.utils.cell import column_index_from_string
from openpyxl.utils.datetime import from_excel
from openpyxl.worksheet._reader import FORMULA_TAG, WorkSheetParser

from ingest import cancel

CellTuple = tuple[int, int, Any, int]
"""(row, column, value, style id): a cell as the sheet stores it."""

_CHECK_EVERY = 255
"""Rows between two Stop checks and progress reports, less one (a mask)."""

_TRUE = (b"1", b"true")


class SheetCells:
    """The cells of one worksheet's XML, read by `rows()`; after it, `hidden_rows`,
    `uncached` (formulas without a stored result) and `outside` (openpyxl's parser run on the
    rest of the sheet: `column_dimensions`, `merged_cells`) are filled in."""

    def __init__(self, xml: bytes, shared_strings: list[Any], *, epoch: Any,
                 date_formats: set[int], timedelta_formats: set[int]) -> None:
        xml = _utf8(xml)
        prefix = _prefix(xml)
        self._cell = _cell_pattern(prefix)
        start, end, data_end = _sheet_data(xml, prefix)
        self._xml, self._start, self._end = xml, start, end
        self._strings = shared_strings
        self._epoch = epoch
        self._dates, self._timedeltas = date_formats, timedelta_formats
        # openpyxl's own parser: for the cells the fast path leaves, and for the sheet's other
        # parts, fed with everything but the cells.
        self.outside = WorkSheetParser(io.BytesIO(xml[:start] + xml[data_end:]), shared_strings,
                                       data_only=True, epoch=epoch, date_formats=date_formats,
                                       timedelta_formats=timedelta_formats)
        for _ in self.outside.parse():  # no rows: it reads the columns, merges and the rest
            pass
        self._namespaces = b" ".join(re.findall(rb'xmlns(?::\w+)?="[^"]*"',
                                                xml[:xml.find(b">", xml.find(b"<" + prefix +
                                                                             b"worksheet"))]))
        self.hidden_rows: set[int] = set()
        self.uncached: list[tuple[int, int]] = []

    def rows(self, progress: Callable[[float], None]) -> Iterator[list[CellTuple]]:
        """Yield each row's cells that hold a value, in the order of the file."""
        xml, strings, epoch = self._xml, self._strings, self._epoch
        dates, timedeltas = self._dates, self._timedeltas
        columns: dict[bytes, int] = {}
        span = max(self._end - self._start, 1)
        row_number, rows_seen, column = 0, 0, 0
        row_text, row = b"", 0
        cells: list[CellTuple] = []
        for m in self._cell.finditer(xml, self._start, self._end):
            letters, number, style, kind, value, row_attrs, other = m.groups()
            if letters is not None:  # a plain cell, the usual case
                column = columns.get(letters) or columns.setdefault(
                    letters, column_index_from_string(letters.decode()))
                if value is None:
                    continue  # self-closed: a styled empty cell
                if number != row_text:  # the cells of a row share one int
                    row_text, row = number, int(number)
                style_id = int(style) if style else 0
                if kind is None or kind == b"n":
                    value = float(value) if b"." in value or b"E" in value or b"e" in value \
                        else int(value)
                    if style_id in dates:
                        value = _date(value, epoch, style_id in timedeltas)
                elif kind == b"s":
                    value = strings[int(value)]
                else:
                    value = bool(int(value))
                cells.append((row, column, value, style_id))
            elif row_attrs is not None:
                if cells:
                    yield cells
                    cells = []
                row_number = _row_number(row_attrs, row_number)
                column = 0
                if b"hidden" in row_attrs and _attr(row_attrs, b"hidden") in _TRUE:
                    self.hidden_rows.add(row_number)
                if not rows_seen & _CHECK_EVERY:
                    cancel.check()
                    progress((m.start() - self._start) / span)
                rows_seen += 1
            else:
                cell = self._parse_other(other, row_number, column)
                column = cell[1]
                if cell[2] is not None:
                    cells.append(cell)
        if cells:
            yield cells

    def _parse_other(self, xml: bytes, row: int, column: int) -> CellTuple:
        """A cell in any other form, through openpyxl's own `parse_cell` (which numbers a cell
        without a reference after the one before it, as Excel does)."""
        element = fromstring(b"<w " + self._namespaces + b">" + xml + b"</w>")[0]
        parser = self.outside
        parser.row_counter, parser.col_counter = row, column
        cell = parser.parse_cell(element)
        if cell["value"] is None and element.find(FORMULA_TAG) is not None:
            self.uncached.append((cell["row"], cell["column"]))
        return cell["row"], cell["column"], cell["value"], cell["style_id"]


def _date(value: float, epoch: Any, timedelta: bool) -> Any:
    """A serial number under a date format, as openpyxl's `parse_cell` turns it."""
    try:
        return from_excel(value, epoch, timedelta=timedelta)
    except (OverflowError, ValueError):
        return "#VALUE!"  # openpyxl's value for a date outside the calendar


def _cell_pattern(prefix: bytes) -> re.Pattern[bytes]:
    """Three forms, tried in order at each '<': a plain cell (groups 1-5: column letters, row,
    style, type n/s/b, value; no value when self-closed), a row's start tag (group 6: its
    attributes) and any other cell, whole (group 7)."""
    c, f, v, row = (re.escape(prefix + tag) for tag in (b"c", b"f", b"v", b"row"))
    return re.compile(
        rb'<' + c + rb' r="([A-Z]{1,3})([0-9]{1,7})"(?: s="([0-9]{1,9})")?(?: t="([nsb])")?'
        rb'(?:/>|>(?:<' + f + rb'\b[^>]*?(?:/>|>[^<]*</' + f + rb'>))?'
        rb'<' + v + rb'>([^<&]+)</' + v + rb'></' + c + rb'>)'
        rb'|<' + row + rb'\b([^>]*)>'
        rb'|(<' + c + rb'\b[^>]*?(?:/>|>.*?</' + c + rb'>))',
        re.DOTALL)


def _sheet_data(xml: bytes, prefix: bytes) -> tuple[int, int, int]:
    """Where `<sheetData>` starts, where its cells end and where the element ends."""
    tag = b"<" + prefix + b"sheetData"
    start = xml.find(tag)
    if start < 0:
        return len(xml), len(xml), len(xml)
    close = xml.find(b">", start)
    if xml[close - 1:close] == b"/":  # <sheetData/>: no cells
        return start, close + 1, close + 1
    end = xml.find(b"</" + prefix + b"sheetData>", close)
    if end < 0:
        raise ValueError("the sheet's cell data has no end")
    return start, end, end + len(prefix) + len(b"</sheetData>")


def _prefix(xml: bytes) -> bytes:
    """The namespace prefix the sheet writes its elements with ("x:" in files from some .NET
    libraries, usually none)."""
    m = re.search(rb"<(\w+:)?worksheet\b", xml)
    if m is None:
        raise ValueError("the sheet has no worksheet element")
    return m.group(1) or b""


def _utf8(xml: bytes) -> bytes:
    """The XML in UTF-8 (the patterns read bytes), without a declaration naming another
    encoding once transcoded."""
    if xml.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        m = re.match(rb'(?:\xef\xbb\xbf)?<\?xml[^>]*encoding=["\']([\w.-]+)["\']', xml)
        encoding = m.group(1).decode().lower() if m else "utf-8"
        if codecs.lookup(encoding).name == "utf-8":
            return xml
    text = xml.decode(encoding)
    if text.startswith("<?xml"):
        text = text[text.index("?>") + 2:]
    return text.encode("utf-8")


def _row_number(attrs: bytes, previous: int) -> int:
    """A row's number: its `r`, else the one after the row before (openpyxl's rule)."""
    r = _attr(attrs, b"r")
    if r is None:
        return previous + 1
    try:
        return int(r)
    except ValueError:
        number = float(r)
        if not number.is_integer():
            raise ValueError(f"{r!r} is not a valid row number") from None
        return int(number)


def _attr(attrs: bytes, name: bytes) -> bytes | None:
    m = re.search(rb'(?:^|\s)' + name + rb'\s*=\s*["\']([^"\']*)["\']', attrs)
    return m.group(1) if m else None
