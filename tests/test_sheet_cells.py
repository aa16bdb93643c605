"""The .xlsx reader's cell finder (ingest/sheet_cells.py) against openpyxl's own reading.

Each workbook here is a real one saved by openpyxl (its styles and shared strings), whose
sheet XML is then replaced by hand-written XML in the forms other producers write: the plain
forms the regex takes, and the others it hands to openpyxl (inline strings, formula strings
with entities, errors, booleans, cells without a reference, attributes in another order, an
element prefix, UTF-16). Every value must be what `openpyxl.load_workbook(data_only=True)`
reads.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from openpyxl.styles import Font

from ingest import sheet_cells
from ingest.read import read_file

NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
SHEET = "xl/worksheets/sheet1.xml"


def _base(path: Path) -> tuple[int, int]:
    """Save a workbook with a bold and a date style; return their style ids."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "alpha"
    ws["A1"].font = Font(bold=True)
    ws["A2"] = 45000
    ws["A2"].number_format = "yyyy-mm-dd"
    ws["A3"] = "beta"
    wb.save(path)
    with zipfile.ZipFile(path) as archive:
        xml = archive.read(SHEET).decode()
    bold = int(re.search(r'r="A1" s="(\d+)"', xml).group(1))
    date = int(re.search(r'r="A2" s="(\d+)"', xml).group(1))
    return bold, date


def _with_sheet(path: Path, sheet_xml: bytes) -> None:
    """Replace the workbook's sheet XML, keeping every other part, and add the shared strings
    "alpha" and "beta" (openpyxl writes its strings inline), as Excel writes them."""
    with zipfile.ZipFile(path) as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    parts[SHEET] = sheet_xml
    parts["xl/sharedStrings.xml"] = (f'<sst xmlns="{NS}" count="2" uniqueCount="2"><si><t>alpha'
                                     '</t></si><si><t>beta</t></si></sst>').encode()
    parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
        b"</Relationships>", b'<Relationship Type="http://schemas.openxmlformats.org/'
        b'officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml" '
        b'Id="rIdStrings"/></Relationships>')
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>", b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
        b'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def _rows(bold: int, date: int, p: str = "") -> str:
    return (
        f'<{p}row r="1" spans="1:5"><{p}c r="A1" s="{bold}" t="s"><{p}v>0</{p}v></{p}c>'
        f'<{p}c r="B1" t="n"><{p}v>1.5</{p}v></{p}c><{p}c r="C1"><{p}v>1E3</{p}v></{p}c>'
        f'<{p}c r="D1" s="{bold}"/><{p}c r="E1" t="b"><{p}v>1</{p}v></{p}c>'
        # Inline strings: plain runs (the fast path, spaces and a line break kept as written),
        # then an entity, a preserved run and rich text (openpyxl's parse_cell).
        f'<{p}c r="F1" s="{bold}" t="inlineStr"><{p}is><{p}t> two\n lines </{p}t></{p}is></{p}c>'
        f'<{p}c r="G1" t="inlineStr"><{p}is><{p}t>a &amp; b</{p}t></{p}is></{p}c>'
        f'<{p}c r="H1" t="inlineStr"><{p}is><{p}t xml:space="preserve"> kept </{p}t></{p}is>'
        f'</{p}c><{p}c r="I1" t="inlineStr"><{p}is><{p}r><{p}t>rich</{p}t></{p}r><{p}r><{p}t>'
        f' text</{p}t></{p}r></{p}is></{p}c></{p}row>'
        f'<{p}row r="2"><{p}c r="A2" s="{date}"><{p}v>45000</{p}v></{p}c>'
        f'<{p}c r="B2" t="str"><{p}f>A1&amp;"x"</{p}f><{p}v>a&amp;b</{p}v></{p}c>'
        f'<{p}c r="C2" t="e"><{p}v>#N/A</{p}v></{p}c>'
        f'<{p}c r="D2" t="inlineStr"><{p}is><{p}t>in line</{p}t></{p}is></{p}c>'
        f'<{p}c r="E2"><{p}f>SUM(B1:C1)</{p}f><{p}v>1001.5</{p}v></{p}c></{p}row>'
        f'<{p}row r="3"><{p}c r="A3"><{p}f>SUM(A9)</{p}f></{p}c>'
        f'<{p}c r="B3" t="s" s="{bold}"><{p}v>1</{p}v></{p}c>'
        f'<{p}c><{p}v>7</{p}v></{p}c><{p}c r="D3"><{p}v></{p}v></{p}c></{p}row>'
        f'<{p}row r="4" hidden="1"><{p}c r="A4"><{p}v>-12</{p}v></{p}c></{p}row>'
        f'<{p}row><{p}c r="B5"><{p}v>0.25</{p}v></{p}c></{p}row>'
    )


def _sheet(rows: str, p: str = "") -> str:
    declaration = f'xmlns:{p[:-1]}="{NS}"' if p else f'xmlns="{NS}"'
    return (f'<{p}worksheet {declaration}><{p}sheetData>{rows}</{p}sheetData>'
            f'<{p}mergeCells count="1"><{p}mergeCell ref="B4:C4"/></{p}mergeCells>'
            f'</{p}worksheet>')


def _forms() -> dict[str, Callable[[int, int], bytes]]:
    return {
        "plain": lambda b, d: ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                               + _sheet(_rows(b, d))).encode("utf-8"),
        "prefixed": lambda b, d: _sheet(_rows(b, d, "x:"), "x:").encode("utf-8"),
        "utf-16": lambda b, d: ('<?xml version="1.0" encoding="UTF-16"?>'
                                + _sheet(_rows(b, d))).encode("utf-16"),
    }


@pytest.mark.parametrize("piece", [None, 16])
@pytest.mark.parametrize("form", list(_forms()))
def test_every_cell_reads_as_openpyxl_reads_it(tmp_path, monkeypatch, form, piece):
    if piece is not None:  # the XML read a few bytes at a time: rows cut at every place
        monkeypatch.setattr(sheet_cells, "_CHUNK", piece)
    path = tmp_path / f"{form}.xlsx"
    bold, date = _base(path)
    _with_sheet(path, _forms()[form](bold, date))
    grid = read_file(path)[0]
    expected = {(c.row, c.column): c.value
                for row in openpyxl.load_workbook(path, data_only=True).active.iter_rows()
                for c in row if c.value is not None}
    # Values under a merge are dropped (B4:C4 holds none here), so the grid has them all.
    got = {key: cell.raw for key, cell in grid.cells.items() if cell.raw is not None}
    assert got == expected
    assert {key: type(value) for key, value in got.items()} == \
        {key: type(value) for key, value in expected.items()}
    assert grid.get(1, 1).style.bold and grid.get(3, 2).style.bold
    assert grid.get(2, 1).text == "2023-03-15"  # 45000 under the date format
    assert grid.get(1, 3).text == "1000"  # "1E3" is a float, shown in General
    assert grid.get(3, 3).raw == 7  # no reference: the column after the one before
    uncached = grid.get(3, 1)
    assert uncached.formula_uncached and uncached.raw is None
    assert grid.get(4, 1).hidden and not grid.get(1, 1).hidden
    assert grid.get(4, 2).colspan == 2
    assert grid.get(5, 2).raw == 0.25  # a row without its number follows the one before
    assert grid.get(1, 6).raw == " two\n lines " and grid.get(1, 6).style.bold
    assert [grid.get(1, c).raw for c in (7, 8, 9)] == ["a & b", " kept ", "rich text"]
