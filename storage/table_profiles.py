"""Stored facts about a whole table that the engine computes once (which rows are totals,
the words the table writes), so that no question rescans the table: `table_profiles` in
`workspace.sqlite`, one row per table and fact.

A row is valid for one version of the table and one version of the rules that computed it
(`rules`, a digest the engine passes); a table's rows go when the table does. Writing is
best effort: while an upload holds the write lock, the fact is kept in memory only.
"""

from __future__ import annotations

from sqlite_utils import Database

from storage.transactions import write_transaction

SCHEMA = ("CREATE TABLE IF NOT EXISTS table_profiles (table_id TEXT NOT NULL, name TEXT NOT "
          "NULL, version INTEGER NOT NULL, rules TEXT NOT NULL, value TEXT NOT NULL, "
          "PRIMARY KEY (table_id, name))")


def read_fact(db: Database, table_id: str, name: str, version: int, rules: str) -> str | None:
    """The stored JSON of a fact of this version of the table under these rules, else None."""
    row = db.execute("SELECT value FROM table_profiles WHERE table_id = ? AND name = ? AND "
                     "version = ? AND rules = ?", [table_id, name, version, rules]).fetchone()
    return row[0] if row else None


def write_fact(db: Database, table_id: str, name: str, version: int, rules: str,
               value: str) -> None:
    """Store a fact, unless another connection is writing (it is then computed again later)."""
    with write_transaction(db, wait=False) as locked:
        if locked:
            db.execute("INSERT OR REPLACE INTO table_profiles VALUES (?, ?, ?, ?, ?)",
                       [table_id, name, version, rules, value])


def drop_facts(db: Database, table_ids: list[str]) -> None:
    """Forget the facts of tables that are removed or replaced."""
    db.conn.executemany("DELETE FROM table_profiles WHERE table_id = ?", [[t] for t in table_ids])
