""""Which three countries had the most arrivals", "the top three source countries for arrivals
in 2019", "name the three largest sources": the first rows of a ranking, best first, each
with its cited cells. A tie at the last place named, a slice of an order with a ranking of its
own ("among the top 3, which ...") and an aggregate over a top few are refused. Also what
names the rows in such lists: a footnote mark a note explains is no part of a name, and a
classification's section rows ("B-E Production industries" over B to E) are no members."""

from __future__ import annotations

from openpyxl import Workbook

from agent.frame import load_frames
from agent.question import analyse
from agent.table_facts import compute_profile
from storage.workspace import Workspace
from tests.test_precision_rules import ask_file

ARRIVALS = ("Country,Arrivals 2019,Arrivals 2023\nFrance,500,520\nGermany,700,650\n"
            "Japan,300,410\nItaly,450,530\nSpain,800,760\n")


def test_a_top_three_is_named_best_first_with_its_cells(ask):
    answer = ask(ARRIVALS, "Which three countries had the most arrivals in 2023?")
    assert answer.values == ["Spain", "Germany", "Italy"]
    assert {e.ref for e in answer.evidence} == {"C6", "C3", "C5", "A6", "A3", "A5"}


def test_the_wordings_of_a_top_few(ask):
    assert ask(ARRIVALS, "What were the top three countries for arrivals in 2019?").values \
        == ["Spain", "Germany", "France"]
    assert ask(ARRIVALS, "Name the two smallest countries by arrivals in 2023.").values \
        == ["Japan", "France"]
    assert ask(ARRIVALS, "List the top 4 countries by 2019 arrivals.").values \
        == ["Spain", "Germany", "France", "Italy"]


def test_a_tie_at_the_last_place_named_is_refused(ask):
    tied = ARRIVALS.replace("Italy,450,530", "Italy,450,520")  # France and Italy: 520
    answer = ask(tied, "Which three countries had the most arrivals in 2023?")
    assert answer.answer is None
    assert "a tie at the third place" in answer.error.message


def test_a_slice_with_a_ranking_of_its_own_or_summed_is_refused(ask):
    # "The top 3" is a slice here, and "lowest" the ranking within it.
    assert ask(ARRIVALS, "Among the top 3 countries, which had the lowest arrivals in "
                         "2023?").answer is None
    assert ask(ARRIVALS, "What is the total of arrivals in 2023 of the top three "
                         "countries?").answer is None
    # "Of the two": a comparative, not a top two.
    assert analyse("Of the two teams, which had more goals?").top == 1


def _noted_forces(path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Recorded crime by police force area"])
    ws.append(["Police force area", "Violence", "Theft", "Total recorded crime"])
    for row in [("Cleveland", 28593, 17435, 46028), ("Greater Manchester (a)", 95420, 70089,
                165509), ("Lancashire", 54237, 39751, 93988), ("Class (b)", 100, 50, 150),
                ("West Yorkshire", 89175, 70360, 159535)]:
        ws.append(list(row))
    ws.append([])
    ws.append(["(a) Data are not comparable with the previous year."])
    wb.save(path)
    return path


def test_a_footnote_mark_a_note_explains_is_left_out_of_the_name(tmp_path):
    top, marked = ask_file(tmp_path, _noted_forces(tmp_path / "crime.xlsx"),
                           "Which two forces had the largest total recorded crime?",
                           "Which force had the lowest total recorded crime?")
    assert top.values == ["Greater Manchester", "West Yorkshire"]
    assert top.answer == "Greater Manchester, West Yorkshire"
    # The cited cell keeps what the sheet writes.
    assert "Greater Manchester (a)" in {e.text for e in top.evidence}
    # No note explains "(b)": it may be part of the name.
    assert marked.values == ["Class (b)"]


SECTIONS = [("A", "Agriculture", 225, 69, 294), ("B-E", "Production", 2328, 669, 2997),
            ("B", "Mining", 54, 12, 66), ("C", "Manufacturing", 1981, 574, 2555),
            ("D", "Energy supply", 120, 44, 164), ("E", "Water supply", 173, 39, 212),
            ("F", "Construction", 1799, 234, 2033), ("G-Q", "Services", 3374, 3002, 6376),
            ("G", "Retail", 1610, 974, 2584), ("Q", "Health", 1764, 2028, 3792),
            ("All industries", None, 7726, 3974, 11700)]


def _classification(path, rows=SECTIONS):
    wb = Workbook()
    ws = wb.active
    ws.append(["Employment by industry (thousands)"])
    ws.append(["Section", "Industry", "Men", "Women", "All persons"])
    for row in rows:
        ws.append(list(row))
    wb.save(path)
    return path


def test_section_rows_adding_up_the_rows_below_them_are_no_members(tmp_path):
    top, best = ask_file(tmp_path, _classification(tmp_path / "industry.xlsx"),
                         "Which three industries had the most employment (all persons)?",
                         "Which industry employed the most women?")
    assert top.values == ["Health", "Retail", "Manufacturing"]  # not Services nor Production
    assert best.values == ["Health"]


def test_one_row_that_is_the_sum_of_the_next_two_is_a_line_of_its_own(tmp_path):
    # A statement's arithmetic: Revenue = Cost of sales + Gross profit in every year, and no
    # total says Revenue is a section's sum.
    wb = Workbook()
    ws = wb.active
    ws.append(["Item", "2021", "2022", "2023"])
    for row in [("Revenue", 500, 620, 700), ("Cost of sales", 300, 400, 420),
                ("Gross profit", 200, 220, 280), ("Staff", 90, 95, 99),
                ("Rent", 30, 31, 35)]:
        ws.append(list(row))
    wb.save(tmp_path / "pl.xlsx")
    ws_ = Workspace(tmp_path / "ws")
    try:
        ws_.add_file(tmp_path / "pl.xlsx")
        [frame] = load_frames(ws_)
        assert compute_profile(frame).summary_rows == frozenset()
    finally:
        ws_.close()


def test_in_what_year_was_the_first_reads_the_year(ask):
    answer = ask("Year,Competition,Venue\n2003,All-Africa Games,Abuja\n2006,Commonwealth Games,"
                 "Melbourne\n2008,Olympic Games,Beijing\n", "In what year was the first "
                 "competition?")
    assert answer.values == [2003]
