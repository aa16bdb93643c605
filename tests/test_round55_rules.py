"""Rules that QA round 55 (issue 12: questions typed the way people type in a chat, messy
cells, WikiTableQuestions-style lists) showed missing; each was a wrong answer:
- the noun a question asks for, written short ("which *dept*"), was compared with the
  headers as written, so the rows' own labels answered instead of that column's groups;
- a car's "No." ordered a race's rows, though the table is sorted by its "Pos" column, whose
  retired cars ("Ret") keep it from ordering every row.
Also answered now: chat shorthand ("no. of", "pct", "2dp") and an instruction typed as the
last clause ("..., just the number pls"), which were refused as words the table lacks."""

from __future__ import annotations

from agent.question import analyse
from tests.test_precision_rules import ask_csv

CONTRACTS = """Contract ID,Department,Supplier,Value ($)
C-101,Education,Acme Build,4000
C-102,Health,Beta Care,3500
C-103,Transport,Roadworks Ltd,2500
C-104,Transport,Bridge Co,2200
C-105,Health,Gamma Labs,300
C-106,Education,Delta Books,100
"""


def test_a_short_form_of_the_asked_noun_asks_for_that_column(tmp_path):
    # Per department: Transport 4,700, Education 4,100, Health 3,800; the single largest
    # contract is C-101's.
    short, whole = ask_csv(tmp_path, "contracts.csv", CONTRACTS,
                           "which dept awarded the highest total contract value",
                           "which department awarded the highest total contract value")
    assert whole.values == ["Transport"]
    assert short.values == ["Transport"]  # before: C-101, the largest single contract


RACE = """Pos,No.,Driver,Team,Laps
1,4,Ana Silva,Red,50
2,1,Ben Moore,Blue,50
3,3,Carl Dunn,Red,50
4,2,Dev Patel,Green,49
5,6,Eli Stone,Blue,48
Ret,5,Finn Hale,Green,20
Ret,7,Gus Reyes,Red,12
"""


def test_a_number_column_does_not_order_rows_the_table_sorts_by_another(tmp_path):
    after, listed = ask_csv(tmp_path, "race.csv", RACE,
                            "which driver finished after Carl Dunn",
                            "which driver is listed after Carl Dunn")
    # By the cars' numbers the next after No. 3 is No. 4, Ana Silva, who won.
    assert after.answer is None or after.values == ["Dev Patel"]
    assert listed.values == ["Dev Patel"]


STOCK = """Month,Begin,Purchases,Issued,End
Jan,1200,300,450,1050
Feb,1050,250,349,951
Mar,951,500,420,1031
Apr,1031,100,300,831
"""


def test_chat_shorthand_is_read_as_written_out():
    for typed, read, instructions in [
        ("no. of months where end stock was below 1000",
         "number of months where end stock was below 1000", ()),
        ("gross margin 2022 in pct, round to 2dp", "gross margin 2022 in percent",
         ("round to 2 decimal places",)),
        ("what was the ending stock in february, just the number pls",
         "what was the ending stock in february", ("just the number",)),
    ]:
        analysis = analyse(typed)
        assert (analysis.text, analysis.instructions) == (read, instructions)
    assert not analyse("no. of months where end stock was below 1000").negated
    assert analyse("did end stock fall in march, yes or no").yes_no


def test_chat_shorthand_questions_are_answered(tmp_path):
    count, lookup = ask_csv(tmp_path, "stock.csv", STOCK,
                            "no. of months where end stock was below 1000",
                            "what was the ending stock in february, just the number pls")
    assert count.values == [2]  # before: "no" read as a negation, refused
    assert lookup.values == [951]  # before: "just", "pls" unexplained, refused
