"""How readers name a report's rows and columns in fewer words than its headers (issue 12's
false refusals on new tables): a fiscal year by its year, a group by its name without the noun
every group ends with, a change between fiscal years in time's order, a terse "Difference
between ...". Each answer is checked against the cells it must come from."""

from __future__ import annotations

import pytest

from tests.test_agent_ops import write_book
from tests.test_precision_rules import ask_csv, ask_file

HEADCOUNT = [
    ["Headcount by department, as at 31 March 2024"],
    [None],
    ["Department", "Starters", None, "Leavers", None],
    [None, "FY2023", "FY2024", "FY2023", "FY2024"],
    ["Finance", 9, 11, 7, 8],
    ["IT", 21, 18, 12, 15],
    ["Legal", 2, 1, 1, 2],
]

ARR = [
    ["Annual recurring revenue by segment and region (USD m)"],
    [None],
    ["Segment / Region", "FY2023", None, "FY2024", None],
    [None, "Q1", "Q2", "Q1", "Q2"],
    ["SMB", None, None, None, None],
    ["   North America", 6.3, 6.4, 7.0, 7.3],
    ["   EMEA", 3.5, 3.7, 3.9, 4.0],
    ["Enterprise", None, None, None, None],
    ["   North America", 30.1, 31.0, 33.2, 34.0],
    ["   EMEA", 18.2, 18.6, 19.5, 19.9],
]

PLANTS = [
    ["Production volumes by plant and product line (tonnes)"],
    [None],
    ["Plant / product line", "Jan", "Feb"],
    ["Leeds plant", None, None],
    ["   Bakery", 1635, 1645],
    ["   Snacks", 897, 840],
    ["Leeds subtotal", 2532, 2485],
    ["Hull plant", None, None],
    ["   Bakery", 1210, 1180],
    ["   Ready meals", 1349, 1402],
    ["Hull subtotal", 2559, 2582],
    ["Derby plant", None, None],
    ["   Bakery", 427, 431],
    ["Derby subtotal", 427, 431],
]


def test_a_change_between_fiscal_years_runs_from_the_older_to_the_newer(tmp_path):
    path = write_book(tmp_path / "headcount.xlsx", "Headcount", HEADCOUNT,
                      merges=["B3:C3", "D3:E3"])
    [change, terse] = ask_file(tmp_path, path,
                               "Percentage change in leavers for IT between FY2023 and FY2024",
                               "Difference between the FY2024 leavers of IT and Finance")
    assert change.values == [25.0]  # (15 - 12) / 12, never the fall from FY2024 to FY2023
    assert {e.ref for e in change.evidence} == {"D6", "E6"}
    assert terse.values == [7]  # 15 - 8, asked without "What is the"
    assert {e.ref for e in terse.evidence} == {"E5", "E6"}


def test_a_year_names_the_fiscal_year_over_its_quarters(tmp_path):
    path = write_book(tmp_path / "arr.xlsx", "ARR", ARR, merges=["B3:C3", "D3:E3"])
    [q2, q1] = ask_file(tmp_path, path, "What was Enterprise ARR in EMEA in Q2 2024?",
                        "SMB North America ARR Q1 2023")
    assert q2.values == [19.9] and [e.ref for e in q2.evidence] == ["E10"]
    assert q1.values == [6.3] and [e.ref for e in q1.evidence] == ["B6"]


def test_a_group_is_named_without_the_noun_all_groups_end_with(tmp_path):
    path = write_book(tmp_path / "production.xlsx", "Production", PLANTS)
    [meals, bakery, subtotal] = ask_file(tmp_path, path, "Ready meals output at Hull in Feb?",
                                         "Bakery output at Derby in Jan?",
                                         "What was the Hull subtotal in Jan?")
    assert meals.values == [1402] and [e.ref for e in meals.evidence] == ["C10"]
    assert bakery.values == [427] and [e.ref for e in bakery.evidence] == ["B13"]
    # The subtotal row keeps its own name: "subtotal" is not the groups' noun.
    assert subtotal.values == [2559] and [e.ref for e in subtotal.evidence] == ["B11"]


SHARES = [
    ["Headcount and leavers by department"],
    [None],
    ["Department", "Headcount", "Leavers"],
    ["Corporate", None, None],
    ["   Finance", 89, 8],
    ["   IT", 119, 15],
    ["Corporate subtotal", 208, 23],
    ["Operations", None, None],
    ["   Manufacturing", 426, 66],
    ["   Logistics", 198, 31],
    ["Operations subtotal", 624, 97],
    ["Total company", 832, 120],
]


def test_a_share_of_the_total_is_over_the_row_that_adds_up_beside_subtotals(tmp_path):
    path = write_book(tmp_path / "shares.xlsx", "Shares", SHARES)
    [headcount, leavers] = ask_file(
        tmp_path, path, "What share of total headcount is in Manufacturing (%)?",
        "What percentage of total leavers were in IT?")
    assert headcount.values == [pytest.approx(100 * 426 / 832, abs=1e-3)]
    assert {e.ref for e in headcount.evidence} == {"B9", "B12"}  # never a subtotal's B11
    # "total leavers" is the leavers' total row, not the Headcount column beside them.
    assert leavers.values == [pytest.approx(100 * 15 / 120, abs=1e-3)]
    assert {e.ref for e in leavers.evidence} == {"C6", "C12"}


def test_a_claim_compares_one_rows_cells_in_the_two_columns_it_names(tmp_path):
    costs = ("Cost category,Q1 2024 (USD m),Q2 2024 (USD m),Share of FY 2024 COGS (%)\n"
             "Direct materials,1402.5,1388.0,61.2\nWarranty provisions,95.5,113.4,4.6\n")
    higher, lower, backwards = ask_csv(
        tmp_path, "cogs.csv", costs,
        "Were warranty provisions higher in Q2 2024 than in Q1 2024?",
        "Were warranty provisions lower in Q2 2024 than in Q1 2024?",
        "Were direct materials higher in Q1 2024 than in Q2 2024?")
    assert higher.values == ["Yes"] and {e.ref for e in higher.evidence} == {"B3", "C3"}
    assert lower.values == ["No"]
    assert backwards.values == ["Yes"] and {e.ref for e in backwards.evidence} == {"B2", "C2"}
    # A column of amounts against a column of percentages is no comparison.
    [mixed] = ask_csv(tmp_path, "cogs2.csv", costs,
                      "Were warranty provisions higher in Q2 2024 than the share of FY 2024 COGS?")
    assert mixed.answer is None or mixed.confidence_label != "high"


GRANTS = [
    ["External research grant income received by quarter (AUD m)"],
    ["Department", "2022", None, None, None, None, "2023", None, None, None, None],
    [None, "Q1", "Q2", "Q3", "Q4", "FY total", "Q1", "Q2", "Q3", "Q4", "FY total"],
    ["Physics", 1.13, 0.81, 0.81, 0.91, 3.66, 1.22, 1.05, 0.98, 1.16, 4.41],
    ["Economics", 0.49, 0.44, 0.59, 0.56, 2.08, 0.42, 0.52, 0.51, 0.61, 2.06],
]

PUNCTUALITY = [
    ["On-time performance by operator and quarter"],
    ["Share of services arriving within 5 minutes of schedule, %"],
    ["Operator", "2024", None, None, None],
    [None, "Q1", "Q2", "Q3", "Q4"],
    ["CityRail", 90.1, 92.9, 93.4, 89.7],
    ["MetroLink", 88.3, 89.5, 90.2, 87.0],
]


def test_a_year_of_quarters_is_averaged_over_its_quarters_and_totalled_by_its_total(tmp_path):
    path = write_book(tmp_path / "grants.xlsx", "Grants", GRANTS, merges=["B2:F2", "G2:K2"])
    [average, total] = ask_file(tmp_path, path,
                                "Average quarterly grant income for Economics in 2023?",
                                "Total grant income for Economics in 2023?")
    assert average.values == [pytest.approx((0.42 + 0.52 + 0.51 + 0.61) / 4)]
    assert {e.ref for e in average.evidence} == {"G5", "H5", "I5", "J5"}  # never K5's total
    assert total.values == [2.06] and [e.ref for e in total.evidence] == ["K5"]


def test_a_rows_percentages_over_quarters_are_averaged_never_added(tmp_path):
    path = write_book(tmp_path / "punctuality.xlsx", "Punctuality", PUNCTUALITY,
                      merges=["B3:E3"])
    [average, total] = ask_file(tmp_path, path,
                                "What was the average punctuality of MetroLink in 2024?",
                                "Total punctuality of MetroLink in 2024?")
    assert average.values == [pytest.approx((88.3 + 89.5 + 90.2 + 87.0) / 4)]
    assert total.answer is None  # the note says the figures are percentages: 355 is no total


def test_a_span_of_years_takes_every_year_between_its_ends(tmp_path):
    area = ("Crop,2018,2019,2020,2021,2022,2023,Change 2018-2023 (%)\n"
            "Maize,1098.2,1130.5,1175.9,1160.4,1202.8,1245.3,13.4\n"
            "Rice,2105.3,2120.8,2098.4,2150.2,2175.6,2160.1,2.6\n")
    over, between, pair = ask_csv(tmp_path, "area.csv", area,
                                  "Average maize area over 2018-2023?",
                                  "Total maize area from 2019 to 2021?",
                                  "Total maize area in 2019 and 2021?")
    assert over.values == [pytest.approx(sum([1098.2, 1130.5, 1175.9, 1160.4, 1202.8,
                                              1245.3]) / 6)]
    assert {e.ref for e in over.evidence} == {"B2", "C2", "D2", "E2", "F2", "G2"}
    assert between.values == [pytest.approx(1130.5 + 1175.9 + 1160.4)]
    assert {e.ref for e in between.evidence} == {"C2", "D2", "E2"}
    assert pair.values == [pytest.approx(1130.5 + 1160.4)]  # two years named: those two
    # A provisional year is that year; a column of another measure is not in the span.
    homes = ("Type,Starts 2021,Completions 2021,Starts 2022,Completions 2022,"
             "Starts 2023 (p),Completions 2023 (p)\nBungalows,4210,4380,4020,4650,3890,4920\n")
    [completions] = ask_csv(tmp_path, "homes.csv", homes,
                            "Total bungalow completions over 2021-2023?")
    assert completions.values == [4380 + 4650 + 4920]
    assert {e.ref for e in completions.evidence} == {"C2", "E2", "G2"}


def test_which_row_rose_or_fell_the_most_between_two_columns(tmp_path):
    waits = ("Specialty,Median wait 2023 (weeks),Median wait 2024 (weeks),Referrals 2024\n"
             "Cardiology,11.2,12.6,9105\nDermatology,14.8,17.3,12890\nENT,13.5,13.1,9575\n"
             "Urology,12.0,12.2,7000\n")
    rise, fall, percent, smallest = ask_csv(
        tmp_path, "waits.csv", waits,
        "Which specialty had the biggest rise in median wait between 2023 and 2024?",
        "Which specialty saw the largest drop in median wait from 2023 to 2024?",
        "Which specialty had the largest percentage increase in median wait from 2023 to 2024?",
        "Which specialty had the smallest increase in median wait from 2023 to 2024?")
    assert rise.values == ["Dermatology"]                 # +2.5 weeks
    assert {e.ref for e in rise.evidence} == {"A3", "B3", "C3"}
    assert fall.values == ["ENT"]                         # the only fall, -0.4
    assert percent.values == ["Dermatology"]              # +16.9%, Cardiology +12.5%
    assert smallest.answer is None  # the least rise, or the largest fall? not said
    gap = waits.replace("ENT,13.5,13.1", "ENT,n/a,13.1")
    [unknown] = ask_csv(tmp_path, "waits2.csv", gap,
                        "Which specialty had the biggest rise in median wait between 2023 and "
                        "2024?")
    assert unknown.answer is None  # ENT's change is unknown: it might be the largest


SUBSCRIBERS = [
    ["Mobile customers by market and contract type ('000)"],
    [None],
    ["Market", "Contract type", "2023", None, "2024", None],
    [None, None, "Q3", "Q4", "Q3", "Q4"],
    ["Europe", None, None, None, None, None],
    ["Germany", "  Prepaid", 8300, 8271, 8319, 8518],
    [None, "  Postpaid", 23466, 23442, 24206, 24249],
    ["Germany total", None, 31766, 31713, 32525, 32767],
    ["Spain", "  Prepaid", 2691, 2693, 2733, 2794],
    [None, "  Postpaid", 9225, 9212, 9122, 9225],
    ["Spain total", None, 11916, 11905, 11855, 12019],
]


def test_a_label_written_once_for_its_rows_names_each_of_them(tmp_path):
    path = write_book(tmp_path / "subscribers.xlsx", "Subscribers", SUBSCRIBERS,
                      merges=["C3:D3", "E3:F3", "A3:A4", "B3:B4"])
    [postpaid, change] = ask_file(
        tmp_path, path, "How many postpaid customers did Germany have in Q4 2024?",
        "By how much did Spain postpaid customers change from Q4 2023 to Q4 2024?")
    assert postpaid.values == [24249] and [e.ref for e in postpaid.evidence] == ["F7"]
    assert change.values == [13] and {e.ref for e in change.evidence} == {"D10", "F10"}


def test_a_difference_never_drops_a_value_its_row_lacks(tmp_path):
    markets = ("Market,Contract type,2023,2024\nGermany,Prepaid,8271,8518\n"
               "Austria,Postpaid,23442,24249\n")
    [change] = ask_csv(tmp_path, "markets.csv", markets,
                       "By how much did Germany postpaid customers change from 2023 to 2024?")
    assert change.answer is None  # never 247, Germany's prepaid customers


def test_a_largest_change_keeps_to_the_named_group_and_minds_a_stated_change(tmp_path):
    cases = [["Disease", "2023", "2024"], ["Respiratory", None, None],
             ["  Influenza", 1905, 2390], ["  RSV", 847, 996],
             ["Vaccine-preventable", None, None], ["  Measles", 6, 26], ["  Pertussis", 65, 198]]
    path = write_book(tmp_path / "cases.xlsx", "Cases", cases)
    [grouped] = ask_file(tmp_path, path, "Which vaccine-preventable disease had the largest "
                                         "increase in cases between 2023 and 2024?")
    assert grouped.values == ["Pertussis"]  # +133; never Influenza (+485), of another group
    ports = ("Port,FY 2023,FY 2024,Change (%)\nBusan,22463,21784,-3.0\n"
             "Rotterdam,13163,12589,-4.4\nHamburg,7683,8408,9.4\n")
    amount, percent = ask_csv(
        tmp_path, "ports.csv", ports,
        "Which port had the biggest decline in throughput between FY 2023 and FY 2024?",
        "Which port had the biggest percentage decline in throughput from FY 2023 to FY 2024?")
    assert amount.answer is None  # Busan by amount, Rotterdam by the stated Change (%)
    assert percent.values == ["Rotterdam"]


def test_a_subtotal_under_coded_rows_keeps_its_own_name(tmp_path):
    # The codes name the rows; the subtotal has no code and is no member of the row above.
    budget = [["Dept Code", "Department", "Actual (USD k)"], ["PUBLIC WORKS", None, None],
              ["PW-20", "  Streets", 39265], ["PW-21", "  Solid Waste", 28910],
              [None, "Subtotal Public Works", 68175]]
    path = write_book(tmp_path / "budget.xlsx", "Budget", budget)
    [works] = ask_file(tmp_path, path, "What was the actual of Public Works?")
    assert works.values == [68175]


def test_network_generations_are_labels_and_counts_of_figures_are_refused(tmp_path):
    sites = ("Market,Technology,Sites FY2024\nGermany,4G,28590\nGermany,5G,21706\n"
             "Spain,4G,16204\nSpain,5G,14234\n")
    [germany, most] = ask_csv(tmp_path, "network.csv", sites,
                              "How many 5G sites did Germany have in FY2024?",
                              "Which market had the most 5G sites in FY2024?")
    assert germany.values == [21706]  # "5G" is a Technology, not 5 grams
    assert most.values == ["Germany"]
    claims = ("Line of business,Year,Claims paid (GBP m),Loss ratio (%)\n"
              "Motor,2023,1398.2,75.0\nPet,2023,180.5,66.1\nPet,2024,190.2,64.0\n")
    [count] = ask_csv(tmp_path, "claims.csv", claims, "How many claims did Pet have in 2024?")
    assert count.answer is None  # never 1, the number of matching rows


def test_a_unit_after_the_question_names_no_row(tmp_path):
    arr = [["Annual recurring revenue by segment (USD m)"], [None],
           ["Segment", "FY2023", "FY2024"], ["SMB", 20.1, 24.3], ["Total ARR", 80.0, 96.2],
           [None], ["Monthly Recurring Revenue (USD m)", None, None], ["SMB", 1.7, 2.0]]
    path = write_book(tmp_path / "arr.xlsx", "ARR", arr)
    [growth] = ask_file(tmp_path, path, "By how much did total ARR grow from FY2023 to FY2024 "
                                        "(USD m)?")
    assert growth.values == [pytest.approx(16.2)]


def test_a_largest_change_is_not_named_by_a_label_several_rows_share(tmp_path):
    plots = ("Forest type,Fire,Cover 2012 (%),Cover 2014 (%)\nPonderosa pine,Burn,10.1,22.4\n"
             "Ponderosa pine,Control,12.0,12.9\nMixed conifer,Burn,8.2,25.0\n"
             "Mixed conifer,Control,9.9,10.4\n")
    [which] = ask_csv(tmp_path, "plots.csv", plots, "Which forest type had the largest "
                                                    "increase in cover from 2012 to 2014?")
    assert which.answer is None  # a type names two plots: which one rose most is not it


def test_a_code_column_is_read_for_a_named_row_and_a_capitals_header_is_named(tmp_path):
    stores = ("Store code,Store,Region,Sales FY2024 (GBP k)\nBW418,Leeds Briggate,North,9904\n"
              "BW891,Kingston Bentall,London,12010\n")
    [code] = ask_csv(tmp_path, "stores.csv", stores, "What is the store code of Kingston Bentall?")
    assert code.values == ["BW891"] and [e.ref for e in code.evidence] == ["A3"]
    overtime = ("Year,Month,Logistics (hrs),IT (hrs),Total (hrs)\n2023,Jun,1290,230,1520\n"
                "2023,Jul,1339,246,1585\n")
    [it] = ask_csv(tmp_path, "overtime.csv", overtime, "IT overtime in July 2023")
    assert it.values == [246] and [e.ref for e in it.evidence] == ["D3"]


def test_held_out_round_traps(tmp_path):
    """Traps from new QA rounds: a weighted summary row, a status "Over budget" beside a
    Budget column, a number no cell reads, a qualifier another label names, a dash the notes
    call nothing, a month named beside a column of no period."""
    connections = ("Region,Connections (000s)\nNorth,610\nCentral,980\nSouth,720\nWest,600\n"
                   "Company (weighted),2910\n")
    total, most = ask_csv(tmp_path, "connections.csv", connections,
                          "Total connections across all regions",
                          "Which region has the most connections?")
    assert total.values == [2910] and most.values == ["Central"]
    schemes = ("Scheme,Budget (GBP m),Status\nKielder,45.0,On track\nKnostrop,52.5,Over budget\n"
               "Leeds ring,41.0,On track\nSelby,12.0,Over budget\n")
    above, unread = ask_csv(tmp_path, "schemes.csv", schemes,
                            "How many schemes have a budget above 40?",
                            "How many schemes have a budget over GBP 30m?")
    assert above.values == [3]        # never the "Over budget" rows alone
    assert unread.answer is None      # "30m" is read by nothing
    co2 = ("Segment,2022,2024\nB - Small,118.7,109.8\nJ - SUV (small),127.9,117.6\n"
           "D - Large,160.2,151.0\n")
    [small] = ask_csv(tmp_path, "co2.csv", co2, "CO2 of small in 2024")
    assert small.answer is None or small.values == [109.8]  # never the small SUV's 117.6
    spend = [["Programme expenditure by country (GBP 000)"], ["Country", "Education", "Health"],
             ["India", 5200, 3100], ["Nepal", "-", 900], ["Bangladesh", 8041, 2200], [None],
             ['"-" = no programme activity in the year.']]
    path = write_book(tmp_path / "spend.xlsx", "Spend", spend)
    [average] = ask_file(tmp_path, path, "Average Education spending per country")
    assert average.answer is None  # never 6620.5, Nepal's nothing left out
    shares = [["Registrations by brand, 2024"], ["Brand", "Mar", "Apr", "Market share (%)"],
              ["Tesla", 3120, 2980, 3.8], ["Kia", 8800, 9410, 6.1]]
    path = write_book(tmp_path / "brands.xlsx", "Brands", shares)
    [march] = ask_file(tmp_path, path, "What is the market share of Tesla in March?")
    assert march.answer is None  # the share is the year's, not March's


def test_did_it_rise_compares_the_newer_column_with_the_older(tmp_path):
    page = ("<table><tr><th rowspan='2'>Channel</th><th colspan='2'>FY2023</th>"
            "<th colspan='2'>FY2024</th></tr><tr><th>Spend (USD k)</th><th>CAC (USD)</th>"
            "<th>Spend (USD k)</th><th>CAC (USD)</th></tr>"
            "<tr><td>Paid search</td><td>1240</td><td>19077</td><td>886</td><td>8438</td></tr>"
            "<tr><td>Customer referral</td><td>223</td><td>595</td><td>244</td><td>753</td></tr>"
            "</table>")
    path = tmp_path / "cac.html"
    path.write_text(page, encoding="utf-8")
    rise, fall, backwards, read = ask_file(
        tmp_path, path, "Did customer referral CAC increase from FY2023 to FY2024?",
        "Did paid search CAC fall from FY2023 to FY2024?",
        "Did paid search CAC increase from FY2023 to FY2024?",
        "What was the CAC of customer referral in FY2024?")
    assert rise.values == ["Yes"] and {e.ref for e in rise.evidence} == {"C4", "E4"}
    assert fall.values == ["Yes"] and backwards.values == ["No"]
    assert read.values == [753]  # "CAC" names "CAC (USD)" under each year


def test_a_sheet_note_and_a_last_row_that_adds_up_are_about_what_they_name(tmp_path):
    headcount = [["Headcount and agency usage by site"],
                 ["FTE at year end (December). Agency spend in GBP thousands."],
                 ["Site", "Permanent FTE 2024", "Agency FTE 2024", "Agency spend 2024 (GBP k)"],
                 ["Leeds DC", 128, 44, 1487], ["Bristol DC", 142, 33, 941],
                 ["Total", 270, 77, 2428]]
    path = write_book(tmp_path / "headcount.xlsx", "Headcount", headcount)
    fte, spend = ask_file(tmp_path, path, "Permanent FTE at Leeds DC in 2024",
                          "What was agency spend at Leeds DC in 2024?")
    assert fte.answer == "128"  # never "128 thousand": the note's scale is agency spend's
    assert spend.values == [1487] and "thousand" in spend.answer
    sales = [["Net product sales by therapeutic area and region (USD m)"],
             ["Therapeutic area / Region", "2022", "2023"], ["Oncology", None, None],
             ["  United States", 4688.2, 5230.9], ["  Europe", 2298.7, 2476.1],
             ["Total Oncology", 6986.9, 7707.0], ["Vaccines", None, None],
             ["  United States", 1210.6, 1345.8], ["  Europe", 760.3, 812.5],
             ["Total Vaccines", 1970.9, 2158.3], ["Group net sales", 8957.8, 9865.3], [None],
             ["Note: Rest of World includes Japan and Canada."]]
    path = write_book(tmp_path / "sales.xlsx", "Sales", sales, indents=("A4", "A5", "A8", "A9"))
    area, japan = ask_file(tmp_path, path,
                           "Which therapeutic area had the highest total net sales in 2023?",
                           "What were Oncology sales in Japan in 2023?")
    assert area.values == ["Oncology"]  # never "Group net sales", the sum of all
    assert japan.answer is None         # Japan is only a note's word, no row


def test_words_of_a_name_ask_no_operation(tmp_path):
    titles = [["Title", "Genre", "Views (m)", "Personal best"],
              ["Last Train to Osaka", "Drama", 45.2, "3:27.43"],
              ["Bone Dry", "Thriller", 24.6, "3:29.10"],
              ["Paper Crowns", "Comedy", 31.0, "3:30.02"]]
    path = write_book(tmp_path / "titles.xlsx", "Titles", titles)
    both, best = ask_file(tmp_path, path,
                          "Views of Last Train to Osaka and Bone Dry, respectively",
                          "What is Bone Dry's personal best?")
    assert both.values == [45.2, 24.6]  # "Last" is the title's word, no last row
    assert best.answer == "3:29.10"      # the column's cell, no best of the column
    medals = [["Medal table"], [None],
              ["Country", "Medals", None, None, None], [None, "Gold", "Silver", "Bronze", "Total"],
              ["United States", 40, 44, 42, 126], ["France", 16, 26, 22, 64],
              ["Japan", 20, 12, 13, 45]]
    path = write_book(tmp_path / "medals.xlsx", "Medals", medals, merges=["B3:E3", "A3:A4"])
    won, count, total = ask_file(tmp_path, path, "How many medals did France win?",
                                 "What is France's total medal count?",
                                 "How many medals did Japan win in total?")
    # The group's Total, never Gold + Silver + Bronze + Total.
    assert won.values == [64] and count.values == [64] and total.values == [45]



HOUSEHOLDS = ("Category,Household type,Households 2021,Share 2021 (%)\n"
              "One-person household,Aged 66 years and over,2980000,12.4\n"
              "Single family household,All aged 66 years and over,2235000,9.3\n"
              "Single family household,Cohabiting couple family: With dependent children,"
              "1019000,4.3\n"
              "Single family household,Lone parent family: With dependent children,1659000,6.9\n"
              "Other household types,With dependent children,540000,2.3\n"
              "Other household types,\"Other, including all aged 66 years and over\",1413000,5.9\n")


def test_a_label_named_whole_is_not_the_longer_labels_it_is_part_of(tmp_path):
    quoted, plain, couples, lone = ask_csv(
        tmp_path, "households.csv", HOUSEHOLDS,
        'How many households were "Aged 66 years and over" in 2021?',
        "How many households were aged 66 years and over in 2021?",
        "Was the share of cohabiting couples with dependent children higher than 3% in 2021?",
        "Share of lone parent families with dependent children in 2021")
    assert quoted.values == [2980000] and plain.values == [2980000]  # one row, never 3 added
    assert couples.answer is None  # never "No" from Other household types' 2.3
    assert lone.values == [6.9]


YIELDS = [["Cereal yields by region (t/ha)"], [None],
          ["Crop / region", "Harvest year", None, None], [None, 2021, 2022, 2023],
          ["Wheat", None, None, None], ["  North East", 7.5, 9.2, 7.2],
          ["  North West", 7.4, 9.2, 8.3], ["  England (all regions)", 8.0, 8.3, 8.0],
          ["Oilseed rape", None, None, None], ["  North East", 3.4, 3.2, 3.4],
          ["  North West", 3.7, 3.9, 3.3], ["  England (all regions)", 3.4, 3.6, 3.3]]


def test_named_rows_of_a_group_a_bracketed_total_and_a_lowest_across_years(tmp_path):
    path = write_book(tmp_path / "yields.xlsx", "Yields", YIELDS, merges=["B3:D3", "A3:A4"])
    both, plain, below, lowest = ask_file(
        tmp_path, path, "Wheat yields in the North East and North West in 2023 respectively",
        "Wheat yields in the North East and North West in 2023",
        "How many regions had a 2023 oilseed rape yield below 3.4 t/ha?",
        "Lowest North West wheat yield between 2021 and 2023")
    assert both.values == [7.2, 8.3]  # listed, never added up as the Wheat group's
    assert plain.answer is None        # two rows named, no sum of yields asked
    assert below.values == [1]         # never "England (all regions)" as a second region
    assert lowest.answer is None       # never 8.3, the average of the three years


def test_a_notes_name_a_differences_column_and_two_counted_columns_answer_nothing(tmp_path):
    menu = [["Core menu price list (England)"], [None], ["Item", "Price (GBP)"],
            ["Margherita pizza", 13.95], ["Garlic flatbread", 6.5], [None],
            ["Prices in Scotland and Wales may differ."]]
    path = write_book(tmp_path / "menu.xlsx", "Menu", menu)
    scotland, england = ask_file(tmp_path, path,
                                 "What is the price of the Margherita pizza in Scotland?",
                                 "What is the price of the Margherita pizza?")
    assert scotland.answer is None and england.values == [13.95]
    sites = ("Region,Year,Opened,Closed\nLondon,2024,7,10\nNorth,2024,5,2\nSouth,2024,4,1\n"
             "London,2023,11,6\n")
    [closures] = ask_csv(tmp_path, "sites.csv", sites,
                         "In how many regions did closures exceed openings in 2024?")
    assert closures.answer is None  # never 3, every region of 2024
    time_use = [["Activity", "Differences in mothers' and fathers' time (hours)"],
                ["Sleeping", 0.2], ["Working", -2.1], ["Caring for children", 1.1]]
    path = write_book(tmp_path / "time.xlsx", "Time", time_use)
    [fathers] = ask_file(tmp_path, path, "Which activity had the lowest hours for fathers?")
    assert fathers.answer is None  # a column of differences holds no fathers' hours


def test_one_text_in_every_named_row_a_cumulative_total_and_a_standard_error(tmp_path):
    reserves = ("Deposit,Category,Commodity,Tonnes (Mt)\nPilbara Hub,Proved,Iron ore,410\n"
                "Pilbara Hub,Probable,Iron ore,655\nCerro Alto,Proved,Copper,120\n")
    commodity, cumulative = ask_csv(tmp_path, "reserves.csv", reserves,
                                    "What commodity is Pilbara Hub?",
                                    "What is the cumulative tonnage of Pilbara Hub?")
    assert commodity.values == ["Iron ore"]  # the same in both of its rows
    assert cumulative.answer is None or cumulative.values == [1065]
    income = ("Farm type,FBI 2022 (GBP),SE 2022 (GBP)\nCereals,142700,11000\n"
              "Dairy,143900,5900\n")
    [error] = ask_csv(tmp_path, "fbi.csv", income, "Standard error for cereals farms in 2022")
    assert error.values == [11000]  # "SE" is the standard error, never the FBI beside it


def test_a_columns_own_count_unit_beats_a_percent_title(tmp_path):
    page = ("<html><body><h2>Ethnic group by local authority (% of usual residents)</h2>"
            "<table><tr><th rowspan='2'>Local authority</th><th colspan='2'>Ethnic group (%)</th>"
            "<th rowspan='2'>All usual residents (number)</th></tr>"
            "<tr><th>Asian</th><th>White</th></tr>"
            "<tr><td>Newham</td><td>54.8</td><td>30.8</td><td>351,036</td></tr>"
            "<tr><td>Brent</td><td>37.3</td><td>35.2</td><td>339,818</td></tr></table>"
            "</body></html>")
    path = tmp_path / "ethnicity.html"
    path.write_text(page, encoding="utf-8")
    [residents] = ask_file(tmp_path, path, "How many usual residents in Brent?")
    assert residents.values == [339818] and residents.answer == "339,818"


RATES = ("Year,Killed,KSI,Killed rate per bn vehicle miles,KSI rate per bn vehicle miles\n"
         "2021,1558,27450,5.01,88.2\n2022,1711,29795,5.51,96.0\n2023,1624,29711,5.09,93.1\n")


def test_a_rate_column_is_not_its_counts_neighbour_and_a_share_stays_inside_its_whole(tmp_path):
    listed, fall, above, rate, killed = ask_csv(
        tmp_path, "rates.csv", RATES, "What was the killed rate in 2023 and 2022 respectively?",
        "By how much did the KSI rate fall between 2022 and 2023?",
        "How many years had a KSI rate above 90?",
        "Killed rate for motorcyclists per bn vehicle miles in 2023",
        "How many were killed in 2023 and 2022 respectively?")
    assert listed.answer is None and fall.answer is None and above.answer is None  # never Killed
    assert rate.answer is None           # "for motorcyclists" names rows the table has not
    assert killed.values == [1624, 1711]
    ages = ("Age band,Killed,All casualties,Killed (% of total killed)\n0-15,48,10663,3.1\n"
            "16-24,253,28133,16.3\n25-59,781,87133,50.3\n")
    [share] = ask_csv(tmp_path, "ages.csv", ages,
                      "What percentage of killed casualties were aged 0-15?")
    assert share.answer is None or share.values == [3.1]  # never 22214.6%


def test_an_item_of_a_list_that_names_nothing_is_never_dropped(tmp_path):
    users = [["Road user type", 2022, None, 2023, None],
             [None, "Killed", "Seriously injured", "Killed", "Seriously injured"],
             ["Vehicle occupants", None, None, None, None],
             ["  Car occupants", 705, 10517, 662, 10638], ["  Van occupants", 42, 633, 40, 564],
             ["  HGV occupants", 26, 238, 26, 234],
             ["Total vehicle occupants", 773, 11388, 728, 11436]]
    path = write_book(tmp_path / "users.xlsx", "Users", users,
                      merges=["B1:C1", "D1:E1", "A1:A2"],
                      indents=("A4", "A5", "A6"))
    combined, van = ask_file(tmp_path, path,
                             "What was the combined number of van and HGV occupants killed in "
                             "2023?", "How many van occupants were killed in 2023?")
    assert combined.answer is None or combined.values == [66]  # never 26, HGV alone
    assert van.values == [40]
    outcomes = ("| Subject | Response rate (%) | Employment (%) | Further study (%) | "
                "Unemployed (%) |\n|---|---|---|---|---|\n"
                "| Psychology | 51.0 | 58.6 | 24.1 | 6.9 |\n"
                "| History | 48.2 | 51.2 | 30.3 | 7.7 |\n")
    [three] = ask_csv(tmp_path, "outcomes.md", outcomes,
                      "Employment, further study and unemployment rates for Psychology "
                      "respectively")
    assert three.answer is None or three.values == [58.6, 24.1, 6.9]  # never two of three


def test_a_verb_of_giving_and_a_short_scale_word_name_the_figure_asked(tmp_path):
    income = [["Research income by funder"], [None], ["Funder", "Income (£000)", None],
              [None, "2022/23", "2023/24"], ["EPSRC", 13420, 14980],
              ["Wellcome Trust", 6950, 7120]]
    path = write_book(tmp_path / "income.xlsx", "Income", income, merges=["B3:C3", "A3:A4"])
    came, provided = ask_file(tmp_path, path,
                              "How much research income came from EPSRC in 2023/24?",
                              "How much did the Wellcome Trust provide in 2022/23?")
    assert came.values == [14980] and provided.values == [6950]
    [rate] = ask_csv(tmp_path, "rates.csv", RATES,
                     "What was the killed rate per billion vehicle miles in 2022?")
    assert rate.values == [5.51]  # "per billion" is the header's "per bn"


def test_one_figure_beating_another_is_not_read_as_either(tmp_path):
    returns = [["Investment performance (% p.a.)"], [None],
               ["Asset class", "1 year", None], [None, "Fund %", "Benchmark %"],
               ["UK equities", 8.4, 8.2], ["Overseas equities", 21.7, 20.9],
               ["Property", -4.6, -3.9]]
    path = write_book(tmp_path / "returns.xlsx", "Returns", returns, merges=["B3:C3", "A3:A4"])
    by, beat, read = ask_file(
        tmp_path, path, "By how much did overseas equities outperform the benchmark over 1 year?",
        "How many asset classes beat their benchmark over 1 year?",
        "What was the 1 year benchmark return for property?")
    assert by.answer is None and beat.answer is None  # never 20.9, never 3
    assert read.values == [-3.9]
