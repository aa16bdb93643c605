"""Decompose: messages that ask several things are split, each part answered as a question of
its own, and the parts combined by the application.

Over real workspaces: the sample P&L (financial.xlsx: Revenue, Operating Expenses > Salaries /
Rent / Marketing, Net Income; columns H1 2024 > Q1, Q2 and H2 2024 > Q3, Q4), and a small CSV
whose row label holds an "and". In LLM mode the chat model is scripted (the only fake).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.combine import PartAnswer, combine
from agent.decompose import split_question
from agent.events import Answer
from agent.frame import TableRef
from agent.llm.settings import LLMSettings
from agent.plan import Refusal
from agent.results import Result
from agent.run import answer_question
from storage.workspace import Workspace
from tests.llm_fakes import ScriptedChatModel, tool_reply


@pytest.fixture
def workspace(tmp_path: Path, samples: Path) -> Iterator[Workspace]:
    ws = Workspace(tmp_path / "ws")
    ws.add_file(samples / "financial.xlsx")
    yield ws
    ws.close()


def steps(answer: Answer, node: str) -> list:
    return [s for s in answer.steps if s.node == node]


def refs(answer: Answer) -> list[str]:
    return [e.ref for e in answer.evidence]


# --- which wordings split -------------------------------------------------------------------

@pytest.mark.parametrize(("question", "parts", "combined"), [
    ("What was the revenue in Q1? And the rent in Q3?",
     ["What was the revenue in Q1?", "What was the rent in Q3?"], "list"),
    ("What was the revenue in Q1? And Q2?",
     ["What was the revenue in Q1?", "What was the revenue in Q2?"], "list"),
    ("What were the salaries and rent in Q1?",
     ["What were the salaries in Q1?", "What were rent in Q1?"], "list"),
    ("What were the revenues in Q1 and Q2, respectively?",
     ["What were the revenues in Q1?", "What were the revenues in Q2?"], "list"),
    ("How much higher was the revenue in Q2 than in Q1?",
     ["What was the revenue in Q2?", "What was the revenue in Q1?"], "difference"),
    ("How much lower was the rent in Q1 than the revenue in Q2?",
     ["What was the revenue in Q2?", "What was the rent in Q1?"], "difference"),
    ("What is the difference between 2019 and 2018 revenue?",
     ["What was 2019 revenue?", "What was 2018 revenue?"], "difference"),
    ("Difference between the revenue of North and South",  # written without "what is the"
     ["What was the revenue of North?", "What was the revenue of South?"], "difference"),
    # The second side asks again, "it" standing for the first side's subject.
    ("What was the revenue in Q1 and what was it in Q2?",
     ["What was the revenue in Q1?", "What was the revenue in Q2?"], "list"),
    ("What was the revenue in Q1 and what was the rent in Q1?",
     ["What was the revenue in Q1?", "What was the rent in Q1?"], "list"),
])
def test_parallel_and_multi_hop_wordings_split_into_whole_questions(question, parts, combined
                                                                   ) -> None:
    found = split_question(question)
    assert found is not None
    assert found.parts == parts and found.combine == combined


@pytest.mark.parametrize("question", [
    "What was the revenue in Q2?",
    "What is the total revenue in Q1 and Q2?",  # one sum
    "How many employees joined between 2018 and 2019?",  # a range
    "What are the project supervising department and the project type?",  # shared words unclear
    "Did hospital employment increase every year? Provide a yes/no answer.",  # an instruction
    "What is the difference between the maximum and minimum values in the column?",
])
def test_everything_else_stays_one_question(question) -> None:
    assert split_question(question) is None


# --- offline, over a real workspace ---------------------------------------------------------

def test_a_and_b_is_answered_part_by_part_each_with_its_own_steps(workspace) -> None:
    # As one question the rules cannot tell which of the two rows to read.
    answer = answer_question(workspace, "What were the salaries and rent in Q1?")
    assert answer.values == [200, 50] and answer.answer == "200; 50"
    assert refs(answer) == ["B5", "B6"]
    # The whole was tried first, then each part went through the graph with its own plan,
    # rows-used table, SQL and validation.
    navigations = steps(answer, "tree_navigate")
    assert len(navigations) == 3
    assert navigations[0].title == "Could not tie the question to the table"
    assert [[c.ref for c in s.cells] for s in navigations[1:]] == [["B5"], ["B6"]]
    assert all(s.table is not None for s in navigations[1:])
    assert len(steps(answer, "sql_step")) == 2 and len(steps(answer, "validate")) == 2
    assert all(s.title == "Verified" for s in steps(answer, "validate"))
    [_, second, third] = steps(answer, "decompose")
    assert second.title == "Part 1 of 2: What were the salaries in Q1?"
    assert third.title == "Part 2 of 2: What were rent in Q1?"
    combined = next(s for s in steps(answer, "answer") if s.title.startswith("Combined"))
    assert combined.title == "Combined 2 parts: listed"
    assert [row[2] for row in combined.table.rows] == ["200", "50", "200; 50"]


def test_a_difference_of_two_quarters_is_answered_whole(workspace) -> None:
    # Quarters of one year have their order, so the rules answer it without splitting it.
    answer = answer_question(workspace, "How much higher was the revenue in Q2 than in Q1?")
    assert answer.values == [120] and answer.answer == "120"
    assert refs(answer) == ["C3", "B3"]
    assert not [s for s in steps(answer, "answer") if s.title.startswith("Combined")]
    assert answer.basis.op == "diff"


@pytest.mark.parametrize(("question", "values", "cited"), [
    ("How much higher was the revenue in Q2 than the rent in Q1?", [570], ["C3", "B6"]),
    ("What is the difference between the revenue in Q2 and the rent in Q3?", [565],
     ["C3", "D6"]),
    ("What were the revenue in Q2 and the rent in Q1?", [620, 50], ["C3", "B6"]),
])
def test_two_sides_with_their_own_row_and_column_are_asked_part_by_part(
        workspace, question, values, cited) -> None:
    # Each side names its own row and its own quarter: one difference of two rows reads one
    # column (the whole plan used to answer Revenue - Rent of a single quarter: 450, 570).
    answer = answer_question(workspace, question)
    assert answer.values == values
    assert refs(answer) == cited
    assert split_question(question).whole_first is False


def test_a_list_of_questions_lists_each_answer(workspace) -> None:
    answer = answer_question(workspace, "What was the revenue in Q1? And the rent in Q3?")
    assert answer.values == [500, 55] and answer.answer == "500; 55"
    assert refs(answer) == ["B3", "D6"]
    first = steps(answer, "decompose")[0]
    assert first.title == "Split into 2 parts"
    # A list is not tried whole: it asks two questions.
    assert len(steps(answer, "tree_navigate")) == 2


def test_a_refused_part_refuses_the_whole_message_naming_the_part(workspace) -> None:
    answer = answer_question(workspace, "What was the revenue in Q1? And the wages in Q2?")
    assert answer.answer is None and answer.values == [] and answer.evidence == []
    assert answer.error.kind == "needs_llm"
    assert "part 2 of 2 (\u201cWhat was the wages in Q2?\u201d) cannot be answered" \
        in answer.error.message
    assert '"wages"' in answer.error.message
    # The first part was answered and shown; nothing was combined.
    assert steps(answer, "validate")[0].title == "Verified"
    assert not any(s.title.startswith("Combined") for s in steps(answer, "answer"))


def test_an_and_inside_a_row_label_is_not_split(tmp_path: Path) -> None:
    question = "What was Research and development in 2019?"
    assert split_question(question) is not None  # the wording alone would split it
    path = tmp_path / "costs.csv"
    path.write_text("Item,2018,2019\nResearch and development,120,130\nSales,50,60\n",
                    encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(path)
        answer = answer_question(ws, question)
    finally:
        ws.close()
    assert answer.values == [130]
    [read] = steps(answer, "decompose")
    assert read.detail.startswith("one question")
    assert "\u201cResearch and development\u201d is one label here" in read.detail
    assert len(steps(answer, "tree_navigate")) == 1


# --- the combine step ------------------------------------------------------------------------

def _part(question: str, values: list, unit: str | None = None) -> PartAnswer:
    return PartAnswer(question=question, table=TableRef(id="t", version=1),
                      result=Result(values=values, display=", ".join(map(str, values)),
                                    cited=[(3, "c1")], unit=unit),
                      description="a cell", confidence=0.9)


def _no_frames(ref: TableRef):
    raise AssertionError("a refused combination reads no cells")


@pytest.mark.parametrize(("parts", "why"), [
    ([_part("A?", [1, 2]), _part("B?", [3])], "part 1 (\u201cA?\u201d) gave 2 values"),
    ([_part("A?", ["Paris"]), _part("B?", [3])], "gave the text 'Paris'"),
    ([_part("A?", [5], "%"), _part("B?", [3], "$")], "different units"),
])
def test_a_difference_needs_one_number_of_one_unit_from_each_part(parts, why) -> None:
    refused = combine("difference", parts, _no_frames)
    assert isinstance(refused, Refusal) and why in refused.reason


# --- with a model ------------------------------------------------------------------------------

MODEL = LLMSettings(model="openai:scripted", cache=False, max_retries=1, max_calls=4)


def split_reply(split: bool, parts: list[str] | None = None, combine: str = "list") -> object:
    return tool_reply("SplitReply", {"split": split, "parts": parts or [], "combine": combine,
                                     "reason": ""}, prompt_tokens=50, completion_tokens=10)


def accept(sentence: str = "It was {result}.") -> object:
    return tool_reply("PlanReply", {"verdict": "accept", "reason": "", "answer": sentence},
                      prompt_tokens=300, completion_tokens=15)


def test_the_model_splits_a_wording_the_rules_keep_whole_in_one_extra_call(workspace) -> None:
    question = "By how much did revenue in Q2 exceed revenue in Q1?"
    assert split_question(question) is None
    model = ScriptedChatModel.replying([
        split_reply(True, ["What was the revenue in Q2?", "What was the revenue in Q1?"],
                    "difference"), accept(), accept()])
    answer = answer_question(workspace, question, llm=MODEL, chat_model=model)
    assert answer.values == [120] and refs(answer) == ["C3", "B3"]
    # One call to split, one to check each part's plan; all counted.
    assert len(model.requests) == 3 and answer.llm_calls == 3
    assert (answer.prompt_tokens, answer.completion_tokens) == (650, 40)
    [split_call] = steps(answer, "decompose")[0].llm
    assert split_call.purpose == "split the question"
    # Each part's step shows its own planning call, not the earlier ones again.
    assert [len(s.llm) for s in steps(answer, "tree_navigate")] == [1, 1]
    assert steps(answer, "decompose")[0].title == "Split into 2 parts"


def test_the_model_keeps_a_list_of_columns_one_question(workspace) -> None:
    model = ScriptedChatModel.replying([split_reply(False), accept("They were {result}.")])
    answer = answer_question(workspace, "What was the revenue in Q1 and Q2?", llm=MODEL,
                             chat_model=model)
    assert answer.values == [500, 620] and answer.llm_calls == 2
    assert len(steps(answer, "tree_navigate")) == 1
    assert "the model reads it as one question" in steps(answer, "decompose")[0].detail


def test_a_plain_question_costs_no_split_call(workspace) -> None:
    model = ScriptedChatModel.replying([accept()])
    answer = answer_question(workspace, "What was the revenue in Q2?", llm=MODEL,
                             chat_model=model)
    assert answer.values == [620] and answer.llm_calls == 1 and len(model.requests) == 1


def test_a_list_of_questions_in_llm_mode_is_answered_part_by_part(workspace) -> None:
    question = "What was Revenue in Q1 2024? And what was Rent in Q2 2024?"
    model = ScriptedChatModel.replying([
        split_reply(True, ["What was Revenue in Q1 2024?", "What was Rent in Q2 2024?"]),
        accept(), accept()])
    answer = answer_question(workspace, question, llm=MODEL, chat_model=model)
    assert answer.values == [500, 50] and refs(answer) == ["B3", "C6"]
    assert answer.llm_calls == 3 and answer.error is None
    # What the split call sent: the question and the rules' own reading of it.
    sent = "\n".join(m["content"] for m in steps(answer, "decompose")[0].llm[0].messages)
    assert f"Question: {question}" in sent and "Rules: 2 parts (list)" in sent


def test_a_failed_split_call_leaves_the_rules_reading(workspace) -> None:
    model = ScriptedChatModel.replying([TimeoutError("timed out"), TimeoutError("timed out"),
                                        accept(), accept()])
    answer = answer_question(workspace, "What was the revenue in Q1? And the rent in Q3?",
                             llm=MODEL, chat_model=model)
    assert answer.values == [500, 55]
    assert "the rules' reading of the question stands" in steps(answer, "decompose")[0].detail
