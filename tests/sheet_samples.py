"""Write the same small workbook as .ods, .xls and .xlsx, for the calamine reader's tests.

A workbook is a list of `Sheet`s: values by 1-based (row, col), merged ranges, hidden rows,
columns and sheets. The .ods is built by hand (a zip of OpenDocument XML), so merges are the
real `table:number-columns-spanned` / `number-rows-spanned` attributes with covered cells after
them, as LibreOffice writes them; the .xls is written by xlwt (genuine BIFF8, with `write_merge`);
the .xlsx by openpyxl, to compare the readers on one table.
"""

from __future__ import annotations

import datetime as dt
import io
import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import openpyxl
import xlwt

Value = str | int | float | bool | dt.date | dt.datetime


@dataclass
class Sheet:
    name: str
    cells: dict[tuple[int, int], Value] = field(default_factory=dict)
    merges: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(first row, first col, last row, last col), 1-based and inclusive."""
    hidden: bool = False
    hidden_rows: set[int] = field(default_factory=set)
    hidden_cols: set[int] = field(default_factory=set)
    shown: dict[tuple[int, int], str] = field(default_factory=dict)
    """.ods only: the text the cell shows when it is not the value's plain form ("12.5%")."""


def report() -> list[Sheet]:
    """A P&L with a merged two-row header (years over quarters), a merged row label, a hidden
    sheet and an empty one."""
    cells: dict[tuple[int, int], Value] = {
        (1, 1): "Line item", (1, 2): "2023", (1, 4): "2024",
        (2, 2): "Q1", (2, 3): "Q2", (2, 4): "Q1", (2, 5): "Q2",
    }
    rows = [("Revenue", 1200, 1250.5, 1300, 1425.25),
            ("Cost of sales", 400, 410, 420, 445),
            ("Operating expense", 230, 240, 255, 262.75)]
    for r, row in enumerate(rows, start=3):
        for c, value in enumerate(row, start=1):
            cells[(r, c)] = value
    cells[(6, 1)] = "Reported"
    cells[(6, 2)] = dt.date(2024, 7, 31)
    cells[(6, 3)] = True
    main = Sheet("P&L", cells, merges=[(1, 1, 2, 1), (1, 2, 1, 3), (1, 4, 1, 5)])
    notes = Sheet("Notes", {(1, 1): "internal"}, hidden=True)
    return [main, notes, Sheet("Empty")]


# --------------------------------------------------------------------------------------------
# .ods

_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
       'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
       'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
       'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
       'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"')
_MANIFEST = ('<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest='
             '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
             '<manifest:file-entry manifest:full-path="/" manifest:media-type='
             '"application/vnd.oasis.opendocument.spreadsheet"/>'
             '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type='
             '"text/xml"/></manifest:manifest>')


def write_ods(path: Path, sheets: list[Sheet]) -> Path:
    """Write `sheets` as an OpenDocument spreadsheet (hidden sheets use a display:false
    table style, as LibreOffice does)."""
    path.write_bytes(ods_package("".join(_ods_table(sheet) for sheet in sheets)))
    return path


def ods_package(tables: str, *, encrypted: bool = False) -> bytes:
    """Zip `<table:table>` XML into an .ods; `encrypted` declares encryption in the manifest
    (and garbles content.xml), as a password-protected file does."""
    content = (f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {_NS} '
               'office:version="1.2"><office:automatic-styles>'
               '<style:style style:name="ta1" style:family="table">'
               '<style:table-properties table:display="true"/></style:style>'
               '<style:style style:name="ta2" style:family="table">'
               '<style:table-properties table:display="false"/></style:style>'
               '</office:automatic-styles><office:body><office:spreadsheet>'
               f'{tables}</office:spreadsheet></office:body></office:document-content>')
    manifest = _MANIFEST
    if encrypted:
        manifest = manifest.replace('media-type="text/xml"/>', 'media-type="text/xml">'
                                    '<manifest:encryption-data manifest:checksum-type="SHA1"/>'
                                    '</manifest:file-entry>')
        content = bytes(b ^ 0x5A for b in content.encode()).decode("latin-1")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        # The mimetype comes first and uncompressed: that is how readers recognise the file.
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet",
                         compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def _ods_table(sheet: Sheet) -> str:
    n_rows = max((r for r, _ in sheet.cells), default=0)
    n_cols = max((c for _, c in sheet.cells), default=0)
    for _, _, r1, c1 in sheet.merges:
        n_rows, n_cols = max(n_rows, r1), max(n_cols, c1)
    spans = {(r0, c0): (r1 - r0 + 1, c1 - c0 + 1) for r0, c0, r1, c1 in sheet.merges}
    covered = {(r, c) for r0, c0, r1, c1 in sheet.merges for r in range(r0, r1 + 1)
               for c in range(c0, c1 + 1) if (r, c) != (r0, c0)}
    style = "ta2" if sheet.hidden else "ta1"
    parts = [f'<table:table table:name={quoteattr(sheet.name)} table:style-name="{style}">']
    for c in range(1, n_cols + 1):
        shown = ' table:visibility="collapse"' if c in sheet.hidden_cols else ""
        parts.append(f"<table:table-column{shown}/>")
    if not n_cols:
        parts.append("<table:table-column/>")
    for r in range(1, n_rows + 1):
        shown = ' table:visibility="collapse"' if r in sheet.hidden_rows else ""
        parts.append(f"<table:table-row{shown}>")
        for c in range(1, n_cols + 1):
            if (r, c) in covered:
                parts.append("<table:covered-table-cell/>")
                continue
            span = ""
            if (r, c) in spans:
                rows, cols = spans[(r, c)]
                span = (f' table:number-rows-spanned="{rows}"'
                        f' table:number-columns-spanned="{cols}"')
            parts.append(_ods_cell(sheet.cells.get((r, c)), span, sheet.shown.get((r, c))))
        parts.append("</table:table-row>")
    if not n_rows:
        parts.append("<table:table-row><table:table-cell/></table:table-row>")
    parts.append("</table:table>")
    return "".join(parts)


def _ods_cell(value: Value | None, span: str, text: str | None = None) -> str:
    if value is None:
        return f"<table:table-cell{span}/>"
    if isinstance(value, bool):
        attrs = f'office:value-type="boolean" office:boolean-value="{str(value).lower()}"'
        shown = "TRUE" if value else "FALSE"
    elif isinstance(value, (int, float)):
        attrs = f'office:value-type="float" office:value="{value}"'
        # As LibreOffice's General shows it: 2.0 as "2", other numbers with their digits.
        shown = str(int(value)) if float(value).is_integer() else repr(value)
    elif isinstance(value, (dt.date, dt.datetime)):
        attrs = f'office:value-type="date" office:date-value="{value.isoformat()}"'
        shown = value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    else:
        attrs = 'office:value-type="string"'
        shown = value
    if text is not None:
        shown = text
    return f"<table:table-cell {attrs}{span}><text:p>{escape(shown)}</text:p></table:table-cell>"


# --------------------------------------------------------------------------------------------
# .xls and .xlsx

_DATE = xlwt.easyxf(num_format_str="YYYY-MM-DD")


def write_xls(path: Path, sheets: list[Sheet]) -> Path:
    """Write `sheets` as a BIFF8 .xls with xlwt (merges with `write_merge`)."""
    wb = xlwt.Workbook()
    for sheet in sheets:
        ws = wb.add_sheet(sheet.name)
        if sheet.hidden:
            ws.visibility = 1
        anchors = {(r0, c0): (r1, c1) for r0, c0, r1, c1 in sheet.merges}
        covered = {(r, c) for r0, c0, r1, c1 in sheet.merges for r in range(r0, r1 + 1)
                   for c in range(c0, c1 + 1)}
        for (r, c), (r1, c1) in anchors.items():
            value = sheet.cells.get((r, c), "")
            ws.write_merge(r - 1, r1 - 1, c - 1, c1 - 1, value, *_xls_style(value))
        for (r, c), value in sheet.cells.items():
            if (r, c) not in covered:
                ws.write(r - 1, c - 1, value, *_xls_style(value))
        for r in sheet.hidden_rows:
            ws.row(r - 1).hidden = True
        for c in sheet.hidden_cols:
            ws.col(c - 1).hidden = True
    wb.save(str(path))
    return path


def _xls_style(value: object) -> tuple[xlwt.XFStyle, ...]:
    return (_DATE,) if isinstance(value, (dt.date, dt.datetime)) else ()


def write_xlsx(path: Path, sheets: list[Sheet]) -> Path:
    """Write `sheets` as an .xlsx with openpyxl (dates get a yyyy-mm-dd format)."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for sheet in sheets:
        ws = wb.create_sheet(sheet.name)
        if sheet.hidden:
            ws.sheet_state = "hidden"
        for (r, c), value in sheet.cells.items():
            cell = ws.cell(r, c, value)
            if isinstance(value, (dt.date, dt.datetime)):
                cell.number_format = "yyyy-mm-dd"
        for r0, c0, r1, c1 in sheet.merges:
            ws.merge_cells(start_row=r0, start_column=c0, end_row=r1, end_column=c1)
        for r in sheet.hidden_rows:
            ws.row_dimensions[r].hidden = True
        for c in sheet.hidden_cols:
            ws.column_dimensions[openpyxl.utils.get_column_letter(c)].hidden = True
    wb.save(path)
    return path


def write_password_xls(path: Path) -> Path:
    """Write an .xls that declares itself encrypted (a FILEPASS record after the workbook's
    BOF, as Excel writes one for a password to open)."""
    bof = xlwt.Workbook._Workbook__bof_rec  # type: ignore[attr-defined]

    def bof_and_filepass(self: xlwt.Workbook) -> bytes:
        # RC4 encryption (type 1, version 1.1): salt, verifier and its hash, all zero here.
        filepass = struct.pack("<HHH", 1, 1, 1) + bytes(48)
        return bof(self) + struct.pack("<HH", 0x2F, len(filepass)) + filepass

    wb = xlwt.Workbook()
    wb.add_sheet("Secret").write(0, 0, "x")
    wb._Workbook__bof_rec = bof_and_filepass.__get__(wb)  # type: ignore[attr-defined]
    wb.save(str(path))
    return path
