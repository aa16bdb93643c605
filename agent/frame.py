"""A table as the offline engine sees it: attributes (row levels and data columns) over rows.

Built from what ingest stored (the catalog, the HO-Tree JSON, the long view and the cells
table), never from the source file. Every value keeps the ref of the cell it came from, so any
answer computed over a frame can cite its cells.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from typing import Any, Literal, NamedTuple

import orjson
from openpyxl.utils.cell import get_column_letter
from pydantic import BaseModel, ConfigDict

from agent import stop
from agent.text import path_tokens
from ingest.grid import table_place
from storage.header_tree import TreeNode
from storage.plain_cells import BLOCK_FIELDS, BLOCK_ROWS, ROW_TABLE, plain_values
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
    """One table of a workspace, ready for grounding and computation.

    Its data columns are read from the `cells` table one at a time, when first asked for: a
    question reads the few columns it names, not the whole table (a 1M-cell table held in
    Python cost seconds per question). Row labels come with the frame (from the HO-Tree)."""

    table: str
    sheet: str
    file_name: str
    title: str | None
    notes: list[str]
    wide: str | None
    attrs: list[Attr]
    side: RowSide = field(repr=False, compare=False)
    """The data rows, their row paths and row labels, read when first needed."""
    columns: dict[str, dict[int, Value]]
    """Values by column key, then row: the row levels and the data columns read so far."""
    col_nodes: list[TreeNode] = field(default_factory=list)
    col_node_paths: dict[int, list[int]] = field(default_factory=dict)
    version: int = 1
    source: CellSource | None = field(default=None, repr=False, compare=False)
    """Where unread data columns come from; None when `columns` holds them all."""
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """Facts of the whole table computed once (see `agent/table_profile.py`)."""
    point_reads: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    """Cells read one by one so far, by column key (`value`)."""

    @property
    def ref(self) -> TableRef:
        return TableRef(id=self.table, version=self.version)

    @property
    def rows(self) -> list[int]:
        """The data rows, in sheet order."""
        return self.side.rows

    @property
    def row_count(self) -> int:
        """How many data rows (without reading them)."""
        return self.side.count

    @property
    def row_paths(self) -> Mapping[int, tuple[str, ...]]:
        """Each data row's path of row labels; one looked up is read alone until the tree
        is decoded, and then found in its dict (a lookup per row of a tall table)."""
        return self.side.paths if self.side.decoded_paths is None else self.side.decoded_paths

    @property
    def row_node_paths(self) -> dict[int, list[int]]:
        """Each data row's chain of HO-Tree node ids."""
        return self.side.tree().node_paths

    @cached_property
    def _attrs_by_key(self) -> dict[str, Attr]:
        return {a.key: a for a in reversed(self.attrs)}  # the first of a key wins

    def attr(self, key: str) -> Attr:
        return self._attrs_by_key[key]

    @cached_property
    def number_columns(self) -> frozenset[str]:
        """The wide view's columns declared NUMERIC. A column with any text in it is declared
        otherwise (`_declared_type` of storage/views.py and storage/flat_table.py), so a query
        over one of these needs no test of each value's type: that test was a quarter of a
        1M-cell table's sum."""
        if self.wide is None or self.source is None:
            return frozenset()
        return frozenset(name for (name,) in self.source.db.execute(
            "SELECT name FROM pragma_table_info(?) WHERE type = 'NUMERIC'", [self.wide]))

    @property
    def caption(self) -> str:
        """The table as people know it: "financial.xlsx, sheet P&L", "ops_report.docx,
        table 1" (`ingest.grid.table_place`)."""
        return table_place(self.file_name, self.sheet)

    def column_label(self, key: str) -> str | None:
        """The display label of a wide-view column: "Sheet row" for `_row`, a level's header
        label or "Row"/"Row group n", a data column's path joined with " > "; None when the
        frame has no such column."""
        if key == "_row":
            return "Sheet row"
        attr = self._attrs_by_key.get(key)
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
        column = self.columns.get(key)
        if column is not None:
            return column.get(row)
        # A lookup reads a cell or two of a column: read them alone, and the whole column
        # only once more of it is asked for.
        attr = self._attrs_by_key.get(key)
        count = self.point_reads.get(key, 0)
        # A row label read alone saves decoding the row tree (60 ms at 20,000 rows): a
        # result shows its first 50 rows with their labels.
        if attr is not None and count < (POINT_PATHS if attr.kind == "level" else POINT_READS):
            if attr.kind == "level":
                label = self.side.label(row)
                if label is not False:
                    self.point_reads[key] = count + 1
                    return label  # type: ignore[return-value]  # False: not read alone
            elif self.source is not None and attr.col is not None:
                self.point_reads[key] = count + 1
                return self.source.cell(row, attr.col)
        return self.column(key).get(row)

    def values_of(self, key: str, rows: Sequence[int], whole: bool = True
                  ) -> list[Value | None]:
        """A column's values on these rows, in order, as `value` gives them: past
        POINT_READS rows the column is read whole and looked up without a call per row (an
        aggregate over a tall table reads 20,000); without `whole`, a data column is read on
        these rows alone, in one query (a result shows its first 50 rows)."""
        if key not in self.columns and not whole and len(rows) > POINT_READS:
            attr = self._attrs_by_key.get(key)
            if self.source is not None and attr is not None and attr.kind == "data" \
                    and attr.col is not None:
                found = self.source.cells(attr.col, rows)
                return [found.get(r) for r in rows]
            # Row labels read alone while the row side has read at most POINT_PATHS different
            # rows so (`RowSide.labels`). Not counted again here: the same 50 rows every
            # aggregate shows, counted per question, made the fifth aggregate of a process
            # decode the row tree (100 ms at 20,000 rows).
            labels = self.side.labels(rows) if attr is not None and attr.kind == "level" \
                else None
            if labels is not None:
                return [labels[r] for r in rows]
        if key not in self.columns and (len(rows) <= POINT_READS or not whole):
            return [self.value(r, key) for r in rows]
        get = self.column(key).get
        return [get(r) for r in stop.checked(rows)]

    def read_alone(self, key: str, rows: Sequence[int]) -> dict[int, Value]:
        """A column's values on a few rows by row, as `value` gives them, but read in one
        query and not counted as reads of the column: an aggregate's citation shows a few of
        its 20,000 cells on every question, and counted, the second question on a column read
        it whole (40 ms), after which its aggregates ran in Python instead of SQL."""
        attr = self._attrs_by_key.get(key)
        if key in self.columns or self.source is None or attr is None or attr.kind != "data" \
                or attr.col is None:
            return {r: v for r in rows if (v := self.value(r, key)) is not None}
        return self.source.cells(attr.col, rows)

    def values_at(self, cells: Sequence[tuple[int, str]]) -> list[Value | None]:
        """The values of these (row, key) cells, in order, as `value` gives them; a column
        holding more than POINT_READS of them is read whole (`values_of`)."""
        per_key = Counter(map(itemgetter(1), cells))
        if len(per_key) == 1:
            [(key, n)] = per_key.items()
            if n > POINT_READS or key in self.columns:
                # Cells of one column read whole (an aggregate's 20,000), looked up without a
                # Python step per cell: a few milliseconds, so one check for Stop will do.
                stop.check()
                return list(map(self.column(key).get, map(itemgetter(0), cells)))
        columns = {k: self.column(k).get for k, n in per_key.items()
                   if n > POINT_READS or k in self.columns}
        return [get(r) if (get := columns.get(k)) is not None else self.value(r, k)
                for r, k in stop.checked(cells)]

    def column(self, key: str) -> dict[int, Value]:
        """A column's values by row, read from the workspace the first time."""
        column = self.columns.get(key)
        if column is None:
            attr = self._attrs_by_key.get(key)
            if attr is not None and attr.kind == "level":
                column = self.side.tree().levels.get(key, {})
            else:
                column = {} if attr is None or attr.col is None or self.source is None else \
                    self.source.column(attr.col)
            self.columns[key] = column
        return column

    def text_cells(self) -> Iterator[tuple[tuple[int, str], Value]]:
        """Every cell that is not a number, with its (row, key), row labels first, then the
        data row by row: what names rows in words. Read in one query, without reading the
        table's numbers."""
        levels = [(a.key, self.column(a.key)) for a in self.levels]
        for row in self.rows:
            for key, column in levels:
                if (value := column.get(row)) is not None:
                    yield (row, key), value
        data = self.data_attrs
        found: list[tuple[int, int, str, Value]] = [
            (row, a.index, a.key, value) for a in data if a.key in self.columns
            for row, value in self.columns[a.key].items() if not value.numeric]
        unread = {a.col: a for a in data if a.key not in self.columns}
        if unread and self.source is not None:
            found += [(row, unread[col].index, unread[col].key, value)
                      for (row, col), value in self.source.text_cells(set(unread))]
        found.sort(key=lambda item: item[:2])
        for row, _, key, value in found:
            yield (row, key), value

    @property
    def cells_read(self) -> int:
        """How many values the frame holds (the columns and row paths read so far)."""
        return sum(len(c) for c in self.columns.values()) + self.side.decoded

    def rebind(self, db: Any) -> None:
        """Read further columns and store facts on this connection (a kept frame outlives
        the connection that made it)."""
        self.side.db = db
        if self.source is not None:
            self.source.db = db

    @property
    def cells(self) -> dict[tuple[int, str], Value]:
        """Every value by (row, key); reads the whole table (for tools and tests)."""
        return {(row, a.key): value for a in self.attrs
                for row, value in self.column(a.key).items()}

    def leaves_under(self, node_id: int) -> list[Attr]:
        """Data columns whose column path passes through a column-tree node."""
        by_col = {a.col: a for a in self.data_attrs}
        return [by_col[c] for c, chain in self.col_node_paths.items()
                if node_id in chain and c in by_col]


def load_frames(workspace: Workspace, table_ids: list[str] | None = None) -> list[Frame]:
    """Load the frames of a workspace's tables (all of them, or the ones named)."""
    ids = workspace.table_ids() if table_ids is None else table_ids
    frames = []
    for t in ids:
        stop.check()
        frames.append(_load(workspace, workspace.table(t)))
    return frames


def _load(workspace: Workspace, info: TableInfo) -> Frame:
    columns = info.tree.columns
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
    side = RowSide(workspace.db, info)
    return Frame(info.id, info.sheet, info.file_name, info.title, list(info.notes), info.wide,
                 attrs, side, {}, list(columns.nodes), col_node_paths, version=info.version,
                 source=CellSource(workspace.db, info, side))


class TreeRows(NamedTuple):
    """A table's row side as its HO-Tree holds it."""

    rows: list[int]
    paths: dict[int, tuple[str, ...]]
    node_paths: dict[int, list[int]]
    levels: dict[str, dict[int, Value]]
    """Each row level's values (the row labels), by row."""


class RowSide:
    """A table's data rows and their row paths, read when first needed: a question that
    names a row reads that row's path alone, from the `row_paths` table, and not the HO-Tree
    of every row (decoding 640,000 rows took seconds).

    A key/value form keys its `row_paths` by cell, not by row: its rows are always read from
    the tree."""

    def __init__(self, db: Any, info: TableInfo) -> None:
        self.db = db
        self._info = info
        self._by_row = info.orientation != "kv"
        self._tree: TreeRows | None = None
        self._rows: list[int] | None = None
        self._row_set: Container[int] | None = None
        self._labels_alone: bool | None = None
        self._groups: dict[tuple[str, ...], list[int]] | None = None
        self._read: dict[int, tuple[str, ...] | None] = {}
        self.paths = RowPaths(self)

    @property
    def decoded_paths(self) -> dict[int, tuple[str, ...]] | None:
        return None if self._tree is None else self._tree.paths

    @property
    def decoded(self) -> int:
        """How many row paths are held decoded."""
        return (0 if self._tree is None else len(self._tree.paths)) + \
            (0 if self._groups is None else len(self._groups))

    def path_groups(self) -> dict[tuple[str, ...], list[int]]:
        """Each distinct row path with its rows: grouped by SQL over `row_paths` unless the
        tree is decoded (a table's facts read its labels, not each row's)."""
        if self._groups is None:
            groups: dict[tuple[str, ...], list[int]] = {}
            if self._tree is not None or not self._by_row:
                for r, path in stop.checked(self.tree().paths.items()):
                    groups.setdefault(path, []).append(r)
            else:
                for text, rows in stop.checked(self.db.execute(
                        "SELECT row_path, json_group_array(row) FROM row_paths "
                        "WHERE table_id = ? AND col = 0 GROUP BY row_path", [self._info.id])):
                    groups.setdefault(tuple(orjson.loads(text)), []).extend(orjson.loads(rows))
            self._groups = groups
        return self._groups

    def tree(self) -> TreeRows:
        """The row side decoded from the HO-Tree (once)."""
        if self._tree is None:
            side = self._info.tree.load_rows(between_chunks=stop.check)
            paths = {p.position: p.path for p in side.paths}
            node_paths = {p.position: list(p.nodes) for p in side.paths}
            names = self._info.row_levels
            levels: dict[str, dict[int, Value]] = {name: {} for name in names}
            nodes = side.nodes
            for r, path in stop.checked(paths.items()):
                chain = node_paths.get(r, [])
                for i, text in enumerate(path[: len(names)]):
                    ref = nodes[chain[i]].ref if i < len(chain) else None
                    levels[names[i]][r] = Value(text, None, "text", None, ref)
            self._tree = TreeRows(sorted(paths), paths, node_paths, levels)
        return self._tree

    @property
    def rows(self) -> list[int]:
        if self._rows is None:
            if self._tree is not None or not self._by_row:
                self._rows = self.tree().rows
            elif (span := self._span()) is not None:
                self._rows = list(range(span[0], span[1] + 1))
            else:
                # One JSON array, parsed in C: a row of the cursor each cost a new
                # process's aggregate over 20,000 rows 8 ms (2 ms so). Sorted again: an
                # aggregate's order is the rows fed to it, which SQL does not promise.
                [found] = self.db.execute(
                    "SELECT json_group_array(row) FROM (SELECT row FROM row_paths "
                    "WHERE table_id = ? AND col = 0 ORDER BY row)", [self._info.id]).fetchone()
                self._rows = sorted(orjson.loads(found))
        return self._rows

    def _span(self) -> tuple[int, int] | None:
        """The first and last data row when the catalog's count of data rows fills the rows
        between them (most tables: no blank record or band among them), found from the
        ends of the `row_paths` key without reading the 20,000 between; else None."""
        first, last = self.db.execute(
            "SELECT (SELECT min(row) FROM row_paths WHERE table_id = ?1 AND col = 0), "
            "(SELECT max(row) FROM row_paths WHERE table_id = ?1 AND col = 0)",
            [self._info.id]).fetchone()
        return None if first is None or last - first + 1 != self._info.n_rows \
            else (first, last)

    @property
    def row_set(self) -> Container[int]:
        """The data rows, to test rows against: their range when they fill one (no set of a
        tall table's 20,000 rows to build)."""
        if self._row_set is None:
            rows = self.rows
            self._row_set = range(rows[0], rows[-1] + 1) \
                if rows and rows[-1] - rows[0] + 1 == len(rows) else frozenset(rows)
        return self._row_set

    @property
    def count(self) -> int:
        """The catalog's count of data rows (one per row path), else the rows counted."""
        return self._info.n_rows if self._by_row and self._rows is None else len(self.rows)

    def path(self, row: int) -> tuple[str, ...] | None:
        """A row's path, None when it is no data row."""
        if self._tree is not None or not self._by_row or (
                row not in self._read and len(self._read) >= POINT_PATHS):
            return self.tree().paths.get(row)
        if row not in self._read:  # kept: a result's rows are labelled in every step's event
            found = self.db.execute("SELECT row_path FROM row_paths WHERE table_id = ? AND "
                                    "row = ? AND col = 0", [self._info.id, row]).fetchone()
            self._read[row] = None if found is None else tuple(orjson.loads(found[0]))
        return self._read[row]

    def label(self, row: int) -> Value | None | bool:
        """A row's label (the value of its one row level) read alone, None when it has none;
        False when it cannot be read alone (the tree is then read)."""
        if self._tree is not None or not self._label_cells():
            return False
        path = self.path(row)
        if not path:
            return None
        found = self.db.execute("SELECT ref FROM cells WHERE grid = ? AND row_block = ? "
                                "AND row = ? AND col = ?",
                                [self._info.grid, row // BLOCK_ROWS, row,
                                 self._info.header_cols[0]]).fetchone()
        return False if found is None else Value(path[0], None, "text", None, found[0])

    def labels(self, rows: Sequence[int]) -> dict[int, Value | None] | None:
        """`label` of each of these rows, read in two queries (a result shows 50 rows with
        their labels); None when one of them cannot be read alone, or reading them all would
        pass POINT_PATHS (each is then read by `label`, as far as it can be)."""
        new = [r for r in dict.fromkeys(rows) if r not in self._read]
        if self._tree is not None or not self._label_cells() or \
                len(self._read) + len(new) > POINT_PATHS:
            return None
        key = orjson.dumps(new).decode()
        self._read.update(dict.fromkeys(new))
        self._read.update((r, tuple(orjson.loads(path))) for r, path in self.db.execute(
            "SELECT row, row_path FROM row_paths WHERE table_id = ? AND col = 0 AND row IN "
            "(SELECT value FROM json_each(?))", [self._info.id, key]))
        paths = {r: self._read[r] for r in rows}
        named = [r for r, path in paths.items() if path]
        blocks = sorted({r // BLOCK_ROWS for r in named})
        refs = dict(self.db.execute(
            # Values listed, not a json_each subquery: SQLite pushes them into the view's
            # stores, the row blocks narrowing its plain cells (`storage.plain_cells`).
            f"SELECT row, ref FROM cells WHERE grid = ? AND col = ? AND row IN "
            f"({', '.join('?' * len(named))}) AND row_block IN ({', '.join('?' * len(blocks))})",
            [self._info.grid, self._info.header_cols[0], *named, *blocks]))
        if len(refs) < len(named):
            return None
        return {r: Value(path[0], None, "text", None, refs[r]) if path else None
                for r, path in paths.items()}

    def _label_cells(self) -> bool:
        """Whether each row's label is the cell of the label column on that row (the tree's
        node for it cites that cell): one row level, one label column, headers on top, and
        no merged cell in that column to label several rows."""
        if self._labels_alone is None:
            info = self._info
            self._labels_alone = (
                self._by_row and info.orientation == "top" and len(info.row_levels) == 1
                and len(info.header_cols) == 1 and self.db.execute(
                    # Merged cells are never plain (`storage.plain_cells`).
                    f"SELECT 1 FROM {ROW_TABLE} INDEXED BY cells_merged WHERE grid = ? AND "
                    "(rowspan > 1 OR colspan > 1) AND col <= ? AND col + colspan > ? LIMIT 1",
                    [info.grid, info.header_cols[0], info.header_cols[0]]).fetchone() is None)
        return self._labels_alone

    def hidden_rows(self) -> frozenset[int]:
        """The data rows hidden on the sheet (their row label's cell is hidden), unless every
        data row's is: then the label column is hidden, not the rows."""
        info = self._info
        if self.db is None or not info.header_cols:
            return frozenset()
        found = {r for (r,) in self.db.execute(
            f"SELECT row FROM {ROW_TABLE} WHERE grid = ? AND col = ? AND hidden = 1",
            [info.grid, info.header_cols[0]])}
        if not found:
            return frozenset()
        data = found & set(self.rows)
        return frozenset() if len(data) == len(self.rows) else frozenset(data)

    def has_row(self, row: int) -> bool:
        if self._row_set is not None or self._tree is not None or not self._by_row:
            return row in self.row_set
        return self.path(row) is not None


class RowPaths(Mapping[int, tuple[str, ...]]):
    """The row paths by row: one looked up is read alone (`RowSide.path`); going over them
    all decodes the tree."""

    def __init__(self, side: RowSide) -> None:
        self._side = side

    def __getitem__(self, row: int) -> tuple[str, ...]:
        found = self._side.path(row)
        if found is None:
            raise KeyError(row)
        return found

    def __iter__(self) -> Iterator[int]:
        return iter(self._side.tree().paths)

    def __len__(self) -> int:
        return len(self._side.tree().paths)

    def keys(self):  # type: ignore[override]  # the dict's own views: no lookup per row
        return self._side.tree().paths.keys()

    def values(self):  # type: ignore[override]
        return self._side.tree().paths.values()

    def items(self):  # type: ignore[override]
        return self._side.tree().paths.items()


def _level_name(index: int, count: int) -> str:
    """A row level without a header label: the deepest is the row, those above row groups."""
    return "row" if index == count - 1 else f"row group {index + 1}"


POINT_READS = 8
"""Cells of a column read one by one before the whole column is read instead."""
POINT_PATHS = 200
"""Rows whose paths are read one by one before the table's row tree is decoded instead (a
read alone costs about a 400th of decoding a 20,000-row tree)."""
_VALUE_FIELDS = "text, number, kind, unit, ref, date, scale, scale_source"
"""A Value's fields, in its order."""
_VALUE_COLUMNS = f"{_VALUE_FIELDS}, row, col"
_NOT_NUMERIC = ("(number IS NULL OR kind NOT IN (" +
                ", ".join(f"'{k}'" for k in sorted(NUMERIC_KINDS)) + "))")


class CellSource:
    """Reads a table's data cells from the workspace's cells, a column at a time (its rows of
    `cell_rows` through the `cells_by_column` index, its plain cells by block: `_unmerged`),
    repeating a merged cell over the rows and columns it spans as the wide view does. Only
    cells on the table's data rows count, as in its long view."""

    def __init__(self, db: Any, info: TableInfo, side: RowSide) -> None:
        self.db = db
        self._key = [info.grid, info.id]
        self._side = side
        self._merged: list[tuple[Value, int, int, int, int]] | None = None

    @property
    def grid(self) -> str:
        return self._key[0]

    def column(self, col: int) -> dict[int, Value]:
        out: dict[int, Value] = {}
        merged = self.merged_cells()
        rows = self._side.row_set
        for r, value in self._unmerged(col):
            if r in rows:
                out[r] = value
        for value, r0, c0, rowspan, colspan in merged:
            if c0 <= col < c0 + colspan:
                for r in range(r0, r0 + rowspan):
                    if r in rows:
                        out[r] = value
        return out

    def cells(self, col: int, rows: Sequence[int]) -> dict[int, Value]:
        """A column's values on these rows by row, as `column` reads them, in one query."""
        data = self._side.row_set
        wanted = sorted({r for r in rows if r in data})
        out = dict(self._unmerged(col, wanted))
        for value, r0, c0, rowspan, colspan in self.merged_cells():
            if c0 <= col < c0 + colspan:
                out.update((r, value) for r in range(r0, r0 + rowspan) if r in data)
        return out

    def _unmerged(self, col: int, rows: list[int] | None = None) -> list[tuple[int, Value]]:
        """A column's unmerged cells with a kind (on these rows, sorted, when given), by row
        in row order: its rows of `cell_rows`, then its plain cells, decoded here
        (`storage.plain_cells.plain_values`: SQLite's expansion of them is slower)."""
        only = "" if rows is None else " AND row IN (SELECT value FROM json_each(?))"
        blocks = "" if rows is None else " AND row_block IN (SELECT value FROM json_each(?))"
        key = [*self._key, col]
        found = [(f[8], tuple.__new__(Value, f[:8])) for f in stop.checked(self.db.execute(
            # Named: without statistics SQLite picks the primary key (grid, row, col) and
            # scans the whole grid for one column.
            f"SELECT {_VALUE_FIELDS}, row FROM {ROW_TABLE} INDEXED BY cells_by_column WHERE "
            "grid = ? AND table_id = ? AND col = ? AND kind IS NOT NULL AND rowspan = 1 "
            f"AND colspan = 1{only}",
            key if rows is None else [*key, orjson.dumps(rows).decode()]))]
        plain = plain_values(self.db.execute(
            f"SELECT {BLOCK_FIELDS} FROM plain_cells WHERE grid = ? AND table_id = ? "
            f"AND col = ?{blocks} ORDER BY row_block",
            key if rows is None else
            [*key, orjson.dumps(sorted({r // BLOCK_ROWS for r in rows})).decode()]))
        wanted = None if rows is None else set(rows)
        more = [(row, tuple.__new__(Value, (text, number, kind, None, ref, None, None, None)))
                for row, text, number, kind, ref in stop.checked(plain)
                if wanted is None or row in wanted]
        if more:  # the rows' order, as the index gave it alone (the blocks' groups interleave)
            found += more
            found.sort(key=itemgetter(0))
        return found

    def cell(self, row: int, col: int) -> Value | None:
        """One data cell (or the merged cell over it) of the table, by row and column."""
        if not self._side.has_row(row):
            return None
        for value, r0, c0, rowspan, colspan in self.merged_cells():
            if r0 <= row < r0 + rowspan and c0 <= col < c0 + colspan:
                return value
        found = self.db.execute(
            f"SELECT {_VALUE_COLUMNS} FROM cells WHERE grid = ? AND row_block = ? AND row = ? "
            "AND col = ? AND table_id = ? AND kind IS NOT NULL",
            [self._key[0], row // BLOCK_ROWS, row, col, self._key[1]]).fetchone()
        return None if found is None else Value(*found[:8])

    def text_cells(self, cols: set[int]) -> Iterator[tuple[tuple[int, int], Value]]:
        """The cells of these columns that are not numbers, by (row, col)."""
        rows = self._side.row_set
        for text, number, kind, unit, ref, date, scale, source, r, c in self.db.execute(
                f"SELECT {_VALUE_COLUMNS} FROM cells WHERE grid = ? AND table_id = ? "
                f"AND kind IS NOT NULL AND rowspan = 1 AND colspan = 1 AND {_NOT_NUMERIC}",
                self._key):
            if c in cols and r in rows:
                yield (r, c), Value(text, number, kind, unit, ref, date, scale, source)
            if not r & 1023:
                stop.check()
        for value, r0, c0, rowspan, colspan in self.merged_cells():
            if value.numeric:
                continue
            for r in range(r0, r0 + rowspan):
                for c in range(c0, c0 + colspan):
                    if c in cols and r in rows:
                        yield (r, c), value

    def merged_cells(self) -> list[tuple[Value, int, int, int, int]]:
        """The table's merged data cells (few, read once): value, anchor row and col, spans.
        A merged cell counts when its anchor is on a data row, as in the long view."""
        if self._merged is None:
            self._merged = [
                (Value(text, number, kind, unit, ref, date, scale, source), r, c, rs, cs)
                for text, number, kind, unit, ref, date, scale, source, r, c, rs, cs
                in self.db.execute(
                    # The partial index of merged cells: without statistics SQLite scans
                    # the grid's cells instead (0.2 s at 1M cells). Merged cells are never
                    # plain (`storage.plain_cells`).
                    f"SELECT {_VALUE_COLUMNS}, rowspan, colspan FROM {ROW_TABLE} INDEXED BY "
                    "cells_merged WHERE grid = ? "
                    "AND table_id = ? AND kind IS NOT NULL AND (rowspan > 1 OR colspan > 1)",
                    self._key)
                if self._side.has_row(r)]  # few: each looked up alone
        return self._merged
