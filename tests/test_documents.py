"""Documents: .txt, Markdown prose, HTML text, .docx and .pdf read into paragraphs, chunks
and grids, and the bad inputs each refused with a message that says what to do."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from ingest.errors import (
    EmptyFile,
    FileTooLarge,
    NotADocument,
    NoTextLayer,
    PasswordProtected,
)
from ingest.grid import table_place
from ingest.limits import Limits
from ingest.read import SUPPORTED, read_document, read_file
from ingest.text_chunks import Paragraph, chunk_paragraphs, sentence_spans, windows
from tests.documents_samples import (
    docx_bytes,
    image_pdf,
    locked_docx,
    locked_pdf,
    other_zip,
    text_pdf,
)


@pytest.fixture(scope="module")
def report_pdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return text_pdf(tmp_path_factory.mktemp("pdf"))


def read(data: bytes | str, name: str, **limits: int):
    raw = data.encode() if isinstance(data, str) else data
    return read_document(io.BytesIO(raw), name, limits=Limits(**limits))


def test_new_endings_are_supported() -> None:
    assert {".txt", ".docx", ".pdf"} <= set(SUPPORTED)


def test_txt_paragraphs_headings_and_chunks() -> None:
    doc = read("Results of operations\n\nThe company had 42 employees at the end of June.\n"
               "It grew.\n\n\nOutlook\n=======\n\nHiring continues.\n", "q2.txt")
    assert [(p.text, p.heading, p.section) for p in doc.paragraphs] == [
        ("Results of operations", True, "Results of operations"),
        ("The company had 42 employees at the end of June. It grew.", False,
         "Results of operations"),
        ("Outlook", True, "Outlook"),
        ("Hiring continues.", False, "Outlook")]
    [first, second] = doc.chunks()
    assert first.location() == {"section": "Results of operations", "paragraph": 1,
                                "start": 0, "end": 57}
    assert second.paragraph == 3 and not doc.grids


INCIDENT = ("Incident report - Data center outage\nDate: 12 March 2023\n"
            "Root cause: a failed power distribution unit in rack 14.\n"
            "Affected customers: 312\nEstimated cost: 48,500 USD\n")


@pytest.mark.parametrize(("text", "expected"), [
    # A report of short lines: each line a paragraph, the first line over them its heading.
    (INCIDENT, [("Incident report - Data center outage", True),
                ("Date: 12 March 2023", False),
                ("Root cause: a failed power distribution unit in rack 14.", False),
                ("Affected customers: 312", False), ("Estimated cost: 48,500 USD", False)]),
    ("Affected customers: 312\nEstimated cost: 48,500 USD\n",
     [("Affected customers: 312", False), ("Estimated cost: 48,500 USD", False)]),
    ("Affected customers: 312\n", [("Affected customers: 312", False)]),  # no heading
    ("Open items:\n- replace PDUs\n- test the generator\n",
     [("Open items:", False), ("- replace PDUs", False), ("- test the generator", False)]),
    ("Summary\nThe outage began when a power distribution unit failed and\n"
     "took down rack 14; service was restored at 13:32.\nAffected customers: 312\n",
     [("Summary", True), ("The outage began when a power distribution unit failed and took "
                          "down rack 14; service was restored at 13:32.", False),
      ("Affected customers: 312", False)]),
    # Soft-wrapped prose stays one paragraph: a line the next word did not fit on, a next
    # line in lower case, a line ending in "by", a short line that ends a sentence.
    ("The outage began at 09:12 when a power distribution unit in rack 14\n"
     "failed. About 312 customers were affected, most of them in the North\n"
     "Region, the one managed by\nMaria Lopez.\n",
     [("The outage began at 09:12 when a power distribution unit in rack 14 failed. About "
       "312 customers were affected, most of them in the North Region, the one managed by "
       "Maria Lopez.", False)]),
    ("The company had 42 employees at the end of June.\nIt grew.\n",
     [("The company had 42 employees at the end of June. It grew.", False)]),
])
def test_txt_lines_are_units_in_a_report_of_short_lines(text: str,
                                                        expected: list[tuple[str, bool]]
                                                        ) -> None:
    doc = read(text, "incident_report.txt")
    assert [(p.text, p.heading) for p in doc.paragraphs] == expected


def test_a_label_s_colon_ends_no_sentence() -> None:
    text = "Affected customers: 312. Root cause: a failed unit. Costs rose: 5% more."
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Affected customers: 312.", "Root cause: a failed unit.", "Costs rose: 5% more."]
    # A colon after more than a label still ends a sentence.
    text = "The company reported these figures for the year: Revenue grew."
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "The company reported these figures for the year:", "Revenue grew."]


@pytest.mark.parametrize(("text", "sentences"), [
    ("The head of sales is Mr. John Smith. He joined in 2019.",
     ["The head of sales is Mr. John Smith.", "He joined in 2019."]),
    ("The clinic's director is Dr. Amara Okafor.", ["The clinic's director is Dr. Amara Okafor."]),
    ("Ms. Lopez met Prof. J. R. Smith at St. Olaf. Item No. 5 sold.",
     ["Ms. Lopez met Prof. J. R. Smith at St. Olaf.", "Item No. 5 sold."]),
    ("Rivals, e.g. Acme and Globex, sold less vs. Initech. Sales rose.",
     ["Rivals, e.g. Acme and Globex, sold less vs. Initech.", "Sales rose."]),
    # Before a word that opens a sentence, or "No." before a word, the period ends one.
    ("We chose Plan B. The plan worked. The office is on Main St. It opened in May.",
     ["We chose Plan B.", "The plan worked.", "The office is on Main St.", "It opened in May."]),
    ("Was it late? No. Revenue grew.", ["Was it late?", "No.", "Revenue grew."]),
])
def test_an_abbreviation_before_a_name_ends_no_sentence(text: str, sentences: list[str]
                                                        ) -> None:
    assert [text[s:e] for s, e in sentence_spans(text)] == sentences


@pytest.mark.parametrize(("file_name", "sheet", "shown"), [
    ("financial.xlsx", "P&L", "financial.xlsx, sheet P&L"),
    ("book.ods", "table1", "book.ods, sheet table1"),  # a workbook's sheet, whatever its name
    ("ops_report.docx", "table1", "ops_report.docx, table 1"),
    ("notes.md", "table2", "notes.md, table 2"),
    ("staff_page.html", "table12", "staff_page.html, table 12"),
    ("fleet.pdf", "page3-table2", "fleet.pdf, page 3, table 2"),
    ("cities.png", "image1", "cities.png, table 1"),
    ("sales.csv", "sales", "sales.csv"),
])
def test_a_table_is_named_as_people_know_it(file_name: str, sheet: str, shown: str) -> None:
    assert table_place(file_name, sheet) == shown


def test_markdown_prose_beside_a_pipe_table() -> None:
    doc = read("# Notes\n\nRevenue is *net* of returns.\n\n| Item | 2019 |\n|---|---|\n"
               "| Revenue | 5 |\n\n- one item\n", "r.md")
    assert [g.sheet for g in doc.grids] == ["table1"]
    assert [p.text for p in doc.paragraphs] == ["Notes", "Revenue is net of returns.",
                                               "one item"]


def test_a_markdown_file_of_prose_only_reads() -> None:
    doc = read("Just a paragraph of prose.\n", "prose.md")
    assert [p.text for p in doc.paragraphs] == ["Just a paragraph of prose."]
    with pytest.raises(EmptyFile, match="no table was found"):  # tables only: as before
        read_file(io.BytesIO(b"Just prose.\n"), "prose.md")


def test_html_text_outside_tables() -> None:
    doc = read("<html><body><nav>Home</nav><h2>Summary</h2><p>Sales rose <b>5%</b>.</p>"
               "<table><tr><th>A</th></tr><tr><td>1</td></tr></table>"
               "<div>Footnote: in thousands.</div><script>x()</script></body></html>",
               "r.html")
    assert len(doc.grids) == 1
    assert [(p.text, p.section) for p in doc.paragraphs] == [
        ("Summary", "Summary"), ("Sales rose 5%.", "Summary"),
        ("Footnote: in thousands.", "Summary")]


def test_docx_text_and_table_grid() -> None:
    doc = read(docx_bytes(), "staff.docx")
    [grid] = doc.grids
    assert (grid.sheet, grid.kind, grid.n_rows, grid.n_cols) == ("table1", "docx", 4, 3)
    cells = {c.ref: (c.text, c.rowspan, c.colspan) for c in grid.iter_cells()}
    assert cells["A1"] == ("Office", 2, 1) and cells["B1"] == ("Headcount", 1, 2)
    assert cells["C2"] == ("2018", 1, 1) and cells["B3"] == ("30", 1, 1)
    texts = [(p.text, p.section) for p in doc.paragraphs if not p.heading]
    assert texts[0] == ("The company had 42 employees at the end of June. Most of them work "
                        "in the Oslo office.", "Staff and offices")
    assert texts[-1] == ("Hiring continues in the autumn.", "Outlook")


def test_pdf_text_by_page_and_table_grid(report_pdf: Path) -> None:
    doc = read_document(report_pdf)
    [grid] = doc.grids
    assert (grid.sheet, grid.kind) == ("page1-table1", "pdf")
    assert [c.text for c in grid.iter_cells()][:4] == ["Item", "2019", "2018", "Revenue"]
    assert grid.get(2, 2).ref == "B2" and grid.get(2, 2).text == "1,234"
    body = [p for p in doc.paragraphs if not p.heading]
    assert body[0].text.startswith("The company had 42 employees at the end of June.")
    assert all(p.page == 1 for p in doc.paragraphs)
    assert {p.text for p in doc.paragraphs if p.heading} == {"Quarterly report", "Results"}
    # The table's figures are read once, as cells, not again as prose.
    assert not any("1,234" in p.text for p in doc.paragraphs)


def test_long_paragraph_windows_overlap_by_sentences() -> None:
    text = " ".join(f"Sentence number {i} says something about revenue." for i in range(60))
    spans = windows(text, 300, 120)
    assert len(spans) > 5 and spans[0][0] == 0 and spans[-1][1] == len(text)
    for (_s0, e0), (s1, e1) in zip(spans, spans[1:], strict=False):
        assert s1 < e0 and e0 - s1 <= 120 and e1 - s1 <= 300  # overlap, bounded windows
    chunks = chunk_paragraphs([Paragraph(0, text)], max_chars=300, overlap=120)
    assert all(text[c.start:c.end] == c.text for c in chunks)


@pytest.mark.parametrize(("make", "name", "error", "says"), [
    (image_pdf, "scan.pdf", NoTextLayer, "upload the image (.png), which Tablelens reads with "
     "OCR"),
    (lambda: other_zip(), "book.docx", NotADocument, "a zip file but not a Word document"),
    (lambda: b"plain words", "fake.pdf", NotADocument, "not a PDF"),
    (lambda: locked_docx(docx_bytes()), "locked.docx", PasswordProtected, "remove the password"),
])
def test_bad_documents_get_their_message(make, name, error, says) -> None:
    with pytest.raises(error) as caught:
        read(make(), name)
    assert str(caught.value).startswith(f"{name}: ") and says in str(caught.value)


def test_password_protected_pdf(report_pdf: Path) -> None:
    with pytest.raises(PasswordProtected, match=r"locked\.pdf: the PDF is password-protected"):
        read(locked_pdf(report_pdf.read_bytes()), "locked.pdf")


def test_oversized_text_file_is_refused_before_reading() -> None:
    with pytest.raises(FileTooLarge, match=r"big\.txt: .*TABLELENS_MAX_TEXT_BYTES"):
        read("word " * 1000, "big.txt", max_text_bytes=1000)
