"""The CSV and Excel downloads under an intermediate table, in the chat and on a shared page.

A step's event holds the first 50 rows of its table; the download is the whole stored table
(`exports.full_table`), headed by the labels the chat shows, and named by what it holds,
never by a table id. It is built only when clicked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from storage.workspace import Workspace
from tablelens.exports import csv_bytes, file_stem, full_table, xlsx_bytes
from tablelens.table_view import TableView, download_columns

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


def download_buttons(workspace: Workspace, key: str, table: Mapping[str, Any],
                     view: TableView) -> None:
    """CSV and Excel buttons for the whole stored table of a step (widget keys from `key`)."""
    db_path, name = str(workspace.db_path), str(table.get("name") or "table")
    columns, rows = list(table.get("columns") or []), list(table.get("rows") or [])
    stem = file_stem(view.title)

    def whole() -> tuple[list[str], list[list[Any]]]:
        names, found = full_table(db_path, name, columns, rows)
        return download_columns(view, names), found

    with st.container(horizontal=True, gap="small"):
        st.download_button("CSV", data=lambda: csv_bytes(*whole()), file_name=f"{stem}.csv",
                           mime="text/csv", key=f"{key}_csv", icon=":material/download:",
                           on_click="ignore")
        st.download_button("Excel", data=lambda: xlsx_bytes(*whole(), sheet=stem),
                           file_name=f"{stem}.xlsx", key=f"{key}_xlsx", mime=XLSX_MIME,
                           icon=":material/download:", on_click="ignore")
