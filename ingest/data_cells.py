"""A table's data cells: `DataCell`, and `DataCells`, the sequence a structure holds them in.

Most data cells of a big sheet are plain numbers (see `DataCell.typed`) in an unmerged cell:
their DataCell says nothing that the anchor, its row's path and its column's path do not.
`DataCells` keeps such a cell as its anchor alone and builds its DataCell when asked; a
DataCell per cell was 72 bytes, 69 MB of a 1M-cell upload's peak. The loops over every data
cell of an upload read `pairs()`, which builds none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from ingest.grid import Cell
from ingest.values import TypedValue

Path = tuple[str, ...]


# Slots: a table of text cells holds one per data cell.
@dataclass(slots=True)
class DataCell:
    """One data cell: its anchor, row path, column path(s) and typed value."""

    cell: Cell
    row_path: Path
    col_paths: list[Path]
    """One path per leaf column the cell spans (a cell merged across columns has several)."""
    typed: TypedValue | None
    """The typed value, or None for a plain number: a stored int or float shown exactly as
    General writes it, whose TypedValue would be 110 bytes saying only "the number as
    stored, shown as written". `value` builds it when asked, the same TypedValue
    `values.parse_raw` gives."""

    @property
    def value(self) -> TypedValue:
        typed = self.typed
        if typed is None:
            cell = self.cell
            return TypedValue("number", cell.raw, None, None, None, None, None, None, cell.text)
        return typed


class DataCells(Sequence[DataCell]):
    """A table's data cells in reading order: the anchors in `cells`, and beside each in
    `held` its DataCell, or None for a plain number in an unmerged cell, whose DataCell is
    (cell, its row's path, its column's path, no typed value). The structure appends such a
    cell to both lists itself; `add` appends any other."""

    __slots__ = ("cells", "held", "_row_paths", "_col_paths")

    def __init__(self, row_paths: dict[int, Path], col_paths: dict[int, list[Path]]) -> None:
        self.cells: list[Cell] = []
        self.held: list[DataCell | None] = []
        self._row_paths = row_paths
        self._col_paths = col_paths
        """Column -> its one-path list, shared by the DataCells built for that column."""

    def add(self, data_cell: DataCell) -> None:
        self.cells.append(data_cell.cell)
        self.held.append(data_cell)

    def pairs(self) -> Iterator[tuple[Cell, DataCell | None]]:
        """Each anchor with its held DataCell (None: a plain number), without building any."""
        return zip(self.cells, self.held, strict=True)

    def _built(self, cell: Cell, held: DataCell | None) -> DataCell:
        if held is not None:
            return held
        return DataCell(cell, self._row_paths[cell.row], self._col_paths[cell.col], None)

    def __len__(self) -> int:
        return len(self.cells)

    @overload
    def __getitem__(self, index: int) -> DataCell: ...

    @overload
    def __getitem__(self, index: slice) -> list[DataCell]: ...

    def __getitem__(self, index: int | slice) -> DataCell | list[DataCell]:
        if isinstance(index, slice):
            return [self._built(c, h) for c, h in zip(self.cells[index], self.held[index],
                                                      strict=True)]
        return self._built(self.cells[index], self.held[index])

    def __iter__(self) -> Iterator[DataCell]:
        for cell, held in zip(self.cells, self.held, strict=True):
            yield self._built(cell, held)
