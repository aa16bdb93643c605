"""Rules that new tables (QA rounds 37 and 38, issue 12) showed missing: a value said "only", a
past form that drops no suffix ("win" / "Won"), "still", "how many weeks" over a figure of
another unit, "how many claims" over amounts of money, a count on a table whose one column of
numbers is years, experiment bands in the first label column, a category band of a Markdown
table, a frequency given as minutes between buses, rows ranked by the names the question
said them by, "risk grade A", a share of two grades said together, a total row
labelled "aggregates", distances from one point added up, and the table's own subject read
as a cell. Each refusal is one where the rules had given a wrong number."""

from __future__ import annotations

from agent.frame import load_frames
from agent.grounding import naming_path
from storage.workspace import Workspace
from tests.test_agent_ops import write_book
from tests.test_precision_rules import ask_csv, ask_file

PEAKS = """Rank,Name,Height (m),Country
1,Kolto Peak,8120,India
2,Barun Sar,7990,India / Pakistan
3,Mera Kangri,7870,Pakistan
4,Tasgar,7805,India
5,Shimla Tower,7760,India / China
6,Rakhi Peak,7710,Pakistan
"""

AWARDS = """Year,Award,Category,Nominee,Result
2019,Sydney Film Festival,Best Film,Bong Joon-ho,Won
2020,Blue Dragon Film Awards,Best Film,Bong Joon-ho,Won
2020,Blue Dragon Film Awards,Best Actress,Cho Yeo-jeong,Nominated
2020,Blue Dragon Film Awards,Best Supporting Actress,Lee Jung-eun,Won
2020,Golden Globe Awards,Best Director,Bong Joon-ho,Nominated
"""

SINGLES = [
    ["Year", "Title", "Peak chart positions", None, "Album"],
    [None, None, "UK", "US", None],
    [2016, "Glass Houses", 2, 14, "Undertow"],
    [2017, "Northern Lights", 5, 22, "Undertow"],
    [2018, "Paper Crowns", 11, 40, "Tidal"],
]

CLAIMS = """Line of business,Claims closed with payment,Paid claims (USD thousands)
Homeowners,13096,130861
Motor,40211,402330
Marine,812,29410
"""

STATIONS = """Station,Distance from Glasgow Queen Street (km),Opened,Closed
Glasgow Queen Street,0.0,1842,—
Falkirk High,36.6,1842,—
Linlithgow,51.0,1842,—
Edinburgh Park,66.3,2003,—
Edinburgh Waverley,72.0,1846,—
"""

STORMS = [
    ["2018 Atlantic hurricane season"],
    ["Storm name", "Max wind (mph)", "Deaths", "Damage (USD m)"],
    ["Alberto", 65, 18, 125],
    ["Beryl", 80, 0, 1],
    ["Chris", 105, 1, 0],
    ["Florence", 150, 57, 24230],
    ["Michael", 160, 74, 25100],
    ["Season aggregates", 160, 150, 49456],
]

ACCOLADES = [
    ["Parasite (2019 film) - Accolades"],
    ["Year", "Award", "Category", "Recipient", "Result"],
    [2019, "Cannes Film Festival", "Palme d'Or", "Bong Joon-ho", "Won"],
    [2019, "Los Angeles Film Critics Association", "Best Film", "Parasite", "Won"],
    [2019, "Los Angeles Film Critics Association", "Best Director", "Bong Joon-ho", "Won"],
    [2020, "Golden Globe Awards", "Best Foreign Language Film", "Parasite", "Won"],
    [2020, "Golden Globe Awards", "Best Director", "Bong Joon-ho", "Nominated"],
    [2020, "Academy Awards", "Best Picture", "Parasite", "Won"],
    [2020, "Academy Awards", "Best Director", "Bong Joon-ho", "Won"],
]


def test_a_value_said_only_counts_the_cells_holding_it_alone(tmp_path):
    alone, shared = ask_csv(tmp_path, "peaks.csv", PEAKS, "How many peaks are in India only?",
                            "How many peaks are in India?")
    assert alone.answer == "2"  # not the peaks India shares with Pakistan or China
    assert shared.answer == "4"  # the cells listing India among others hold it too


def test_a_past_form_without_a_suffix_meets_its_verb(tmp_path):
    [won] = ask_csv(tmp_path, "awards.csv", AWARDS,
                    "Which categories did it win at the Blue Dragon Film Awards?")
    assert won.answer == "Best Film, Best Supporting Actress"  # not the nomination too


def test_how_many_weeks_needs_a_figure_in_weeks(tmp_path):
    path = write_book(tmp_path / "singles.xlsx", "Singles", SINGLES,
                      merges=["A1:A2", "B1:B2", "C1:D1", "E1:E2"])
    weeks, peak = ask_file(tmp_path, path,
                           "How many weeks did Glass Houses spend on the UK chart?",
                           "What was the UK peak of Glass Houses?")
    assert weeks.answer is None  # the UK column is a chart position, not weeks
    assert peak.answer == "2"


def test_how_many_claims_is_no_amount_of_money(tmp_path):
    count, paid = ask_csv(tmp_path, "claims.csv", CLAIMS,
                          "How many claims were paid for Homeowners?",
                          "How much was paid in claims for Homeowners?")
    assert count.answer is None  # not the 130,861 thousand USD paid
    assert "amounts of money" in count.error.message
    assert paid.values == [130861]


def test_still_is_a_condition_and_distances_from_one_point_are_not_added(tmp_path):
    still, between = ask_csv(tmp_path, "stations.csv", STATIONS,
                             "How many stations are still open?",
                             "How many km between Edinburgh Park and Edinburgh Waverley?")
    assert still.answer is None  # "still" is a condition the rows' years do not apply
    assert between.answer is None  # not 66.3 + 72.0
    assert "do not add up" in between.error.message


def test_a_row_labelled_aggregates_is_the_total_not_a_storm(tmp_path):
    path = write_book(tmp_path / "storms.xlsx", "Season", STORMS)
    count, total, mean = ask_file(tmp_path, path, "How many storms had max wind above 100 mph?",
                                  "What was the total damage (USD m)?",
                                  "What is the average number of deaths per storm?")
    assert count.answer == "3"
    assert total.values == [49456]  # not twice the season's damage
    assert mean.values == [30]  # (18 + 0 + 1 + 57 + 74) / 5


def test_the_tables_own_subject_is_no_condition_on_a_column(tmp_path):
    path = write_book(tmp_path / "accolades.xlsx", "Accolades", ACCOLADES)
    wins, director = ask_file(tmp_path, path, "How many awards did Parasite win?",
                              "How many awards did Bong Joon-ho win?")
    assert wins.answer is None  # not the wins whose Recipient cell says "Parasite"
    assert director.answer == "3"


ASSAY = [
    ["Gene", "Sample", "Day 1", None, "Day 3", None],
    [None, None, "Rep 1", "Rep 2", "Rep 1", "Rep 2"],
    ["Experiment 1"],
    ["CD40", "Set A", 28.34, 27.07, 24.90, 28.69],
    [None, "Set B", 28.15, 25.52, 26.10, 26.48],
    ["IL6", "Set A", 28.34, 27.57, 33.26, 27.65],
    [None, "Set B", 32.86, 32.13, 30.01, 29.08],
    ["Experiment 2"],
    ["CD40", "Set A", 27.50, 26.91, 25.10, 24.83],
    [None, "Set B", 29.02, 26.40, 25.77, 24.11],
    ["IL6", "Set A", 30.12, 28.80, 31.05, 28.91],
    [None, "Set B", 31.40, 30.90, 29.95, 30.02],
]


def test_a_band_in_the_first_label_column_heads_the_rows_under_it(tmp_path):
    path = write_book(tmp_path / "assay.xlsx", "Ct", ASSAY,
                      merges=["A1:A2", "B1:B2", "C1:D1", "E1:F1", "A4:A5", "A6:A7", "A9:A10",
                              "A11:A12"])
    ws = Workspace(tmp_path / "structure")
    try:
        ws.add_file(path)
        [frame] = load_frames(ws)
        assert ("Experiment 2", "CD40", "Set B") in set(frame.row_paths.values())
        assert len(frame.row_paths) == 8  # the band rows are no rows of their own
    finally:
        ws.close()
    first, second = ask_file(
        tmp_path, path, 'What is the Ct value of CD40 for "Set B" on Day 3, Rep 2, in '
                        "Experiment 1?",
        "What is the Day 3 Rep 2 value of IL6 Set A in Experiment 2?")
    assert first.values == [26.48]  # not the two experiments' cells added up
    assert second.values == [28.91]


def test_a_count_is_never_compared_with_a_column_of_years(tmp_path):
    [wins] = ask_csv(tmp_path, "awards.csv", AWARDS, "Where there at least 3 wins?")  # sic
    assert wins.answer is None  # "at least 3" is no condition on Year


ROUTES = """Route,Origin,Destination,Frequency (mins)
1,Harbourside,Northgate,10
7,Harbourside,Airport,30
X21,Northgate,Castle Hill,120
"""

PAYROLL = """Employee ID,Employee Name,Department,Taxable Benefits
E1040,"Baby, John",Finance,312.40
E1047,"Bertrand, Jesse",Operations,187.95
E1054,"Okafor, Adaeze",Sales,254.45
"""

STORES = """# Stores inventory

| Category | Item code | Description | Qty on hand |
|---|---|---:|---:|
| **ADHESIVES** | | | |
| | ADH-101 | Epoxy resin | 84 |
| | ADH-114 | Cyanoacrylate gel | 210 |
| **FASTENERS** | | | |
| | FST-201 | Hex bolt M8 | 145 |
| | FST-205 | Nyloc nut M8 | 98 |
| | FST-219 | Self-tapping screw | 42 |
"""

LOANS = [
    ["Gross loan balance by product and risk grade (USD m)"],
    ["Product", "Risk grade", None, None, None, "Total"],
    [None, "A (low)", "B", "D (watch)", "E (default)", None],
    ["SME term loans", 1364.4, 1245.4, 176.8, 80.2, 2866.8],
    ["Personal loans", 622.8, 545.6, 150.8, 31.9, 1351.1],
]


def test_a_frequency_in_minutes_between_buses_has_no_plain_highest(tmp_path):
    [highest] = ask_csv(tmp_path, "routes.csv", ROUTES, "which route has the highest frequency?")
    assert highest.answer is None  # not X21, the route with the longest wait
    assert "time between services" in highest.error.message


def test_rows_compared_by_name_are_answered_by_name(tmp_path):
    [who] = ask_csv(tmp_path, "payroll.csv", PAYROLL,
                    "Compare the taxable benefits of employees “Baby, John” and “Bertrand, "
                    "Jesse.” Who has a higher amount?")
    assert who.answer == "Baby, John"  # not the Employee ID E1040


def test_a_category_band_of_a_markdown_table_is_no_item(tmp_path):
    path = tmp_path / "stores.md"
    path.write_text(STORES, encoding="utf-8")
    count, total = ask_file(tmp_path, path, "How many items are listed under the FASTENERS "
                                            "category?",
                            "What is the total quantity on hand under ADHESIVES?")
    assert count.answer == "3"  # not the band row as a fourth item
    assert total.values == [294]


def test_a_grade_letter_reads_its_column_and_two_grades_make_no_ratio(tmp_path):
    path = write_book(tmp_path / "loans.xlsx", "Loans", LOANS,
                      merges=["A2:A3", "B2:E2", "F2:F3"])
    grade, share = ask_file(tmp_path, path,
                            "What is the gross loan balance of SME term loans in risk grade A?",
                            "What percentage of the Personal loans book is rated D or E?")
    assert grade.values == [1364.4]  # not the grades added up
    assert "low" not in grade.answer  # "(low)" describes the grade; it is no unit
    assert share.answer is None  # not E over D


def test_answer_instructions_in_any_common_form_are_format(tmp_path):
    answers = ask_csv(tmp_path, "payroll.csv", PAYROLL,
                      *(f"What is the total taxable benefits of the Finance department? ({said})"
                        for said in ("two decimals", "2 dp", "Final answer should be an integer")))
    assert [a.values for a in answers] == [[312.40]] * 3  # no words to find in the table


CAMERAS = """Model,Sensor,Weight (g),Launch price (USD)
Z8,Full frame,910,3999
EOS R50,APS-C,375,679
X-T5,APS-C,557,1699
"""

PEAKS_TWO_UNITS = """Name,Height (m),Height (ft)
K2,8611,28251
Broad Peak,8051,26414
"""


def test_a_superlative_of_a_dimension_ranks_by_the_column_named_by_it(tmp_path):
    lightest, heaviest, cheapest = ask_csv(tmp_path, "cameras.csv", CAMERAS,
                                           "Which camera is the lightest?",
                                           "Which camera is the heaviest?",
                                           "Which camera is the cheapest?")
    assert (lightest.answer, heaviest.answer, cheapest.answer) == ("EOS R50", "Z8", "EOS R50")
    [tallest] = ask_csv(tmp_path, "peaks2.csv", PEAKS_TWO_UNITS, "Which peak is the tallest?")
    assert tallest.answer is None  # two columns of heights: which one is not said


SEATS = [
    ["House of Commons seats won by party, 2019-2024"],
    [None],
    ["Party", "2019", "2024"],
    ["Conservative", 365, 121],
    ["Labour", 202, 411],
    ["Total", 567, 532],
    [None],
    [None],
    ["Nation", "Labour", "Conservative", "Total seats"],
    ["England", 347, 116, 463],
    ["Wales", 27, 0, 27],
]


def test_the_table_that_leaves_no_name_unexplained_is_read(tmp_path):
    path = write_book(tmp_path / "seats.xlsx", "Seats", SEATS)
    [wales] = ask_file(tmp_path, path, "How many seats did the Conservatives win in Wales?")
    assert wales.values == [0]  # the table of nations, not a refusal for "Wales"


def test_the_unit_asked_reads_its_column_of_a_group(tmp_path):
    path = write_book(tmp_path / "peaks.xlsx", "Peaks", [
        ["Name", "Height", None], [None, "m", "ft"],
        ["K2", 8611, 28251], ["Broad Peak", 8051, 26414]], merges=["A1:A2", "B1:C1"])
    metres, feet = ask_file(tmp_path, path, "What is the height of K2 in metres?",
                            "What is the height of K2 in feet?")
    assert (metres.values, feet.values) == ([8611], [28251])  # never the two added up


LAUNCHES = """Date (UTC),Rocket,Payload,Payload mass (kg),Outcome
2017-02-15,PSLV,Cartosat-2D,714,Success
2019-04-01,PSLV,EMISAT,436,Success
2022-02-14,PSLV,EOS-04,1710,Success
2022-10-23,LVM3,OneWeb India-1,5796,Success
"""


def test_the_noun_after_a_superlative_names_the_answer_column(tmp_path):
    [heaviest] = ask_csv(tmp_path, "launches.csv", LAUNCHES,
                         "What was the heaviest payload launched by PSLV?")
    assert heaviest.answer == "EOS-04"  # the payload, not its launch date


SURVEY = [
    ["Visitor satisfaction by segment, 2024 (mean rating out of 10)"],
    ["Attribute", "Leisure", "Family"],
    ["Destination attributes", None, None],
    ["Cleanliness", 7.0, 9.1],
    ["Friendliness of locals", 9.2, 9.3],
    ["Safety", 8.0, 9.2],
    ["Summary", None, None],
    ["Net promoter score (NPS, points)", 65, 32],
    ["Respondents (number)", 1151, 3709],
]


def test_a_ranking_never_takes_in_rows_of_another_measure(tmp_path):
    path = write_book(tmp_path / "survey.xlsx", "Survey", SURVEY)
    [highest] = ask_file(tmp_path, path, "Highest rated attribute for family visitors")
    assert highest.answer is None  # not "Respondents (number)", a count of people


EPISODES = """No. overall,No. in season,Title,Directed by
1,1,Pilot,Michael Cuesta
2,2,The Long Way Home,Lesli Linka Glatter
3,3,Crossing,Lesli Linka Glatter
4,1,New Blood,Lesli Linka Glatter
"""

GDP = [
    ["GDP by expenditure component (£ million), seasonally adjusted"],
    ["Component", "Q1 2023", "Q2 2023"],
    ["Household final consumption expenditure", 328100, 329341],
    ["Gross fixed capital formation", 97937, 98120],
    [None],
    [None],
    ["Not seasonally adjusted, 2023 (£ million)"],
    ["Component", "Q1 2023", "Q2 2023"],
    ["Household final consumption expenditure", 321004, 327320],
    ["Gross fixed capital formation", 96014, 99870],
]


def test_a_number_after_a_group_is_not_the_count_within_it(tmp_path):
    [season] = ask_csv(tmp_path, "episodes.csv", EPISODES,
                       "how many episodes did lesli linka glatter direct in season 1?")
    assert season.answer is None  # not her episodes numbered 1 within their season
    assert "No. in season" in season.error.message


def test_a_title_that_denies_what_the_question_says_loses_the_tie(tmp_path):
    path = write_book(tmp_path / "gdp.xlsx", "GDP", GDP)
    [adjusted] = ask_file(tmp_path, path, "What was seasonally adjusted household final "
                                          "consumption expenditure in Q2 2023?")
    assert adjusted.values == [329341]  # not the "Not seasonally adjusted" table's 327320


def test_a_column_without_a_header_still_has_a_last_level():
    assert naming_path(()) == ("",)  # a headerless table's aggregate once raised IndexError


STAGES = """# 2023 stage results

| Stage | Date | Course | Distance (km) |
|---|---|---|---:|
| 2 | 2 July | Vitoria-Gasteiz – San Sebastián | 209 |
| 9 | 9 July | Saint-Léonard-de-Noblat – Puy de Dôme | 182.5 |
| 18 | 20 July | Moûtiers – Bourg-en-Bresse | 184.9 |
| 20 | 22 July | Belfort – Le Markstein | 133.5 |
| 21 | 23 July | Saint-Quentin-en-Yvelines – Paris | 115.5 |
"""

SEGMENTS = [
    ["Segment", None, "Revenue (GBP m)"],
    ["Retail", "UK", 1921.4],
    [None, "Europe", 655.2],
    ["Digital", "UK", 452.7],
    [None, "Europe", 198.3],
    ["Inter-segment eliminations", None, -121.2],
]


def test_a_number_after_a_key_column_is_its_value_not_a_date(tmp_path):
    path = tmp_path / "stages.md"
    path.write_text(STAGES, encoding="utf-8")
    course, long = ask_file(tmp_path, path, "what was the course of stage 20?",
                            "how long was stage 9?")
    assert course.answer == "Belfort – Le Markstein"  # not stage 18, run on 20 July
    assert long.answer is None  # never the stage's own number, 9


def test_eliminations_are_no_segment_of_a_ranking(tmp_path):
    path = write_book(tmp_path / "segments.xlsx", "Segments", SEGMENTS, merges=["A2:A3", "A4:A5"])
    [lowest] = ask_file(tmp_path, path, "Which segment had the lowest total revenue?")
    assert lowest.answer == "Digital"  # not the negative eliminations line


BRIDGES = [
    ["List of longest bridges by main span, by structural type"],
    [None],
    ["Rank", "Name", "Main span", None, "Country"],
    [None, None, "(m)", "(ft)", None],
    ["Suspension bridges"],
    [1, "1915 Çanakkale Bridge", 2023, 6637, "Turkey"],
    [2, "Akashi Kaikyō Bridge", 1991, 6532, "Japan"],
    [3, "Tacoma Narrows Bridge", 853, 2799, "United States"],
    ["Cable-stayed bridges"],
    [1, "Changtai Yangtze River Bridge", 1176, 3858, "China"],
    [2, "Russky Bridge", 1104, 3622, "Russia"],
]


def test_a_superlative_of_a_dimension_never_reads_a_rank(tmp_path):
    path = write_book(tmp_path / "bridges.xlsx", "Bridges", BRIDGES,
                      merges=["A3:A4", "B3:B4", "C3:D3", "E3:E4"])
    [shortest] = ask_file(tmp_path, path, "what is the shortest suspension bridge on the list?")
    assert shortest.answer is None  # not "1", the lowest Rank: a rank is no length
