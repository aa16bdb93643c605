""""Which year had more bankruptcies, and by how much?": of two rows compared, the one ahead
and how far ahead it is, both computed from the two cited cells and restated in SQL. More
than two rows, or a "by how much" after another kind of question, stays two questions."""

from __future__ import annotations

from agent.question import analyse

INSOLVENCIES = "Year,Bankruptcies,Petitions\n2018,15200,800\n2019,16885,910\n2020,12800,640\n"
EXPORTS = ("Country,Exports 2014,Exports 2015\nBahrain,40.2,47.0\nOman,3.9,3.2\n"
           "Qatar,12.5,14.1\n")


def test_the_year_ahead_and_by_how_much(ask):
    answer = ask(INSOLVENCIES, "Compare the number of bankruptcies in 2019 and 2020. Which "
                               "year had more bankruptcies, and by how much?")
    assert answer.values == ["2019", 4085]
    assert answer.answer == "2019, 4085"  # written as the cells are
    # Both compared cells and the name of the one ahead.
    assert sorted(e.ref for e in answer.evidence) == ["A3", "B3", "B4"]


def test_the_lower_of_two_and_the_gap(ask):
    answer = ask(INSOLVENCIES, "Which year had fewer petitions, 2018 or 2019, and what is "
                               "the difference?")
    assert answer.values == ["2018", 110]


def test_the_country_ahead_in_a_year_column(ask):
    answer = ask(EXPORTS, "Which country had higher exports in 2015, Oman or Bahrain, and by "
                          "how much?")
    assert answer.values == ["Bahrain", 43.8]


def test_more_than_two_rows_is_two_questions(ask):
    answer = ask(INSOLVENCIES, "Which year had the most bankruptcies, and by how much?")
    assert answer.answer is None
    assert "two" in answer.error.message


def test_a_how_much_after_a_total_is_two_questions():
    total = analyse("What was the total energy demand for all fuels in 1970 and 1973, and by "
                    "how much did it increase over this period?")
    assert total.compound and not total.margin
    ahead = analyse("Which state has more, and by how much?")
    assert ahead.margin and not ahead.compound and ahead.op == "argmax"
    assert ahead.text == "Which state has more?"
