"""A column's doubts over the whole table's rows are computed once after an upload and read
back by the next process without reading the column; over other rows they are computed."""

from __future__ import annotations

import pytest

from agent.column_doubts import column_doubt, doubt, whole_rows
from agent.frame import load_frames
from agent.prepare import add_prepared
from agent.run import answer_question
from agent.solver import _holds_its_total, _nested, _percent_values, _subtotal_runs
from storage.workspace import Workspace
from tests.test_agent_ops import write_book

VISITORS = [
    ["Region", "Visitors", "Share"],
    ["North", 40, "40%"],
    ["South", 35, "35%"],
    ["West", 25, "25%"],
    ["Country", 100, "100%"],            # the total of the others, not labelled "Total"
]


@pytest.fixture
def workspace(tmp_path):
    ws = Workspace(tmp_path / "ws")
    add_prepared(ws, write_book(tmp_path / "visitors.xlsx", "Visitors", VISITORS))
    yield ws
    ws.close()


def _frame(ws: Workspace):
    [frame] = load_frames(ws, ws.table_ids())
    return frame


def test_an_upload_stores_each_numeric_column_s_doubts_and_the_next_frame_reads_them(workspace):
    frame = _frame(workspace)  # a new frame, as in the next process: nothing read yet
    keys = {a.label: a.key for a in frame.data_attrs}
    stored = [column_doubt(frame, keys["Visitors"], check)
              for check in (_percent_values, _holds_its_total, _subtotal_runs, _nested)]
    assert keys["Visitors"] not in frame.columns  # read from the workspace, not the cells
    assert stored == [False, True, False, False]
    assert column_doubt(frame, keys["Share"], _percent_values)
    assert keys["Share"] not in frame.columns


def test_the_whole_table_s_rows_read_the_stored_doubt_and_other_rows_compute_theirs(workspace):
    frame = _frame(workspace)
    key = next(a.key for a in frame.data_attrs if a.label == "Visitors")
    rows = whole_rows(frame)
    assert doubt(frame, list(rows), key, _holds_its_total)
    assert key not in frame.columns
    # Without the "Country" row no row is the total of the others.
    assert not doubt(frame, rows[:3], key, _holds_its_total)


@pytest.mark.parametrize(("question", "reason"), [
    ("What is the total Visitors?", "one of the rows is the total (or a subtotal) of the others"),
    ("What is the total Share?", "adding percentages of different totals means nothing"),
])
def test_questions_over_the_whole_table_are_refused_for_the_stored_doubt(workspace, question,
                                                                         reason):
    answer = answer_question(workspace, question)
    assert answer.answer is None and reason in answer.error.message
