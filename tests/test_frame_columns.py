"""A frame reads its data columns from `cells` one at a time: the values it gives must be the
ones the long view holds (a merged cell repeated over the rows and columns it spans), and a
question must not read columns it does not name."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.frame import POINT_READS, Frame, load_frames
from storage.workspace import Workspace
from tests.conftest import SAMPLES, bench_tables

FILES = [SAMPLES / "financial.xlsx", SAMPLES / "hr.xlsx", SAMPLES / "multi_sheet.xlsx",
         SAMPLES / "html" / "spans.html", SAMPLES / "md" / "two_tables.md",
         *bench_tables()]


def _long_view_cells(workspace: Workspace, frame: Frame) -> dict[tuple[int, str], tuple]:
    """(row, key) -> (text, number, kind, ref) from the long view, merged cells repeated as
    the wide view repeats them: what a frame held when it read the whole table at once."""
    info = workspace.table(frame.table)
    db = workspace.db
    by_col = {a.col: a.key for a in frame.data_attrs}
    spans = {r["ref"]: (r["rowspan"], r["colspan"]) for r in db.query(
        "SELECT ref, rowspan, colspan FROM cells WHERE grid = ? AND (rowspan > 1 OR colspan > 1)",
        [info.grid])}
    out: dict[tuple[int, str], tuple] = {}
    for text, number, kind, ref, r0, c0 in db.execute(
            f'SELECT text, number, kind, ref, row, col FROM "{info.long}"'):
        rowspan, colspan = spans.get(ref, (1, 1))
        for r in range(r0, r0 + rowspan):
            for c in range(c0, c0 + colspan):
                if r in frame.row_paths and c in by_col:
                    out[(r, by_col[c])] = (text, number, kind, ref)
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_columns_read_one_at_a_time_hold_the_long_views_values(tmp_path: Path, path: Path):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(path)
    for frame in load_frames(workspace):
        expected = _long_view_cells(workspace, frame)
        got = {(r, k): (v.text, v.number, v.kind, v.ref)
               for (r, k), v in frame.cells.items() if frame.attr(k).kind == "data"}
        assert got == expected
        texts = {(r, k): v.text for (r, k), v in load_frames(workspace, [frame.table])[0]
                 .text_cells() if frame.attr(k).kind == "data"}
        assert texts == {key: cell[0] for key, cell in got.items()
                         if not frame.value(*key).numeric}


def test_a_question_reads_only_the_columns_it_names(tmp_path: Path):
    path = tmp_path / "sales.csv"
    path.write_text("Item,Units,Sales,Cost\n" + "".join(
        f"Item {i},{i},{i * 10},{i * 3}\n" for i in range(30)), encoding="utf-8")
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(path)
    [frame] = load_frames(workspace)
    data = frame.data_attrs
    assert len(data) > 2
    assert not any(a.key in frame.columns for a in data)
    # A lookup reads its cells alone; a column asked for more often is read whole, once.
    key = data[1].key
    expected = _long_view_cells(workspace, frame)
    for i, row in enumerate(frame.rows):
        value = frame.value(row, key)
        assert (value.text, value.number, value.kind, value.ref) == expected[(row, key)]
        assert (key in frame.columns) == (i >= POINT_READS)
    assert [a.key for a in data if a.key in frame.columns] == [key]
