"""How a text citation reads and opens: its pill label, and its passage with the cited span
highlighted (pure functions of tablelens/citations.py)."""

from __future__ import annotations

from tablelens.chat_view import evidence_label
from tablelens.citations import passage_html, passage_span

CITED = {"kind": "text", "source": "report.pdf", "file": "report", "chunk": "report__c1",
         "location": {"page": 2, "paragraph": 4, "start": 120, "end": 140},
         "text": "42 employees in June"}


def test_a_text_citation_is_labelled_by_file_page_paragraph_and_words() -> None:
    assert evidence_label(CITED) == "report.pdf, page 2, paragraph 5: “42 employees in June”"
    long = {**CITED, "text": "word " * 30, "location": {"paragraph": 0, "start": 0, "end": 1}}
    assert evidence_label(long).startswith("report.pdf, paragraph 1: “word word")
    assert evidence_label(long).endswith("…”")


def test_the_span_is_found_in_its_chunk() -> None:
    chunk = "Staff. We had 42 employees in June. More later."
    # The chunk starts at character 106 of the paragraph: 120 - 106 = 14.
    assert passage_span(CITED, 106, chunk) == (14, 34)
    assert chunk[14:34] == "42 employees in June"
    # A location that no longer fits (the text moved): the cited words are looked up.
    assert passage_span(CITED, 0, chunk) == (14, 34)


def test_the_passage_is_escaped_and_the_span_marked() -> None:
    html = passage_html("a <b> 42 & c", 6, 8)
    assert html.endswith('a &lt;b&gt; <mark class="tl-cited" style="background:#fff3a0">42'
                         "</mark> &amp; c</div>")
