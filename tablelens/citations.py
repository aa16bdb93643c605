"""How a set of cited cells reads in the chat and what of it the source table shows.

A set is one citation: its pill says what the cells are in the table's words (the column's
header path, or the row's path for a set across one row) and how many they are, never an id;
opening it draws its table with every cell of the set that is on screen highlighted. A cell
read from an image opens that image with the cited cells' boxes outlined. Pure functions: the
app lays them out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from openpyxl.utils.cell import get_column_letter

from agent.evidence_sets import Box, boxes, cells_in
from storage.records import TableInfo
from storage.views import PATH_SEPARATOR, CellPaths
from tablelens.workspace_view import cited_window

if TYPE_CHECKING:
    from storage.workspace import Workspace

def cited_table(workspace: Workspace, item: Mapping[str, Any]) -> TableInfo | None:
    """The table a citation names, None when it is no longer in the workspace."""
    try:
        return workspace.table(str(item.get("table", "")))
    except KeyError:
        return None


SHOWN_PATHS = 2
"""Columns a pill names before it says how many more."""


def set_label(evidence_set: Mapping[str, Any], table: TableInfo | None) -> str:
    """ "Region 2 > Q3, 2,000 cells": the set in its table's words, and its size."""
    count = f"{int(evidence_set.get('count') or 0):,} cells"
    ranges = [str(r) for r in evidence_set.get("ranges") or []]
    spans = boxes(ranges)
    if table is None or not spans:  # its table was removed: where it was is all there is
        return f"{evidence_set.get('sheet', '')}!{ranges[0] if ranges else ''}, {count}"
    where = f"{evidence_set.get('sheet', '')}!{ranges[0]}, {count}"
    rows = {r for r0, _, r1, _ in spans for r in (r0, r1)}
    if len(rows) == 1 and any(c0 != c1 for _, c0, _, c1 in spans):  # across one row
        path = {p.position: p.path for p in table.tree.rows.paths}.get(rows.pop(), ())
        return f"{_words(path)}, {count}" if _words(path) else where
    col_paths = {p.position: column.path
                 for p, column in zip(table.tree.columns.paths, table.columns, strict=True)}
    columns = sorted({c for _, c0, _, c1 in spans for c in range(c0, c1 + 1)})
    names = [n for n in dict.fromkeys(_words(col_paths.get(c, ())) for c in columns) if n]
    if not names:
        return where
    more = len(names) - SHOWN_PATHS
    shown = (", ".join(names[:SHOWN_PATHS]) + f" and {more:,} more columns" if more > 0
             else " and ".join(names))
    return f"{shown}, {count}"


def _words(path: tuple[str, ...]) -> str:
    return PATH_SEPARATOR.join(p for p in path if p)


def paths_line(paths: CellPaths) -> str:
    """"Column: H1 2024 > Q2 · Row: Operating Expenses > Salaries": a cited cell in its
    table's words ("" when it has neither path)."""
    parts = []
    if paths.columns:
        parts.append(f"Column{'s' * (len(paths.columns) > 1)}: {', '.join(paths.columns)}")
    if paths.row:
        parts.append(f"Row: {paths.row}")
    return " · ".join(parts)


def set_window(evidence_set: Mapping[str, Any], table: TableInfo | None) -> Box | None:
    """The window of the sheet to draw: the table's region when the set fits in what is
    drawn of it, else a window from the set's top-left cell."""
    spans = boxes(str(r) for r in evidence_set.get("ranges") or [])
    return cited_window(table, [corner for r0, c0, r1, c1 in spans
                                for corner in ((r0, c0), (r1, c1))])


def set_refs(evidence_set: Mapping[str, Any], window: Box | None) -> set[str]:
    """The refs of the set's cells inside the drawn window, to highlight."""
    ranges = [str(r) for r in evidence_set.get("ranges") or []]
    return {f"{get_column_letter(c)}{r}" for r, c in cells_in(ranges, window)}


def outlined_image(data: bytes, boxes: Sequence[Sequence[int]],
                   focus: Sequence[int] | None = None) -> bytes:
    """The original image (PNG bytes) with the cited cells' boxes outlined: orange, the
    clicked one red and thicker."""
    import io

    from PIL import Image, ImageDraw, ImageOps

    image = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
    draw = ImageDraw.Draw(image)
    width = max(2, round(max(image.size) / 600))
    for box in boxes:
        if focus is None or list(box) != list(focus):
            draw.rectangle(tuple(box), outline=(245, 140, 0), width=width)
    if focus is not None:
        draw.rectangle(tuple(focus), outline=(220, 0, 0), width=width + 1)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


# --- citations of text (CONTRACTS.md "Evidence kinds", kind "text") ----------------------------

def text_label(evidence: Mapping[str, Any], limit: int = 40) -> str:
    """"notes.txt, paragraph 2: “The company had 42…”": where a cited span is and what it
    says (page or section when the source has them)."""
    where = evidence.get("location") or {}
    parts = [str(evidence.get("source", ""))]
    if where.get("page") is not None:
        parts.append(f"page {where['page']}")
    parts.append(f"paragraph {int(where.get('paragraph', 0)) + 1}")
    text = " ".join(str(evidence.get("text", "")).split())
    if len(text) > limit:
        text = text[:limit - 1] + "…"
    return f"{', '.join(parts)}: “{text}”"


def passage_span(evidence: Mapping[str, Any], chunk_start: int, chunk_text: str
                 ) -> tuple[int, int]:
    """The cited span's [start, end) in its chunk's text: the location is a span of the
    paragraph, and the chunk starts at `chunk_start` of it. Clamped to the chunk; when the
    text there is not the cited text, the first place the cited text occurs."""
    where = evidence.get("location") or {}
    start = max(0, int(where.get("start", 0)) - chunk_start)
    end = min(len(chunk_text), max(start, int(where.get("end", 0)) - chunk_start))
    cited = str(evidence.get("text", ""))
    if cited and chunk_text[start:end] != cited and cited in chunk_text:
        start = chunk_text.index(cited)
        end = start + len(cited)
    return start, end


def passage_html(passage: str, start: int, end: int) -> str:
    """A passage as HTML with the cited span highlighted (everything escaped)."""
    from html import escape

    return (f'<div class="tl-passage" style="line-height:1.6">{escape(passage[:start])}'
            f'<mark class="tl-cited" style="background:#fff3a0">'
            f"{escape(passage[start:end])}</mark>{escape(passage[end:])}</div>")
