"""The cells an aggregate over a whole column cites: a list of (row, key) like any cited cells,
that also says it holds one column's cells on rows each there once.

An aggregate over a tall table cites 20,000 cells. Each later step that asked of the plain
list which columns it holds, on which rows, and whether a row repeats, made a pass over all
20,000 (the walk's rows shown, its units, the citation, the answer's features): together
more than the SQL that computed the sum. Given these cells, they read `key` and `rows`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from itertools import repeat
from operator import itemgetter

from agent.row_runs import distinct_count


class ColumnCells(list[tuple[int, str]]):
    """(row, key) for each of `rows`, which are each there once (the caller's promise)."""

    def __init__(self, rows: Sequence[int], key: str) -> None:
        super().__init__(zip(rows, repeat(key)))  # the pairs made in C, not a step per row
        self.rows = rows
        self.key = key


def cells_key(cells: Sequence[tuple[int, str]]) -> Hashable:
    """A hashable key of cells (equal keys, equal cells): a column's cells by their column
    and rows, without a tuple of 20,000 pairs to make and hash."""
    if isinstance(cells, ColumnCells):
        return cells.key, tuple(cells.rows)
    return tuple(cells)


def cited_keys(cells: Sequence[tuple[int, str]]) -> list[str]:
    """The columns of cells, each once, in order of first citation."""
    if isinstance(cells, ColumnCells):
        return [cells.key] if cells else []
    return list(dict.fromkeys(map(itemgetter(1), cells)))


def cited_rows(cells: Sequence[tuple[int, str]]) -> Sequence[int]:
    """The row of each cell, in order (a row cited in two columns is there twice)."""
    if isinstance(cells, ColumnCells):
        return cells.rows
    return list(map(itemgetter(0), cells))


def cited_row_count(cells: Sequence[tuple[int, str]]) -> int:
    """How many different rows the cells are on."""
    return len(cells.rows) if isinstance(cells, ColumnCells) else distinct_count(cited_rows(cells))
