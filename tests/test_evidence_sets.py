"""Evidence sets: an aggregate over many cells cites a few cells and the whole set as ranges,
the answer stays small at any size, and validate re-reads every cell of every set in SQL."""

from __future__ import annotations

import json
import os

import pytest

from agent.events import Answer, Evidence, EvidenceSet
from agent.evidence_sets import EDGE_CELLS, SET_THRESHOLD, a1_ranges, cell_of, cite
from agent.run import answer_question
from agent.set_check import check_sets, set_sql
from storage.workspace import Workspace
from tablelens.cli import main
from tests.cell_stores import plain_cells_as_rows

ROWS = 100_000
MAX_ANSWER_BYTES = 20_000


# --- ranges and the threshold ---------------------------------------------------------------

def test_a_column_of_consecutive_rows_is_one_range():
    assert a1_ranges((r, 4) for r in range(3, 2003)) == ["D3:D2002"]


def test_a_row_across_columns_and_equal_runs_of_neighbouring_columns_are_one_range():
    assert a1_ranges((5, c) for c in range(2, 52)) == ["B5:AY5"]
    assert a1_ranges((r, c) for r in range(3, 10) for c in (2, 3, 5)) == ["B3:C9", "E3:E9"]


def test_gaps_split_ranges_and_every_cell_is_covered_once():
    cells = [(3, 2), (4, 2), (7, 2), (3, 3), (5, 3)]
    assert a1_ranges(cells) == ["B3:B4", "B7", "C3", "C5"]


def _cells(n: int) -> list[Evidence]:
    return [Evidence(table="t", sheet="S", ref=f"B{r}", text=str(r), value=r)
            for r in range(2, 2 + n)]


def test_small_results_cite_every_cell_and_no_set():
    cited = cite(_cells(SET_THRESHOLD))
    assert len(cited.evidence) == SET_THRESHOLD and cited.sets == []
    assert cited.sets_or_none is None  # absent from the JSON, never null


def test_many_cells_keep_the_first_and_last_few_and_one_set_for_all():
    cells = _cells(SET_THRESHOLD + 1)
    cited = cite(cells)
    assert cited.evidence == cells[:EDGE_CELLS] + cells[-EDGE_CELLS:]
    assert cited.sets == [EvidenceSet(table="t", sheet="S", ranges=["B2:B22"], count=21)]
    assert cited.cells == cells


def test_a_set_s_ranges_read_merged_refs_at_their_anchor_whatever_the_order_of_the_cells():
    refs = ["D3", "B2:C3", "D4", "E9", "D6", "AA10", "D5", "B2:C3"] * 3
    cells = [Evidence(table="t", sheet="S", ref=ref, text="1", value=1) for ref in refs]
    [found] = cite(cells).sets
    assert found.ranges == a1_ranges(map(cell_of, refs)) == ["B2", "D3:D6", "E9", "AA10"]
    assert found.count == len(refs)


# --- 100,000 rows -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def big(tmp_path_factory) -> tuple[Workspace, Answer]:
    """A CSV of 100,000 rows ingested for real, and the offline engine's answer to its total."""
    folder = tmp_path_factory.mktemp("big")
    path = folder / "sales.csv"
    path.write_text("Item,Sales\n" + "".join(f"Item {i},{i % 997 + 1}\n" for i in range(ROWS)))
    ws = Workspace(folder / "ws")
    ws.add_file(path)
    return ws, answer_question(ws, "What is the total Sales?")


def test_a_100k_row_total_cites_one_set_of_every_row_in_a_small_answer(big):
    _, answer = big
    assert answer.answer is not None, answer.error
    assert answer.values == [sum(i % 997 + 1 for i in range(ROWS))]
    doc = json.dumps({"schema_version": 1, **answer.to_json_dict()})
    assert len(doc.encode()) < MAX_ANSWER_BYTES
    [s] = answer.evidence_sets
    assert (s.count, s.ranges, s.sheet) == (ROWS, [f"B2:B{ROWS + 1}"], "sales")
    assert [e.ref for e in answer.evidence] == ["B2", "B3", "B4", f"B{ROWS - 1}", f"B{ROWS}",
                                                f"B{ROWS + 1}"]
    validate = next(e for e in answer.steps if e.node == "validate")
    assert "re-read 100,000 cells of 1 range in SQL; sum matches" in validate.detail
    for step in answer.steps:  # the transcript stores these: compact too
        assert len(step.cells or []) <= 2 * EDGE_CELLS
    sql = next(e for e in answer.steps if e.node == "sql_step")
    assert "BETWEEN" in sql.sql and len(sql.sql) < 500  # not 100,000 parameters


def test_validate_refuses_a_set_whose_cells_no_longer_give_the_answer(big):
    ws, answer = big
    [s] = answer.evidence_sets
    grids = {s.table: ws.table(s.table).grid}
    args = (ws.db, grids, answer.evidence_sets, "sum", answer.values, ROWS)
    assert check_sets(*args).problems == []
    middle = {"grid": grids[s.table], "row": ROWS // 2, "col": 2}
    plain_cells_as_rows(ws.db.conn)  # so that one cell can change
    assert check_sets(*args).problems == []
    ws.db.execute("UPDATE cell_rows SET number = number + 1 WHERE grid = :grid AND row = :row "
                  "AND col = :col", middle)
    checked = check_sets(*args)
    assert len(checked.problems) == 1 and "do not give the sum" in checked.problems[0]
    ws.db.execute("UPDATE cell_rows SET kind = 'text', number = NULL WHERE grid = :grid AND "
                  "row = :row AND col = :col", middle)
    assert check_sets(*args).problems  # a cell that is no longer a number
    ws.db.execute("DELETE FROM cell_rows WHERE grid = :grid AND row = :row AND col = :col",
                  middle)
    gone = check_sets(*args).problems
    assert gone and "holds 99,999 cells of the table, not 100,000" in gone[0]


# --- the rules, through the command line ------------------------------------------------------

def test_ask_json_of_a_100k_cell_total_is_small_and_cites_its_column(capsys, tmp_path,
                                                                   monkeypatch):
    """The issue's question, as the engine's rules answer it: 2,000 rows of 50 quarters."""
    from bench.workloads import sized_workbook

    for name in [n for n in os.environ if n.startswith("TABLELENS_LLM")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    book = sized_workbook(tmp_path, 100_000)
    assert main(["ask", str(book), "--question", "What is the total Q3 of Region 2?",
                 "--json"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out)
    assert len(out.encode()) < MAX_ANSWER_BYTES
    assert doc["answer"] is not None
    assert doc["evidence_sets"] == [{"table": doc["evidence"][0]["table"], "sheet": "Data",
                                     "ranges": ["N3:N2002"], "count": 2000}]
    assert len(doc["evidence"]) == 2 * EDGE_CELLS


def test_an_answer_without_sets_has_no_key_for_them(capsys, samples, monkeypatch, tmp_path):
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    main(["ask", str(samples / "financial.xlsx"), "--question",
          "What was the total operating expense for Q2 2024?", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert "evidence_sets" not in doc and len(doc["evidence"]) == 3
    assert all("evidence_sets" not in step for step in doc["steps"])


# --- the SQL check, operation by operation ----------------------------------------------------

@pytest.fixture
def small(tmp_path):
    """30 rows of three regions, ingested for real: the cells `check_sets` re-reads."""
    path = tmp_path / "regions.csv"
    path.write_text("Item,Region,Sales\n" + "".join(f"Item {i},R{i % 3},{i + 1}\n"
                                                   for i in range(30)))
    ws = Workspace(tmp_path / "ws")
    ws.add_file(path)
    table = ws.table_ids()[0]
    return ws, {table: ws.grid_of(table)}, table


@pytest.mark.parametrize("op, ranges, n, right, wrong, what", [
    ("sum", ["C2:C31"], 30, 465, 466, "sum matches"),
    ("avg", ["C2:C31"], 30, 15.5, 15.6, "average matches"),
    ("max", ["C31"], 1, 30, 29, "highest value matches"),
    ("min", ["C2"], 1, 1, 2, "lowest value matches"),
    ("count", ["A2:A31"], 30, 30, 29, "count of rows matches"),
    ("count_distinct", ["B2:B31"], 30, 3, 4, "count of different values matches"),
])
def test_the_cells_of_a_set_must_give_the_answer_again(small, op, ranges, n, right, wrong,
                                                       what):
    ws, grids, table = small
    sets = [EvidenceSet(table=table, sheet="regions", ranges=ranges, count=n)]
    ok = check_sets(ws.db, grids, sets, op, [right], n)
    assert ok.problems == [] and ok.summary.endswith(what)
    assert check_sets(ws.db, grids, sets, op, [wrong], n).problems


def test_a_set_is_checked_for_its_cells_when_its_answer_is_not_arithmetic(small):
    ws, grids, table = small
    sets = [EvidenceSet(table=table, sheet="regions", ranges=["A2:A31"], count=30)]
    listed = check_sets(ws.db, grids, sets, "list", ["Item 0", "Item 1"], 30)
    assert listed.problems == []
    assert listed.summary == "re-read 30 cells of 1 range in SQL; every cell is there"
    # Merged cells counted once per row they span: the sum of distinct cells is not the answer.
    merged = check_sets(ws.db, grids, [sets[0].model_copy(update={"ranges": ["C2:C31"]})],
                        "sum", [999], 31)
    assert merged.problems == [] and "not re-derived" in merged.summary
    wrong_count = sets[0].model_copy(update={"count": 31})
    assert "holds 30 cells of the table, not 31" in check_sets(
        ws.db, grids, [wrong_count], "list", [], 31).problems[0]


@pytest.mark.parametrize(("tall", "search"), [
    (False, "USING PRIMARY KEY (grid=? AND row>? AND row<?)"),
    (True, "cells_by_column (grid=? AND table_id=? AND col=? AND row>? AND row<?)")])
def test_each_box_of_a_set_is_one_search_not_a_walk_of_its_columns(small, tall, search):
    # By rows, SQLite took `cells_by_column` with a range of columns, which walks every row
    # of those columns for each box: 137,511 scattered cells of a 550k-row CSV were still
    # being re-read after half an hour (a browser tester).
    ws, grids, table = small
    plan = [row[-1] for row in ws.db.conn.execute(
        "EXPLAIN QUERY PLAN " + set_sql("sum", tall),
        {"boxes": "[[2, 3, 2, 3]]", "grid": grids[table], "table": table})]
    assert any(search in step for step in plan), plan
