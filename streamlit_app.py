"""Tablelens web app: upload reports and see how each sheet and table was read.

A thin client: it collects input, calls `ingest`/`storage`, and shows the result. The chat id is
kept in the URL (`?session=...`), so a refresh keeps the workspace.
"""

from __future__ import annotations

import re

import streamlit as st

from ingest.errors import IngestError
from ingest.read import SUPPORTED
from storage.workspace import Workspace, new_workspace_id
from tablelens.render import grid_html
from tablelens.settings import Settings

_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")

st.set_page_config(page_title="Tablelens", layout="wide")


@st.cache_resource
def settings() -> Settings:
    return Settings.from_env()


def current_workspace() -> Workspace:
    """Open this chat's workspace, creating a new chat id when the URL has none (or a bad one)."""
    session = st.query_params.get("session", "")
    if not _SESSION_ID.match(session):
        session = new_workspace_id()
        st.query_params["session"] = session
    return Workspace.in_data_dir(settings().data_dir, session)


def upload(workspace: Workspace) -> None:
    files = st.sidebar.file_uploader(
        "Add reports", type=[ext.lstrip(".") for ext in SUPPORTED] + ["xls", "ods"],
        accept_multiple_files=True, key=f"uploader_{st.session_state.get('uploads', 0)}",
        help="Excel (.xlsx, .xlsm), CSV/TSV, HTML pages and Markdown tables.")
    if not files:
        return
    for file in files:
        bar = st.sidebar.progress(0.0, text=f"{file.name}: reading")
        try:
            workspace.add_file(file, file.name, limits=settings().limits(),
                               progress=lambda f, stage, b=bar, n=file.name:
                               b.progress(min(f, 1.0), text=f"{n}: {stage}"))
        except IngestError as exc:
            st.session_state.setdefault("errors", []).append(exc.message)
        bar.empty()
    # A fresh uploader key clears the widget, so the same files are not added again on rerun.
    st.session_state["uploads"] = st.session_state.get("uploads", 0) + 1
    st.rerun()


def show_errors() -> None:
    for message in st.session_state.pop("errors", []):
        st.error(message, icon=":material/error:")


def show_workspace(workspace: Workspace) -> None:
    sources = workspace.sources()
    if not sources:
        st.info("Upload a report in the sidebar: an Excel workbook, CSV, HTML page or Markdown "
                "file. Each sheet and table is shown here as it was read, merged cells included.")
        return
    for source in sources:
        with st.container(border=True):
            head, remove = st.columns([6, 1])
            head.subheader(source.name)
            if remove.button("Remove", key=f"remove_{source.sha256}",
                             help="Delete this file and everything read from it"):
                workspace.remove_source(source.sha256)
                st.rerun()
            grids = workspace.grids(source.sha256)
            tabs = st.tabs([g.sheet for g in grids])
            for tab, info in zip(tabs, grids, strict=True):
                with tab:
                    grid = workspace.load_grid(info.id)
                    merged = grid.merges()
                    st.caption(f"{info.n_rows} rows x {info.n_cols} columns, "
                               f"{len(grid.cells):,} filled cells, {len(merged)} merged ranges"
                               + (f": {', '.join(c.range_ref for c in merged[:12])}"
                                  + (" ..." if len(merged) > 12 else "") if merged else ""))
                    for warning in info.warnings:
                        st.warning(warning)
                    st.html(grid_html(grid))
                    if info.n_rows > 200 or info.n_cols > 50:
                        st.caption("Showing the first 200 rows and 50 columns.")


def main() -> None:
    st.title("Tablelens")
    workspace = current_workspace()
    upload(workspace)
    show_errors()
    show_workspace(workspace)


main()
