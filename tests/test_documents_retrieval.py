"""Documents in a workspace: text chunks stored in the ingest's transaction and deleted with
their file, found by full text and by vectors (the real bundled model, in-memory Qdrant), and
mixed with table evidence under one budget by the context builder; `tablelens context` shows
them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent.context_builder import ContextBuilder, shared_counter
from agent.hybrid import HybridSearch
from ingest.errors import NotADocument
from storage.embedder import shared_embedder
from storage.vector_index import VectorIndex
from storage.workspace import Workspace
from tablelens.cli import main
from tests.documents_samples import docx_bytes, other_zip

SAMPLES = Path(__file__).parent / "samples"
NOTES = ("Management discussion\n\nThe company had 42 employees at the end of June.\n\n"
         "Freight costs rose because fuel prices went up in the spring.\n")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    ws = Workspace(tmp_path_factory.mktemp("docs") / "ws")
    ws.add_file(SAMPLES / "financial.xlsx")
    ws.add_file(io.BytesIO(docx_bytes()), "staff.docx")
    ws.add_file(io.BytesIO(NOTES.encode()), "notes.txt")
    yield ws
    ws.close()


@pytest.fixture(scope="module")
def vectors(workspace):
    return VectorIndex(workspace, embedder=shared_embedder())


def test_chunks_and_document_tables_are_stored(workspace: Workspace) -> None:
    staff = next(s for s in workspace.sources() if s.name == "staff.docx")
    chunks = workspace.chunks(staff.sha256)
    assert [c.id for c in chunks] == ["staff__c0", "staff__c1", "staff__c2"]
    assert chunks[0].chunk.section == "Staff and offices"
    assert chunks[0].title() == "staff.docx, Staff and offices, paragraph 2"
    [table] = [t for t in workspace.tables() if t.source == staff.sha256]
    assert table.sheet == "table1"
    assert ["Headcount", "2019"] in [list(p.path) for p in table.tree.columns.paths]


def test_a_text_only_file_is_stored(workspace: Workspace) -> None:
    notes = next(s for s in workspace.sources() if s.name == "notes.txt")
    assert workspace.table_ids(notes.sha256) == []
    assert [c.text for c in workspace.chunks(notes.sha256)][0] == \
        "The company had 42 employees at the end of June."


def test_a_bad_document_leaves_the_workspace_as_it_was(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    ws.add_file(io.BytesIO(NOTES.encode()), "notes.txt")
    before = [c.id for c in ws.chunks()]
    with pytest.raises(NotADocument):
        ws.add_file(io.BytesIO(other_zip()), "book.docx")
    assert [c.id for c in ws.chunks()] == before and len(ws.sources()) == 1
    ws.remove_source(ws.sources()[0].sha256)
    assert ws.chunks() == []
    assert ws.db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0] == 0
    ws.close()


def test_full_text_finds_the_chunk(workspace: Workspace) -> None:
    hits = HybridSearch(workspace).search("Why did freight costs rise?")
    best = next(h for h in hits if h.kind == "chunk")
    assert best.text.startswith("Freight costs rose")
    assert best.item() == {"kind": "chunk", "chunk": "notes__c1", "source": "notes.txt",
                           "path": ["Management discussion"], "score": best.item()["score"]}


@pytest.mark.embeddings
def test_vectors_find_a_chunk_without_shared_words(workspace: Workspace, vectors) -> None:
    hits = HybridSearch(workspace, vectors).vector("How large is the workforce?")
    assert hits[0].kind == "chunk" and "42 employees" in workspace.chunk(hits[0].table).text


@pytest.mark.embeddings
def test_context_mixes_tables_and_chunks_under_one_budget(workspace: Workspace,
                                                          vectors) -> None:
    builder = ContextBuilder(workspace, vectors=vectors, counter=shared_counter())
    built = builder.build("How many employees did the company have at the end of June in "
                          "the Oslo office?", budget_tokens=400)
    assert built.tokens <= 400
    assert built.chunks and built.tables
    assert "The company had 42 employees at the end of June." in built.text
    assert any(i["kind"] == "chunk" for i in built.items)
    small = builder.build("How many employees at the end of June?", budget_tokens=40)
    assert small.tokens <= 40


@pytest.mark.embeddings
def test_cli_context_shows_chunks(tmp_path: Path, capsys) -> None:
    doc = tmp_path / "staff.docx"
    doc.write_bytes(docx_bytes())
    code = main(["context", str(doc), "--question", "When did the Bergen office open?",
                 "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert "A second office opened in Bergen in March." in out["text"]
    assert {"kind": "chunk", "chunk": "staff__c1", "source": "staff.docx"}.items() <= \
        next(i for i in out["items"] if i.get("chunk") == "staff__c1").items()
