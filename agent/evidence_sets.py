"""Compact citations for answers over many cells (CONTRACTS.md "Evidence sets").

An aggregate over a big table reads thousands of cells; citing each one made a 100k-cell answer
weigh 250 KB. Past `SET_THRESHOLD` cells, the evidence keeps the first and last few cells (what
the chat lists, and what validate checks one by one) and the whole set is cited as the maximal
A1 ranges of each table: a column of 2,000 consecutive rows is one range.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import groupby
from operator import itemgetter
from typing import TypeVar

from openpyxl.utils.cell import column_index_from_string, get_column_letter, range_boundaries

from agent import stop
from agent.events import Evidence, EvidenceSet
from agent.row_runs import ordered, runs

T = TypeVar("T")

SET_THRESHOLD = 20
"""Up to this many cited cells, every one is its own evidence item (as it always was)."""
EDGE_CELLS = 3
"""Cells kept as single evidence at each end of a set."""

Box = tuple[int, int, int, int]
"""(first row, first column, last row, last column) of a range, 1-based and inclusive."""


@dataclass(frozen=True)
class Citation:
    """What an answer cites: the single cells shown, the sets (empty for a small answer) and
    every cited cell (for the phrasing, never sent whole; made only when asked for)."""

    evidence: list[Evidence]
    sets: list[EvidenceSet]
    every_cell: Callable[[], list[Evidence]]

    @cached_property
    def cells(self) -> list[Evidence]:
        return self.every_cell()

    @property
    def sets_or_none(self) -> list[EvidenceSet] | None:
        """The sets as an event or answer field: absent when there are none."""
        return self.sets or None


def _place(item: Evidence) -> tuple[str, str, str]:
    return item.table, item.sheet, item.ref


def _itself(item: Evidence) -> Evidence:
    return item


def cite(cells: Sequence[T], place: Callable[[T], tuple[str, str, str]] = _place,
         evidence: Callable[[T], Evidence] = _itself) -> Citation:
    """Cite cells: each one when there are few, else the ends and one set per table.

    `cells` may be any items with their `place` (table, sheet, ref) and their `evidence`
    item: past the threshold only the ends become evidence items, since making one for each
    of 20,000 cells cost more than the rest of the aggregate."""
    if len(cells) <= SET_THRESHOLD:
        items = [evidence(c) for c in cells]
        return Citation(items, [], lambda: items)
    by_table: dict[str, tuple[str, list[str]]] = {}
    for c in stop.checked(cells):
        table, sheet, ref = place(c)
        by_table.setdefault(table, (sheet, []))[1].append(ref)
    sets = [EvidenceSet(table=table, sheet=sheet, ranges=_ranges(_rows_by_column(refs)),
                        count=len(refs))
            for table, (sheet, refs) in by_table.items()]
    edges = [evidence(c) for c in (*cells[:EDGE_CELLS], *cells[-EDGE_CELLS:])]
    return Citation(edges, sets, lambda: [evidence(c) for c in cells])


def cite_rows(rows: Sequence[int], letters: str, table: str, sheet: str,
              evidence: Callable[[int], Evidence]) -> Citation:
    """`cite` of cells of one column by their rows, each once, when each one's ref is the
    column's letters and its row: the set's ranges are the runs of the rows, without a ref
    made and parsed for each of 20,000 cells."""
    if len(rows) <= SET_THRESHOLD:
        return cite(rows, lambda r: (table, sheet, f"{letters}{r}"), evidence)
    ranges = _ranges({_column_index(letters): list(rows)})
    edges = [evidence(r) for r in (*rows[:EDGE_CELLS], *rows[-EDGE_CELLS:])]
    return Citation(edges, [EvidenceSet(table=table, sheet=sheet, ranges=ranges,
                                        count=len(rows))], lambda: [evidence(r) for r in rows])


def cell_of(ref: str) -> tuple[int, int]:
    """The (row, column) where a ref's cell is stored: a merged "B2:C3" is at its anchor."""
    first = anchor(ref)
    letters = first.rstrip("0123456789")
    return int(first[len(letters):]), _column_index(letters)


@lru_cache(maxsize=1024)
def _column_index(letters: str) -> int:
    return column_index_from_string(letters)


_REF_LINE = re.compile(r"^([A-Z]+)(\d+)(?::[A-Z]+\d+)?$", re.MULTILINE)
"""A ref on a line of its own ("D3", or a merged "B2:C3"): its anchor's letters and row."""


def _rows_by_column(refs: list[str]) -> dict[int, list[int]]:
    """The rows of the refs' cells (`cell_of`) by column. The refs are parsed by one pass of
    the regex engine over them all: a call per ref took half of a 20,000-cell citation. A
    ref of another form (none is made so far) leaves the count short, and then each is read
    by `cell_of`."""
    found = _REF_LINE.findall("\n".join(refs))
    rows_of: dict[int, list[int]] = {}
    if len(found) != len(refs):
        for r, c in stop.checked(map(cell_of, refs)):
            rows_of.setdefault(c, []).append(r)
        return rows_of
    # Refs come a column at a time: each run of one column's letters is converted by map,
    # without a Python step per ref.
    for letters, run in groupby(stop.checked(found), key=itemgetter(0)):
        rows_of.setdefault(_column_index(letters), []).extend(map(int, map(itemgetter(1), run)))
    return rows_of


def anchor(ref: str) -> str:
    """The top-left cell of a ref ("B2" of a merged "B2:C3"): where the cell is stored."""
    return ref.split(":")[0]


def a1_ranges(cells: Iterable[tuple[int, int]]) -> list[str]:
    """The maximal A1 ranges covering exactly these (row, column) cells.

    Runs of consecutive rows are found per column, then equal runs of neighbouring columns
    join into one rectangle: a column of rows is "D3:D2002", a row of columns "B5:AY5".
    """
    rows_of: dict[int, list[int]] = {}
    for r, c in cells:
        rows_of.setdefault(c, []).append(r)
    return _ranges(rows_of)


def _ranges(rows_of: dict[int, list[int]]) -> list[str]:
    """`a1_ranges` of the cells given as rows by column (a row may repeat)."""
    done: list[Box] = []
    growing: dict[tuple[int, int], int] = {}  # a run of rows -> the column its box starts at
    last = None
    for col in sorted(rows_of):
        if last is not None and col != last + 1:  # a box grows only into the next column
            done.extend((r0, c0, r1, last) for (r0, r1), c0 in growing.items())
            growing = {}
        grown = {run: growing.pop(run, col) for run in runs(ordered(rows_of[col]))}
        done.extend((r0, c0, r1, col - 1) for (r0, r1), c0 in growing.items())
        growing, last = grown, col
    done.extend((r0, c0, r1, last) for (r0, r1), c0 in growing.items())
    return [_a1(box) for box in sorted(done, key=lambda b: (b[1], b[0]))]


def _a1(box: Box) -> str:
    r0, c0, r1, c1 = box
    first = f"{get_column_letter(c0)}{r0}"
    return first if (r0, c0) == (r1, c1) else f"{first}:{get_column_letter(c1)}{r1}"


def boxes(ranges: Iterable[str]) -> list[Box]:
    """The ranges of a set as boxes ("D3:D2002" -> (3, 4, 2002, 4))."""
    out = []
    for ref in ranges:
        min_col, min_row, max_col, max_row = range_boundaries(ref)
        out.append((min_row, min_col, max_row, max_col))
    return out


def cells_in(ranges: Iterable[str], window: Box | None = None) -> Iterator[tuple[int, int]]:
    """The (row, column) cells of ranges, only those inside `window` when one is given (a
    set of a million cells is drawn a window at a time)."""
    for r0, c0, r1, c1 in boxes(ranges):
        if window is not None:
            r0, c0 = max(r0, window[0]), max(c0, window[1])
            r1, c1 = min(r1, window[2]), min(c1, window[3])
        for r in range(r0, r1 + 1):
            for c in range(c0, c1 + 1):
                yield r, c
