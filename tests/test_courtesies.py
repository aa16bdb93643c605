"""Courtesies around a question ask nothing: "Hi!", "thanks", "can you tell me" and "please"
were refused as words the table does not have (a browser tester's finding), and a refusal
listed a word the question repeats once per use ("please", "precise", "please", ...)."""

from __future__ import annotations

import pytest

from agent.question import analyse
from tests.test_precision_rules import ask_file


@pytest.mark.parametrize(("typed", "read"), [
    ("Hi! What was the revenue in Q3 2024? Thanks", "What was the revenue in Q3 2024?"),
    ("Can you tell me the revenue in Q3 2024 please", "the revenue in Q3 2024"),
    ("hello, how many rows are there? thank you!", "how many rows are there?"),
    ("Could you please show me the sales for Q1?", "the sales for Q1?"),
    ("What is the total, please?", "What is the total?"),
    ("revenue q3 2024 pls", "revenue q3 2024"),
    ("What is Pls Ltd's revenue?", "What is Pls Ltd's revenue?"),  # a name, kept
])
def test_courtesies_are_not_read_as_the_question(typed, read):
    assert analyse(typed).text == read


def test_a_polite_question_gets_the_plain_questions_answer(tmp_path, samples):
    plain, *polite = ask_file(tmp_path, samples / "financial.xlsx",
                              "What was the revenue in Q3 2024?",
                              "Hi! What was the revenue in Q3 2024? Thanks",
                              "Can you tell me the revenue in Q3 2024 please")
    assert (plain.answer, plain.values) == ("710", [710])
    for answer in polite:
        assert (answer.answer, answer.values) == ("710", [710])


def test_a_refusal_names_each_unmatched_word_once(tmp_path, samples):
    [answer] = ask_file(tmp_path, samples / "financial.xlsx",
                        "What was the precise zorbling in Q3 2024, precise zorbling?")
    message = answer.error.message
    assert message.count('"precise"') == 1 and message.count('"zorbling"') == 1, message
