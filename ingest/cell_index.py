"""`CellIndex`: a grid's anchor cells by (row, col), held as a dict of rows.

A dict keyed by (row, col) tuples costs a tuple and a large-table entry per cell: 97 MB of a
1M-cell upload's peak, more than the cells' texts and values together. Held by row, a cell
costs one entry in its row's dict, keyed by its column (an int a row's cells share with their
`Cell`), and the structure step indexes a table's rows by sharing these row dicts rather than
building its own copy (`ingest.regions`).

It is a mapping of (row, col) to `Cell`, as the dict it replaces was; the loops over every
cell of a big grid read `by_row` or `values()`, which build no key.
"""

from __future__ import annotations

import itertools
from collections.abc import (
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    MutableMapping,
    ValuesView,
)
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ingest.grid import Cell

Key = tuple[int, int]


class CellIndex(MutableMapping[Key, "Cell"]):
    """Anchor cells by (row, col). `by_row` maps a row to its cells by column, in the order
    they were added; no row is left empty."""

    __slots__ = ("by_row", "_count")

    def __init__(self, cells: Mapping[Key, Cell] | Iterable[tuple[Key, Cell]] = ()) -> None:
        self.by_row: dict[int, dict[int, Cell]] = {}
        self._count = 0
        if cells:
            self.update(cells)

    @classmethod
    def from_rows(cls, by_row: dict[int, dict[int, Cell]]) -> CellIndex:
        """An index over rows built by a reader (no row empty); the dicts are kept, not
        copied."""
        index = cls()
        index.by_row = by_row
        index._count = sum(map(len, by_row.values()))
        return index

    def __getitem__(self, key: Key) -> Cell:
        return self.by_row[key[0]][key[1]]

    def get(self, key: Key, default: Any = None) -> Any:
        row = self.by_row.get(key[0])
        return default if row is None else row.get(key[1], default)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 2:
            return False
        row = self.by_row.get(key[0])
        return row is not None and key[1] in row

    def __setitem__(self, key: Key, cell: Cell) -> None:
        row = self.by_row.get(key[0])
        if row is None:
            row = self.by_row[key[0]] = {}
        if key[1] not in row:
            self._count += 1
        row[key[1]] = cell

    def __delitem__(self, key: Key) -> None:
        row = self.by_row[key[0]]
        del row[key[1]]
        self._count -= 1
        if not row:
            del self.by_row[key[0]]

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Key]:
        for r, row in self.by_row.items():
            for c in row:
                yield (r, c)

    def keys(self) -> KeysView[Key]:
        return KeysView(self)

    def values(self) -> ValuesView[Cell]:
        return _Values(self)

    def items(self) -> ItemsView[Key, Cell]:
        return _Items(self)

    def __repr__(self) -> str:
        return f"CellIndex({dict(self.items())!r})"


class _Values(ValuesView["Cell"]):
    """The cells row by row, without a lookup per key."""

    _mapping: CellIndex

    def __iter__(self) -> Iterator[Cell]:
        return itertools.chain.from_iterable(map(dict.values, self._mapping.by_row.values()))


class _Items(ItemsView[Key, "Cell"]):
    """((row, col), cell) row by row, without a lookup per key."""

    _mapping: CellIndex

    def __iter__(self) -> Iterator[tuple[Key, Cell]]:
        for r, row in self._mapping.by_row.items():
            for c, cell in row.items():
                yield (r, c), cell
