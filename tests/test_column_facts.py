"""A numeric column's counts and extremes over the whole table's rows (agent/column_facts.py)
are stored by an upload, answer what a scan of the column's cells would, are filled on a
workspace stored before them, and follow the file when it is replaced."""

from __future__ import annotations

from pathlib import Path

from agent.cell_scan import NOT_NUMERIC, scan_of
from agent.column_doubts import whole_rows
from agent.column_facts import column_counts, column_scan
from agent.frame import load_frames
from agent.prepare import add_prepared
from agent.run import answer_question
from storage.workspace import Workspace
from tests.test_agent_ops import write_book

SALES = [["Store", "Units", "Price"]] + [[f"Store {i}", i % 7, 2.5 * (i % 3)] for i in range(40)]


def _frame(ws: Workspace):
    [frame] = load_frames(ws, ws.table_ids())  # a new frame: as in the next process
    return frame


def _stored(ws: Workspace) -> set[str]:
    return {name for (name,) in ws.db.execute(
        "SELECT name FROM table_profiles WHERE name LIKE 'counts:%'")}


def test_an_upload_stores_each_numeric_column_s_counts_which_answer_as_the_cells_do(
        tmp_path: Path):
    ws = Workspace(tmp_path / "ws")
    add_prepared(ws, write_book(tmp_path / "sales.xlsx", "Sales", SALES))
    frame = _frame(ws)
    assert _stored(ws) == {f"counts:{a.key}" for a in frame.data_attrs}
    rows = whole_rows(frame)
    cells = scan_of(frame, rows)
    for attr in frame.data_attrs:
        stored, col = column_scan(frame, attr.key, list(rows))
        assert stored is not cells and col == attr.col
        assert stored.whole_sum(col) == cells.whole_sum(col)
        for op in ("max", "min"):
            value, count = stored.extreme(col, op)
            assert (value, count) == cells.extreme(col, op)
            assert stored.rows_equal(col, value) == cells.rows_equal(col, value)
        letters = frame.value(rows[0], attr.key).ref.rstrip("0123456789")
        assert stored.refs_of_letters(col, letters) == cells.refs_of_letters(col, letters)
        assert stored.count(col, NOT_NUMERIC) == cells.count(col, NOT_NUMERIC)
        assert attr.key not in frame.columns  # read from the workspace, not the cells
    # Other rows are scanned in SQL as before.
    partial, col = column_scan(frame, "Units", list(rows[:5]))
    assert partial.whole_sum(col) == (5, sum(i % 7 for i in range(5)))
    ws.close()


def test_a_workspace_stored_without_them_fills_them_on_its_first_question(tmp_path: Path):
    ws = Workspace(tmp_path / "ws")
    add_prepared(ws, write_book(tmp_path / "sales.xlsx", "Sales", SALES))
    ws.db.execute("DELETE FROM table_profiles WHERE name LIKE 'counts:%'")
    ws.db.conn.commit()
    answer = answer_question(ws, "What is the total Units?")
    assert answer.values == [sum(i % 7 for i in range(40))]
    assert _stored(ws) == {"counts:Units"}
    assert column_counts(_frame(ws), "Units").whole_sum == (40, sum(i % 7 for i in range(40)))
    ws.close()


def test_a_replaced_file_s_counts_are_its_own(tmp_path: Path):
    ws = Workspace(tmp_path / "ws")
    info, _ = add_prepared(ws, write_book(tmp_path / "sales.xlsx", "Sales", SALES))
    assert answer_question(ws, "What is the highest Units?").values == [6]
    ws.remove_source(info.sha256)
    assert _stored(ws) == set()  # gone with the table
    bigger = [SALES[0]] + [[name, units * 10, price] for name, units, price in SALES[1:]]
    add_prepared(ws, write_book(tmp_path / "sales.xlsx", "Sales", bigger))
    frame = _frame(ws)
    assert column_counts(frame, "Units").extremes["max"][0] == 60
    assert answer_question(ws, "What is the highest Units?").values == [60]
    assert answer_question(ws, "What is the total Units?").values == \
        [10 * sum(i % 7 for i in range(40))]
    ws.close()
