"""Embeddings and the Qdrant index, with the real bundled model and in-memory Qdrant.

The model loads once for the module (importing torch takes seconds); the workspace of the
sample workbooks is indexed once and shared by the tests that only read it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from storage.embedder import shared_embedder
from storage.vector_index import PATH_KINDS, VectorIndex
from storage.vectors import VectorItem, stored_vector_count, text_hash, vector_items
from storage.views import read_catalog
from storage.workspace import Workspace

SAMPLES = Path(__file__).parent / "samples"
FILES = ["financial.xlsx", "hr.xlsx", "multi_sheet.xlsx", "vectors/cjk_sales.csv"]
PAIRS = [json.loads(line) for line in
         (SAMPLES / "vectors" / "pairs.jsonl").read_text(encoding="utf-8").splitlines() if line]
RECALL_AT = 5

embeddings = pytest.mark.embeddings


@pytest.fixture(scope="module")
def embedder():
    return shared_embedder()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, embedder):
    ws = Workspace(tmp_path_factory.mktemp("vectors") / "ws")
    for name in FILES:
        ws.add_file(SAMPLES / name)
    index = VectorIndex(ws, embedder=embedder)
    first = index.sync()
    yield ws, index, first
    ws.close()


def _found(index: VectorIndex, pair: dict) -> bool:
    hits = index.search(pair["phrase"], limit=RECALL_AT, kinds=PATH_KINDS)
    return any(h.table == pair["table"] and list(h.path) == pair["path"] for h in hits)


def test_pairs_cover_every_category_five_times():
    counts = defaultdict(int)
    for pair in PAIRS:
        counts[pair["category"]] += 1
    assert set(counts) == {"synonym", "abbreviation", "inflection", "parent_child", "cjk"}
    assert min(counts.values()) >= 5


@embeddings
def test_recall_at_5_of_the_labelled_pairs(indexed):
    _, index, _ = indexed
    by_category: dict[str, list[bool]] = defaultdict(list)
    for pair in PAIRS:
        by_category[pair["category"]].append(_found(index, pair))
    report = {c: f"{sum(v)}/{len(v)}" for c, v in sorted(by_category.items())}
    found = [f for v in by_category.values() for f in v]
    print(f"recall@{RECALL_AT}: {sum(found)}/{len(found)}", report)
    # Measured when this test was written: 30/32, every category 100% but abbreviations
    # (5/7: "rev" and "sales in the second quarter" miss). The bundled model is English-only,
    # yet its word pieces split Chinese into characters, and the CJK pairs all hold.
    assert sum(found) / len(found) >= 0.9, report


@embeddings
def test_a_second_build_embeds_nothing_new(indexed, embedder):
    ws, index, first = indexed
    assert first.embedded > 0 and first.points > 0
    stored = stored_vector_count(ws.db)
    again = VectorIndex(Workspace(ws.root), embedder=embedder).sync()
    assert again.embedded == 0
    assert again.points == first.points
    assert stored_vector_count(ws.db) == stored
    assert index.sync().tables_indexed == 0  # nothing changed: nothing re-read


@embeddings
def test_a_fresh_index_rebuilt_from_the_workspace_gives_the_same_results(indexed, embedder):
    ws, index, _ = indexed
    # A new process: a new connection to the same workspace.sqlite and a new in-memory client.
    rebuilt = VectorIndex(Workspace(ws.root), embedder=embedder)
    for phrase in ("staff costs", "sales in the second quarter", "job title", "净利"):
        before = [(h.kind, h.table, h.path, round(h.score, 4)) for h in index.search(phrase)]
        after = [(h.kind, h.table, h.path, round(h.score, 4)) for h in rebuilt.search(phrase)]
        assert before == after


@embeddings
def test_points_are_one_per_path_value_and_table(indexed):
    ws, index, _ = indexed
    hits = index.search("Backend engineer", limit=1, kinds=["cell"])
    assert [(h.table, h.path, h.ref, h.source) for h in hits] == [
        ("hr__staff__t0", ("Role",), "C2", "hr.xlsx")]
    assert index.count(table="financial__p_l__t0") == 4 + 5 + 1  # columns, rows, description
    [table] = index.search("profit and loss statement by quarter", limit=1, kinds=["table"])
    assert table.table == "financial__p_l__t0"


@embeddings
def test_deleting_a_file_removes_its_points_and_vectors(tmp_path, embedder):
    ws = Workspace(tmp_path / "ws")
    fin = ws.add_file(SAMPLES / "financial.xlsx")
    ws.add_file(SAMPLES / "hr.xlsx")
    index = VectorIndex(ws, embedder=embedder)
    index.sync()
    held = index.count(source=fin.sha256)
    assert held > 0 and stored_vector_count(ws.db, fin.sha256) > 0
    rent = text_hash(embedder.name, "Operating Expenses > Rent")

    ws.remove_source(fin.sha256)
    assert stored_vector_count(ws.db, fin.sha256) == 0
    assert ws.db.execute("SELECT count(*) FROM vectors WHERE hash = ?", [rent]).fetchone()[0] == 0
    assert ws.db.execute("SELECT count(*) FROM vectors").fetchone()[0] > 0  # hr.xlsx's stay
    assert index.sync().tables_removed == 1
    assert index.count(source=fin.sha256) == 0
    assert all(h.source == "hr.xlsx" for h in index.search("staff costs", limit=10))

    ws.add_file(SAMPLES / "financial.xlsx")
    report = index.sync()
    assert report.embedded > 0  # its vectors went with it
    assert index.count(source=fin.sha256) == held
    assert index.search("staff costs", limit=1)[0].path == ("Operating Expenses", "Salaries")
    ws.close()


@embeddings
def test_a_corrected_header_replaces_its_tables_points_only(tmp_path, embedder):
    ws = Workspace(tmp_path / "ws")
    info = ws.add_file(SAMPLES / "multi_sheet.xlsx")
    index = VectorIndex(ws, embedder=embedder)
    index.sync()
    jan, feb = "multi_sheet__jan_2024__t0", "multi_sheet__feb_2024__t0"
    assert [h.path for h in index.search("North", limit=1, kinds=["row_path"],
                                         tables=[jan])] == [("North",)]
    feb_points = index.count(table=feb)

    ws.restructure(info.sha256, "Jan 2024", 0, header_rows=[1], header_cols=[])
    report = index.sync()
    assert report.tables_indexed == 1
    assert index.search("North", limit=5, kinds=["row_path"], tables=[jan]) == []
    [cell] = index.search("North", limit=1, kinds=["cell"], tables=[jan])
    assert cell.path == ("Region",)
    assert index.count(table=feb) == feb_points
    # The other sheet's vectors stay stored and linked to the file.
    assert ws.db.execute("SELECT count(*) FROM vectors v JOIN vector_sources s USING (hash) "
                         "WHERE v.text = 'Secret' AND s.source = ?",
                         [info.sha256]).fetchone()[0] == 1
    assert VectorIndex(Workspace(ws.root), embedder=embedder).sync().embedded == 0
    ws.close()


def test_values_are_the_most_frequent_texts_up_to_the_cap_and_never_numbers(tmp_path):
    csv = tmp_path / "orders.csv"
    csv.write_text("Order,Status,Amount,Code\n" + "".join(
        f"o{i},{status},{10 * i},{1000 + i}\n" for i, status in
        enumerate(["open", "shipped", "shipped", "returned", "shipped", "open"])),
        encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    ws.add_file(csv)
    [table] = read_catalog(ws.db)
    items = vector_items(ws.db, table, values_per_column=2)
    cells = [(i.text, i.path) for i in items if i.kind == "cell"]
    assert cells == [("shipped", ("Status",)), ("open", ("Status",))]
    kinds = {i.kind for i in items}
    assert kinds == {"column_path", "row_path", "cell", "table"}
    assert not any(i.text.isdigit() for i in items)
    assert all(isinstance(i, VectorItem) and i.source == table.source for i in items)
    ws.close()


def test_settings_name_the_index_and_its_model(tmp_path):
    from tablelens.settings import Settings

    settings = Settings.from_env({"QDRANT_URL": "http://qdrant:6333", "QDRANT_API_KEY": "k",
                                  "TABLELENS_VECTOR_VALUES_PER_COLUMN": "7",
                                  "TABLELENS_EMBEDDING_BATCH_SIZE": "16"})
    ws = Workspace(tmp_path / "ws")
    index = settings.vector_index(ws)  # nothing connects or loads yet
    assert (index.url, index.api_key, index.values_per_column) == ("http://qdrant:6333", "k", 7)
    assert index.embedder.batch_size == 16 and index.embedder.name == "all-MiniLM-L6-v2"
    assert index.collection.startswith(f"tablelens-{ws.id}-")
    ws.close()


def test_ingest_and_offline_answers_never_import_torch(tmp_path):
    code = (
        "import sys\n"
        "from storage.workspace import Workspace\n"
        "from agent.run import answer_question\n"
        "import tablelens.settings\n"
        f"ws = Workspace({str(tmp_path / 'ws')!r})\n"
        f"ws.add_file({str(SAMPLES / 'financial.xlsx')!r})\n"
        "answer_question(ws, 'What was the revenue in Q3?')\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'qdrant_client') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[1])
