"""Plain data cells stored by blocks of a column (`storage.plain_cells`): read back as the rows
of schema 9 held them, found by the readers' indexes, and written as rows when JSON cannot
hold them exactly."""

from __future__ import annotations

import random

import openpyxl
import pytest

from agent.set_check import set_sql
from storage.cells_codec import CELL_COLUMNS
from storage.plain_cells import (
    BLOCK_FIELDS,
    BLOCK_ROWS,
    PLAIN_COLUMNS,
    PLAIN_FROM,
    PLAIN_WHERE,
    block_row,
    plain_values,
)
from storage.workspace import Workspace
from tests.cell_stores import plain_cells_as_rows

_TYPED = ", ".join(f"{c}, typeof({c})" for c in CELL_COLUMNS)


@pytest.fixture
def tricky(tmp_path) -> Workspace:
    """A table whose data cells are plain but for a few, over more than one block of rows:
    whole and fractional floats, ints, texts (one reads "null"), a formatted number, gaps."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Item", "Amount", "Note", "Count", "Random"])
    values = [3.0, -2.5, 2.0**63, 1e20, 0.1, 7, 123456789012.5, 2.0**62]
    rng = random.Random(5)
    for r in range(2, 2 + 3 * BLOCK_ROWS):
        ws.cell(r, 5, round(rng.uniform(-1, 1) * 10 ** rng.randint(-6, 12), rng.randint(0, 11)))
        ws.cell(r, 1, f"Item {r}")
        ws.cell(r, 2, values[r % len(values)])
        if r % 5:
            ws.cell(r, 3, "null" if r == 41 else f"note {r % 7}")
        ws.cell(r, 4, r * 1000).number_format = "#,##0"
    path = tmp_path / "tricky.xlsx"
    wb.save(path)
    workspace = Workspace(tmp_path / "w")
    workspace.add_file(path)
    return workspace


def test_plain_cells_read_back_as_the_rows_that_held_them(tricky):
    conn = tricky.db.conn
    assert conn.execute("SELECT count(*) FROM plain_cells").fetchone()[0] > 3
    stored = conn.execute(f"SELECT {_TYPED} FROM cells ORDER BY grid, row, col").fetchall()
    long = conn.execute('SELECT * FROM "tricky__sheet__t0__long" ORDER BY row, col').fetchall()
    # Rows bound from Python, the cell writer's way for cells that are not plain.
    rows = conn.execute("SELECT count(*) FROM cell_rows").fetchone()[0]
    plain_cells_as_rows(conn)
    assert conn.execute("SELECT count(*) FROM cell_rows").fetchone()[0] > rows
    assert conn.execute(f"SELECT {_TYPED} FROM cells ORDER BY grid, row, col").fetchall() \
        == stored
    assert conn.execute('SELECT * FROM "tricky__sheet__t0__long" ORDER BY row, col'
                        ).fetchall() == long


def test_numbers_keep_the_types_the_cells_table_gave_them(tricky):
    found = {raw: rest for raw, *rest in tricky.db.conn.execute(
        "SELECT raw, raw_type, text, number, typeof(number), value, typeof(value) FROM cells "
        "WHERE col = 2 AND row BETWEEN 2 AND 9")}
    # A whole float's number is an integer in a NUMERIC column; past 2**63 it stays a float.
    assert found[2.0**62] == ["float", "4.6116860184E+18", 2**62, "integer", 2.0**62, "real"]
    assert found[2.0**63][2:] == [2.0**63, "real", 2.0**63, "real"]
    assert found[3] == ["int", "3", 3, "integer", 3.0, "real"]  # 3.0 is read back as 3
    assert found[7] == ["int", "7", 7, "integer", 7.0, "real"]
    assert found[-2.5] == ["float", "-2.5", -2.5, "real", -2.5, "real"]
    counts = tricky.db.conn.execute("SELECT raw, text, number FROM cells WHERE col = 4 "
                                    "AND row = 3").fetchall()
    assert counts == [(3000, "3,000", 3000)]


def test_a_cell_is_found_by_its_row_block_and_a_column_down_its_index(tricky):
    conn = tricky.db.conn
    row = BLOCK_ROWS + 5
    [(ref, text)] = conn.execute("SELECT ref, text FROM cells WHERE grid = ? AND row_block = ? "
                                 "AND row = ? AND col = ?",
                                 ["tricky__sheet", row // BLOCK_ROWS, row, 4]).fetchall()
    assert (ref, text) == (f"D{row}", f"{row * 1000:,}")
    plans = {
        "cell": ("SELECT text FROM cells WHERE grid = 'g' AND row_block = 1 AND row = 130 "
                 "AND col = 2"),
        "column": ("SELECT text, number, row FROM column_cells WHERE grid = 'g' AND "
                   "table_id = 't' AND col = 2 AND kind IS NOT NULL AND rowspan = 1 AND "
                   "colspan = 1"),
        "set by rows": set_sql("count", tall=False),
        "set by columns": set_sql("sum", tall=True),
    }
    for name, sql in plans.items():
        steps = [r[3] for r in conn.execute(
            f"EXPLAIN QUERY PLAN {sql}", {"boxes": "[]", "grid": "g", "table": "t"})]
        plan = " | ".join(steps)
        # `cell_rows` is read as such in the views and as `c` in the set's check, plain
        # blocks as `b`: each through an index, none scanned nor materialized whole.
        assert not {"SCAN cell_rows", "SCAN b", "MATERIALIZE cells"} & set(steps), (name, plan)
        assert any(s.startswith(("SEARCH cell_rows", "SEARCH c ")) for s in steps), (name, plan)
        assert any(s.startswith("SEARCH b USING INDEX plain_cells_by_") for s in steps), (
            name, plan)


def test_the_frame_decodes_plain_cells_as_the_view_expands_them(tricky):
    conn = tricky.db.conn
    fields = ("row", "text", "number", "kind", "ref")

    def typed(cells):
        return sorted(tuple((type(v).__name__, v) for v in cell) for cell in cells)

    decoded = typed(plain_values(conn.execute(f"SELECT {BLOCK_FIELDS} FROM plain_cells")))
    expanded = typed(conn.execute(f"SELECT {', '.join(PLAIN_COLUMNS[f] for f in fields)} "
                                  f"FROM {PLAIN_FROM} WHERE {PLAIN_WHERE}"))
    assert len(decoded) > 4 * BLOCK_ROWS and decoded == expanded


@pytest.mark.parametrize("cells, kept", [
    ([(1, 1.5), (3, 2)], True),  # a gap between them: a null
    ([(1, float("nan"))], False),  # orjson writes null: SQLite stored NULL, not a gap
    ([(1, float("inf"))], False),  # SQLite stored an infinity
    ([(1, "a null b")], False),  # its nulls cannot be told from gaps: written as rows
    ([(1, "\ud800")], False),  # not valid Unicode
    ([(1, "a\x00b")], False),  # SQLite's JSON ends the string at its NUL
    ([(1, "a\x01b")], True),
])
def test_a_block_json_cannot_hold_exactly_is_refused(cells, kept):
    key = ("str", "text", None, "none", "raw")
    assert (block_row(("g", "t", 1, "A"), key, 0, cells) is not None) is kept


def test_a_refused_block_is_stored_as_rows_all_the_same(tricky):
    [(raw, kind, number)] = tricky.db.conn.execute(
        "SELECT raw, kind, number FROM cell_rows WHERE col = 3 AND row = 41").fetchall()
    assert (raw, kind, number) == ("null", "text", None)
