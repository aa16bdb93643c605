"""An aggregate over a whole column cites its cells as `ColumnCells`: the same (row, key) list
as before, read without a pass over it; and asking about the column again keeps reading it in
SQL, with the same answer and the same citation, without reading the column or decoding the
row tree."""

from __future__ import annotations

from pathlib import Path

from agent.column_cells import ColumnCells, cells_key, cited_keys, cited_row_count, cited_rows
from agent.context import SHARED_FRAMES
from agent.prepare import prepare_tables
from agent.run import answer_question
from storage.workspace import Workspace


def test_column_cells_are_the_list_of_their_pairs():
    cells = ColumnCells([4, 5, 7], "Sales")
    plain = [(4, "Sales"), (5, "Sales"), (7, "Sales")]
    assert cells == plain and list(cells) == plain and len(cells) == 3
    for given in (cells, plain):
        assert cited_keys(given) == ["Sales"]
        assert list(cited_rows(given)) == [4, 5, 7]
        assert cited_row_count(given) == 3
    assert cells_key(cells) == cells_key(ColumnCells([4, 5, 7], "Sales"))
    assert cells_key(cells) != cells_key(ColumnCells([4, 5, 8], "Sales"))
    assert cited_keys([(1, "a"), (1, "b"), (2, "a")]) == ["a", "b"]
    assert cited_row_count([(1, "a"), (1, "b"), (2, "a")]) == 2


def test_asking_a_column_s_total_again_does_not_read_the_column(tmp_path: Path):
    path = tmp_path / "sales.csv"
    path.write_text("Item,Units,Sales\n" + "".join(
        f"Item {i},{i},{i * 10}\n" for i in range(1, 101)), encoding="utf-8")
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(path)
    prepare_tables(workspace, workspace.table_ids())  # the table's facts, as after an upload
    try:
        answers = [answer_question(workspace, "What is the total Sales?") for _ in range(6)]
        [frame] = SHARED_FRAMES.load(workspace, workspace.table_ids())
        # The cells each citation shows are read alone: counted as reads of the column, the
        # second question read all of it, and the aggregates after it ran in Python.
        assert not any(a.label == "Sales" and a.key in frame.columns for a in frame.data_attrs)
        # The 50 rows each shows with their labels are the same rows: counted again on each
        # question, the fifth decoded the row tree.
        assert frame.side.decoded == 0
    finally:
        workspace.close()
    assert {tuple(a.values) for a in answers} == {(50500,)}
    first = answers[0]
    assert first.evidence_sets and first.evidence_sets[0].count == 100
    for again in answers[1:]:
        assert again.evidence == first.evidence
        assert again.evidence_sets == first.evidence_sets
