"""Table choice by the hybrid search's evidence, the CJK trigram index, and the question's
vector kept between searches; with the real bundled model, in-memory Qdrant and real SQLite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.context_builder import SHARE_TOKENS, ContextBuilder, shared_counter, split_close
from agent.hybrid import HybridRetriever, HybridSearch, cjk_terms
from storage.embedder import shared_embedder
from storage.search_index import CJK_TABLE
from storage.vector_index import VectorIndex
from storage.workspace import Workspace

SAMPLES = Path(__file__).parent / "samples"
INCOME_CSV = """项目,2019年,2020年
营业收入合计,1200,1350
营业成本,800,870
净利润,150,190
"""
PLANETS_CSV = """Planet,Moons,Diameter (km)
Mercury,0,4879
Venus,0,12104
Jupiter,95,139820
Saturn,146,116460
"""

embeddings = pytest.mark.embeddings


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    root = tmp_path_factory.mktemp("choice")
    (root / "income.csv").write_text(INCOME_CSV, encoding="utf-8")
    (root / "planets.csv").write_text(PLANETS_CSV, encoding="utf-8")
    ws = Workspace(root / "ws")
    for path in (SAMPLES / "financial.xlsx", SAMPLES / "hr.xlsx", root / "income.csv",
                 root / "planets.csv"):
        ws.add_file(path)
    index = VectorIndex(ws, embedder=shared_embedder())
    index.sync()
    yield ws, index
    ws.close()


def _table(ws: Workspace, file_name: str) -> str:
    [table] = [t.id for t in ws.tables() if t.file_name == file_name]
    return table


# --- CJK text --------------------------------------------------------------------------------

def test_cjk_terms_are_the_three_character_pieces_of_cjk_runs():
    assert cjk_terms("2019年营业收入是多少?") == ['"年营业"', '"营业收"', '"业收入"', '"收入是"',
                                             '"入是多"', '"是多少"']
    assert cjk_terms("What was the revenue? 收入") == []  # two characters: the word index's


def test_a_chinese_substring_is_found_by_the_trigram_index(workspace):
    ws, _ = workspace
    search = HybridSearch(ws)
    income = _table(ws, "income.csv")
    question = "2019年的营业收入是多少?"
    # The word index takes "营业收入合计" and the question's run of characters each for one
    # word: the question finds nothing there ...
    assert not [h for h in search.lexical(question) if h.table == income]
    # ... the trigram index finds "营业收入" inside the label, first.
    for asked in ("营业收入", question):
        hits = search.cjk(asked)
        assert hits and hits[0].table == income and hits[0].text == "营业收入合计", hits[:3]
    fused = search.search(question)
    assert any(h.table == income and h.text == "营业收入合计" for h in fused[:5])
    assert search.rank_tables("营业收入")[0][0] == income


def test_an_older_workspace_builds_the_trigram_index_once_when_opened(tmp_path):
    (tmp_path / "income.csv").write_text(INCOME_CSV, encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    ws.add_file(tmp_path / "income.csv")
    # As a workspace of schema 6 was: no trigram table, no triggers.
    for trigger in ("_ai", "_ad"):
        ws.db.execute(f'DROP TRIGGER "{CJK_TABLE}{trigger}"')
    ws.db.execute(f'DROP TABLE "{CJK_TABLE}"')
    ws.db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    ws.db.conn.commit()
    ws.close()
    reopened = Workspace(tmp_path / "ws")
    try:
        assert reopened.db.table(CJK_TABLE).exists()
        hits = HybridSearch(reopened).cjk("营业收入")
        assert [h.text for h in hits][:1] == ["营业收入合计"]
    finally:
        reopened.close()


def test_removing_a_file_removes_its_trigram_rows(tmp_path):
    (tmp_path / "income.csv").write_text(INCOME_CSV, encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        info = ws.add_file(tmp_path / "income.csv")
        assert HybridSearch(ws).cjk("营业收入")
        ws.remove_source(info.sha256)
        assert HybridSearch(ws).cjk("营业收入") == []
        # The trigram table's own rows went with the index's (an integrity check fails on a
        # row left behind).
        ws.db.execute(f"INSERT INTO \"{CJK_TABLE}\" (\"{CJK_TABLE}\") VALUES ('integrity-check')")
    finally:
        ws.close()


# --- table choice ----------------------------------------------------------------------------

@embeddings
@pytest.mark.parametrize(("question", "file_name"), [
    ("How many moons does Saturn have?", "planets.csv"),
    ("What was the diameter of Venus?", "planets.csv"),
    ("Which role does Carla Diaz have?", "hr.xlsx"),
    ("What were the salaries in Q2 2024?", "financial.xlsx"),
])
def test_tables_are_ranked_by_their_evidence(workspace, question, file_name):
    ws, index = workspace
    ranked = HybridSearch(ws, index).rank_tables(question)
    assert ranked[0][0] == _table(ws, file_name), ranked
    assert len(ranked) == len(ws.table_ids())  # every table, those without evidence last
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_a_label_naming_several_question_words_outweighs_the_words_strewn_about(tmp_path):
    # Both tables hold "total" and "score"; only one has a label with both ("Total score"):
    # the words alone tie, the best single label does not.
    (tmp_path / "game.csv").write_text("Team,Total score\nAlpha,31\nBeta,27\n",
                                       encoding="utf-8")
    (tmp_path / "split.csv").write_text("Team,Score,Total\nAlpha,3,7\nBeta,2,9\n",
                                        encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        for name in ("split.csv", "game.csv"):
            ws.add_file(tmp_path / name)
        search = HybridSearch(ws)
        game, split = _table(ws, "game.csv"), _table(ws, "split.csv")
        evidence = search.table_evidence("What was the total score of Alpha?")
        assert evidence["labels"][game] == evidence["labels"][split]
        assert evidence["item"][game] > evidence["item"][split]
        assert search.rank_tables("What was the total score of Alpha?")[0][0] == game
    finally:
        ws.close()


def test_only_tables_close_to_the_best_share_the_budget():
    ranked = [("a", 3.0), ("b", 2.9), ("c", 1.0), ("d", 0.0)]
    assert split_close(ranked) == (ranked[:2], ranked[2:])
    assert split_close([("a", 3.0), ("c", 1.0)]) == ([("a", 3.0)], [("c", 1.0)])
    # A lead table goes first, with the tables close to the best of the others.
    assert split_close([("c", 1.0), ("a", 3.0), ("b", 2.9)], lead=True) == (
        [("c", 1.0), ("a", 3.0), ("b", 2.9)], [])
    # Without evidence, the first table alone; the others get what it leaves.
    assert split_close([("a", 0.0), ("b", 0.0)]) == ([("a", 0.0)], [("b", 0.0)])


@embeddings
def test_a_distant_second_table_gets_no_budget_while_the_best_has_rows_to_show(workspace):
    ws, index = workspace
    builder = ContextBuilder(ws, vectors=index, counter=shared_counter())
    # 200 tokens cannot hold the staff table whole: it is focused, and its rows take the
    # budget a table with little evidence would have had.
    context = builder.build("Which role does Carla Diaz have?", budget_tokens=120)
    assert context.tables == [_table(ws, "hr.xlsx")], context.tables
    assert "Carla Diaz" in context.text


@embeddings
def test_the_hybrid_retriever_names_the_tables_with_evidence_best_first(workspace):
    ws, index = workspace
    found = HybridRetriever(index).retrieve("How many moons does Jupiter have?", ws, budget=5)
    planets = _table(ws, "planets.csv")
    assert found.tables[0].table == planets and found.tables[0].score > 0
    assert [t.score for t in found.tables] == sorted((t.score for t in found.tables),
                                                     reverse=True)
    assert 0 < len(found.items) <= 5
    assert {i["table"] for i in found.items} <= {t.table for t in found.tables}
    assert any(i["table"] == planets and i.get("text") == "Jupiter" for i in found.items)


@embeddings
def test_description_cosines_are_the_table_points_nearness(workspace):
    ws, index = workspace
    question = "How many moons does Saturn have?"
    searched = {h.table: h.score for h in index.search(question, limit=50, kinds=["table"])}
    described = index.described(question)
    assert set(described) == set(searched) == set(ws.table_ids())
    assert all(abs(described[t] - searched[t]) < 1e-4 for t in searched)
    planets = _table(ws, "planets.csv")
    [(only, cosine)] = index.described(question, [planets]).items()
    assert only == planets and abs(cosine - described[planets]) < 1e-6


@embeddings
def test_a_removed_files_description_leaves_the_index(tmp_path):
    (tmp_path / "planets.csv").write_text(PLANETS_CSV, encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(SAMPLES / "hr.xlsx")
        info = ws.add_file(tmp_path / "planets.csv")
        index = VectorIndex(ws, embedder=shared_embedder())
        assert _table(ws, "planets.csv") in index.described("moons")
        ws.remove_source(info.sha256)
        assert set(index.described("moons")) == set(ws.table_ids())
    finally:
        ws.close()


# --- the question's vector -------------------------------------------------------------------

class _Counting:
    """The bundled embedder, counting the texts it encodes."""

    def __init__(self) -> None:
        self.inner = shared_embedder()
        self.texts: list[str] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def dimension(self) -> int:
        return self.inner.dimension()

    def encode(self, texts, progress=None):
        self.texts.extend(texts)
        return self.inner.encode(texts) if progress is None else \
            self.inner.encode(texts, progress)


@embeddings
def test_a_question_is_embedded_once_for_its_tables_and_its_rows(workspace):
    ws, _ = workspace
    embedder = _Counting()
    index = VectorIndex(ws, embedder=embedder)
    index.sync()
    builder = ContextBuilder(ws, vectors=index, counter=shared_counter())
    question = "How many moons does Saturn have?"
    embedder.texts.clear()
    context = builder.build(question, budget_tokens=300)
    assert "Saturn" in context.text
    assert embedder.texts == [question]


def test_exact_values_are_read_anew_once_the_workspace_changes(tmp_path):
    (tmp_path / "planets.csv").write_text(PLANETS_CSV, encoding="utf-8")
    (tmp_path / "moons.csv").write_text("Moon,Diameter (km)\nGanymede,5268\nTitan,5150\n",
                                        encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(tmp_path / "planets.csv")
        search = HybridSearch(ws)
        question = "Which body is 4879 or 5268 km across?"
        assert {h.table for h in search.exact(question)} == {_table(ws, "planets.csv")}
        ws.add_file(tmp_path / "moons.csv")  # the same connection: its cells are new
        assert {h.table for h in search.exact(question)} == {_table(ws, "planets.csv"),
                                                              _table(ws, "moons.csv")}
        assert search.rank_tables(question)[0][1] > 0
    finally:
        ws.close()


def _shops_csv(year: int) -> str:
    lines = ["Shop,Street,District,Product,Units,Revenue"]
    for n in range(60):
        lines.append(f"Berlin shop {year}-{n:02d},{n} Karl-Marx-Allee Hinterhaus,"
                     f"Friedrichshain-Kreuzberg,Widget {n % 7},{n + 3},{(n * 37) % 900}")
    return "\n".join(lines) + "\n"


def test_tables_close_to_the_best_each_show_their_named_rows_within_the_budget(tmp_path):
    # Two tables alike for the question (every row is a Berlin shop): neither fits whole,
    # and the first one's named rows alone would fill the budget. Each gets its part (two
    # parts of SHARE_TOKENS fit): both show their schema and some of their Berlin shops.
    for year in (2019, 2020):
        (tmp_path / f"shops {year}.csv").write_text(_shops_csv(year), encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        for year in (2019, 2020):
            ws.add_file(tmp_path / f"shops {year}.csv")
        builder = ContextBuilder(ws, counter=shared_counter())
        question = "Which Berlin shops sold widgets?"
        ranked = builder.search.rank_tables(question)
        assert ranked[1][1] >= 0.85 * ranked[0][1]  # close
        budget = 2 * SHARE_TOKENS
        context = builder.build(question, budget_tokens=budget)
        assert context.tokens <= budget
        assert sorted(context.tables) == sorted(ws.table_ids()), context.tables
        assert context.whole == [False, False]
        # Without parts: 7 of the first table's shops, 3 of the second's.
        shops = [context.text.count(f"Berlin shop {year}-") for year in (2019, 2020)]
        assert min(shops) >= 4, context.text
    finally:
        ws.close()
