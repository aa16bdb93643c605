"""The lexical retriever finds the tables, headers, rows and values a question names."""

from __future__ import annotations

import json

import pytest

import storage.workspace
from agent.events import StepEvent
from agent.retriever import LexicalRetriever
from storage.search_index import FTS_TABLE, SEARCH_TABLE, index_tables
from storage.workspace import Workspace

FINANCIAL = "financial__p_l__t0"
HR = "hr__staff__t0"


@pytest.fixture
def ws(tmp_path, samples) -> Workspace:
    ws = Workspace(tmp_path / "w")
    ws.add_file(samples / "financial.xlsx")
    ws.add_file(samples / "hr.xlsx")
    return ws


def index_count(ws: Workspace, table: str | None = None) -> int:
    sql, args = f"SELECT count(*) FROM {SEARCH_TABLE}", []
    if table is not None:
        sql, args = sql + " WHERE table_id = ?", [table]
    return ws.db.execute(sql, args).fetchone()[0]


def fts_hits(ws: Workspace, word: str) -> int:
    return ws.db.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?",
                         [f'"{word}"']).fetchone()[0]


def test_finds_the_financial_table_with_its_column_and_rows(ws):
    context = LexicalRetriever().retrieve("total operating expense Q2 2024", ws)
    assert context.tables[0].table == FINANCIAL
    assert HR not in [hit.table for hit in context.tables]
    column = next(i for i in context.items if i["kind"] == "column_path")
    assert column == {"kind": "column_path", "table": FINANCIAL, "path": ["H1 2024", "Q2"],
                      "ref": "C2", "score": column["score"]}
    rows = [i for i in context.items if i["kind"] == "row_path"]
    assert {i["ref"] for i in rows} == {"A5", "A6", "A7"}
    assert all(i["path"][0] == "Operating Expenses" for i in rows)
    assert "column: H1 2024 > Q2" in context.tables[0].why


def test_finds_the_hr_table_with_its_rows_and_values(ws):
    context = LexicalRetriever().retrieve("employees in Engineering", ws)
    assert [hit.table for hit in context.tables] == [HR]
    rows = {" > ".join(i["path"]) for i in context.items if i["kind"] == "row_path"}
    assert "Engineering > Ana Ruiz" in rows
    value = next(i for i in context.items if i.get("text") == "Backend engineer")
    assert value["kind"] == "cell" and value["path"] == ["Role"] and value["ref"] == "C2"


def test_items_are_json_ready_best_first_and_within_budget(ws):
    context = LexicalRetriever().retrieve("Engineering staff years", ws, budget=3)
    assert len(context.items) == 3
    scores = [i["score"] for i in context.items]
    assert scores == sorted(scores, reverse=True)
    json.dumps(context.to_json_dict())
    StepEvent(run_id="r", seq=0, node="retrieve", phase="end", title="retrieve",
              retrieved=context.items)


def test_fuzzy_match_catches_a_typo(ws):
    context = LexicalRetriever().retrieve("expence", ws)
    assert context.tables[0].table == FINANCIAL
    assert any(i.get("path", [""])[0] == "Operating Expenses" for i in context.items)


def test_numbers_are_not_fuzzy_matched(ws):
    assert LexicalRetriever().retrieve("2023", ws).tables == []


@pytest.mark.parametrize("question", ["", "the of and", 'NEAR("a" b) OR * -x ^ "'])
def test_questions_without_matches_or_with_fts_syntax_find_nothing(ws, question):
    context = LexicalRetriever().retrieve(question, ws)
    assert context.tables == [] and context.items == []


def test_remove_source_removes_its_index_rows(ws):
    hr = next(s for s in ws.sources() if s.name == "hr.xlsx")
    assert index_count(ws, HR) > 0 and fts_hits(ws, "engineering") > 0
    ws.remove_source(hr.sha256)
    assert index_count(ws, HR) == 0 and fts_hits(ws, "engineering") == 0
    assert index_count(ws, FINANCIAL) > 0
    assert LexicalRetriever().retrieve("employees in Engineering", ws).tables == []


def test_a_failed_ingest_leaves_no_index_rows(ws, samples, monkeypatch):
    before = index_count(ws)

    def index_then_fail(db, table_ids):
        index_tables(db, table_ids)
        raise RuntimeError("disk full")

    monkeypatch.setattr(storage.workspace, "index_tables", index_then_fail)
    with pytest.raises(RuntimeError):
        ws.add_file(samples / "multi_sheet.xlsx")
    assert index_count(ws) == before
    assert fts_hits(ws, "north") == 0


def test_restructure_reindexes_the_table(ws):
    hr = next(s for s in ws.sources() if s.name == "hr.xlsx")
    ws.restructure(hr.sha256, "Staff", 0, header_rows=[1], header_cols=[1])
    rows = [r["text"] for r in ws.db.query(
        f"SELECT text FROM {SEARCH_TABLE} WHERE table_id = ? AND type = 'row'", [HR])]
    assert rows == ["Engineering", "Sales"]
    names = LexicalRetriever().retrieve("Ana Ruiz", ws).items
    assert names[0]["kind"] == "cell" and names[0]["path"] == ["Name"]


def test_a_workspace_without_an_index_gets_one_on_retrieve(ws):
    ws.db.table(SEARCH_TABLE).disable_fts()
    ws.db.table(SEARCH_TABLE).drop()
    context = LexicalRetriever().retrieve("employees in Engineering", ws)
    assert context.tables[0].table == HR
    assert index_count(ws, FINANCIAL) > 0


def test_header_footnote_markers_are_not_indexed_as_words(tmp_path):
    page = ("<table><thead><tr><th>State</th><th>Total area<sup class=reference>[2]</sup></th>"
            "<th>Defence(1)</th></tr></thead>"
            "<tr><td>Montana</td><td>147,040</td><td>3</td></tr>"
            "<tr><td>Texas</td><td>268,596</td><td>5</td></tr></table>")
    path = tmp_path / "states.html"
    path.write_text(page, encoding="utf-8")
    ws = Workspace(tmp_path / "w")
    ws.add_file(path)
    context = LexicalRetriever().retrieve("total area of Montana", ws)
    column = next(i for i in context.items if i["kind"] == "column_path")
    assert column["path"] == ["Total area[2]"] and column["ref"] == "B1"
    assert "column: Total area" in context.tables[0].why
    assert fts_hits(ws, "2") == 0 and fts_hits(ws, "1") == 0
    ws.close()
