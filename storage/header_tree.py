"""The HO-Tree of a stored table, as the catalog keeps it (`catalog.tree`, JSON).

`ingest.structure.TableStructure.tree_json` writes the JSON when a table is read; these frozen
types are what the rest of the application reads back, so no consumer walks nested dicts by
string key. The JSON layout is unchanged since schema version 1: `{"schema_version",
"decisions", "columns": {"nodes", "paths": [{"col", "path", "nodes"}]}, "rows": {"levels",
"nodes", "paths": [{"row", "path", "nodes"}]}}`. Its `decisions` copy the catalog's own columns,
so `HeaderTree` does not hold them; `to_dict` takes them back from the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Axis = Literal["col", "row"]


@dataclass(frozen=True, slots=True)
class TreeNode:
    """One header node: a header cell, a section band or a row-group label."""

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


@dataclass(frozen=True, slots=True)
class TreePath:
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


@dataclass(frozen=True, slots=True)
class HeaderTree:
    """A table's column and row header trees."""

    schema_version: int
    columns: TreeSide
    rows: TreeSide

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HeaderTree:
        return cls(data["schema_version"], TreeSide.from_dict("col", data["columns"]),
                   TreeSide.from_dict("row", data["rows"]))

    def to_dict(self, decisions: dict[str, Any]) -> dict[str, Any]:
        """Return the stored JSON, with the table's header decisions in it."""
        return {"schema_version": self.schema_version, "decisions": decisions,
                "columns": self.columns.to_dict(), "rows": self.rows.to_dict()}
