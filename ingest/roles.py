"""The role of every filled anchor of a table region (header, data, title or note), held so
that a million data cells do not cost a million dict entries.

Most anchors of a big table are the data cells of its data rows, and those rows share the same
data columns: such a row is one entry, its columns one frozenset shared by every row with the
same columns (`add_data_row`). Every other role is a plain dict entry (`explicit`). A dict with
a (row, col) key per cell was about 100 MB of a 1M-cell upload's peak.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping

Key = tuple[int, int]

_NONE: frozenset[int] = frozenset()


class Roles(MutableMapping[Key, str]):
    """(row, col) -> "header" | "data" | "title" | "note", as a dict reads it."""

    __slots__ = ("explicit", "data_rows", "_shared")

    def __init__(self) -> None:
        self.explicit: dict[Key, str] = {}
        """Every role not held by `data_rows` (data cells included, where added one by one)."""
        self.data_rows: dict[int, frozenset[int]] = {}
        """Row -> the columns of its data cells added by `add_data_row`."""
        self._shared: dict[frozenset[int], frozenset[int]] = {}

    def add_data_row(self, row: int, cols: Iterable[int]) -> None:
        """Give the cells (row, c) of `cols` the role "data"."""
        cols = frozenset(cols) | self.data_rows.get(row, _NONE)
        if not cols:
            return
        for c in cols:
            self.explicit.pop((row, c), None)
        self.data_rows[row] = self._shared.setdefault(cols, cols)

    def data_cols(self, row: int) -> frozenset[int]:
        """The columns of a row whose cells were given "data" by `add_data_row`."""
        return self.data_rows.get(row, _NONE)

    def get(self, key: Key, default: str | None = None) -> str | None:  # type: ignore[override]
        role = self.explicit.get(key)
        if role is not None:
            return role
        if key[1] in self.data_rows.get(key[0], _NONE):
            return "data"
        return default

    def __getitem__(self, key: Key) -> str:
        role = self.get(key)
        if role is None:
            raise KeyError(key)
        return role

    def __contains__(self, key: object) -> bool:
        return self.get(key) is not None  # type: ignore[arg-type]

    def __setitem__(self, key: Key, role: str) -> None:
        cols = self.data_rows.get(key[0], _NONE)
        if key[1] in cols:
            if role == "data":
                return
            self._drop_data(key, cols)
        self.explicit[key] = role

    def __delitem__(self, key: Key) -> None:
        cols = self.data_rows.get(key[0], _NONE)
        if key[1] in cols:
            self._drop_data(key, cols)
        else:
            del self.explicit[key]

    def _drop_data(self, key: Key, cols: frozenset[int]) -> None:
        rest = cols - {key[1]}
        if rest:
            self.data_rows[key[0]] = self._shared.setdefault(rest, rest)
        else:
            del self.data_rows[key[0]]

    def __iter__(self) -> Iterator[Key]:
        yield from self.explicit
        for row, cols in self.data_rows.items():
            for c in sorted(cols):
                yield row, c

    def __len__(self) -> int:
        return len(self.explicit) + sum(map(len, self.data_rows.values()))

    def __repr__(self) -> str:
        return f"Roles({dict(self.items())!r})"
