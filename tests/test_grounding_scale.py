"""Grounding that does not depend on the data (issue 13): a number names a row only by a key
column, a column named with its number is a column, and a leaf shared by sibling column groups
resolves with the group the question names. On the generated workbook a question means the
same at 10k and at 1M cells: each answer is checked against SQL over the wide view."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import openpyxl
import pytest

from agent.run import answer_question
from bench.workloads import sized_workbook
from storage.records import TableInfo
from storage.workspace import Workspace


@dataclass
class Sized:
    """One ingested sized workbook, and SQL over its wide view."""

    ws: Workspace
    info: TableInfo

    @property
    def wide(self) -> str:
        return f'"{self.info.wide}"'

    @property
    def label(self) -> str:
        """The "Item r" label column (its header is blank)."""
        return f'"{self.info.row_levels[0]}"'

    def column(self, *path: str) -> str:
        return next(f'"{c.name}"' for c in self.info.columns if c.path == path)

    def rows(self, sql: str) -> list:
        return [row[0] for row in self.ws.db.execute(sql).fetchall()]


def _ingest(tmp_path_factory, cells: int) -> Iterator[Sized]:
    folder = tmp_path_factory.mktemp(f"sized_{cells}")
    ws = Workspace(folder / "ws")
    ws.add_file(sized_workbook(folder, cells))
    (table,) = ws.table_ids()
    yield Sized(ws, ws.table(table))
    ws.close()


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Iterator[Sized]:
    yield from _ingest(tmp_path_factory, 10_000)


@pytest.fixture(scope="module")
def large(tmp_path_factory) -> Iterator[Sized]:
    """1M cells, ingested once for the module (about 40 s)."""
    yield from _ingest(tmp_path_factory, 1_000_000)


def _sum(t: Sized, region: str, quarter: str) -> list:
    return t.rows(f"SELECT SUM({t.column(region, quarter)}) FROM {t.wide}")


def _average(t: Sized, region: str, quarter: str) -> list:
    return t.rows(f"SELECT AVG({t.column(region, quarter)}) FROM {t.wide}")


QUESTIONS: dict[str, Callable[[Sized], list]] = {
    "What is the total Q2 of Region 3?": lambda t: _sum(t, "Region 3", "Q2"),
    # A number ending a column group's name names the group, even where a cell holds it (the
    # 1M table holds 7s; "Region 7" was read as "the rows holding 7").
    "What is the average Q4 of Region 7?": lambda t: _average(t, "Region 7", "Q4"),
    # The leaf "Q1" is under every region: "of Region 6" picks the condition's column.
    "How many items have Q1 of Region 6 above 500000?": lambda t: t.rows(
        f"SELECT COUNT(*) FROM {t.wide} WHERE {t.column('Region 6', 'Q1')} > 500000"),
    "What is Q3 of Region 2 for Item 5?": lambda t: t.rows(
        f"SELECT {t.column('Region 2', 'Q3')} FROM {t.wide} WHERE {t.label} = 'Item 5'"),
    "Which item has the highest Q1 of Region 0?": lambda t: t.rows(
        f"SELECT {t.label} FROM {t.wide} WHERE {t.column('Region 0', 'Q1')} = "
        f"(SELECT MAX({t.column('Region 0', 'Q1')}) FROM {t.wide})"),
    "What is the maximum Q4 of Region 1?": lambda t: t.rows(
        f"SELECT MAX({t.column('Region 1', 'Q4')}) FROM {t.wide}"),
    "What is the total Q5 of Region 9?": lambda t: _sum(t, "Region 9", "Q5"),
}
AT_1M = list(QUESTIONS)[:5]
"""The handful also asked at 1M cells: each kind of grounding, and a 1M question is slow."""


def _check(table: Sized, question: str) -> None:
    answer = answer_question(table.ws, question)
    assert answer.error is None, answer.error
    assert answer.values == pytest.approx(QUESTIONS[question](table))


@pytest.mark.parametrize("question", list(QUESTIONS))
def test_the_answer_is_the_sql_answer_at_10k_cells(small, question):
    _check(small, question)


@pytest.mark.parametrize("question", AT_1M)
def test_the_same_questions_get_the_sql_answer_at_1m_cells(large, question):
    _check(large, question)


def test_the_1m_table_holds_the_number_of_a_region_asked_about(large):
    """Keeps the trap of the "Region 7" question: at 1M cells a data cell equals 7."""
    held = large.rows(f"SELECT COUNT(*) FROM cells WHERE grid = '{large.info.grid}' "
                      "AND number = 7")
    assert held[0] > 0


def _region_book(path: Path) -> Path:
    """A two-level header "Region 3" over Q1, Q2 whose cells hold 3: the smallest shape of the
    trap, whatever the size."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append([None, "Region 3", None, "Region 4", None])
    ws.merge_cells("B1:C1")
    ws.merge_cells("D1:E1")
    ws.append([None, "Q1", "Q2", "Q1", "Q2"])
    for label, numbers in (("Item 0", [3, 40, 5, 60]), ("Item 1", [11, 3, 13, 14]),
                           ("Item 2", [21, 22, 3, 24])):
        ws.append([label, *numbers])
    wb.save(path)
    return path


@pytest.mark.parametrize(("question", "expected"), [
    ("What is the total Q2 of Region 3?", [40 + 3 + 22]),
    ("How many items have Q1 of Region 4 above 10?", [1]),
])
def test_a_cell_equal_to_a_groups_number_picks_no_row(ask, tmp_path, question, expected):
    answer = ask(_region_book(tmp_path / "regions.xlsx"), question)
    assert answer.error is None, answer.error
    assert answer.values == expected


AMOUNTS = "Item,Amount 1,Amount 2\nA,1,10\nB,2,20\nC,4,45\n"


@pytest.mark.parametrize(("csv", "question", "expected"), [
    (AMOUNTS, "What is the total Amount 2?", [75]),  # not "the rows whose Amount 1 is 2"
    (AMOUNTS, "What is the total Amount 1?", [7]),
    # Nor the row labelled "3": the number ends the column's name.
    ("Label,Region 3,Region 4\nA,10,20\n3,30,40\nC,6,7\n", "What is the total Region 3?",
     [46]),
])
def test_a_column_named_with_its_number_is_a_column(ask, csv, question, expected):
    answer = ask(csv, question)
    assert answer.error is None, answer.error
    assert answer.values == expected


@pytest.mark.parametrize(("csv", "question", "expected"), [
    # An identifier's header ("Week") holds the number; a measured cell equal to it does not.
    ("Week,Opponent,Attendance\n1,Bears,50000\n2,Lions,3\n3,Packers,55000\n",
     "What was the attendance in week 3?", [55000]),
    # The row labels hold it, with their word or alone.
    ("Week,Attendance\nWeek 1,50000\nWeek 2,3\nWeek 3,55000\n",
     "What was the attendance in week 3?", [55000]),
    ("Episode,Title,Viewers\n1,Pilot,5.5\n2,Second,3\n3,Third,4.25\n",
     "What were the viewers of episode 3?", [4.25]),
    # A measured column named by its whole header right before the number.
    ("Part,Tech. Class,Failures\nPump,1,4\nPipe,2,1\nValve,1,2\n",
     "How many failures did parts of Tech. Class 2 have?", [1]),
])
def test_a_number_names_a_row_by_its_key_column(ask, csv, question, expected):
    answer = ask(csv, question)
    assert answer.error is None, answer.error
    assert answer.values == expected
