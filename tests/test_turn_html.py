"""Older turns as one block of HTML: what each kind of turn shows, escaped."""

from __future__ import annotations

from tablelens.chat_store import Turn
from tablelens.turn_html import older_turns_html

EVENTS = [
    {"schema_version": 1, "run_id": "r", "seq": 0, "node": "sql_step", "phase": "start",
     "title": "Running the SQL"},
    {"schema_version": 1, "run_id": "r", "seq": 1, "node": "sql_step", "phase": "end",
     "title": "Ran the SQL", "detail": "Adds <Rent> & Salaries", "elapsed_ms": 3,
     "sql": "SELECT SUM(\"H1_2024_Q2\") FROM t WHERE _row IN (5, 6)",
     "table": {"name": "step_r_1", "columns": ["_row", "level_1", "H1_2024_Q2"],
               "labels": ["Sheet row", "Row level 1", "H1 2024 > Q2"],
               "row_labels": ["Operating Expenses > Rent", "Operating Expenses > Salaries"],
               "rows": [[5, "Rent", 50], [6, "Salaries", 230]], "row_count": 2,
               "title": "Rows used"}},
]
ANSWER = {"answer": "280", "confidence": 0.9, "confidence_label": "high",
          "evidence": [{"sheet": "P&L", "ref": "C5", "text": "50", "table": "t"}]}


def test_a_question_shows_its_steps_table_answer_and_cited_cells():
    page = older_turns_html([Turn("r", {"text": "Rent <and> salaries?"}, EVENTS, ANSWER)])
    assert "Rent &lt;and&gt; salaries?" in page  # text is escaped, never markup
    assert "Adds &lt;Rent&gt; &amp; Salaries" in page
    assert "<details" in page and "SELECT SUM(&quot;H1_2024_Q2&quot;)" in page
    assert "<th>H1 2024 &gt; Q2</th>" in page and "Operating Expenses &gt; Rent" in page
    assert "<td>230</td>" in page
    assert ">280<" in page and "Confidence: high (90%)" in page
    assert "Cited cells: P&amp;L!C5 = 50" in page
    assert "details: sql_step node, 3 ms" in page


def test_refusals_failures_interruptions_and_uploads_say_what_happened():
    refused = Turn("a", {"text": "Who is the CEO?"}, [], {
        "answer": None, "error": {"kind": "no_match", "message": "No table mentions a CEO."}})
    failed = Turn("b", {"text": "Sum?"}, [], None, error="The workspace is busy.")
    cut = Turn("c", {"text": "Total?", "files": ["q.xlsx"]}, EVENTS[:1])
    upload = Turn("d", uploads=[{"ok": True, "message": "Added q.xlsx: 1 sheet, 1 table."},
                                {"ok": False, "message": "old.xls cannot be read."}])
    page = older_turns_html([refused, failed, cut, upload])
    assert "No table mentions a CEO." in page
    assert "The workspace is busy." in page
    assert "interrupted before it finished" in page and "Attached: q.xlsx" in page
    assert "Interrupted" in page  # the step that never ended
    assert "Added q.xlsx: 1 sheet, 1 table." in page and "old.xls cannot be read." in page
