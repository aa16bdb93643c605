"""Test helpers over the two cell stores (`storage.plain_cells`): plain cells made rows, so a
test can change one cell, and a workspace given the cell storage of schema 9."""

from __future__ import annotations

import sqlite3

from storage.cells_codec import CELL_COLUMNS
from storage.plain_cells import PLAIN_COLUMNS, PLAIN_FROM, PLAIN_WHERE


def plain_cells_as_rows(conn: sqlite3.Connection) -> None:
    """Move every plain cell into `cell_rows`, as the cell writer of schema 9 wrote it."""
    plain = ", ".join(PLAIN_COLUMNS[c] for c in CELL_COLUMNS)
    conn.execute(f"INSERT INTO cell_rows ({', '.join(CELL_COLUMNS)}) "
                 f"SELECT {plain} FROM {PLAIN_FROM} WHERE {PLAIN_WHERE}")
    conn.execute("DELETE FROM plain_cells")


def as_schema_9(conn: sqlite3.Connection) -> None:
    """Give a workspace the cell storage of schema 9: every cell a row of the `cells` table,
    which each long view reads alone, and schema version 9."""
    with conn:
        plain_cells_as_rows(conn)
        views = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'view' "
                             "AND sql LIKE '% UNION ALL %' AND name LIKE '%\\_\\_long' "
                             "ESCAPE '\\'").fetchall()
        for name, sql in views:  # schema 9's long view was the first branch, over the rows
            conn.execute(f'DROP VIEW "{name}"')
            conn.execute(sql.split(" UNION ALL ")[0])
        for view in ("cells", "column_cells"):
            conn.execute(f"DROP VIEW {view}")
        conn.execute("DROP TABLE plain_cells")
        conn.execute("ALTER TABLE cell_rows RENAME TO cells")
        conn.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
