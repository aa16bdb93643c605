"""LLM mode's answers quoted from documents' text, with a scripted chat model (the only fake):
the quote must be in the passage word for word and hold the answer, else the refusal stands."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.llm.settings import LLMSettings
from agent.llm.text_quote import check
from agent.run import answer_question
from storage.workspace import Workspace
from tests.llm_fakes import ScriptedChatModel, tool_reply

MODEL = LLMSettings(model="openai:scripted", cache=False, max_retries=1, max_calls=4)
REPORT = ("Quarterly report\n\nRevenue rose in the second quarter, helped by new stores.\n\n"
          "At the end of June the company had 142 employees, up from 120 a year before.\n")
QUESTION = "How many employees did the company have at the end of June?"


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    report = tmp_path / "report.txt"
    report.write_text(REPORT, encoding="utf-8")
    ws = Workspace(tmp_path / "ws")
    ws.add_file(report)
    yield ws
    ws.close()


def quote(passage: str, sentence: str, answer: str):
    return tool_reply("QuoteReply", {"verdict": "quote", "passage": passage, "quote": sentence,
                                     "answer": answer}, prompt_tokens=210, completion_tokens=30)


def ask(ws: Workspace, *replies):
    model = ScriptedChatModel.replying(list(replies))
    return answer_question(ws, QUESTION, llm=MODEL, chat_model=model), model


def test_a_quote_found_in_its_passage_answers_with_the_span_cited(workspace):
    answer, model = ask(workspace, quote(
        "p1", "At the end of June the company had 142 employees, up from 120 a year before.",
        "142 employees"))
    assert answer.answer == "142 employees" and answer.confidence_label == "medium"
    [cited] = answer.evidence
    assert cited.kind == "text" and cited.source == "report.txt"
    assert cited.text.startswith("At the end of June") and cited.text.endswith("year before.")
    assert answer.llm_calls == 1 and answer.prompt_tokens == 210
    sent = "\n".join(m.content for m in model.requests[0])
    assert QUESTION in sent and "p1 (report.txt, Quarterly report): At the end of June" in sent
    step = answer.steps[-1]
    assert step.title == "Quoted from report.txt" and step.llm[0].purpose == (
        "quote the passage that answers")


def test_a_paraphrased_quote_is_not_used_and_the_refusal_stands(workspace):
    answer, _ = ask(workspace, quote("p1", "The company employed 142 people at the end of June.",
                                     "142"))
    assert answer.answer is None and answer.evidence == []
    assert answer.llm_calls == 1  # the call is counted and shown, with why it was not used
    step = answer.steps[-1]
    assert step.title == "No passage states it" and "not in the passage" in step.detail
    assert step.llm


def test_an_answer_the_quote_does_not_write_is_not_used(workspace):
    # "42" is inside "142": not a number the sentence writes.
    answer, _ = ask(workspace, quote(
        "p1", "At the end of June the company had 142 employees", "42"))
    assert answer.answer is None
    assert "is not written in the sentence" in answer.steps[-1].detail


def test_a_refusal_or_an_unknown_passage_is_no_answer(workspace):
    refused, _ = ask(workspace, tool_reply("QuoteReply", {
        "verdict": "refuse", "reason": "it needs a calculation"}))
    assert refused.answer is None and "needs a calculation" in refused.steps[-1].detail
    unknown, _ = ask(workspace, quote("p9", "At the end of June", "June"))
    assert unknown.answer is None and "p9" in unknown.steps[-1].detail


def test_the_check_reads_spaces_loosely_and_tokens_whole():
    text = "Revenue was\n$4.2 million, and 1,420 staff."
    start, end, value = check(text, "Revenue was $4.2 million,", "$4.2 MILLION")
    assert text[start:end] == "Revenue was\n$4.2 million," and value == "$4.2 million"
    assert isinstance(check(text, "and 1,420 staff.", "420"), str)
    assert isinstance(check(text, "and 1,420 staff.", "1,42"), str)
    assert check(text, "and 1,420 staff.", "1,420")[2] == "1,420"
    assert isinstance(check(text, "", "x"), str) and isinstance(check(text, "Revenue", " "), str)


def test_beside_a_table_the_model_plans_first_then_quotes(workspace, samples):
    workspace.add_file(samples / "financial.xlsx")
    plan_refused = tool_reply("PlanReply", {"verdict": "refuse",
                                            "reason": "the tables hold no staff numbers"})
    answer, model = ask(workspace, plan_refused, quote(
        "p1", "At the end of June the company had 142 employees, up from 120 a year before.",
        "142 employees"))
    assert answer.answer == "142 employees" and answer.llm_calls == 2
    assert len(model.requests) == 2
    assert [s.node for s in answer.steps].count("answer") == 2  # the refusal, then the quote


def test_a_title_alone_never_answers_who_holds_a_role(tmp_path):
    """A model that answers "Who is ...?" with the title before the name ("Mr") is refused,
    though the title is written in the sentence it quotes."""
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(io.BytesIO(b"The head of sales is Mr. John Smith. He joined in 2019.\n"),
                    "staff.txt")
        said = "The head of sales is Mr. John Smith."
        answers = [answer_question(ws, "Who is the head of sales?", llm=MODEL,
                                   chat_model=ScriptedChatModel.replying([quote("p1", said, name)]))
                   for name in ("Mr", "Mr. John Smith")]
    finally:
        ws.close()
    assert answers[0].answer is None
    assert "'Mr' is a title without the name" in answers[0].steps[-1].detail
    assert answers[1].answer == "Mr. John Smith"
