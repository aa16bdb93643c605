"""Stop ends a run inside a step: the long loops of a question (computing a table's facts,
reading a column) look at the run's cancel flag as they go, not only between steps."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agent import solver, stop
from agent.frame import load_frames
from agent.run import answer_question
from storage.workspace import Workspace


def _long_table(tmp_path: Path, rows: int = 3000) -> Workspace:
    lines = ["Item,Sales,Cost"] + [f"Item {i},{i * 7 % 1000},{i % 13}" for i in range(rows)]
    (tmp_path / "long.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(tmp_path / "long.csv")  # no facts yet: the question computes them
    return workspace


def test_stop_during_a_tables_facts_ends_the_run_there(tmp_path: Path, monkeypatch):
    workspace = _long_table(tmp_path)
    flag = threading.Event()
    seen: list[int] = []
    restates = solver._restates_others

    def counting(frame, row):
        seen.append(row)
        if len(seen) == 10:
            flag.set()  # the user presses Stop while the facts are being computed
        return restates(frame, row)

    monkeypatch.setattr(solver, "_restates_others", counting)
    answer = answer_question(workspace, "What is the total Sales?", cancel=flag)
    assert answer.error is not None and answer.error.kind == "cancelled"
    assert len(seen) == 10  # the very next row saw the flag; 3,000 rows were not read
    assert answer.steps[-1].phase == "cancelled"


def test_a_column_read_stops_when_the_run_is_stopped(tmp_path: Path):
    workspace = _long_table(tmp_path)
    [frame] = load_frames(workspace)
    flag = threading.Event()
    flag.set()
    with stop.watching(flag), pytest.raises(stop.Cancelled):
        frame.column("Sales")
    assert "Sales" not in frame.columns
    assert len(frame.column("Sales")) == 3000  # outside a run nothing stops it


def test_after_a_stop_the_next_question_is_answered(tmp_path: Path):
    workspace = _long_table(tmp_path)
    flag = threading.Event()
    flag.set()
    assert answer_question(workspace, "What is the total Sales?", cancel=flag).error.kind == \
        "cancelled"
    answer = answer_question(workspace, "What is the total Sales?")
    assert answer.values == [sum(i * 7 % 1000 for i in range(3000))]
