"""Lexical grounding: a question word meets another form of a table's word (an inflection, a
short form, a month), a qualified name by either part, a date however the cells write it, and
never a word that only starts the same way."""

from __future__ import annotations

import pytest

from agent.grounding import _question_dates
from agent.text import abbreviates, month_number, one_typo_apart, same_word, words
from ingest.labels import dotted_words, matching_label, qualified_parts


@pytest.mark.parametrize(("a", "b"), [
    ("purchasing", "purchase"), ("ending", "end"), ("shipped", "shipping"),
    ("planning", "plan"), ("scored", "score"),
])
def test_inflections_of_one_word_are_the_same_word(a, b):
    assert same_word(a, b) and same_word(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("endowment", "end"), ("organization", "organ"), ("operating", "operation"),
    ("played", "player"), ("general", "generation"), ("2019", "2019s"),
])
def test_derivations_and_prefixes_are_other_words(a, b):
    assert not same_word(a, b)


@pytest.mark.parametrize(("short", "long", "dotted"), [
    ("feb", "february", False), ("sept", "september", False), ("qty", "quantity", False),
    ("avg", "average", False), ("dept", "department", True), ("mgmt", "management", False),
])
def test_short_forms(short, long, dotted):
    assert abbreviates(short, long, dotted)


@pytest.mark.parametrize(("short", "long", "dotted"), [
    ("end", "endowment", False),  # a bare prefix is no abbreviation
    ("dpt", "department", False),  # letters in order need the dot
    ("inc", "income", False),
    ("sd", "standard", False),  # stands for a phrase, not for its first word
    ("feb", "march", False),
])
def test_what_is_not_a_short_form(short, long, dotted):
    assert not abbreviates(short, long, dotted)


def test_month_numbers():
    assert [month_number(w) for w in ("january", "dec", "sept", "may", "mayor")] == [
        1, 12, 9, 5, None]


def test_dotted_words_and_qualified_parts():
    assert dotted_words("Qty. sold") == {"qty"}
    assert dotted_words("1.5 kg") == set() and dotted_words("U.S. sales") == set()
    assert qualified_parts("Methane (CH4)") == ("Methane", "CH4")
    assert qualified_parts("7. Health (total)[2]") == ("Health", "total")
    assert qualified_parts("Revenue (2019)") is None  # a year is part of the name


@pytest.mark.parametrize(("header", "matched"), [
    ("Agri-\nculture", "Agriculture"),
    ("Civilian\nnoninstitu-\ntional\npopulation", "Civilian\nnoninstitutional\npopulation"),
    # A compound's own hyphen, and a hyphen before a capital, stay.
    ("Self-\nemployed", "Self-\nemployed"),
    ("2023-\nApr", "2023-\nApr"),
    ("Year-to-date", "Year-to-date")])
def test_a_word_a_narrow_header_breaks_at_a_hyphen_is_matched_whole(header, matched):
    # A browser tester's "What was the Agriculture employment ...?" was refused: the BLS
    # table's header is "Agri-" and "culture" on two lines of one cell.
    assert matching_label(header) == matched


def test_a_header_broken_at_a_hyphen_answers_for_the_whole_word(ask):
    answer = ask('Year,"Agri-\nculture","Nonagri-\ncultural\nindustries"\n2022,12,50\n'
                 '2023,14,61\n', "What was the Agriculture employment in 2023?")
    assert answer.values == [14]


def test_question_dates():
    assert _question_dates("inventory on February 25, 2016?") == [
        (frozenset({2, 3, 4}), "2016-02-25")]
    assert [d for _, d in _question_dates("on Mar 3 and 2016-06-20 and in August 2014")] == [
        "2016-06-20", "____-03-03", "2014-08-__"]


BUDGET = "Item,Feb,Mar\n7. Health,120,130\nPurchase,50,60\nEndowment,900,950\n"


@pytest.mark.parametrize(("question", "expected"), [
    ("What was purchasing in February?", [50]),  # inflection and a month's short form
    ("What was health in March?", [130]),  # numbered heading
    ("What was the endowment in Feb?", [900]),
])
def test_budget_rows_and_month_columns(ask, question, expected):
    answer = ask(BUDGET, question)
    assert answer.error is None, answer.error
    assert answer.values == expected


def test_a_prefix_does_not_name_a_row(ask):
    answer = ask(BUDGET, "What was the end in February?")
    assert answer.answer is None
    assert '"end"' in answer.error.message


EMISSIONS = "Year,Methane (CH4),Carbon dioxide (CO2)\n2019,10,400\n2020,12,410\n"


@pytest.mark.parametrize(("question", "expected"), [
    ("What were methane emissions in 2020?", [12]),
    ("What was CH4 in 2019?", [10]),
    ("What was carbon dioxide in 2019?", [400]),
])
def test_either_part_of_a_qualified_name(ask, question, expected):
    answer = ask(EMISSIONS, question)
    assert answer.error is None, answer.error
    assert answer.values == expected


def test_a_qualifier_that_tells_siblings_apart_is_needed(ask):
    answer = ask("Country,Area (km2),Area (sq mi)\nFrance,551695,213011\n",
                 "What is the area of France?")
    assert answer.answer is None


STATS = "Group,Mean,SD,Qty.\nNorth,5.5,1.2,10\nSouth,6.5,0.8,20\n"


@pytest.mark.parametrize(("question", "expected"), [
    ("What is the standard deviation for the South group?", [0.8]),
    ("What is the quantity for the North group?", [10]),
])
def test_report_abbreviations(ask, question, expected):
    answer = ask(STATS, question)
    assert answer.error is None, answer.error
    assert answer.values == expected


def test_a_month_name_picks_a_month_number(ask):
    answer = ask("Month,Sales\n11,100\n12,150\n", "What were the sales in December?")
    assert answer.error is None, answer.error
    assert answer.values == [150]


def test_a_date_picks_its_row_however_the_cells_write_it(ask):
    answer = ask("Date,Visitors\n02/24/2016,30\n02/25/2016,45\n",
                 "What was the visitors on February 25, 2016?")
    assert answer.error is None, answer.error
    assert answer.values == [45]


def test_an_ordinal_before_a_column_name_picks_its_row(ask):
    answer = ask("Season,Viewers\n1,10.5\n2,12.25\n3,9.75\n",
                 "What were the viewers of the 2nd season?")
    assert answer.error is None, answer.error
    assert answer.values == [12.25]


@pytest.mark.parametrize(("typed", "word", "slip"), [
    ("nroth", "north", True), ("revnue", "revenue", True), ("reveneue", "revenue", True),
    ("revenie", "revenue", True), ("north", "north", False), ("nrohtt", "north", False),
    ("revenues", "revenue", True), ("rvenuee", "revenue", False),
])
def test_one_typing_slip(typed, word, slip):
    assert one_typo_apart(typed, word) is slip and one_typo_apart(word, typed) is slip


REGIONS = "Region,Sales,Staff\nNorth,120,4\nSouth,80,3\n"


def test_a_mistyped_word_is_suggested_not_answered(ask):
    """A typo is a guess: the refusal offers the table's word, and no number is given."""
    answer = ask(REGIONS, "What were the sales in the Nroth?")
    assert answer.answer is None and answer.values == []
    assert '"nroth"' in answer.error.message
    assert '(did you mean "north"?)' in answer.error.message


@pytest.mark.parametrize("question", [
    "What were the sales in the Nrhto Sea?",  # two slips from "north": no suggestion
    "What were the sales in the Sotu?",  # too short to tell a slip from another word
])
def test_no_suggestion_without_one_clear_table_word(ask, question):
    answer = ask(REGIONS, question)
    assert answer.answer is None
    assert "did you mean" not in answer.error.message


def test_two_table_words_one_slip_away_are_not_suggested(ask):
    answer = ask("Name,Score\nbrand,1\nbread,2\n", "What is the score of the braed?")
    assert answer.answer is None
    assert '"braed"' in answer.error.message and "did you mean" not in answer.error.message



EXPENSES = "Item,Q1\nOperating Expenses,300\nRevenue,500\n"


def test_a_slip_in_another_form_of_a_table_word_is_suggested(ask):
    # "expnse" is one slip from "expense", another form of the table's "expenses".
    answer = ask(EXPENSES, "What was the operating expnse in Q1?")
    assert answer.answer is None and answer.values == []
    assert '(did you mean "expenses"?)' in answer.error.message


def test_a_refusal_does_not_say_a_word_the_table_has_matches_nothing(ask):
    # "operating" is written in "Operating Expenses": only the phrase around it matched no
    # label, which the refusal says apart from the word the table lacks.
    answer = ask(EXPENSES, "What was the operating expnse in Q1?")
    message = answer.error.message
    assert 'the word "expnse" does not match anything' in message
    assert '"operating" appears only within longer labels' in message


FIXED_ASSETS = ("Industry,2021 Acquisition,2021 Disposal\n"
                "Food manufacturing,401,36\nTextiles,120,9\n")


def test_a_refusal_names_a_counted_noun_the_table_never_writes(ask):
    # A count's noun may go unmatched ("how many teams" counts rows that need not say
    # "team"), but when the count is refused, a noun the table has no form of is the reason
    # to say first, not only the words that matched partly.
    answer = ask(FIXED_ASSETS, "How many employees did the food industry have in 2021?")
    message = answer.error.message
    assert 'names no "employees" to count, and "food", "2021" appear only within' in message
    # A noun the rows need not write still counts them.
    assert ask(FIXED_ASSETS, "How many industries had a 2021 disposal above 20?").values == [1]


def test_a_number_with_thousands_separators_is_one_word():
    assert words("644,744 and 1,204,331.5") == ["644744", "and", "1204331.5"]
    # Not a thousands group: two years, a list of small numbers.
    assert words("2018,2019 or 1,2,3") == ["2018", "2019", "or", "1", "2", "3"]


CITIES = 'City,Population,Area\nSpringfield,"644,744",120.5\nShelbyville,"1,204,331",98.2\n'


@pytest.mark.parametrize("question", [
    "Which city has population 644,744?",  # written as the cell writes it
    "Which city has population 644744?",
])
def test_a_number_picks_its_row_with_or_without_separators(ask, question):
    answer = ask(CITIES, question)
    assert answer.error is None, answer.error
    assert answer.values == ["Springfield"]


GRANTS = ("Ref,Recipient,Programme,Amount\nG1,Hill Food Bank,Youth,500\n"
          "G2,Hill Food Bank,Heritage,700\nG3,River Club,Youth,300\nG4,Oak Trust,Youth,200\n")


@pytest.mark.parametrize(("question", "expected"), [
    # "appear" only says that a value is in the table, or how often: it names nothing.
    ("How many different recipients appear in the register?", [3]),
    ("Which programme appears most often in the register?", ["Youth"]),
])
def test_appear_says_a_value_is_in_the_table_and_names_nothing(ask, question, expected):
    assert ask(GRANTS, question).values == expected


def test_the_noun_appearances_and_a_table_s_own_register_stay_words_to_find(ask):
    players = "Player,Appearances,Goals\nAda,30,12\nBea,25,3\n"
    assert ask(players, "How many appearances did Bea make?").values == [25]
    # A table that has a Register column: "in the register" names it.
    voters = "Ward,Register,Turnout\nNorth,1200,600\nSouth,900,500\n"
    assert ask(voters, "How many voters were in the register in South?").values == [900]


CHESS = ("Player,Games,Wins,Draws\nAda,14,12,0\nBea,14,6,8\nCal,13,1,10\nDev,9,4,5\n")


def test_drew_is_read_as_draw_only_where_the_table_writes_draws(ask):
    # "drew" is also a word of its own; over a Draws column it names that column, so the
    # question names two columns (Draws, Games) and is refused, never answered by the most
    # Games (a tie of Ada and Bea) as it was.
    answer = ask(CHESS, "Which player drew the most games?")
    assert answer.answer is None
    assert ask(CHESS, "Which player had the most draws?").values == ["Cal"]


WAITS = "Specialty,Q1 2023\nUrology,71\nENT,50\n"


@pytest.mark.parametrize(("question", "expected"), [
    ("Which of Urology or ENT had the longer wait in Q1 2023?", ["Urology"]),
    ("Which had the shorter wait in Q1 2023, Urology or ENT?", ["ENT"]),
])
def test_longer_and_shorter_choose_between_rows_as_higher_and_lower_do(ask, question, expected):
    assert ask(WAITS, question).values == expected


VISITS = ("Visit ID,Species,Vet\nV1,Cat,Hughes\nV2,Dog,Moreno\nV3,Cat,Hughes\nV4,Rabbit,Hughes\n"
          "V5,Cat,Moreno\n")


@pytest.mark.parametrize(("question", "expected"), [
    # The table called by a noun after "the" and its modifiers (which stay words to find:
    # "appointment" is the file's); "among" names nothing.
    ("Which species appears most often in the appointment log?", ["Cat"]),
    ("Which species appears most often among the appointments?", ["Cat"]),
    # "the most entries" and "the largest number of <rows>" count the rows of each value.
    ("Which vet has the most entries in the log?", ["Hughes"]),
    ("Which vet saw the largest number of appointments?", ["Hughes"]),
])
def test_the_log_its_entries_and_among_name_nothing_to_find(ask, tmp_path, question, expected):
    path = tmp_path / "vet_appointments.csv"
    path.write_text(VISITS, encoding="utf-8")
    assert ask(path, question).values == expected
