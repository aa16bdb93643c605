"""What a citation opens, in the chat and on a shared page alike: a cited cell in its table (the
answer's other cited cells highlighted, the clicked one outlined), a set of cited cells in
their table, or a cited passage of a document with its words highlighted.

The callers put these in their own dialogs; `where` names the place a missing table or
document is missing from ("this chat's workspace", "this shared chat").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from ingest.grid import table_place
from storage.records import TableInfo
from storage.workspace import Workspace
from tablelens.chat_view import evidence_label, md_escape, ranges_text
from tablelens.citations import (
    cited_table,
    outlined_image,
    passage_html,
    passage_span,
    paths_line,
    set_label,
    set_refs,
    set_window,
)
from tablelens.render import SCROLL_TO_CITED, drawn_window, grid_html
from tablelens.workspace_view import cited_window, header_refs, ref_position


def cited_set(workspace: Workspace, evidence_set: Mapping[str, Any], where: str) -> None:
    """The source table of a set of cited cells, every cell of the set on screen highlighted."""
    table = cited_table(workspace, evidence_set)
    label = set_label(evidence_set, table)
    if table is None:
        st.markdown(f"**{md_escape(label)}**")
        st.caption(f"{md_escape(ranges_text(evidence_set))}. Their table is not in {where}.")
        return
    st.markdown(f"**{md_escape(label)}**, in {md_escape(table_place(table.file_name, table.sheet))}"
                f": {md_escape(ranges_text(evidence_set))}")
    window = set_window(evidence_set, table)
    refs = set_refs(evidence_set, window)
    grid = workspace.load_window(table.grid, drawn_window(window))
    st.html(grid_html(grid, window=window, header=header_refs(grid, [table]), highlight=refs)
            + SCROLL_TO_CITED, unsafe_allow_javascript=True)
    count = int(evidence_set.get("count") or 0)
    shown = (f"all {count:,} of them" if len(refs) >= count
             else f"{len(refs):,} of the {count:,} on this part of the sheet")
    st.caption(f"Yellow: the cells this answer read ({shown}). Blue: header cells.")


def cited_cell(workspace: Workspace, evidence: Sequence[Mapping[str, Any]], index: int,
               sets: Sequence[Mapping[str, Any]], where: str, *, image: bool) -> None:
    """The source table of a cited cell, cited cells highlighted (those of its sets too); or
    the cited passage. With `image`, a cell read from a screenshot also shows the image, its
    cited cells' boxes outlined."""
    item = evidence[index]
    if item.get("kind") == "text":
        cited_passage(workspace, item, where)
        return
    table = cited_table(workspace, item)
    if table is None:
        st.markdown(f"**{md_escape(evidence_label(item))}**")
        st.markdown("> " + md_escape(str(item.get("text", ""))))
        st.caption(f"The cited cell's value, as the answer recorded it. Its table is no "
                   f"longer in {where} (its file was removed), so the cell cannot be shown "
                   "in place.")
        return
    st.markdown(f"**{md_escape(str(item.get('sheet')))}!{md_escape(str(item.get('ref')))}**"
                f" = {md_escape(str(item.get('text', '')))}, in "
                f"{md_escape(table_place(table.file_name, table.sheet))}")
    cited_paths(workspace, table, str(item.get("ref")))
    if image and item.get("box"):
        cited_image(workspace, table, evidence, item, where)
    refs = {str(e.get("ref")) for e in evidence if e.get("table") == item.get("table")}
    # Around the clicked cell: a set's first and last cells can be a million rows apart.
    window = cited_window(table, [ref_position(r) for r in refs]) if not sets else \
        cited_window(table, [ref_position(str(item.get("ref")))])
    grid = workspace.load_window(table.grid, drawn_window(window))
    for evidence_set in sets:
        if evidence_set.get("table") == item.get("table"):
            refs |= set_refs(evidence_set, window)
    cited = grid_html(grid, window=window, header=header_refs(grid, [table]), highlight=refs,
                      focus=str(item.get("ref")))
    st.html(cited + SCROLL_TO_CITED, unsafe_allow_javascript=True)
    st.caption("Yellow: the cells this answer cites (outlined darker: the one you clicked). "
               "Blue: header cells.")


def cited_paths(workspace: Workspace, table: TableInfo, ref: str) -> None:
    """The cited cell's column and row paths, as the chat's tables name cells; nothing for a
    cell that holds no data (a header cell cited as a label)."""
    paths = workspace.cell_paths(table, *ref_position(ref))
    line = paths_line(paths) if paths is not None else ""
    if line:
        st.markdown(md_escape(line))


def cited_image(workspace: Workspace, table: TableInfo, evidence: Sequence[Mapping[str, Any]],
                item: Mapping[str, Any], where: str) -> None:
    """The image a cited cell was read from, the cited cells' boxes outlined."""
    boxes = [e["box"] for e in evidence if e.get("table") == item.get("table") and e.get("box")]
    try:
        data = workspace.file_path(table.source).read_bytes()
    except (KeyError, OSError):
        st.caption(f"The image this table was read from is not in {where}.")
        return
    st.image(outlined_image(data, boxes, item.get("box")),
             caption="Read from this image: the cited cells outlined (red: the one you "
                     "clicked). The table below is what OCR read.")


def cited_passage(workspace: Workspace, item: Mapping[str, Any], where: str) -> None:
    """The passage a text citation is in, the cited span highlighted."""
    st.markdown(f"**{md_escape(evidence_label(item))}**")
    try:
        chunk = workspace.chunk(str(item.get("chunk", "")))
    except KeyError:
        st.markdown("> " + md_escape(str(item.get("text", ""))))
        st.caption(f"The cited passage. Its document is not in {where}.")
        return
    place = [chunk.file_name]
    if chunk.chunk.page is not None:
        place.append(f"page {chunk.chunk.page}")
    if chunk.chunk.section:
        place.append(f"section “{chunk.chunk.section}”")
    st.caption("In " + md_escape(", ".join(place)))
    start, end = passage_span(item, chunk.chunk.start, chunk.text)
    st.html(passage_html(chunk.text, start, end))
    st.caption("Yellow: the words this answer cites.")
