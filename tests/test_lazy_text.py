"""A General number's display text is built when read, not held (`ingest.grid`): the reader
leaves it out, every reader of `Cell.text` still sees it, and the stored cells hold it."""

from __future__ import annotations

import sqlite3

import openpyxl

from ingest.grid import Cell, given_text, shows_text
from ingest.read import read_file
from storage.workspace import Workspace

GENERAL = [7, -3, 2**40, 1234.5, 0.1 + 0.2, 5.0, 1e20, 1.5e-7, 123456789012.5]
SHOWN = ["7", "-3", "1099511627776", "1234.5", "0.3", "5", "1E+20", "1.5E-07", "1.2345678901E+11"]


def test_a_cell_without_a_given_text_shows_its_number_as_general_writes_it():
    cells = [Cell(1, 1, value, None) for value in GENERAL]  # type: ignore[arg-type]
    assert [c.text for c in cells] == SHOWN
    assert all(given_text(c) is None and shows_text(c) for c in cells)
    # Equal to the same cell given its text, so no reader of cells can tell them apart.
    assert cells[3] == Cell(1, 1, 1234.5, "1234.5")
    blank = Cell(1, 1, "  ", "  ")
    assert given_text(blank) == "  " and not shows_text(blank)
    cells[0].text = "seven"  # a text set later is held
    assert cells[0].text == "seven" and given_text(cells[0]) == "seven"


def _workbook(path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Item", "A", "B", "C"])
    for r, value in enumerate(GENERAL):
        ws.append([f"Item {r}", value, value, True])
    ws.cell(2, 3).number_format = "0.00"
    wb.save(path)


def test_xlsx_general_numbers_are_read_without_a_text_and_stored_with_it(tmp_path):
    _workbook(tmp_path / "n.xlsx")
    [grid] = read_file(tmp_path / "n.xlsx")
    column = [grid.get(r, 2) for r in range(2, 2 + len(GENERAL))]
    assert [given_text(c) for c in column] == [None] * len(GENERAL)
    assert [c.text for c in column] == SHOWN
    assert given_text(grid.get(2, 3)) == "7.00"  # a formatted number keeps its text
    assert grid.get(2, 4).text == "TRUE"  # a bool is not a General number
    ws = Workspace(tmp_path / "ws")
    ws.add_file(tmp_path / "n.xlsx")
    conn = sqlite3.connect(next((tmp_path / "ws").rglob("workspace.sqlite")))
    stored = dict(conn.execute("SELECT ref, text FROM cells WHERE col = 2 AND row > 1"))
    assert [stored[f"B{r}"] for r in range(2, 2 + len(GENERAL))] == SHOWN
    types = {t for (t,) in conn.execute("SELECT typeof(text) FROM cells")}
    assert types == {"text"}
