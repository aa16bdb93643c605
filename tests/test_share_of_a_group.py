""""What share of total arrivals came from Asia and Pacific?" over band rows ("Asia and
Pacific" over China, Japan and "Asia and Pacific, total"): the group's figure is its own total
row, over the table's total. A group whose closing total is the table's ("Total gross carrying
value" under the last band) is not read as its own."""

from __future__ import annotations

from openpyxl import Workbook
from openpyxl.styles import Font

from tests.test_precision_rules import ask_file


def _arrivals(path):
    wb = Workbook()
    ws = wb.active
    ws.append(["International arrivals (thousands)"])
    ws.append(["Country", "2022", "2023"])
    for row in [("Europe",), ("Germany", 755.2, 860.8), ("France", 564.6, 710.5),
                ("Europe, total", 1319.8, 1571.3), ("Asia and Pacific",),
                ("China", 388, 449.5), ("Japan", 205.7, 233.2),
                ("Asia and Pacific, total", 593.7, 682.7), ("Total arrivals", 1913.5, 2254)]:
        ws.append(list(row))
    for ref in ("A3", "A7"):
        ws[ref].font = Font(bold=True)
    wb.save(path)
    return path


def test_a_group_named_in_a_share_is_its_own_total_row(tmp_path):
    [answer] = ask_file(tmp_path, _arrivals(tmp_path / "arrivals.xlsx"),
                        "What share of total arrivals in 2023 came from Asia and Pacific?")
    assert answer.values == [30.2884]  # 682.7 / 2254 = 0.302884...
    assert {e.ref for e in answer.evidence} == {"C10", "C11"}


def test_a_share_asked_whole_first_with_any_verb_divides_by_the_whole(ask):
    population = ("Local authority,Population 2022,Population 2023\nHartlepool,92.4,92.9\n"
                  "County Durham,525.1,530.1\n"
                  "Darlington,108.0,108.0\nNorth East,2683.0,2683.0\n")
    answer = ask(population, "What percentage of the North East's 2023 population lived in "
                             "County Durham?")
    assert answer.answer.startswith("19.76")  # 530.1 of 2,683, not 2,683 over 530.1
