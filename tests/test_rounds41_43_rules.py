"""Rules that nine more rounds of new tables (QA rounds 41-43, issue 12) showed missing,
among them: a ranking by a rise said with one period, a national row adding up states beside a
yield column, a count keeping a total row among the rows of one measure, "In 2023/24, what was
the largest ...", a ratio added up, a header row of numbers under a merged header, a dotted
short form that is no short form ("Fed." for "finished"), a name also found in a column the
question does not name, a season band under the column names, a group average row, a cell
holding two figures, scales a title sentence states for some columns, "before" inside a row's
name, "FY2022" over columns headed "2022", a row's own total, a column group chosen for its
shorter name, a subtotal inside a label, one line of repeated blocks, kinds a title joins, and
a cell merged over rows. Each refusal is one where the rules had given a wrong number."""

from __future__ import annotations

from agent.frame import load_frames
from storage.workspace import Workspace
from tests.test_agent_ops import write_book
from tests.test_precision_rules import ask_csv, ask_file

BALANCES = [
    ["Balance sheet (USD thousands)"],
    ["Line", "2023", "2022"],
    ["Goodwill", 512400, 498650],
    ["Property and equipment, net", 318200, 289685],
    ["Intangible assets, net", 96300, 104100],
]

GROWTH = [
    ["Like-for-like sales growth by brand (% vs prior year)"],
    ["Brand", "Q1 2024", "Q2 2024"],
    ["Burger Yard", 2.1, 3.4],
    ["Noodle Bar Co.", 5.6, 1.2],
    ["Saffron House", 3.3, 2.8],
]


def test_a_rise_ranked_by_one_period_needs_the_period_it_rose_from(tmp_path):
    path = write_book(tmp_path / "balances.xlsx", "Balance sheet", BALANCES)
    [rise] = ask_file(tmp_path, path, "Which line increased the most in 2023?")
    assert rise.answer is None  # not Goodwill, the largest 2023 balance
    (tmp_path / "growth").mkdir()
    growth = write_book(tmp_path / "growth" / "growth.xlsx", "LFL", GROWTH)
    [stated] = ask_file(tmp_path / "growth", growth,
                        "Which brand had the highest LFL growth in Q1 2024?")
    assert stated.answer == "Noodle Bar Co."  # the table's figures are the growth itself


CROPS = [
    ["Area, yield and production by state, 2023/24"],
    ["State", "Crop", "Area ('000 ha)", "Yield (t/ha)", "Production ('000 t)"],
    ["New South Wales", "Wheat", 3420, 2.1, 7182],
    [None, "Barley", 880, 2.35, 2068],
    ["Victoria", "Wheat", 1480, 2.85, 4218],
    [None, "Barley", 1010, 2.95, 2980],
    ["Western Australia", "Wheat", 4800, 2.15, 10320],
    [None, "Barley", 1750, 2.7, 4725],
    ["Australia", None, 13340, 2.37, 31493],
]


def test_a_national_row_adding_up_the_states_is_no_state(tmp_path):
    path = write_book(tmp_path / "crops.xlsx", "Crops", CROPS, merges=["A3:A4", "A5:A6", "A7:A8"])
    largest, production = ask_file(tmp_path, path,
                                   "Which state had the largest total area?",
                                   "What was wheat production in Victoria?")
    assert largest.answer == "Western Australia"  # not "Australia", beside a Yield (t/ha)
    assert production.values == [4218]  # "production" names Production ('000 t)


HOUSING = """Region,Measure,Q1 2022,Q2 2022
North East,Starts,2030,2150
North East,Completions,1870,1830
North West,Starts,7220,6570
North West,Completions,6900,6400
London,Starts,6500,6100
London,Completions,6200,5900
Yorkshire,Starts,5100,5000
Yorkshire,Completions,4800,4700
England,Starts,20850,19820
England,Completions,19770,18830
"""


def test_a_count_leaves_out_the_total_of_the_measure_it_counts(tmp_path):
    [count] = ask_csv(tmp_path, "housing.csv", HOUSING,
                      "How many regions recorded more than 6000 starts in Q1 2022?")
    assert count.answer is None  # not 3: England adds up the regions' starts
    assert "England" in count.error.message


ENROLMENT = [
    ["Student enrolment by faculty and level of study"],
    ["Faculty", "Level", "Male (2023)", "Female (2023)"],
    ["Arts", "Undergraduate", 1412, 2331],
    [None, "Postgraduate", 139, 227],
    ["Engineering", "Undergraduate", 3103, 855],
    [None, "Postgraduate", 559, 161],
]


def test_a_leading_phrase_keeps_a_value_superlative(tmp_path):
    path = write_book(tmp_path / "enrolment.xlsx", "Enrolment", ENROLMENT,
                      merges=["A3:A4", "A5:A6"])
    [largest] = ask_file(tmp_path, path,
                         "In 2023, what was the largest number of male postgraduates?")
    assert largest.values == [559]  # the number, not the row's name


SOLVENCY = [
    ["Solvency and financial condition (GBP m)"],
    ["Item", "31 Dec 2022", "31 Dec 2023"],
    ["Eligible own funds", 2412.6, 2587.3],
    ["Solvency Capital Requirement", 1493.2, 1528.8],
    ["Solvency ratio (%)", 162, 169],
    ["Minimum Capital Requirement", 671.9, 688.0],
]


def test_a_ratio_is_no_sum_and_a_ratio_row_is_not_scaled(tmp_path):
    path = write_book(tmp_path / "solvency.xlsx", "SFCR", SOLVENCY)
    combined, ratio = ask_file(tmp_path, path, "What was the combined ratio at 31 Dec 2023?",
                               "What was the solvency ratio at 31 Dec 2023?")
    assert combined.answer is None  # not every row of the column added up
    assert ratio.answer == "169"  # not "169 million"


CROSSTABLE = [
    ["Final standings"],
    ["Rank", "Player", "Fed.", "Rating", "Results vs. opponent", None, None, "Points"],
    [None, None, None, None, "1", "2", "3", None],
    [1, "Fabiano Caruana", "USA", 2820, "×", "½", "1", "1½"],
    [2, "Magnus Carlsen", "NOR", 2862, "½", "×", "1", "1½"],
    [3, "Wesley So", "USA", 2772, "0", "0", "×", "0"],
]


def test_numbers_under_a_merged_header_are_column_names(tmp_path):
    path = write_book(tmp_path / "chess.xlsx", "Crosstable", CROSSTABLE,
                      merges=["A2:A3", "B2:B3", "C2:C3", "D2:D3", "E2:G2", "H2:H3"])
    ws = Workspace(tmp_path / "structure")
    try:
        ws.add_file(path)
        [frame] = load_frames(ws)
        assert len(frame.rows) == 3  # the row of opponents' numbers is a header
        assert "Results vs. opponent > 2" in {a.label for a in frame.attrs}
    finally:
        ws.close()
    [last] = ask_file(tmp_path, path, "Who finished last?")
    assert last.answer is None  # "Fed." is no short form of "finished": not "USA"


RACES = [
    ["Round", "Grand Prix", "Qualifying / race", None, "Winning driver"],
    [None, None, "Pole position", "Fastest lap", None],
    [1, "Australian", "Lewis Hamilton", "Jenson Button", "Lewis Hamilton"],
    [2, "Malaysian", "Lewis Hamilton", "Kimi Raikkonen", "Fernando Alonso"],
    [3, "Chinese", "Nico Rosberg", "Lewis Hamilton", "Nico Rosberg"],
    [4, "Bahrain", "Sebastian Vettel", "Mark Webber", "Sebastian Vettel"],
    [5, "Spanish", "Pastor Maldonado", "Kimi Raikkonen", "Pastor Maldonado"],
]


def test_a_name_counts_in_the_column_the_question_names(tmp_path):
    path = write_book(tmp_path / "races.xlsx", "Races", RACES,
                      merges=["A1:A2", "B1:B2", "C1:D1", "E1:E2"])
    [poles] = ask_file(tmp_path, path, "How many pole positions did Lewis Hamilton have?")
    assert poles.answer == "2"  # not 1: the race he took pole and also won


EPISODES = [
    ["Blackwater - episode ratings"],
    ["No. overall", "No. in season", "Title", "Directed by", "Rating/share", "Viewers (millions)"],
    ["Season 1 (2019)"],
    [1, 1, "Pilot", "Rachel Kim", "2.1/6", 7.42],
    [2, 2, "The Quiet Room", "Marcus Doyle", "1.8/5", 6.55],
    [3, 3, "Fault Lines", "Rachel Kim", "1.7/5", 6.31],
    [None, None, "Season 1 average", None, None, 6.76],
    ["Season 2 (2020)"],
    [4, 1, "Aftermath", "Rachel Kim", "1.7/5", 6.12],
    [5, 2, "Blind Spot", "Lila Hart", "1.3/4", 5.08],
    [None, None, "Season 2 average", None, None, 5.60],
]


def test_a_season_band_under_the_column_names_is_a_band(tmp_path):
    path = write_book(tmp_path / "episodes.xlsx", "Ratings", EPISODES,
                      merges=["A3:F3", "A8:F8"])
    ws = Workspace(tmp_path / "structure")
    try:
        ws.add_file(path)
        [frame] = load_frames(ws)
        assert "Viewers (millions)" in {a.label for a in frame.attrs}  # no band in the header
    finally:
        ws.close()
    episodes, most, season, director, share = ask_file(
        tmp_path, path, "How many episodes are there in total?",
        "Which episode had the most viewers?", "Which season had the most viewers?",
        'Who directed "Blind Spot"?', 'What was the share of "Blind Spot"?')
    assert episodes.answer == "5"  # not the two rows of season averages
    assert most.answer is None  # not a season band, added up
    assert season.answer is None  # not "1", the first episode of each season
    assert director.answer == "Lila Hart"  # "Directed by" needs no "by" said
    assert share.answer is None  # not "1.3/4", the rating and the share


OPTIONS = """<html><body><p>Options in thousands; aggregate intrinsic value in $ thousands.</p>
<table><tr><th>Year</th><th>Activity</th><th>Number of options</th><th>Exercise price ($)</th>
<th>Aggregate intrinsic value</th></tr>
<tr><td>2023</td><td>Granted</td><td>1,325</td><td>36.25</td><td></td></tr>
<tr><td>2023</td><td>Exercised</td><td>1,590</td><td>17.20</td><td></td></tr>
<tr><td>2023</td><td>Outstanding</td><td>7,455</td><td>26.83</td><td>188,388</td></tr>
</table></body></html>
"""


def test_sentences_that_each_state_a_scale_are_about_their_columns(tmp_path):
    path = tmp_path / "options.html"
    path.write_text(OPTIONS, encoding="utf-8")
    price, granted = ask_file(tmp_path, path, "What was the exercise price of options granted?",
                              "What was the number of options granted?")
    assert price.answer == "$36.25"  # not "$36.25 thousand"
    assert granted.answer == "1,325 thousand"


STATEMENT = [
    ["Consolidated statement of operations (USD thousands)"],
    ["Line", "2023", "2022", "% of 2023 total"],
    ["Revenue", 1842315, 1655020, 100],
    ["Operating income", 177270, 146949, 9.6],
    ["Income before income taxes", 158080, 121694, 8.6],
    ["Net income", 124830, 97984, 6.8],
]


def test_a_statement_read_as_its_readers_ask(tmp_path):
    path = write_book(tmp_path / "statement.xlsx", "Statement", STATEMENT)
    before, fiscal, share = ask_file(tmp_path, path, "Income before income taxes in 2022?",
                                     "What was operating income in FY2022?",
                                     "Average of the % of 2023 total column?")
    assert before.values == [121694]  # "before" is the row's word, no order
    assert fiscal.values == [146949]  # FY2022 is the column headed 2022
    assert share.answer == "31.25"  # a percent column takes no thousands


SCHOOLS = [
    ["Enrollment by grade (thousands)"],
    ["State", "Pre-K", "Grades 1-6", "Total, all grades"],
    ["Texas", 151.2, 2057.2, 2208.4],
    ["Florida", 61.9, 1082.6, 1144.5],
    ["Georgia", 33.9, 657.0, 690.9],
    ["All listed states", 247.0, 3796.8, 4043.8],
]


def test_a_rows_own_total_is_its_total_column(tmp_path):
    path = write_book(tmp_path / "schools.xlsx", "Enrollment", SCHOOLS)
    own, whole = ask_file(tmp_path, path,
                          "What share of Florida's total enrollment is in Pre-K (in percent)?",
                          "What share of total Pre-K enrollment is in Florida (in percent)?")
    assert own.answer == "5.41%"  # 61.9 / 1144.5, not over the listed states' Pre-K
    assert whole.answer == "25.06%"  # 61.9 / 247.0


MAYORS = [
    ["List of mayors"],
    ["No.", "Name", "Took office", "Party"],
    ["Borough (1889-1974)"],
    [1, "Henry Castleford", 1889, "Liberal"],
    [2, "Josiah Penhallow", 1893, "Conservative"],
    [3, "Arthur Wemyss", 1899, "Liberal"],
    [4, "Edith Marlowe", 1912, "Liberal"],
    ["City (1974-)"],
    [5, "Stephen Llewellyn", 1974, "Liberal"],
]


def test_a_band_labelling_every_row_is_no_repeated_name(tmp_path):
    path = write_book(tmp_path / "mayors.xlsx", "Mayors", MAYORS, merges=["A3:D3", "A8:D8"])
    [count] = ask_file(tmp_path, path, "How many liberal mayors were there before 1920?")
    assert count.answer == "3"


VOTES = [
    ["Constituency", "Party", "Votes", "%"],
    ["Workington", "Labour", 16312, 39.2],
    [None, "Conservative", 20488, 49.3],
    ["Grimsby", "Labour", 10819, 32.7],
    [None, "Conservative", 18150, 54.9],
]


def test_a_share_is_never_listed_from_the_votes(tmp_path):
    path = write_book(tmp_path / "votes.xlsx", "Results", VOTES, merges=["A2:A3", "A4:A5"])
    [shares] = ask_file(tmp_path, path,
                        "What was Labour's vote share in Workington and Grimsby respectively?")
    assert shares.answer is None  # not 16312, 10819


# --- round 42 ------------------------------------------------------------------------------------

BEDS = """<table>
<tr><th rowspan="2">Trust</th><th colspan="2">General &amp; acute</th>
<th colspan="2">Maternity</th></tr>
<tr><th>Available</th><th>Occupied</th><th>Available</th><th>Occupied</th></tr>
<tr><td>Leeds Teaching Hospitals</td><td>2234</td><td>2101</td><td>43</td><td>30</td></tr>
<tr><td>Guy's and St Thomas'</td><td>1987</td><td>1850</td><td>128</td><td>97</td></tr>
<tr><td>Sheffield Teaching Hospitals</td><td>1158</td><td>1090</td><td>77</td><td>52</td></tr>
</table>
"""


def test_a_column_group_unsaid_is_not_chosen_for_its_shorter_name(tmp_path):
    path = tmp_path / "beds.html"
    path.write_text(BEDS, encoding="utf-8")
    unsaid, said = ask_file(tmp_path, path, "Which trust has the most available beds?",
                            "Which trust has the most available maternity beds?")
    assert unsaid.answer is None  # not the maternity maximum, Guy's and St Thomas'
    assert said.answer == "Guy's and St Thomas'"


BUDGET = """Workstream,Budget (GBP k),Actual (GBP k),Variance (GBP k),Variance %
Platform Migration,345,357,-12,-3.5
Security Hardening,451,488,-37,-8.2
Data Warehouse,425,480,-55,-12.9
"""

RELEASES = """| Version | Release Date | Features Added | Bugs Fixed |
|---|---|---|---|
| 1.0.0 | 2021-09-01 | 12 | 0 |
| 1.2.0 | 2022-04-17 | 6 | 37 |
| 2.0.0 | 2023-01-10 | 15 | 21 |
"""


def test_an_amount_beside_its_percent_and_a_release_beside_its_date(tmp_path):
    variance, percent = ask_csv(tmp_path, "budget.csv", BUDGET,
                                "Variance for Security Hardening?",
                                "Variance % for Security Hardening?")
    assert variance.answer is None  # not Variance % (-8.2) for want of "%"
    assert "say which one" in variance.error.message
    assert percent.values == [-8.2]
    (tmp_path / "releases").mkdir()
    path = tmp_path / "releases" / "releases.md"
    path.write_text(RELEASES, encoding="utf-8")
    release, version = ask_file(tmp_path / "releases", path, "Which release fixed the most bugs?",
                                "Which version fixed the most bugs?")
    assert release.answer is None  # not its Release Date
    assert version.answer == "1.2.0"


PIPELINE = [
    ["Sales rep", "Region", "Deal value"],
    ["Isla Morgan", "North", 42000],
    ["Tom Reid", "North", 31500],
    ["Team subtotal - North", "North", 73500],
    ["Ana Silva", "South", 28000],
    ["Team subtotal - South", "South", 28000],
]


def test_a_subtotal_said_inside_a_label_is_no_rep(tmp_path):
    path = write_book(tmp_path / "pipeline.xlsx", "Pipeline", PIPELINE)
    [reps] = ask_file(tmp_path, path, "How many reps does the North region have?")
    assert reps.answer == "2"


RETAIL = [
    ["Retail sales index (2019=100)"],
    ["Sector", "Apr 2024", "May 2024"],
    ["Volume, seasonally adjusted"],
    ["Food stores", 97.1, 94.8],
    ["Total non-food stores", 94.4, 93.5],
    ["Fuel", 86.8, 85.3],
    ["Value, seasonally adjusted"],
    ["Food stores", 114.3, 116.5],
    ["Total non-food stores", 115.6, 119.3],
    ["Fuel", 101.6, 101.7],
]


def test_one_line_of_repeated_blocks_is_not_added_up(tmp_path):
    path = write_book(tmp_path / "retail.xlsx", "Index", RETAIL)
    [total] = ask_file(tmp_path, path, "SA index total non-food stores May 2024")
    assert total.answer is None  # not 93.5 + 119.3, one line of each block


SEASONS = """Season,Division,Position
2010–11,League One,2
2011–12,Championship,5
2012–13,Premier League,17
"""

STRUCTURES = [
    ["Tallest bridges and dams of Bristow"],
    ["Name", "Length (m)", "Height (m)", "Type"],
    ["Westgate Bridge", 1245, 62, "Cable-stayed"],
    ["Harrow Mill Dam", 410, 71, "Gravity dam"],
    ["Ferry Lane Bridge", 290, 35, "Arch"],
    ["Halden Dam", 520, 96, "Arch dam"],
]


def test_a_season_after_another_and_one_kind_of_a_list_of_two(tmp_path):
    [after] = ask_csv(tmp_path, "seasons.csv", SEASONS,
                      "Which division were they in the season after 2011–12?")
    assert after.answer != "Championship"  # not the 2011–12 season itself
    (tmp_path / "structures").mkdir()
    path = write_book(tmp_path / "structures" / "structures.xlsx", "Structures", STRUCTURES)
    dams, bridge, shortest = ask_file(tmp_path / "structures", path,
                                      "How many dams are in the list?",
                                      "Which bridge is the tallest?",
                                      "What is the shortest structure by length?")
    assert dams.answer is None  # not 4, every row
    assert bridge.answer is None  # not Halden Dam
    assert shortest.answer == "Ferry Lane Bridge"  # the structure, not its 290 m


FESTIVAL = """<table>
<tr><th>Year</th><th>Stage</th><th>Headliner</th><th>Attendance</th></tr>
<tr><td rowspan="2">2014</td><td>Main Stage</td><td>Elbow</td><td rowspan="2">72,000</td></tr>
<tr><td>Tent</td><td>Wolf Alice</td></tr>
<tr><td rowspan="2">2015</td><td>Main Stage</td><td>Blur</td><td rowspan="2">66,500</td></tr>
<tr><td>Tent</td><td>Slowdive</td></tr>
</table>
"""


def test_a_cell_merged_over_rows_is_not_added_once_per_row(tmp_path):
    path = tmp_path / "festival.html"
    path.write_text(FESTIVAL, encoding="utf-8")
    total, years = ask_file(tmp_path, path, "What is the total attendance across all years?",
                            "How many years had attendance above 70,000?")
    assert total.answer is None  # not 277,000: each year's one cell added per stage
    assert years.answer is None  # not 2, 2014's two stages


SEGMENT_PROFIT = [
    ["Income statement by segment (GBP m)"],
    ["Line", "Retail", "Wealth"],
    ["Total income", 7176, 1036],
    ["Operating costs", -3412, -598],
    ["Profit before tax", 3122, 426],
]


def test_after_is_no_word_of_a_row_saying_before(tmp_path):
    path = write_book(tmp_path / "segments.xlsx", "Segments", SEGMENT_PROFIT)
    after, before = ask_file(tmp_path, path, "What was Wealth profit after tax?",
                             "What was Wealth profit before tax?")
    assert after.answer is None  # not the profit before tax
    assert before.values == [426]


YIELDS = [
    ["Area and yield by state"],
    ["State", "Crop", "Area ('000 ha)", "Yield (t/ha)"],
    ["Victoria", "Wheat", 1480, 2.85],
    [None, "Barley", 1010, 2.95],
    [None, "Canola", 590, 1.70],
    ["Total Victoria", None, 3080, 2.66],
]


def test_a_mean_of_rates_beside_the_groups_own_rate_is_refused(tmp_path):
    path = write_book(tmp_path / "yields.xlsx", "Yields", YIELDS, merges=["A3:A5"])
    [mean] = ask_file(tmp_path, path, "What was the average yield for Victoria?")
    assert mean.answer is None  # not 2.5, the mean of the crops' yields beside 2.66


# --- round 43 ------------------------------------------------------------------------------------

REVENUE = [
    ["Revenue by region and product (USD thousands)"],
    ["Line", "2024", "2023"],
    ["Americas"],
    ["Hardware", 412300, 389150],
    ["Software", 288640, 241020],
    ["Total Americas", 700940, 630170],
    ["EMEA"],
    ["Hardware", 198450, 211300],
    ["Software", 132770, 118940],
    ["Total EMEA", 331220, 330240],
    ["Total revenue", 1032160, 960410],
]


def test_a_difference_leaves_no_named_row_out(tmp_path):
    path = write_book(tmp_path / "revenue.xlsx", "Revenue", REVENUE)
    [diff] = ask_file(tmp_path, path, "What is the difference between Americas total revenue "
                                      "and EMEA total revenue in 2024?")
    assert diff.answer is None  # not Total revenue minus Total EMEA


DEFERRED = [
    ["Deferred tax assets (USD thousands)"],
    ["Item", "2024", "2023"],
    ["Net operating loss carryforwards", 24860, 29410],
    ["Tax credit carryforwards", 11320, 9875],
    ["Accrued compensation", 18450, 16230],
    ["Operating lease liabilities", 21780, 22940],
    ["Gross deferred tax assets", 76410, 78455],
    ["Less: valuation allowance", -9870, -11240],
]


def test_the_highest_row_that_adds_up_the_rows_above_is_a_subtotal(tmp_path):
    path = write_book(tmp_path / "deferred.xlsx", "Taxes", DEFERRED)
    [largest] = ask_file(tmp_path, path, "Which deferred tax asset was the largest in 2024?")
    assert largest.answer is None  # not "Gross deferred tax assets"


PERFORMANCE = [
    ["Performance commitments: ODI payments in £m"],
    ["Measure", "Unit", "Target", "Actual", "ODI payment (£m)"],
    ["Water supply interruptions", "minutes", 6.5, 5.8, 0.42],
    ["Unplanned outage", "%", 2.34, 1.98, 0.33],
    ["Compliance Risk Index", "score", 2, 3.4, -0.76],
    ["Bathing water quality", "%", 92, 94, 0.27],
]


def test_a_title_scale_of_one_column_and_a_percent_that_picks_rows(tmp_path):
    path = write_book(tmp_path / "performance.xlsx", "PCs", PERFORMANCE)
    target, payment, in_percent = ask_file(
        tmp_path, path, "What was the target for water supply interruptions?",
        "What was the ODI payment for water supply interruptions?",
        "How many measures are reported in %?")
    assert target.answer == "6.5"  # not "6.5 million": minutes
    assert payment.answer == "£0.42 million"
    assert in_percent.answer is None  # not 4, every row


CI = """Flow,Citizenship,YE Jun 2023,YE Jun 2023 95% CI (±)
Immigration,EU,126,± 14
Immigration,Non-EU,968,± 41
"""

COUNCIL = [
    ["Ward", "Winning candidate", "Party", "Votes"],
    ["Abbey", "Sarah Whitfield", "Labour", 2145],
    ["Fairmead", "Helen Carver", "Green", 1875],
    ["Riverside", "Tom Ashby", "Green", 1502],
]


def test_an_asked_thing_no_column_holds_and_a_person_asked(tmp_path):
    [bound] = ask_csv(tmp_path, "ci.csv", CI,
                      "Lower bound of the 95% CI for non-EU immigration in YE Jun 2023?")
    assert bound.answer is None  # not "± 41"
    (tmp_path / "council").mkdir()
    path = write_book(tmp_path / "council" / "council.xlsx", "Results", COUNCIL)
    [councillor] = ask_file(tmp_path / "council", path,
                            "Which Green councillor received the most votes?")
    assert councillor.answer is None  # not the ward, Fairmead


GAMES = [
    ["Title", "Year", "Sales (millions)"],
    ["Main series"],
    ["Iron Meridian", 2009, 4.2],
    ["Iron Meridian II", 2011, 5.6],
    ["Remasters"],
    ["Iron Meridian Legacy Collection", 2019, 1.7],
    ["Total", None, 11.5],
]

TIMELINE = [
    ["Tournament", "2023", "2024", "W–L", "Win %"],
    ["Australian Open", "QF", "W", "33–10", 76.74],
    ["Wimbledon", "SF", "F", "30–8", 78.95],
]


def test_a_grand_total_under_the_last_band_and_wins_as_a_percent(tmp_path):
    path = write_book(tmp_path / "games.xlsx", "Releases", GAMES, merges=["A2:C2", "A5:C5"])
    [remasters] = ask_file(tmp_path, path, "What are the Sales (millions) of the Remasters?")
    assert remasters.answer is None  # not 11.5, every game's total
    (tmp_path / "timeline").mkdir()
    timeline = write_book(tmp_path / "timeline" / "timeline.xlsx", "Timeline", TIMELINE)
    [wins] = ask_file(tmp_path / "timeline", timeline,
                      "What is the difference between her wins at the Australian Open and "
                      "at Wimbledon?")
    assert wins.answer is None  # not a difference of the Win % figures
