"""Stored facts about a whole table that the engine computes once (which rows are totals,
the words the table writes), so that no question rescans the table: `table_profiles` in
`workspace.sqlite`, one row per table and fact.

A row is valid for one version of the table and one version of the rules that computed it
(`rules`, a digest the engine passes); a table's rows go when the table does. Writing is
best effort: while an upload holds the write lock, the fact is kept in memory only.

A fact as big as the table (the words it writes, its value phrases) is stored by key in
`table_fact_keys` instead, and read a key at a time: loading it whole cost every new process
a time proportional to the table (0.15 s at 1M cells). Its `table_profiles` row then holds
`KEYED`, and marks the keys as complete.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlite_utils import Database

from storage.transactions import write_transaction

SCHEMA = ("CREATE TABLE IF NOT EXISTS table_profiles (table_id TEXT NOT NULL, name TEXT NOT "
          "NULL, version INTEGER NOT NULL, rules TEXT NOT NULL, value TEXT NOT NULL, "
          "PRIMARY KEY (table_id, name))")


KEYED_SCHEMA = ("CREATE TABLE IF NOT EXISTS table_fact_keys (table_id TEXT NOT NULL, name TEXT "
                "NOT NULL, version INTEGER NOT NULL, rules TEXT NOT NULL, key TEXT NOT NULL, "
                "value TEXT NOT NULL, PRIMARY KEY (table_id, name, key)) WITHOUT ROWID")
KEYED = "keyed"
"""The `table_profiles` value of a fact stored by key."""


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


def write_keyed_fact(db: Database, table_id: str, name: str, version: int, rules: str,
                     items: Iterable[tuple[str, str]]) -> bool:
    """Store a fact by key (replacing any other version of it), unless another connection is
    writing; whether it was stored."""
    with write_transaction(db, wait=False) as locked:
        if locked:
            db.execute("DELETE FROM table_fact_keys WHERE table_id = ? AND name = ?",
                       [table_id, name])
            # Staged, then copied in key order: the keys come in the fact's order, and a
            # million of them inserted so into the key's B-tree rewrote its pages at random.
            db.execute("CREATE TEMP TABLE IF NOT EXISTS fact_keys_stage (key TEXT NOT NULL, "
                       "value TEXT NOT NULL)")
            db.conn.executemany("INSERT INTO temp.fact_keys_stage VALUES (?, ?)", items)
            db.execute("INSERT INTO table_fact_keys SELECT ?, ?, ?, ?, key, value FROM "
                       "temp.fact_keys_stage ORDER BY key", [table_id, name, version, rules])
            db.execute("DELETE FROM temp.fact_keys_stage")
            db.execute("INSERT OR REPLACE INTO table_profiles VALUES (?, ?, ?, ?, ?)",
                       [table_id, name, version, rules, KEYED])
    return locked


def read_keys(db: Database, table_id: str, name: str, version: int, rules: str,
              keys: list[str]) -> dict[str, str]:
    """The stored JSON of these keys of a fact (a key the fact lacks is left out)."""
    found: dict[str, str] = {}
    for start in range(0, len(keys), 500):  # within SQLite's limit on parameters
        part = keys[start:start + 500]
        marks = ", ".join("?" * len(part))
        found.update(db.execute(
            f"SELECT key, value FROM table_fact_keys WHERE table_id = ? AND name = ? AND key "
            f"IN ({marks}) AND version = ? AND rules = ?",
            [table_id, name, *part, version, rules]).fetchall())
    return found


def drop_facts(db: Database, table_ids: list[str]) -> None:
    """Forget the facts of tables that are removed or replaced."""
    db.conn.executemany("DELETE FROM table_profiles WHERE table_id = ?", [[t] for t in table_ids])
    db.conn.executemany("DELETE FROM table_fact_keys WHERE table_id = ?", [[t] for t in table_ids])
