"""The column a question asks a row's name from: a code column the question names ("which
*well*" over Well ID codes beside a Location) is the name asked for, as is the column named
before "of the" ("Give the *site ID* of the site with ..."); a store's running number is
still not its name. A year inside a column's name is no number left unread by a list."""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file

WELLS = ("Well ID,Location,Nitrate Q3 (mg/L),Nitrate Q4 (mg/L)\n"
         "MW-01,Upgradient (background),13.4,13.3\nMW-02,Upgradient (north),13.4,15.3\n"
         "MW-03,Landfill toe,48.9,83.5\nMW-04,Landfill east margin,35.3,53.0\n")

SITES = ("Site ID,Site name,PM2.5 Feb,PM2.5 Mar\nAQ01,Harbour Road,14.3,15.8\n"
         "AQ02,Civic Centre,12.6,12.7\nAQ07,Quarry Hill,9.9,8.1\nAQ08,Mill Lane,19.4,16.4\n")


def test_a_code_the_question_names_is_the_rows_name(ask):
    assert ask(WELLS, "Which well had the highest nitrate Q4?").values == ["MW-03"]


def test_the_column_named_before_of_the_is_read(ask):
    given = ask(SITES, "Give the site ID of the site with the lowest PM2.5 Mar.")
    assert given.values == ["AQ07"]
    # Without the column named, the site is named by its name.
    assert ask(SITES, "Which site had the lowest PM2.5 Mar?").values == ["Quarry Hill"]


def test_a_stores_number_is_not_its_name(ask):
    stores = "Store #,Location,Sales\n1,Leeds,120\n2,York,150\n3,Hull,90\n"
    assert ask(stores, "Which store had the highest sales?").values == ["York"]


def test_a_year_in_a_columns_name_leaves_a_list_of_rows_to_read(ask):
    provinces = ("Province,Residents 2011,Residents 2021\nLakeland,1200,1500\n"
                 "Highfield,1300,1400\nMoor,900,950\n")
    answer = ask(provinces, "Which provinces had more than 1250 residents in 2021?")
    assert answer.values == ["Lakeland", "Highfield"]


RECYCLING = ("LA code,Local authority,Region,Recycling rate 2021/22,Recycling rate 2022/23\n"
             "E08000035,Leeds,Yorkshire and The Humber,39.5,38.3\n"
             "E08000032,Bradford,Yorkshire and The Humber,34.9,34.1\n"
             "E07000179,South Oxfordshire,South East,62.1,63.5\n"
             "E07000180,Vale of White Horse,South East,61.0,61.8\n")


def test_the_one_name_a_row_has_beside_its_code(ask):
    # Not the code, nor the Region, which repeats; the code when the question asks for it.
    assert ask(RECYCLING, "Which council had the highest recycling rate in 2022/23?"
               ).values == ["South Oxfordshire"]
    assert ask(RECYCLING, "Which council had the lowest recycling rate in 2022/23? Give its "
               "LA code."
               ).values == ["E08000032"]


def test_where_a_row_ranks_is_no_place(ask):
    ccgs = ("CCG name,NHS region,Patients per practice,Rank\nNHS Leeds CCG,North East,11094,5\n"
            "NHS Sheffield CCG,North East,8632,12\n")
    answer = ask(ccgs, "Where does NHS Sheffield CCG rank on patients per practice?")
    assert answer.values != ["North East"]


def test_the_widest_ranks_a_width(tmp_path, ask):
    wb = Workbook()
    ws = wb.active
    ws.append(["Life expectancy at birth by local authority, 2020-22"])
    ws.append(["Years; 95% confidence intervals shown in Lower CI and Upper CI"])
    ws.append(["Area name", "Sex", "Life expectancy (years)", "Lower CI", "Upper CI"])
    ws.append(["York", "Male", 80.1, 79.8, 80.4])
    ws.append(["York", "Female", 83.6, 83.3, 83.9])
    ws.append(["Hartlepool", "Male", 76.9, 76.1, 77.6])
    ws.append(["Hartlepool", "Female", 80.6, 79.9, 81.2])
    path = tmp_path / "life.xlsx"
    wb.save(path)
    [widest] = ask_file(tmp_path, path, "Which area has the widest confidence interval for "
                                        "male life expectancy?")
    assert widest.values != ["York"]  # the highest life expectancy, not the widest interval
    assert ask("River,Width (m),Length (km)\nAire,120,300\nCalder,80,500\n",
               "Which river is the widest?").values == ["Aire"]


def test_day_first_dates_as_row_labels_are_read_day_first(ask):
    weeks = ("Week commencing,Leeds,York\n29/01/2024,36566,26708\n05/02/2024,44786,27663\n"
             "12/02/2024,41547,29700\n19/02/2024,39679,27589\n26/02/2024,41843,27245\n"
             "04/03/2024,43911,30734\n")
    # 05/02 and 12/02 are 5 and 12 February, as 19/02 says the column writes them.
    answer = ask(weeks, "What were Leeds' total sales for the weeks commencing in February "
                        "2024?")
    assert answer.values == [167855]


def test_which_date_and_shift_is_no_total_per_date(ask):
    shifts = ("Date,Shift,Units produced,Rejects\n2024-04-11,Early,510,31\n"
              "2024-04-11,Late,480,2\n2024-04-18,Early,500,20\n2024-04-18,Late,495,19\n")
    both = ask(shifts, "Which date and shift had the most rejects?")
    assert both.values != ["2024-04-18"]  # 39 rejects over two shifts; the worst shift is 31
    assert ask(shifts, "Which date had the most rejects?").values == ["2024-04-18"]
