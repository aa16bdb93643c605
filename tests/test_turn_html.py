"""Older turns as one block of HTML: what each kind of turn shows, escaped."""

from __future__ import annotations

from tablelens.chat_store import Turn
from tablelens.chat_view import group_steps
from tablelens.turn_html import older_turns_html, steps_html

EVENTS = [
    {"schema_version": 1, "run_id": "r", "seq": 0, "node": "sql_step", "phase": "start",
     "title": "Running the SQL"},
    {"schema_version": 1, "run_id": "r", "seq": 1, "node": "sql_step", "phase": "end",
     "title": "Ran the SQL", "detail": "Adds <Rent> & Salaries", "elapsed_ms": 3,
     "cells": [{"sheet": "P&L", "ref": "C5", "text": "50"}],
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
    # each part of a step is a line of its own, not glued to the next
    assert "<div><small>Grounded cells: P&amp;L!C5 = 50</small></div>" in page
    assert "<div><small>details: SQL step, 3 ms</small></div>" in page


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


# --- LLM calls ---------------------------------------------------------------------------------

PLAN_CALL = {"purpose": "plan the question", "model": "openai:gpt-4o-mini",
             "messages": [{"role": "system", "content": "You plan <table> questions."},
                          {"role": "user", "content": "Total rent in Q2?"}],
             "response": '{"op": "sum", "column": "H1 2024 > Q2"}',
             "prompt_tokens": 812, "completion_tokens": 64, "latency_ms": 1240, "attempts": 2,
             "method": "function_calling"}
FAILED_CALL = {"purpose": "repair the plan", "model": "openai:gpt-4o-mini", "cached": True,
               "error": "The model's reply did not parse."}
LLM_EVENTS = [
    {"schema_version": 1, "run_id": "r", "seq": 0, "node": "tree_navigate", "phase": "start",
     "title": "Planning"},
    {"schema_version": 1, "run_id": "r", "seq": 1, "node": "tree_navigate", "phase": "end",
     "title": "Planned with the model", "llm": [PLAN_CALL, FAILED_CALL]},
]


def test_a_steps_llm_calls_show_what_each_cost_and_exactly_what_was_sent():
    answer = {**ANSWER, "llm_calls": 3, "prompt_tokens": 812, "completion_tokens": 64}
    page = older_turns_html([Turn("r", {"text": "Total rent?"}, LLM_EVENTS, answer)])
    assert page.count("tl-llm-failed") == 2  # the CSS rule and the failed call
    assert ("plan the question: openai:gpt-4o-mini, 812 prompt + 64 completion tokens, "
            "1,240 ms, 2 attempts, structured output by function_calling") in page
    assert "You plan &lt;table&gt; questions." in page and "Total rent in Q2?" in page
    assert '>system</div><pre>' in page and ">reply</div><pre>" in page
    assert "{&quot;op&quot;: &quot;sum&quot;" in page
    assert "repair the plan" in page and "cached (no request made)" in page
    assert "failed: The model&#x27;s reply did not parse." in page
    assert "3 requests to the model, 812 prompt + 64 completion tokens" in page


def test_an_offline_answer_says_nothing_about_llm_calls():
    page = older_turns_html([Turn("r", {"text": "Rent?"}, EVENTS, {**ANSWER, "llm_calls": 0})])
    assert "LLM call" not in page.replace(".tl-llm", "")


def test_an_answer_made_without_its_failed_model_says_so_under_it():
    failed = {**ANSWER, "llm_calls": 3, "llm_failed_calls": 3,
              "llm_failure": "The model at http://127.0.0.1:9/v1 could not be reached"}
    page = older_turns_html([Turn("r", {"text": "Rent?"}, EVENTS, failed)])
    assert ('<div class="tl-note">The model at http://127.0.0.1:9/v1 could not be reached. '
            "This answer is the offline rules&#x27; own: the model did not check it.</div>"
            ) in page
    assert "3 requests to the model, all failed" in page


def test_llm_calls_that_cannot_be_drawn_become_a_notice_and_the_turn_stays():
    broken = [{**LLM_EVENTS[1], "llm": [{"purpose": "plan", "messages": ["not a dict"]}]}]
    page = older_turns_html([Turn("r", {"text": "Rent?"}, broken, ANSWER)])
    assert "The LLM calls of this step could not be shown here" in page
    assert ">280<" in page and "Planned with the model" in page


RETRIEVE = [
    {"schema_version": 1, "run_id": "r", "seq": 0, "node": "retrieve", "phase": "end",
     "title": "Found 2 tables", "elapsed_ms": 1,
     "retrieved": [{"type": "table", "table": "financial__p_l__t0", "text": "P&L",
                    "score": 0.912},
                   {"type": "row", "table": "gone__t1", "path": ["Operating Expenses", "Rent"],
                    "ref": "A6", "score": 0.5}]},
]


def test_a_timeline_says_what_was_retrieved_where_in_words_never_ids():
    places = {"financial__p_l__t0": ("financial.xlsx", "P&L")}
    page = steps_html(group_steps(RETRIEVE), places)
    assert page.count("<details") == 1 and 'class="tl-steps"' in page
    assert "<td>financial.xlsx, sheet P&amp;L</td>" in page and "<td>0.91</td>" in page
    assert "<td>Operating Expenses &gt; Rent</td>" in page and "<td>a removed table</td>" in page
    assert "__t0" not in page and "__t1" not in page
    older = older_turns_html([Turn("r", {"text": "Rent?"}, RETRIEVE, ANSWER)], places)
    assert "<td>financial.xlsx, sheet P&amp;L</td>" in older


def test_a_set_of_cited_cells_says_where_it_is_in_words_and_old_turns_without_one_still_show():
    cells = [{"table": "t", "sheet": "Data", "ref": f"N{r}", "text": str(r)} for r in (3, 2002)]
    sets = [{"table": "t", "sheet": "Data", "ranges": ["N3:N2002"], "count": 2000}]
    events = [{**EVENTS[1], "cells": cells, "evidence_sets": sets}]
    answer = {**ANSWER, "evidence": cells, "evidence_sets": sets}
    places = {"t": ("report.xlsx", "Data")}
    page = older_turns_html([Turn("r", {"text": "Total?"}, events, answer)], places)
    where = "2,000 cells of report.xlsx, sheet Data (N3:N2002)"
    assert f"Grounded cells: {where}; first and last: Data!N3 = 3, Data!N2002 = 2002" in page
    assert f"Cited cells: {where}, Data!N3 = 3, Data!N2002 = 2002" in page
    assert "Cited cells: P&amp;L!C5 = 50" in older_turns_html(
        [Turn("r", {"text": "Old"}, EVENTS, ANSWER)], places)


def test_an_older_turn_names_the_file_of_a_document_table_as_the_newest_does():
    cited = {"sheet": "table1", "ref": "D2", "text": "150", "table": "t"}
    page = older_turns_html([Turn("r", {"text": "Budget?"}, [], {**ANSWER, "evidence": [cited]})],
                            {"t": ("ops_report.docx", "table1")})
    assert "Cited cells: ops_report.docx, table1!D2 = 150" in page


def test_the_older_turns_say_why_they_have_no_buttons():
    turns = [Turn("r", {"text": "Rent?"}, EVENTS, ANSWER)]
    assert "The last 5 questions have the buttons" in older_turns_html(turns, recent=5)
    assert "buttons" not in older_turns_html(turns)
