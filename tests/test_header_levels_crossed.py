"""A lookup that names a column by several of its header levels ("the Disposal of fixed
assets for Land and buildings in 2020"), where each level alone reads many columns: the leaf
recurs under every asset type and year, the asset type under every year. Found by a browser
tester on a RealHiTBench-style report (issue 12); the columns were not crossed, and the
question was refused as naming no column. And a header found under several parents, which the
question does not tell apart, is refused with those places named."""

from __future__ import annotations

from openpyxl import Workbook

from tests.test_precision_rules import ask_file

YEARS = ("2020", "2021")
TYPES = ("Land and buildings", "Plant and machinery")
MEASURES = ("Acquisition of fixed assets", "Disposal of fixed assets")
INDUSTRIES = {"Food": (401, 36, 798, 39, 406, 50), "Textiles": (120, 9, 310, 14, 133, 11)}


def _report(path):
    """Year > asset type > measure > unit over the columns, merged as such reports merge
    them; the second year has one asset type only."""
    wb = Workbook()
    ws = wb.active
    ws.append(["Year", "2020", None, None, None, "2021", None])
    ws.append(["Type of fixed assets", TYPES[0], None, TYPES[1], None, TYPES[0], None])
    ws.append(["Industry", *MEASURES, *MEASURES, *MEASURES])
    ws.append([None, *["HK$ thousand"] * 6])
    for name, figures in INDUSTRIES.items():
        ws.append([name, *figures])
    for cells in ("B1:E1", "F1:G1", "B2:C2", "D2:E2", "F2:G2"):
        ws.merge_cells(cells)
    wb.save(path)
    return path


def test_header_levels_named_together_cross_at_one_column(tmp_path):
    path = _report(tmp_path / "fixed_assets.xlsx")
    crossed, other_year, leaf_only = ask_file(
        tmp_path, path,
        "What was the Disposal of fixed assets for Land and buildings in 2020 for Food?",
        "What was the acquisition of fixed assets for land and buildings in 2021 for Textiles?",
        "What was the Disposal of fixed assets for Food?")
    assert crossed.values == [36]
    assert [c.ref for c in crossed.evidence] == ["C5"]
    assert other_year.values == [133]
    assert [c.ref for c in other_year.evidence] == ["F6"]
    # The leaf alone is under three columns: still not said which.
    assert leaf_only.answer is None


def test_a_header_under_several_parents_is_named_with_its_places(tmp_path):
    # "the question does not name a column to read" left the reader to find that "Percent
    # of population" heads a column under Civilian labor force and one under Employed.
    wb = Workbook()
    ws = wb.active
    ws.append(["Year", "Labor force", None, "Employed", None])
    ws.append([None, "Total", "Percent of population", "Total", "Percent of population"])
    ws.append([2000, 100, 66.1, 95, 62.8])
    ws.append([2001, 102, 66.3, 96, 62.5])
    ws.merge_cells("B1:C1")
    ws.merge_cells("D1:E1")
    path = tmp_path / "labor.xlsx"
    wb.save(path)
    tied, named = ask_file(tmp_path, path, "What was the Percent of population in 2000?",
                           "What was the Employed Percent of population in 2000?")
    assert tied.answer is None
    assert ("the question names Percent of population, a header of 2 columns: Labor force > "
            "Percent of population and Employed > Percent of population; say which"
            in tied.error.message)
    assert named.values == [62.8]

