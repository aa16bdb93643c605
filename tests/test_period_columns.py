""""Which quarter had the highest revenue?" over quarters under two half-year headers
(H1 2024 > Q1, Q2; H2 2024 > Q3, Q4) compares the four quarters: each period is under one
header. It was refused because the quarters' parents differ (a browser tester, on the
method's sample workbook). Refused still when a period recurs under several headers."""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file


def _book(path, years, quarters):
    wb = Workbook()
    ws = wb.active
    ws.append([None, *[y for y in years for _ in quarters]])
    ws.append([None, *quarters * len(years)])
    ws.append(["Revenue", *range(500, 500 + 10 * len(years) * len(quarters), 10)])
    for k in range(len(years)):
        start = 2 + k * len(quarters)
        ws.merge_cells(start_row=1, start_column=start, end_row=1,
                       end_column=start + len(quarters) - 1)
    wb.save(path)
    return path


def test_quarters_under_two_halves_are_compared(tmp_path, samples):
    highest, lowest = ask_file(tmp_path, samples / "financial.xlsx",
                               "Which quarter had the highest revenue?",
                               "Which quarter had the lowest net income?")
    assert highest.values == ["Q3"]  # 710
    assert lowest.values == ["Q1"]  # 170


def test_a_quarter_under_each_of_two_years_is_not_compared_across_them(tmp_path):
    path = _book(tmp_path / "by_year.xlsx", ["2023", "2024"], ["Q1", "Q2"])
    [answer] = ask_file(tmp_path, path, "Which quarter had the highest revenue?")
    assert answer.answer is None
    assert "each period is under several" in answer.error.message


def test_the_periods_of_the_header_the_question_names_are_compared(tmp_path):
    # Revenue 500, 510 (2023 > Q1, Q2), 520, 530 (2024 > Q1, Q2): "of 2023" names the header
    # whose quarters are compared; the highest of all would have been 2024's Q2.
    path = _book(tmp_path / "by_year.xlsx", ["2023", "2024"], ["Q1", "Q2"])
    of_2023, lowest_2024 = ask_file(tmp_path, path,
                                    "Which quarter of 2023 had the highest revenue?",
                                    "In 2024, which quarter had the lowest revenue?")
    assert of_2023.values == ["Q2"]
    assert [e.ref for e in of_2023.evidence] == ["B3", "C3"]
    assert lowest_2024.values == ["Q1"]
