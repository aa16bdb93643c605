"""Each offline operation of the agent on small real workbooks (openpyxl) in real workspaces.

The questions are written as a user would ask them. Every answer must come from cited cells
that exist in the stored grid, with confidence "high" and no LLM call. Operations the offline
engine does not support yet are strict xfails that say what the engine did instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from openpyxl.styles import Alignment, Font

from agent.events import Answer, StepEvent
from agent.run import answer_question, stream_question
from storage.workspace import Workspace

# ---------------------------------------------------------------------------------------------
# Workbooks


def write_book(path: Path, sheet: str, rows: Sequence[Sequence[Any]], *,
               merges: Sequence[str] = (), indents: Sequence[str] = (),
               bold: Sequence[str] = ()) -> Path:
    """Write one sheet of rows; merge ranges, indent (Excel's indent alignment) and bold cells."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = sheet
    for row in rows:
        ws.append(list(row))
    for ref in merges:
        ws.merge_cells(ref)
    for ref in indents:
        ws[ref].alignment = Alignment(indent=1)
    for ref in bold:
        ws[ref].font = Font(bold=True)
    wb.save(path)
    return path


ORDERS = [
    ["Region", "Product", "Units Sold", "Revenue"],
    ["North", "Apples", 120, 1500],   # row 2
    ["North", "Pears", 80, 900],      # row 3
    ["South", "Apples", 200, 2100],   # row 4
    ["South", "Pears", 40, 500],      # row 5
    ["East", "Apples", 150, 1800],    # row 6
    ["West", "Plums", 60, 700],       # row 7
]

BUDGET = [
    [None, 2018, 2019],
    ["Revenue", 1000, 1200],          # row 2
    ["Expenses", None, None],         # row 3: a group row with no data of its own
    ["Staff", 400, 450],              # row 4
    ["Rent", 100, 110],               # row 5
    ["Travel", 50, 40],               # row 6
    ["Total expenses", 550, 600],     # row 7: the stated total of the group
    ["Profit", 450, 600],             # row 8
]

VISITORS = [
    ["City", 2018, 2019],
    ["Lyon", 500, 540],               # row 2
    ["Nice", 300, 270],               # row 3
    ["Lille", 250, 260],              # row 4
    ["Total", 1050, 1070],            # row 5
]

RACE = [
    ["Rank", "Swimmer", "Country", "Time"],
    [1, "Ana Silva", "Brazil", "1:23.45"],   # row 2 (the ranks do not follow the times)
    [2, "Li Wei", "China", "1:21.90"],       # row 3
    [3, "Tom Berg", "Norway", "1:25.02"],    # row 4
    [4, "Sam Ode", "Kenya", "1:24.10"],      # row 5
]

ROSTER = [
    ["Team", "Member", "Role", "Age"],
    ["Red", "Ann", "Captain", 31],    # rows 2-4: Red (merged A2:A4)
    [None, "Ben", "Player", 24],
    [None, "Cy", "Player", 27],
    ["Blue", "Dee", "Captain", 29],   # rows 5-6: Blue (merged A5:A6)
    [None, "Eli", "Player", 22],
    ["Green", "Fay", "Captain", 35],  # rows 7-10: Green (merged A7:A10)
    [None, "Gil", "Player", 30],
    [None, "Hal", "Player", 26],
    [None, "Ivy", "Player", 20],
]

GAMES = [
    ["Year", "Host City", "Nations"],
    [1996, "Atlanta", 197],           # row 2
    [2000, "Sydney", 199],            # row 3
    [2004, "Athens", 201],            # row 4
    [2008, "Beijing", 204],           # row 5
]


def _orders(folder: Path) -> list[Path]:
    return [write_book(folder / "orders.xlsx", "Orders", ORDERS)]


def _budget(folder: Path) -> list[Path]:
    return [write_book(folder / "budget.xlsx", "Budget", BUDGET,
                       indents=["A4", "A5", "A6", "A7"], bold=["A2", "A3", "A8"])]


def _budget_without_total(folder: Path) -> list[Path]:
    rows = [r for r in BUDGET if r[0] != "Total expenses"]
    return [write_book(folder / "budget.xlsx", "Budget", rows,
                       indents=["A4", "A5", "A6"], bold=["A2", "A3", "A7"])]


def _visitors(folder: Path) -> list[Path]:
    return [write_book(folder / "cities.xlsx", "Visitors", VISITORS)]


def _race(folder: Path) -> list[Path]:
    return [write_book(folder / "race.xlsx", "Final", RACE)]


def _roster(folder: Path) -> list[Path]:
    return [write_book(folder / "teams.xlsx", "Roster", ROSTER,
                       merges=["A2:A4", "A5:A6", "A7:A10"])]


def _games(folder: Path) -> list[Path]:
    return [write_book(folder / "hosts.xlsx", "Games", GAMES)]


def _two_months(folder: Path) -> list[Path]:
    """Two files with the same column paths (Region, Sales), one per month."""
    return [write_book(folder / "jan.xlsx", "Sales", [["Region", "Sales"], ["North", 100],
                                                     ["South", 80]]),
            write_book(folder / "feb.xlsx", "Sales", [["Region", "Sales"], ["North", 120],
                                                     ["South", 90]])]


def _workspace(tmp_path_factory: pytest.TempPathFactory, name: str, build) -> Workspace:
    folder = tmp_path_factory.mktemp(name)
    ws = Workspace(folder / "workspace")
    for path in build(folder):
        ws.add_file(path)
    return ws


def _fixture(name: str, build):
    @pytest.fixture(scope="module")
    def workspace(tmp_path_factory):
        ws = _workspace(tmp_path_factory, name, build)
        yield ws
        ws.close()

    return workspace


orders = _fixture("orders", _orders)
budget = _fixture("budget", _budget)
budget_without_total = _fixture("budget_nototal", _budget_without_total)
visitors = _fixture("visitors", _visitors)
race = _fixture("race", _race)
roster = _fixture("roster", _roster)
games = _fixture("games", _games)
two_months = _fixture("two_months", _two_months)


# ---------------------------------------------------------------------------------------------
# Checks


def cited(answer: Answer) -> list[str]:
    return [f"{e.sheet}!{e.ref}" for e in answer.evidence]


def check(ws: Workspace, question: str, text: str, values: list[Any],
          refs: Sequence[str] | None = None, *, includes: Sequence[str] = (),
          excludes: Sequence[str] = ()) -> Answer:
    """Answer offline and check the text, the values and the cited cells (all of `refs` and
    nothing else when given; at least `includes`; never `excludes`)."""
    answer = answer_question(ws, question)
    assert answer.error is None, answer.error
    assert answer.answer == text
    assert answer.values == values
    got = cited(answer)
    if refs is not None:
        assert sorted(got) == sorted(refs)
    assert set(includes) <= set(got), got
    assert not set(excludes) & set(got), got
    assert answer.confidence_label == "high"
    assert answer.llm_calls == 0
    for item in answer.evidence:  # each cited cell is a stored cell showing that text
        grid = ws.table(item.table).grid
        stored = [r["text"] for r in ws.db.query(
            "SELECT text FROM cells WHERE grid = ? AND ref = ?", [grid, item.ref])]
        assert stored == [item.text], (item.ref, stored)
    return answer


# ---------------------------------------------------------------------------------------------
# Lookup: a row by a column


def test_lookup_reads_one_cell_by_row_and_column(orders):
    check(orders, "What was the revenue for Pears in the South region?", "500", [500],
          ["Orders!D5"])


def test_lookup_with_how_many_reads_a_count_column(orders):
    check(orders, "How many units of Plums were sold in the West?", "60", [60], ["Orders!C7"])


def test_lookup_in_a_row_label_by_year_column(budget):
    check(budget, "What was the rent in 2019?", "110", [110], ["Budget!C5"])


def test_how_many_with_a_named_row_and_year_reads_the_cell(visitors):
    check(visitors, "How many visitors did Lille have in 2019?", "260", [260], ["Visitors!C4"])


# ---------------------------------------------------------------------------------------------
# Aggregates with a filter


def test_sum_with_a_filter(orders):
    check(orders, "What were the total units sold in North?", "200", [200],
          ["Orders!C2", "Orders!C3"])


def test_average_with_a_filter(orders):
    check(orders, "What was the average revenue for Apples?", "1800", [1800],
          ["Orders!D2", "Orders!D4", "Orders!D6"])


def test_sum_over_every_row(orders):
    check(orders, "What is the total revenue?", "7500", [7500],
          [f"Orders!D{r}" for r in range(2, 8)])


def test_max_with_a_filter(orders):
    check(orders, "What was the highest revenue in North?", "1500", [1500], ["Orders!D2"])


def test_min_with_a_filter(orders):
    check(orders, "What was the lowest number of units sold for Apples?", "120", [120],
          ["Orders!C2"])


# ---------------------------------------------------------------------------------------------
# Which ... the highest / the lowest


def test_argmin_names_the_row(games):
    check(games, "Which host city had the fewest nations?", "Atlanta", ["Atlanta"],
          ["Games!C2", "Games!B2"])


def test_which_over_repeated_names_is_refused_not_read_from_one_row(orders):
    """One row per order: the region of the order with the highest revenue is not the region
    with the highest revenue in all; "highest" alone does not say which is asked."""
    answer = answer_question(orders, "Which region had the highest revenue?")
    assert answer.answer is None and answer.values == []
    assert "Region repeats over the rows" in answer.error.message


def test_which_group_has_the_fewest_adds_up_its_rows(orders):
    """The order with the fewest units (Pears, 40) is not the product with the fewest: Plums,
    60 in all."""
    answer = answer_question(orders, "Which product had the fewest units sold?")
    assert answer.answer == "Plums"


# ---------------------------------------------------------------------------------------------
# Counting rows that meet a numeric condition


def test_count_more_than(orders):
    check(orders, "How many orders had more than 100 units sold?", "3", [3],
          includes=["Orders!C2", "Orders!C4", "Orders!C6"],
          excludes=["Orders!C3", "Orders!C5", "Orders!C7"])


def test_count_at_least_includes_the_bound(orders):
    # 900 itself counts: 1500, 900, 2100, 1800.
    check(orders, "How many orders had revenue of at least 900?", "4", [4],
          includes=["Orders!D2", "Orders!D3", "Orders!D4", "Orders!D6"],
          excludes=["Orders!D5", "Orders!D7"])


def test_count_between_includes_both_bounds(orders):
    # 120, 80, 150 (the upper bound) and 60; not 200 or 40.
    check(orders, "How many orders had between 50 and 150 units sold?", "4", [4],
          includes=["Orders!C2", "Orders!C3", "Orders!C6", "Orders!C7"],
          excludes=["Orders!C4", "Orders!C5"])


def test_count_with_a_condition_inside_a_merged_group(roster):
    # Green: Fay 35, Gil 30, Hal 26 are over 25; Ivy 20 is not.
    check(roster, "How many members of the Green team are over 25?", "3", [3],
          excludes=["Roster!B10", "Roster!D10"])


def test_count_older_than(roster):
    check(roster, "How many members are older than 25?", "6", [6])


# ---------------------------------------------------------------------------------------------
# A group's total


def test_group_total_prefers_the_stated_total_row(budget):
    check(budget, "What were the total expenses in 2019?", "600", [600], ["Budget!C7"])


def test_group_total_without_a_total_row_sums_the_children(budget_without_total):
    check(budget_without_total, "What were the total expenses in 2019?", "600", [600],
          ["Budget!C4", "Budget!C5", "Budget!C6"])
    check(budget_without_total, "What were the total expenses in 2018?", "550", [550],
          ["Budget!B4", "Budget!B5", "Budget!B6"])


# ---------------------------------------------------------------------------------------------
# Differences and percentage change


def test_change_from_one_year_to_the_next_is_new_minus_old(budget):
    answer = check(budget, "What was the change in revenue from 2018 to 2019?", "200", [200],
                   ["Budget!B2", "Budget!C2"])
    assert cited(answer) == ["Budget!C2", "Budget!B2"]  # 2019 minus 2018, in that order


def test_a_decrease_is_negative(budget):
    check(budget, "What was the change in travel from 2018 to 2019?", "-10", [-10],
          ["Budget!B6", "Budget!C6"])


def test_change_for_a_named_row_across_year_columns(visitors):
    check(visitors, "What was the change in visitors to Nice from 2018 to 2019?", "-30", [-30],
          ["Visitors!B3", "Visitors!C3"])


def test_difference_between_two_rows(visitors):
    # The size, and which is larger.
    check(visitors, "What is the difference between Lyon and Nice in 2019?", "270 (Lyon higher)",
          [270],
          ["Visitors!C2", "Visitors!C3"])


def test_how_many_more_between_two_rows(visitors):
    check(visitors, "How many more visitors did Lyon have than Nice in 2019?", "270", [270],
          ["Visitors!C2", "Visitors!C3"])


def test_difference_between_two_rows_in_a_named_column(games):
    check(games, "What is the difference in nations between Beijing and Atlanta?",
          "7 (Beijing higher)", [7],
          ["Games!C5", "Games!C2"])


def test_percentage_change(budget):
    answer = check(budget, "What was the percentage change in revenue from 2018 to 2019?",
                   "20%", [20], ["Budget!B2", "Budget!C2"])
    assert answer.unit == "%"


def test_percentage_increase_is_rounded_to_two_decimals(budget):
    check(budget, "What was the percentage increase in profit from 2018 to 2019?", "33.33%",
          [33.33], ["Budget!B8", "Budget!C8"])


def test_percentage_growth_phrased_with_grow(budget):
    check(budget, "By what percentage did revenue grow from 2018 to 2019?", "20%", [20],
          ["Budget!B2", "Budget!C2"])


# ---------------------------------------------------------------------------------------------
# First / last


def test_first_row(games):
    check(games, "Which host city was first?", "Atlanta", ["Atlanta"], ["Games!B2"])


def test_last_row(games):
    check(games, "Which was the last host city?", "Beijing", ["Beijing"], ["Games!B5"])


def test_first_matching_row(orders):
    check(orders, "Which product is listed first for South?", "Apples", ["Apples"],
          ["Orders!B4"])


# ---------------------------------------------------------------------------------------------
# Rows labelled Total are not counted twice


def test_sum_over_all_rows_leaves_out_the_total_row(visitors):
    check(visitors, "What was the total in 2019?", "1070", [1070],
          ["Visitors!C2", "Visitors!C3", "Visitors!C4"])


def test_average_over_all_rows_leaves_out_the_total_row(visitors):
    check(visitors, "What was the average number of visitors in 2018?", "350", [350],
          ["Visitors!B2", "Visitors!B3", "Visitors!B4"])


def test_argmax_over_all_rows_never_picks_the_total_row(visitors):
    check(visitors, "Which city had the most visitors in 2019?", "Lyon", ["Lyon"],
          ["Visitors!C2", "Visitors!A2"])


def test_a_best_row_without_a_name_is_refused_saying_which_row_and_cell(ask):
    answer = ask("Player,Points,Assists\nAnn,12,3\n,30,4\nBo,9,5\nCy,14,2\n",
                 "Which player had the highest points?")
    assert answer.answer is None
    assert "the row with the highest Points (Sheet row 3) has no Player" in answer.error.message


def test_a_condition_on_no_column_is_quoted_in_the_questions_words(ask):
    # "over 2023" of a table without 2023: the refusal quotes what was written, not "> 2023".
    answer = ask("Product,Q1,Q2,FY\nHardware,100,110,210\nSoftware,200,210,410\n"
                 "Gross revenue,300,320,620\n", "What was the gross revenue over 2023?")
    assert answer.answer is None
    assert '"over 2023" reads as a condition on a number' in answer.error.message


def test_money_read_from_the_title_alone_is_said_to_be_the_titles_reading(ask, tmp_path):
    book = write_book(tmp_path / "sales.xlsx", "Sales", [
        ["Annual sales report"], ["Units sold and revenue (USD)"], [],
        ["Product", "Units", "Revenue", "Returns"], ["Widgets", 300, 9000, 12],
        ["Gadgets", 250, 7000, 30]], bold=["A1", "A4", "B4", "C4", "D4"])
    answer = ask(book, "How many items were returned for Gadgets?")
    assert answer.answer is None
    assert "the title (" in answer.error.message
    assert "so Returns reads as amounts" in answer.error.message


def test_count_over_all_rows_leaves_out_the_total_row(visitors):
    # Lyon 540 and Nice 270; the Total row (1070) is not a city.
    check(visitors, "How many cities had more than 265 visitors in 2019?", "2", [2],
          excludes=["Visitors!A5", "Visitors!C5"])


def test_total_number_of_is_a_sum(visitors):
    check(visitors, "What was the total number of visitors in 2019?", "1070", [1070],
          ["Visitors!C2", "Visitors!C3", "Visitors!C4"])


# ---------------------------------------------------------------------------------------------
# Durations ranked through the column step


def _run(ws: Workspace, question: str, run_id: str) -> tuple[list[StepEvent], Answer]:
    *events, answer = list(stream_question(ws, question, run_id=run_id))
    assert isinstance(answer, Answer)
    return events, answer


def test_shortest_duration_goes_through_the_column_step(race):
    events, answer = _run(race, "Which swimmer had the shortest time?", "durmin")
    assert (answer.answer, answer.values) == ("Li Wei", ["Li Wei"])
    assert sorted(cited(answer)) == ["Final!B3", "Final!D3"]
    assert answer.confidence_label == "high" and answer.llm_calls == 0

    nodes = list(dict.fromkeys(e.node for e in events))
    assert nodes == ["decompose", "retrieve", "tree_navigate", "llm_column_step", "sql_step",
                     "validate", "answer"]
    [column_end] = [e for e in events if e.node == "llm_column_step" and e.phase == "end"]
    table = column_end.table
    assert table is not None and table.name.startswith("step_durmin_")
    seconds = dict(zip([r[table.columns.index("Swimmer")] for r in table.rows],
                       [r[table.columns.index("Time")] for r in table.rows], strict=True))
    assert seconds == pytest.approx({"Ana Silva": 83.45, "Li Wei": 81.9, "Tom Berg": 85.02,
                                     "Sam Ode": 84.1})
    # The SQL step ranks the derived numbers, not the text.
    [sql_end] = [e for e in events if e.node == "sql_step" and e.phase == "end"]
    assert sql_end.sql is not None and table.name in sql_end.sql
    [validate_end] = [e for e in events if e.node == "validate" and e.phase == "end"]
    assert validate_end.title == "Verified"


def test_longest_duration(race):
    events, answer = _run(race, "Which swimmer had the longest time?", "durmax")
    assert (answer.answer, answer.values) == ("Tom Berg", ["Tom Berg"])
    assert sorted(cited(answer)) == ["Final!B4", "Final!D4"]
    assert any(e.node == "llm_column_step" and e.phase == "end" for e in events)


# ---------------------------------------------------------------------------------------------
# Merged group rows


def test_a_merged_group_counts_its_rows(roster):
    check(roster, "How many people are in the Green team?", "4", [4], includes=["Roster!A7"])


def test_a_value_filter_inside_a_merged_group(roster):
    # Red has a captain and two players.
    check(roster, "How many players are on the Red team?", "2", [2],
          includes=["Roster!C3", "Roster!C4"], excludes=["Roster!C2"])


def test_average_over_a_merged_group(roster):
    # Whole-number ages: the average shows one decimal more; `values` keeps 27.75.
    check(roster, "What is the average age in the Green team?", "27.8", [27.75],
          ["Roster!D7", "Roster!D8", "Roster!D9", "Roster!D10"])


# ---------------------------------------------------------------------------------------------
# Across two files with the same columns


def test_total_across_two_files_with_the_same_columns(two_months):
    answer = check(two_months, "What were the total sales in North across both months?",
                   "220", [220])
    assert sorted((e.table, e.ref) for e in answer.evidence) == [
        ("feb__sales__t0", "B2"), ("jan__sales__t0", "B2")]


def test_an_ambiguous_question_over_two_files_is_not_answered_from_one(two_months):
    answer = answer_question(two_months, "What were the total sales in North?")
    if answer.answer is not None and answer.confidence_label == "high":
        assert answer.values == [220]
        assert {e.table for e in answer.evidence} == {"jan__sales__t0", "feb__sales__t0"}


# ---------------------------------------------------------------------------------------------
# Either/or: which of two named values has more


def test_which_of_two_rows_has_more_of_a_column(visitors):
    answer = check(visitors, "Which city had more visitors in 2019, Lyon or Lille?", "Lyon",
                   ["Lyon"], includes=["Visitors!C2", "Visitors!C4"])
    assert any(s.node == "sql_step" and "ORDER BY" in (s.sql or "") for s in answer.steps)


def test_which_of_two_values_has_more_rows(roster):
    # Red has two players (and a captain), Blue one: rows are counted after the other filter.
    check(roster, "Are there more players in Red or Blue?", "Red", ["Red"])


# ---------------------------------------------------------------------------------------------
# Before / after: the neighbouring row in table order


def test_the_row_after_a_named_one(games):
    check(games, "Which host city came after Sydney?", "Athens", ["Athens"], ["Games!B4"])


def test_the_row_before_a_named_one(games):
    check(games, "Which host city was right before Athens?", "Sydney", ["Sydney"], ["Games!B3"])


def test_after_a_number_is_not_a_neighbour(games):
    answer = answer_question(games, "Which host city came after 2000?")
    assert answer.answer != "Athens" or answer.confidence_label != "high"


# ---------------------------------------------------------------------------------------------
# Ranking the columns of one row (years as columns)


def test_which_year_column_is_highest_for_a_row(visitors):
    answer = check(visitors, "In which year did Lyon have the most visitors?", "2019", ["2019"],
                   includes=["Visitors!B2", "Visitors!C2"])
    assert any(s.node == "sql_step" and "UNION ALL" in (s.sql or "") for s in answer.steps)


def test_which_year_column_is_lowest_for_a_row(visitors):
    check(visitors, "Which year had the lowest number of visitors in Nice?", "2019", ["2019"])


# ---------------------------------------------------------------------------------------------
# Footnote markers on headers


STATES = [
    ["State", "Total area[2]", "Land area [note 3]", "Population(1)", "Density*", "Q1"],
    ["Alaska", 665384, 571951, 733391, 1.3, 10],       # row 2
    ["Montana", 147040, 145546, 1084225, 7.4, 20],     # row 3
    ["Texas[b]", 268596, 261232, 29145505, 111.6, 30],  # row 4
]


@pytest.fixture(scope="module")
def states(tmp_path_factory):
    ws = _workspace(tmp_path_factory, "states",
                    lambda folder: [write_book(folder / "states.xlsx", "States", STATES)])
    yield ws
    ws.close()


@pytest.mark.parametrize(("question", "text", "ref"), [
    ("What is the total area of Montana?", "147040", "States!B3"),
    ("What is the land area of Alaska?", "571951", "States!C2"),
    ("What is the population of Montana?", "1084225", "States!D3"),
    ("What is the density of Alaska?", "1.3", "States!E2"),
    ("What is the land area of Texas?", "261232", "States!C4"),  # the row label has a marker
    ("What was Q1 for Texas?", "30", "States!F4"),  # a number in a name is still a word
])
def test_a_header_footnote_marker_is_not_a_word_to_match(states, question, text, ref):
    answer = check(states, question, text, [int(text) if text.isdigit() else float(text)], [ref])
    steps = " ".join(step.title for step in answer.steps)
    # The plan names the column as the source shows it, marker and all.
    assert any(label in steps for label in [h for h in STATES[0] if h != "State"]), steps


def test_header_cells_keep_their_footnote_markers(states):
    table = states.table_ids()[0]
    grid = states.table(table).grid
    shown = [r["text"] for r in states.db.query(
        "SELECT text FROM cells WHERE grid = ? AND row = 1 ORDER BY col", [grid])]
    assert shown == STATES[0]


def test_a_numbered_row_label_is_matched_by_its_words(tmp_path):
    """Government tables number their rows ("7. Health[2]"): "health" names that row."""
    path = write_book(tmp_path / "spending.xlsx", "Table 3", [
        ["Function", "2022-23", "2023-24"],
        ["6. Housing and community amenities", 14.1, 14.9],
        ["7. Health[2]", 223.5, 237.2],
        ["8. Education", 99.7, 103.2]])
    ws = Workspace(tmp_path / "ws")
    ws.add_file(path)
    check(ws, "What was spending on health in 2023-24?", "237.2", [237.2], ["Table 3!C3"])
    ws.close()


def test_words_no_table_matches_are_refused_without_naming_one_table(two_months):
    answer = answer_question(two_months, "What is the weather in London?")
    assert answer.answer is None
    assert answer.error.message == ('Needs an LLM: the words "weather", "london" do not match '
                                    "anything in any of the 2 tables; ask with the table's own "
                                    "words, or connect an LLM in Settings to read them.")
