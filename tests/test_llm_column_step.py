"""The LLM column step end to end (issue 15, item 2): a scripted chat model (the only fake)
plans over a derived column and fills it in batch by batch; the check of every value, the step
table, the walk over the derived column, SQL over the step table and validate are the real
engine over a real workspace.sqlite.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.events import Answer
from agent.llm.column_step import DerivedBatch, check_value, read_batch
from agent.llm.settings import LLMSettings
from agent.run import answer_question
from agent.steptables import load_step_table
from storage.workspace import Workspace
from tests.llm_fakes import ScriptedChatModel, tool_reply

MODEL = LLMSettings(model="openai:scripted", cache=False, max_retries=0, max_calls=4)
DRIVERS = ("Driver,Nationality,Result\nAna Alves,German,Semifinal (5th)\n"
           "Bo Berg,French,Final (2nd)\nCy Chen,German,Quarterfinal (8th)\n"
           "Di Dietz,Austrian,Final (1st)\n")
COUNTRY = {"name": "country", "instruction": "the country this nationality implies",
           "source": "c2", "type": "text"}
PLACING = {"name": "placing", "instruction": "the number inside the brackets, e.g. 5 for "
                                             "'Semifinal (5th)'", "source": "c3", "type": "number"}


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    ws = Workspace(tmp_path / "ws")
    path = tmp_path / "drivers.csv"
    path.write_text(DRIVERS, encoding="utf-8")
    ws.add_file(path)
    yield ws
    ws.close()


def plan_reply(plan: dict, derive: dict, answer: str | None = None) -> object:
    args: dict = {"verdict": "replace", "plan": plan, "derive": derive,
                  "reason": "the cells only imply it"}
    if answer is not None:
        args["answer"] = answer
    return tool_reply("PlanReply", args, prompt_tokens=300, completion_tokens=40)


def batch_reply(values: dict[str, object]) -> object:
    return tool_reply("DerivedBatch", {"values": [{"row": k, "value": v}
                                                  for k, v in values.items()]},
                      prompt_tokens=120, completion_tokens=30)


def ask(ws: Workspace, question: str, replies: list, settings: LLMSettings = MODEL
        ) -> tuple[Answer, ScriptedChatModel]:
    model = ScriptedChatModel.replying(replies)
    return answer_question(ws, question, llm=settings, chat_model=model), model


def step(answer: Answer, node: str):
    return next(s for s in answer.steps if s.node == node)


def test_a_count_over_a_derived_column_is_answered_and_cites_the_source_cells(workspace
                                                                              ) -> None:
    answer, model = ask(workspace, "How many drivers are from Germany?", [
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "Germany"}]}, COUNTRY,
                   "{result} drivers are from Germany."),
        batch_reply({"r2": "Germany", "r3": "France", "r4": "Germany", "r5": "Austria"})])
    assert answer.answer == "2 drivers are from Germany.", answer.error
    assert answer.values == [2]
    # The planning call and one batch, each counted with its tokens.
    assert answer.llm_calls == 2 == len(model.requests)
    assert (answer.prompt_tokens, answer.completion_tokens) == (420, 70)
    # Cited: the Nationality cells the derived values were read from, never "Germany".
    assert [(e.ref, e.text) for e in answer.evidence] == [("B2", "German"), ("B4", "German")]
    column = step(answer, "llm_column_step")
    assert column.phase == "end" and column.title == "Derived country for 4 rows"
    [call] = column.llm
    assert call.purpose == "derive a column" and call.attempts == 1
    sent = "\n".join(m["content"] for m in call.messages)
    assert "Instruction: the country this nationality implies" in sent
    assert 'r3: "French"' in sent and "Type: text" in sent
    table = column.table
    assert table.columns == ["_row", "Nationality", "country", "_status"]
    assert table.rows[1] == [3, "French", "France", "ok"]
    # The derived column's header carries its instruction as a tooltip, for people.
    assert table.notes[2] == "the country this nationality implies"
    assert table.labels[2] == "Country"
    # SQL computes the count over the stored step table, restating the derived condition.
    sql = step(answer, "sql_step")
    assert table.name in sql.sql and '"country" IN' in sql.sql
    assert sql.table.rows == [[2]]
    validate = step(answer, "validate")
    assert validate.title == "Verified" and "model's reading" in validate.detail
    assert answer.confidence <= 0.6


def test_a_number_inside_text_ranks_the_rows(workspace) -> None:
    answer, _ = ask(workspace, "Which driver placed best?", [
        plan_reply({"op": "argmin", "table": "T1", "columns": ["d1"], "rows": ["all"],
                    "answer_column": "c1"}, PLACING),
        batch_reply({"r2": 5, "r3": "2", "r4": 8, "r5": 1.0})])
    assert answer.values == ["Di Dietz"], answer.error
    assert {(e.ref, e.text) for e in answer.evidence} == {("A5", "Di Dietz"),
                                                          ("C5", "Final (1st)")}
    stored = load_step_table(workspace.db, step(answer, "llm_column_step").table.name, 10)
    columns, rows, _ = stored
    # "2" (a string holding a number) is a number; 1.0 is stored as 1.
    assert [r[columns.index("placing")] for r in rows] == [5, 2, 8, 1]
    assert step(answer, "validate").title == "Verified"


def test_a_missing_and_a_malformed_row_are_marked_and_the_answer_refused(workspace) -> None:
    answer, model = ask(workspace, "Which driver placed best?", [
        plan_reply({"op": "argmin", "table": "T1", "columns": ["d1"], "rows": ["all"],
                    "answer_column": "c1"}, PLACING),
        # r3 is left out, r4 is words where a number was asked for.
        batch_reply({"r2": 5, "r4": "eighth", "r5": 1})])
    # Di Dietz would win over the two rows left, but the answer would be about other rows
    # than the question's: it is refused, naming them.
    assert answer.answer is None and answer.values == []
    assert answer.error.kind == "refused"
    assert "could not be used for 2 rows" in answer.error.message
    assert "sheet row 3 (the model's reply has no value for this row)" in answer.error.message
    assert 'sheet row 4 ("eighth" is not a number)' in answer.error.message
    assert answer.llm_calls == 2 == len(model.requests)
    column = step(answer, "llm_column_step")
    assert column.title == "Could not derive placing for 2 rows"
    columns, rows, count = load_step_table(workspace.db, column.table.name, 10)
    assert count == 4
    values = {r[0]: (r[columns.index("placing")], r[columns.index("_status")]) for r in rows}
    # Marked, never padded: no value is made up for the two rows.
    assert values == {2: (5, "ok"), 3: (None, "missing from the model's reply"),
                      4: (None, 'malformed: "eighth" is not a number'), 5: (1, "ok")}
    assert not any(s.node in ("sql_step", "validate") for s in answer.steps)


def test_more_rows_than_the_cap_are_refused_before_any_batch(workspace) -> None:
    settings = MODEL.model_copy(update={"column_max_rows": 3})
    answer, model = ask(workspace, "How many drivers are from Germany?", [
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "Germany"}]}, COUNTRY)], settings)
    assert answer.answer is None and answer.error.kind == "refused"
    message = answer.error.message
    assert "derived for 4 rows, more than the 3" in message
    assert "TABLELENS_LLM_COLUMN_MAX_ROWS" in message and "narrow the question" in message
    assert len(model.requests) == 1 and answer.llm_calls == 1  # no batch was sent
    assert step(answer, "llm_column_step").title == "Cannot derive the column"


def test_conditions_on_real_columns_narrow_the_rows_sent(workspace) -> None:
    answer, model = ask(workspace, "What placing did the German drivers reach at best?", [
        plan_reply({"op": "min", "table": "T1", "columns": ["d1"], "rows": ["all"],
                    "where": [{"column": "c2", "equals": "German"}]}, PLACING),
        batch_reply({"r2": 5, "r4": 8})])
    assert answer.values == [5], answer.error
    sent = model.requests[1][-1].content
    assert "r2:" in sent and "r4:" in sent and "r3:" not in sent and "r5:" not in sent


def test_a_plan_that_never_reads_the_derived_column_is_sent_back(workspace) -> None:
    answer, model = ask(workspace, "How many drivers are there?", [
        plan_reply({"op": "count", "table": "T1", "rows": ["all"]}, COUNTRY),
        tool_reply("PlanReply", {"verdict": "replace", "reason": "",
                                 "plan": {"op": "count", "table": "T1", "rows": ["all"]}})])
    assert answer.values == [4], answer.error
    assert "does not read d1" in model.requests[1][-1].content
    assert not any(s.node == "llm_column_step" for s in answer.steps)


@pytest.mark.parametrize(("value", "kind", "expected"), [
    (5, "number", (5, "ok")), ("1,200.5", "number", (1200.5, "ok")),
    (2.0, "number", (2, "ok")), ("fifth", "number", (None, "malformed")),
    (True, "number", (None, "malformed")), ("5th", "number", (None, "malformed")),
    (None, "number", (None, "no value")),
    ("  Germany ", "text", ("Germany", "ok")), (7, "text", (None, "malformed")),
    ("", "text", (None, "malformed")),
    (True, "yes_no", ("yes", "ok")), ("No", "yes_no", ("no", "ok")),
    ("maybe", "yes_no", (None, "malformed")),
    ("2024-02-29", "date", ("2024-02-29", "ok")), ("2023-02-29", "date", (None, "malformed")),
    ("March 3", "date", (None, "malformed")),
])
def test_each_value_is_checked_against_the_requested_type(value, kind, expected) -> None:
    out = check_value(value, kind)
    assert (out.value, out.status) == expected


def test_a_reply_row_given_twice_or_unasked_is_not_taken() -> None:
    reply = DerivedBatch.model_validate({"values": [
        {"row": "r2", "value": 1}, {"row": "r2", "value": 2}, {"row": "r9", "value": 3},
        {"row": "R3", "value": 4}]})
    out = read_batch(reply, [2, 3, 4], "number")
    assert [(r, o.value, o.status) for r, o in out.items()] == [
        (2, None, "malformed"), (3, 4, "ok"), (4, None, "missing")]


@pytest.fixture
def many(tmp_path: Path) -> Iterator[Workspace]:
    """30 drivers, one German in three: two batches of rows (25 and 5)."""
    ws = Workspace(tmp_path / "many")
    lines = ["Driver,Nationality"] + [f"Driver {i},{'German' if i % 3 == 0 else 'French'}"
                                      for i in range(30)]
    path = tmp_path / "many.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ws.add_file(path)
    yield ws
    ws.close()


def countries(rows: range) -> object:
    return batch_reply({f"r{r}": "Germany" if (r - 2) % 3 == 0 else "France" for r in rows})


def test_rows_go_in_batches_of_25_each_one_call(many) -> None:
    answer, model = ask(many, "How many drivers are from Germany?", [
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "germany"}]}, COUNTRY),
        countries(range(2, 27)), countries(range(27, 32))])
    assert answer.values == [10], answer.error
    assert answer.llm_calls == 3 == len(model.requests)
    batch_two = model.requests[2][-1].content
    assert "r27:" in batch_two and "r31:" in batch_two and "r26:" not in batch_two
    column = step(answer, "llm_column_step")
    assert [c.purpose for c in column.llm] == ["derive a column"] * 2
    # Each German driver's Nationality cell, from both batches.
    assert [e.ref for e in answer.evidence] == [f"B{r}" for r in range(2, 32, 3)]
    assert {e.text for e in answer.evidence} == {"German"}
    # "germany" in the condition matches the model's "Germany"; SQL restates the exact value.
    assert '"country" IN (?) AND' in step(answer, "sql_step").sql
    assert step(answer, "validate").title == "Verified"


def test_batches_the_call_budget_cannot_pay_for_are_not_started(many) -> None:
    settings = MODEL.model_copy(update={"max_calls": 2})
    answer, model = ask(many, "How many drivers are from Germany?", [
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "Germany"}]}, COUNTRY)], settings)
    assert answer.error.kind == "refused" and len(model.requests) == 1
    assert "takes 2 model calls, and the question has 1 left" in answer.error.message
    assert "TABLELENS_LLM_MAX_CALLS" in answer.error.message


def test_a_failed_batch_call_marks_its_rows_and_the_answer_is_refused(many) -> None:
    answer, _ = ask(many, "How many drivers are from Germany?", [
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "Germany"}]}, COUNTRY),
        countries(range(2, 27)), TimeoutError("read timed out")])
    assert answer.answer is None and answer.error.kind == "refused"
    assert "could not be used for 5 rows" in answer.error.message
    column = step(answer, "llm_column_step")
    columns, rows, _ = load_step_table(many.db, column.table.name, 40)
    statuses = [r[columns.index("_status")] for r in rows]
    assert statuses.count("ok") == 25 and statuses.count("not derived (a call failed)") == 5
    assert column.llm[-1].error


def test_stop_is_honoured_between_batches(many) -> None:
    cancel = threading.Event()

    def stop_after_the_first_batch_is_sent(event) -> None:
        if event.node == "llm_column_step" and event.phase == "progress":
            cancel.set()  # the first batch still runs; the second is never sent

    model = ScriptedChatModel.replying([
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "Germany"}]}, COUNTRY),
        countries(range(2, 27)), countries(range(27, 32))])
    answer = answer_question(many, "How many drivers are from Germany?", llm=MODEL,
                             chat_model=model, cancel=cancel,
                             on_event=stop_after_the_first_batch_is_sent)
    assert answer.error.kind == "cancelled" and len(model.requests) == 2
    assert answer.steps[-1].node == "llm_column_step" and answer.steps[-1].phase == "cancelled"


def test_a_condition_on_a_derived_number_that_is_no_number_is_sent_back(workspace) -> None:
    answer, model = ask(workspace, "How many drivers placed fifth?", [
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "fifth"}]}, PLACING),
        plan_reply({"op": "count", "table": "T1", "rows": ["all"],
                    "where": [{"column": "d1", "equals": "5"}]}, PLACING),
        batch_reply({"r2": 5, "r3": 2, "r4": 8, "r5": 1})])
    assert answer.values == [1], answer.error
    assert 'not a number value: "fifth" is not a number' in model.requests[1][-1].content
    assert [e.ref for e in answer.evidence] == ["C2"]


def test_a_difference_of_two_derived_cells_cites_both_source_cells(workspace) -> None:
    answer, model = ask(workspace, "How many places ahead of Ana Alves did Di Dietz finish?", [
        plan_reply({"op": "diff", "table": "T1", "columns": ["d1"], "rows": ["r2", "r5"]},
                   PLACING),
        batch_reply({"r2": 5, "r5": 1})])
    assert answer.values == [4], answer.error
    assert [(e.ref, e.text) for e in answer.evidence] == [("C2", "Semifinal (5th)"),
                                                          ("C5", "Final (1st)")]
    # Only the two rows the plan reads were sent.
    assert model.requests[1][-1].content.count('\nr') == 2
    assert step(answer, "validate").title == "Verified"


def test_a_condition_that_leaves_out_one_of_two_cells_refuses_the_difference(workspace
                                                                             ) -> None:
    answer, _ = ask(workspace, "How many places ahead of Ana Alves did Di Dietz finish?", [
        plan_reply({"op": "diff", "table": "T1", "columns": ["d1"], "rows": ["r2", "r5"],
                    "where": [{"column": "d1", "equals": "5"}]}, PLACING),
        batch_reply({"r2": 5, "r5": 1})])
    assert answer.answer is None and answer.error.kind == "refused"
    assert "the placing of sheet row 5 is not 5" in answer.error.message
