"""The rows a workspace stores about its contents, as frozen types: one uploaded file
(`SourceInfo`), one grid (`GridInfo`), one table of the catalog (`TableInfo`).

Each type knows its own row: `from_row` decodes what SQLite returns (JSON text included) and,
for the catalog, `to_row` encodes what is inserted, so the catalog's layout is written down
once. The on-disk layout is the one workspaces have always had (`catalog` in
`storage/views.py`); a row stored by any earlier version decodes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ingest.structure import Override
from storage.header_tree import HeaderTree


@dataclass(frozen=True)
class SourceInfo:
    """One uploaded file as the workspace records it."""

    sha256: str
    name: str
    """The file's name as uploaded, or "name (2).ext" when another file of the workspace had
    that name (`Workspace.add_file`); files stored before that rule may share one."""
    slug: str
    ext: str
    bytes: int
    added_at: str
    beside: str | None = None
    """The sha256 of the file this one was added beside (a report's text ingested as its own
    document beside the report's table file), or None. Recorded when the file is added
    (`Workspace.add_file(beside=...)`), never guessed from names; cleared when that file is
    removed."""


@dataclass(frozen=True)
class GridInfo:
    """One stored grid (a sheet, or an HTML/Markdown table, or a CSV file)."""

    id: str
    source: str
    index: int
    sheet: str
    kind: str
    n_rows: int
    n_cols: int
    caption: str | None
    warnings: list[str]

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> GridInfo:
        return cls(row["id"], row["source"], row["idx"], row["sheet"], row["kind"],
                   row["n_rows"], row["n_cols"], row["caption"],
                   json.loads(row["warnings"]) if row["warnings"] else [])


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    """One leaf column of a table: its wide-table name, header path, and what its cells hold."""

    name: str | None
    """The wide table's column name; None when the table has no wide table."""
    path: tuple[str, ...]
    kind: str | None
    """The commonest typed-value kind of its cells (None when it has no cells)."""
    unit: str | None
    """The commonest unit of its cells."""
    samples: tuple[str, ...]
    """Its first three distinct non-blank texts."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ColumnInfo:
        return cls(data["name"], tuple(data["path"]), data["type"], data["unit"],
                   tuple(data["samples"]))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": list(self.path), "type": self.kind,
                "unit": self.unit, "samples": list(self.samples)}


@dataclass(frozen=True)
class TableInfo:
    """One table of the catalog: where it is, how its headers were read, and its views."""

    id: str
    """`<file-slug>__<sheet-slug>__t<k>`."""
    grid: str
    source: str
    """The file's sha256."""
    file_name: str
    sheet: str
    k: int
    """Its order among the tables of its sheet (0-based)."""
    region: str
    """Its cells on the sheet, an A1 range ("A1:E8")."""
    title: str | None
    notes: tuple[str, ...]
    header_rows: tuple[int, ...]
    header_cols: tuple[int, ...]
    orientation: str
    """"top", "left" or "kv" (label/value pairs)."""
    confidence: float
    repeated_header_rows: tuple[int, ...]
    """Header rows repeated inside the table (a page break in a report)."""
    columns: tuple[ColumnInfo, ...]
    """The leaf columns, left to right."""
    row_levels: tuple[str, ...]
    """The wide table's row-path level column names."""
    wide: str | None
    """The wide table's name; None past the column limit (`wide_note` says why)."""
    wide_note: str | None
    long: str
    """The long view's name."""
    n_rows: int
    tree: HeaderTree
    version: int
    """1 when first read, one more at each re-read (a header correction)."""
    override: Override | None
    """The user's header correction, None when the headers are as detected."""

    @property
    def corrected(self) -> bool:
        """Whether the user set this table's header rows or columns by hand."""
        return self.override is not None and (self.override.header_rows is not None
                                              or self.override.header_cols is not None)

    def decisions(self) -> dict[str, Any]:
        """The header decisions as `TableStructure.decisions` states them (stored twice)."""
        return {"header_rows": list(self.header_rows), "header_cols": list(self.header_cols),
                "orientation": self.orientation, "confidence": round(self.confidence, 2),
                "repeated_header_rows": list(self.repeated_header_rows)}

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> TableInfo:
        """Decode a `catalog` row as SQLite returns it."""
        decisions = json.loads(row["decisions"])
        override = json.loads(row["override"]) if row["override"] is not None else None
        return cls(
            row["id"], row["grid"], row["source"], row["file_name"], row["sheet"], row["k"],
            row["region"], row["title"], tuple(json.loads(row["notes"])),
            tuple(json.loads(row["header_rows"])), tuple(json.loads(row["header_cols"])),
            row["orientation"], row["confidence"],
            tuple(decisions.get("repeated_header_rows") or ()),
            tuple(map(ColumnInfo.from_dict, json.loads(row["column_paths"]))),
            tuple(json.loads(row["row_levels"])), row["wide"], row["wide_note"], row["long"],
            row["n_rows"], tree if isinstance(tree := row["tree"], HeaderTree)
            else HeaderTree.from_stored(tree), row["version"],
            None if override is None else Override(_tuple_or_none(override["header_rows"]),
                                                   _tuple_or_none(override["header_cols"])))

    def to_row(self) -> dict[str, Any]:
        """Encode the `catalog` row to insert (JSON fields as text)."""
        override = None if self.override is None else _json(
            {"header_rows": _list_or_none(self.override.header_rows),
             "header_cols": _list_or_none(self.override.header_cols)})
        return {
            "id": self.id, "grid": self.grid, "source": self.source,
            "file_name": self.file_name, "sheet": self.sheet, "k": self.k,
            "region": self.region, "title": self.title, "notes": _json(list(self.notes)),
            "header_rows": _json(list(self.header_rows)),
            "header_cols": _json(list(self.header_cols)),
            "orientation": self.orientation, "confidence": self.confidence,
            "decisions": _json(self.decisions()),
            "column_paths": _json([c.to_dict() for c in self.columns]),
            "row_levels": _json(list(self.row_levels)), "wide": self.wide,
            "wide_note": self.wide_note, "long": self.long, "n_rows": self.n_rows,
            "tree": _json(self.tree.to_dict(self.decisions())), "version": self.version,
            "override": override,
        }


def _json(value: Any) -> str:
    """Encode JSON keeping non-ASCII text readable."""
    return json.dumps(value, ensure_ascii=False)


def _tuple_or_none(values: Sequence[int] | None) -> tuple[int, ...] | None:
    """Decode one side of a stored override; None means "detect"."""
    return tuple(values) if values is not None else None


def _list_or_none(values: Sequence[int] | None) -> list[int] | None:
    """Encode one side of an override, keeping None (meaning "detect")."""
    return list(values) if values is not None else None
