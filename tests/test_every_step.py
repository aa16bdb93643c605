""""Did revenue increase every year from 2017 to 2019?": each step of the span, not only its
two ends, with every cell of the span cited; over a row's period columns or over rows that
are periods. An unchanged step is no rise; a span crossed by a column that is no period, or
rows that are not periods, is refused."""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file

YEARS = ("Region,2019,2020,2021,2022,2023\nNorth,100,110,120,130,140\n"
         "South,90,80,85,70,60\nWest,50,50,60,70,80\n")


def test_a_rise_at_every_step_of_a_rows_period_columns(ask):
    answer = ask(YEARS, "Did North increase every year from 2019 to 2023?")
    assert answer.values == ["Yes"]
    assert sorted(e.ref for e in answer.evidence) == ["B2", "C2", "D2", "E2", "F2"]


def test_the_ends_alone_do_not_make_every_step(ask):
    # South fell from 90 to 60, but rose from 2020 to 2021.
    assert ask(YEARS, "Did South decrease every year from 2019 to 2023?").values == ["No"]
    assert ask(YEARS, "Did South fall every year from 2021 to 2023?").values == ["Yes"]
    # West stayed at 50 from 2019 to 2020: no rise.
    assert ask(YEARS, "Did West go up every year from 2019 to 2023?").values == ["No"]


def test_a_change_column_inside_the_span_is_refused(ask):
    table = ("Region,2019,2020,Change,2021\nNorth,100,110,10,120\nSouth,90,80,-10,85\n")
    answer = ask(table, "Did North increase every year from 2019 to 2021?")
    assert answer.answer is None
    assert "not one period each" in answer.error.message


MONTHS = ("Month,Unique visitors,Sessions\nJanuary,100,300\nFebruary,120,280\nMarch,130,330\n"
          "April,125,340\nMay,140,350\nJune,150,360\n")


def test_rows_that_are_periods(ask):
    no = ask(MONTHS, "Did unique visitors increase every month from January to June?")
    assert no.values == ["No"]  # April fell
    assert no.answer.startswith("No (January: 100, February: 120, March: 130, April: 125")
    yes = ask(MONTHS, "Did sessions rise every month from February to June?")
    assert yes.values == ["Yes"]
    assert sorted(e.ref for e in yes.evidence) == ["C3", "C4", "C5", "C6", "C7"]


def test_rows_that_are_not_periods_are_refused(ask):
    table = "Store,Sales\nLeeds,10\nYork,12\nHull,15\n"
    answer = ask(table, "Did sales increase every year from Leeds to Hull?")
    assert answer.answer is None


def test_the_periods_under_a_named_header(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Site", "2023", None, None, None, "2024"])
    ws.append([None, "Q1", "Q2", "Q3", "Q4", "Q1"])
    ws.merge_cells("B1:E1")
    ws.merge_cells("A1:A2")
    ws.append(["Eastgate", 10, 12, 15, 18, 11])  # 2024 Q1 fell: not a quarter of 2023
    ws.append(["Westgate", 9, 8, 10, 12, 13])
    wb.save(tmp_path / "visits.xlsx")
    east, west = ask_file(tmp_path, tmp_path / "visits.xlsx",
                          "Did Eastgate increase every quarter in 2023?",
                          "Did Westgate increase in every quarter of 2023?")
    assert east.values == ["Yes"]
    assert sorted(e.ref for e in east.evidence) == ["B3", "C3", "D3", "E3"]
    assert west.values == ["No"]
