"""Questions as people type them in the chat, from a browser tester's findings: courtesies
around a question ("Hi!", "thanks", "can you tell me", "please") were refused as words the table
does not have; a refusal listed a word the question repeats once per use; and a question that
counts rows ("how many rows have region North") was refused because each row holds a number
of units; a group labelled "All ..." was not read from its own row."""

from __future__ import annotations

import pytest

from agent.question import analyse
from tests.test_agent_ops import write_book
from tests.test_precision_rules import ask_csv, ask_file


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


SALES = """id,date,region,product,units,revenue
1,2023-03-19,North,C,16,495.44
2,2023-08-16,West,B,13,487.86
3,2023-01-02,North,A,7,120.00
4,2023-01-02,East,A,9,133.10
5,2023-03-19,North,B,21,610.25
"""


def test_a_question_that_counts_rows_counts_them(tmp_path):
    # A browser tester: "How many rows have region North?" was refused because each row
    # holds a number of units ("say whether to count the rows or add it up").
    answers = ask_csv(tmp_path, "sales.csv", SALES,
                      "How many rows have region North?",
                      "count the rows where region is North",
                      "how many records are from the North region",
                      "How many rows are there?")
    assert [a.values for a in answers] == [[3], [3], [3], [5]]
    [units] = ask_csv(tmp_path, "sales2.csv", SALES, "How many units were sold in the North?")
    assert units.answer is None or units.values == [44]  # units are added, never rows counted


INDUSTRIES = [
    ["Fixed assets by industry (HK$ thousand)"],
    ["Industry", "2022", None],
    [None, "Acquisition", "Disposal"],
    ["All manufacturing industries", 1500, 90],
    ["Food, beverages and tobacco", 600, 40],
    ["Textiles and wearing apparel", 900, 50],
]


def test_a_group_named_all_is_read_from_its_own_row(tmp_path):
    # A browser tester: "the total acquisition ... for all manufacturing industries" was
    # refused as the group and its parts; "All ..." was taken for a total repeated under
    # each group, which names none.
    path = write_book(tmp_path / "assets.xlsx", "Assets", INDUSTRIES,
                      merges=["A1:C1", "A2:A3", "B2:C2"], indents=["A5", "A6"], bold=["A4"])
    [answer] = ask_file(tmp_path, path, "What was the total acquisition for all manufacturing "
                                        "industries in 2022?")
    assert answer.values == [1500] and [e.ref for e in answer.evidence] == ["B4"]


def test_a_question_without_words_is_told_to_use_words(tmp_path, samples):
    # "🤔🤔🤔" was refused as "the question does not name a column to read" (a browser
    # tester): true, but the reason is that it has no words at all.
    emoji, marks = ask_file(tmp_path, samples / "financial.xlsx", "🤔🤔🤔", "???")
    for answer in (emoji, marks):
        assert answer.answer is None
        assert "the question has no words to look up; ask it in words" in answer.error.message
