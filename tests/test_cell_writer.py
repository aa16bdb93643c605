"""The text of a plain General float is written by SQLite (`storage.cell_writer`): it must be
the text General shows, on whichever SQLite Python links."""

from __future__ import annotations

import random
import sqlite3

import openpyxl

from ingest.numfmt import general
from storage.workspace import Workspace

_FLOATS = [0.1, 0.2, 0.3, 1.5, -2.25, 0.0001, 0.00012345, 123.45, 1234567.8901,
           99999999999.5, 9999999999.5, 12345678.9012, 1e-5, 1e20, 12.0, -0.0, 1 / 3, 2 / 3]


def _plain(value: float) -> bool:
    """A General float that `ingest.structure` keeps as a plain number."""
    text = general(value)
    return text == repr(value) and "e" not in text and "n" not in text


def test_sqlite_writes_a_plain_general_float_as_general_does():
    rng = random.Random(3)
    values = _FLOATS + [round(rng.uniform(-1, 1) * 10 ** rng.randint(-6, 12), rng.randint(0, 11))
                        for _ in range(20_000)]
    plain = [v for v in values if _plain(v)]
    assert len(plain) > 5_000
    conn = sqlite3.connect(":memory:")
    written = [conn.execute("SELECT CAST(? AS TEXT)", (v,)).fetchone()[0] for v in plain]
    assert written == [general(v) for v in plain]


def test_stored_texts_of_general_floats_are_generals(tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.cell(1, 1, "Item")
    ws.cell(1, 2, "Value")
    for i, value in enumerate(_FLOATS, start=2):
        ws.cell(i, 1, f"Item {i}")
        ws.cell(i, 2, value)
    path = tmp_path / "floats.xlsx"
    wb.save(path)
    workspace = Workspace(tmp_path / "w")
    workspace.add_file(path)
    rows = workspace.db.conn.execute(
        "SELECT raw, text FROM cells WHERE col = 2 AND row > 1 ORDER BY row").fetchall()
    assert [raw for raw, _ in rows] == _FLOATS
    assert [text for _, text in rows] == [general(v) for v in _FLOATS]
