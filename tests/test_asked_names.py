"""The column a question asks a row's name from: a code column the question names ("which
*well*" over Well ID codes beside a Location) is the name asked for, as is the column named
before "of the" ("Give the *site ID* of the site with ..."); a store's running number is
still not its name. A year inside a column's name is no number left unread by a list."""

from __future__ import annotations

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
