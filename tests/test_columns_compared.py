""""How many sites had a higher count in 2023 than in 2020?", "Which categories have fewer
units than their reorder level?": each row's cell in one named column against its own cell in
the other, the rows counted or named, with both cells of each counted row cited and the
comparison restated in SQL. A total row is no site; a comparison with a named row, or on a
rank, is still refused."""

from __future__ import annotations

import sqlite3

from agent.plan import Filter
from agent.sqltext import where

SITES = ("Site,2020,2023\nAshby,120,150\nBrook,200,180\nCrane,90,95\nDover,60,60\n"
         "Total,470,485\n")


def test_rows_counted_where_one_year_is_higher_than_another(ask):
    answer = ask(SITES, "How many sites had a higher count in 2023 than in 2020?")
    assert answer.values == [2]  # Ashby and Crane; Dover is level, the Total row is no site
    assert sorted(e.ref for e in answer.evidence) == ["B2", "B4", "C2", "C4"]
    fewer = ask(SITES, "How many sites had a lower count in 2023 than in 2020?")
    assert fewer.values == [1]  # Brook


def test_rows_named_where_one_column_is_below_another(ask):
    stock = ("Category,Available units,Reorder level\nFasteners,40,50\nAdhesives,80,30\n"
             "Abrasives,10,25\nSealants,55,55\n")
    answer = ask(stock, "Which categories have fewer available units than their reorder level?")
    assert sorted(answer.values) == ["Abrasives", "Fasteners"]


def test_two_measures_of_one_row(ask):
    medals = "Nation,Gold,Silver,Bronze\nAvalon,5,3,4\nBrisa,2,4,1\nCorvo,1,1,3\nDelta,0,2,2\n"
    answer = ask(medals, "How many nations had more bronze than silver?")
    assert answer.values == [2]  # Avalon and Corvo


def test_how_many_points_higher_is_a_difference_not_a_count(ask):
    survey = ("Response,All adults,Men,Women\nVery satisfied,17,19,15\n"
              "Very dissatisfied,8,10,7\nDon't know,6,4,8\n")
    answer = ask(survey, "How many percentage points higher was the share who were very "
                         "dissatisfied among men than among women?")
    assert answer.values in ([], [3])  # never 2, the rows whose Men beat Women


def test_a_named_row_on_the_other_side_is_still_refused(ask):
    drivers = "Driver,Laps led\nAda,12\nBea,30\nCy,5\n"
    answer = ask(drivers, "How many drivers had more laps led than Ada?")
    assert answer.answer is None
    assert "named row" in answer.error.message


def test_ranks_are_refused(ask):
    ranks = "City,Rank 2024,Rank 2025\nOslo,3,1\nRiga,1,4\nKiev,2,2\n"
    answer = ask(ranks, "How many cities had a lower rank 2025 than rank 2024?")
    assert answer.answer is None


def test_the_sql_form_compares_the_two_columns_of_each_row():
    params: list[object] = []
    clause = where([Filter(column="2023", op=">", other="2020")], params)
    assert params == []
    db = sqlite3.connect(":memory:")
    db.execute('CREATE TABLE t ("2020", "2023")')
    db.executemany("INSERT INTO t VALUES (?, ?)", [(120, 150), (200, 180), ("-", 95), (60, 60)])
    assert db.execute(f"SELECT COUNT(*) FROM t WHERE {clause}").fetchone() == (1,)
