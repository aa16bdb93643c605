"""The app (Streamlit AppTest): uploads, grids and header corrections, the chat with its live
steps, answers, citations, charts and Stop, and errors as plain messages."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from openpyxl import load_workbook
from streamlit.testing.v1 import AppTest

from storage.chat_index import SqliteChatIndex, title_of_question
from storage.workspace import Workspace, new_workspace_id
from tablelens import browser_id, chat_store, runs
from tablelens.chat_view import NO_FILES_MESSAGE, SUPERSEDED_NOTE
from tablelens.literal_md import SEAM, md_literal

APP = str(Path(__file__).resolve().parents[1] / "streamlit_app.py")
BROWSER = "B" * 22
"""The id of the browser these tests play (its cookie): one browser unless a test says so."""


APP_RUN_BUDGET = 180
"""Seconds one run of the app's script may take before AppTest gives up on it."""


def this_browser() -> AppTest:
    """A new session of the same browser (a new tab or a refresh), not run yet. AppTest cannot
    send cookies, so the id goes where the app keeps it once read (tablelens/browser_id.py)."""
    # (A budget per script run, not a speed check: a 100,000-row upload and total took over a
    # minute on two cores busy with other work.)
    at = AppTest.from_file(APP, default_timeout=APP_RUN_BUDGET)
    at.session_state[browser_id.KEY] = BROWSER
    return at


@pytest.fixture
def app(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    import streamlit as st

    st.cache_resource.clear()  # settings are cached per process; read them again
    at = this_browser()
    at.run()
    return at


def html_of(at) -> str:
    return "".join(el.proto.body for el in at.get("html"))


def test_upload_shows_each_grid_with_its_merges(app, samples):
    app.file_uploader[0].set_value(
        [("financial.xlsx", (samples / "financial.xlsx").read_bytes(), "application/vnd.ms-excel"),
         ("hr.xlsx", (samples / "hr.xlsx").read_bytes(), "application/vnd.ms-excel")])
    app.run()
    assert not app.exception
    assert [h.value for h in app.subheader] == ["financial.xlsx", "hr.xlsx"]
    page = html_of(app)
    assert 'colspan="2"' in page and ">H1 2024</td>" in page
    assert 'rowspan="4"' in page and ">Engineering</td>" in page
    assert any("2 merged ranges: B1:C1, D1:E1" in c.value for c in app.caption)


def test_xls_and_ods_uploads_are_read_and_said_as_sheets(app, samples):
    app.file_uploader[0].set_value(
        [("report.ods", (samples / "report.ods").read_bytes(),
          "application/vnd.oasis.opendocument.spreadsheet"),
         ("report.xls", (samples / "report.xls").read_bytes(), "application/vnd.ms-excel")])
    app.run()
    assert not app.exception and not app.error
    assert [h.value for h in app.subheader] == ["report.ods", "report.xls"]
    assert ">Operating expense</td>" in html_of(app)
    assert {"Added report.ods: 2 sheets, 2 tables.",
            "Added report.xls: 2 sheets, 2 tables."} <= set(captions(app))


def test_unreadable_files_get_their_message_and_the_rest_still_works(app, samples):
    app.file_uploader[0].set_value(
        [("old.xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "application/vnd.ms-excel"),
         ("hr.xlsx", (samples / "hr.xlsx").read_bytes(), "application/vnd.ms-excel")])
    app.run()
    assert not app.exception
    assert app.error[0].value.startswith(
        "old.xls: this is not a readable Excel 97-2003 (.xls) workbook: it is damaged")
    assert [h.value for h in app.subheader] == ["hr.xlsx"]


def test_a_second_file_of_the_same_name_is_told_apart_wherever_it_shows(app, samples):
    """Two workbooks both named financial.xlsx got two panels headed alike, and a question
    over both was refused with "tables in financial.xlsx/P&L answer this equally well; name
    the file", which no name could do; their citations could not say which file either."""
    changed = load_workbook(samples / "financial.xlsx")
    changed["P&L"]["C6"] = 60
    data = io.BytesIO()
    changed.save(data)
    upload_financial(app, samples)
    app.file_uploader[0].set_value(("financial.xlsx", data.getvalue(), XLSX)).run()
    no_failure(app)
    assert [h.value for h in app.subheader] == ["financial.xlsx", "financial (2).xlsx"]
    assert ("Added financial.xlsx as financial (2).xlsx, since this chat has another file of "
            "that name: 1 sheet, 1 table.") in captions(app)
    ask(app, "What was the rent in Q2 2024?")
    assert "financial (2).xlsx/P&L, financial.xlsx/P&L" in app.warning[-1].value
    ask(app, "What was the rent in Q2 2024 in financial (2).xlsx?")
    assert answers(app)[-1] == "60"
    assert citation_buttons(app)[-1] == "financial (2).xlsx, P&L!C6 = 60"


def test_a_citation_names_its_file_in_a_chat_of_several_files(app, samples):
    """Over region_a.xlsx, region_b.xlsx and region_c.xlsx an answer's chip read only
    "Sheet1!B4 = 470": which workbook answered is the first thing to know."""
    upload_financial(app, samples)
    ask(app)
    alone = citation_buttons(app)
    assert alone and all(label.startswith("P&L!") for label in alone)
    app.file_uploader[0].set_value(("hr.xlsx", (samples / "hr.xlsx").read_bytes(), XLSX)).run()
    no_failure(app)
    ask(app)
    assert citation_buttons(app)[-len(alone):] == [f"financial.xlsx, {c}" for c in alone]


def test_remove_deletes_a_file_from_the_workspace(app, samples):
    app.file_uploader[0].set_value(
        ("hr.xlsx", (samples / "hr.xlsx").read_bytes(), "application/vnd.ms-excel"))
    app.run()
    assert [h.value for h in app.subheader] == ["hr.xlsx"]
    next(b for b in app.button if b.label == "Remove").click()
    app.run()
    assert "Remove hr.xlsx and the tables read from it" in app.warning[0].value
    next(b for b in app.button if b.label == "Keep it").click()
    app.run()
    assert [h.value for h in app.subheader] == ["hr.xlsx"] and not app.warning
    next(b for b in app.button if b.label == "Remove").click()
    app.run()
    next(b for b in app.button if b.label == "Remove it").click()
    app.run()
    assert not app.subheader and "Upload a report" in app.info[0].value


# --- the chat ---------------------------------------------------------------------------------

QUESTION = "What was the total operating expense for Q2 2024?"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
LEGACY_XLS = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64)  # a damaged .xls
NODES = ["Decompose", "Retrieve", "Tree navigation", "SQL step", "Validate", "Answer"]


LAST_RESORT = ("Something went wrong here", "Something went wrong. ",
               "This part of the chat could not be shown")


def no_failure(at):
    """No exception, and none of the app's last-resort messages (a bug caught on screen)."""
    assert not at.exception
    assert not [e.value for e in at.error if e.value.startswith(LAST_RESORT)]


def upload_financial(at, samples):
    at.file_uploader[0].set_value(("financial.xlsx", (samples / "financial.xlsx").read_bytes(),
                                   XLSX))
    at.run()
    no_failure(at)


def ask(at, question=QUESTION, *, failing=False):
    at.chat_input[0].set_value(question).run()
    if failing:
        assert not at.exception
    else:
        no_failure(at)
    return at


STEP_TYPE = 2  # Block.Expandable.Type.STEP
STATE_OF_ICON = {"spinner": "running", ":material/check:": "complete",
                 ":material/error:": "error"}


def steps(at) -> list:
    """The step timeline's expanders (type "step"), in order."""
    return [e for e in at.expander if e.proto.type == STEP_TYPE]


def open_steps(at):
    """Open every step of the chat, as a click on each would (a finished step draws its body
    only while open), and rerun."""
    for step in steps(at):
        at.session_state[step.proto.id.split("-", 2)[2]] = True  # "$$ID-<hash>-<key>"
    at.run()
    no_failure(at)
    return at


def step_labels(at) -> list[str]:
    return [s.label for s in steps(at)]


def step_states(at) -> list[str]:
    return [STATE_OF_ICON[s.icon] for s in steps(at)]


def unescape(text: str) -> str:
    """Markdown as a reader sees it (the app escapes the text it shows, and keeps links,
    dashes and arrows from forming in the user's text with empty elements, literal_md.SEAM)."""
    return re.sub(r"\\(.)", r"\1", text.replace(SEAM, ""))


def markdown_of(at) -> list[str]:
    return [unescape(m.value) for m in at.markdown]


def answers(at) -> list[str]:
    """The answer of each turn on the page (the heading of its answer element)."""
    return [m.splitlines()[0][4:] for m in markdown_of(at) if m.startswith("### ")]


def captions(at) -> list[str]:
    return [unescape(c.value) for c in at.caption]


CITE_ICON = ":material/table_view: "


def citation_pills(at) -> list:
    return [p for p in at.pills if p.label.startswith("Cited cells")]


def citation_buttons(at) -> list[str]:
    """The cited cells of every turn on the page, as their pills read."""
    return [unescape(o.removeprefix(CITE_ICON)) for p in citation_pills(at) for o in p.options]


def open_citation(at, label: str):
    """Click the first cited cell whose pill reads `label` (the app opens its table)."""
    for pills in citation_pills(at):
        for i, option in enumerate(pills.options):
            if unescape(option.removeprefix(CITE_ICON)).startswith(label):
                return pills.set_value(i).run()
    raise AssertionError(f"no cited cell {label!r} on the page")


def reopen(at):
    """The same chat in a new browser session (a refresh): only the URL is kept."""
    again = this_browser()
    again.query_params["session"] = at.query_params["session"]
    again.run()
    assert not again.exception
    return again


@pytest.mark.parametrize("bad", ["A" * 22 + "\n", "A" * 21, "../" + "A" * 19, "A" * 22 + " "])
def test_a_malformed_chat_id_in_the_url_is_a_new_empty_chat(tmp_path, monkeypatch, bad):
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    import streamlit as st

    st.cache_resource.clear()  # settings are cached per process; read them again
    at = this_browser()
    at.query_params["session"] = bad
    at.run()
    assert not at.exception
    assert "session" not in at.query_params  # no id, and nothing on disk, until it is used
    assert not list((tmp_path / "data").glob("workspaces/*"))
    assert any("chat link was not recognised" in i.value for i in at.info)
    at.run()  # said once, not on every rerun
    assert not any("chat link was not recognised" in i.value for i in at.info)


def test_a_well_formed_link_of_no_chat_says_so_and_makes_nothing(tmp_path, monkeypatch, samples):
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))
    import streamlit as st

    st.cache_resource.clear()
    at = this_browser()
    at.query_params["session"] = "B" * 22  # well-formed, but no chat has it
    at.run()
    no_failure(at)
    assert "session" not in at.query_params
    assert not list((tmp_path / "data").glob("workspaces/*"))
    assert any("No chat has that link" in i.value for i in at.info)
    upload_financial(at, samples)  # starts a chat of its own, under a new id
    assert at.query_params["session"] != "B" * 22
    assert "Added financial.xlsx: 1 sheet, 1 table." in captions(at)


def test_a_new_chat_gets_its_id_and_workspace_at_its_first_question(app, tmp_path):
    assert "session" not in app.query_params and not list((tmp_path / "data").glob("*/*"))
    assert "Upload a report" in app.info[0].value
    assert any(m.startswith("Ask a question about your reports") for m in markdown_of(app))
    app.chat_input[0].set_value("What was the total?").run()
    no_failure(app)
    minted = app.query_params["session"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", minted)
    assert [p.name for p in (tmp_path / "data" / "workspaces").iterdir()] == [minted]
    assert any("There are no reports in this chat." in e.value for e in app.error)


def test_a_workspace_id_with_a_control_character_or_padding_is_refused(tmp_path):
    for bad in ("A" * 22 + "\n", " A", "a\tb", ".hidden", "a/b", ""):
        with pytest.raises(ValueError):
            Workspace.in_data_dir(tmp_path, bad)


def slow_graph(monkeypatch, entered: threading.Event):
    """Make the app's runs block in tree navigation until they are stopped (20 s at most)."""
    import agent.nodes
    import agent.run
    from agent.graph import build_graph

    real = agent.nodes.tree_navigate

    def tree_navigate(state, runtime):
        ctx = runtime.context
        ctx.trace.emit("tree_navigate", "start", "Matching the question to rows and columns")
        entered.set()
        ctx.cancel.wait(20)
        return real(state, runtime)

    monkeypatch.setattr(agent.nodes, "tree_navigate", tree_navigate)
    graph = build_graph()
    monkeypatch.setattr(agent.run, "default_graph", lambda: graph)


def real_graph(monkeypatch):
    """Undo the test's patches, keeping the data directory the app was started with."""
    data_dir = os.environ["TABLELENS_DATA_DIR"]
    monkeypatch.undo()
    monkeypatch.setenv("TABLELENS_DATA_DIR", data_dir)


def test_offline_mode_is_labelled_with_what_it_can_and_cannot_do(app):
    page = markdown_of(app)
    assert any("Offline engine" in m and "badge" in m for m in page)
    assert any("cannot interpret vague" in m for m in page)
    assert any("Offline engine (no LLM configured)" in m for m in page)  # the settings panel
    assert any(e.label == "What the offline engine can and cannot do" for e in app.expander)


def test_a_question_shows_its_steps_sql_tables_answer_and_cited_cells(app, samples):
    upload_financial(app, samples)
    ask(app)
    labels = step_labels(app)
    assert not app.run().dataframe  # a finished step draws its body only when opened
    open_steps(app)
    assert [next(n for n in NODES if label.startswith(n)) for label in labels] == NODES
    assert set(step_states(app)) == {"complete"}
    sql = [c for c in app.code if c.language == "sql"]
    assert len(sql) == 1 and sql[0].value.startswith("SELECT SUM(")
    assert len(app.dataframe) >= 3  # retrieved tables, the rows used, the SQL result
    shown = captions(app)
    assert any(c.endswith(": 1 row") for c in shown)  # the SQL result, in plain words
    assert not [c for c in shown if "step_" in c or "(s)" in c]
    assert [b.label for b in app.download_button][:2] == ["CSV", "Excel"]
    assert "375" in answers(app)
    assert any("Confidence: high" in m for m in markdown_of(app))
    assert citation_buttons(app) == ["P&L!C5 = 230", "P&L!C6 = 50", "P&L!C7 = 95"]
    assert not [b for b in app.button if b.label in ("Stop", "Stopping...")]


def test_the_transcript_survives_a_refresh(app, samples):
    upload_financial(app, samples)
    ask(app)
    again = reopen(app)
    assert step_labels(again) == step_labels(app)
    assert "375" in answers(again)
    assert citation_buttons(again) == ["P&L!C5 = 230", "P&L!C6 = 50", "P&L!C7 = 95"]
    assert "Added financial.xlsx: 1 sheet, 1 table." in captions(again)


def test_a_grouped_result_gets_a_chart_below_its_table(app, samples):
    upload_financial(app, samples)
    open_steps(ask(app))
    charts = app.get("vega_lite_chart")
    assert len(charts) == 1  # the three rows used; the one-row SQL result gets none
    spec = charts[0].proto.spec
    assert '"bar"' in spec and "H1 2024 > Q2" in spec  # the column's header path
    assert "level_" not in spec and "_row" not in spec


def test_a_citation_opens_its_table_with_the_cited_cells_highlighted(app, samples):
    upload_financial(app, samples)
    ask(app)
    open_citation(app, "P&L!C6")
    assert all(p.value is None for p in citation_pills(app))  # the same one opens again
    assert not app.exception
    page = html_of(app)
    for ref in ("C5", "C6", "C7"):
        assert re.search(rf'class="[^"]*tl-cited[^"]*"[^>]*data-ref="{ref}"', page), ref
    assert re.findall(r'class="[^"]*tl-focus[^"]*"[^>]*data-ref="(\w+)"', page) == ["C6"]
    assert "**P&L!C6** = 50, in financial.xlsx, sheet P&L" in markdown_of(app)


def test_a_cited_cell_opens_with_its_column_and_row_paths(app, samples):
    """A browser tester: the cited cell's dialog named it "P&L!C6 = 50, in financial.xlsx,
    sheet P&L" and nothing more, though the chat's tables name every cell by its paths."""
    upload_financial(app, samples)
    ask(app)
    open_citation(app, "P&L!C6")
    no_failure(app)
    shown = markdown_of(app)
    heading = shown.index("**P&L!C6** = 50, in financial.xlsx, sheet P&L")
    assert shown[heading + 1] == "Column: H1 2024 > Q2 · Row: Operating Expenses > Rent"


def sales_csv(rows: int) -> bytes:
    return ("Item,Sales\n" + "".join(f"Item {i},{i + 1}\n" for i in range(rows))).encode()


@pytest.mark.parametrize("rows", [300, 100_000])
def test_a_total_over_many_rows_is_one_citation_that_opens_the_whole_set(app, rows):
    app.file_uploader[0].set_value(("sales.csv", sales_csv(rows), "text/csv"))
    app.run()
    no_failure(app)
    ask(app, "What is the total Sales?")
    # Written as the column writes its numbers: 45,150, but 5000050000 under "100000".
    assert [a.replace(",", "") for a in answers(app)] == [str(rows * (rows + 1) // 2)]
    # One pill for the set, in the table's words, then the first and last few cells.
    last = rows + 1
    assert citation_buttons(app) == [f"Sales, {rows:,} cells", "sales!B2 = 1",
                                     "sales!B3 = 2", "sales!B4 = 3",
                                     f"sales!B{last - 2} = {rows - 2}",
                                     f"sales!B{last - 1} = {rows - 1}",
                                     f"sales!B{last} = {rows}"]
    open_citation(app, f"Sales, {rows:,} cells")
    no_failure(app)
    assert all(p.value is None for p in citation_pills(app))  # the same one opens again
    page = html_of(app)
    cited = re.findall(r'class="[^"]*tl-cited[^"]*"[^>]*data-ref="(\w+)"', page)
    assert cited == [f"B{r}" for r in range(2, 201)]  # the set's first rows on screen
    assert f"**Sales, {rows:,} cells**, in sales.csv: B2:B{last}" in markdown_of(app)
    assert f"Yellow: the cells this answer read (199 of the {rows:,} on this part of the " \
           "sheet). Blue: header cells." in captions(app)
    open_citation(app, f"sales!B{last} = {rows}")  # a listed cell: the set's cells around it
    no_failure(app)
    page = html_of(app)
    assert re.findall(r'class="[^"]*tl-focus[^"]*"[^>]*data-ref="(\w+)"', page) == [f"B{last}"]
    cited = re.findall(r'class="[^"]*tl-cited[^"]*"[^>]*data-ref="(\w+)"', page)
    assert cited == [f"B{r}" for r in range(last - 5, last + 1)]  # from 5 rows above the click
    open_steps(app)
    assert any(c.startswith(f"Grounded cells: {rows:,} cells of sales.csv (B2:B{last})")
               for c in captions(app))  # a CSV has no sheets: its one table is the file


def test_an_answer_stored_before_sets_still_lists_and_opens_every_cited_cell(app, samples):
    upload_financial(app, samples)
    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"],
                                      app.query_params["session"])
    table = workspace.table_ids()[0]
    cells = [{"table": table, "sheet": "P&L", "ref": f"C{r}", "text": str(r), "value": r}
             for r in range(3, 33)]  # an aggregate cited every cell, without a set
    chat_store.add_question(workspace, "old", "What was the total?")
    chat_store.add_run(workspace, "old", [], answer={
        "answer": "555", "values": [555], "confidence": 0.9, "confidence_label": "high",
        "evidence": cells})
    workspace.close()
    app.run()
    no_failure(app)
    assert len(citation_buttons(app)) == 30
    open_citation(app, "P&L!C6")
    no_failure(app)
    assert "**P&L!C6** = 6, in financial.xlsx, sheet P&L" in markdown_of(app)
    assert "Column: H1 2024 > Q2 · Row: Operating Expenses > Rent" in markdown_of(app)


def test_files_and_a_question_can_come_through_the_chat_input(app, samples):
    chat = app.chat_input[0]
    chat.upload("financial.xlsx", (samples / "financial.xlsx").read_bytes(), XLSX)
    chat.set_value(QUESTION).run()
    assert not app.exception
    assert "Added financial.xlsx: 1 sheet, 1 table." in captions(app)
    assert [h.value for h in app.subheader] == ["financial.xlsx"]
    assert "375" in answers(app)
    assert "Attached: financial.xlsx" in captions(app)  # with the question, while it runs


def test_a_question_sent_with_a_file_that_fails_is_held_back(app, samples):
    # A browser tester: the question about corrupt.xlsx ran against the chat's other file
    # ("the word corrupt.xlsx does not match anything in ...").
    upload_financial(app, samples)
    chat = app.chat_input[0]
    chat.upload("corrupt.xlsx", b"not a workbook at all", XLSX)
    chat.set_value("What is the total in corrupt.xlsx?").run()
    assert not app.exception
    assert any(e.value.startswith("corrupt.xlsx: ") for e in app.error)
    shown = " ".join([*markdown_of(app), *(e.value for e in app.error), *captions(app)])
    assert "Not asked: corrupt.xlsx could not be added (see why above)" in shown, shown
    assert answers(app) == []


def test_an_unsupported_file_in_the_chat_gets_its_message(app, samples):
    chat = app.chat_input[0]
    chat.upload("old.xls", LEGACY_XLS, "application/vnd.ms-excel")
    chat.upload("hr.xlsx", (samples / "hr.xlsx").read_bytes(), XLSX)
    chat.set_value(None).run()
    assert not app.exception
    [error] = [e.value for e in app.error]
    assert error == ("old.xls: this is not a readable Excel 97-2003 (.xls) workbook: it is "
                     "damaged, or another kind of file. Open it in Excel or LibreOffice, save it "
                     "as .xlsx, and upload that copy.")
    assert [h.value for h in app.subheader] == ["hr.xlsx"]
    ask(app, "How many employees are in Engineering?")
    assert "4" in answers(app)


def test_a_question_before_any_upload_says_what_to_do(app):
    ask(app)
    assert [e.value for e in app.error] == [NO_FILES_MESSAGE]
    assert not steps(app)


def test_a_header_correction_changes_the_paths(app, samples):
    upload_financial(app, samples)

    def column_paths():
        return [c for c in captions(app) if c.startswith("Column paths")]

    assert column_paths() == [
        "Column paths: H1 2024 > Q1 | H1 2024 > Q2 | H2 2024 > Q3 | H2 2024 > Q4"]
    rows = next(m for m in app.multiselect if m.label == "Header rows")
    assert rows.value == [1, 2]
    rows.set_value([2])
    next(b for b in app.button if b.label == "Apply").click().run()
    assert not app.exception
    assert column_paths() == ["Column paths: Q1 | Q2 | Q3 | Q4"]
    assert next(m for m in app.multiselect if m.label == "Header rows").value == [2]
    assert any("corrected by hand" in m for m in markdown_of(app))
    next(b for b in app.button if b.label == "Use detected headers").click().run()
    assert column_paths()[0].startswith("Column paths: H1 2024 > Q1")



def test_a_header_correction_is_restored_with_the_chat(app, samples):
    upload_financial(app, samples)
    next(m for m in app.multiselect if m.label == "Header rows").set_value([2])
    next(b for b in app.button if b.label == "Apply").click().run()
    no_failure(app)
    ask(app, "What was the total Rent for Q2?")
    again = reopen(app)  # a refresh, or the URL in a new tab
    assert [c for c in captions(again) if c.startswith("Column paths")] == [
        "Column paths: Q1 | Q2 | Q3 | Q4"]
    assert next(m for m in again.multiselect if m.label == "Header rows").value == [2]
    assert any("corrected by hand" in m for m in markdown_of(again))
    # The answer over the corrected table is restored, and a new question reads it too.
    assert step_labels(again) == step_labels(app)
    ask(again, "What was the total Salaries for Q3?")
    assert "Tree navigation: Plan: sum of Q3 over 1 row" in step_labels(again)  # no "H2 2024"
    assert answers(again) == ["50", "250"]

def test_the_workspace_panel_shows_header_decisions_cells_and_both_trees(app, samples):
    upload_financial(app, samples)
    page = html_of(app)
    assert re.search(r'class="tl-merged tl-header"[^>]*data-ref="B1"', page)  # H1 2024
    assert re.search(r'class="tl-header"[^>]*data-ref="A5"', page)  # Salaries
    assert "<li>H1 2024 <code>B1</code><ul><li>Q1 <code>B2</code></li>" in page
    assert "Operating Expenses <code>A4</code> <em>(group)</em><ul><li>Salaries" in page
    assert any(m.startswith("Header rows 1-2, header column A") for m in markdown_of(app))


def test_stop_cancels_a_running_question_and_keeps_its_trace(app, samples, monkeypatch):
    upload_financial(app, samples)
    entered = threading.Event()
    slow_graph(monkeypatch, entered)
    session = app.query_params["session"]
    stopped: list[bool] = []

    def press_stop():  # what the Stop button's on_click does, while the app follows the run
        if entered.wait(20):
            run = runs.active(session)
            stopped.append(run is not None and runs.stop(run.run_id))

    presser = threading.Thread(target=press_stop)
    presser.start()
    started = time.monotonic()
    ask(app)
    presser.join(5)
    assert stopped == [True]
    assert time.monotonic() - started < 15  # not the 20 s the step would have taken
    assert step_labels(app) == [
        "Decompose: Read the question", "Retrieve: Using the only table",
        "Stopped - Tree navigation: Matching the question to rows and columns"]
    assert step_states(app) == ["complete", "complete", "error"]
    assert [w.value for w in app.warning] == [
        "Stopped by the user. The steps above ran before the stop."]
    assert "375" not in answers(app)
    assert not [b for b in app.button if b.label in ("Stop", "Stopping...")]

    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"], session)
    turn = chat_store.turns(workspace)[-1]
    workspace.close()
    assert [e["phase"] for e in turn.events][-1] == "cancelled"
    assert turn.answer["error"]["kind"] == "cancelled"
    assert step_labels(reopen(app)) == step_labels(app)

    real_graph(monkeypatch)  # the chat is still usable
    ask(app)
    assert "375" in answers(app)


def test_a_page_opened_while_a_question_runs_follows_it_live(app, samples, monkeypatch):
    upload_financial(app, samples)
    entered = threading.Event()
    slow_graph(monkeypatch, entered)
    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"],
                                      app.query_params["session"])
    run = runs.start(workspace, QUESTION)  # as if asked in another tab, or before a reload
    assert entered.wait(10)
    threading.Timer(0.5, runs.stop, args=(run.run_id,)).start()
    again = reopen(app)  # follows the run until it ends
    workspace.close()
    assert step_labels(again)[-1] == (
        "Stopped - Tree navigation: Matching the question to rows and columns")
    assert [w.value for w in again.warning] == [
        "Stopped by the user. The steps above ran before the stop."]


def test_a_failing_run_becomes_one_plain_message_and_the_chat_goes_on(app, samples,
                                                                       monkeypatch):
    upload_financial(app, samples)

    def broken(*args, **kwargs):
        raise RuntimeError("KeyError: 'frames' in agent internals")

    monkeypatch.setattr(runs, "stream_question", broken)
    ask(app, failing=True)
    assert [e.value for e in app.error] == [
        "Something went wrong while answering (RuntimeError: KeyError: 'frames' in agent "
        "internals). The details are in the server log; the rest of the chat still works, so "
        "try again or rephrase the question."]
    real_graph(monkeypatch)
    ask(app)
    assert "375" in answers(app)
    assert len(app.error) == 1  # the failure stays in the transcript, in plain words


def test_a_run_cut_off_by_a_restart_shows_as_interrupted(app, samples):
    upload_financial(app, samples)
    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"],
                                      app.query_params["session"])
    chat_store.add_question(workspace, "gone", QUESTION)
    for seq, phase, title in ((0, "start", "Reading the question"),
                              (1, "end", "Read the question"),
                              (2, "start", "Finding the relevant tables")):
        node = "decompose" if seq < 2 else "retrieve"
        chat_store.add_event(workspace, {"schema_version": 1, "run_id": "gone", "seq": seq,
                                         "node": node, "phase": phase, "title": title})
    workspace.close()
    app.run()
    assert step_labels(app) == ["Decompose: Read the question",
                                "Interrupted - Retrieve: Finding the relevant tables"]
    assert any("interrupted before it finished" in w.value for w in app.warning)


def streamlit_app_constant(name: str) -> str:
    """A constant of the app module, read from its source (the app is a script, not a module)."""
    tree = ast.parse(Path(APP).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise KeyError(name)


def test_a_cited_passage_of_text_opens_as_the_passage(app, samples):
    upload_financial(app, samples)
    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"],
                                      app.query_params["session"])
    chat_store.add_question(workspace, "text", "How much did revenue grow?")
    chat_store.add_run(workspace, "text", [], answer={
        "answer": "12%", "values": [12], "confidence": 0.9, "confidence_label": "high",
        "evidence": [{"table": "report-text", "sheet": "text", "ref": "p2",
                      "text": "Revenue rose 12% in 2019."}]})
    workspace.close()
    app.run()
    open_citation(app, "text!p2 = Revenue rose 12% in 2019.")
    no_failure(app)
    assert "> Revenue rose 12% in 2019." in markdown_of(app)


# --- a turn never crashes ---------------------------------------------------------------------

REFUSAL = ("Needs an LLM: the word \"meaning\" does not match anything in financial.xlsx, "
           "sheet P&L.")


def store_refused_turn(at, run_id="refused"):
    """A refused turn whose grounding step table holds blank and text cells (the table shape
    that crashed the chart builder with float(''))."""
    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"],
                                      at.query_params["session"])
    table = {"name": "financial__p_l__t0: grounding", "columns": ["kind", "text", "where",
                                                                  "rows/score"],
             "rows": [["value", "Rent", "level_2", 1], ["column", "Q2", "H1 2024 > Q2", 0.83],
                      ["unmatched word", "meaning", "", ""]], "row_count": 3}
    events = [{"schema_version": 1, "run_id": run_id, "seq": 0, "node": "tree_navigate",
               "phase": "start", "title": "Matching the question to rows and columns"},
              {"schema_version": 1, "run_id": run_id, "seq": 1, "node": "tree_navigate",
               "phase": "end", "title": "Could not tie the question to the table",
               "detail": "the words do not match", "table": table}]
    chat_store.add_question(workspace, run_id, "What is the meaning of Rent in Q2?")
    chat_store.add_run(workspace, run_id, events, answer={
        "answer": None, "error": {"kind": "needs_llm", "message": REFUSAL}})
    workspace.close()


def test_a_refused_turn_with_blank_and_text_cells_shows_its_reason(app, samples):
    upload_financial(app, samples)
    store_refused_turn(app)
    app.run()
    no_failure(app)
    assert [w.value for w in app.warning] == [REFUSAL]
    assert step_labels(app) == ["Tree navigation: Could not tie the question to the table"]
    again = reopen(app)
    no_failure(again)
    assert [w.value for w in again.warning] == [REFUSAL]


def test_a_failing_chart_is_replaced_by_a_notice_and_the_answer_stays(app, samples,
                                                                      monkeypatch):
    import tablelens.charts

    def broken(spec):
        raise ValueError("no chart today")

    monkeypatch.setattr(tablelens.charts, "vega_lite_spec", broken)
    upload_financial(app, samples)
    open_steps(ask(app))
    assert "375" in answers(app)
    assert citation_buttons(app) == ["P&L!C5 = 230", "P&L!C6 = 50", "P&L!C7 = 95"]
    assert [next(n for n in NODES if label.startswith(n)) for label in step_labels(app)] == NODES
    notices = [c for c in captions(app) if "could not be shown here" in c]
    assert notices == [":material/warning: The chart could not be shown here; the details are "
                       "in the server log."]
    assert not app.get("vega_lite_chart")


def test_a_failing_step_table_is_replaced_by_a_notice_live_and_after_a_reload(app, samples,
                                                                             monkeypatch):
    import tablelens.table_view

    def broken(table):
        raise KeyError("columns")

    monkeypatch.setattr(tablelens.table_view, "table_view", broken)
    upload_financial(app, samples)
    open_steps(ask(app))
    for at in (app, app.run()):
        assert "375" in answers(at)
        assert len(step_labels(at)) == len(NODES)
        assert len([c for c in captions(at) if "intermediate table could not be shown" in c]) >= 2
        assert not [e.value for e in at.error if e.value.startswith(LAST_RESORT)]


# --- uploads and layout -----------------------------------------------------------------------

def test_any_file_can_be_chosen_and_one_without_a_reader_gets_a_message_in_the_chat(app):
    app.file_uploader[0].set_value([("notes.txt", b"Revenue rose 12% in 2024.\n", "text/plain"),
                                    ("scan.png", b"\x89PNG\r\n\x1a\n" + bytes(32), "image/png")])
    app.run()
    no_failure(app)
    # A text file is read now (issue 18, Documents): its passages get a Text tab.
    assert [e.value for e in app.error] == [
        "scan.png: the file is named as an image, but its bytes are not an image Tablelens can "
        "read (PNG, JPEG, WebP, TIFF or BMP). Check that it is the right file, or export the "
        "picture again as PNG."]
    assert [t.label for t in app.tabs] == ["Text"]
    assert ".xlsx" in app.file_uploader[0].help and "message in the chat" in \
        app.file_uploader[0].help


def test_the_workspace_panel_can_be_widened_or_given_the_whole_page(app, samples):
    upload_financial(app, samples)
    width = next(s for s in app.get("button_group") if "Workspace" in s.proto.label)
    assert not app.tabs or [t.label for t in app.tabs] == ["P&L"]
    width.set_value("Full width").run()
    no_failure(app)
    assert [t.label for t in app.tabs][:2] == ["Chat", "Workspace"]
    assert [h.value for h in app.subheader] == ["financial.xlsx"]


def test_the_script_has_no_bare_strings_streamlit_would_print():
    """Streamlit's magic writes any bare expression of the script on the page (a docstring
    after a constant showed up as a caption above the title)."""
    tree = ast.parse(Path(APP).read_text())
    bare = [node.lineno for node in tree.body[1:]
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)]
    assert bare == []


def test_turns_before_the_recent_ones_are_one_block_that_still_shows_everything(app, samples):
    upload_financial(app, samples)
    ask(app)
    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"],
                                      app.query_params["session"])
    asked = [m for m in chat_store.messages(workspace) if m["kind"] != "upload"]
    recent = streamlit_app_constant("RECENT_TURNS")
    for n in range(recent):  # the same turn again, each with a question of its own
        chat_store.append_many(workspace, [
            (f"copy{n}", m["kind"], {**m["body"], "text": f"Question {n}: {QUESTION}"}
             if m["kind"] == "question" else m["body"]) for m in asked])
    workspace.close()
    again = reopen(app)
    block = html_of(again)
    # The upload turn and the first question moved into the block, with all they said ...
    assert "Added financial.xlsx: 1 sheet, 1 table." in block
    assert f"<div class=\"tl-question\">{QUESTION}</div>" in block
    assert "<details" in block and "SELECT SUM(" in block and ">375<" in block
    assert "P&amp;L!C5 = 230" in block
    assert "Question 0:" not in block
    # ... and the last RECENT_TURNS turns keep their widgets: cited cells that open their table, and
    # tables to sort and download; the newest draws a widget per step, the ones before it
    # their timeline as one HTML element each, with every step's text, SQL and table.
    assert answers(again) == ["375"] * recent
    assert len(citation_buttons(again)) == 3 * recent
    assert step_labels(again) == step_labels(app)
    timelines = [el.proto.body for el in again.get("html") if 'class="tl-steps"' in el.proto.body]
    assert len(timelines) == recent - 1
    assert all(t.count("<details") == len(step_labels(app)) and "SELECT SUM(" in t
               and "Operating Expenses &gt; Rent" in t for t in timelines)
    tables = [e for e in again.expander if "intermediate tables" in e.label]
    assert len(tables) == recent - 1 and not again.dataframe
    again.session_state[tables[0].proto.id.split("-", 2)[2]] = True  # a click on it
    again.run()
    no_failure(again)
    assert len(again.dataframe) == 2  # the tree step's rows, the SQL result
    assert [b.label for b in again.download_button
            if b.label != "Download this chat"] == ["CSV", "Excel"] * 2


def test_upload_notices_do_not_push_answers_out_of_the_turns_with_widgets(app, samples):
    upload_financial(app, samples)
    ask(app)
    workspace = Workspace.in_data_dir(os.environ["TABLELENS_DATA_DIR"],
                                      app.query_params["session"])
    asked = [m for m in chat_store.messages(workspace) if m["kind"] != "upload"]
    uploads = [m for m in chat_store.messages(workspace) if m["kind"] == "upload"]
    recent = streamlit_app_constant("RECENT_TURNS")
    for n in range(recent - 1):  # more questions, an upload notice after each
        chat_store.append_many(workspace, [
            (f"copy{n}", m["kind"], {**m["body"], "text": f"Question {n}: {QUESTION}"}
             if m["kind"] == "question" else m["body"]) for m in asked]
            + [(f"upload{n}", m["kind"], m["body"]) for m in uploads])
    workspace.close()
    again = reopen(app)
    assert answers(again) == ["375"] * recent  # every question keeps its answer and pills
    assert len(citation_buttons(again)) == 3 * recent
    assert step_labels(again) == step_labels(app)  # the newest question: a widget per step


def test_an_html_page_is_added_as_tables_not_sheets(app, tmp_path):
    page = tmp_path / "spans.html"
    page.write_text("<table><tr><th>Item</th><th>Q1</th></tr><tr><td>Rent</td><td>50</td></tr>"
                    "</table>", encoding="utf-8")
    app.file_uploader[0].set_value([("spans.html", page.read_bytes(), "text/html")])
    app.run()
    no_failure(app)
    assert "Added spans.html: 1 table." in captions(app)


def test_an_upload_says_how_many_passages_of_text_it_added(app, tmp_path):
    page = tmp_path / "notes.html"
    page.write_text("<h1>Notes</h1><p>Revenue rose by 12% because rents fell.</p>"
                    "<table><tr><th>Item</th><th>Q1</th></tr><tr><td>Rent</td><td>50</td></tr>"
                    "</table>", encoding="utf-8")
    app.file_uploader[0].set_value([("notes.html", page.read_bytes(), "text/html")])
    app.run()
    no_failure(app)
    assert "Added notes.html: 1 table and 1 passage of text." in captions(app)


def click_during_upload(monkeypatch) -> None:
    """Make the next upload's bar update raise Streamlit's rerun exception, as a click does
    (the upload waits for it, so that the click comes before its first rows are read)."""
    from streamlit.runtime.scriptrunner_utils.exceptions import RerunException
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    from tablelens import uploads

    real = uploads.run_upload
    clicked: list[bool] = []

    def run_upload(work, show, *, on_interrupt, poll_s=uploads.POLL_S):
        def slow(cancel, progress):
            cancel.wait()
            return work(cancel, progress)

        def show_then_click(fraction, stage):
            show(fraction, stage)
            if not clicked:
                clicked.append(True)
                # The browser's rerun request carries the page's address, with the chat id
                # the upload put there.
                chat = next((Path(os.environ["TABLELENS_DATA_DIR"]) / "workspaces").iterdir())
                raise RerunException(RerunData(query_string=f"session={chat.name}"))

        return real(slow if not clicked else work, show_then_click, on_interrupt=on_interrupt,
                    poll_s=poll_s)

    monkeypatch.setattr(uploads, "run_upload", run_upload)


def only_workspace() -> Workspace:
    return Workspace(next((Path(os.environ["TABLELENS_DATA_DIR"]) / "workspaces").iterdir()))


def test_a_click_during_an_upload_stops_it_and_the_chat_says_so(app, samples, monkeypatch):
    """A click reruns the script, and Streamlit raises its rerun exception at the bar's next
    update: the upload is cancelled with nothing stored, the chat says "upload stopped" for
    that file and "not added" for the next, and the uploader is cleared so that the rerun
    does not start the files again."""
    click_during_upload(monkeypatch)
    app.file_uploader[0].set_value([
        ("financial.xlsx", (samples / "financial.xlsx").read_bytes(), XLSX),
        ("hr.xlsx", (samples / "hr.xlsx").read_bytes(), XLSX)])
    app.run()
    no_failure(app)
    assert [e.value for e in app.error] == [
        "financial.xlsx: upload stopped; nothing was stored.",
        "hr.xlsx: not added; the upload was stopped."]
    assert not app.file_uploader[0].value  # a fresh uploader: nothing is added again
    workspace = only_workspace()
    assert workspace.sources() == [] and list(workspace.files_dir.iterdir()) == []


def test_files_sent_with_the_clip_can_be_stopped_too(app, samples, monkeypatch):
    """The page, not the chat box's fragment, adds a message's files (a click on a
    fragment's widget would wait for its run): a click stops them, and the question that
    came with them is not asked."""
    click_during_upload(monkeypatch)
    chat = app.chat_input[0]
    chat.upload("financial.xlsx", (samples / "financial.xlsx").read_bytes(), XLSX)
    chat.set_value(QUESTION).run()
    no_failure(app)
    assert [e.value for e in app.error] == ["financial.xlsx: upload stopped; nothing was stored."]
    assert not answers(app)
    workspace = only_workspace()
    assert workspace.sources() == [] and list(workspace.files_dir.iterdir()) == []
    chat = app.chat_input[0]  # the widget of the last run
    chat.upload("financial.xlsx", (samples / "financial.xlsx").read_bytes(), XLSX)
    chat.set_value(QUESTION).run()  # sent again, the files are added and the question asked
    no_failure(app)
    assert "375" in answers(app)


def test_a_follow_up_reads_the_previous_question_also_after_a_restart(app, samples):
    upload_financial(app, samples)
    ask(app)
    ask(app, "and for Q3?")
    assert answers(app)[-2:] == ["375", "405"]
    import streamlit as st

    st.cache_resource.clear()  # a restarted server: a new checkpointer over app.sqlite
    again = reopen(app)
    ask(again, "And the revenue?")
    assert answers(again)[-1] == "710"  # Q3's revenue: the column carried over


# --- the list of chats ------------------------------------------------------------------------

def listed_chats(at) -> list[str]:
    """The titles of the sidebar's chats, in order."""
    return [unescape(b.label) for b in at.sidebar.button
            if (b.key or "").startswith("open_chat_")]


def marked_chat(at) -> list[str]:
    """The chats marked as the current one."""
    return [unescape(b.label) for b in at.sidebar.button
            if (b.key or "").startswith("open_chat_") and b.proto.type == "secondary"]


def new_chat(at):
    next(b for b in at.button if b.label == "New chat").click().run()
    no_failure(at)
    assert "session" not in at.query_params


def rename_chat(at, chat_id: str, title: str):
    """Type a title in the chat's rename form and submit it (one run, as a form sends)."""
    at.sidebar.text_input(key=f"chat_title_{chat_id}").set_value(title)
    at.button(key=f"rename_chat_submit_{chat_id}").click().run()
    return at


def checkpoint_rows(thread_id: str) -> int:
    conn = sqlite3.connect(Path(os.environ["TABLELENS_DATA_DIR"]) / "app.sqlite")
    try:
        return sum(conn.execute(f"SELECT COUNT(*) FROM {table} WHERE thread_id = ?",
                                (thread_id,)).fetchone()[0] for table in ("checkpoints", "writes"))
    finally:
        conn.close()


def test_the_chat_list_puts_the_last_used_chat_first_and_searches_titles(app):
    ask(app, "Revenue by region in 2024?")  # no file yet: refused at once, but a chat
    first = app.query_params["session"]
    new_chat(app)
    assert listed_chats(app) == ["Revenue by region in 2024?"] and not marked_chat(app)
    ask(app, "Total rent for Q2?")
    assert listed_chats(app) == ["Total rent for Q2?", "Revenue by region in 2024?"]
    assert marked_chat(app) == ["Total rent for Q2?"]
    assert any(c.startswith("This chat · no files · today, ") for c in captions(app))
    app.button(key=f"open_chat_{first}").click().run()
    assert app.query_params["session"] == first
    assert marked_chat(app) == ["Revenue by region in 2024?"]
    ask(app, "And in 2023?")  # a later question moves the chat up, its title stays
    assert listed_chats(app) == ["Revenue by region in 2024?", "Total rent for Q2?"]
    app.sidebar.text_input(key="chat_search").set_value("RENT").run()
    assert listed_chats(app) == ["Total rent for Q2?"]
    app.sidebar.text_input(key="chat_search").set_value("payroll").run()
    assert listed_chats(app) == []
    assert any("No chat's title contains “payroll”" in c for c in captions(app))


def test_a_renamed_chat_keeps_its_title_after_a_reopen_and_later_questions(app):
    ask(app, "What was the total rent?")
    chat = app.query_params["session"]
    rename_chat(app, chat, "  ")
    assert any("title cannot be empty" in e.value for e in app.sidebar.error)
    assert listed_chats(app) == ["What was the total rent?"]
    rename_chat(app, chat, "Office budget 2024")
    no_failure(app)
    assert listed_chats(app) == ["Office budget 2024"]
    import streamlit as st

    st.cache_resource.clear()  # a restarted server
    again = reopen(app)
    assert listed_chats(again) == ["Office budget 2024"] == marked_chat(again)
    ask(again, "And the revenue?")
    assert listed_chats(again) == ["Office budget 2024"]


TRAPS = "<b>Q2</b> **ops** review `x` [link](http://evil.example) & more -- a->b"
"""A title or a question that Markdown would turn into bold, code, a link, a dash, an arrow."""


def test_a_typed_question_is_shown_as_typed(app):
    """"'; DROP TABLE cells; --" read "... cells; —": Streamlit makes a dash of "--" however
    it is escaped. (tests/test_browser_share.py sees the question so in a browser.)"""
    ask(app, "'; DROP TABLE cells; --")
    [question] = [t.value for t in app.text if "DROP TABLE" in t.value]
    assert question == "'; DROP TABLE cells; --"  # st.text: no Markdown, so no dash


def test_a_chat_title_is_shown_as_typed_in_the_list_and_the_delete_question(app):
    """A chat renamed "... [link](http://evil.example) ..." read "...evil.example\\)" in the
    sidebar, a link GFM made of the address whatever backslashes surround it. Titles are
    the user's words, written so that Streamlit renders them literally (literal_md.py)."""
    ask(app, "What was the total rent?")
    chat = app.query_params["session"]
    rename_chat(app, chat, TRAPS)
    no_failure(app)
    assert listed_chats(app) == [TRAPS]
    [label] = [b.label for b in app.sidebar.button if b.key == f"open_chat_{chat}"]
    assert label == md_literal(TRAPS) and "://" not in label
    app.button(key=f"delete_chat_{chat}").click().run()
    assert any(w.value.startswith(f"Delete the chat “{md_literal(TRAPS)}”?")
               for w in app.sidebar.warning)


def test_deleting_a_chat_stops_its_question_and_removes_its_folder_row_and_checkpoints(
        app, samples, monkeypatch):
    ask(app, "Total rent for Q2?")  # a chat that stays
    kept = app.query_params["session"]
    new_chat(app)
    upload_financial(app, samples)
    chat = app.query_params["session"]
    assert listed_chats(app) == ["financial.xlsx", "Total rent for Q2?"]  # no question yet
    ask(app)
    assert listed_chats(app)[0] == QUESTION  # the first question titles the chat
    assert app.sidebar.text_input(key=f"chat_title_{chat}").value == QUESTION  # rename field
    assert any(c.startswith("This chat · 1 file · ") for c in captions(app))
    assert checkpoint_rows(chat) > 0 and checkpoint_rows(kept) == 0
    app.button(key=f"delete_chat_{chat}").click().run()
    assert any(w.value.startswith(f"Delete the chat “{QUESTION}”?") for w in app.warning)
    app.button(key=f"delete_chat_no_{chat}").click().run()
    assert not app.warning and len(listed_chats(app)) == 2
    app.button(key=f"delete_chat_{chat}").click().run()

    entered = threading.Event()
    slow_graph(monkeypatch, entered)
    data = Path(os.environ["TABLELENS_DATA_DIR"])
    workspace = Workspace.in_data_dir(data, chat)
    run = runs.start(workspace, QUESTION)  # a question still being answered (another tab)
    workspace.close()
    assert entered.wait(10)
    started = time.monotonic()
    app.button(key=f"delete_chat_yes_{chat}").click().run()
    no_failure(app)
    assert run.done and run.cancel.is_set() and time.monotonic() - started < 15
    assert not (data / "workspaces" / chat).exists()
    assert SqliteChatIndex.in_data_dir(data).get(chat) is None
    assert checkpoint_rows(chat) == 0
    assert "session" not in app.query_params  # the open chat was deleted: a new, empty one
    assert any(m.startswith("Ask a question about your reports") for m in markdown_of(app))
    assert listed_chats(app) == ["Total rent for Q2?"] and not marked_chat(app)
    assert (data / "workspaces" / kept).is_dir()


def test_chats_made_before_the_index_are_listed_at_start(tmp_path, monkeypatch, samples):
    data = tmp_path / "data"
    asked, uploaded, failed, unused = (new_workspace_id() for _ in range(4))
    long = ("What was the total rent in 2023 across every office of the company, region by "
            "region?")
    for chat_id in (asked, uploaded, failed, unused):
        workspace = Workspace.in_data_dir(data, chat_id)
        if chat_id == asked:
            chat_store.add_question(workspace, "r1", long)
        elif chat_id == uploaded:
            workspace.add_file(samples / "hr.xlsx")
        elif chat_id == failed:
            chat_store.add_upload(workspace, "upload_1", "old.xls", ok=False, message="old")
        workspace.close()
        time.sleep(0.01)  # each one used after the one before
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(data))
    import streamlit as st

    st.cache_resource.clear()
    at = this_browser()
    at.run()
    no_failure(at)
    assert listed_chats(at) == ["Untitled chat", "hr.xlsx", title_of_question(long)]
    assert title_of_question(long).endswith("…")
    assert any(c.startswith("1 file · today, ") for c in captions(at))
    at.button(key=f"open_chat_{uploaded}").click().run()
    assert at.query_params["session"] == uploaded
    assert [h.value for h in at.subheader] == ["hr.xlsx"]


def test_a_chat_downloads_as_markdown_and_its_step_tables_as_xlsx(app, samples, tmp_path):
    import io
    import zipfile

    from openpyxl import load_workbook

    from storage.workspace import Workspace
    from tablelens import chat_store
    from tablelens.chat_export import chat_zip

    upload_financial(app, samples)
    ask(app)
    ask(app, "How many penguins live on the moon?")
    assert any(b.label == "Download this chat" for b in app.get("download_button"))
    ws = Workspace(tmp_path / "data" / "workspaces" / app.query_params["session"])
    try:
        data = chat_zip(chat_store.turns(ws), ws.root / "workspace.sqlite", QUESTION)
    finally:
        ws.close()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert sorted(z.namelist()) == ["chat.md", "step-tables.xlsx"]
        md = z.read("chat.md").decode()
        book = load_workbook(io.BytesIO(z.read("step-tables.xlsx")))
    assert "- Added financial.xlsx: 1 sheet, 1 table." in md
    assert f"## Question 1: {QUESTION}" in md
    assert "```sql\nSELECT SUM(" in md  # the SQL step's query
    assert "**Answer:** 375" in md
    assert "Cited: P&L!C5 = 230, P&L!C6 = 50, P&L!C7 = 95" in md
    assert "## Question 2: How many penguins live on the moon?" in md
    assert "**No answer:** Needs an LLM" in md
    # Every step table the Markdown names is a sheet of the workbook, whole.
    named = re.findall(r"sheet \u201c(Q\d+ step \d+)\u201d", md)
    assert named and named == book.sheetnames
    assert all(book[s].max_row >= 2 for s in named)


def test_a_wrong_answer_is_reported_with_its_trace_and_listed_by_the_cli(app, samples, tmp_path,
                                                                         capsys):
    from tablelens import cli

    upload_financial(app, samples)
    ask(app)
    app.text_area[0].input("The total should include Marketing twice.")
    next(b for b in app.button if b.label == "Send the report").click()
    app.run()
    no_failure(app)
    assert "Reported as a wrong answer. Thank you." in " ".join(c.value for c in app.caption)
    assert not [b for b in app.button if b.label == "Send the report"]
    assert cli.main(["reports", "--data-dir", str(tmp_path / "data"), "--json"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    kept = json.loads(line)
    assert kept["question"] == QUESTION and kept["answer"]["answer"] == "375"
    assert kept["note"] == "The total should include Marketing twice."
    assert [s["node"] for s in kept["steps"] if s["phase"] == "end"][-1] == "answer"
    assert cli.main(["reports", "--data-dir", str(tmp_path / "data")]) == 0
    listed = capsys.readouterr().out
    assert f"in \u201c{QUESTION}\u201d" in listed and "answer: 375" in listed
    assert "note: The total should include Marketing twice." in listed


def test_an_answer_copies_as_text_with_its_cited_cells(app, samples):
    upload_financial(app, samples)
    ask(app)
    copied = [c.value for c in app.code if c.value.startswith("375\n")]
    assert copied == ["375\nfinancial.xlsx, sheet P&L, C5: 230\nfinancial.xlsx, sheet P&L, C6: 50"
                      "\nfinancial.xlsx, sheet P&L, C7: 95"]


def test_an_edited_question_is_asked_again_and_the_first_answer_stays_marked(app, samples,
                                                                             tmp_path):
    upload_financial(app, samples)
    ask(app)
    [box] = [t for t in app.text_area if t.label == "Question"]
    assert box.value == QUESTION  # the sent question, ready to edit
    box.input("What was the total operating expense for Q3 2024?")
    next(b for b in app.button if b.label == "Ask again").click()
    app.run()
    no_failure(app)
    assert SUPERSEDED_NOTE in " ".join(c.value for c in app.caption)
    ws = Workspace(tmp_path / "data" / "workspaces" / app.query_params["session"])
    try:
        asked = [t for t in chat_store.turns(ws) if t.question]
    finally:
        ws.close()
    # Both turns are kept, in order; only the first is marked, and by the second.
    assert [t.question["text"] for t in asked] == [
        QUESTION, "What was the total operating expense for Q3 2024?"]
    assert asked[0].superseded_by == asked[1].run_id and asked[1].superseded_by is None
    assert [t.answer["answer"] for t in asked] == ["375", "405"]
    # The chat was titled by the first question: it now goes by the edited one.
    record = SqliteChatIndex.in_data_dir(tmp_path / "data").get(app.query_params["session"])
    assert record.title == "What was the total operating expense for Q3 2024?"


def test_a_message_of_spaces_says_to_type_a_question(app, samples):
    upload_financial(app, samples)
    before = len(app.chat_message)
    app.chat_input[0].set_value("   ").run()
    no_failure(app)
    assert [t.value for t in app.toast] == [
        "The message held only spaces: type a question to ask."]
    assert len(app.chat_message) == before  # nothing asked, nothing stored
