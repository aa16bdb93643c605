"""The raw SQL that `bench.question_latency` holds questions to, and how it judges them."""

from __future__ import annotations

import statistics

import openpyxl

from bench import question_latency as ql
from bench import rawsql, workloads
from storage.workspace import Workspace


def test_the_goal_is_20_ms_plus_three_times_the_sql():
    assert ql.goal_ms(0.05) == 20.15
    assert ql.verdict(20.1, 0.05) == "meets"
    assert ql.verdict(20.2, 0.05) == "misses"


def test_an_answer_is_the_same_as_the_sql_only_for_one_equal_value():
    assert ql.same_answer([500135.235], [(500135.23500000004,)])
    assert ql.same_answer(["Item 50"], [("Item 50",)])
    assert not ql.same_answer([1, 2], [(1,)])
    assert not ql.same_answer([3], [(4,)])


def test_each_questions_sql_answers_it_on_the_wide_view(tmp_path):
    path = workloads.sized_workbook(tmp_path, 500)  # 10 rows of 50 data cells
    ws = Workspace(tmp_path / "ws")
    try:
        ws.add_file(path)
    finally:
        ws.close()
    rows = list(openpyxl.load_workbook(path).worksheets[0].iter_rows(min_row=3, values_only=True))
    header = [(f"Region {c // 5}", f"Q{c % 5 + 1}") for c in range(workloads.DATA_COLUMNS)]

    def column(path_):
        i = header.index(path_) + 1
        return {row[0]: row[i] for row in rows}

    expected = {
        "lookup": column(("Region 1", "Q2"))["Item 7"],
        "sum": sum(column(("Region 2", "Q3")).values()),
        "max": max(column(("Region 4", "Q1")).values()),
        "average": statistics.mean(column(("Region 5", "Q4")).values()),
        "which": max(column(("Region 6", "Q5")).items(), key=lambda kv: kv[1])[0],
    }
    database = tmp_path / "ws" / "workspace.sqlite"
    with rawsql.connect(database) as conn:
        for question in ql.QUESTIONS:
            _, result = rawsql.time_sql(conn, ql.bound_sql(database, question),
                                         question.params, runs=1)
            assert ql.same_answer([expected[question.kind]], result), question.kind


def test_an_answer_is_held_to_20_kb():
    assert ql.size_verdict(19_999) == "meets"
    assert ql.size_verdict(20_001) == "misses"
