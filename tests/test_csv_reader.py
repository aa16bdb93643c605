"""Tests for the CSV reader: encodings, delimiters, streaming, limits and refusals."""

from __future__ import annotations

import codecs
import csv
import io
import struct
import tempfile
import zipfile
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest import csv_reader
from ingest.csv_reader import read_csv
from ingest.errors import BinaryContent, CorruptFile, EmptyFile, TooManyCells
from ingest.grid import Grid, no_progress
from ingest.limits import Limits
from ingest.read import read_file
from ingest.source import open_binary

SAMPLES = Path(__file__).parent / "samples" / "csv"
BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
BENCH_CSVS = sorted(BENCH.glob("*/tables/*.csv")) if BENCH.is_dir() else []

SAMPLE_BYTES = 64 * 1024  # the reader's sample size; the tests below straddle it
DEFAULT_LIMITS = Limits()


def read_bytes(data: bytes, name: str = "data.csv", limits: Limits = DEFAULT_LIMITS) -> Grid:
    """Read bytes as an upload with the given name and return its single grid."""
    grids = read_csv(io.BytesIO(data), name=name, limits=limits, progress=no_progress)
    assert len(grids) == 1
    return grids[0]


def texts(grid: Grid) -> list[list[str]]:
    """Return the texts of the grid's cells, row by row."""
    return [[cell.text for cell in row] for row in grid.rows()]


def by_ref(grid: Grid) -> dict[str, str]:
    """Return the grid's cell texts keyed by A1 reference."""
    return {cell.ref: cell.text for cell in grid.iter_cells()}


def png_bytes() -> bytes:
    """Return a small but real PNG header followed by compressed pixel data."""
    header = struct.pack(">IIBBBBB", 10, 10, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(header)) + b"IHDR" + header
            + struct.pack(">I", zlib.crc32(b"IHDR" + header))
            + zlib.compress(bytes(range(256)) * 8))


def zip_bytes() -> bytes:
    """Return a zip archive like an .xlsx workbook."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/workbook.xml", "<workbook/>" * 50)
    return buffer.getvalue()


# Encodings


def test_utf8_bom_is_not_part_of_the_first_cell() -> None:
    grid = read_bytes(codecs.BOM_UTF8 + "name,city\nAnna,Zürich\n".encode())
    assert texts(grid) == [["name", "city"], ["Anna", "Zürich"]]
    assert grid.warnings == []


def test_utf16_with_bom_written_by_python() -> None:
    grid = read_file(SAMPLES / "utf16_bom.csv")[0]
    assert texts(grid) == [["Name", "City"], ["Anna", "Zürich"], ["Bo", "東京"]]


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_without_bom_is_detected(encoding: str) -> None:
    text = "name,city\n" + "Anna,Zürich\nBo,Genève\n" * 20
    grid = read_bytes(text.encode(encoding))
    assert texts(grid)[:2] == [["name", "city"], ["Anna", "Zürich"]]


def test_utf32_with_bom() -> None:
    grid = read_bytes("a,b\nü,ß\n".encode("utf-32"))
    assert texts(grid) == [["a", "b"], ["ü", "ß"]]


def test_latin1_with_semicolons() -> None:
    grid = read_file(SAMPLES / "latin1_semicolon.csv")[0]
    assert texts(grid) == [["Stadt", "Café", "Preis"], ["Zürich", "Crème brûlée", "4,50"],
                           ["Genève", "Thé", "3,20"]]


@pytest.mark.parametrize("text", ["Nombre;País\nNiño;España\n",
                                  "Preis;Notiz\n5 €;“gut” – sehr…\n"])
def test_windows_1252_is_preferred_for_western_text(text: str) -> None:
    # charset-normalizer alone guesses cp1250 ("Espańa") or cp437 for these.
    assert by_ref(read_bytes(text.encode("cp1252"))) == by_ref(read_bytes(text.encode()))


def test_cyrillic_code_page_is_detected() -> None:
    text = "Имя;Город\nИван;Москва\nПётр;Санкт-Петербург\n"
    assert texts(read_bytes(text.encode("cp1251")))[1] == ["Иван", "Москва"]


def test_multibyte_character_cut_by_the_sample_is_still_utf8() -> None:
    head = "a,b\n" + "x" * (SAMPLE_BYTES - 6) + ","  # "ü" takes the sample's last byte and one more
    data = (head + "ü\n").encode()
    assert data[SAMPLE_BYTES - 1:SAMPLE_BYTES + 1] == "ü".encode()
    grid = read_bytes(data)
    assert texts(grid)[1][-1] == "ü" and grid.warnings == []


def test_non_utf8_bytes_after_an_ascii_sample_switch_to_windows_1252() -> None:
    data = b"id,city\n" + b"1,Bern\n" * (SAMPLE_BYTES // 7 + 10) + "2,Zürich €\n".encode("cp1252")
    grid = read_bytes(data)
    assert texts(grid)[-1] == ["2", "Zürich €"]
    assert len(grid.warnings) == 1 and "Windows-1252" in grid.warnings[0]


def test_invalid_bytes_in_a_utf8_file_are_replaced_and_noted() -> None:
    data = ("id,city\n0,Zürich\n" + "1,Bern\n" * (SAMPLE_BYTES // 7 + 10)).encode() + b"2,\xff\n"
    grid = read_bytes(data)
    assert texts(grid)[1] == ["0", "Zürich"]
    assert texts(grid)[-1] == ["2", "\ufffd"]
    assert len(grid.warnings) == 1 and "UTF-8" in grid.warnings[0]


def test_truncated_utf16_file_keeps_its_rows_and_notes_the_damage() -> None:
    grid = read_bytes("a,b\n1,2\n".encode("utf-16") + b"x")
    assert texts(grid)[:2] == [["a", "b"], ["1", "2"]]
    assert len(grid.warnings) == 1 and "UTF-16" in grid.warnings[0]


# Delimiters and quoting


def test_ragged_rows_take_the_longest_row_as_width() -> None:
    grid = read_bytes(b"a,b\n1,2,3,4\n5\n")
    assert (grid.n_rows, grid.n_cols) == (3, 4)
    assert by_ref(grid) == {"A1": "a", "B1": "b", "A2": "1", "B2": "2", "C2": "3", "D2": "4",
                            "A3": "5"}


def test_tsv_splits_on_tabs_only() -> None:
    grid = read_bytes(b"name\tamount, EUR\nAnna, B.\t1,5\n", name="export.tsv")
    assert texts(grid) == [["name", "amount, EUR"], ["Anna, B.", "1,5"]]
    assert grid.sheet == "export"


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiter_is_sniffed(delimiter: str) -> None:
    rows = [["name", "amount"], ["Anna", "1.5"], ["Bo", "2"]]
    data = "\n".join(delimiter.join(row) for row in rows).encode()
    assert texts(read_bytes(data)) == rows


def test_single_column_falls_back_to_comma() -> None:
    assert texts(read_bytes(b"total\n1\n2\n")) == [["total"], ["1"], ["2"]]


def test_quoted_field_with_newline_and_comma_is_one_cell() -> None:
    grid = read_file(SAMPLES / "multiline_quoted.csv")[0]
    assert (grid.n_rows, grid.n_cols) == (3, 3)
    assert by_ref(grid) == {"A1": "id", "B1": "note", "C1": "amount",
                            "A2": "1", "B2": "first line\nsecond line, with a comma", "C2": "10",
                            "A3": "2", "B3": 'say "hi"', "C3": "20"}


def test_field_longer_than_the_csv_module_default_limit() -> None:
    long_text = "x" * 1_000_000
    grid = read_bytes(f'a,b\n1,"{long_text}"\n'.encode())
    assert by_ref(grid)["B2"] == long_text


def test_values_stay_text_and_keep_their_spaces() -> None:
    grid = read_bytes(b"code,amount,name\n007,\"1,500.00\", Anna  Berg \n")
    cells = {cell.ref: cell for cell in grid.iter_cells()}
    assert cells["A2"].raw == cells["A2"].text == "007"
    assert cells["B2"].raw == "1,500.00"
    assert cells["C2"].text == " Anna  Berg "


def test_whitespace_only_fields_are_not_cells() -> None:
    grid = read_bytes(b"a, ,c\n \t,x,\n")
    assert by_ref(grid) == {"A1": "a", "C1": "c", "B2": "x"}


# Refusals and limits


@pytest.mark.parametrize("data", [b",,,\n,,\n\n", b"\n\n\n", b" , \t\n,\r\n"])
def test_file_without_a_filled_cell_is_empty(data: bytes) -> None:
    with pytest.raises(EmptyFile, match="blank.csv"):
        read_bytes(data, name="blank.csv")


@pytest.mark.parametrize(("data", "kind"), [(png_bytes(), "PNG image"),
                                            (zip_bytes(), "zip archive"),
                                            (bytes(range(256)) * 40, "binary data")])
def test_binary_file_named_csv_is_refused(data: bytes, kind: str) -> None:
    with pytest.raises(BinaryContent) as info:
        read_file(io.BytesIO(data), "report.csv")
    message = str(info.value)
    assert "report.csv" in message and "CSV" in message and kind in message


def test_too_many_cells_names_the_file_and_the_setting() -> None:
    data = b"\n".join(b"1,2,3,4,5" for _ in range(5))
    with pytest.raises(TooManyCells) as info:
        read_bytes(data, name="wide.csv", limits=Limits(max_cells=10))
    assert "wide.csv" in str(info.value) and "TABLELENS_MAX_CELLS" in str(info.value)


def test_cells_at_the_limit_are_accepted() -> None:
    grid = read_bytes(b"1,2,3,4,5\n6,7,8,9,10\n,,\n", limits=Limits(max_cells=10))
    assert grid.cell_count == 10


def test_unclosed_quote_past_the_field_limit_is_corrupt(monkeypatch: pytest.MonkeyPatch) -> None:
    # A lowered limit stands in for the real 64 MB one.
    monkeypatch.setattr(csv_reader, "_MAX_FIELD_CHARS", 1000)
    previous = csv.field_size_limit(1000)
    try:
        with pytest.raises(CorruptFile, match="quote") as info:
            read_bytes(b'a,b\n1,"' + b"x" * 5000 + b"\n2,3\n", name="open.csv")
    finally:
        csv.field_size_limit(previous)
    assert "open.csv" in str(info.value) and not isinstance(info.value, BinaryContent)


# Streaming


def test_grid_is_streamed_and_iterates_the_same_twice() -> None:
    grid = read_bytes(b"a,b,c\n1,,3\n\n4,5,6\n")
    assert grid.streamed and grid.cells == {} and grid.kind == "csv"
    assert (grid.n_rows, grid.n_cols, grid.cell_count) == (4, 3, 8)
    first = [(cell.ref, cell.text) for cell in grid.iter_cells()]
    assert first == [(cell.ref, cell.text) for cell in grid.iter_cells()]
    assert [cell.ref for cell in grid.iter_cells()] == ["A1", "B1", "C1", "A2", "C2", "A4", "B4",
                                                        "C4"]


def test_grid_outlives_a_closed_upload_buffer() -> None:
    buffer = io.BytesIO(b"a,b\n1,2\n")
    grid = read_csv(buffer, name="upload.csv", limits=Limits(), progress=no_progress)[0]
    buffer.close()
    assert texts(grid) == [["a", "b"], ["1", "2"]]


def test_grid_outlives_a_closed_file(tmp_path: Path) -> None:
    path = tmp_path / "table.csv"
    path.write_bytes(b"a,b\n1,2\n")
    stream = open_binary(path)
    grid = read_csv(stream, name=path.name, limits=Limits(), progress=no_progress)[0]
    stream.close()
    assert texts(grid) == [["a", "b"], ["1", "2"]]
    assert texts(read_file(path)[0]) == [["a", "b"], ["1", "2"]]  # read_file closes its stream


def test_grid_outlives_a_temporary_file() -> None:
    with tempfile.TemporaryFile() as handle:
        handle.write(b"a,b\n1,2\n")
        handle.seek(0)
        grid = read_csv(handle, name="temp.csv", limits=Limits(), progress=no_progress)[0]
    assert texts(grid) == [["a", "b"], ["1", "2"]]


def test_materialize_returns_the_cells_in_memory() -> None:
    grid = read_file(io.BytesIO(b"a,b\n1,2\n"), "small.csv")[0].materialize()
    assert not grid.streamed
    assert grid.get(2, 2).text == "2" and grid.get(1, 1).raw == "a"
    assert (grid.source, grid.sheet, grid.n_rows, grid.n_cols) == ("small.csv", "small", 2, 2)


def test_progress_is_reported_as_a_fraction_of_bytes() -> None:
    reports: list[float] = []
    data = b"n,square\n" + b"".join(b"%d,%d\n" % (i, i * i) for i in range(150_000))
    read_csv(io.BytesIO(data), name="squares.csv", limits=Limits(),
             progress=lambda fraction, stage: reports.append(fraction))
    # Every 4,096 rows: the bar moves during a long read (and Stop is checked as often).
    assert len(reports) == 150_001 // 4096 and all(0 < f <= 1 for f in reports)
    assert reports == sorted(reports)


cell_text = st.text(st.sampled_from("ab ,\"\n\r'é€1."), max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(cell_text, max_size=5), min_size=1, max_size=8))
def test_roundtrip_of_csv_module_output(rows: list[list[str]]) -> None:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    expected = {(r, c): text for r, row in enumerate(rows, 1)
                for c, text in enumerate(row, 1) if text.strip()}
    if not expected:
        with pytest.raises(EmptyFile):
            read_bytes(out.getvalue().encode())
        return
    grid = read_bytes(out.getvalue().encode())
    assert {(cell.row, cell.col): cell.text for cell in grid.iter_cells()} == expected
    # The validating pass counts fields that are not "" (see `_scan`).
    assert grid.cell_count == sum(len(row) - row.count("") for row in rows)


@pytest.mark.skipif(not BENCH_CSVS, reason="the benchmark tables are not beside the repo")
@pytest.mark.parametrize("path", BENCH_CSVS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_benchmark_tables_match_the_csv_module(path: Path) -> None:
    with open(path, encoding="utf-8-sig", newline="") as handle:
        expected = {(r, c): text for r, row in enumerate(csv.reader(handle), 1)
                    for c, text in enumerate(row, 1) if text.strip()}
    grid = read_file(path)[0]
    assert {(cell.row, cell.col): cell.text for cell in grid.iter_cells()} == expected


def test_a_semicolon_csv_with_decimal_commas_holds_numbers(tmp_path):
    """European exports separate fields with ";" and write "98,40": numbers, shown as written,
    and computed answers written the same way."""
    from agent.run import answer_question
    from storage.workspace import Workspace

    path = tmp_path / "bills.csv"
    path.write_text("Month;Utility;Cost (EUR)\n2025-01;Electricity;98,40\n2025-01;Water;41,10\n"
                    "2025-02;Electricity;92,80\n2025-02;Water;37,95\n", encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(path)
        total = answer_question(ws, "What was the total cost of electricity?")
        cell = answer_question(ws, "What did water cost in 2025-02?")
    finally:
        ws.close()
    assert total.answer == "191,20 EUR"
    assert total.values == [191.2]
    assert cell.answer == "37,95 EUR"


def test_a_comma_csv_keeps_commas_as_thousands(tmp_path):
    from agent.run import answer_question
    from storage.workspace import Workspace

    path = tmp_path / "sales.csv"
    path.write_text('Region,Sales\nNorth,"1,250"\nSouth,"2,500"\n', encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(path)
        total = answer_question(ws, "What were total sales?")
    finally:
        ws.close()
    assert total.answer == "3,750"
