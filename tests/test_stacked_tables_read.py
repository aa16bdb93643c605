"""Official statistics with several tables on one sheet, each under its own title, and years
marked provisional ("2022 [p]"): the year columns are the header and are all compared, and a
question that names two of the stacked tables' subjects is not answered from one of them."""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file


def _casualties(tmp_path):
    wb = Workbook()
    ws = wb.active
    ws.append(["Table 4: Reported road casualties by severity and road user type"])
    ws.append([None])
    for title, first, second in (("Table 4a: Killed", 470, 385), ("Table 4b: Seriously injured",
                                                                    5100, 5177)):
        ws.append([title])
        ws.append(["Road user type", "2020", "2021", "2022 [p]"])
        ws.append(["Pedestrians", first - 20, first, second])
        ws.append(["Pedal cyclists", 141, 111, 91])
        ws.append(["Car occupants", 487, 500, 546])
        ws.append([None])
    path = tmp_path / "casualties.xlsx"
    wb.save(path)
    return path


def test_a_provisional_year_is_one_of_the_years_compared(tmp_path):
    [best] = ask_file(tmp_path, _casualties(tmp_path),
                      "In which year were the most car occupants seriously injured?")
    assert best.values == ["2022"]  # 546 in "2022 [p]", not 500 in 2021


def test_two_stacked_subjects_named_together_are_not_read_from_one(tmp_path):
    both, one = ask_file(tmp_path, _casualties(tmp_path),
                         "How many pedestrians were killed or seriously injured in 2021?",
                         "How many pedestrians were seriously injured in 2021?")
    assert both.answer is None  # killed (470) plus seriously injured (5,100), not 5,100
    assert one.values == [5100]
