""""Gross revenue" under its products and "Net revenue" under it and "Less: returns", no word
saying either is a total, with an "of which online" part under Hardware: the two sums are
never data rows (a browser tester's statement: "What was total revenue in Q1?" added every
row, 1,030 thousand, and "How many products had FY revenue above 300?" counted the sums, 4).
"""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file

ROWS = [("Hardware", 100, 110, 460), ("of which online", 40, 45, 190),
        ("Software", 200, 210, 860), ("Services", 50, 60, 260),
        ("Gross revenue", 350, 380, 1580), ("Less: returns", -10, -12, -45),
        ("Net revenue", 340, 368, 1535)]


def _statement(path, rows=ROWS):
    wb = Workbook()
    ws = wb.active
    ws.append(["Revenue breakdown FY2024 (EUR 000)"])
    ws.append([])
    ws.append(["Product", "Q1", "Q2", "FY"])
    for row in rows:
        ws.append(list(row))
    wb.save(path)
    return path


def test_sums_of_the_rows_above_are_no_members(tmp_path):
    total, counted = ask_file(tmp_path, _statement(tmp_path / "revenue.xlsx"),
                              "What was total revenue in Q1?",
                              "How many products had FY revenue above 300?")
    assert total.values == [340]  # the members: 100 + 200 + 50 - 10
    assert counted.values == [2]  # Hardware and Software


def test_a_row_that_only_happens_to_be_large_stays_a_member(tmp_path):
    # Services is the size of the two rows above in one column only: no sum.
    rows = [("Hardware", 100, 110, 460), ("Software", 200, 210, 860),
            ("Services", 300, 60, 260), ("Support", 40, 50, 90)]
    [answer] = ask_file(tmp_path, _statement(tmp_path / "plain.xlsx", rows),
                        "What was the total revenue in Q1?")
    assert answer.values == [640]
