""".xls and .ods read through python-calamine into the same grids as .xlsx: refs, merges, typed
values, headers, answers with citations, and clear messages for damaged or locked files."""

from __future__ import annotations

import datetime as dt
import io
import json
import os

import pytest

from ingest.errors import (
    CorruptFile,
    DecompressedTooLarge,
    EmptyFile,
    LegacyFormat,
    MergeTooLarge,
    PasswordProtected,
    TooManyCells,
)
from ingest.limits import Limits
from ingest.read import read_file
from ingest.structure import analyse_grid
from storage.workspace import Workspace
from tablelens.cli import main

from .sheet_samples import (
    Sheet,
    ods_package,
    report,
    write_ods,
    write_password_xls,
    write_xls,
    write_xlsx,
)

WRITERS = {".ods": write_ods, ".xls": write_xls}
LOST_STYLES = "bold, indentation and number formats are not read from"


@pytest.fixture(params=[".ods", ".xls"])
def ext(request):
    return request.param


def cells_of(grid):
    return {c.ref: c for c in grid.iter_cells()}


def joined(paths):
    return [" > ".join(p) for _, p in sorted(paths.items())]


def test_every_cell_keeps_its_ref_merge_and_typed_value(tmp_path, ext):
    path = WRITERS[ext](tmp_path / f"report{ext}", report())
    grids = read_file(path)
    assert [g.sheet for g in grids] == ["P&L", "Notes"]  # the empty sheet has no grid
    main_grid, notes = grids
    assert (main_grid.n_rows, main_grid.n_cols, main_grid.kind) == (6, 5, ext[1:])
    assert [c.range_ref for c in main_grid.merges()] == ["A1:A2", "B1:C1", "D1:E1"]
    assert main_grid.anchor_of(1, 3).ref == "B1" and main_grid.get(1, 3) is None
    cells = cells_of(main_grid)
    assert (cells["B1"].raw, cells["B1"].text) == ("2023", "2023")
    assert (cells["B3"].raw, cells["B3"].text) == (1200, "1200")  # no ".0", even from .ods
    assert type(cells["B3"].raw) is int
    assert (cells["C3"].raw, cells["C3"].text) == (1250.5, "1250.5")
    assert (cells["B6"].raw, cells["B6"].text) == (dt.date(2024, 7, 31), "2024-07-31")
    assert (cells["C6"].raw, cells["C6"].text) == (True, "TRUE")
    assert "D6" not in cells  # empty slots are absent, as in every grid
    assert notes.warnings[0] == "sheet 'Notes' is hidden in the workbook"
    assert main_grid.warnings[-1].startswith(f"{LOST_STYLES} {ext} files: headers are found")


def test_a_table_away_from_a1_keeps_its_source_coordinates(tmp_path, ext):
    sheet = Sheet("Offset", {(3, 3): "Region", (3, 4): "Sales", (4, 3): "North", (4, 4): 2.0,
                             (5, 3): "South", (5, 4): -1.5e-7},
                  merges=[(7, 3, 7, 5)])
    [grid] = read_file(WRITERS[ext](tmp_path / f"offset{ext}", [sheet]))
    cells = cells_of(grid)
    assert sorted(cells) == ["C3", "C4", "C5", "C7", "D3", "D4", "D5"]
    assert cells["C7"].range_ref == "C7:E7" and cells["C7"].raw is None
    assert (cells["D4"].raw, cells["D4"].text) == (2, "2")
    # An .xls float shows all the digits the file stores (Python's shortest repr, no number
    # format to go by); an .ods keeps the text LibreOffice stored (here its General form).
    assert (cells["D5"].raw, cells["D5"].text) == (-1.5e-7, "-1.5e-07")
    assert (grid.n_rows, grid.n_cols) == (7, 5)


@pytest.mark.parametrize("ext", [".ods", ".xls", ".xlsx"])
def test_merged_two_row_header_gives_the_same_paths_as_xlsx(tmp_path, ext):
    writer = {**WRITERS, ".xlsx": write_xlsx}[ext]
    grid = read_file(writer(tmp_path / f"report{ext}", report()))[0]
    [table] = analyse_grid(grid)
    assert table.header_rows == [1, 2]
    assert joined(table.col_paths) == ["2023 > Q1", "2023 > Q2", "2024 > Q1", "2024 > Q2"]
    assert table.row_paths[5] == ("Operating expense",)
    values = {(d.row_path, d.col_paths[0]): d.value.number for d in table.data}
    assert values[(("Operating expense",), ("2024", "Q2"))] == 262.75


def test_ods_keeps_the_text_libreoffice_showed_and_its_hidden_rows_and_columns(tmp_path):
    sheet = Sheet("Rates", {(1, 1): "Region", (1, 2): "Sales", (1, 3): "Growth",
                            (2, 1): "North", (2, 2): 1250.5, (2, 3): 0.125,
                            (3, 1): "South", (3, 2): 980, (3, 3): -0.05},
                  shown={(2, 2): "1,250.50", (2, 3): "12.5%", (3, 3): "-5.0%"},
                  hidden_rows={3}, hidden_cols={3})
    [grid] = read_file(write_ods(tmp_path / "rates.ods", [sheet]))
    cells = cells_of(grid)
    assert (cells["B2"].raw, cells["B2"].text) == (1250.5, "1,250.50")
    assert (cells["C2"].raw, cells["C2"].text) == (0.125, "12.5%")
    assert cells["A3"].hidden and cells["C2"].hidden and not cells["B2"].hidden


def test_ods_values_under_a_merge_are_dropped_like_libreoffice_shows_them(tmp_path):
    tables = ('<table:table table:name="S"><table:table-row>'
              '<table:table-cell office:value-type="string" table:number-columns-spanned="2">'
              '<text:p>shown</text:p></table:table-cell>'
              '<table:covered-table-cell office:value-type="string"><text:p>leftover</text:p>'
              '</table:covered-table-cell>'
              '<table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p>'
              '</table:table-cell></table:table-row>'
              '<table:table-row table:number-rows-repeated="1048575">'
              '<table:table-cell table:number-columns-repeated="1024"/></table:table-row>'
              '</table:table>')
    [grid] = read_file(io.BytesIO(ods_package(tables)), "leftover.ods")
    assert [(c.range_ref, c.text) for c in grid.iter_cells()] == [("A1:B1", "shown"),
                                                                 ("C1", "3")]
    assert (grid.n_rows, grid.n_cols) == (1, 3)


def test_ods_times_durations_errors_and_paragraphs_keep_what_was_shown():
    cells = [
        'office:value-type="time" office:time-value="PT01H30M00S"><text:p>01:30:00</text:p>',
        'office:value-type="time" office:time-value="PT36H00M00S"><text:p>36:00:00</text:p>',
        'office:value-type="currency" office:currency="GBP" office:value="12.5">'
        '<text:p>£12.50</text:p>',
        'table:formula="of:=1/0" office:value-type="string" office:string-value="">'
        '<text:p>#DIV/0!</text:p>',
        'office:value-type="date" office:date-value="2024-01-15T09:30:00">'
        '<text:p>15/01/2024 09:30</text:p>',
        'office:value-type="string"><text:p>two</text:p><text:p>lines <text:span>x</text:span>'
        '</text:p>',
        'office:value-type="float" office:value="3"><office:annotation><text:p>a note</text:p>'
        '</office:annotation><text:p>3.00</text:p>',
    ]
    row = "".join(f"<table:table-cell {cell}</table:table-cell>" for cell in cells)
    tables = f'<table:table table:name="S"><table:table-row>{row}</table:table-row></table:table>'
    [grid] = read_file(io.BytesIO(ods_package(tables)), "kinds.ods")
    assert [(c.ref, c.raw, c.text) for c in grid.iter_cells()] == [
        ("A1", dt.time(1, 30), "01:30:00"),
        ("B1", "36:00:00", "36:00:00"),  # a duration past a day has no grid type: its text
        ("C1", 12.5, "£12.50"),
        ("D1", "#DIV/0!", "#DIV/0!"),  # as the .xlsx reader keeps an error
        ("E1", dt.datetime(2024, 1, 15, 9, 30), "15/01/2024 09:30"),
        ("F1", "two\nlines x", "two\nlines x"),
        ("G1", 3, "3.00"),
    ]


def test_an_ods_with_only_empty_sheets_is_refused():
    with pytest.raises(EmptyFile, match=r"^empty\.ods: no table was found in the file\."):
        read_file(io.BytesIO(ods_package('<table:table table:name="S"><table:table-row>'
                                         '<table:table-cell/></table:table-row></table:table>')),
                  "empty.ods")


def test_an_xlsx_saved_under_an_xls_name_is_read_with_its_styles(tmp_path, samples):
    renamed = tmp_path / "financial.xls"
    renamed.write_bytes((samples / "financial.xlsx").read_bytes())
    [grid] = read_file(renamed)
    assert grid.kind == "xlsx" and cells_of(grid)["A3"].style.bold


# ---------------------------------------------------------------------------------------------
# End to end: the same question over the same table as .ods, .xls and .xlsx


@pytest.fixture
def offline(monkeypatch, tmp_path):
    for name in [n for n in os.environ if n.startswith("TABLELENS_LLM")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))


def test_the_same_question_gets_the_same_cited_answer_from_ods_xls_and_xlsx(
        tmp_path, capsys, offline):
    answers = {}
    for ext, writer in (*WRITERS.items(), (".xlsx", write_xlsx)):
        path = writer(tmp_path / f"report{ext}", report())
        code = main(["ask", str(path), "-q", "What was the operating expense in Q2 2024?",
                     "--json"])
        doc = json.loads(capsys.readouterr().out)
        assert code == 0, doc
        answers[ext] = (doc["answer"], doc["values"],
                        [(e["sheet"], e["ref"], e["text"]) for e in doc["evidence"]])
    assert answers[".xlsx"] == ("262.75", [262.75], [("P&L", "E5", "262.75")])
    assert answers[".ods"] == answers[".xlsx"] and answers[".xls"] == answers[".xlsx"]


# ---------------------------------------------------------------------------------------------
# Damaged, locked and hostile files


@pytest.mark.parametrize(("name", "data", "message"), [
    ("budget.ods", b"this is not a spreadsheet",
     "budget.ods: this is not a valid .ods file (it is not a zip archive, or it is truncated or "
     "damaged). Open it in LibreOffice, save it again (as .ods or .xlsx), and upload that copy."),
    ("budget.ods", ods_package("<table:table table:name='S'><table:table-row>")[:-1],
     "budget.ods: this is not a valid .ods file"),
    ("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512),
     "old.xls: this is not a readable Excel 97-2003 (.xls) workbook: it is damaged, or another "
     "kind of file. Open it"),  # calamine's own words ("Cfb error: ...") are not shown
    ("old.xls", bytes(range(256)) * 4,
     "old.xls: it does not start as an Excel 97-2003 workbook does: it is another kind of file "
     "under an .xls name, or it is damaged. Open it"),
])
def test_damaged_files_are_refused_with_what_to_do(name, data, message):
    with pytest.raises(CorruptFile) as info:
        read_file(io.BytesIO(data), name)
    assert str(info.value).startswith(message)
    assert str(info.value).endswith("upload that copy.")


EXPORTED = [["Name", "Amount"], ["Ann", "10"], ["Bob", "20"]]


@pytest.mark.parametrize(("data", "kind"), [
    (b"<html><body><table><tr><th>Name</th><th>Amount</th></tr><tr><td>Ann</td><td>10</td></tr>"
     b"<tr><td>Bob</td><td>20</td></tr></table></body></html>", "web page"),
    ("Name\tAmount\nAnn\t10\nBob\t20\n".encode("utf-16"), "CSV"),
    (b"Name,Amount\r\nAnn,10\r\nBob,20\r\n", "CSV"),
])
def test_an_export_to_excel_web_page_or_text_under_an_xls_name_is_read(data, kind):
    [grid] = read_file(io.BytesIO(data), "export.xls")
    grid = grid.materialize()  # a CSV grid streams its cells
    assert [[grid.get(r, c).text for c in (1, 2)] for r in (1, 2, 3)] == EXPORTED
    assert any(w.endswith(f"it was read as {'a ' if kind == 'web page' else ''}{kind}")
               for w in grid.warnings)


def test_an_excel_2003_xml_spreadsheet_is_named():
    data = (b'<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:'
            b'spreadsheet"><Worksheet ss:Name="S"/></Workbook>')
    with pytest.raises(LegacyFormat, match=r"^x\.xls: this is an Excel 2003 XML spreadsheet"):
        read_file(io.BytesIO(data), "x.xls")


def test_a_truncated_xls_is_refused(tmp_path):
    whole = write_xls(tmp_path / "whole.xls", report()).read_bytes()
    with pytest.raises(CorruptFile, match=r"^cut\.xls: this is not a readable Excel 97-2003 "
                       r"\(\.xls\) workbook: .* save it as \.xlsx, and upload that copy\.$"):
        read_file(io.BytesIO(whole[: len(whole) // 2]), "cut.xls")


def test_a_damaged_ods_xml_is_refused():
    tables = "<table:table table:name='S'><table:table-row></table:table>"
    with pytest.raises(CorruptFile, match=r"^bad\.ods: the spreadsheet is damaged \("):
        read_file(io.BytesIO(ods_package(tables)), "bad.ods")


def test_password_protected_files_say_how_to_remove_the_password(tmp_path):
    with pytest.raises(PasswordProtected) as info:
        read_file(write_password_xls(tmp_path / "locked.xls"))
    assert str(info.value) == (
        "locked.xls: the workbook is password-protected. Open it in Excel with its password, "
        "remove the password (File > Info > Protect Workbook), save it as .xlsx, and upload "
        "that copy.")
    locked = ods_package("<table:table table:name='S'/>", encrypted=True)
    with pytest.raises(PasswordProtected, match=r"^locked\.ods: the spreadsheet is password-"
                       r"protected\. Open it in LibreOffice with its password"):
        read_file(io.BytesIO(locked), "locked.ods")


def test_a_failed_xls_or_ods_leaves_the_workspace_as_it_was(tmp_path, samples):
    ws = Workspace(tmp_path / "w")
    ws.add_file(write_ods(tmp_path / "good.ods", report()))
    before = list(ws.db.query("SELECT count(*) AS n FROM cells"))[0]["n"]
    with pytest.raises(CorruptFile):
        ws.add_file(io.BytesIO(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512)), "bad.xls")
    with pytest.raises(PasswordProtected):
        ws.add_file(write_password_xls(tmp_path / "locked.xls"))
    assert [s.name for s in ws.sources()] == ["good.ods"]
    assert list(ws.db.query("SELECT count(*) AS n FROM cells"))[0]["n"] == before
    assert len(list(ws.files_dir.iterdir())) == 1


def test_repeated_ods_cells_count_against_the_cell_limit_before_they_expand():
    # 1,000 rows of 1,000 filled cells each: 1M cells in a few hundred bytes.
    tables = ('<table:table table:name="S"><table:table-row table:number-rows-repeated="1000">'
              '<table:table-cell table:number-columns-repeated="1000" office:value-type="float"'
              ' office:value="1"><text:p>1</text:p></table:table-cell></table:table-row>'
              '</table:table>')
    with pytest.raises(TooManyCells, match="more than 10,000 filled cells"):
        read_file(io.BytesIO(ods_package(tables)), "bomb.ods", limits=Limits(max_cells=10_000))


def test_an_ods_that_expands_past_the_limit_is_refused():
    data = ods_package("<table:table table:name='S'>" + "<table:table-row/>" * 100_000
                       + "</table:table>")
    with pytest.raises(DecompressedTooLarge, match=r"^big\.ods: the spreadsheet declares more"):
        read_file(io.BytesIO(data), "big.ods", limits=Limits(max_unzipped_bytes=100_000))


@pytest.mark.parametrize("ext", [".ods", ".xls"])
def test_a_merge_over_a_huge_range_is_refused(tmp_path, ext):
    sheet = Sheet("S", {(1, 1): "x"}, merges=[(1, 1, 600, 200)])
    path = WRITERS[ext](tmp_path / f"merge{ext}", [sheet])
    with pytest.raises(MergeTooLarge, match=r"has a merged range of 120,000 cells; the limit is "
                       r"100,000\. Unmerge it"):
        read_file(path, limits=Limits(max_merge_cells=100_000))


def test_flat_ods_and_office_bytes_under_other_names_get_messages():
    with pytest.raises(LegacyFormat, match=r"save it as \.ods or \.xlsx"):
        read_file(io.BytesIO(b"<?xml version='1.0'?>"), "budget.fods")
    with pytest.raises(LegacyFormat, match=r"rename it to end in \.xls"):
        read_file(io.BytesIO(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512)), "renamed.csv")


def test_a_workbook_under_another_workbook_s_name_is_read_by_what_it_holds(tmp_path, samples):
    """An .ods saved as .xls, or an .xlsx saved as .ods, is read, not called damaged; a Word
    document under a spreadsheet's name is told to take its own name back."""
    ods = write_ods(tmp_path / "budget.ods", report()).read_bytes()
    as_xls = read_file(io.BytesIO(ods), "budget.xls")
    as_ods = read_file(io.BytesIO(ods), "budget.ods")
    assert [g.kind for g in as_xls] == ["ods"] * len(as_ods)
    assert [cells_of(g).keys() for g in as_xls] == [cells_of(g).keys() for g in as_ods]
    [xlsx_as_ods] = read_file(io.BytesIO((samples / "financial.xlsx").read_bytes()),
                              "financial.ods")
    assert xlsx_as_ods.kind == "xlsx" and cells_of(xlsx_as_ods)["A3"].style.bold
    from ingest.errors import UnsupportedFormat
    from tests.documents_samples import docx_bytes

    with pytest.raises(UnsupportedFormat, match=r"^memo\.xls: this is a Word document \(\.docx\) "
                       r"saved under a \.xls name\. Rename it to end in \.docx"):
        read_file(io.BytesIO(docx_bytes()), "memo.xls")
