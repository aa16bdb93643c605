"""The chat's pure helpers (tablelens/): charts, exports, the transcript store, step grouping,
runs on worker threads (real workspaces, the real offline agent), grid highlighting."""

from __future__ import annotations

import csv
import dataclasses
import io
import sqlite3
import threading
import time

import pytest
from openpyxl import load_workbook

from agent.steptables import persist_step_table
from ingest.errors import LegacyFormat
from ingest.grid import Cell, Grid
from storage.workspace import Workspace
from tablelens import chat_store, runs
from tablelens.charts import chart_for, chart_for_answer, looks_like_period
from tablelens.chat_view import (
    StepView,
    answer_message,
    close_steps,
    copy_text,
    evidence_label,
    evidence_labels,
    group_steps,
    md_escape,
    outcome_of,
    place_name,
    plain_error,
    retrieved_rows,
    sql_names_line,
)
from tablelens.exports import csv_bytes, full_table, table_frame, xlsx_bytes
from tablelens.render import grid_html
from tablelens.workspace_view import (
    cited_window,
    column_path_names,
    describe_decisions,
    header_refs,
    row_path_names,
    tree_html,
)

QUESTION = "What was the total operating expense for Q2 2024?"


@pytest.fixture
def ws(tmp_path, samples):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(samples / "financial.xlsx")
    yield workspace
    workspace.close()


# --- charts -----------------------------------------------------------------------------------

ROWS_USED = (["_row", "level_1", "level_2", "H1 2024 > Q2"],
             [[5, "Operating Expenses", "Salaries", 230], [6, "Operating Expenses", "Rent", 50],
              [7, "Operating Expenses", "Marketing", 95]])


def test_a_small_grouped_table_gets_a_bar_chart_labelled_by_its_most_specific_level():
    spec = chart_for(*ROWS_USED)
    assert spec is not None and spec.kind == "bar"
    assert spec.labels == ("Salaries", "Rent", "Marketing")
    assert spec.series == ("H1 2024 > Q2",)
    assert spec.values == ((230.0, 50.0, 95.0),)
    assert (spec.labels[0], spec.values[0][0]) == ("Salaries", 230.0)


def test_periods_make_a_line_chart_and_repeated_leaves_use_the_whole_path():
    spec = chart_for(["year", "revenue", "cost"], [["2021", 1, 2], ["2022", 2, 3],
                                                   ["2023", 4, None]])
    assert spec is not None and spec.kind == "line" and spec.series == ("revenue", "cost")
    spec = chart_for(["region", "item", "n"], [["North", "A", 1], ["South", "A", 2]])
    assert spec is not None and spec.labels == ("North > A", "South > A")
    assert spec.label == "region > item"


@pytest.mark.parametrize("columns, rows", [
    (["sum", "n"], [[375, 3]]),  # one row: nothing to compare
    (["name", "a", "b", "c", "d"], [["x", 1, 2, 3, 4], ["y", 1, 2, 3, 4]]),  # four series
    (["name", "v"], [[f"r{i}", i] for i in range(51)]),  # more than 50 rows
    (["a", "b"], [[1, 2], [3, 4]]),  # no labels
    (["name", "v"], [["x", 1], ["x", 2]]),  # labels that repeat
    (["name", "note"], [["x", "a"], ["y", "b"]]),  # nothing numeric
    (["name", "v"], [["x", 1], [None, 2]]),  # a row without a label
])
def test_tables_that_are_not_series_get_no_chart(columns, rows):
    assert chart_for(columns, rows) is None


@pytest.mark.parametrize("label, period", [
    ("2024", True), ("FY2023", True), ("2023-24", True), ("Q2", True), ("Q2 2024", True),
    ("H1 2024 > Q2", True), ("Mar 2024", True), ("2024-03-31", True), ("Salaries", False),
    ("Q5", False), ("1999 Corp", False),
])
def test_period_labels(label, period):
    assert looks_like_period(label) is period


def test_a_multi_value_answer_is_charted_by_its_cited_cells():
    answer = {"values": [500, 620], "evidence": [{"sheet": "P&L", "ref": "B3"},
                                                 {"sheet": "P&L", "ref": "C3"}]}
    spec = chart_for_answer(answer)
    assert spec is not None and spec.labels == ("P&L!B3", "P&L!C3")
    assert chart_for_answer({"values": [375]}) is None
    assert chart_for_answer({"values": ["Rent", "Salaries"]}) is None


# --- exports ----------------------------------------------------------------------------------

def test_csv_and_xlsx_exports_keep_every_value():
    columns, rows = ["name", "name", "value"], [["Rent", "a", 50], ["Caf\u00e9 \x01", None, 2.5]]
    data = csv_bytes(columns, rows)
    assert data.startswith(b"\xef\xbb\xbf")  # a BOM, so Excel reads UTF-8
    assert list(csv.reader(io.StringIO(data.decode("utf-8-sig")))) == [
        ["name", "name (2)", "value"], ["Rent", "a", "50"], ["Caf\u00e9 \x01", "", "2.5"]]
    book = load_workbook(io.BytesIO(xlsx_bytes(columns, rows, sheet="step:1/2")))
    sheet = book.worksheets[0]
    assert sheet.title == "step_1_2"
    assert [list(r) for r in sheet.iter_rows(values_only=True)] == [
        ["name", "name (2)", "value"], ["Rent", "a", 50], ["Caf\u00e9 ", None, 2.5]]


def test_the_download_holds_the_whole_step_table_not_the_50_rows_of_the_event(ws):
    name = persist_step_table(ws.db, "abc", 1, ["n"], [[i] for i in range(120)])
    columns, rows = full_table(ws.db_path, name, ["n"], [[0]])
    assert columns == ["n"] and len(rows) == 120 and rows[-1] == [119]
    assert full_table(ws.db_path, "financial__p_l__t0: rows used", ["a"], [[1]]) == (["a"],
                                                                                    [[1]])
    assert full_table(ws.db_path, "step_gone_1", ["a"], [[1]]) == (["a"], [[1]])


def test_a_column_mixing_numbers_and_text_is_shown_as_text():
    frame = table_frame(["code", "n", "n"], [["007", 1, 2.5], [7, None, 1]])
    assert list(frame.columns) == ["code", "n", "n (2)"]
    assert list(frame["code"]) == ["007", "7"]
    assert frame["n (2)"].dtype.kind == "f"


# --- the transcript ---------------------------------------------------------------------------

def test_the_transcript_groups_messages_into_turns(ws):
    batch = chat_store.new_upload_batch()
    chat_store.add_upload(ws, batch, "hr.xlsx", ok=True, message="Added hr.xlsx", tables=1)
    chat_store.add_question(ws, "r1", "Q?", files=["a.csv"])
    chat_store.add_run(ws, "r1", [{"run_id": "r1", "seq": 0, "node": "decompose",
                                   "phase": "start", "title": "t"}],
                       answer={"answer": "4", "steps": [{"x": 1}]})
    chat_store.add_question(ws, "r2", "Again?")
    chat_store.add_error(ws, "r2", "It broke.")
    ws.db.execute("INSERT INTO chat_messages (run_id, kind, body, created_at) "
                  "VALUES ('r3', 'event', 'not json', 'now')")
    ws.db.conn.commit()
    turns = chat_store.turns(Workspace(ws.root))  # read back through another connection
    assert [t.run_id for t in turns] == [batch, "r1", "r2"]
    assert turns[0].is_upload and turns[0].uploads[0]["name"] == "hr.xlsx"
    assert turns[1].question == {"text": "Q?", "files": ["a.csv"]}
    assert turns[1].answer == {"answer": "4"}  # the steps are the stored events
    assert [e["phase"] for e in turns[1].events] == ["start"]
    assert turns[2].error == "It broke." and turns[2].finished
    # The slots are laid out from the ids alone; a turn of unreadable rows keeps an empty one.
    assert chat_store.turn_ids(ws) == [batch, "r1", "r2", "r3"]
    with pytest.raises(ValueError):
        chat_store.append(ws, "r4", "shout", {})


def test_a_re_asked_turn_is_marked_where_it_stands_in_every_view(ws):
    from tablelens.chat_export import chat_markdown
    from tablelens.chat_view import SUPERSEDED_NOTE
    from tablelens.turn_html import older_turns_html

    chat_store.add_question(ws, "r1", "Total for Q2?")
    chat_store.add_run(ws, "r1", [], answer={"answer": "375"})
    chat_store.add_question(ws, "r2", "Total for Q3?")
    chat_store.add_superseded(ws, "r1", "r2")  # after r2 began: r1 keeps its place
    chat_store.add_run(ws, "r2", [], answer={"answer": "405"})
    turns = chat_store.turns(ws)
    assert [(t.run_id, t.superseded_by) for t in turns] == [("r1", "r2"), ("r2", None)]
    assert chat_store.turn_ids(ws) == ["r1", "r2"]
    html = older_turns_html(turns)
    assert html.count(SUPERSEDED_NOTE) == 1 and html.index(SUPERSEDED_NOTE) < html.index("405")
    markdown = chat_markdown(turns, "Totals", ws.root / "workspace.sqlite")
    assert markdown.count(SUPERSEDED_NOTE) == 1
    assert markdown.index(SUPERSEDED_NOTE) < markdown.index("Total for Q3?")


# --- steps and outcomes -----------------------------------------------------------------------

def event(seq, node, phase, title="", **fields):
    return {"run_id": "r", "seq": seq, "node": node, "phase": phase, "title": title, **fields}


def test_events_fold_into_one_step_per_node_run():
    steps = group_steps([
        event(0, "decompose", "start", "Reading the question"),
        event(1, "decompose", "end", "Read the question", detail="one question"),
        event(2, "sql_step", "start", "Running SQL", sql="SELECT 1"),
        event(3, "sql_step", "start", "Running SQL again"),  # a second start renames
        event(4, "sql_step", "error", "The SQL step failed",
              error={"kind": "SqlError", "message": "no such column"}),
        event(5, "validate", "start", "Checking"),
    ])
    assert [(s.node, s.state) for s in steps] == [("decompose", "complete"),
                                                  ("sql_step", "error"), ("validate", "running")]
    assert steps[1].sql == "SELECT 1" and steps[1].error["message"] == "no such column"
    assert steps[0].label == "Decompose: Read the question"
    assert StepView("answer", "Answer", "complete").label == "Answer"
    assert close_steps(steps, "interrupted")[2].label == "Interrupted - Validate: Checking"


def test_a_step_that_ends_without_its_result_is_marked_short_not_checked(tmp_path, samples):
    # A browser tester saw "✓ Tree navigation: Could not tie the question to the table".
    from agent.run import answer_question
    from storage.workspace import Workspace

    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(samples / "financial.xlsx")
        refused = answer_question(ws, "What was the zorbling in Q3 2024?")
        answered = answer_question(ws, "What was the revenue in Q3 2024?")
    finally:
        ws.close()
    steps = group_steps([e.model_dump() for e in refused.steps])
    assert [(s.node, s.status_state) for s in steps][-2:] == [
        ("tree_navigate", "short"), ("answer", "short")]
    assert {s.status_state for s in group_steps([e.model_dump() for e in answered.steps])} \
        == {"complete"}


def test_every_short_title_is_one_a_step_is_given():
    """The chat tells a short step by its title: each must be one the engine writes."""
    from pathlib import Path

    from agent.events import SHORT_TITLES

    source = "".join(p.read_text(encoding="utf-8")
                     for p in Path(__file__).parents[1].joinpath("agent").glob("*.py")
                     if p.name != "events.py")  # (where the titles are listed)
    assert [t for t in SHORT_TITLES if f'"{t}"' not in source] == []


def test_a_cancelled_event_closes_the_running_step():
    steps = group_steps([event(0, "retrieve", "start", "Finding"),
                         event(1, "retrieve", "cancelled", "Stopped by the user")])
    assert [(s.state, s.status_state, s.label) for s in steps] == [
        ("cancelled", "error", "Stopped - Retrieve: Finding")]


def test_outcomes_and_their_messages():
    assert outcome_of(None, None, active=True) == "running"
    assert outcome_of(None, "boom", active=False) == "failed"
    assert outcome_of(None, None, active=False) == "interrupted"
    cancelled = {"answer": None, "error": {"kind": "cancelled", "message": "x"}}
    assert outcome_of(cancelled, None, active=False) == "cancelled"
    assert answer_message(cancelled).startswith("Stopped by the user")
    refused = {"answer": None, "error": {"kind": "needs_llm", "message": "Needs an LLM: x."}}
    assert outcome_of(refused, None, active=False) == "no_answer"
    assert answer_message(refused) == "Needs an LLM: x."
    assert answer_message({"answer": "375"}) is None
    assert evidence_label({"sheet": "P&L", "ref": "C5", "text": "230"}) == "P&L!C5 = 230"
    # Given its file (a sheet name two files share, a document's or an image's table), the
    # label names it.
    assert evidence_label({"sheet": "P&L", "ref": "C5", "text": "230"}, "a.xlsx") == (
        "a.xlsx, P&L!C5 = 230")
    for sheet in ("table1", "image2", "page3-table1"):
        assert evidence_label({"sheet": sheet, "ref": "B3", "text": "7"}, "report.docx") == (
            f"report.docx, {sheet}!B3 = 7")


def test_cited_cells_name_their_file_where_the_sheet_alone_does_not_say_where():
    """One labelling for the chat, its older turns and a shared page: the shared page named
    no file ("table1!D2 = 150" where the owner read "ops_report.docx, table1!D2 = 150")."""
    places = {"t_doc": ("ops_report.docx", "table1"), "t_ods": ("report.ods", "P&L"),
              "t_xls": ("fin_as.xls", "P&L"), "t_fin": ("financial.xlsx", "Summary")}
    cited = [{"table": table, "sheet": sheet, "ref": "D2", "text": "150"}
             for table, sheet in (("t_doc", "table1"), ("t_xls", "P&L"), ("t_fin", "Summary"),
                                  ("gone", "table2"))]
    assert evidence_labels(cited, places) == [
        "ops_report.docx, table1!D2 = 150", "fin_as.xls, P&L!D2 = 150",
        "financial.xlsx, Summary!D2 = 150",  # one of several files
        "table2!D2 = 150"]  # a removed file's table: where it was is all there is
    one_file = {"t_fin": ("financial.xlsx", "Summary"), "t_fin2": ("financial.xlsx", "P&L")}
    assert evidence_labels(cited[2:3], one_file) == ["Summary!D2 = 150"]


def test_a_chat_of_several_files_names_the_file_of_each_cited_cell():
    """Over region_a.xlsx, region_b.xlsx and region_c.xlsx a chip read "Sheet1!B4 = 470",
    which does not say which workbook answered."""
    places = {"a": ("region_a.xlsx", "FY2022"), "b": ("region_b.xlsx", "FY2023"),
              "c": ("region_c.xlsx", "Sheet1")}
    cited = [{"table": "c", "sheet": "Sheet1", "ref": "B4", "text": "470"}]
    assert evidence_labels(cited, places) == ["region_c.xlsx, Sheet1!B4 = 470"]


def test_errors_become_plain_messages():
    assert plain_error(LegacyFormat("a.xls", "is old.", "Save it as .xlsx.")) == (
        "a.xls: is old. Save it as .xlsx.")
    assert "busy" in plain_error(sqlite3.OperationalError("database is locked"))
    generic = plain_error(KeyError("frames"))
    assert "server log" in generic and "(KeyError: 'frames')" in generic
    assert md_escape("$5 *x*") == r"\$5 \*x\*"


# --- runs -------------------------------------------------------------------------------------

def test_a_run_answers_on_its_thread_and_stores_its_trace(ws):
    run = runs.start(ws, QUESTION)
    assert runs.active(ws.id) is run or run.done
    assert run.join(30)
    assert run.answer["answer"] == "375" and run.error is None
    assert run.first_event_s is not None
    turn = chat_store.turns(ws)[-1]
    assert turn.question == {"text": QUESTION}
    assert [e["seq"] for e in turn.events] == list(range(len(run.events)))
    assert turn.answer["answer"] == "375"
    assert runs.active(ws.id) is None and runs.get(run.run_id) is None


def test_stop_cancels_a_run_inside_a_long_step_and_keeps_the_partial_trace(ws, monkeypatch):
    import agent.nodes
    from agent.graph import build_graph

    entered = threading.Event()
    real = agent.nodes.tree_navigate

    def slow(state, runtime):
        runtime.context.trace.emit("tree_navigate", "start", "Matching")
        entered.set()
        runtime.context.cancel.wait(30)
        return real(state, runtime)

    monkeypatch.setattr(agent.nodes, "tree_navigate", slow)
    run = runs.start(ws, QUESTION, graph=build_graph())
    assert entered.wait(10)
    with pytest.raises(runs.RunInProgress):
        runs.start(ws, "Another question?")
    started = time.monotonic()
    assert runs.stop(run.run_id)
    assert run.join(10) and time.monotonic() - started < 5
    assert run.answer["error"]["kind"] == "cancelled"
    assert [e["phase"] for e in run.events][-1] == "cancelled"
    turn = chat_store.turns(ws)[-1]
    assert [e["node"] for e in turn.events] == ["decompose", "decompose", "retrieve",
                                                "retrieve", "tree_navigate", "tree_navigate"]
    assert not runs.stop(run.run_id)  # over: nothing to stop


def test_a_run_that_fails_stores_one_plain_message(ws, monkeypatch):
    def broken(*args, **kwargs):
        yield from ()
        raise ValueError("internal detail")

    monkeypatch.setattr(runs, "stream_question", broken)
    run = runs.start(ws, QUESTION)
    assert run.join(10)
    assert run.answer is None and "server log" in run.error
    assert chat_store.turns(ws)[-1].error == run.error


# --- grids and structure ----------------------------------------------------------------------

def test_grid_html_marks_header_cited_and_focused_cells(ws):
    table = ws.tables()[0]
    grid = ws.load_grid(table.grid)
    refs = header_refs(grid, [table])
    assert {"B1", "D1", "B2", "E2", "A3", "A8"} <= refs and "C5" not in refs
    page = grid_html(grid, header=refs, highlight={"C5", "C6"}, focus="C6")
    assert 'colspan="2" class="tl-merged tl-header"' in page
    assert 'class="tl-cited" title="C5" data-ref="C5">230<' in page
    assert 'class="tl-cited tl-focus" title="C6" data-ref="C6">50<' in page


def test_a_window_draws_a_merged_cell_cut_by_its_edge_from_its_first_visible_slot():
    cells = {(1, 1): Cell(1, 1, "Big", "Big", rowspan=3, colspan=3),
             (4, 4): Cell(4, 4, 7, "7")}
    grid = Grid("f.xlsx", "S", 0, 4, 4, "sheet", cells)
    page = grid_html(grid, window=(2, 2, 4, 4))
    assert '<td rowspan="2" colspan="2" class="tl-merged" title="A1" data-ref="A1">Big</td>' \
        in page
    assert page.count(">Big<") == 1 and ">7<" in page
    assert '<th class="tl-axis">A</th>' not in page and '<th class="tl-axis">B</th>' in page


def test_structure_words_trees_and_windows(ws):
    table = ws.tables()[0]
    assert describe_decisions(table) == ("Header rows 1-2, header column A, orientation top, "
                                         "confidence 0.90")
    assert row_path_names(table)[1] == "Operating Expenses > Salaries"
    html = tree_html(table.tree.columns)
    assert html.startswith('<ul class="tl-tree"><li>H1 2024 <code>B1</code><ul><li>Q1')
    assert tree_html(None, "none here") == '<p class="tl-tree-empty">none here</p>'
    assert cited_window(table, [(5, 3)]) == (1, 1, 8, 5)
    assert cited_window(table, [(500, 3)]) == (495, 1, 694, 50)
    # Far down a column: the row labels (column A) stay in view beside the cited column.
    assert cited_window(table, [(500, 5)]) == (495, 1, 694, 50)
    assert cited_window(table, [(500, 60)])[1] == 57  # too far right: a window around it
    assert cited_window(None, []) is None


def test_paths_and_tree_nodes_without_names_or_cells_never_show_none(ws):
    table = ws.tables()[0]
    # A table too wide for its wide view has no column names: its paths still show.
    unnamed = dataclasses.replace(
        table, columns=[dataclasses.replace(c, name=None) for c in table.columns])
    assert column_path_names(unnamed)[0] == "H1 2024 > Q1"
    side = table.tree.columns
    first = side.nodes[0]._replace(ref=None)  # a node with no cell of its own
    page = tree_html(dataclasses.replace(side, nodes=(first, *side.nodes[1:])))
    assert page.startswith('<ul class="tl-tree"><li>H1 2024<ul>') and "None" not in page


@pytest.mark.parametrize(("answer", "shown"), [
    ({"answer": "405.5 MtCO2e", "unit": "MtCO2e"}, "405.5 MtCO2e"),
    ({"answer": "$4,075.7 million", "unit": "$ million"}, "$4,075.7 million"),
    ({"answer": "12.5%", "unit": "%"}, "12.5%"),
    ({"answer": "12.5", "unit": "%"}, "12.5%"),  # stored before answers stated their unit
    ({"answer": "230", "unit": "kg"}, "230 kg"),
    ({"answer": "230"}, "230"),
])
def test_the_answer_states_its_unit_once(answer, shown):
    from tablelens.chat_view import answer_text
    assert answer_text(answer) == shown


def test_a_steps_llm_calls_are_kept_once_whether_events_repeat_them_or_not():
    from tablelens.chat_view import group_steps, usage_line

    first = {"purpose": "plan the question", "model": "m", "prompt_tokens": 5}
    second = {"purpose": "repair the plan", "model": "m", "prompt_tokens": 7}
    base = {"run_id": "r", "node": "tree_navigate"}
    cumulative = [{**base, "seq": 0, "phase": "start", "title": "Planning"},
                  {**base, "seq": 1, "phase": "progress", "title": "Planning", "llm": [first]},
                  {**base, "seq": 2, "phase": "end", "title": "Planned",
                   "llm": [first, second]}]
    one_each = [{**cumulative[1]}, {**cumulative[2], "llm": [second]}]
    for events in (cumulative, [cumulative[0], *one_each]):
        (step,) = group_steps(events)
        assert step.llm == [first, second]
    assert usage_line({"llm_calls": 0}) is None
    assert usage_line({"llm_calls": 1}) == "1 request to the model"
    assert usage_line({"llm_calls": 2, "prompt_tokens": 1200, "completion_tokens": 30}) == (
        "2 requests to the model, 1,200 prompt + 30 completion tokens")


def test_failed_requests_read_as_failed_and_an_answer_without_its_model_says_so():
    from tablelens.chat_view import model_failure_note, usage_line

    assert usage_line({"llm_calls": 3, "llm_failed_calls": 3}) == (
        "3 requests to the model, all failed")
    assert usage_line({"llm_calls": 1, "llm_failed_calls": 1}) == (
        "1 request to the model, which failed")
    assert usage_line({"llm_calls": 3, "llm_failed_calls": 2, "prompt_tokens": 10,
                       "completion_tokens": 2}) == (
        "3 requests to the model (2 failed), 10 prompt + 2 completion tokens")
    failure = "The model at http://127.0.0.1:9/v1 could not be reached (3 attempts): refused"
    assert model_failure_note({"answer": "41", "llm_failure": failure}) == (
        f"{failure}. This answer is the offline rules' own: the model did not check it.")
    # A refusal already says why in its message; an answer the model made says nothing.
    assert model_failure_note({"answer": None, "llm_failure": failure}) is None
    assert model_failure_note({"answer": "41"}) is None


def test_a_steps_sql_names_its_tables_in_peoples_words():
    places = {"financial__p_l__t0": ("financial.xlsx", "P&L"),
              "hr__staff__t0": ("hr.xlsx", "Staff")}
    sql = 'SELECT "_row", "H1 2024 > Q2" FROM "financial__p_l__t0__wide" WHERE "_row" IN (?)'
    assert sql_names_line(sql, places) == (
        "financial__p_l__t0__wide: financial.xlsx, sheet P&L, one row per data row")
    assert sql_names_line("SELECT 1", places) is None
    joined = ('SELECT * FROM "financial__p_l__t0__long" JOIN hr__staff__t0__wide USING (row)')
    assert sql_names_line(joined, places) == (
        "financial__p_l__t0__long: financial.xlsx, sheet P&L, one row per cell; "
        "hr__staff__t0__wide: hr.xlsx, sheet Staff, one row per data row")
    # A Word file's or a CSV's table is no sheet: "table 1", or the file alone.
    places = {"ops_report__table1__t0": ("ops_report.docx", "table1"),
              "sales__sales__t0": ("sales.csv", "sales")}
    joined = 'SELECT * FROM ops_report__table1__t0__wide JOIN sales__sales__t0__wide USING (x)'
    assert sql_names_line(joined, places) == (
        "ops_report__table1__t0__wide: ops_report.docx, table 1, one row per data row; "
        "sales__sales__t0__wide: sales.csv, one row per data row")
    assert place_name("ops_report__table1__t0", places) == "ops_report.docx, table 1"
    assert copy_text({"answer": "120", "evidence": [
        {"table": "ops_report__table1__t0", "sheet": "table1", "ref": "B2", "text": "120"}]},
        places) == "120\nops_report.docx, table 1, B2: 120"


def test_retrieved_items_show_in_the_contract_shape_and_in_old_transcripts_type_shape():
    places = {"t": ("hr.xlsx", "Staff")}
    new = [{"kind": "table", "table": "t", "source": "hr.xlsx", "score": 1.0},
           {"kind": "column_path", "table": "t", "path": ["Role"], "ref": "C1", "score": 0.5},
           {"kind": "cell", "table": "t", "path": ["Role"], "ref": "C2",
            "text": "Backend engineer", "score": 0.25}]
    old = [{"type": "table", "table": "t", "text": "hr.xlsx > Staff", "path": ["hr.xlsx", "Staff"],
            "score": 1.0},
           {"type": "column", "table": "t", "text": "Role", "path": ["Role"], "ref": "C1",
            "score": 0.5}]
    columns, rows = retrieved_rows(new, places)
    assert columns == ["Found", "Text", "Where", "Cell", "Score"]
    assert rows == [["table", "", "hr.xlsx, sheet Staff", "", 1.0],
                    ["column path", "Role", "hr.xlsx, sheet Staff", "C1", 0.5],
                    ["cell", "Backend engineer (Role)", "hr.xlsx, sheet Staff", "C2", 0.25]]
    _, rows = retrieved_rows(old, places)
    assert [r[:2] for r in rows] == [["table", "hr.xlsx > Staff"], ["column path", "Role"]]
