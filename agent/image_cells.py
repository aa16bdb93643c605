"""Cells read from images: their pixel boxes on the evidence, and the doubt the answer states.

A cell OCR read from a picture keeps its box and flags in the workspace (`ingest/image_reader.py`).
Evidence from such a table carries the box (CONTRACTS.md: `box` = [x0, y0, x1, y1] pixels for
images), and an answer that cites such cells says so: "(read from an image; 1 cell uncertain)".
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from agent.events import Evidence
from agent.evidence_sets import Citation
from storage.workspace import Workspace

UNCERTAIN_FLAGS = ("low_confidence", "not_a_number")


@dataclass(frozen=True)
class ImageCell:
    box: list[int]
    uncertain: bool


def image_cells(workspace: Workspace, evidence: list[Evidence]) -> dict[tuple[str, str],
                                                                        ImageCell]:
    """The cited cells that were read from images, by (table, ref)."""
    tables = sorted({e.table for e in evidence})
    if not tables:
        return {}
    # The image grids first (the grids table is small): a workbook has none, and a join from
    # its cells cost 77 ms per call on a 100k-cell table. An image's grid is small, so its
    # cells are read by the primary key's grid prefix.
    grids = [g for (g,) in workspace.db.execute(
        "SELECT id FROM grids WHERE kind = 'image'").fetchall()]
    if not grids:
        return {}
    marks = ",".join("?" * len(tables))
    rows = workspace.db.execute(
        f"SELECT table_id, ref, box, flags FROM cells WHERE grid IN ({','.join('?' * len(grids))}) "
        f"AND box IS NOT NULL AND table_id IN ({marks})", [*grids, *tables]).fetchall()
    wanted = {(e.table, e.ref) for e in evidence}
    out = {}
    for table, ref, box, flags in rows:
        if (table, ref) in wanted:
            names = json.loads(flags) if flags else []
            out[(table, ref)] = ImageCell(list(json.loads(box)),
                                          any(f in UNCERTAIN_FLAGS for f in names))
    return out


def with_boxes(workspace: Workspace, citation: Citation) -> Citation:
    """The citation with each image cell's box on its evidence."""
    cells = image_cells(workspace, citation.evidence)
    if not cells:
        return citation

    def boxed(items: list[Evidence]) -> list[Evidence]:
        return [e.model_copy(update={"box": cells[(e.table, e.ref)].box})
                if (e.table, e.ref) in cells else e for e in items]

    every = citation.every_cell
    return Citation(boxed(citation.evidence), citation.sets, lambda: boxed(every()))


def image_note(workspace: Workspace, evidence: list[Evidence]) -> str | None:
    """What an answer citing these cells adds: "read from an image; 1 cell uncertain" (None
    when no cited cell comes from an image)."""
    cells = image_cells(workspace, evidence)
    if not cells:
        return None
    doubtful = sum(c.uncertain for c in cells.values())
    return "read from an image" + (
        f"; {doubtful} cell{'s' if doubtful != 1 else ''} uncertain" if doubtful else "")


def noted(text: str, note: str | None) -> str:
    """The answer text with the image note after it."""
    return f"{text} ({note})" if note else text
