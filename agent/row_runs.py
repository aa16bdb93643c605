"""Rows in sheet order, as most come (a table's data rows, the rows a plan reads, an
aggregate's cited cells): tested and cut into runs without a set of them. A set of a tall
table's 20,000 rows costs more than the test, and a question made several."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from operator import lt


def increasing(rows: Sequence[int]) -> bool:
    """Whether each row is greater than the one before (so each is there once)."""
    return all(map(lt, rows, islice(rows, 1, None)))


def ordered(rows: Sequence[int]) -> list[int] | Sequence[int]:
    """The rows each once, in order: themselves when they come so."""
    return rows if increasing(rows) else sorted(set(rows))


def distinct_count(rows: Sequence[int]) -> int:
    """How many different rows."""
    return len(rows) if increasing(rows) else len(set(rows))


def first_distinct(rows: Iterable[int], n: int) -> list[int]:
    """The first `n` different rows, in their order (a result shows 50 of 20,000)."""
    found: dict[int, None] = {}
    for r in rows:
        if len(found) == n:
            break
        found.setdefault(r)
    return list(found)


def runs(rows: Sequence[int]) -> list[tuple[int, int]]:
    """(first, last) of each run of consecutive rows of increasing rows: one run, the common
    case, is found from the ends alone."""
    if not rows:
        return []
    if rows[-1] - rows[0] + 1 == len(rows):
        return [(rows[0], rows[-1])]
    starts = [i for i in range(1, len(rows)) if rows[i] != rows[i - 1] + 1]
    return [(rows[i], rows[j - 1]) for i, j in zip([0, *starts], [*starts, len(rows)],
                                                    strict=True)]
