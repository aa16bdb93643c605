"""The cells an aggregate over a whole column cites: a sequence of (row, key) like any cited
cells, that also says it holds one column's cells on rows each there once.

An aggregate over a tall table cites 20,000 cells. Each later step that asked of a plain list
which columns it holds, on which rows, and whether a row repeats, made a pass over all 20,000
(the walk's rows shown, its units, the citation, the answer's features): together more than
the SQL that computed the sum. Given these cells, they read `key` and `rows`. The pairs
themselves are made only when read: making 20,000 of them, and the collector's pass over
them after the step, cost 2 ms of each such question.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any, overload

from agent.row_runs import distinct_count


class ColumnCells(Sequence[tuple[int, str]]):
    """(row, key) for each of `rows`, which are each there once (the caller's promise)."""

    __slots__ = ("key", "rows")

    def __init__(self, rows: Sequence[int], key: str) -> None:
        self.rows = rows
        self.key = key

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> tuple[int, str]: ...

    @overload
    def __getitem__(self, i: slice) -> list[tuple[int, str]]: ...

    def __getitem__(self, i: int | slice) -> tuple[int, str] | list[tuple[int, str]]:
        if isinstance(i, slice):
            return list(zip(self.rows[i], repeat(self.key)))
        return self.rows[i], self.key

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return zip(self.rows, repeat(self.key))  # the pairs made in C, not a step per row

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, ColumnCells):
            return self.key == other.key and list(self.rows) == list(other.rows)
        return isinstance(other, (list, tuple)) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # equal to a list, which has no hash

    def __repr__(self) -> str:
        return f"ColumnCells({len(self.rows)} rows of {self.key!r})"


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
