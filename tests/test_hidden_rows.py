"""A row hidden on the sheet ("ZZ Test account", 999,999) is left out of an aggregate, a
count and a ranking, as the sheet leaves it out of what its reader sees; a question naming
it still reads it (a browser tester's report: "Who has the highest salary?" answered the
hidden row, labelled high, and the average was 138,269.2 instead of 66,458.3)."""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file


def _staff(path, hide_label_column=False):
    wb = Workbook()
    ws = wb.active
    ws.append(["Name", "Department", "Salary"])
    for row in [("Ann Lee", "Engineering", 70000), ("Bo Chan", "Sales", 52000),
                ("ZZ Test account", "Engineering", 999999), ("Cy Diaz", "Engineering", 81000)]:
        ws.append(list(row))
    ws.row_dimensions[4].hidden = True
    if hide_label_column:
        ws.column_dimensions["A"].hidden = True
        ws.row_dimensions[4].hidden = False
    wb.save(path)
    return path


def test_a_hidden_row_is_left_out_of_what_the_rows_add_up_to(tmp_path):
    average, highest, counted, named = ask_file(
        tmp_path, _staff(tmp_path / "staff.xlsx"), "What is the average salary?",
        "Who has the highest salary?", "How many staff are in Engineering?",
        "What is the salary of ZZ Test account?")
    assert average.values == [67666.666667]  # (70,000 + 52,000 + 81,000) / 3
    assert highest.values == ["Cy Diaz"]
    assert counted.values == [2]
    assert named.values == [999999]


def test_a_hidden_label_column_hides_no_row(tmp_path):
    [highest] = ask_file(tmp_path, _staff(tmp_path / "staff.xlsx", hide_label_column=True),
                         "Who has the highest salary?")
    assert highest.values == ["ZZ Test account"]


def test_an_outline_collapsed_to_its_subtotals_adds_up_its_hidden_details(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Item", "Sales"])
    for row in [("North A", 10), ("North B", 20), ("North total", 30), ("South A", 5),
                ("South B", 7), ("South total", 12)]:
        ws.append(list(row))
    for r in (2, 3, 5, 6):  # the details hidden, the subtotals in view
        ws.row_dimensions[r].hidden = True
    wb.save(tmp_path / "outline.xlsx")
    [total] = ask_file(tmp_path, tmp_path / "outline.xlsx", "What is the total Sales?")
    assert total.values == [42]  # never 84, details and subtotals added together
