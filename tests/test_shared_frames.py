"""Frames outlive a run in the process, and a kept frame never answers for a table that
changed since."""

from __future__ import annotations

from pathlib import Path

from agent.context import SharedFrames
from agent.run import answer_question
from storage.workspace import Workspace
from tests.conftest import SAMPLES


def _write_csv(path: Path, amount: int) -> Path:
    path.write_text(f"Item,Sales\nA,{amount}\nB,20\nC,45\n", encoding="utf-8")
    return path


def test_a_second_load_gives_the_same_frame_with_what_it_read(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(SAMPLES / "financial.xlsx")
    shared = SharedFrames(max_cells=10_000)
    [table, *_] = workspace.table_ids()
    [first] = shared.load(workspace, [table])
    first.column(first.data_attrs[0].key)
    [again] = shared.load(Workspace(tmp_path / "ws"), [table])
    assert again is first and first.data_attrs[0].key in again.columns


def test_a_new_version_or_another_file_of_the_same_name_gets_a_new_frame(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws")
    source = workspace.add_file(_write_csv(tmp_path / "sales.csv", 1))
    shared = SharedFrames(max_cells=10_000)
    [table] = workspace.table_ids()
    [first] = shared.load(workspace, [table])
    workspace.remove_source(source.sha256)
    workspace.add_file(_write_csv(tmp_path / "sales.csv", 100))
    assert workspace.table_ids() == [table]
    [second] = shared.load(workspace, [table])
    assert second is not first
    assert second.value(second.rows[0], "Sales").number == 100


def test_frames_beyond_the_cell_budget_are_let_go(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(SAMPLES / "multi_sheet.xlsx")
    tables = workspace.table_ids()
    assert len(tables) >= 2
    shared = SharedFrames(max_cells=1)
    [first] = shared.load(workspace, tables[:1])
    first.column(first.data_attrs[0].key)  # a frame holds the cells it has read
    [second] = shared.load(workspace, tables[1:2])
    second.column(second.data_attrs[0].key)
    [again] = shared.load(workspace, tables[:1])
    assert again is not first


def test_the_second_question_in_a_process_is_answered_the_same(tmp_path: Path):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(_write_csv(tmp_path / "sales.csv", 10))
    question = "What is the total Sales?"
    assert answer_question(workspace, question).values == answer_question(
        workspace, question).values == [75]
