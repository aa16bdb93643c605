"""Counts over a report whose Year column also holds its band labels (Men, Women), as BLS
tables are laid out when the bands are read as data: found while fixing a browser tester's
report (issue 12). "How many unemployed women were there in 2021?" counted the rows that are
either the Women band or a 2021 (3, labelled high); and "the total number of unemployed women"
was advised to add up Civilian labor force > Total, a column it names only by "total". And a
rate asked of such a table was refused with "the table states no rate", beside its Percent of
labor force."""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file


def _labor(path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Year", "Civilian labor force", None, None])
    ws.append([None, "Total", "Unemployed", None])
    ws.append([None, None, "Number", "Percent of labor force"])
    for sex, rows in (("Men", [(2020, 86000, 7000, 8.1), (2021, 87000, 5000, 5.7)]),
                      ("Women", [(2020, 75000, 6000, 8.0), (2021, 76000, 4000, 5.3)])):
        ws.append([sex])
        for row in rows:
            ws.append(list(row))
    for cells in ("B1:D1", "B2:B3", "C2:D2"):
        ws.merge_cells(cells)
    wb.save(path)
    return path


def test_a_band_label_and_a_year_of_one_column_are_not_counted_together(tmp_path):
    [answer] = ask_file(tmp_path, _labor(tmp_path / "labor.xlsx"),
                        "How many unemployed women were there in 2021?")
    assert answer.answer is None
    assert '"Women" and "2021" are both read in Year' in answer.error.message


def test_a_total_named_by_its_word_alone_is_no_column_to_advise(tmp_path):
    [answer] = ask_file(tmp_path, _labor(tmp_path / "labor.xlsx"),
                        "What was the total number of unemployed women from 2020 to 2021?")
    assert answer.answer is None
    assert "Civilian labor force > Total" not in answer.error.message


def test_a_rate_refused_over_a_table_of_percentages_says_which_to_read(tmp_path):
    # "the table states no rate" was untrue of a table whose Unemployed > Percent of labor
    # force is the unemployment rate (a browser tester); an amounts-only table still says it.
    amounts = tmp_path / "amounts.csv"
    amounts.write_text("Year,Income tax,Profit\n2009,12,80\n2010,14,90\n", encoding="utf-8")
    [of_percents] = ask_file(tmp_path, _labor(tmp_path / "labor.xlsx"),
                             "What was the unemployment rate for women in 2021?")
    [of_amounts] = ask_file(tmp_path / "b", amounts, "What was the income tax rate in 2009?")
    assert "no column of the table is named for it; say which percentage column to read" \
        in of_percents.error.message
    assert "the table states no rate" in of_amounts.error.message
