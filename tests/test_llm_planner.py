"""LLM mode's planner over real workspaces, with a scripted chat model (the only fake).

Each test asks a real question of the sample P&L (financial.xlsx: Revenue, Operating Expenses >
Salaries / Rent / Marketing, Net Income; columns H1 2024 > Q1, Q2 and H2 2024 > Q3, Q4) and
scripts what the model replies; the rest (grounding, the rules, the walk, SQL, validation,
the cache in workspace.sqlite) is the real engine.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.events import Answer
from agent.llm.settings import LLMSettings
from agent.run import answer_question
from storage.workspace import Workspace
from tests.llm_fakes import ScriptedChatModel, json_reply, tool_reply

MODEL = LLMSettings(model="openai:scripted", cache=False, max_retries=1, max_calls=4)


@pytest.fixture
def workspace(tmp_path: Path, samples: Path) -> Iterator[Workspace]:
    ws = Workspace(tmp_path / "ws")
    ws.add_file(samples / "financial.xlsx")
    yield ws
    ws.close()


def reply(verdict: str, plan: dict | None = None, answer: str | None = None,
          reason: str = "") -> object:
    args: dict = {"verdict": verdict, "reason": reason}
    if plan is not None:
        args["plan"] = plan
    if answer is not None:
        args["answer"] = answer
    return tool_reply("PlanReply", args, prompt_tokens=321, completion_tokens=17)


def ask(ws: Workspace, question: str, replies: list, settings: LLMSettings = MODEL
        ) -> tuple[Answer, ScriptedChatModel]:
    model = ScriptedChatModel.replying(replies)
    return answer_question(ws, question, llm=settings, chat_model=model), model


def plan_step(answer: Answer):
    return next(s for s in answer.steps if s.node == "tree_navigate")


def test_a_lookup_the_rules_planned_is_checked_and_accepted_in_one_call(workspace) -> None:
    answer, model = ask(workspace, "What was the revenue in Q2?",
                        [reply("accept", answer="Revenue in Q2 2024 was {result}.")])
    assert answer.answer == "Revenue in Q2 2024 was 620."
    assert answer.values == [620] and answer.llm_calls == 1 and len(model.requests) == 1
    assert (answer.prompt_tokens, answer.completion_tokens) == (321, 17)
    [call] = plan_step(answer).llm
    assert call.purpose == "plan the question" and call.prompt_tokens == 321
    sent = "\n".join(m["content"] for m in call.messages)
    # What left the machine: the question, the table with its header paths, the rules' plan.
    assert "What was the revenue in Q2?" in sent and "H1 2024 > Q2" in sent
    assert '"op": "lookup"' in sent and "r3 | Revenue" in sent
    assert [e.ref for e in answer.evidence] == ["C3"]


def test_the_model_replaces_the_rules_plan_in_one_call(workspace) -> None:
    # The rules add up the three expense rows of Q3 (405); the model's plan, reading only the
    # salaries, is the one run.
    answer, model = ask(workspace, "What were the operating expenses in Q3?", [
        reply("replace", {"op": "lookup", "table": "T1", "columns": ["c5"], "rows": ["r5"]},
              "Salaries in Q3 were {result}.")])
    assert answer.values == [250] and answer.answer == "Salaries in Q3 were 250."
    assert len(model.requests) == 1 and answer.llm_calls == 1
    assert [e.ref for e in answer.evidence] == ["D5"]
    sent = "\n".join(m.content for m in model.requests[0])
    assert '"op": "sum"' in sent and '"rows": ["r5", "r6", "r7"]' in sent
    assert "planned by the model" in plan_step(answer).detail
    # A plan only the model chose is validated, but less sure than one the rules agree with.
    assert answer.confidence_label == "medium"


def test_a_question_the_rules_refuse_is_planned_by_the_model(workspace) -> None:
    answer, model = ask(workspace, "Which quarter brought in the most money?", [
        reply("replace", {"op": "argcol_max", "table": "T1", "columns": ["c3", "c4", "c5", "c6"],
                          "rows": ["r3"]}, "{result} had the highest revenue.")])
    assert answer.values == ["H2 2024 > Q3"] or answer.values == ["Q3"], answer
    assert answer.llm_calls == 1
    sent = "\n".join(m.content for m in model.requests[0])
    assert "Rules plan: none" in sent


def test_a_plan_naming_a_column_the_table_lacks_is_sent_back_once(workspace) -> None:
    answer, model = ask(workspace, "What was spent on rent in Q4?", [
        reply("replace", {"op": "lookup", "columns": ["c42"], "rows": ["r6"]}),
        reply("replace", {"op": "lookup", "columns": ["c6"], "rows": ["r6"]})])
    assert answer.values == [55] and answer.llm_calls == 2
    retry = model.requests[1][-1].content
    assert "T1 has no column 'c42'" in retry and "c1 to c6" in retry


def test_malformed_output_ends_in_the_rules_answer_with_the_failure_shown(workspace) -> None:
    answer, model = ask(workspace, "What was the revenue in Q2?",
                        ["this is not a plan", "still not a plan"])
    assert answer.values == [620]  # the rules' plan stands
    step = plan_step(answer)
    assert "the rules' plan stands" in step.detail
    assert step.llm and step.llm[-1].error
    assert answer.llm_calls == len(model.requests) == 2


def test_a_model_that_times_out_leaves_the_rules_refusal_with_the_reason(workspace) -> None:
    answer, _ = ask(workspace, "Which quarter brought in the most money?",
                    [TimeoutError("read timed out"), TimeoutError("read timed out")])
    assert answer.answer is None and answer.error.kind == "llm_failed"
    assert "the rules could not answer" in answer.error.message


def test_an_answer_the_rules_made_when_the_model_failed_says_so_in_the_answer(workspace
                                                                            ) -> None:
    answer, model = ask(workspace, "What was the revenue in Q2?",
                        [ConnectionError("refused"), ConnectionError("refused")])
    assert answer.values == [620]  # the rules' plan stands
    assert answer.llm_calls == answer.llm_failed_calls == len(model.requests) == 2
    assert answer.llm_failure is not None
    assert answer.llm_failure.startswith("The model openai:scripted could not be reached")
    # A model that replied leaves neither.
    answer, _ = ask(workspace, "What was the revenue in Q2?", [reply("accept")])
    assert (answer.llm_failed_calls, answer.llm_failure) == (0, None)


def test_a_number_the_model_wrote_itself_makes_the_answer_unverified(workspace) -> None:
    answer, _ = ask(workspace, "What was the revenue in Q2?",
                    [reply("accept", answer="Revenue was {result}, up 24% on Q1.")])
    assert answer.answer is None and answer.error.kind == "not_verified"
    assert "24" in answer.error.message and answer.values == []


def test_numbers_quoted_from_the_question_or_headers_are_allowed(workspace) -> None:
    answer, _ = ask(workspace, "What was the revenue in Q2?",
                    [reply("accept", answer="In Q2 of H1 2024, revenue was {result}.")])
    assert answer.answer == "In Q2 of H1 2024, revenue was 620."


def test_the_model_may_refuse(workspace) -> None:
    answer, _ = ask(workspace, "What is the CEO's name?",
                    [reply("refuse", reason="the table holds no names of people")])
    assert answer.answer is None and answer.error.kind == "refused"
    assert "no names of people" in answer.error.message


def test_prompts_are_the_same_for_the_same_question_and_workspace(workspace) -> None:
    _, first = ask(workspace, "What was the revenue in Q2?", [reply("accept")])
    _, second = ask(workspace, "What was the revenue in Q2?", [reply("accept")])
    assert [m.content for m in first.requests[0]] == [m.content for m in second.requests[0]]


def test_a_repeated_question_is_answered_from_the_chats_cache(workspace) -> None:
    cached = MODEL.model_copy(update={"cache": True})
    first, _ = ask(workspace, "What was the revenue in Q2?", [reply("accept")], cached)
    again, model = ask(workspace, "What was the revenue in Q2?", [], cached)
    assert first.llm_calls == 1 and again.llm_calls == 0 and model.requests == []
    assert again.values == [620] and plan_step(again).llm[0].cached


def test_json_text_replies_parse_too(workspace) -> None:
    answer, _ = ask(workspace, "What was the revenue in Q1?",
                    [json_reply({"verdict": "accept", "reason": "matches"})])
    assert answer.values == [500] and answer.llm_calls == 1


def test_a_plan_that_stays_wrong_is_sent_back_once_and_the_rules_stand(workspace) -> None:
    bad = {"op": "lookup", "columns": ["c99"], "rows": ["r3"]}
    answer, model = ask(workspace, "What was the revenue in Q2?",
                        [reply("replace", bad), reply("replace", bad), reply("replace", bad)])
    assert len(model.requests) == 2 and answer.llm_calls == 2
    assert answer.values == [620]
    assert "the model's plan could not run" in plan_step(answer).detail


def test_the_call_budget_bounds_repairs(workspace) -> None:
    tight = MODEL.model_copy(update={"max_calls": 1})
    bad = {"op": "lookup", "columns": ["c99"], "rows": ["r3"]}
    answer, model = ask(workspace, "What was the revenue in Q2?",
                        [reply("replace", bad), reply("replace", bad)], tight)
    assert len(model.requests) == 1 and answer.llm_calls == 1
    assert answer.values == [620]  # the rules' plan stands when the budget is spent
    assert "TABLELENS_LLM_MAX_CALLS" in plan_step(answer).detail


def test_a_table_too_large_for_the_prompt_shows_the_rows_the_question_names(tmp_path) -> None:
    # 1,500 rows never fit the budget: the prompt holds the schema, the SQL view, and the row
    # the question names (r1402, far past the first rows a summary would show).
    tall = tmp_path / "stock.csv"
    tall.write_text("Product,Warehouse,Units\n" + "".join(
        f"Product {i},Depot {i % 7},{i * 3}\n" for i in range(1, 1501)), encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(tall)
        answer, model = ask(ws, "How many units of Product 1401 are there?",
                            [reply("accept", answer="There are {result} units.")],
                            LLMSettings(model="openai:scripted", cache=False, max_retries=1,
                                        max_calls=4, prompt_budget_tokens=600))
    finally:
        ws.close()
    assert answer.values == [4203]
    sent = "\n".join(m.content for m in model.requests[0])
    assert "r1402 | Product 1401 | Depot 1 | 4203" in sent
    assert 'SQL view "' in sent and "1500 data rows" in sent
    rows_sent = [line for line in sent.splitlines() if line.startswith("r") and " | " in line]
    assert 0 < len(rows_sent) < 100  # a focused part, not the whole table
