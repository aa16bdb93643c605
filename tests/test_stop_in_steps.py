"""Stop ends a run inside a step: the long loops of a question (computing a table's facts,
reading a column) look at the run's cancel flag as they go, not only between steps."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from agent import stop, table_facts
from agent.cell_scan import CellScan
from agent.frame import load_frames
from agent.run import answer_question
from ingest.gcpause import gc_paused
from storage.header_tree import ROW_CHUNK
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
    texts = CellScan.texts

    def counting(scan, col, *args):
        found = texts(scan, col, *args)
        seen.append(col)
        flag.set()  # the user presses Stop while the facts are being computed
        return found

    monkeypatch.setattr(CellScan, "texts", counting)
    answer = answer_question(workspace, "What is the total Sales?", cancel=flag)
    assert answer.error is not None and answer.error.kind == "cancelled"
    assert len(seen) == 1  # the next read of a column saw the flag (of two columns)
    assert answer.steps[-1].phase == "cancelled"


def test_stop_during_the_facts_of_a_table_read_row_by_row(tmp_path: Path, monkeypatch):
    workspace = _long_table(tmp_path)
    [frame] = load_frames(workspace)
    flag = threading.Event()
    seen: list[int] = []
    restates = table_facts.restates_others

    def counting(frame, row, cells):
        seen.append(row)
        if len(seen) == 10:
            flag.set()
        return restates(frame, row, cells)

    monkeypatch.setattr(table_facts, "restates_others", counting)
    with stop.watching(flag), pytest.raises(stop.Cancelled):
        table_facts.compute_profile(frame, by_sql=False)
    assert len(seen) == 10  # the very next row saw the flag; 3,000 rows were not read


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


def test_checked_loops_stop_between_items_and_only_inside_a_run():
    flag = threading.Event()
    seen: list[int] = []
    with stop.watching(flag), pytest.raises(stop.Cancelled):
        for n in stop.checked(range(20), every=5):
            seen.append(n)
            if n == 7:
                flag.set()
    assert seen == list(range(10))  # the check after item 9 saw the flag
    assert list(stop.checked(range(20), every=5)) == list(range(20))  # no run: no checks


def test_a_tables_row_tree_decodes_in_chunks_a_stop_can_end(tmp_path: Path):
    workspace = _long_table(tmp_path, rows=2 * ROW_CHUNK + 10)
    flag = threading.Event()
    chunks: list[int] = []
    real_check = stop.check

    def stop_at_second_chunk() -> None:
        chunks.append(1)
        if len(chunks) == 2:
            flag.set()
        real_check()

    [info] = workspace.tables()
    with stop.watching(flag), pytest.raises(stop.Cancelled):
        info.tree.load_rows(between_chunks=stop_at_second_chunk)
    assert len(chunks) == 2
    assert len(info.tree.rows.paths) == 2 * ROW_CHUNK + 10  # read whole outside the run


def test_a_step_pauses_the_collector_and_turns_it_back_on(tmp_path: Path, monkeypatch):
    workspace = _long_table(tmp_path, rows=50)
    during: list[bool] = []
    texts = CellScan.texts

    def looking(scan, col, *args):
        during.append(gc.isenabled())
        return texts(scan, col, *args)

    monkeypatch.setattr(CellScan, "texts", looking)
    assert gc.isenabled()
    assert answer_question(workspace, "What is the total Sales?").answer is not None
    assert during and not any(during)
    assert gc.isenabled()


def test_the_collector_pause_is_shared_by_threads():
    # An upload and a question at once: the first to end must not turn the collector on
    # under the other.
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait()

    thread = threading.Thread(target=other)
    with gc_paused():
        thread.start()
        inside.wait()
    assert not gc.isenabled()  # the other pause is still on
    release.set()
    thread.join()
    assert gc.isenabled()
