"""A table's facts found by SQL over its stored cells (agent/cell_scan.py) are the facts found
from its frame, value by value: the rows that restate others, the year and id-like columns,
the swallowed header, the words and value phrases (with their order, which questions see)."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest

from agent.cell_scan import scan_of, text_groups, text_values
from agent.frame import Frame, load_frames
from agent.grounding import _read_value_phrases, _read_vocabulary
from agent.table_facts import compute_profile
from ingest.limits import Limits
from storage.workspace import Workspace
from tests.conftest import SAMPLES

TRICKY = {
    # A total row, a subtotal in a code column, a repeated header row, a row that writes two
    # headers (in capitals, padded with other spaces), blanks, numbers written as text, a
    # cell padded with non-breaking spaces, a year column.
    "totals.csv": """Region,Code,Year,Sales,Share
North,A1,2019,"1,200",10%
South,A2,2020,800,5%
Region,Code,Year,Sales,Share
East,142 Total,2021,2000,15%
West,,2022,,
\u00a0Overall\u00a0,A5,2023,4000,30%
Grand total,,,8000,
Mixed,0042,1999,n/a,
Block 2, CODE ,YEAR,100,5%
""",
    # Every number whole and different (ids), one column of years only, a total label
    # written in capitals and one ending in "total".
    "ids.csv": """Team,Id,Season,Points
Alpha,11,1990,5
Beta,12,1991,7
Gamma,13,1992,7
Delta,14,1993,9
TOTAL,,,28
Team subtotal,,,1
""",
    # Text in a number column, a date column, repeated texts on several rows.
    "mixed.csv": """Name,Score,When,City
Ann,12.5,2024-01-02,Zürich
Bob,abc,2024-01-03,Zürich
Cid,3,2024-01-02,São Paulo
Ann,4,,Lyon
Total,19.5,,
""",
}


def _swallowed(path: Path) -> Path:
    """A workbook whose second header row is data: "Denver" is also a cell below it, and
    "July 11, 2013" has the kind of its column's cells."""
    book = openpyxl.Workbook()
    sheet = book.active
    for row in [["Going to", None, "Fare", None],
                ["Boston", "Denver", "July 11, 2013", "Economy"],
                ["Boston", "Denver", "July 12, 2013", "Economy"],
                ["Chicago", "Boston", "July 13, 2013", "Business"],
                ["Austin", "Denver", "July 14, 2013", "Economy"],
                ["Denver", "Austin", "July 15, 2013", "First"]]:
        sheet.append(row)
    sheet.merge_cells("A1:B1")
    sheet.merge_cells("C1:D1")
    book.save(path)
    return path


def _frames(tmp_path: Path, limits: Limits | None = None) -> list[Frame]:
    workspace = Workspace(tmp_path / "ws")
    for name, text in TRICKY.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        workspace.add_file(tmp_path / name, **({"limits": limits} if limits else {}))
    if limits is None:
        workspace.add_file(_swallowed(tmp_path / "swallowed.xlsx"))
        for sample in ["financial.xlsx", "hr.xlsx", "multi_sheet.xlsx", "html/spans.html",
                       "html/multi.html", "md/two_tables.md", "csv/latin1_semicolon.csv"]:
            workspace.add_file(SAMPLES / sample)
    return load_frames(workspace)


def _facts(frame: Frame, by_sql: bool):
    profile = compute_profile(frame, by_sql=by_sql)
    vocabulary = _read_vocabulary(frame, by_sql=by_sql)
    phrases = _read_value_phrases(frame, by_sql=by_sql)
    return (profile, sorted(vocabulary.items(), key=lambda kv: kv[0]),
            [(p, {k: sorted(r) for k, r in keys.items()}) for p, keys in
             phrases.candidates.items()], phrases.texts,
            [(k, t, sorted(r)) for k, t, r in text_groups(frame, by_sql=by_sql)],
            text_values(frame, by_sql=by_sql))


@pytest.mark.parametrize("flat", [False, True], ids=["analysed", "flat"])
def test_facts_by_sql_are_the_facts_from_the_frame(tmp_path: Path, flat: bool):
    frames = _frames(tmp_path, Limits(flat_csv_cells=0) if flat else None)
    scanned = [f for f in frames if scan_of(f) is not None]
    assert len(scanned) >= len(TRICKY)  # the SQL side is what is compared
    for frame in frames:
        by_sql = _facts(frame, True)
        # A new frame: the first computation must not have read columns for the second.
        [again] = [f for f in load_frames(Workspace(tmp_path / "ws")) if f.table == frame.table]
        assert by_sql == _facts(again, False), frame.table


def test_the_tricky_rows_are_found(tmp_path: Path):
    """The comparison above compares real facts: the tricky tables have them."""
    every = _frames(tmp_path)
    assert {compute_profile(f).row_depth for f in every} >= {1, 2}  # nested rows too
    frames = {f.file_name: f for f in every}
    totals = compute_profile(frames["totals.csv"])
    # "142 Total", "Overall", "Grand total", "CODE, YEAR".
    assert len(totals.summary_rows) == 4
    assert "Year" in totals.year_columns
    ids = compute_profile(frames["ids.csv"])
    assert {"Id", "Season"} <= ids.distinct_whole_columns
    swallowed = frames["swallowed.xlsx"]
    assert scan_of(swallowed) is not None
    assert compute_profile(swallowed).swallowed_header == "Denver"
