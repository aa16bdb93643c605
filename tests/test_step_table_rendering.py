"""Step tables as the chat shows them: any table the engine (or an old transcript) holds lays
out, charts what is numeric or gets no chart, and converts for st.dataframe and Vega-Lite.

Property tests over generated step tables: empty strings, None, text in numeric columns,
NaN and infinities, one row, no rows, 500 rows, bookkeeping columns, ragged rows.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.dataframe_util import convert_pandas_df_to_arrow_bytes

from tablelens.charts import chart_for, vega_lite_spec
from tablelens.exports import table_frame
from tablelens.table_view import SHEET_ROW, column_label, download_columns, table_view
from tablelens.turn_html import table_html

CELL = st.one_of(st.none(), st.just(""), st.text(max_size=12), st.integers(-10**12, 10**12),
                 st.floats(allow_nan=True, allow_infinity=True), st.booleans())
NAMES = st.one_of(st.sampled_from(["_row", "level_1", "level_2", "Q1", "H1 2024 > Q2", "total",
                                   "avg", "", "a.b[0]", "Revenue (as written)"]),
                  st.text(max_size=10))


@st.composite
def step_tables(draw):
    columns = draw(st.lists(NAMES, min_size=0, max_size=6))
    n_rows = draw(st.sampled_from([0, 1, 2, 3, 7, 50, 500]))
    column = st.lists(CELL, min_size=n_rows, max_size=n_rows)
    by_column = [draw(column) for _ in columns]
    rows = [[c[i] for c in by_column] for i in range(n_rows)]
    if rows and draw(st.booleans()):  # a ragged row, as a hand-edited transcript might hold
        rows[0] = rows[0][:-1]
    table = {"name": "step_x_1", "columns": columns, "rows": rows,
             "row_count": draw(st.sampled_from([n_rows, n_rows + 10]))}
    if draw(st.booleans()):
        table["labels"] = draw(st.lists(st.text(max_size=8), min_size=len(columns),
                                        max_size=len(columns)))
    if draw(st.booleans()):  # header tooltips, one per column, some absent
        table["notes"] = draw(st.lists(st.one_of(st.none(), st.text(max_size=8)),
                                       min_size=len(columns), max_size=len(columns)))
    if draw(st.booleans()):
        table["row_labels"] = draw(st.lists(st.text(max_size=8), min_size=n_rows,
                                            max_size=n_rows))
    return table


# No deadline: the first example pays the dataframe conversion's warm-up (267 ms once, in a
# full run on a loaded 2-CPU machine, against the 200 ms default); this checks layout, not speed.
@settings(deadline=None)
@given(step_tables())
def test_any_step_table_lays_out_charts_or_not_and_converts(table):
    view = table_view(table)
    assert len(set(view.columns)) == len(view.columns)
    assert all(len(row) == len(view.columns) for row in view.rows)
    assert view.count >= len(view.rows)
    if "_row" in table["columns"]:
        assert view.columns[-1] == view.sheet_row
    convert_pandas_df_to_arrow_bytes(table_frame(view.columns, view.rows))  # st.dataframe's path
    spec = chart_for(view.columns, view.rows, skip={view.sheet_row or ""})
    if spec is None:
        return
    assert 2 <= len(spec.labels) <= 50 and len(set(spec.labels)) == len(spec.labels)
    for series in spec.values:
        assert len(series) == len(spec.labels)
        assert all(v is None or (isinstance(v, float) and abs(v) != float("inf") and v == v)
                   for v in series)
    assert view.sheet_row not in spec.series
    json.dumps(vega_lite_spec(spec), allow_nan=False)  # what the browser is sent


def test_a_numeric_column_with_blanks_charts_with_gaps():
    """The crash of issue 9: float('') on a blank cell of a tree-navigation step table."""
    spec = chart_for(["Region", "2023", "2024"],
                     [["North", 1.5, ""], ["South", "", 2.0], ["East", 3, 4]])
    assert spec is not None
    assert spec.values == ((1.5, None, 3.0), (None, 2.0, 4.0))


def test_a_column_of_numbers_and_text_is_a_label_not_a_series():
    assert chart_for(["kind", "text", "rows/score"],
                     [["value", "Rent", 3], ["column", "Q2", "0.83 (fuzzy)"],
                      ["unmatched word", "life", ""]]) is None


def test_a_column_with_one_number_among_blanks_is_no_series():
    assert chart_for(["kind", "text", "rows/score"],
                     [["value", "Rent", 3], ["unmatched word", "life", ""]]) is None


def test_header_paths_with_dots_and_brackets_stay_values_in_the_chart():
    spec = chart_for(["Row", "a.b[0]", "x\"y"], [["one", 1, 2], ["two", 3, 4]])
    chart = vega_lite_spec(spec)
    fields = {e.get("field") for e in chart["encoding"].values() if isinstance(e, dict)}
    assert fields <= {"label", "value", "series"}
    assert {v["series"] for v in chart["data"]["values"]} == {"a.b[0]", "x\"y"}


def test_the_view_shows_row_paths_first_header_paths_as_labels_and_the_sheet_row_last():
    view = table_view({
        "name": "step_r_2", "columns": ["_row", "level_1", "level_2", "H1_2024_Q2"],
        "labels": ["Sheet row", "Section", "Item", "H1 2024 > Q2"],
        "row_labels": ["Operating Expenses > Salaries", "Operating Expenses > Rent"],
        "rows": [[5, "Operating Expenses", "Salaries", 230], [6, "Operating Expenses", "Rent",
                                                              50]],
        "row_count": 2, "title": "Rows used, from financial.xlsx (sheet P&L)"})
    # The row-level columns repeat parts of each row's path: the path shows them once.
    assert view.columns == ["Row", "H1 2024 > Q2", "Sheet row"]
    assert view.rows[0] == ["Operating Expenses > Salaries", 230, 5]
    assert view.sheet_row == "Sheet row"
    assert view.caption() == "Rows used, from financial.xlsx (sheet P&L): 2 rows"
    assert download_columns(view, ["_row", "level_1", "H1_2024_Q2", "other"]) == [
        "Sheet row", "Section", "H1 2024 > Q2", "other"]


def test_a_row_level_the_rows_shown_do_not_reach_is_not_a_column_of_blanks():
    # A browser tester saw "Row | Row (2)" with "None" for Net Income, a row of one level
    # in a table of two.
    view = table_view({
        "name": "step_r_2", "columns": ["_row", "level_1", "level_2", "H2_2024_Q3"],
        "labels": ["Sheet row", "Row", "Row", "H2 2024 > Q3"], "row_labels": ["Net Income"],
        "rows": [[8, "Net Income", None, 305]], "row_count": 1, "title": "Rows used"})
    assert view.columns == ["Row", "H2 2024 > Q3", "Sheet row"]
    assert view.rows == [["Net Income", 305, 8]]


def test_a_stored_table_without_labels_is_still_in_plain_words():
    view = table_view({"name": "t: rows used", "columns": ["_row", "level_1", "total"],
                       "rows": [[3, "Rent", 10]], "row_count": 120})
    assert view.columns == ["Row level 1", "Total", SHEET_ROW]
    assert view.caption() == "Intermediate table: 120 rows, the first 1 shown"


@pytest.mark.parametrize(("name", "label"), [("_row", "Sheet row"), ("level_3", "Row level 3"),
                                             ("avg", "Average"), ("H1 2024 > Q2",
                                                                  "H1 2024 > Q2")])
def test_column_labels_for_names_alone(name, label):
    assert column_label(name) == label


def test_a_column_of_row_paths_is_charted_by_the_most_specific_part():
    view = table_view({"name": "t", "columns": ["_row", "level_1", "Q2"],
                       "row_labels": ["Costs > Rent", "Costs > Salaries"],
                       "rows": [[5, "Costs", 50], [6, "Costs", 230]], "row_count": 2})
    spec = chart_for(view.columns, view.rows, skip={view.sheet_row})
    assert spec.labels == ("Rent", "Salaries") and spec.series == ("Q2",)


DERIVED_TABLE = {
    "name": "step_r_2", "columns": ["_row", "Driver", "Nationality", "country", "_status"],
    "labels": ["Sheet row", "Driver", "Nationality", "Country", "Derived value status"],
    "notes": [None, None, None, "the country this nationality implies", "ok, or why not"],
    "row_labels": ["Ana Alves", "Bo Berg"],
    "rows": [[2, "Ana Alves", "German", "Germany", "ok"], [3, "Bo Berg", "French", "France",
                                                          "ok"]],
    "row_count": 2, "title": "Country, derived from Nationality"}


def test_a_derived_columns_instruction_is_its_header_tooltip():
    view = table_view(DERIVED_TABLE)
    # The row-level column gives way to the row path; the tooltips follow their columns.
    assert view.columns == ["Row", "Nationality", "Country", "Derived value status", SHEET_ROW]
    assert view.notes == {"Country": "the country this nationality implies",
                          "Derived value status": "ok, or why not"}
    html = table_html(DERIVED_TABLE)
    assert '<th title="the country this nationality implies">Country</th>' in html
    assert "<th>Nationality</th>" in html


def test_tooltips_that_do_not_fit_the_columns_are_left_out():
    view = table_view({**DERIVED_TABLE, "notes": ["only one"]})
    assert view.notes is None and view.columns[2] == "Country"
