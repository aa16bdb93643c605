"""Which rows and columns a focused context shows first, on generated tables too large for the
budget: an extreme over the rows the question names, numeric conditions, placeholder cells in a
column of numbers, total rows, and a column the question names by its own header words.

Real SQLite, in-memory Qdrant and the bundled embedding model; the tables are written here.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from agent.context_builder import ContextBuilder, _worded_columns_first, shared_counter
from bench.context_recall import in_context
from bench.workloads import sized_workbook
from storage.embedder import shared_embedder
from storage.vector_index import VectorIndex
from storage.workspace import Workspace

pytestmark = pytest.mark.embeddings
BUDGET = 300


def _write(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _stores(root: Path) -> Path:
    # 30 northern stores outsell every southern one; the best southern store sits mid-table,
    # and a total row ends the table.
    rows: list[list[object]] = []
    for n in range(30):
        rows.append(["North", f"Store N{n:02d}", 5_000 + 37 * n, 10 + n % 7])
    south = [300 + (n * 53) % 900 for n in range(30)]
    south[17] = 1_450
    for n, sales in enumerate(south):
        rows.append(["South", f"Store S{n:02d}", sales, 8 + n % 5])
    rows.append(["Total", "", sum(r[2] for r in rows), sum(r[3] for r in rows)])
    return _write(root / "stores.csv", ["Region", "Store", "Sales", "Staff"], rows)


def _votes(root: Path) -> Path:
    rows: list[list[object]] = []
    for n in range(80):
        rows.append([f"County {n:02d}", 10_000 + 131 * n, 20 + (n * 37) % 800])
    rows[57] = ["Alpine", 412, 3]
    return _write(root / "votes.csv", ["County", "Brown votes", "Wyckoff votes"], rows)


def _lives(root: Path) -> Path:
    # Most interventions were not measured ("--"): the measured ones still order the rows.
    rows: list[list[object]] = []
    for n in range(60):
        saved: object = "--" if n % 4 else 100 + (n * 29) % 400
        rows.append([f"Intervention {n:02d}", saved, n % 3])
    rows[44] = ["Tetanus toxoid vaccination", 2_250, 1]
    return _write(root / "lives.csv", ["Intervention", "Lives saved", "Visits"], rows)


def _earnings(root: Path) -> Path:
    bands = ["16 to 19 years", "20 to 24 years", "25 to 34 years", "35 to 44 years",
             "45 to 54 years", "55 to 64 years", "65 years and older"]
    rows: list[list[object]] = []
    for sex in ("Men", "Women"):
        for year in range(1980, 2020):
            rows.append([sex, year, *(400 + 13 * k + (year - 1980) * 3 for k in range(7))])
    return _write(root / "earnings.csv", ["Sex", "Year", *bands], rows)


@pytest.fixture(scope="module")
def builder(tmp_path_factory):
    root = tmp_path_factory.mktemp("context-rows")
    ws = Workspace(root / "ws")
    # 400 rows of 50 numbers under "Region g > Qk" beside "Item r" (bench.index_speed's).
    regions = sized_workbook(root, 20_000)
    for path in (_stores(root), _votes(root), _lives(root), _earnings(root), regions):
        ws.add_file(path)
    index = VectorIndex(ws, embedder=shared_embedder())
    index.sync()
    yield ContextBuilder(ws, vectors=index, counter=shared_counter())
    ws.close()


def _table(builder: ContextBuilder, file_name: str) -> str:
    [table] = [t.id for t in builder.workspace.tables() if t.file_name == file_name]
    return table


def _first_rows(builder: ContextBuilder, question: str, file_name: str) -> list[str]:
    """The row lines a focused context of the file's table shows, in order."""
    context = builder.build(question, budget_tokens=BUDGET,
                            tables=[_table(builder, file_name)])
    assert context.whole == [False] and context.tokens <= BUDGET
    lines = context.text.split("cells (the rows the question names first):\n")[1].splitlines()
    return [line for line in lines[1:] if line.startswith("r")]


def test_an_extreme_over_the_named_rows_shows_their_top_row_first(builder):
    rows = _first_rows(builder, "Which store had the highest sales in the South region?",
                       "stores.csv")
    top = [line for line in rows if "Store S17" in line]
    assert top and rows.index(top[0]) < 5, rows[:6]


def test_a_total_row_is_not_the_top_of_an_extreme(builder):
    rows = _first_rows(builder, "Which store had the highest sales?", "stores.csv")
    assert "Store N29" in rows[0], rows[:3]
    assert not any("Total" in line for line in rows[:3])


def test_the_rows_meeting_a_numeric_condition_come_first(builder):
    # "fewer than 5 votes" bounds the Wyckoff votes column (the words after the number and
    # before it name it), which one county meets; the Brown votes column, which none meets,
    # is not the one read.
    rows = _first_rows(builder, "In which county did Wyckoff get fewer than 5 votes?",
                       "votes.csv")
    assert "Alpine" in rows[0], rows[:3]


def test_a_column_of_numbers_and_dashes_still_orders_its_rows(builder):
    rows = _first_rows(builder, "Which intervention saved the most lives?", "lives.csv")
    assert "Tetanus toxoid vaccination" in rows[0], rows[:3]


def test_a_column_named_by_its_own_header_words_comes_first(builder):
    # Rank fusion can score a column that full-text search alone ranks first below its
    # siblings that the vectors find too: the column whose own header words are all in the
    # question ("aged 25 to 34 years") is put ahead of them.
    frame = builder._frame(_table(builder, "earnings.csv"))
    key = {a.path[-1]: a.key for a in frame.data_attrs}
    fused = {key["35 to 44 years"]: 0.03, key["45 to 54 years"]: 0.028,
             key["25 to 34 years"]: 0.016, key["16 to 19 years"]: 0.015}
    scores = _worded_columns_first(frame, "What were the median earnings of women aged 25 to "
                                   "34 years in 2002?", fused)
    assert max(scores, key=scores.get) == key["25 to 34 years"]
    assert {k: scores[k] for k in fused if k != key["25 to 34 years"]} == {
        k: v for k, v in fused.items() if k != key["25 to 34 years"]}


def test_a_column_named_by_each_level_of_its_path_is_shown(builder):
    # "Q1" heads a column under every region: "Region 2 ... Q1" names one of them by its
    # path, which rank fusion ranks among its many siblings sharing a word.
    table = _table(builder, "sized_20000_50.xlsx")
    frame = builder._frame(table)
    [key] = [a.key for a in frame.data_attrs if a.path == ("Region 2", "Q1")]
    for row in (frame.rows[17], frame.rows[311]):
        question = f"How much did {frame.row_label(row)} record in Region 2 in Q1?"
        context = builder.build(question, budget_tokens=500, tables=[table])
        lines = [line for line in context.text.splitlines() if line.startswith(f"r{row} |")]
        assert any(in_context(frame.value(row, key).text, line) for line in lines), \
            context.text
