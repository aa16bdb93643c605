"""Answers that read the column the question names (never a sum of its siblings), answers in
the form of their cited cells, and step events worded for people."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

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
    import agent.nodes
    from agent.solver import Plan

    workspace.add_file(states(tmp_path))

    def sibling_sum(grounding, analysis):
        frame = grounding.frame
        keys = [a.key for a in frame.data_attrs if a.path[-1] == "sq mi"]
        row = next(r for r in frame.rows if frame.row_paths[r] == ("Montana",))
        return Plan(frame, "group_sum", "sum of the sq mi columns", [row], keys)

    monkeypatch.setattr(agent.nodes, "plan", sibling_sum)
    answer = answer_question(workspace, "What is the total area of Montana in sq mi?")
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
