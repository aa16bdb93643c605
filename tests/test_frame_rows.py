"""A frame reads its rows lazily (agent/frame.py `RowSide`): a row's path and label read alone
from the workspace are those of the decoded HO-Tree, and a lookup decodes no tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.frame import RowSide, load_frames
from agent.run import answer_question
from ingest.limits import Limits
from storage.workspace import Workspace
from tests.conftest import SAMPLES
from tests.test_table_facts_sql import TRICKY, _swallowed


def _workspace(tmp_path: Path) -> Workspace:
    workspace = Workspace(tmp_path / "ws")
    for name, text in TRICKY.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        workspace.add_file(tmp_path / name)
    (tmp_path / "flat.csv").write_text(TRICKY["ids.csv"].replace("Team", "Club"), "utf-8")
    workspace.add_file(tmp_path / "flat.csv", limits=Limits(flat_csv_cells=0))
    workspace.add_file(_swallowed(tmp_path / "swallowed.xlsx"))
    for sample in ["financial.xlsx", "hr.xlsx", "multi_sheet.xlsx", "html/spans.html",
                   "html/multi.html", "md/two_tables.md", "csv/latin1_semicolon.csv"]:
        workspace.add_file(SAMPLES / sample)
    return workspace


def test_rows_read_alone_are_the_trees(tmp_path: Path):
    workspace = _workspace(tmp_path)
    alone = 0
    for lazy in load_frames(workspace):
        [tree] = [f for f in load_frames(Workspace(tmp_path / "ws")) if f.table == lazy.table]
        decoded = tree.side.tree()
        assert lazy.row_count == len(decoded.rows), lazy.table
        levels = [a.key for a in lazy.levels]
        for row in decoded.rows:
            assert lazy.row_paths.get(row) == decoded.paths[row], (lazy.table, row)
            for key in levels:
                label = lazy.side.label(row)
                if label is not False:
                    alone += 1
                    assert label == decoded.levels[key].get(row), (lazy.table, row)
        assert lazy.row_paths.get(max(decoded.rows, default=0) + 1) is None
        assert lazy.rows == decoded.rows
        grouped: dict[tuple[str, ...], list[int]] = {}
        for row, path in decoded.paths.items():
            grouped.setdefault(path, []).append(row)
        assert {p: sorted(r) for p, r in lazy.side.path_groups().items()} == grouped
    assert alone > 0  # some labels were read alone, and compared


def test_a_lookup_decodes_no_row_tree(tmp_path: Path, monkeypatch):
    workspace = Workspace(tmp_path / "ws")
    lines = ["Customer,City,Units"] + [f"Customer {i:05d},City {i % 7},{i}" for i in range(3000)]
    (tmp_path / "big.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    workspace.add_file(tmp_path / "big.csv", limits=Limits(flat_csv_cells=0))
    answer_question(workspace, "What is the City of Customer 00007?")  # computes the facts
    decoded: list[str] = []
    tree = RowSide.tree

    def counting(side):
        decoded.append("tree")
        return tree(side)

    monkeypatch.setattr(RowSide, "tree", counting)
    from agent.context import SHARED_FRAMES

    monkeypatch.setattr(SHARED_FRAMES, "_frames", type(SHARED_FRAMES._frames)())
    answer = answer_question(Workspace(tmp_path / "ws"), "What is the City of Customer 00007?")
    assert answer.values == ["City 0"]
    assert answer.evidence[0].ref == "B9"
    assert decoded == []


def test_a_trees_rows_are_read_when_first_needed_even_once_its_connection_is_closed(
        tmp_path: Path):
    from storage.header_tree import HeaderTree
    from storage.views import read_catalog

    workspace = _workspace(tmp_path)
    lines = ["Customer,City"] + [f"Customer {i:05d},City {i % 7}" for i in range(2500)]
    (tmp_path / "tall.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    workspace.add_file(tmp_path / "tall.csv", limits=Limits(flat_csv_cells=0))
    stored = {row[0]: HeaderTree.from_stored(row[1])
              for row in workspace.db.execute("SELECT id, tree FROM catalog").fetchall()}
    infos = read_catalog(workspace.db)
    assert {i.id for i in infos} == set(stored)
    # Each was read up to its row chunks alone, as the catalog writes them (`"chunks": [`).
    assert all(info.tree._rest is not None for info in infos)
    for info in infos:
        assert info.tree.columns == stored[info.id].columns
        assert info.tree.schema_version == stored[info.id].schema_version
    workspace.close()
    for info in infos:
        assert info.tree.rows == stored[info.id].rows
    assert max(len(info.tree.rows.paths) for info in infos) == 2500


def test_a_results_rows_are_shown_with_their_labels_without_a_row_tree(tmp_path: Path,
                                                                       monkeypatch):
    """The 50 rows a result shows are read with their labels and cells in a few queries, as
    read one by one (and as the decoded tree gives them), without decoding the row tree."""
    workspace = Workspace(tmp_path / "ws")
    lines = ["Customer,City,Units"] + [f"Customer {i:05d},City {i % 7},{i}" for i in range(300)]
    (tmp_path / "big.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    workspace.add_file(tmp_path / "big.csv", limits=Limits(flat_csv_cells=0))
    [frame] = load_frames(workspace)
    [one_by_one] = load_frames(workspace)
    [decoded] = load_frames(workspace)
    decoded.side.tree()
    rows = frame.rows[100:150]
    tree = RowSide.tree
    monkeypatch.setattr(RowSide, "tree", lambda side: pytest.fail("the row tree was decoded"))
    for attr in frame.attrs:
        shown = frame.values_of(attr.key, rows, whole=False)
        assert shown == [one_by_one.value(r, attr.key) for r in rows]
        assert attr.key not in frame.columns
    monkeypatch.setattr(RowSide, "tree", tree)
    assert shown == decoded.values_of(attr.key, rows)
    assert frame.values_of(frame.levels[0].key, rows, whole=False) == \
        decoded.values_of(frame.levels[0].key, rows)
