"""The offline agent end to end on real workspaces: the reference answers with their evidence,
the step-event stream and its step tables, cancellation, and honest refusals (no LLM)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent.events import Answer, StepEvent
from agent.nodes import _check_citations
from agent.planner import RulePlanner
from agent.run import answer_question, stream_question
from agent.steptables import load_step_table, step_tables
from storage.workspace import Workspace

GRAPH_ORDER = ["decompose", "retrieve", "tree_navigate", "sql_step", "validate", "answer"]

OpenWorkspace = Callable[..., Workspace]


@pytest.fixture
def open_workspace(tmp_path: Path) -> Iterator[OpenWorkspace]:
    """Make a real workspace under tmp_path holding the given files; closed after the test."""
    opened: list[Workspace] = []

    def make(*files: Path) -> Workspace:
        ws = Workspace(tmp_path / f"ws{len(opened)}")
        opened.append(ws)
        for path in files:
            ws.add_file(path)
        return ws

    yield make
    for ws in opened:
        ws.close()


def cited(answer: Answer) -> list[str]:
    """The answer's evidence as "sheet!ref", in the order given."""
    return [f"{e.sheet}!{e.ref}" for e in answer.evidence]


def assert_evidence_matches_source(ws: Workspace, answer: Answer) -> None:
    """Every cited cell exists at its ref in the stored grid and shows the cited text."""
    for item in answer.evidence:
        grid = ws.table(item.table).grid
        rows = list(ws.db.query("SELECT text FROM cells WHERE grid = ? AND ref = ?",
                                [grid, item.ref]))  # by ref, not as the validator looks
        assert rows, f"{item.sheet}!{item.ref} is not a stored cell"
        assert rows[0]["text"] == item.text


def assert_answered_offline(answer: Answer) -> None:
    assert answer.error is None, answer.error
    assert answer.answer is not None
    assert answer.confidence_label == "high"
    assert answer.llm_calls == 0


def split_stream(items: list[StepEvent | Answer]) -> tuple[list[StepEvent], Answer]:
    """The events of a stream and its Answer, checking the Answer comes last and only once."""
    *events, last = items
    assert isinstance(last, Answer)
    assert all(isinstance(e, StepEvent) for e in events)
    return events, last


def nodes_in_order(events: list[StepEvent]) -> list[str]:
    """Node names in the order they first appear."""
    return list(dict.fromkeys(e.node for e in events))


# ---------------------------------------------------------------------------------------------
# The reference answers (shared/samples/README.md)


REFERENCE = [
    pytest.param("financial.xlsx", "What was the total operating expense for Q2 2024?",
                 375, ["P&L!C5", "P&L!C6", "P&L!C7"], id="financial-opex-q2"),
    pytest.param("financial.xlsx", "What was the revenue in Q3 2024?", 710, ["P&L!D3"],
                 id="financial-revenue-q3"),
    pytest.param("financial.xlsx", "What was the net income for H2 2024?", 600,
                 ["P&L!D8", "P&L!E8"], id="financial-net-income-h2"),
    pytest.param("hr.xlsx",
                 "How many employees in the Engineering department have more than 5 years of "
                 "experience?", 2, ["Staff!A2", "Staff!D3", "Staff!D4"], id="hr-engineering-5y"),
]


@pytest.mark.parametrize(("file", "question", "expected", "refs"), REFERENCE)
def test_reference_numeric_answers_with_their_evidence(open_workspace, samples, file, question,
                                                       expected, refs):
    ws = open_workspace(samples / file)
    answer = answer_question(ws, question)
    assert_answered_offline(answer)
    assert answer.answer == str(expected)
    assert answer.values == [expected]
    assert sorted(cited(answer)) == sorted(refs)
    assert_evidence_matches_source(ws, answer)


def test_financial_evidence_carries_table_sheet_text_and_typed_value(open_workspace, samples):
    ws = open_workspace(samples / "financial.xlsx")
    answer = answer_question(ws, "What was the total operating expense for Q2 2024?")
    by_ref = {e.ref: e for e in answer.evidence}
    assert {ref: (e.text, e.value) for ref, e in by_ref.items()} == {
        "C5": ("230", 230), "C6": ("50", 50), "C7": ("95", 95)}
    assert {(e.table, e.sheet) for e in answer.evidence} == {("financial__p_l__t0", "P&L")}


def test_validation_flags_a_citation_the_source_does_not_hold(open_workspace, samples):
    ws = open_workspace(samples / "financial.xlsx")
    answer = answer_question(ws, "What was the revenue in Q3 2024?")
    [good] = answer.evidence
    context = SimpleNamespace(workspace=ws)
    assert _check_citations(context, [good]) == []
    wrong_text = good.model_copy(update={"text": "7100"})
    wrong_place = good.model_copy(update={"ref": "Z99"})
    assert _check_citations(context, [wrong_text, wrong_place]) == [
        "P&L!D3 does not hold '7100'", f"P&L!Z99 does not hold {good.text!r}"]


def test_hr_sales_headcount_counts_rows_not_merged_groups(open_workspace, samples):
    ws = open_workspace(samples / "hr.xlsx")
    answer = answer_question(ws, "How many employees are in Sales?")
    assert_answered_offline(answer)
    assert (answer.answer, answer.values) == ("3", [3])
    assert "Staff!A6" in cited(answer)  # the merged department cell that picked the rows
    assert_evidence_matches_source(ws, answer)


def test_hr_most_experienced_employee(open_workspace, samples):
    ws = open_workspace(samples / "hr.xlsx")
    answer = answer_question(ws, "Who has the most years of experience?")
    assert_answered_offline(answer)
    assert (answer.answer, answer.values) == ("Carla Diaz", ["Carla Diaz"])
    assert {"Staff!B4", "Staff!D4"} <= set(cited(answer))
    years = next(e for e in answer.evidence if e.ref == "D4")
    assert (years.text, years.value) == ("12", 12)
    assert_evidence_matches_source(ws, answer)


@pytest.mark.parametrize(("question", "expected", "table"), [
    ("What was the revenue in Q3 2024?", "710", "financial__p_l__t0"),
    ("Who has the most years of experience?", "Carla Diaz", "hr__staff__t0"),
    ("How many employees are in Sales?", "3", "hr__staff__t0"),
])
def test_with_both_samples_in_one_workspace_the_right_table_answers(open_workspace, samples,
                                                                     question, expected, table):
    ws = open_workspace(samples / "hr.xlsx", samples / "financial.xlsx")
    answer = answer_question(ws, question)
    assert_answered_offline(answer)
    assert answer.answer == expected
    assert {e.table for e in answer.evidence} == {table}


# ---------------------------------------------------------------------------------------------
# Streaming


def test_stream_yields_ordered_step_events_then_the_answer(open_workspace, samples):
    ws = open_workspace(samples / "hr.xlsx")
    events, answer = split_stream(list(stream_question(
        ws, "Who has the most years of experience?", run_id="runstream1")))

    assert [e.seq for e in events] == list(range(len(events)))
    assert {e.run_id for e in events} == {"runstream1"}
    assert nodes_in_order(events) == GRAPH_ORDER
    for node in GRAPH_ORDER:
        phases = [e.phase for e in events if e.node == node]
        assert phases == ["start", "end"], (node, phases)
    assert all(e.schema_version == 1 for e in events)

    # The answer's steps are the end events of the same run, in order.
    assert [s.model_dump() for s in answer.steps] == [
        e.model_dump() for e in events if e.phase == "end"]
    assert answer.answer == "Carla Diaz"


def test_sql_step_event_points_to_a_stored_step_table_with_the_same_rows(open_workspace,
                                                                         samples):
    ws = open_workspace(samples / "hr.xlsx")
    schema = ws.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    events, answer = split_stream(list(stream_question(
        ws, "Who has the most years of experience?", run_id="runsql1")))
    [end] = [e for e in events if e.node == "sql_step" and e.phase == "end"]
    assert end.sql and end.sql.lstrip().upper().startswith(("SELECT", "WITH"))
    assert end.table is not None
    name = end.table.name
    assert name.startswith("step_runsql1_") and name.removeprefix("step_runsql1_").isdigit()
    assert name in step_tables(ws.db, "runsql1")
    # Stored as rows, not as a table: the schema, which every new connection parses, does not
    # grow with the chat.
    assert ws.db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone() == schema

    columns, rows, count = load_step_table(ws.db, name, 50)
    assert columns == end.table.columns
    assert rows == end.table.rows
    assert count == end.table.row_count
    assert any("Carla Diaz" in row for row in rows)
    assert answer.answer == "Carla Diaz"


def test_on_event_sees_the_same_events_as_the_stream(open_workspace, samples):
    ws = open_workspace(samples / "financial.xlsx")
    seen: list[StepEvent] = []
    answer = answer_question(ws, "What was the revenue in Q3 2024?", on_event=seen.append)
    assert [e.seq for e in seen] == list(range(len(seen)))
    assert nodes_in_order(seen) == GRAPH_ORDER
    assert [s.seq for s in answer.steps] == [e.seq for e in seen if e.phase == "end"]


def test_on_event_sees_a_step_start_while_the_step_still_runs(open_workspace, samples):
    """The app shows a long step (an LLM plan, SQL on a large table) as it runs: its start
    reaches `on_event` before the step ends, not with its end."""
    ws = open_workspace(samples / "financial.xlsx")
    planning, release = threading.Event(), threading.Event()

    class SlowPlanner(RulePlanner):
        def plan(self, analysis, frames, progress=None):
            planning.set()
            assert release.wait(30)
            return super().plan(analysis, frames, progress)

    seen: list[tuple[str, str]] = []
    answers: list[Answer] = []
    runner = threading.Thread(target=lambda: answers.append(answer_question(
        ws, "What was the revenue in Q3 2024?", planner=SlowPlanner(),
        on_event=lambda e: seen.append((e.node, e.phase)))))
    runner.start()
    try:
        assert planning.wait(30)
        assert seen[-1][1] == "start" and seen[-1][0] != "decompose"
        planning_node = seen[-1][0]
    finally:
        release.set()
        runner.join(30)
    assert (planning_node, "end") in seen
    assert answers and answers[0].error is None


# ---------------------------------------------------------------------------------------------
# Cancellation


def test_cancelling_after_tree_navigate_keeps_the_partial_trace(open_workspace, samples):
    ws = open_workspace(samples / "hr.xlsx")
    cancel = threading.Event()
    items: list[StepEvent | Answer] = []
    for item in stream_question(ws, "Who has the most years of experience?", cancel=cancel,
                                run_id="runcancel1"):
        items.append(item)
        if isinstance(item, StepEvent) and item.node == "tree_navigate" and item.phase == "end":
            cancel.set()
    events, answer = split_stream(items)

    assert answer.answer is None
    assert answer.values == []
    assert answer.error is not None and answer.error.kind == "cancelled"
    assert answer.error.message

    # The events before the cancellation are all there, in order, then a cancelled event.
    assert [e.seq for e in events] == list(range(len(events)))
    assert [(e.node, e.phase) for e in events[:6]] == [
        ("decompose", "start"), ("decompose", "end"), ("retrieve", "start"),
        ("retrieve", "end"), ("tree_navigate", "start"), ("tree_navigate", "end")]
    cancelled = [e for e in events if e.phase == "cancelled"]
    assert len(cancelled) == 1 and cancelled[0] is events[-1]
    assert "answer" not in {e.node for e in events}

    # The answer keeps the partial trace: the end events so far and the cancellation.
    assert [(s.node, s.phase) for s in answer.steps][:3] == [
        ("decompose", "end"), ("retrieve", "end"), ("tree_navigate", "end")]
    assert answer.steps[-1].phase == "cancelled"


def test_a_cancel_flag_set_before_the_run_stops_it_at_once(open_workspace, samples):
    ws = open_workspace(samples / "hr.xlsx")
    cancel = threading.Event()
    cancel.set()
    answer = answer_question(ws, "Who has the most years of experience?", cancel=cancel)
    assert answer.answer is None
    assert answer.error is not None and answer.error.kind == "cancelled"
    assert [s.phase for s in answer.steps] == ["cancelled"]


# ---------------------------------------------------------------------------------------------
# Refusals: never a guess


def test_a_superscript_digit_in_a_question_is_not_a_number(open_workspace, samples):
    ws = open_workspace(samples / "financial.xlsx")
    answer = answer_question(ws, "What was the revenue in Q3 2024 per m ²?")
    assert answer.error is None or answer.error.kind == "needs_llm"


@pytest.mark.parametrize(("question", "missing"), [
    ("What is the meaning of life?", ["meaning", "life"]),
    ("¿Cuántos empleados hay en ventas?", ["empleado"]),
    ("Wie viele Mitarbeiter arbeiten im Verkauf?", ["mitarbeiter"]),
])
def test_an_unanswerable_question_says_what_is_missing(open_workspace, samples, question,
                                                       missing):
    ws = open_workspace(samples / "hr.xlsx")
    events, answer = split_stream(list(stream_question(ws, question)))

    assert answer.answer is None
    assert answer.values == []
    assert answer.evidence == []
    assert answer.confidence_label == "low"
    assert answer.llm_calls == 0
    assert answer.error is not None and answer.error.kind == "needs_llm"
    message = answer.error.message.lower()
    assert "llm" in message
    for word in missing:  # it names the words the tables do not explain
        assert word in message

    # Partial steps: it read the question, looked for tables and tried to ground it.
    ended = [e.node for e in events if e.phase == "end"]
    assert ended[:3] == ["decompose", "retrieve", "tree_navigate"]
    assert "sql_step" not in ended and "validate" not in ended
    assert [s.node for s in answer.steps][:3] == ["decompose", "retrieve", "tree_navigate"]


def test_a_refusal_over_two_workbooks_is_still_a_refusal(open_workspace, samples):
    ws = open_workspace(samples / "hr.xlsx", samples / "financial.xlsx")
    answer = answer_question(ws, "What is the meaning of life?")
    assert answer.answer is None and answer.evidence == []
    assert answer.error is not None and answer.error.kind == "needs_llm"


def test_a_checkpointed_chat_keeps_messages_and_the_last_grounding(tmp_path, samples):
    from langgraph.checkpoint.memory import InMemorySaver

    from agent.graph import build_graph

    ws = Workspace(tmp_path / "ws")
    ws.add_file(samples / "financial.xlsx")
    graph = build_graph(InMemorySaver())
    first = answer_question(ws, "What was the revenue in Q3 2024?", graph=graph,
                            thread_id="chat-1")
    second = answer_question(ws, "What is the meaning of life?", graph=graph,
                             thread_id="chat-1")
    assert first.answer == "710" and second.answer is None
    state = graph.get_state({"configurable": {"thread_id": "chat-1"}}).values
    assert [m.type for m in state["messages"]] == ["human", "ai", "human", "ai"]
    assert state["outcome"] == "refused" and state["grounding"]["table"] == "financial__p_l__t0"
    ws.close()



def test_a_question_naming_the_second_file_of_a_name_reads_that_file(open_workspace, samples,
                                                                      tmp_path):
    """A second financial.xlsx is stored as "financial (2).xlsx"; a question naming it, as
    the refusal over both files asks, read the copy's number as a figure the table lacks."""
    from openpyxl import load_workbook

    changed = load_workbook(samples / "financial.xlsx")
    changed["P&L"]["C6"] = 60
    changed.save(tmp_path / "financial.xlsx")
    ws = open_workspace(samples / "financial.xlsx", tmp_path / "financial.xlsx")
    assert [s.name for s in ws.sources()] == ["financial.xlsx", "financial (2).xlsx"]
    for named, rent in (("financial (2).xlsx", "60"), ("Financial.xlsx", "50")):
        answer = answer_question(ws, f"What was the rent in Q2 2024 in {named}?")
        assert_answered_offline(answer)
        assert answer.answer == rent and cited(answer) == ["P&L!C6"]
        assert ws.table(answer.evidence[0].table).file_name == named.lower()
