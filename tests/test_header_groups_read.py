"""Questions over headers grouped in two levels and over groups of rows, where the rules
used to read the wrong side: the leaf the question names under each header, and the header
that then names it; a difference in the order the question names its two columns when a
word names both; and a group's own total named before the word "total"."""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.styles import Alignment

from tests.test_precision_rules import ask_file


def test_the_named_leaf_under_each_header_is_named_by_its_header(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Faculty", "Academic staff", None, None, None, "Support staff", None])
    ws.append([None, "Professor", None, "Lecturer", None, None, None])
    ws.append([None, "Female", "Male", "Female", "Male", "Female", "Male"])
    ws.append(["Physics", 3, 9, 12, 14, 20, 11])
    ws.append(["History", 5, 4, 9, 6, 8, 7])
    for cells in ("A1:A3", "B1:E1", "F1:G2", "B2:C2", "D2:E2"):
        ws.merge_cells(cells)
    path = tmp_path / "staff.xlsx"
    wb.save(path)
    male, female = ask_file(tmp_path, path,
                            "In Physics, which academic grade has the most male staff?",
                            "In History, which academic grade has the fewest female staff?")
    # Not "Male", the leaf every header shares; nor Support staff, which is no grade named.
    assert male.values == ["Lecturer"]
    assert female.values == ["Professor"]


def test_a_difference_follows_the_words_only_each_column_is_named_by(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Status", "North", None, None, "All regions", None, None])
    ws.append([None, "Male", "Female", "Total", "Male", "Female", "Total"])
    ws.append(["Employed", 410.2, 380.5, 790.7, 710.3, 670.9, 1381.2])
    ws.append(["Home duties", 20.4, 86.2, 106.6, 35.4, 156.5, 191.9])
    ws.merge_cells("B1:D1")
    ws.merge_cells("E1:G1")
    path = tmp_path / "labour.xlsx"
    wb.save(path)
    [more] = ask_file(tmp_path, path,
                      "In the North region, how many more women than men are in home duties?")
    # "North" names both North > Male and North > Female: women (Female) is named first.
    assert more.values == [65.8]


def test_a_groups_own_total_named_before_total(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Sector / use", "2021", "2022"])
    rows = [("Agriculture", 1658, 1579.4, 0), ("Irrigation", 1502.6, 1414.5, 1),
            ("Livestock", 155.4, 164.9, 1), ("Industry", 789.7, 768, 0),
            ("Manufacturing", 207.3, 209.5, 1), ("Thermal power cooling", 525.8, 497.2, 1),
            ("Mining", 56.6, 61.3, 1), ("All sectors", 2447.7, 2347.4, 0)]
    for label, a, b, indent in rows:
        ws.append([label, a, b])
        ws.cell(ws.max_row, 1).alignment = Alignment(indent=2 * indent)
    path = tmp_path / "water.xlsx"
    wb.save(path)
    [share] = ask_file(tmp_path, path, "What percentage of the Industry sector's total "
                                       "abstraction in 2022 was for thermal power cooling?")
    assert share.answer.startswith("64.74")  # 497.2 of Industry's 768, not of All sectors' 2,347.4


def test_an_average_per_quarter_is_over_quarters(tmp_path, ask):
    wb = Workbook()
    ws = wb.active
    ws.title = "Quarterly"
    ws.append(["Sum of Sales", "Column Labels", None, None, None, None])
    ws.append([None, 2023, None, None, None, "2023 Total"])
    ws.append(["Row Labels", "Q1", "Q2", "Q3", "Q4", None])
    ws.append(["Central", 185, 199, 238, 272, 894])
    ws.append(["East", 138, 176, 160, 185, 659])
    ws.append(["West", 128, 135, 166, 178, 607])
    ws.append(["Grand Total", 451, 510, 564, 635, 2160])
    path = tmp_path / "regional_sales.xlsx"
    wb.save(path)
    # Averaging the regions' 2023 totals (720) is no average per quarter (540).
    [over_regions] = ask_file(tmp_path, path, "What is the average quarterly total for 2023 "
                                              "across all regions?")
    assert over_regions.values in ([], [540])
    assert ask("Flat,Monthly rent\nA,900\nB,1100\nC,1000\n",
               "What is the average monthly rent?").values == [1000]
    assert ask("Month,Sales\nJan,10\nFeb,20\nMar,30\n",
               "What were the average monthly sales?").values == [20]


def test_a_percentage_asked_of_a_table_of_percentages_is_its_cell(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Table 1: Satisfaction with local council services, by sex"])
    ws.append(["Column percentages. Base: all adults aged 16 and over"])
    ws.append([None, "All adults", "Sex", None])
    ws.append([None, None, "Men", "Women"])
    ws.append(["Very satisfied", 17, 19, 15])
    ws.append(["Fairly dissatisfied", 12, 13, 12])
    ws.append(["Very dissatisfied", 8, 9, 7])
    ws.append(["Unweighted base", 2478, 1139, 1339])
    ws.merge_cells("C3:D3")
    ws.merge_cells("B3:B4")
    path = tmp_path / "satisfaction.xlsx"
    wb.save(path)
    share, base = ask_file(tmp_path, path, "What percentage of women were very satisfied?",
                           "What was the unweighted base for women?")
    assert share.values == [15]  # the cell: the share is already taken
    assert base.values == [1339]


def test_by_what_percentage_did_it_fall_is_the_size_of_the_fall(ask):
    kpis = "KPI,FY2023,FY2024\nScope 1 and 2 emissions,12500,11151\nRevenue,900,990\n"
    fall = ask(kpis, "By what percentage did Scope 1 and 2 emissions fall from FY2023 to "
                     "FY2024?")
    assert fall.values == [10.79]  # (12,500 - 11,151) / 12,500, not -10.79
    change = ask(kpis, "What was the percentage change in Scope 1 and 2 emissions from FY2023 "
                       "to FY2024?")
    assert change.values == [-10.79]
    rose = ask(kpis, "By what percentage did revenue fall from FY2023 to FY2024?")
    assert rose.answer is None and "it rose" in rose.error.message  # 900 to 990: no fall
