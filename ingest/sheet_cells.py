"""Stream the cells of one worksheet part (`xl/worksheets/sheetN.xml`) as (row, column, value,
style id), with the sheet's hidden rows and the formulas whose result the file does not store.

openpyxl's parser builds an ElementTree element for every `<c>`, `<v>` and `<row>` and walks
them in Python: 2.7 s of CPU for the 2M elements of a 1M-cell sheet before a single value is
read, most of an .xlsx read. Nearly every cell of a real sheet has one of a few plain forms
(`<c r="B7" s="3" t="s"><v>12</v></c>`, with an optional formula before the value), so one
compiled regex finds those in the XML bytes (0.26 s for the same sheet) and their values are
converted exactly as openpyxl's `WorkSheetParser.parse_cell` does; so is a plain inline string
(`<c r="A3" t="inlineStr"><is><t>Item</t></is></c>`, how openpyxl writes every string: the
label column of a big sheet took 36 us a cell through `parse_cell`). Any other cell (formula
strings, errors, a missing or lower-case reference, attributes in another order, entities,
inline strings of several runs) is handed whole to that very `parse_cell`, so what the fast
path does not know, openpyxl still reads. What lies outside `<sheetData>` (columns, merged
ranges) is parsed by openpyxl as before, from the sheet without its cells.

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
from typing import Any, BinaryIO
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

_CHUNK = 4 << 20
"""Bytes of XML read at a time: the sheet is never held whole (a hostile one may unpack to
the archive's limit, 512 MB by default)."""


class SheetCells:
    """The cells of one worksheet's XML, read from `source` by `rows()` in pieces of whole
    rows; after it, `hidden_rows`, `uncached` (formulas without a stored result) and `outside`
    (openpyxl's parser run on the rest of the sheet: `column_dimensions`, `merged_cells`)
    are filled in. `size` is the XML's unpacked size, for progress."""

    def __init__(self, source: BinaryIO, size: int, shared_strings: list[Any], *, epoch: Any,
                 date_formats: set[int], timedelta_formats: set[int]) -> None:
        source, head = _utf8(source)
        while (b"sheetData" not in head or b">" not in head[head.find(b"sheetData"):]) \
                and (more := source.read(_CHUNK)):
            head += more  # up to <sheetData>'s start tag (or "<x:sheetData", prefixed)
        prefix = _prefix(head)
        self._cell = _cell_pattern(prefix)
        self._row_start = b"<" + prefix + b"row"
        self._data_end = b"</" + prefix + b"sheetData>"
        self._head, self._rest = _split_head(head, prefix)
        self._source, self._size = source, max(size, 1)
        self._strings = shared_strings
        self._epoch = epoch
        self._dates, self._timedeltas = date_formats, timedelta_formats
        # openpyxl's own parser: for the cells the fast path leaves, then for the sheet's other
        # parts, fed with everything but the cells once they are read.
        self.outside = WorkSheetParser(None, shared_strings, data_only=True, epoch=epoch,
                                       date_formats=date_formats,
                                       timedelta_formats=timedelta_formats)
        self._namespaces = b" ".join(re.findall(rb'xmlns(?::\w+)?="[^"]*"',
                                                head[:head.find(b">", head.find(b"<" + prefix +
                                                                               b"worksheet"))]))
        self.hidden_rows: set[int] = set()
        self.uncached: list[tuple[int, int]] = []

    def _pieces(self) -> Iterator[tuple[int, bytes]]:
        """Yield (offset, XML) pieces of the sheet's cell data, each ending before a row's
        start tag or at the data's end (so no cell is cut), and then parse the rest of the
        sheet with `outside`."""
        buffer, offset, tail = self._rest, len(self._head), b""
        if self._rest is not None:  # None: a sheet without <sheetData> or with <sheetData/>
            while True:
                end = buffer.find(self._data_end)
                if end >= 0:
                    yield offset, buffer[:end]
                    tail = buffer[end + len(self._data_end):]
                    break
                more = self._source.read(_CHUNK)
                if not more:
                    raise ValueError("the sheet's cell data has no end")
                buffer += more
                cut = buffer.rfind(self._row_start)
                if cut > 0:
                    yield offset, buffer[:cut]
                    offset += cut
                    buffer = buffer[cut:]
        del buffer
        self.outside.source = io.BytesIO(self._head + tail + self._source.read())
        for _ in self.outside.parse():  # no rows: it reads the columns, merges and the rest
            pass

    def rows(self, progress: Callable[[float], None]) -> Iterator[list[CellTuple]]:
        """Yield each row's cells that hold a value, in the order of the file."""
        strings, epoch = self._strings, self._epoch
        dates, timedeltas = self._dates, self._timedeltas
        columns: dict[bytes, int] = {}
        row_number, rows_seen, column = 0, 0, 0
        row_text, row = b"", 0
        cells: list[CellTuple] = []
        for offset, xml in self._pieces():
            for m in self._cell.finditer(xml):
                letters, number, style, kind, value, inline, row_attrs, other = m.groups()
                if letters is not None:  # a plain cell, the usual case
                    column = columns.get(letters) or columns.setdefault(
                        letters, column_index_from_string(letters.decode()))
                    if value is None and inline is None:
                        continue  # self-closed: a styled empty cell
                    if number != row_text:  # the cells of a row share one int
                        row_text, row = number, int(number)
                    style_id = int(style) if style else 0
                    if inline is not None:
                        value = inline.decode()
                    elif kind is None or kind == b"n":
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
                        progress(min((offset + m.start()) / self._size, 1.0))
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
    """Three forms, tried in order at each '<': a plain cell (groups 1-6: column letters, row,
    style, type n/s/b, value, or else the text of a plain inline string; neither when
    self-closed), a row's start tag (group 7: its attributes) and any other cell, whole
    (group 8)."""
    c, f, v, row, is_, t = (re.escape(prefix + tag)
                            for tag in (b"c", b"f", b"v", b"row", b"is", b"t"))
    return re.compile(
        rb'<' + c + rb' r="([A-Z]{1,3})([0-9]{1,7})"(?: s="([0-9]{1,9})")?'
        rb'(?:(?: t="([nsb])")?'
        rb'(?:/>|>(?:<' + f + rb'\b[^>]*?(?:/>|>[^<]*</' + f + rb'>))?'
        rb'<' + v + rb'>([^<&]+)</' + v + rb'></' + c + rb'>)'
        # An inline string of one plain run (openpyxl and many exporters write every string
        # so): its text as written, without entities or carriage returns, which XML rewrites.
        rb'| t="inlineStr"><' + is_ + rb'><' + t + rb'>([^<&\r]+)</' + t + rb'></' + is_
        + rb'></' + c + rb'>)'
        rb'|<' + row + rb'\b([^>]*)>'
        rb'|(<' + c + rb'\b[^>]*?(?:/>|>.*?</' + c + rb'>))',
        re.DOTALL)


def _split_head(head: bytes, prefix: bytes) -> tuple[bytes, bytes | None]:
    """The XML before the cells (with what follows an empty `<sheetData/>`) and what follows
    `<sheetData>`'s start tag (None when the sheet has no cells)."""
    start = head.find(b"<" + prefix + b"sheetData")
    if start < 0:
        return head, None
    close = head.find(b">", start)
    if head[close - 1:close] == b"/":
        return head[:start] + head[close + 1:], None
    return head[:start], head[close + 1:]


def _prefix(xml: bytes) -> bytes:
    """The namespace prefix the sheet writes its elements with ("x:" in files from some .NET
    libraries, usually none)."""
    m = re.search(rb"<(\w+:)?worksheet\b", xml)
    if m is None:
        raise ValueError("the sheet has no worksheet element")
    return m.group(1) or b""


def _utf8(source: BinaryIO) -> tuple[BinaryIO, bytes]:
    """The rest of the source and its first bytes, in UTF-8 (the patterns read bytes): read
    as it comes when it is UTF-8, as nearly every sheet is, else read whole and transcoded,
    without the declaration that names the other encoding."""
    head = source.read(_CHUNK)
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        encoding = "utf-16"
    else:
        m = re.match(rb'(?:\xef\xbb\xbf)?<\?xml[^>]*encoding=["\']([\w.-]+)["\']', head)
        encoding = m.group(1).decode().lower() if m else "utf-8"
        if codecs.lookup(encoding).name == "utf-8":
            return source, head
    text = (head + source.read()).decode(encoding)
    if text.startswith("<?xml"):
        text = text[text.index("?>") + 2:]
    return io.BytesIO(), text.encode("utf-8")


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
