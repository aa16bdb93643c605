"""The HO-Tree detector: reference samples, ST-Raptor's failure modes, forms, several tables."""

from __future__ import annotations

import datetime as dt
import io

import openpyxl
import pytest
from openpyxl.styles import Alignment, Font

from ingest.read import read_file
from ingest.structure import Override, analyse_grid
from ingest.values import parse_raw

from .conftest import bench_tables


def structures_of(path_or_bytes, name="t.xlsx", overrides=None):
    src = io.BytesIO(path_or_bytes) if isinstance(path_or_bytes, bytes) else path_or_bytes
    return [(grid, analyse_grid(grid.materialize(), overrides)) for grid in read_file(src, name)]


def only_table(path_or_bytes, name="t.xlsx", overrides=None):
    [(_, [table])] = structures_of(path_or_bytes, name, overrides)
    return table


def workbook(rows, merges=(), setup=None) -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    for row in rows:
        ws.append(list(row))
    for ref in merges:
        ws.merge_cells(ref)
    if setup:
        setup(ws)
    buffer = io.BytesIO()
    wb.save(buffer)
    return buffer.getvalue()


def joined(paths):
    return [" > ".join(p) for _, p in sorted(paths.items())]


def test_financial_sample_structure_is_exactly_as_specified(samples):
    table = only_table(samples / "financial.xlsx")
    assert (table.header_rows, table.header_cols, table.orientation) == ([1, 2], [1], "top")
    assert joined(table.col_paths) == ["H1 2024 > Q1", "H1 2024 > Q2", "H2 2024 > Q3",
                                       "H2 2024 > Q4"]
    assert joined(table.row_paths) == [
        "Revenue", "Operating Expenses > Salaries", "Operating Expenses > Rent",
        "Operating Expenses > Marketing", "Net Income"]
    assert 4 not in table.row_paths  # the group row has no data of its own
    assert table.roles[(4, 1)] == "header"
    # The merged "H1 2024" is one node shared by Q1 and Q2.
    h1 = [n for n in table.col_nodes if n.text == "H1 2024"]
    assert len(h1) == 1 and len(h1[0].children) == 2 and h1[0].ref == "B1"
    values = {(d.row_path, d.col_paths[0]): d.value.number for d in table.data}
    assert values[(("Operating Expenses", "Rent"), ("H1 2024", "Q2"))] == 50


def test_hr_sample_departments_group_their_employees(samples):
    table = only_table(samples / "hr.xlsx")
    assert table.header_rows == [1]
    assert table.header_cols[0] == 1 and table.row_levels[0] == "Department"
    paths = table.row_paths
    assert len(paths) == 7  # rows, not merged groups
    assert all(paths[r][0] == "Engineering" for r in (2, 3, 4, 5))
    assert all(paths[r][0] == "Sales" for r in (6, 7, 8))
    years = [d for d in table.data if d.col_paths == [("Years",)]]
    assert sorted(d.value.number for d in years) == [1, 2, 3, 6, 7, 9, 12]


def test_two_row_header_without_vertical_merges_keeps_every_row():
    data = workbook([(None, "2023", None, "2024", None), (None, "Q1", "Q2", "Q1", "Q2"),
                     ("North", 1, 2, 3, 4), ("South", 5, 6, 7, 8)], merges=["B1:C1", "D1:E1"])
    table = only_table(data)
    assert table.header_rows == [1, 2] and len(table.row_paths) == 2
    assert joined(table.col_paths)[2] == "2024 > Q1"


def test_years_written_before_a_word_in_a_header_row_keep_the_row_a_header():
    # "2024 anomaly" and "1991-2020 normal" read as numbers with a unit on their own; beside
    # the plain years of the same row they name columns, and the row stays in the header.
    data = workbook([("Station", "Mean temperature", None, None, None, "Sunshine", None),
                     (None, "2023", "2024", "1991-2020 normal", "2024 anomaly", "2023", "2024"),
                     ("Oxford", 10.9, 11.2, 10.5, 0.7, 1589, 1524),
                     ("Leeds", 9.8, 10.1, 9.6, 0.5, 1402, 1388)],
                    merges=["B1:E1", "F1:G1", "A1:A2"])
    table = only_table(data)
    assert table.header_rows == [1, 2] and len(table.row_paths) == 2
    assert joined(table.col_paths) == [
        "Mean temperature > 2023", "Mean temperature > 2024",
        "Mean temperature > 1991-2020 normal", "Mean temperature > 2024 anomaly",
        "Sunshine > 2023", "Sunshine > 2024"]


def test_a_year_marked_provisional_in_brackets_keeps_the_row_a_header():
    # Official statistics mark a year "2021 [p]" (provisional) or "2022(P)": beside the plain
    # years it names a column, and the row is the header, not a first row of data.
    data = workbook([("Industry (SIC 2007 section)", "2019", "2020", "2021 [p]", "2022(P)"),
                     ("Manufacturing", 2211, 2124, 2124, 2150),
                     ("Construction [note 3]", 2067, 1971, 2029, 2040)])
    table = only_table(data)
    assert table.header_rows == [1] and len(table.row_paths) == 2
    assert joined(table.col_paths) == ["2019", "2020", "2021 [p]", "2022(P)"]


def test_a_row_of_names_and_worded_years_is_a_header_and_a_merge_keeps_the_row_below():
    # "2023 sales (USD m)" beside "Product" names a column; with no other number in the row,
    # the row is the header (here a Markdown table's, where every cell is text).
    table = only_table(b"# Top products\n\n| Rank | Product | 2023 sales (USD m) | "
                       b"2022 sales (USD m) |\n|---:|---|---:|---:|\n| 1 | Veltrexa | 3,980.4 | "
                       b"3,512.7 |\n| 2 | Imuvora | 3,105.2 | 3,010.8 |\n", "top.md")
    assert table.header_rows == [1] and "2023 sales (USD m)" in joined(table.col_paths)
    # "Product" merged over two header rows keeps the second ("US | EU"), though the expiry
    # years below are no amounts.
    data = workbook([("Product", "Patent type", "Expected expiry year", None, "2023 net sales"),
                     (None, None, "US", "EU", None),
                     ("Veltrexa", "Compound", 2031, 2033, 3980.4),
                     ("Imuvora", "Compound", 2028, 2030, 3105.2)],
                    merges=["A1:A2", "B1:B2", "C1:D1", "E1:E2"])
    table = only_table(data)
    assert table.header_rows == [1, 2]
    assert "Expected expiry year > EU" in joined(table.col_paths)


def test_a_year_with_a_unit_under_named_columns_is_still_data():
    # Without a plain year in the row, "2000 units" is a value.
    data = workbook([("Model", "Stock", "Year"), ("Alpha", "2000 units", 2019),
                     ("Beta", "1500 units", 2020)])
    table = only_table(data)
    assert table.header_rows == [1] and len(table.row_paths) == 2


def test_data_cell_merged_across_two_columns_keeps_its_row_and_both_paths():
    data = workbook([("Item", "Jan", "Feb", "Mar"), ("A", 1, 2, 3), ("B", 4, None, 6),
                     ("C", 7, 8, 9)], merges=["B3:C3"])
    table = only_table(data)
    assert sorted(table.row_paths) == [2, 3, 4]
    merged = next(d for d in table.data if d.cell.ref == "B3")
    assert merged.col_paths == [("Jan",), ("Feb",)]
    assert next(d for d in table.data if d.cell.ref == "D3").col_paths == [("Mar",)]


def test_rows_above_the_first_section_band_are_kept():
    data = workbook([("Country", "Sales"), ("Total", 10), ("Europe", None), ("France", 4),
                     ("Germany", 6)], merges=["A3:B3"])
    table = only_table(data)
    assert table.row_paths[2] == ("Total",)
    assert table.row_paths[4] == ("Europe", "France")
    assert table.roles[(3, 1)] == "header"


def test_repeated_header_row_mid_table_is_a_header():
    data = workbook([("Name", "Score"), ("Ana", 3), ("Bo", 4), ("Name", "Score"), ("Cy", 5)])
    table = only_table(data)
    assert table.repeated_header_rows == [4]
    assert sorted(table.row_paths) == [2, 3, 5]
    assert table.roles[(4, 1)] == table.roles[(4, 2)] == "header"


def test_date_column_is_typed_not_fatal():
    data = workbook([("Date", "Amount"), (dt.date(2024, 1, 5), 10), (dt.date(2024, 2, 5), 20)],
                    setup=lambda ws: [setattr(ws[f"A{r}"], "number_format", "yyyy-mm-dd")
                                      for r in (2, 3)])
    table = only_table(data)
    assert len(table.row_paths) == 2
    kinds = {d.cell.ref: d.value.kind for d in table.data}
    assert kinds.get("B2") == "number"
    all_values = {d.cell.ref: d.value for d in table.data}
    if "A2" in all_values:  # a date column may be data or the row label; never lost
        assert all_values["A2"].date == "2024-01-05"
    else:
        assert table.row_paths[2] == ("2024-01-05",)


def test_indented_groups_without_merges():
    def indent(ws):
        for r in (3, 4, 6):
            ws[f"A{r}"].alignment = Alignment(indent=1)
        ws["A2"].font = Font(bold=True)

    data = workbook([("Line", "2024"), ("Costs", None), ("Rent", 5), ("Wages", 7),
                     ("Other", None), ("Misc", 1)], setup=indent)
    table = only_table(data)
    assert table.row_paths[3] == ("Costs", "Rent")
    assert table.row_paths[6] == ("Other", "Misc")


def test_multi_sheet_workbook_gives_tables_per_sheet(samples):
    found = structures_of(samples / "multi_sheet.xlsx", "multi_sheet.xlsx")
    assert [grid.sheet for grid, _ in found] == ["Jan 2024", "Feb 2024"]
    assert all(len(tables) >= 1 for _, tables in found)


def test_key_value_form_is_read_as_pairs():
    data = workbook([("Name:", "Ana Ruiz", "Start date:", "2021-03-01"),
                     ("Department:", "Engineering", "Grade:", "L5"),
                     ("Manager:", "Bo Chen", "Location:", "Madrid")])
    table = only_table(data)
    assert table.orientation == "kv"
    pairs = {d.row_path[-1]: d.cell.text for d in table.data}
    assert pairs == {"Name:": "Ana Ruiz", "Department:": "Engineering", "Manager:": "Bo Chen",
                     "Start date:": "2021-03-01", "Grade:": "L5", "Location:": "Madrid"}


def test_title_above_and_notes_below_are_attached():
    data = workbook([("Table 3. Sales by region",), (), ("Region", "Sales"), ("North", 5),
                     ("South", 7), (), ("Source: internal ledger, in thousands",)])
    table = only_table(data)
    assert table.region.title == "Table 3. Sales by region"
    assert table.region.notes == ["Source: internal ledger, in thousands"]
    assert table.roles[(1, 1)] == "title" and table.roles[(7, 1)] == "note"
    assert table.scale == 1000
    assert all(d.value.scale == 1000 and d.value.scale_source == "title" for d in table.data)


def test_two_tables_on_one_sheet_are_separate():
    data = workbook([("Region", "Sales"), ("North", 5), ("South", 7), (), (),
                     ("Product", "Units", "Price"), ("Pen", 3, 1.5), ("Ink", 4, 2.0)])
    [(_, tables)] = structures_of(data)
    assert [t.region_ref for t in tables] == ["A1:B3", "A6:C8"]
    assert [t.index for t in tables] == [0, 1]
    assert joined(tables[1].col_paths) == ["Units", "Price"]


def test_blank_spacer_rows_inside_one_table_do_not_split_it():
    data = workbook([("Occupation", "2022", "2023"), (), ("TOTAL",), ("Managers", 1, 2),
                     ("Clerks", 3, 4), (), ("Women",), ("Managers", 5, 6)])
    table = only_table(data)
    assert table.header_rows == [1]
    assert table.row_paths[4] == ("TOTAL", "Managers")
    assert table.row_paths[8] == ("Women", "Managers")


def test_override_replaces_the_detected_header():
    data = workbook([("Name", "Score"), ("Ana", 3), ("Bo", 4)])
    table = only_table(data, overrides={0: Override(header_rows=(1, 2), header_cols=())})
    assert table.header_rows == [1, 2] and table.header_cols == [] and table.confidence == 1.0
    assert joined(table.col_paths) == ["Name > Ana", "Score > 3"]


def test_tree_json_has_schema_version_and_both_trees(samples):
    tree = only_table(samples / "financial.xlsx").tree_json()
    assert tree["schema_version"] == 1
    assert [p["path"] for p in tree["columns"]["paths"]][0] == ["H1 2024", "Q1"]
    assert {p["row"] for p in tree["rows"]["paths"]} == {3, 5, 6, 7, 8}


def _filled_anchors(grid):
    return {(c.row, c.col) for c in grid.cells.values()
            if c.text.strip() or c.formula_uncached}


@pytest.mark.skipif(not bench_tables(), reason="shared/bench is not beside the repo")
@pytest.mark.parametrize("path", bench_tables(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_partition_every_filled_cell_has_exactly_one_role(path):
    for grid in read_file(path):
        grid = grid.materialize()
        tables = analyse_grid(grid)
        seen: dict[tuple[int, int], str] = {}
        for table in tables:
            data_refs = [(d.cell.row, d.cell.col) for d in table.data]
            assert len(data_refs) == len(set(data_refs))
            for key, role in table.roles.items():
                assert key not in seen, f"{grid.sheet}!{key} in two tables"
                seen[key] = role
            assert {k for k, r in table.roles.items() if r == "data"} >= set(data_refs)
        missing = _filled_anchors(grid) - seen.keys()
        assert not missing, f"{grid.sheet}: cells without a role: {sorted(missing)[:10]}"


def test_a_serial_column_closed_by_a_total_row_is_not_the_label():
    data = workbook([("No.", "Category", "Topic", "Hours"), (1, "Audit", "Sampling", 8),
                     (2, "Audit", "Fraud", 6), (3, "Tax", "VAT", 4), ("Total", None, None, 18)])
    table = only_table(data)
    assert table.header_cols == [2]  # the running number in A is skipped, not the label
    assert table.row_paths[2] == ("Audit",)


def test_a_year_repeated_over_quarters_groups_the_rows():
    data = workbook([("Year", "Quarter", "Loans"), (2015, "Q1", 5), (2015, "Q2", 6),
                     (2015, "Q3", 7), (2016, "Q1", 8), (2016, "Q2", 9), (2016, "Q3", 4)])
    table = only_table(data)
    assert table.header_cols == [1, 2]
    assert table.row_paths[5] == ("2016", "Q1")


def test_a_year_merged_over_its_quarters_groups_the_rows():
    data = workbook([("Year", "Quarter", "Loans", "Recipients"), (2015, "Q1", 5, 50),
                     (None, "Q2", 6, 60), (2016, "Q1", 8, 80), (None, "Q2", 9, 90)],
                    merges=["A2:A3", "A4:A5"])
    table = only_table(data)
    assert table.header_cols == [1, 2]
    assert table.row_paths[3] == ("2015", "Q2") and table.row_paths[4] == ("2016", "Q1")


def test_an_empty_merged_strip_in_the_body_does_not_hide_the_year_labels():
    data = workbook([("Year", "Rate", "Youth rate"), (None, None, None), ("Total", None, None),
                     (1990, 7.3, 4.8), (1991, 7.3, 4.7), (1992, 7.4, 4.6), (1993, 7.5, 4.6)],
                    merges=["A2:C2"])
    table = only_table(data)
    assert table.header_cols == [1]
    assert table.row_paths[5] == ("Total", "1991")


def test_a_key_value_panel_above_a_table_is_a_table_of_its_own():
    data = workbook([("Data owner:", "Statistics Office"), ("Source:", "Annual survey"),
                     ("Updated:", "2009"), (None,), ("Businesses by sector",),
                     ("Sector", "2005", "2009"), ("Advertising", 220, 320),
                     ("Architecture", 519, 719), ("Publishing", 115, 115)])
    [(_, tables)] = structures_of(data)
    form, table = tables
    assert form.orientation == "kv" and form.region_ref == "A1:B3"
    assert table.region.title == "Businesses by sector"
    assert (table.header_rows, table.header_cols) == ([6], [1])


def test_a_blank_spacer_row_inside_the_header_keeps_both_header_rows():
    data = workbook([(None, "North East", None, "North West", None), (None,),
                     ("Sub-sector", "2005", "2009", "2005", "2009"),
                     ("Advertising", 220, 320, 1235, 1420), ("Architecture", 519, 719, 1461, 2086),
                     ("Publishing", 115, 115, 450, 395)], merges=["B1:C1", "D1:E1"])
    table = only_table(data)
    assert table.header_rows == [1, 3]
    assert table.col_paths[4] == ("North West", "2005")


def test_a_superscript_digit_column_is_not_mistaken_for_running_numbers():
    data = workbook([("Note", "Value"), ("²", 5), ("³", 6), ("¹", 7)])
    table = only_table(data)
    assert table.header_rows == [1]
    assert [dc.value.number for dc in table.data if dc.cell.col == 2] == [5, 6, 7]


# Blank spacer columns and rows between column groups ("2023" over Q1 Q2, blank, "2024" ...).

SPACED_ROWS = [("Region", 2023, None, None, 2024, None), (None, "Q1", "Q2", None, "Q1", "Q2"),
               ("North", 10, 11, None, 20, 21), ("South", 30, 31, None, 40, 41),
               ("East", 50, 51, None, 60, 61)]
SPACED_PATHS = ["2023 > Q1", "2023 > Q2", "2024 > Q1", "2024 > Q2"]


def test_a_blank_spacer_column_between_column_groups_is_not_a_path():
    data = workbook(SPACED_ROWS, merges=["A1:A2", "B1:C1", "E1:F1"])
    table = only_table(data)
    assert table.region_ref == "A1:F5" and table.header_rows == [1, 2]
    assert sorted(table.col_paths) == [2, 3, 5, 6]
    assert joined(table.col_paths) == SPACED_PATHS
    assert all(d.cell.col != 4 for d in table.data)
    assert [p["col"] for p in table.tree_json()["columns"]["paths"]] == [2, 3, 5, 6]


def test_a_spacer_column_under_a_group_header_merged_across_it_is_still_blank():
    rows = [("Region", "Sales", None, None, None, None), *SPACED_ROWS]
    table = only_table(workbook(rows, merges=["B1:F1", "B2:C2", "E2:F2"]))
    assert table.header_rows == [1, 2, 3]
    assert joined(table.col_paths) == [f"Sales > {p}" for p in SPACED_PATHS]


def test_a_spacer_column_in_a_csv_closes_the_group_header_left_of_it():
    text = "Region,2023,,,2024,\n,Q1,Q2,,Q1,Q2\n" + "".join(
        f"{r[0]},{r[1]},{r[2]},,{r[4]},{r[5]}\n" for r in SPACED_ROWS[2:])
    table = only_table(text.encode(), name="t.csv")
    assert joined(table.col_paths) == SPACED_PATHS  # "2023" does not reach the spacer


def test_a_spacer_column_in_html_with_an_empty_merged_strip_row():
    page = ("<table><tr><th rowspan=2>Region</th><th colspan=2>2023</th><th></th>"
            "<th colspan=2>2024</th></tr><tr><th>Q1</th><th>Q2</th><td></td><th>Q1</th>"
            "<th>Q2</th></tr><tr><td colspan=6></td></tr>" + "".join(
                f"<tr><td>{r[0]}</td><td>{r[1]}</td><td>{r[2]}</td><td>&nbsp;</td>"
                f"<td>{r[4]}</td><td>{r[5]}</td></tr>" for r in SPACED_ROWS[2:]) + "</table>")
    table = only_table(page.encode(), name="t.html")
    assert joined(table.col_paths) == SPACED_PATHS


def test_a_blank_spacer_row_under_a_row_of_years_keeps_one_table():
    rows = [SPACED_ROWS[0], (None,), *SPACED_ROWS[1:]]
    [(_, tables)] = structures_of(workbook(rows, merges=["B1:C1", "E1:F1"]))
    [table] = tables
    assert table.region_ref == "A1:F6" and table.header_rows == [1, 3]
    assert joined(table.col_paths) == SPACED_PATHS
    assert sorted(table.row_paths.values()) == [("East",), ("North",), ("South",)]


def test_a_column_with_a_blank_header_but_values_below_stays():
    notes = [None, None, "x", "y", "z"]  # column D: no header, text in every body row
    rows = [r[:3] + (note,) + r[4:] for r, note in zip(SPACED_ROWS, notes, strict=True)]
    table = only_table(workbook(rows, merges=["A1:A2", "B1:C1", "E1:F1"]))
    assert sorted(table.col_paths) == [2, 3, 4, 5, 6]
    assert table.col_paths[4] == ()
    assert {d.cell.text for d in table.data if d.cell.col == 4} == {"x", "y", "z"}


def test_plain_numbers_keep_no_typed_value_but_read_as_parse_raw_does():
    """Numbers shown as General writes them hold no TypedValue of their own (memory); the value
    a reader gets is still exactly what parse_raw gives, and every other number keeps its own."""
    def setup(ws):
        ws["C3"].number_format = "#,##0.0"  # shown "1,234.5": not plain
        ws["D4"].number_format = "0.0%"

    data = workbook([("Item", "A", "B", "C"), ("x", 12, 0.5, 1e-7), ("y", 10**20, 1234.5, 3.25),
                     ("z", 7, 2.0, 0.125)], setup=setup)
    table = only_table(data)
    assert len(table.data) == 9
    plain = {dc.cell.ref for dc in table.data if dc.typed is None}
    assert plain == {"B2", "C2", "B4", "C4", "D3"}  # 1e-7 is written with an exponent
    for dc in table.data:
        assert dc.value == parse_raw(dc.cell.raw, dc.cell.text), dc.cell.ref
    assert {dc.cell.ref: dc.value.kind for dc in table.data}["D4"] == "percent"


def test_leading_bullets_are_levels_whatever_the_label_starts_with():
    from types import SimpleNamespace

    from ingest.structure import depth

    def cell(text: str) -> SimpleNamespace:
        return SimpleNamespace(text=text, style=SimpleNamespace(indent=0))

    assert [depth(cell(t)) for t in ("Germany", "·  Bavaria", "·  ·  Munich", "·  15-24 years",
                                     "  padded", "•")] == [0, 1, 2, 1, 0, 0]


def test_distances_written_with_their_unit_in_a_first_row_of_names_are_a_header():
    text = ("Place,Bib,Athlete,Nat,5K,10K,Half,Finish\n"
            "1,1,Eliud Kipchoge,KEN,14:26,28:52,1:00:53,2:01:54\n"
            "2,2,Kelvin Kiptum,KEN,14:39,29:17,1:01:47,2:03:57\n")
    table = only_table(text.encode(), "splits.csv")
    assert table.header_rows == [1]
    assert joined(table.col_paths)[-4:] == ["5K", "10K", "Half", "Finish"]
    # Lettered numbers under their like are data: no header is made of a first data row.
    sizes = only_table(b"Item,North,South\nCable,5K,7K\nPlug,2K,3K\n", "sizes.csv")
    assert sizes.header_rows == [1] and joined(sizes.col_paths) == ["North", "South"]


def test_a_note_line_between_two_tables_is_the_upper_tables_note_not_the_lower_ones_caption():
    data = workbook([("Paid memberships by region (m)",), (),
                     ("Region", "2023", "2024"), ("US & Canada", 75.6, 80.1),
                     ("Latin America", 41.2, 47.7), (),
                     ("Note: Latin America includes Mexico.",), (), (),
                     ("Average monthly churn by region (%)",),
                     ("Region", "FY2023 churn (%)", "FY2024 churn (%)"),
                     ("US & Canada", 2.1, 1.9), ("Latin America", 3.8, 3.5)])
    [(_, tables)] = structures_of(data)
    assert [t.region.title for t in tables] == ["Paid memberships by region (m)",
                                                "Average monthly churn by region (%)"]
    assert tables[0].region.notes == ["Note: Latin America includes Mexico."]
    assert joined(tables[1].col_paths) == ["FY2023 churn (%)", "FY2024 churn (%)"]


def test_a_subtitle_row_is_a_sentence_of_its_own_about_the_columns_it_names():
    data = workbook([("Riverside Sports Club - Membership and Funding by Sport",),
                     ("Members = registered members at 31 Dec; Funding in GBP thousands",),
                     (), ("Sport", "Members", None, "Funding (GBP k)", None),
                     (None, 2022, 2023, 2022, 2023), ("Football", 1310, 1385, 190, 205.4),
                     ("Hockey", 302, 298, 57.8, 60.1)], merges=["B4:C4", "D4:E4", "A4:A5"])
    table = only_table(data)
    assert table.scale is None  # the subtitle's thousands are Funding's, which says so itself
    scales = {" > ".join(dc.col_paths[0]): dc.value.scale for dc in table.data}
    assert scales["Members > 2022"] is None and scales["Funding (GBP k) > 2022"] == 1000


def test_a_row_after_a_gap_less_indented_than_a_groups_members_is_not_one_of_them():
    data = workbook([("Area", "2011", "2021"), ("ENGLAND",), ("   North East", 449.9, 560),
                     ("   London", 1348.4, 1584.6), ("England total", 1798.3, 2144.6), (),
                     ("WALES",), ("   Wales", 525.5, 614.9), (),
                     ("England and Wales", 2323.8, 2759.5)])
    table = only_table(data)
    paths = [" > ".join(p) for _, p in sorted(table.row_paths.items())]
    assert paths[-2:] == ["WALES > Wales", "England and Wales"]


def test_a_unit_in_brackets_after_a_label_is_that_labels_alone():
    data = workbook([("Trading update FY2024",),
                     ("Like-for-like sales growth by brand (% vs prior year) and revenue (GBP m)",),
                     (), ("Brand", "2024", None, "Revenue (GBP m)", None),
                     (None, "Q1", "Q2", "FY2023", "FY2024"),
                     ("Bella Cucina", 1.9, 2.7, 176.2, 184.6),
                     ("Harbour Grill", 3.3, -0.8, 118.9, 121.3)],
                    merges=["B4:C4", "D4:E4", "A4:A5"])
    table = only_table(data)
    scales = {" > ".join(dc.col_paths[0]): dc.value.scale for dc in table.data}
    assert scales["2024 > Q2"] is None and scales["Revenue (GBP m) > FY2024"] == 10**6


def test_a_label_column_split_from_its_figures_by_a_spacer_joins_them_before_the_table_above():
    data = workbook([("Table A: Life expectancy at age 65 (years)",),
                     ("Member group", "Sex", "2021 valuation", "2024 valuation"),
                     ("Current pensioners", "Male", 21.9, 21.6), (None, "Female", 24.1, 23.8),
                     ("Mortality base table: S3PA.",), (),
                     ("Table B: Principal financial assumptions (% p.a.)",),
                     ("Assumption", None, "2021 valuation", "2024 valuation"),
                     ("Discount rate", None, 1.9, 4.9), ("RPI inflation", None, 3.4, 3.2)],
                    merges=["A3:A4"])
    [(_, tables)] = structures_of(data)
    assert [t.region.title for t in tables] == ["Table A: Life expectancy at age 65 (years)",
                                                "Table B: Principal financial assumptions (% p.a.)"]
    assert tables[1].row_paths[10] == ("RPI inflation",)


def test_periods_written_with_their_unit_merged_over_columns_are_a_header_row():
    data = workbook([("Investment performance (% p.a.)",), (),
                     ("Asset class", "1 year", None, "3 years", None),
                     (None, "Fund %", "Benchmark %", "Fund %", "Benchmark %"),
                     ("UK equities", 8.4, 8.2, 7.1, 7.4), ("Property", -4.6, -3.9, 1.2, 1.9)],
                    merges=["B3:C3", "D3:E3", "A3:A4"])
    table = only_table(data)
    assert table.header_rows == [3, 4]
    assert joined(table.col_paths)[:2] == ["1 year > Fund %", "1 year > Benchmark %"]


def test_a_headers_thousands_in_pounds_beat_a_notes_millions():
    data = workbook([("Table 4a: Research income by funder",), (),
                     ("Funder", "Income (£000)", None), (None, "2022/23", "2023/24"),
                     ("EPSRC", 13420, 14980), ("Wellcome Trust", 6950, 7120), (),
                     ("Source: HESA. QR is shown in £ million and is not included in the total.",)],
                    merges=["B3:C3", "A3:A4"])
    table = only_table(data)
    assert {dc.value.scale for dc in table.data} == {1000}
