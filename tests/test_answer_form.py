"""Answers that read the column the question names (never a sum of its siblings), answers in
the form of their cited cells, and step events worded for people."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.events import Answer
from agent.run import answer_question
from storage.workspace import Workspace

# A Wikipedia-style table of states by area: a two-row header where "sq mi" and "km2" recur
# under each of "Total area", "Land area" and "Water area".
STATES = """<html><body><table class="wikitable sortable">
<caption>States of the United States by area</caption>
<tr><th rowspan="2">State</th><th colspan="3">Total area</th><th colspan="3">Land area</th>
    <th colspan="3">{water}</th></tr>
<tr><th>sq mi</th><th>km<sup>2</sup></th><th>Rank</th><th>sq mi</th><th>km<sup>2</sup></th>
    <th>% land</th><th>sq mi</th><th>km<sup>2</sup></th><th>% water</th></tr>
<tr><td>Alaska</td><td>665,384.04</td><td>1,723,337</td><td>1</td><td>570,640.95</td>
    <td>1,477,953</td><td>85.76%</td><td>94,743.10</td><td>245,384</td><td>14.24%</td></tr>
<tr><td>Texas</td><td>268,596.46</td><td>695,662</td><td>2</td><td>261,231.71</td>
    <td>676,587</td><td>97.26%</td><td>7,364.75</td><td>19,075</td><td>2.74%</td></tr>
<tr><td>Montana</td><td>147,039.71</td><td>380,831</td><td>4</td><td>145,545.80</td>
    <td>376,962</td><td>98.98%</td><td>1,493.91</td><td>3,869</td><td>1.02%</td></tr>
<tr><td>New Mexico</td><td>121,590.30</td><td>314,917</td><td>5</td><td>121,298.15</td>
    <td>314,161</td><td>99.76%</td><td>292.15</td><td>757</td><td>0.24%</td></tr>
</table></body></html>
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    ws = Workspace(tmp_path / "ws")
    yield ws
    ws.close()


def states(tmp_path: Path, water: str = "Water area") -> Path:
    path = tmp_path / "states.html"
    path.write_text(STATES.format(water=water), encoding="utf-8")
    return path


def cited(answer: Answer) -> list[str]:
    return sorted(e.ref for e in answer.evidence)


# ---------------------------------------------------------------------------------------------
# A. The question names one column: read it, or refuse; never add its siblings.

# "Water" alone (no "area") is the header that made three sibling "sq mi" columns look like
# three named columns, and the answer their sum (294,079).
@pytest.mark.parametrize("water", ["Water area", "Water"])
@pytest.mark.parametrize(("question", "values", "refs"), [
    ("What is the total area of Montana in sq mi?", [147039.71], ["B5"]),
    ("What is the total area in sq mi of Montana?", [147039.71], ["B5"]),
    ("What is the land area of Texas in km2?", [676587], ["F4"]),
    ("What was the land area of Alaska in sq mi?", [570640.95], ["E3"]),
])
def test_a_named_column_is_read_not_summed_with_its_siblings(workspace, tmp_path, water,
                                                             question, values, refs):
    workspace.add_file(states(tmp_path, water))
    answer = answer_question(workspace, question)
    assert answer.error is None, answer.error
    assert answer.values == values
    assert cited(answer) == refs


@pytest.mark.parametrize("water", ["Water area", "Water"])
@pytest.mark.parametrize("question", [
    "What is the area of Montana?",          # total, land or water: not said
    "What is the area of Montana in sq mi?",  # three columns in sq mi
    "What is the total area of Montana?",     # sq mi or km2: adding them mixes units
])
def test_a_question_that_does_not_pick_one_sibling_is_refused(workspace, tmp_path, water,
                                                              question):
    workspace.add_file(states(tmp_path, water))
    answer = answer_question(workspace, question)
    assert answer.answer is None and answer.values == []
    assert answer.error is not None


def test_validate_flags_an_aggregate_over_columns_the_question_did_not_name(
        workspace, tmp_path, monkeypatch):
    """Whatever plans it (a future planner, an LLM), adding sibling columns is not verified."""
    from agent.plan import GroupSum
    from agent.planner import Planning

    workspace.add_file(states(tmp_path))

    class SiblingSum:
        """A planner that adds the sq mi columns of Montana, which the question does not name."""

        def plan(self, analysis, frames, progress=None):
            [frame] = frames
            keys = [a.key for a in frame.data_attrs if a.path[-1] == "sq mi"]
            row = next(r for r in frame.rows if frame.row_paths[r] == ("Montana",))
            return Planning(plan=GroupSum(table=frame.ref, description="sum of the sq mi columns",
                                          rows=[row], columns=keys))

    answer = answer_question(workspace, "What is the total area of Montana in sq mi?",
                             planner=SiblingSum())
    assert answer.answer is None and answer.values == []
    assert answer.error is not None and answer.error.kind == "not_verified"
    assert "does not name Land area > sq mi, Water area > sq mi" in answer.error.message
    validate = next(s for s in answer.steps if s.node == "validate")
    assert validate.title == "Could not verify"
    assert "does not name" in validate.detail


def test_a_column_group_of_parts_is_still_added(workspace, samples):
    """H2 2024 over Q3 and Q4: the leaves are parts of the header the question names."""
    workspace.add_file(samples / "financial.xlsx")
    answer = answer_question(workspace, "What was the net income for H2 2024?")
    assert answer.values == [600]


# ---------------------------------------------------------------------------------------------
# B. A computed number is written as its cited cells are, with the unit and scale stated.

from agent.display import cell_form, format_number, header_unit, with_unit  # noqa: E402
from agent.frame import Attr  # noqa: E402


@pytest.mark.parametrize(("value", "cells", "extra", "text"), [
    (405.514, ["113.2", "186.4", "105.9"], 0, "405.5"),        # a sum keeps 1 decimal
    (294079.42, ["147,039.71", "145,545.80"], 0, "294,079.42"),  # separators as the cells
    (6891168.06, ["1,234", "5,689,934.06"], 0, "6,891,168.06"),
    (120000, ["12000", "900"], 0, "120000"),                   # cells without separators
    (1331716.34, ["1234.56", "438.21"], 0, "1,331,716.34"),    # four bare digits tell nothing
    (6891168, ["12", "30"], 0, "6,891,168"),                   # too small to tell: from 5 digits
    (1070, ["500", "320", "250"], 0, "1070"),
    (27.75, ["25", "31", "28", "27"], 1, "27.8"),              # an average: one decimal more
    (10.0, ["10", "10"], 1, "10"),                             # ... no trailing zero
    (135.166667, ["113.2", "186.4"], 1, "135.17"),
    (72.8, ["24.1%", "30.2%", "18.5%"], 0, "72.8%"),           # percent
    (2410.75, ["$1,200.50", "$900.25"], 0, "$2,410.75"),       # currency symbol
    (-9619.5, ["$(6,653)", "$(12,586.5)"], 0, "-$9,619.5"),    # accounting negatives
    (4.2, ["1.2 million", "3 million"], 0, "4.2 million"),     # a scale written in the cells
    (319727, ["D   114,903", "D   204,824"], 0, "319,727"),    # a flag marks cells, not sums
    (20.5, ["12 (e)", "8.5 (e)"], 0, "20.5"),
    (24, ["12 m", "12 m"], 0, "24 m"),                         # a letter after is a scale
    (900, ["Rs 500", "Rs 400"], 0, "Rs900"),                   # two letters may be a currency
    (12000, ["8 000", "4 000"], 0, "12 000"),                  # grouped by spaces, not " 000"
    (4000, ["25\u00a0728", "21\u00a0728"], 0, "4\u00a0000"),
    (1716418, ["858 209", "858 209"], 0, "1 716 418"),
])
def test_a_number_is_written_as_its_cells_are(value, cells, extra, text):
    assert format_number(value, cell_form(cells), extra) == text


@pytest.mark.parametrize(("path", "unit"), [
    (("Emissions (MtCO2e)",), "MtCO2e"),
    (("Revenue [£ billion]",), "£ billion"),
    (("Sales", "$ million"), "$ million"),
    (("Revenue", "(in thousands)"), "in thousands"),
    (("Growth", "%"), "%"),
    (("Total", "Amount"), None),                        # a word naming_path skips, not a unit
    (("Results (2019)",), None),                        # a year in brackets
    (("Census (total population 838.14 million)",), None),
    (("H1 2024", "Q2"), None),
    (("Deaths (age <15)",), None),                       # a condition on the rows
    (("International (total)",), None),                  # how the figure was made
    (("Deaths (est.)",), None),
    (("Revenue", "(in thousands, except percentages)"), "in thousands"),
])
def test_the_unit_a_header_path_states(path, unit):
    assert header_unit(Attr("k", path, "data", 0)) == unit


@pytest.mark.parametrize(("number", "unit", "text"), [
    ("405.5", "MtCO2e", "405.5 MtCO2e"),
    ("1,234.5", "£ billion", "£1,234.5 billion"),
    ("-5", "$ thousand", "-$5 thousand"),
    ("12", "%", "12%"),
    ("7", None, "7"),
])
def test_a_unit_is_written_beside_the_number(number, unit, text):
    assert with_unit(number, unit) == text


EMISSIONS = """<html><body><table>
<tr><th rowspan="2">Sector</th><th rowspan="2">Emissions (MtCO2e)</th><th rowspan="2">Cost</th>
    <th>Revenue</th></tr>
<tr><th>$ million</th></tr>
<tr><td>Transport</td><td>113.2</td><td>$1,200.50</td><td>1,204.5</td></tr>
<tr><td>Energy</td><td>186.4</td><td>$900.25</td><td>2,001.2</td></tr>
<tr><td>Buildings</td><td>105.9</td><td>$310.00</td><td>870.0</td></tr>
</table></body></html>
"""


@pytest.mark.parametrize(("question", "text", "values", "unit"), [
    ("What were the total emissions in MtCO2e?", "405.5 MtCO2e", [405.5], "MtCO2e"),
    ("What were the emissions in MtCO2e of Energy?", "186.4 MtCO2e", [186.4], "MtCO2e"),
    ("What was the average emissions in MtCO2e?", "135.17 MtCO2e", [135.166667], "MtCO2e"),
    ("What was the total cost?", "$2,410.75", [2410.75], "$"),
    ("What was the total revenue?", "$4,075.7 million", [4075.7], "$ million"),
    ("What was the revenue of Energy?", "$2,001.2 million", [2001.2], "$ million"),
])
def test_answers_keep_the_cells_form_and_state_the_unit(workspace, tmp_path, question, text,
                                                         values, unit):
    path = tmp_path / "emissions.html"
    path.write_text(EMISSIONS, encoding="utf-8")
    workspace.add_file(path)
    answer = answer_question(workspace, question)
    assert answer.error is None, answer.error
    assert (answer.answer, answer.values, answer.unit) == (text, values, unit)


@pytest.mark.parametrize(("question", "text"), [
    ("What was the useful life of Buildings?", "40 years"),     # "(in years)": years
    ("What were the deaths of Offices?", "16"),                   # "(age <15)" is no unit
    ("What was the share of revenue of Buildings?", "12%"),      # no "dollars" after a percent
])
def test_the_words_beside_a_number_are_a_unit(workspace, tmp_path, question, text):
    path = tmp_path / "units.html"
    path.write_text("<table><tr><th>Item</th><th>Useful life (in years)</th>"
                    "<th>Deaths (age &lt;15)</th><th>Share of revenue (dollars)</th></tr>"
                    "<tr><td>Buildings</td><td>40</td><td>7</td><td>12%</td></tr>"
                    "<tr><td>Offices</td><td>5</td><td>16</td><td>3%</td></tr></table>",
                    encoding="utf-8")
    workspace.add_file(path)
    answer = answer_question(workspace, question)
    assert answer.answer == text, answer.error


def test_a_lookup_shows_the_cell_as_displayed(workspace, tmp_path):
    workspace.add_file(states(tmp_path))
    answer = answer_question(workspace, "What is the total area of Montana in sq mi?")
    assert answer.answer == "147,039.71"
    assert answer.values == [147039.71]



def _rounded_book(tmp_path: Path) -> Path:
    """A workbook that stores more digits than its number format shows (as modelled sheets do)."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Employment"
    ws.append(["Sector", "North", "South"])
    for sector, north, south in [("Creative", 257285.339936, 1210.5), ("Sport", 9871.6, 77.25)]:
        ws.append([sector, north, south])
    for row in (2, 3):
        ws.cell(row, 2).number_format = "#,##0"
        ws.cell(row, 3).number_format = "0.0"
    path = tmp_path / "employment.xlsx"
    wb.save(path)
    return path


@pytest.mark.parametrize(("question", "text", "values"), [
    ("What was the employment in the Creative sector for North?", "257,285", [257285]),
    ("What is the highest North?", "257,285", [257285]),
    # 77.25 shown as "77.3" (one decimal): the reader reads 77.3 on the sheet.
    ("What was the South employment of Sport?", "77.3", [77.3]),
    # Two cells added: the stored numbers, as the workbook itself adds them.
    ("What is the total North?", "267,157", [267156.939936]),
])
def test_one_cell_read_answers_the_number_the_report_shows(workspace, tmp_path, question, text,
                                                           values):
    workspace.add_file(_rounded_book(tmp_path))
    answer = answer_question(workspace, question)
    assert answer.error is None, answer.error
    assert (answer.answer, answer.values) == (text, values)

# ---------------------------------------------------------------------------------------------
# C. Step events in words for people: plurals, no internal names, labelled tables.

from agent.events import StepEvent, TablePayload  # noqa: E402
from agent.run import stream_question  # noqa: E402

FINANCIAL_QUESTIONS = [
    "What was the total operating expense for Q2 2024?",
    "What was the revenue in Q3 2024?",
    "What was the net income for H2 2024?",
    "Which item had the highest value in Q1 2024?",
    "What is the average revenue?",
    "What was the meaning of life in Q5?",  # refused: the grounding table is still shown
]
STATES_QUESTIONS = [
    "What is the total area of Montana in sq mi?",
    "What is the land area of Texas in km2?",
    "Which state has the largest water area in sq mi?",
    "What is the total area of Montana?",
]


def _events(ws: Workspace, question: str) -> list[StepEvent]:
    return [item for item in stream_question(ws, question) if isinstance(item, StepEvent)]


def _check_people_words(ws: Workspace, events: list[StepEvent]) -> int:
    """Check every event's words and table payload; return how many payloads were seen."""
    ids = ws.table_ids()
    seen = 0
    for event in events:
        words = " ".join(filter(None, [event.title, event.detail]))
        assert "(s)" not in words, words
        assert not any(t in words for t in ids), words
        assert "step_" not in words and "level_" not in words and "_row" not in words, words
        assert not any(f" 1 {noun}s" in f" {words}" for noun in ("row", "table", "cell")), words
        if event.table is None:
            continue
        seen += 1
        table = event.table
        assert table.title and not any(t in table.title for t in ids), table.title
        assert table.labels is not None and len(table.labels) == len(table.columns)
        assert not any(label.startswith(("_row", "level_")) or "level_" in label
                       for label in table.labels), table.labels
        if "_row" in table.columns:
            assert table.row_labels is not None and len(table.row_labels) == len(table.rows)
            assert all(table.row_labels), table.row_labels
        else:
            assert table.row_labels is None
    return seen


@pytest.mark.parametrize("question", FINANCIAL_QUESTIONS)
def test_financial_step_events_are_worded_for_people(workspace, samples, question):
    workspace.add_file(samples / "financial.xlsx")
    assert _check_people_words(workspace, _events(workspace, question)) >= 1


@pytest.mark.parametrize("question", STATES_QUESTIONS)
def test_html_step_events_are_worded_for_people(workspace, tmp_path, question):
    workspace.add_file(states(tmp_path))
    assert _check_people_words(workspace, _events(workspace, question)) >= 1


def test_two_workbooks_name_files_and_sheets_not_table_ids(workspace, samples):
    workspace.add_file(samples / "financial.xlsx")
    workspace.add_file(samples / "hr.xlsx")
    events = _events(workspace, "What was the revenue in Q3 2024?")
    _check_people_words(workspace, events)
    found = next(e for e in events if e.node == "retrieve" and e.phase == "end")
    assert "financial.xlsx, sheet P&L" in found.detail


def test_the_rows_used_carry_header_paths_and_row_paths(workspace, samples):
    workspace.add_file(samples / "financial.xlsx")
    events = _events(workspace, "What was the total operating expense for Q2 2024?")
    used = next(e.table for e in events if e.node == "tree_navigate" and e.table)
    assert used.title == "Rows used, from financial.xlsx (sheet P&L)"
    assert used.labels[0] == "Sheet row"
    assert "H1 2024 > Q2" in used.labels
    assert any(label.endswith("> Rent") or label == "Rent" for label in used.row_labels)
    sql = next(e for e in events if e.node == "sql_step" and e.phase == "end")
    assert sql.title == "SQL returned 1 row" and sql.table.title == "SQL result"
    validate = next(e for e in events if e.node == "validate" and e.phase == "end")
    assert validate.detail.startswith("3 cited cells match")


def test_a_stored_event_without_the_label_fields_still_loads():
    old = {"schema_version": 1, "run_id": "r", "seq": 3, "node": "sql_step", "phase": "end",
           "title": "SQL returned 1 row(s)", "elapsed_ms": 2,
           "table": {"name": "step_r_1", "columns": ["total"], "rows": [[375]], "row_count": 1}}
    event = StepEvent.model_validate(old)
    assert event.table.labels is None and event.table.title is None
    assert "labels" not in event.to_json_dict()["table"]
    new = TablePayload(name="t", columns=["a"], labels=["A"], title="SQL result")
    assert new.to_json_dict() == {"name": "t", "columns": ["a"], "rows": [], "row_count": 0,
                                  "labels": ["A"], "title": "SQL result"}


def _trade_book(tmp_path: Path) -> Path:
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["Item", "2021", "2022"])
    ws.append(["Agricultural exports", 171.8, 196.1])
    ws.append(["Agricultural imports", 163.3, 194.1])
    ws.append(["Trade balance", 8.5, 2.0])
    path = tmp_path / "trade.xlsx"
    wb.save(path)
    return path


def test_values_that_share_their_first_words_are_both_named(workspace, tmp_path):
    # "agricultural exports and imports": "Agricultural exports" and "Agricultural imports".
    workspace.add_file(_trade_book(tmp_path))
    answer = answer_question(workspace, "What was the total of agricultural exports and "
                                        "imports in 2022?")
    assert answer.error is None, answer.error
    assert answer.values == [390.2]
    assert sorted(e.ref for e in answer.evidence) == ["C2", "C3"]


def test_a_shared_head_is_not_lent_to_a_word_that_names_no_value(workspace, tmp_path):
    # "balance" completes no "Agricultural …" value: it is not read as one.
    workspace.add_file(_trade_book(tmp_path))
    answer = answer_question(workspace, "What were the agricultural exports and balance "
                                        "in 2022?")
    assert answer.values != [196.1 + 2.0]


_PARTS = st.sampled_from(["$", "€", "", "(", ")", "%", " m", "-", "12 of 30", "1,234", "5.25",
                          ".5", "2019", "n/a", "٣٤", "１２", " of 4", "18000"])


@given(st.lists(st.lists(_PARTS, min_size=1, max_size=3).map("".join), max_size=8))
def test_the_written_form_read_once_per_shape_is_the_form_read_from_every_cell(texts):
    import agent.display as display

    shaped = display.cell_form(texts)
    saved = display._one_per_shape
    display._one_per_shape = list  # every text read
    try:
        assert display.cell_form(texts) == shaped
    finally:
        display._one_per_shape = saved
