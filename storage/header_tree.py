"""The HO-Tree of a stored table, as the catalog keeps it (`catalog.tree`, JSON).

`ingest.structure.TableStructure.tree_json` states the tree when a table is read:
`{"schema_version", "decisions", "columns": {"nodes", "paths": [{"col", "path", "nodes"}]},
"rows": {"levels", "nodes", "paths": [{"row", "path", "nodes"}]}}` (schema version 1). These
types are what the rest of the application reads back, so no consumer walks nested dicts by
string key.

The catalog stores it in layout version 2: the same, except that the row side is `{"levels",
"chunks"}`, each chunk the JSON text of up to `ROW_CHUNK` row nodes and row paths, column by
column (`{"nodes": [ids, texts, refs, kinds, parents, children], "paths": [rows, paths,
node chains]}`). A 100k-row table's row side is 15 MB of JSON: decoded in one call it held a
question for a second that Stop could not interrupt, and every catalog read paid for it.
Trees stored in version 1 still read. `decisions` copy the catalog's own columns, so
`HeaderTree` does not hold them; `to_dict` takes them back from the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

import orjson

Axis = Literal["col", "row"]

CHUNKS_STARTS = (b'"chunks": [', b'"chunks":[')
"""Where the row chunks start in a stored tree (layout 2 writes them last), as the catalog's
JSON writes it (`json.dumps`, a space after the colon) and as compact JSON does: JSON
escapes a quote inside a string, so these bytes occur nowhere else."""


class TreeNode(NamedTuple):
    """One header node: a header cell, a section band or a row-group label. (A named tuple,
    as `TreePath`: a 100k-row table has 100k of each, and a frozen dataclass is several times
    slower to build.)"""

    id: int
    """Its position in its side's `nodes` (paths name nodes by it)."""
    text: str
    ref: str | None
    kind: str
    """"column", "row", "band" (a section band) or "group" (a row-group label)."""
    parents: tuple[int, ...]
    children: tuple[int, ...]

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TreeNode:
        return cls(data["id"], data["text"], data["ref"], data["kind"], tuple(data["parents"]),
                   tuple(data["children"]))

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "ref": self.ref, "kind": self.kind,
                "parents": list(self.parents), "children": list(self.children)}


class TreePath(NamedTuple):
    """The header path of one data column (column side) or data row (row side)."""

    position: int
    """The sheet column or row it names (1-based)."""
    path: tuple[str, ...]
    nodes: tuple[int, ...]
    """The ids of the nodes along the path, outermost first."""


@dataclass(frozen=True, slots=True)
class TreeSide:
    """One side of the tree: the column headers on top, or the row headers on the left."""

    axis: Axis
    nodes: tuple[TreeNode, ...]
    paths: tuple[TreePath, ...]
    """One per data column or row, in sheet order."""
    levels: tuple[str, ...] = ()
    """The row side's level names (header cells above the header columns); () for columns."""

    @classmethod
    def from_dict(cls, axis: Axis, data: dict[str, Any]) -> TreeSide:
        return cls(axis, tuple(map(TreeNode.from_dict, data["nodes"])),
                   tuple(TreePath(p[axis], tuple(p["path"]), tuple(p["nodes"]))
                         for p in data["paths"]),
                   tuple(data.get("levels", ())))

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"levels": list(self.levels)} if self.axis == "row" else {}
        out["nodes"] = [n.to_dict() for n in self.nodes]
        out["paths"] = [{self.axis: p.position, "path": list(p.path), "nodes": list(p.nodes)}
                        for p in self.paths]
        return out


STORED_SCHEMA_VERSION = 2
"""The catalog's layout: version 1 held the row side inline; version 2 holds it as chunks."""

ROW_CHUNK = 4096
"""Row nodes and row paths per stored chunk. One chunk decodes in milliseconds, so reading a
100k-row table's row side can stop between chunks (Stop lands within 300 ms), and a catalog
read that never looks at the rows (a listing of tables) never decodes them."""


class HeaderTree:
    """A table's column and row header trees.

    Stored (`to_dict`, `from_stored`), the row side is a list of JSON texts of `ROW_CHUNK`
    nodes and paths each, kept as text until `rows` (or `load_rows`, which can be stopped
    between chunks) is first read. A tree of layout version 1 (rows inline) reads as before.
    """

    __slots__ = ("_text", "_rest", "_schema_version", "_columns", "_levels", "_chunks", "_rows")

    def __init__(self, schema_version: int, columns: TreeSide, rows: TreeSide) -> None:
        self._text: str | bytes | None = None
        self._rest: Callable[[], str | bytes] | None = None
        self._schema_version, self._columns = schema_version, columns
        self._rows: TreeSide | None = rows
        self._levels: tuple[str, ...] = rows.levels
        self._chunks: list[str] | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HeaderTree:
        """Decode the tree as `TableStructure.tree_json` states it (rows inline)."""
        return cls(data["schema_version"], TreeSide.from_dict("col", data["columns"]),
                   TreeSide.from_dict("row", data["rows"]))

    @classmethod
    def from_stored(cls, text: str | bytes) -> HeaderTree:
        """The tree of a catalog row, decoded only when first read."""
        tree = cls.__new__(cls)
        tree._text, tree._rest, tree._rows, tree._chunks = text, None, None, None
        return tree

    @classmethod
    def from_stored_head(cls, head: bytes, whole: Callable[[], str | bytes]) -> HeaderTree:
        """The tree of a catalog row from the start of its stored text, up to and with one of
        `CHUNKS_STARTS`; `whole` reads the whole text when the rows are first read. A tall
        table's tree is tens of MB (69 MB at 640,000 rows: a second to read and another to
        decode in every new process), its column side a few KB at the start."""
        data = orjson.loads(head + b"]}}")
        tree = cls.__new__(cls)
        tree._text, tree._rest, tree._rows, tree._chunks = None, whole, None, None
        tree._schema_version = data["schema_version"]
        tree._columns = TreeSide.from_dict("col", data["columns"])
        tree._levels = tuple(data["rows"]["levels"])
        return tree

    def _open(self) -> None:
        """Decode the stored text's small part: version, column side, row levels, chunks."""
        data = orjson.loads(self._text)
        rows = data["rows"]
        self._schema_version = data["schema_version"]
        self._columns = TreeSide.from_dict("col", data["columns"])
        self._levels = tuple(rows.get("levels", ()))
        if "chunks" in rows:
            self._chunks = rows["chunks"]
        else:  # layout version 1
            self._rows = TreeSide.from_dict("row", rows)
        self._text = None  # last: a reader that finds no text finds the rest set

    @property
    def schema_version(self) -> int:
        """The layout version of the JSON the tree was read from."""
        if self._text is not None:
            self._open()
        return self._schema_version

    @property
    def columns(self) -> TreeSide:
        if self._text is not None:
            self._open()
        return self._columns

    @property
    def rows(self) -> TreeSide:
        return self.load_rows()

    def load_rows(self, between_chunks: Callable[[], None] | None = None) -> TreeSide:
        """The row side, decoded on first use; `between_chunks` runs before each chunk (a
        cancel check)."""
        whole = self._rest
        if whole is not None:
            text = whole()
            if self._rest is not None:  # else another thread read it meanwhile
                self._text, self._rest = text, None
        if self._text is not None:
            self._open()
        if self._rows is not None:
            return self._rows
        chunks = self._chunks
        if chunks is None:  # another thread decoded them between the two reads
            assert self._rows is not None
            return self._rows
        nodes: list[TreeNode] = []
        paths: list[TreePath] = []
        for text in chunks:
            if between_chunks is not None:
                between_chunks()
            chunk = orjson.loads(text)
            ids, texts, refs, kinds, parents, children = chunk["nodes"]
            nodes += map(TreeNode, ids, texts, refs, kinds, map(tuple, parents),
                         map(tuple, children))
            rows, row_paths, chains = chunk["paths"]
            paths += map(TreePath, rows, map(tuple, row_paths), map(tuple, chains))
        self._rows = TreeSide("row", tuple(nodes), tuple(paths), self._levels)
        self._chunks = None  # after `_rows`: a reader that finds no chunks finds the rows
        return self._rows

    def to_dict(self, decisions: dict[str, Any]) -> dict[str, Any]:
        """Return the stored JSON (layout version 2), with the table's header decisions in
        it. Each chunk holds its nodes and paths column by column, as JSON text."""
        rows = self.rows
        chunks = []
        for start in range(0, max(len(rows.nodes), len(rows.paths)), ROW_CHUNK):
            nodes = rows.nodes[start:start + ROW_CHUNK]
            paths = rows.paths[start:start + ROW_CHUNK]
            chunks.append(orjson.dumps({
                "nodes": [[n.id for n in nodes], [n.text for n in nodes],
                          [n.ref for n in nodes], [n.kind for n in nodes],
                          [n.parents for n in nodes], [n.children for n in nodes]],
                "paths": [[p.position for p in paths], [p.path for p in paths],
                          [p.nodes for p in paths]]}).decode())
        return {"schema_version": STORED_SCHEMA_VERSION, "decisions": decisions,
                "columns": self.columns.to_dict(),
                "rows": {"levels": list(rows.levels), "chunks": chunks}}

    def _key(self) -> tuple[TreeSide, TreeSide]:
        # The content, not the layout it was read from.
        return self.columns, self.rows

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HeaderTree) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"HeaderTree(schema_version={self.schema_version}, columns={self.columns!r})"
