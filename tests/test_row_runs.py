"""Rows cut into runs and counted without a set of them (agent/row_runs.py) give what the
set-based forms gave."""

from __future__ import annotations

import pytest

from agent.row_runs import distinct_count, first_distinct, increasing, ordered, runs


@pytest.mark.parametrize("rows", [[], [5], [3, 4, 5], [3, 4, 7, 8, 10], [9, 3, 3, 4], [2, 2]])
def test_the_forms_without_a_set_give_what_the_set_gives(rows):
    once = sorted(set(rows))
    assert list(ordered(rows)) == once
    assert distinct_count(rows) == len(once)
    assert increasing(rows) == (rows == once)
    expected = []
    for r in once:
        if expected and expected[-1][1] == r - 1:
            expected[-1] = (expected[-1][0], r)
        else:
            expected.append((r, r))
    assert runs(once) == expected
    assert first_distinct(rows, 2) == list(dict.fromkeys(rows))[:2]
