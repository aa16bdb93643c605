"""The .xlsx reader on real openpyxl-written workbooks: merges, sheets, styles, flags, errors."""

from __future__ import annotations

import datetime as dt
import io
import zipfile

import openpyxl
import pytest

from ingest.errors import CorruptFile, EmptyFile, LegacyFormat, MergeTooLarge, TooManyCells
from ingest.limits import Limits
from ingest.read import read_file


def cells_of(grid):
    return {c.ref: c for c in grid.iter_cells()}


def test_financial_sample_keeps_merged_two_row_header_bold_and_indent(samples):
    [grid] = read_file(samples / "financial.xlsx")
    assert (grid.sheet, grid.n_rows, grid.n_cols, grid.kind) == ("P&L", 8, 5, "xlsx")
    assert [c.range_ref for c in grid.merges()] == ["B1:C1", "D1:E1"]
    cells = cells_of(grid)
    assert "A1" not in cells and "A2" not in cells  # the corner is empty and not merged
    assert cells["B1"].text == "H1 2024" and cells["B1"].colspan == 2
    assert grid.anchor_of(1, 3) is cells["B1"]  # C1 shows the merge's value
    assert cells["A3"].style.bold and cells["A3"].style.indent == 0
    assert [cells[f"A{r}"].style.indent for r in (5, 6, 7)] == [1, 1, 1]
    assert cells["C5"].raw == 230 and cells["C5"].text == "230"


def test_hr_sample_department_merged_over_employees(samples):
    [grid] = read_file(samples / "hr.xlsx")
    assert [(c.range_ref, c.text) for c in grid.merges()] == [
        ("A2:A5", "Engineering"), ("A6:A8", "Sales")]
    assert grid.anchor_of(4, 1).text == "Engineering"
    assert grid.get(4, 1) is None
    assert cells_of(grid)["D4"].raw == 12


def test_every_sheet_is_read_with_formats_dates_hidden_and_uncached_formulas(samples):
    grids = read_file(samples / "multi_sheet.xlsx")
    assert [g.sheet for g in grids] == ["Jan 2024", "Feb 2024"]  # the empty sheet has no grid
    assert [g.index for g in grids] == [0, 1]
    jan, feb = (cells_of(g) for g in grids)
    assert jan["B2"].text == "1,234.50" and jan["B2"].raw == 1234.5
    assert jan["C2"].text == "12.5%" and jan["C3"].text == "-5.0%"
    assert jan["D2"].raw == dt.datetime(2024, 1, 31) and jan["D2"].text == "2024-01-31"
    assert jan["D3"].text == "2024-01-15 09:30"
    assert jan["B7"].text == "(1,234)" and jan["B7"].raw == -1234
    assert jan["A1"].style.bold and jan["A1"].style.fill == "DDEBF7"
    assert jan["A1"].style.borders == "B"
    assert jan["A4"].hidden and not jan["A3"].hidden
    uncached = jan["B5"]
    assert uncached.formula_uncached and uncached.raw is None and uncached.text == ""
    assert jan["B6"].colspan == 2 and grid_anchor(grids[0], 6, 3) == "B6"
    assert feb["C2"].hidden and not feb["B2"].hidden
    assert feb["A2"].style.indent == 2 and feb["A3"].style.italic


def grid_anchor(grid, row, col):
    return grid.anchor_of(row, col).ref


def test_values_under_a_merge_are_dropped_like_excel_shows_them(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"], ws["B1"], ws["A2"] = "shown", "hidden leftover", "x"
    path = tmp_path / "leftover.xlsx"
    wb.save(path)
    # Merge by editing the XML, as other programs do, keeping B1's value in the file.
    with zipfile.ZipFile(path) as src:
        parts = {n: src.read(n) for n in src.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode()
    sheet = sheet.replace("</sheetData>", '</sheetData><mergeCells count="1">'
                          '<mergeCell ref="A1:B1"/></mergeCells>')
    parts["xl/worksheets/sheet1.xml"] = sheet.encode()
    with zipfile.ZipFile(path, "w") as dst:
        for name, data in parts.items():
            dst.writestr(name, data)
    [grid] = read_file(path)
    assert cells_of(grid).keys() == {"A1", "A2"}
    assert grid.get(1, 1).colspan == 2


def test_reads_from_a_file_object_as_well_as_a_path(samples):
    data = (samples / "hr.xlsx").read_bytes()
    [grid] = read_file(io.BytesIO(data), "hr.xlsx")
    assert grid.source == "hr.xlsx" and grid.cell_count == 27


def _xlsx_bytes(**cells) -> bytes:
    wb = openpyxl.Workbook()
    for ref, value in cells.items():
        wb.active[ref] = value
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def test_truncated_xlsx_is_refused_with_advice():
    data = _xlsx_bytes(A1="x")
    with pytest.raises(CorruptFile) as info:
        read_file(io.BytesIO(data[: len(data) // 2]), "report.xlsx")
    assert str(info.value).startswith("report.xlsx: this is not a valid .xlsx file")
    assert "save it again as .xlsx" in str(info.value)


def test_non_zip_xlsx_is_refused():
    with pytest.raises(CorruptFile, match=r"^notes\.xlsx: this is not a valid \.xlsx file"):
        read_file(io.BytesIO(b"Notes for the budget meeting\n"), "notes.xlsx")


@pytest.mark.parametrize(("name", "data", "message"), [
    ("micron.xlsx", b"Date,Close,Volume\n2024-01-02,85.1,1200\n2024-01-03,86.4,900\n",
     "micron.xlsx: this is a text file of comma-separated rows, not a workbook (its name ends in "
     ".xlsx). Rename it to micron.csv and upload it again."),
    ("header_only.xlsm", b"Region;Units\n", "header_only.xlsm: this is a text file of "
     "semicolon-separated rows, not a workbook (its name ends in .xlsm). Rename it to "
     "header_only.csv"),
    ("export.xlsx", b"Name\tAmount\nAnn\t10\n", "export.xlsx: this is a text file of "
     "tab-separated rows, not a workbook (its name ends in .xlsx). Rename it to export.tsv"),
    ("page.xlsx", b"<!DOCTYPE html><html><body><table><tr><td>1</td></tr></table>",
     "page.xlsx: this is a web page (HTML), not a workbook (its name ends in .xlsx). Rename "
     "it to page.html"),
    ("notes.ods", b"| Region | Units |\n| --- | ---: |\n| North | 5 |\n",
     "notes.ods: this is a Markdown table, not a workbook (its name ends in .ods). Rename it "
     "to notes.md"),
])
def test_text_under_a_workbook_name_is_told_to_take_its_own_name(name, data, message):
    """A CSV, a web page or a Markdown table renamed to .xlsx is not "damaged": the message
    says what it is and the name that reads it."""
    with pytest.raises(CorruptFile) as info:
        read_file(io.BytesIO(data), name)
    assert str(info.value).startswith(message)
    assert "save it again" not in str(info.value)


def test_empty_file_is_refused():
    with pytest.raises(EmptyFile, match=r"^blank\.xlsx: the file is empty\."):
        read_file(io.BytesIO(b""), "blank.xlsx")


def test_workbook_with_only_empty_sheets_is_refused():
    with pytest.raises(EmptyFile, match="no table was found"):
        read_file(io.BytesIO(_xlsx_bytes()), "nothing.xlsx")


def test_office_97_bytes_under_another_name_get_rename_advice():
    ole2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512)
    # The bytes give it away when the name claims .csv (.xls itself is read: test_calamine_reader).
    with pytest.raises(LegacyFormat) as info:
        read_file(io.BytesIO(ole2), "renamed.csv")
    assert str(info.value) == ("renamed.csv: its bytes are an Office 97-2003 file, not .csv. If "
                               "it is an Excel workbook, rename it to end in .xls and upload it "
                               "again.")


def test_other_spreadsheet_and_unknown_formats_get_messages():
    with pytest.raises(LegacyFormat, match=r"\.xlsb workbooks are not read\. Save it as \.xlsx"):
        read_file(io.BytesIO(b"PK\x03\x04"), "budget.xlsb")
    with pytest.raises(Exception, match=r"files of type \.pptx are not supported"):
        read_file(io.BytesIO(b"PK\x03\x04"), "slides.pptx")


def test_merge_over_whole_sheet_is_refused_before_any_cell_is_built(tmp_path):
    wb = openpyxl.Workbook()
    wb.active["A1"] = "everything"
    path = tmp_path / "whole.xlsx"
    wb.save(path)
    with zipfile.ZipFile(path) as src:
        parts = {n: src.read(n) for n in src.namelist()}
    sheet = parts["xl/worksheets/sheet1.xml"].decode().replace(
        "</sheetData>", '</sheetData><mergeCells count="1"><mergeCell ref="A1:XFD1048576"/>'
        "</mergeCells>")
    parts["xl/worksheets/sheet1.xml"] = sheet.encode()
    with zipfile.ZipFile(path, "w") as dst:
        for name, data in parts.items():
            dst.writestr(name, data)
    with pytest.raises(MergeTooLarge) as info:
        read_file(path)
    assert str(info.value) == (
        "whole.xlsx: sheet 'Sheet' has a merged range A1:XFD1048576 of 17,179,869,184 cells; the "
        "limit is 250,000. Unmerge it in Excel, or raise TABLELENS_MAX_MERGE_CELLS.")


def test_cell_limit_counts_across_sheets():
    wb = openpyxl.Workbook()
    for title in ("a", "b"):
        ws = wb.create_sheet(title)
        for r in range(1, 5):
            ws.append([r, r])
    buffer = io.BytesIO()
    wb.save(buffer)
    with pytest.raises(TooManyCells, match="more than 10 filled cells.*TABLELENS_MAX_CELLS"):
        read_file(io.BytesIO(buffer.getvalue()), "two.xlsx", limits=Limits(max_cells=10))
    assert len(read_file(io.BytesIO(buffer.getvalue()), "two.xlsx",
                         limits=Limits(max_cells=16))) == 2


def test_progress_is_reported_per_sheet(samples):
    seen = []
    read_file(samples / "multi_sheet.xlsx", progress=lambda f, stage: seen.append((f, stage)))
    assert seen[0][1] == "reading sheet Jan 2024" and seen[-1] == (1.0, "read")
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)


def test_text_number_format_shows_the_number_not_the_at_sign(tmp_path):
    # UK government workbooks format year columns as text ("@") while the cells hold numbers.
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Year", "Deaths", "Change"])
    for year, deaths, change in [(1974, 1250, -12), (1975, 1311, 0), (1976, 1290, 7)]:
        ws.append([year, deaths, change])
    for row in range(2, 5):
        ws.cell(row, 1).number_format = "@"
        ws.cell(row, 2).number_format = "#,##0;-#,##0;0;@"  # a 4th section for text only
        ws.cell(row, 3).number_format = "0;@"  # a text section second: negatives use the first
    ws["A5"] = "1977 (provisional)"
    ws["A5"].number_format = "@"
    path = tmp_path / "years.xlsx"
    wb.save(path)
    [grid] = read_file(path)
    cells = cells_of(grid)
    assert [cells[f"A{r}"].text for r in (2, 3, 4, 5)] == ["1974", "1975", "1976",
                                                           "1977 (provisional)"]
    assert cells["A2"].raw == 1974
    assert [cells[f"B{r}"].text for r in (2, 3, 4)] == ["1,250", "1,311", "1,290"]
    assert [cells[f"C{r}"].text for r in (2, 3, 4)] == ["-12", "0", "7"]


@pytest.mark.parametrize(("value", "code", "shown"), [
    (1974, "@", "1974"),
    (2.5, "@", "2.5"),
    (-3, "0;-0;0;@", "-3"),
    (0, '0;-0;"-";@', "-"),
    (-5, "0.0;@", "-5.0"),
    (5, '"@"0', "@5"),  # a quoted @ is a literal, not the text placeholder
])
def test_format_sections_for_text_never_apply_to_numbers(value, code, shown):
    from ingest.numfmt import format_value
    assert format_value(value, code) == shown


@pytest.mark.parametrize(("value", "code", "shown"), [
    (77.25, "0.0", "77.3"),  # Excel rounds a tie away from zero; Python's format, to even
    (2.675, "0.00", "2.68"),  # a tie as written, though its binary value is just below it
    (-0.5, "0", "-1"),
    (1234.5, "#,##0", "1,235"),
    (0.125, "0.00%", "12.50%"),
    (257285.339936, "#,##0", "257,285"),
])
def test_numbers_round_as_excel_shows_them(value, code, shown):
    from ingest.numfmt import format_value
    assert format_value(value, code) == shown
