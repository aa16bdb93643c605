"""Conventions of real reports that new tables showed the rules mishandling (issue 12): a unit
sentence about some columns, a currency code before "000", notes written "r/ Revised." under
a table, years as row labels, a cell named "First", "GD" for goal difference, "exceed" between
two rows. Each answer is checked against the cells it must come from, and each refusal is one
where the old rules gave a wrong number."""

from __future__ import annotations

from agent.question import analyse
from ingest.labels import strip_footnote_markers
from ingest.values import scale_from_context
from storage.workspace import Workspace
from tests.test_agent_ops import write_book
from tests.test_precision_rules import ask_csv, ask_file

WORKFORCE = [
    ["Workforce by function"],
    ["Headcount at 31 December; salary in GBP thousands."],
    [None],
    ["Function", "Headcount", None, "FTE", "Average salary"],
    [None, "2022", "2023", "2023", "(GBP 000)"],
    ["Pilots", 1840, 1972, 1938.5, 142.5],
    ["Cabin crew", 4210, 4688, 4102, 31.2],
]

CEREALS = [
    ["Table 3. Area, production and yield of cereals, 2009-2014"],
    ["(Area in thousand hectares; production in thousand tonnes; yield in tonnes per hectare)"],
    [None],
    ["Year", "Wheat", None, None],
    [None, "Area harvested", "Production", "Yield"],
    [2009, 2401, 7600, 3.17],
    [2010, 2420, 7810, 3.23],
    [2011, 2433, 7702, 3.17],
    ["2012 r/", 2450, 8203, 3.35],
    [2013, 2461, 8390, 3.41],
    ["2014 p/", 2470, 8499, 3.44],
    [None],
    ["¹ Area is harvested area, not sown area."],
    ["r/ Revised.  p/ Preliminary."],
    ["Source: National Agricultural Statistics Office."],
]


def notes_of(tmp_path, path) -> tuple[str, ...]:
    """The notes of the one table a file holds, as stored."""
    ws = Workspace(tmp_path / "notes")
    try:
        ws.add_file(path)
        [table_id] = ws.table_ids()
        return ws.table(table_id).notes
    finally:
        ws.close()


def test_a_unit_sentence_about_some_columns_scales_those_columns_only(tmp_path):
    path = write_book(tmp_path / "workforce.xlsx", "Workforce", WORKFORCE,
                      merges=["B4:C4", "A4:A5"])
    fte, salary = ask_file(tmp_path, path, "What is the FTE for Pilots in 2023?",
                           "What is the average salary of pilots?")
    assert fte.values == [1938.5] and fte.answer == "1938.5"  # never "1938.5 thousand"
    assert salary.answer == "142.5 thousand GBP"  # not "142.5 thousand GBP 000"
    assert scale_from_context("Average salary (GBP 000)") == 1000


def test_each_clause_of_a_units_line_gives_its_own_columns_their_scale(tmp_path):
    path = write_book(tmp_path / "cereals.xlsx", "Cereals", CEREALS,
                      merges=["B4:D4", "A4:A5"])
    yield_, production = ask_file(tmp_path, path, "What was the wheat yield in 2010?",
                                  "What was the wheat production in 2010?")
    assert yield_.values == [3.23] and "thousand" not in yield_.answer  # tonnes per hectare
    assert production.answer == "7810 thousand"


def test_notes_under_a_table_are_its_notes_and_marked_years_are_years(tmp_path):
    path = write_book(tmp_path / "cereals.xlsx", "Cereals", CEREALS,
                      merges=["B4:D4", "A4:A5"])
    # A note, not a row of years:
    assert any(n.startswith("r/ Revised") for n in notes_of(tmp_path, path))
    assert strip_footnote_markers("2012 r/") == "2012" and strip_footnote_markers("n/a") == "n/a"
    revised, after, between, best = ask_file(
        tmp_path, path, "What was the wheat production in 2012?",
        "What was the average wheat yield after 2011?",
        "What was the total wheat area harvested between 2010 and 2012?",
        "In which year was the wheat yield the highest?")
    assert revised.values == [8203]
    assert after.values == [3.4]  # 2012, 2013 and 2014 p/: never a row "2011" alone
    assert between.values == [7303]  # 2010, 2011 and 2012: the span, not its two ends
    assert best.answer == "2014 p/"


YEARS = "Year,Wheat,Maize\n2010,100,200\n2011,110,210\n2012,120,220\n2013,130,230\n"


def test_a_year_condition_over_years_written_as_row_labels(tmp_path):
    after, before, change = ask_csv(tmp_path, "years.csv", YEARS,
                                    "What was the average wheat after 2011?",
                                    "What was the total maize before 2012?",
                                    "What was the change in wheat between 2010 and 2012?")
    assert after.values == [125]
    assert before.values == [410]
    assert change.values == [20]  # a difference between two years stays a pair


STATIONS = ("Station,Lines,Distance from Union Station (km),Parking spaces\n"
            "Union Station,Red,0.0,412\nHollywood/Vine,Red,11.2,—\n"
            "Universal City,Red,13.0,1900\n")


def test_the_named_rows_own_column_said_whole_is_read_after_it(tmp_path):
    station, distance = ask_csv(tmp_path, "stations.csv", STATIONS,
                                "what station is listed after hollywood/vine?",
                                "what is the distance of the station listed after "
                                "hollywood/vine?")
    assert station.answer == "Universal City"  # never "13.0 km"
    assert distance.values == [13.0]


SURVEY = ("| Route type | Cabin | NPS 2022 | Survey responses |\n|---|---|---|---|\n"
          "| Short-haul | Economy | 18 | 48,210 |\n| Short-haul | Business | 41 | 6,120 |\n"
          "| Long-haul | Economy | 9 | 17,650 |\n| Long-haul | Business | 47 | 3,980 |\n"
          "| Long-haul | First | 58 | 640 |\n")


def test_a_cell_named_first_is_a_cell_and_an_unnamed_group_is_not_guessed(tmp_path):
    first, responses, segment, route = ask_csv(
        tmp_path, "survey.md", SURVEY, "What was the long-haul first NPS in 2022?",
        "What is the Survey responses of Long-haul First?",
        "Which segment had the most survey responses?",
        "Which route type had the most survey responses?")
    assert first.values == [58] and responses.values == [640]
    assert segment.answer is None  # a row (route and cabin) or a route's rows added up?
    assert route.answer == "Short-haul"


TABLE = ("Team,P,W,D,L,GD,Pts\nKeflavik,22,8,6,8,-2,30\nFram,22,12,5,5,+14,41\n")


def test_a_short_form_of_an_operation_word_names_its_column(tmp_path):
    goal, between = ask_csv(tmp_path, "league.csv", TABLE,
                            "what was the goal difference of keflavik?",
                            "what is the difference in goal difference between fram and "
                            "keflavik?")
    assert goal.values == [-2]
    assert between.values == [16]


def test_a_figure_asked_of_the_best_row_is_not_left_out(tmp_path):
    league = ("Team,Played,Goals scored,Points\nBayern Munich,34,60,1\n"
              "Dortmund,34,30,70\n")
    [both] = ask_csv(tmp_path, "goals.csv", league,
                     "Identify the team with the highest goals scored and its corresponding "
                     "points total.")
    assert both.answer is None or both.values[-1:] == [1]  # never the team alone


def test_exceed_between_one_measure_of_two_rows_is_a_claim(tmp_path):
    assert analyse("Did the maize yield in 2021 exceed the maize yield in 2011?").relative
    assert not analyse("Did sales exceed the target?").relative
    [claim] = ask_csv(tmp_path, "years.csv", YEARS,
                      "Did the maize in 2013 exceed the maize in 2010? (yes / no)")
    assert claim.answer is not None and claim.answer.startswith("Yes")


CPI = [
    ["Table 1. Consumer Price Index, monthly (Index 1982-84=100)"],
    [None],
    ["Year and month", "Energy", None, "All items, 12-month percent change"],
    [None, "Total energy", "Gasoline", None],
    ["2023", None, None, None],
    ["   January", 283.1, 331.2, 3.1],
    ["   February", 290.4, 340.0, 3.1],
    ["   March", 288.0, 352.5, 3.4],
    ["2024", None, None, None],
    ["   January", 281.9, 320.7, 3.4],
    ["   February", 286.3, 335.1, 3.1],
    ["   March", 292.8, 351.0, 3.5],
]


def test_a_length_of_time_in_a_name_is_no_column_of_months(tmp_path):
    path = write_book(tmp_path / "cpi.xlsx", "CPI", CPI, merges=["A3:A4", "B3:C3", "D3:D4"],
                      bold=["A5", "A9"])
    [month] = ask_file(tmp_path, path, "In 2023, which month had the highest Total energy index?")
    assert month.answer == "February"  # never a 12-month percent change added up per value


MODELS = [
    ["Table 2: Image classification results"],
    [None],
    ["Model", "Params (M)", "Top-1 (%)"],
    ["CNN-based", None, None],
    ["ResNet-50", 25.6, 93.1],
    ["ResNet-101", 44.5, 93.9],
    ["Transformer-based", None, None],
    ["ViT-B/16", 86.6, 95.2],
    ["Swin-T †", 28.3, 95.0],
    [None],
    ["† Reproduced with the official code."],
    ["- : not reported."],
    ["Best results per column in bold in the paper."],
]


def test_notes_under_a_table_start_with_a_mark_and_a_property_is_not_counted(tmp_path):
    path = write_book(tmp_path / "models.xlsx", "Results", MODELS, bold=["A4", "A7"])
    assert "- : not reported." in notes_of(tmp_path, path)  # not a row under the last model
    params, models = ask_file(tmp_path, path, "What is the total number of parameters of the "
                              "CNN-based models?", "How many models are CNN-based?")
    assert params.answer is None  # the models' parameters, never 2 (a count of models)
    assert models.values == [2]


FINALS = ("Outcome,Year,Championship,Opponent\nRunner-up,2003,Wimbledon,Roger Federer\n"
          "Winner,2004,Australian Open,Marat Safin\nWinner,2006,Wimbledon,Rafael Nadal\n")

EPISODES = ("No.,Title,Written by\n14,The Tide Turns,Dana Calvo\n15,Undertow,Robert Hull\n"
            "16,Driftwood,Dana Calvo & Robert Hull\n17,Homecoming,Dana Calvo\n")


def test_a_loose_word_kin_to_a_cell_is_not_dropped_and_a_listed_name_counts(tmp_path):
    won, played = ask_csv(tmp_path, "finals.csv", FINALS, "what year did he first win wimbledon?",
                          "what year did he first play at wimbledon?")
    assert won.answer is None  # "win" is the Outcome "Winner": never 2003, a final he lost
    assert played.values == [2003]
    [written] = ask_csv(tmp_path, "episodes.csv", EPISODES,
                        "how many episodes were written by dana calvo?")
    assert written.values == [3]  # the co-written one too


ENROLMENT = [
    ["Enrollment by region, state and grade (in thousands)"],
    [None],
    ["Region / state", "Primary", None, "Total, all grades"],
    [None, "Grades 1-3", "Grades 4-6", None],
    ["Northeast", None, None, None],
    ["New York", 610.2, 598.0, 2450.1],
    ["Vermont", 18.9, 19.3, 80.2],
    ["Northeast total", 629.1, 617.3, 2530.3],
]


def test_a_column_the_question_names_beside_the_total_read_is_not_dropped(tmp_path):
    path = write_book(tmp_path / "enrolment.xlsx", "Enrolment", ENROLMENT,
                      merges=["A3:A4", "B3:C3", "D3:D4"], indents=["A6", "A7"])
    [grades] = ask_file(tmp_path, path, "What is the Northeast total for Grades 4-6?")
    assert grades.answer is None or grades.values == [617.3]  # never Total, all grades


def test_a_header_holding_a_data_row_written_like_its_column_is_found(tmp_path):
    films = ("Year,Film,Rotten Tomatoes,Metacritic,IMDb\n"
             "1982,Images of Liberation,N/A,N/A,5.1/10\n1984,The Element of Crime,77%,N/A,6.9/10\n"
             "1987,Epidemic,33%,66%,6.1/10\n1991,Europa,85%,66%,7.7/10\n"
             "1996,Breaking the Waves,86%,76%,7.9/10\n2000,Dancer in the Dark,68%,61%,8.0/10\n")
    before, listed = ask_csv(tmp_path, "films.csv", films,
                             "how many films were made before 2000?", "how many films are listed?")
    assert before.answer is None or before.values == [5]  # never 4 (the first film a header)
    assert listed.answer is None or listed.values == [6]  # never 5


PRESSURE = [
    ["Table 14.2.5  Proportion of patients achieving HbA1c <7.0%"],
    [None],
    ["Treatment arm", "Week 12", "Week 24"],
    ["Placebo", 18.2, 20.1],
    ["Zelvatinib 10 mg", 40.3, 45.5],
    [None],
    ["(b) Primary key secondary endpoint; p<0.001."],
    [None],
    ["Table 14.3.4  Mean systolic blood pressure by visit (mmHg)"],
    ["Treatment arm", "Baseline", "Week 24"],
    ["Placebo", 134.1, 132.8],
    ["Zelvatinib 10 mg", 135.0, 129.9],
]


def test_a_note_keeps_stacked_tables_apart_and_a_sibling_of_the_titles_measure_is_refused(
        tmp_path):
    path = write_book(tmp_path / "endpoints.xlsx", "Secondary", PRESSURE)
    diastolic, systolic = ask_file(tmp_path, path,
                                   "Diastolic blood pressure at week 24 in placebo",
                                   "Systolic blood pressure at week 24 in placebo")
    assert diastolic.answer is None  # never the systolic 132.8
    assert systolic.values == [132.8]
    charges = (",2018,2017\nRestructuring charges,-,752\nGoodwill impairment,9174,8418\n"
               "Total goodwill impairment and restructuring charges,9174,9170\n")
    [share] = ask_csv(tmp_path, "charges.csv", charges,
                      "What is the 2017 restructuring charges as a percentage of the 2017 total "
                      "goodwill impairment and restructuring charges?")
    assert share.answer == "8.2%"  # "... and restructuring charges" is one name, not a list
