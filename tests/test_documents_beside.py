"""A report's text beside its table: the relation recorded when a document is added beside a
table file (`Workspace.add_file(beside=...)`, `sources.beside`), kept when the workspace is
reopened, dropped with the table's file, readable in a workspace stored before it existed;
and the context of a pooled workspace sending a table with its own report's text."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from agent.context_builder import ContextBuilder, shared_counter
from storage.workspace import Workspace
from tablelens.evaluation.batch import add_paragraphs
from tablelens.evaluation.contexts import FileContexts

PROPERTY = ("item,2019,2018\n"
            "Land,1200,1200\n"
            "Buildings and improvements,5400,4900\n"
            "Machinery and equipment,2300,2100\n"
            "Total property,8900,8200\n")
PROPERTY_TEXT = [
    "Depreciation is computed on a straight-line basis over useful lives of three to forty "
    "years. Leasehold assets are amortised over the shorter of their lives or the lease term.",
    "Repairs and maintenance are expensed as incurred."]
SALES = ("region,2019,2018\n"
         "North America,640,610\n"
         "Europe,410,390\n"
         "Asia,220,180\n")
SALES_TEXT = [
    "The change in revenue between 2018 and 2019 reflects higher volumes in every region.",
    "In 2019 and 2018 the change in prices was small; the change in the product mix and in "
    "exchange rates between 2018 and 2019 explains the rest.",
    "Between 2018 and 2019 the amount of deferred revenue changed little, and the change in "
    "customer deposits between 2018 and 2019 was not material.",
    "The change in the amount of returns between 2018 and 2019 followed the change in sales."]


def _report(tmp: Path, ws: Workspace, name: str, table: str, text: list[str]) -> tuple[str, str]:
    path = tmp / name
    path.write_text(table)
    sha = ws.add_file(path).sha256
    return sha, add_paragraphs(ws, path, text, beside=sha)


@pytest.fixture
def pooled(tmp_path):
    ws = Workspace(tmp_path / "ws")
    prop = _report(tmp_path, ws, "property.csv", PROPERTY, PROPERTY_TEXT)
    sales = _report(tmp_path, ws, "sales.csv", SALES, SALES_TEXT)
    yield ws, prop, sales
    ws.close()


def test_a_table_question_gets_its_table_and_its_own_report_text(pooled) -> None:
    ws, (prop_table, prop_text), _ = pooled
    builder = ContextBuilder(ws, counter=shared_counter())
    built = builder.build("What was the change in the amount of Buildings and improvements "
                          "between 2018 and 2019?", budget_tokens=300)
    assert built.tokens <= 300
    assert set(ws.table_ids(prop_table)) & set(built.tables)
    own = {c.id for c in ws.chunks(prop_text)}
    assert own & set(built.chunks), built.text
    assert "Buildings and improvements" in built.text


def test_a_text_question_still_gets_its_chunk(pooled) -> None:
    ws, _, (sales_table, sales_text) = pooled
    builder = ContextBuilder(ws, counter=shared_counter())
    built = builder.build("What explains the change in deferred revenue and customer "
                          "deposits?", budget_tokens=300)
    assert built.tokens <= 300
    [gold] = [c.id for c in ws.chunks(sales_text) if "deferred revenue" in c.text]
    assert gold in built.chunks
    # The chunk pulls its report's table in.
    assert set(ws.table_ids(sales_table)) & set(built.tables)


def test_the_relation_is_kept_reopened_and_dropped_with_the_table_file(pooled) -> None:
    ws, (prop_table, prop_text), (sales_table, sales_text) = pooled
    root = ws.root
    ws.close()
    again = Workspace(root)
    try:
        assert again.source(prop_text).beside == prop_table
        assert again.source(prop_table).beside is None
        assert again.beside({prop_table}) == {prop_text}
        assert again.beside({prop_text}) == {prop_table}
        again.remove_source(prop_table)
        # The text stays, on its own: no row names the removed file.
        assert again.source(prop_text).beside is None
        assert again.beside({prop_text}) == set()
        assert again.db.execute("SELECT count(*) FROM sources WHERE beside IS NOT NULL "
                                "AND beside NOT IN (SELECT sha256 FROM sources)"
                                ).fetchone()[0] == 0
        assert again.source(sales_text).beside == sales_table
    finally:
        again.close()


def test_beside_must_name_another_stored_file(tmp_path) -> None:
    ws = Workspace(tmp_path / "ws")
    try:
        with pytest.raises(ValueError):
            ws.add_file(io.BytesIO(b"Some text."), "a.txt", beside="0" * 64)
        assert ws.sources() == []
    finally:
        ws.close()


def test_the_same_text_added_again_beside_a_table_gains_the_relation(tmp_path) -> None:
    ws = Workspace(tmp_path / "ws")
    try:
        text = ws.add_file(io.BytesIO(b"Depreciation is straight-line."), "a.txt").sha256
        assert ws.source(text).beside is None
        (tmp_path / "t.csv").write_text(PROPERTY)
        table = ws.add_file(tmp_path / "t.csv").sha256
        ws.add_file(io.BytesIO(b"Depreciation is straight-line."), "a.txt", beside=table)
        assert ws.source(text).beside == table
    finally:
        ws.close()


def test_an_older_workspace_without_the_column_opens(tmp_path) -> None:
    ws = Workspace(tmp_path / "ws")
    (tmp_path / "t.csv").write_text(PROPERTY)
    table = ws.add_file(tmp_path / "t.csv").sha256
    ws.close()
    # As schema 7 stored it: no `beside` column.
    conn = sqlite3.connect(tmp_path / "ws" / "workspace.sqlite")
    conn.execute("ALTER TABLE sources DROP COLUMN beside")
    conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    old = Workspace(tmp_path / "ws")
    try:
        assert old.source(table).beside is None
        assert [s.sha256 for s in old.sources()] == [table]
        text = add_paragraphs(old, tmp_path / "t.csv", PROPERTY_TEXT, beside=table)
        assert old.source(text).beside == table
        built = ContextBuilder(old, counter=shared_counter()).build(
            "What were Buildings and improvements in 2019?", budget_tokens=300)
        assert built.tables
    finally:
        old.close()


def test_a_question_file_context_sends_its_table_with_its_own_text(tmp_path) -> None:
    """`tablelens context --questions`: a question's paragraphs are ingested beside its
    table, and the table's text is its file's and theirs."""
    (tmp_path / "property.csv").write_text(PROPERTY)
    ws = Workspace(tmp_path / "ws")
    try:
        contexts = FileContexts(ws, ContextBuilder(ws, counter=shared_counter()))
        table_ids = contexts.tables_of(tmp_path / "property.csv")
        text = contexts.paragraphs_of(tmp_path / "property.csv", PROPERTY_TEXT)
        assert ws.source(text).beside == ws.table(table_ids[0]).source
        built = contexts.context("What was the change in Buildings and improvements?",
                                 [tmp_path / "property.csv"], 300)
        assert set(built.chunks) & {c.id for c in ws.chunks(text)}
    finally:
        ws.close()
