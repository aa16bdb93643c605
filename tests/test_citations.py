"""A set of cited cells in the chat: its pill in the table's words, the window drawn and the
cells highlighted in it."""

from __future__ import annotations

import pytest

from storage.workspace import Workspace
from tablelens.citations import set_label, set_refs, set_window


@pytest.fixture
def table(tmp_path, samples):
    ws = Workspace(tmp_path / "ws")
    ws.add_file(samples / "financial.xlsx")
    return ws.table(ws.table_ids()[0])


def cells(*ranges: str, count: int = 3) -> dict:
    return {"table": "t", "sheet": "P&L", "ranges": list(ranges), "count": count}


def test_a_set_is_named_by_its_columns_header_paths_or_its_rows_path(table):
    assert set_label(cells("C5:C7"), table) == "H1 2024 > Q2, 3 cells"
    assert set_label(cells("B3:C4"), table) == "H1 2024 > Q1 and H1 2024 > Q2, 3 cells"
    assert set_label(cells("B3:E4"), table) == \
        "H1 2024 > Q1, H1 2024 > Q2 and 2 more columns, 3 cells"
    assert set_label(cells("B5:E5"), table) == "Operating Expenses > Salaries, 3 cells"


def test_a_set_of_a_removed_table_says_where_it_was():
    assert set_label(cells("B3:E4", count=8), None) == "P&L!B3:E4, 8 cells"


def test_a_big_set_highlights_the_cells_of_the_window_drawn():
    big = cells("D3:D2002", "F3:F2002", count=4000)
    window = set_window(big, None)
    assert window == (1, 1, 200, 50)  # from a little above its first cell, 200 rows
    refs = set_refs(big, window)
    assert len(refs) == 2 * 198 and {"D3", "D200", "F3", "F200"} <= refs and "D201" not in refs
