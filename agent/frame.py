"""A table as the offline engine sees it: attributes (row levels and data columns) over rows.

Built from what ingest stored (the catalog, the HO-Tree JSON, the long view and the cells
table), never from the source file. Every value keeps the ref of the cell it came from, so any
answer computed over a frame can cite its cells.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from openpyxl.utils.cell import get_column_letter
from pydantic import BaseModel, ConfigDict

from agent.text import path_tokens
from storage.header_tree import TreeNode
from storage.records import TableInfo
from storage.workspace import Workspace

NUMERIC_KINDS = frozenset({"number", "percent", "currency"})
DERIVABLE_KINDS = frozenset({"duration", "ordinal"})
"""Kinds whose number is computed from text ("1:23.45" -> 83.45 s, "5th" -> 5): a plan that
computes on them goes through the column step, which shows the derived numbers."""


class TableRef(BaseModel):
    """A table as a plan names it: its id and the version of its structure (a corrected
    header makes a new version), so a stored plan never holds a live frame."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    version: int


@dataclass(frozen=True)
class Attr:
    """A queryable attribute: a row-path level, or a leaf column of the data."""

    key: str
    """The wide table's column name."""
    path: tuple[str, ...]
    kind: Literal["level", "data"]
    index: int
    """Level number (0-based) or position among the data columns."""
    col: int | None = None
    numeric: bool = False
    unit: str | None = None
    derivable: bool = False
    """Its cells are durations or ordinals: numbers only after the column step."""
    plain_name: str | None = None
    """What to call it when its header has no label (a row level: "row", "row group 1")."""

    @property
    def measurable(self) -> bool:
        return self.numeric or self.derivable

    @property
    def label(self) -> str:
        """Its header path in words ("H1 2024 > Q2"), else its plain name, for people."""
        return " > ".join(p for p in self.path if p) or self.plain_name or self.key

    @property
    def tokens(self) -> frozenset[str]:
        return frozenset(path_tokens(self.path))


class Value(NamedTuple):
    """One cell's value in a frame (immutable; a named tuple because a frame holds one per
    cell of its table, and a frozen dataclass is several times slower to build)."""

    text: str
    number: float | int | None
    """The number as written ("1.2 million" -> 1.2), None for text."""
    kind: str
    unit: str | None
    ref: str | None
    date: str | None = None
    scale: float | None = None
    """The multiplier the number is written in ("million": 1e6), None when there is none."""
    scale_source: str | None = None
    """Where the scale was found: "cell", "header" or "title"."""

    @property
    def numeric(self) -> bool:
        return self.number is not None and self.kind in NUMERIC_KINDS

    @property
    def measurable(self) -> bool:
        return self.number is not None and (self.kind in NUMERIC_KINDS
                                            or self.kind in DERIVABLE_KINDS)


@dataclass
class Frame:
    """One table of a workspace, ready for grounding and computation."""

    table: str
    sheet: str
    file_name: str
    title: str | None
    notes: list[str]
    wide: str | None
    attrs: list[Attr]
    rows: list[int]
    row_paths: dict[int, tuple[str, ...]]
    cells: dict[tuple[int, str], Value]
    row_node_paths: dict[int, list[int]] = field(default_factory=dict)
    col_nodes: list[TreeNode] = field(default_factory=list)
    col_node_paths: dict[int, list[int]] = field(default_factory=dict)
    version: int = 1

    @property
    def ref(self) -> TableRef:
        return TableRef(id=self.table, version=self.version)

    def attr(self, key: str) -> Attr:
        return next(a for a in self.attrs if a.key == key)

    @property
    def caption(self) -> str:
        """The table as people know it: "financial.xlsx, sheet P&L"."""
        return f"{self.file_name}, sheet {self.sheet}"

    def column_label(self, key: str) -> str | None:
        """The display label of a wide-view column: "Sheet row" for `_row`, a level's header
        label or "Row"/"Row group n", a data column's path joined with " > "; None when the
        frame has no such column."""
        if key == "_row":
            return "Sheet row"
        attr = next((a for a in self.attrs if a.key == key), None)
        if attr is None:
            return None
        label = attr.label
        return label[:1].upper() + label[1:] if not attr.path else label

    def row_label(self, row: int) -> str:
        """The row path of a data row, joined with " > " ("Operating Expenses > Rent")."""
        return " > ".join(p for p in self.row_paths.get(row, ()) if p) or f"Sheet row {row}"

    @property
    def levels(self) -> list[Attr]:
        return [a for a in self.attrs if a.kind == "level"]

    @property
    def data_attrs(self) -> list[Attr]:
        return [a for a in self.attrs if a.kind == "data"]

    def value(self, row: int, key: str) -> Value | None:
        return self.cells.get((row, key))

    def leaves_under(self, node_id: int) -> list[Attr]:
        """Data columns whose column path passes through a column-tree node."""
        by_col = {a.col: a for a in self.data_attrs}
        return [by_col[c] for c, chain in self.col_node_paths.items()
                if node_id in chain and c in by_col]


def load_frames(workspace: Workspace, table_ids: list[str] | None = None) -> list[Frame]:
    """Load the frames of a workspace's tables (all of them, or the ones named)."""
    ids = workspace.table_ids() if table_ids is None else table_ids
    return [_load(workspace, workspace.table(t)) for t in ids]


def _load(workspace: Workspace, info: TableInfo) -> Frame:
    db = workspace.db
    rows, columns = info.tree.rows, info.tree.columns
    row_paths = {p.position: p.path for p in rows.paths}
    row_node_paths = {p.position: list(p.nodes) for p in rows.paths}
    col_node_paths = {p.position: list(p.nodes) for p in columns.paths}
    leaf_cols = [p.position for p in columns.paths]
    level_names = info.row_levels
    attrs: list[Attr] = [Attr(name, (name,) if not name.startswith("level_") else (), "level", i,
                              plain_name=_level_name(i, len(level_names)))
                         for i, name in enumerate(level_names)]
    for i, (col, column) in enumerate(zip(leaf_cols, info.columns, strict=True)):
        key = column.name or f"col_{get_column_letter(col)}"
        numeric = column.kind in NUMERIC_KINDS
        attrs.append(Attr(key, column.path, "data", i, col, numeric, column.unit,
                          column.kind in DERIVABLE_KINDS))
    cells: dict[tuple[int, str], Value] = {}
    nodes = rows.nodes
    for r, path in row_paths.items():
        chain = row_node_paths.get(r, [])
        for i, text in enumerate(path[: len(level_names)]):
            ref = nodes[chain[i]].ref if i < len(chain) else None
            cells[(r, level_names[i])] = Value(text, None, "text", None, ref)
    _fill_data(db, info, attrs, row_paths, cells)
    return Frame(info.id, info.sheet, info.file_name, info.title, list(info.notes), info.wide,
                 attrs, sorted(row_paths), row_paths, cells, row_node_paths, list(columns.nodes),
                 col_node_paths, version=info.version)


def _level_name(index: int, count: int) -> str:
    """A row level without a header label: the deepest is the row, those above row groups."""
    return "row" if index == count - 1 else f"row group {index + 1}"


def _fill_data(db: Any, info: TableInfo, attrs: list[Attr],
               row_paths: dict[int, tuple[str, ...]], cells: dict[tuple[int, str], Value]) -> None:
    """Place long-view values on rows x data columns, repeating merged cells as the wide does."""
    by_col = {a.col: a.key for a in attrs if a.kind == "data"}
    spans = {row["ref"]: (row["rowspan"], row["colspan"]) for row in db.query(
        "SELECT ref, rowspan, colspan FROM cells WHERE grid = ? AND (rowspan > 1 OR colspan > 1)",
        [info.grid])}
    # Plain tuples of the columns needed, and the row and column as stored: building a dict
    # and parsing the A1 ref for each of a big table's cells took most of a question's time.
    for text, number, kind, unit, ref, date, scale, source, r0, c0 in db.execute(
            "SELECT text, number, kind, unit, ref, date, scale, scale_source, row, col "
            f'FROM "{info.long}"'):
        value = Value(text, number, kind, unit, ref, date, scale, source)
        rowspan, colspan = spans.get(ref, (1, 1))
        for r in range(r0, r0 + rowspan):
            if r not in row_paths:
                continue
            for c in range(c0, c0 + colspan):
                if c in by_col:
                    cells[(r, by_col[c])] = value

