"""The Markdown reader on real documents: several tables, escaped pipes, styles, ragged rows."""

from __future__ import annotations

import io

import pytest

from ingest.errors import BinaryContent, EmptyFile, TooManyCells
from ingest.grid import Grid, no_progress
from ingest.limits import Limits
from ingest.markdown_reader import read_markdown
from ingest.read import read_file


def read_doc(markdown: str | bytes, *, name: str = "doc.md", **limits: int) -> list[Grid]:
    """Read a Markdown document given as text or bytes, with optional limits."""
    data = markdown.encode("utf-8") if isinstance(markdown, str) else markdown
    return read_file(io.BytesIO(data), name, limits=Limits(**limits))


def texts(grid: Grid) -> list[tuple[int, int, str]]:
    return [(c.row, c.col, c.text) for c in grid.iter_cells()]


def test_two_tables_with_escaped_pipes_code_links_and_a_ragged_row(samples):
    first, second = read_file(samples / "md" / "two_tables.md")
    assert [(g.sheet, g.index, g.kind) for g in (first, second)] == [
        ("table1", 0, "markdown"), ("table2", 1, "markdown")]
    assert (first.n_rows, first.n_cols) == (5, 3)
    assert texts(first) == [
        (1, 1, "Item"), (1, 2, "Formula"), (1, 3, "Q1"),
        (2, 1, "Revenue"), (2, 2, "a | b"), (2, 3, "1,200"),
        (3, 1, "Services"), (3, 2, "x | y"), (3, 3, "300"),
        (4, 1, "Costs"), (4, 2, "see notes"), (4, 3, "450 400"),
        (5, 1, "Ragged row"),  # the missing cells are empty, not an error
    ]
    # The second table sits in a list item; <br> is a line break.
    assert (second.n_rows, second.n_cols) == (3, 2)
    assert texts(second) == [(1, 1, "Name"), (1, 2, "Role"), (2, 1, "Ada"),
                             (2, 2, "Lead and more"), (3, 1, "Bob"), (3, 2, "Dev\nOps")]


def test_cell_styles(samples):
    first, second = read_file(samples / "md" / "two_tables.md")
    assert first.get(1, 1).style.bold  # header cells render bold
    revenue, services, costs = first.get(2, 1), first.get(3, 1), first.get(4, 1)
    assert revenue.style.bold and not revenue.style.italic  # the whole cell is **bold**
    assert costs.style.italic and not costs.style.bold
    assert services.style.indent == 2 and not services.style.bold  # two leading &nbsp;
    assert not second.get(2, 2).style.bold  # only part of "**Lead** and more" is bold
    assert revenue.raw == revenue.text == "Revenue"


def test_document_without_a_table(samples):
    with open(samples / "md" / "no_table.md", "rb") as stream:
        assert read_markdown(stream, name="no_table.md", limits=Limits(),
                             progress=no_progress) == []
    with pytest.raises(EmptyFile, match=r"no_table\.md: no table was found"):
        read_file(samples / "md" / "no_table.md")


def test_tables_without_text_are_skipped_but_keep_their_number():
    doc = "| | |\n|-|-|\n| | |\n\n| a |\n|---|\n| 1 |\n"
    [grid] = read_doc(doc)
    assert (grid.sheet, grid.index) == ("table2", 0)
    assert texts(grid) == [(1, 1, "a"), (2, 1, "1")]


def test_tables_in_code_blocks_are_not_tables():
    doc = "```\n| a | b |\n|---|---|\n| 1 | 2 |\n```\n\n| real |\n|------|\n| x |\n"
    [grid] = read_doc(doc)
    assert texts(grid) == [(1, 1, "real"), (2, 1, "x")]


def test_encodings_bom_and_cp1252_fallback():
    doc = "| Stadt |\n|---|\n| Köln € |\n"
    for data in (doc.encode("utf-8-sig"), doc.encode("utf-8"), doc.encode("cp1252")):
        [grid] = read_doc(data)
        assert grid.get(2, 1).text == "Köln €"


def test_binary_bytes_under_a_markdown_name_are_refused():
    with pytest.raises(BinaryContent, match=r"^notes\.md: the file holds binary data"):
        read_doc(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00", name="notes.md")


def test_cell_limit_counts_all_tables():
    doc = "| a | b |\n|---|---|\n| 1 | 2 |\n\n| c |\n|---|\n| 3 |\n"
    assert len(read_doc(doc, max_cells=6)) == 2
    with pytest.raises(TooManyCells, match="TABLELENS_MAX_CELLS"):
        read_doc(doc, max_cells=5)
