"""A workspace: one chat's uploaded files and everything derived from them, in one SQLite file.

Layout (CONTRACTS.md "Where data lives"): `<data_dir>/workspaces/<id>/files/<sha256>.<ext>` holds
the uploaded bytes, immutable; `<data_dir>/workspaces/<id>/workspace.sqlite` is the source of
truth. One file's ingest is one transaction: a file that fails to read, or a write that fails
half-way, leaves the workspace as it was. The file's copy is written inside that transaction,
under the write lock, so a process killed mid-way leaves at most a copy that no `sources` row
names; the next open of the workspace removes it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import io
import itertools
import json
import os
import secrets
import sqlite3
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Literal

import sqlite_utils
from sqlite_utils.db import quote_identifier

from ingest import cancel as ingest_cancel
from ingest.cancel import Watch, watching
from ingest.cancel import check as ingest_check
from ingest.cell_index import CellIndex
from ingest.errors import TooManyCells
from ingest.gcpause import gc_paused
from ingest.grid import Cell, Grid, Progress, a1, no_progress
from ingest.limits import DEFAULT_LIMITS, Limits, too_many_tables
from ingest.read import read_document
from ingest.structure import Override, analyse_grid, header_only_warning
from ingest.text_chunks import Chunk
from storage.cell_writer import insert_cells
from storage.cells_codec import GRID_CELL_COLUMNS, cell_from_row
from storage.chunks import StoredChunk, read_chunks, remove_source_chunks, write_chunks
from storage.chunks import ensure_schema as ensure_chunk_schema
from storage.flat_table import check_disk_space, store_flat
from storage.header_tree import HeaderTree
from storage.interrupt import ending_statements
from storage.plain_cells import BLOCK_ROWS, ROW_TABLE, delete_cells
from storage.records import GridInfo, SourceInfo, TableInfo
from storage.search_index import ensure_index, index_tables, remove_from_index
from storage.slug import slugify, unique, unique_file_name
from storage.transactions import WRITE_WAIT_S, write_transaction
from storage.vectors import remove_source_vectors
from storage.views import (
    CellPaths,
    apply_structures,
    cell_paths,
    ensure_schema,
    load_overrides,
    read_catalog,
    remove_source_views,
    set_override,
)

WORKSPACE_SCHEMA_VERSION = 10
# 10: plain data cells stored a block of a column at a time (`plain_cells`), the other cells in
# `cell_rows`, and `cells` a view of both (storage/plain_cells.py); an older workspace's cells
# table is renamed `cell_rows` when it is next opened (its long views follow the rename).
# 9: step results stored as rows (`step_results`, `step_cells`: agent/steptables.py) rather than
# a table each; an older workspace gains the empty tables, and its step tables stay readable.
# 8: `sources.beside`, the file a file was added beside (`_ensure_beside`); an older
# workspace gains the empty column when it is next opened.
# 7: the trigram index of CJK text (storage/search_index.py `CJK_TABLE`); an older workspace
# builds it from its search index once, when it is next opened.
# 6: `cells_by_column` holds what a frame reads of a cell (storage/views.py); an older
# workspace's narrow index is rebuilt once, when it is next opened. Facts stored by key
# (`table_fact_keys`, storage/table_profiles.py): an older workspace computes them at its
# next question on each table.
# 5: the text chunks of documents (storage/chunks.py); older workspaces gain the empty tables.
# The page cache of a workspace connection, in KiB (see `Workspace.__init__`).
CACHE_KIB = 65_536
INGEST_CACHE_KIB = 8_192
"""The page cache while a big sheet is stored: its cells, views and search index fill any
cache with pages written once and not read again (64 MiB of a 1M-cell upload's peak, with no
time saved: measured 4 to 64 MiB)."""
BIG_GRID_CELLS = 100_000
"""Cells held in memory from which a file is stored with the smaller page cache. A file of
many small tables keeps the usual one, which its CREATE statements' scans of the schema use."""
WAL_KEPT_BYTES = 64 * 1024 * 1024
"""The write-ahead log's size left on disk after a checkpoint (see `Workspace.__init__`)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS sources (
    sha256 TEXT PRIMARY KEY, name TEXT NOT NULL, slug TEXT NOT NULL UNIQUE, ext TEXT NOT NULL,
    bytes INTEGER NOT NULL, added_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS grids (
    id TEXT PRIMARY KEY, source TEXT NOT NULL REFERENCES sources(sha256), idx INTEGER NOT NULL,
    sheet TEXT NOT NULL, kind TEXT NOT NULL, n_rows INTEGER NOT NULL, n_cols INTEGER NOT NULL,
    caption TEXT, warnings TEXT);
-- The cells table of schema 9: `storage.plain_cells.ensure_cell_store` renames it `cell_rows`,
-- a new workspace's as an older one's, and makes `cells` the view of both cell stores.
CREATE TABLE IF NOT EXISTS cells (
    grid TEXT NOT NULL REFERENCES grids(id), row INTEGER NOT NULL, col INTEGER NOT NULL,
    ref TEXT NOT NULL, rowspan INTEGER NOT NULL, colspan INTEGER NOT NULL, raw, raw_type TEXT,
    text TEXT NOT NULL, style TEXT, hidden INTEGER NOT NULL, formula_uncached INTEGER NOT NULL,
    box TEXT, confidence REAL, flags TEXT, PRIMARY KEY (grid, row, col)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS step_results (
    name TEXT PRIMARY KEY, columns TEXT NOT NULL, row_count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS step_cells (
    name TEXT NOT NULL, row INTEGER NOT NULL, col INTEGER NOT NULL, value,
    PRIMARY KEY (name, row, col)) WITHOUT ROWID;
"""


def new_workspace_id() -> str:
    """Return a fresh workspace (= chat) id: 128 random bits, URL-safe, 22 characters."""
    return secrets.token_urlsafe(16)


TREE_ROWS_KEPT = 500_000
"""Row paths of the header trees kept decoded in the process (`Workspace._kept_tree`)."""
_TREES: OrderedDict[tuple[str, str, int, str], tuple[int, HeaderTree]] = OrderedDict()
"""Header trees by workspace, table id, version and file hash, least recently used first: the
page reads the catalog on every redraw, and decoding a 100k-row table's tree took a second
and a half each time. Trees are immutable; a corrected header has a new version."""
_TREES_LOCK = threading.Lock()

_GRID_COUNTS: dict[tuple[str, str, str, int], tuple[int, int, list[str]]] = {}
"""`Workspace.grid_counts` by workspace, grid, file hash and listed refs: counting a million
cells took a quarter of a second on every redraw of the page."""


@contextmanager
def _page_cache(conn: sqlite3.Connection, kib: int) -> Iterator[None]:
    """Hold the connection's page cache to `kib` KiB for a while, then give it back its
    usual size."""
    conn.execute(f"PRAGMA cache_size = -{kib}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")


@contextmanager
def _parents_written_first(conn: sqlite3.Connection) -> Iterator[None]:
    """Leave foreign keys unchecked for a file's store, which writes each parent row (its
    source, then each grid) before the rows that name it, all in one transaction: checked,
    every cell looked its grid up, 0.23 s of a 1M-cell upload's 10 s (about 2%).

    SQLite changes the setting only outside a transaction; inside a caller's, this leaves the
    checks on."""
    conn.execute("PRAGMA foreign_keys = OFF")
    try:
        yield
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


def _use_wal(conn: sqlite3.Connection) -> None:
    """Put the database in WAL mode, waiting (up to `WRITE_WAIT_S`) while others hold locks.

    Switching a rollback-journal database to WAL needs an exclusive lock, and SQLite answers
    "database is locked" at once, without its busy handler, when another connection writes
    (waiting could deadlock). Twenty processes opening a new workspace together hit that, so
    the switch is retried; a database already in WAL mode is left as it is.
    """
    deadline = time.monotonic() + WRITE_WAIT_S
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class Workspace:
    """Open (creating if needed) the workspace folder `root`."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.location = str(self.root.resolve())
        """The workspace's absolute path: what keys the process's caches of its tables."""
        self.files_dir = self.root / "files"
        self.files_dir.mkdir(parents=True, exist_ok=True)
        # LangGraph runs nodes on worker threads (one at a time per run), and Streamlit reruns
        # scripts on new threads: the connection must not be pinned to its creating thread.
        self.db = sqlite_utils.Database(sqlite3.connect(self.root / "workspace.sqlite",
                                                        check_same_thread=False,
                                                        timeout=WRITE_WAIT_S))
        self.db.conn.execute("PRAGMA foreign_keys = ON")
        # WAL lets read-only connections (the SQL guard, a second browser tab) read while an
        # upload writes; NORMAL sync is safe with WAL and much faster per transaction.
        _use_wal(self.db.conn)
        self.db.conn.execute("PRAGMA synchronous = NORMAL")
        # A large upload's transaction writes its every page to the write-ahead log (2 GB for
        # a 60 MB flat CSV); once checkpointed, the log is cut back to this size rather than
        # kept at its largest for as long as the workspace is open.
        self.db.conn.execute(f"PRAGMA journal_size_limit = {WAL_KEPT_BYTES}")
        # Every CREATE scans sqlite_master once; with thousands of tables (a page of many
        # small tables) that scan misses the default 2 MB page cache on every statement.
        # 64 MiB is a ceiling SQLite fills only as needed.
        self.db.conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        # Opening must not write when the schema is there: a chat page opens its workspace
        # while a run may be writing step tables.
        if not self._schema_current():
            with write_transaction(self.db):
                # executescript would commit first; run the statements inside the transaction.
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self.db.conn.execute(statement)
                ensure_schema(self.db)  # catalog, overrides, cell roles (storage/views.py)
                ensure_chunk_schema(self.db.conn)
                ensure_index(self.db)
                _ensure_beside(self.db.conn)
                self.db.conn.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)",
                                     (str(WORKSPACE_SCHEMA_VERSION),))
        self._remove_orphan_files()

    def _remove_orphan_files(self) -> None:
        """Delete file copies no `sources` row names (left by an ingest killed mid-way).

        Copies are written only under the write lock and committed with their row, so while
        this connection holds the lock no other upload is between the two. When another
        connection writes now, the orphans wait for a later open rather than this one waiting.
        """
        def orphans() -> list[Path]:
            stored = {f"{row[0]}.{row[1]}" for row in
                      self.db.conn.execute("SELECT sha256, ext FROM sources")}
            return [path for path in self.files_dir.iterdir() if path.name not in stored]

        if not orphans():  # the usual open: no lock taken, nothing written
            return
        with write_transaction(self.db, wait=False) as locked:
            if locked:
                for path in orphans():
                    path.unlink(missing_ok=True)

    def _schema_current(self) -> bool:
        try:
            rows = self.db.conn.execute(
                "SELECT value FROM meta WHERE key = 'schema_version'").fetchall()
        except sqlite3.OperationalError:
            return False  # a new workspace: no meta table yet
        return bool(rows) and rows[0][0] == str(WORKSPACE_SCHEMA_VERSION)

    @classmethod
    def in_data_dir(cls, data_dir: str | os.PathLike[str], workspace_id: str) -> Workspace:
        """Open the workspace `workspace_id` under a data directory."""
        if (not workspace_id or "/" in workspace_id or workspace_id.startswith(".")
                or not workspace_id.isprintable() or workspace_id != workspace_id.strip()):
            raise ValueError(f"not a workspace id: {workspace_id!r}")
        return cls(Path(data_dir) / "workspaces" / workspace_id)

    @property
    def id(self) -> str:
        return self.root.name

    @property
    def db_path(self) -> Path:
        """The workspace.sqlite file (for read-only connections such as the SQL guard's)."""
        return self.root / "workspace.sqlite"

    def close(self) -> None:
        self.db.close()

    def add_file(self, src: str | os.PathLike[str] | BinaryIO, name: str | None = None, *,
                 limits: Limits = DEFAULT_LIMITS, progress: Progress = no_progress,
                 cancel: threading.Event | None = None, watch: Watch | None = None,
                 ready: Callable[[list[str]], None] | None = None,
                 beside: str | None = None) -> SourceInfo:
        """Read a file and store it with its grids, all or nothing.

        `beside` (a stored file's sha256) records that this file belongs with that one: a
        report's text ingested as its own document beside the report's table file. The
        context of a question sends a table's report text with it (`agent.context_builder`).
        A file already stored without such a relation gains it; one with another keeps its
        own.

        A file already in the workspace (same bytes) is not stored twice; another file of a
        stored file's name is stored as "name (2).ext" (the returned entry's `name`). Raises
        the reader's `IngestError` with nothing written: `IngestStopped` soon after `cancel`
        is set, and `IngestTimeLimit` once reading and storing take longer than
        `limits.max_ingest_seconds` (see `ingest/cancel.py`). Any other exception that ends
        it part-way (Ctrl-C, a front end's own signal) leaves nothing written either.

        `ready` is called with a new file's table ids inside its transaction, before the
        commit, under the same watch: what it writes (the tables' facts, `agent.prepare`) is
        stored with the file or not at all, and Stop or the time limit while it runs leaves
        nothing. `watch` replaces the one built from `cancel` and the time limit.
        """
        data = _read_bytes(src)
        name = name or Path(getattr(src, "name", None) or str(src)).name
        sha = hashlib.sha256(data).hexdigest()
        if beside is not None and (beside == sha or self.source(beside) is None):
            raise ValueError(f"no other file {beside} in workspace {self.id} to add "
                             f"{name!r} beside")
        existing = self.source(sha)
        if existing is not None:  # saves reading it; `_store` checks again under the lock
            return self._set_beside(existing, beside)
        watch = watch or Watch(name, cancel=cancel, limit_s=limits.max_ingest_seconds)
        # Stop and the time limit end a long statement too (a batch of inserts, a view's
        # query for the search index), as the watch's typed error.
        with watching(watch), ending_statements(self.db.conn, watch.ended, watch.check):
            info = self._add(sha, name, data, limits, progress, ready, beside)
        # Stored meanwhile by another connection (`_store` returns that copy): it gains the
        # relation all the same.
        return self._set_beside(info, beside)

    def _set_beside(self, info: SourceInfo, beside: str | None) -> SourceInfo:
        """A stored file's relation, recorded now if it had none."""
        if beside is None or info.beside is not None:
            return info
        with write_transaction(self.db):
            self.db.conn.execute("UPDATE sources SET beside = ? WHERE sha256 = ? AND beside "
                                 "IS NULL AND EXISTS (SELECT 1 FROM sources WHERE sha256 = ?)",
                                 [beside, info.sha256, beside])
        return self.source(info.sha256) or info

    def beside(self, sha256s: Iterable[str]) -> set[str]:
        """The files added beside any of these files, and the files these were added beside
        (a report's table file and its text document, either way round)."""
        shas = sorted(set(sha256s))
        if not shas:
            return set()
        marks = ", ".join("?" * len(shas))
        return {row[0] for row in self.db.conn.execute(
            f"SELECT sha256 FROM sources WHERE beside IN ({marks}) UNION "
            f"SELECT beside FROM sources WHERE sha256 IN ({marks}) AND beside IS NOT NULL",
            shas + shas)}

    def _add(self, sha: str, name: str, data: bytes, limits: Limits, progress: Progress,
             ready: Callable[[list[str]], None] | None,
             beside: str | None = None) -> SourceInfo:
        progress(0.0, "reading")
        # The cyclic collector stays off from reading to storing, and `_store` releases the
        # grids before it comes back on: its first pass would otherwise walk every cell and
        # structure still alive (about a tenth of the whole upload of a big sheet).
        with gc_paused():
            document = read_document(io.BytesIO(data), name, limits=limits,
                                     progress=lambda f, stage: progress(0.5 * f, stage))
            chunks = document.chunks()
            grids, document.grids = document.grids, []
            del document
            progress(0.5, "storing")
            info = self._store(sha, name, data, grids, limits,
                               progress=lambda f, stage: progress(0.5 + 0.5 * f, stage),
                               ready=ready, chunks=chunks, beside=beside)
        progress(1.0, "stored")
        return info

    def _store(self, sha: str, name: str, data: bytes, grids: list[Grid],
               limits: Limits = DEFAULT_LIMITS, progress: Progress = no_progress,
               ready: Callable[[list[str]], None] | None = None,
               chunks: list[Chunk] | None = None, beside: str | None = None) -> SourceInfo:
        """Write a read file's copy, grids, views and text chunks in one transaction; takes
        the grids out
        of `grids` as it goes, so each is freed once stored.

        The "already stored?" check and the choice of slug and name are made under the write
        lock, so parallel adds of the same file (or of two files with one name) cannot
        collide.
        """
        ext = Path(name).suffix.lower().lstrip(".") or "bin"
        path = self.files_dir / f"{sha}.{ext}"
        # Stop works while another upload holds the write lock too (`ingest.cancel.check`).
        with gc_paused(), _parents_written_first(self.db.conn), \
                write_transaction(self.db, stop=ingest_check):
            existing = self.source(sha)
            if existing is not None:
                return existing
            if beside is not None and self.source(beside) is None:  # removed meanwhile
                beside = None
            stored = self.db.conn.execute("SELECT slug, name FROM sources").fetchall()
            slug = unique(slugify(Path(name).stem, "file"), {row[0] for row in stored})
            # Another file of this name (other bytes) is told apart by a name of its own
            # wherever one shows: its panel, citations, answers and refusals.
            name = unique_file_name(name, {row[1] for row in stored})
            info = SourceInfo(sha, name, slug, ext, len(data),
                              dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), beside)
            try:
                flat = self._store_grids(info, grids, limits, progress)
                if chunks:
                    write_chunks(self.db.conn, sha, slug, chunks)
                if ready is not None:
                    progress(1.0, "getting ready for questions")
                    ready(self._table_ids("source", sha))
                _write_atomically(path, data)
                # The last chance to stop: past it, the commit below makes the file stored.
                ingest_cancel.check()
            except BaseException:
                path.unlink(missing_ok=True)  # no row names it: the rollback drops them all
                raise
        if flat:
            # The log holds every page of the flat table (as much as the table itself): cut
            # it now rather than at the workspace's next write. Readers may keep it for a
            # while, which only leaves more of it in place.
            self.db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return info

    def _store_grids(self, info: SourceInfo, grids: list[Grid], limits: Limits,
                     progress: Progress) -> int:
        """Write a file's rows, grids, cells, views and search index (in the caller's
        transaction); return how many of its tables were stored flat."""
        if sum(grid.cell_count for grid in grids if not grid.streamed) < BIG_GRID_CELLS:
            return self._write_grids(info, grids, limits, progress)
        with _page_cache(self.db.conn, INGEST_CACHE_KIB):
            return self._write_grids(info, grids, limits, progress)

    def _write_grids(self, info: SourceInfo, grids: list[Grid], limits: Limits,
                     progress: Progress) -> int:
        """`_store_grids` under whichever page cache it chose."""
        sha, name, slug = info.sha256, info.name, info.slug
        # Plain executes, not sqlite-utils' insert: that re-reads sqlite_master to check
        # the table exists, once per row, and the schema grows by three tables per table.
        self.db.conn.execute("INSERT INTO sources (sha256, name, slug, ext, bytes, added_at, "
                             "beside) VALUES (:sha256, :name, :slug, :ext, :bytes, "
                             ":added_at, :beside)", info.__dict__)
        sheet_slugs: set[str] = set()
        n_grids = len(grids)
        n_tables = 0
        flat_tables: list[str] = []  # indexed as they are stored
        for i in range(n_grids):
            ingest_cancel.check()
            grid = grids.pop(0)
            sheet_slug = unique(slugify(grid.sheet, "sheet"), sheet_slugs)
            sheet_slugs.add(sheet_slug)
            grid_id = f"{slug}__{sheet_slug}"
            self.db.conn.execute(
                "INSERT INTO grids VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (grid_id, sha, grid.index, grid.sheet, grid.kind, grid.n_rows, grid.n_cols,
                 grid.caption, json.dumps(grid.warnings) if grid.warnings else None))
            progress((i + 1 / 3) / n_grids, "structure")
            overrides = load_overrides(self.db, sha, grid.sheet)
            if grid.text_rows is not None and grid.cell_count > limits.flat_csv_cells:
                flat = self._store_flat(info, grid, grid_id, overrides, limits,
                                        lambda f, stage, i=i: progress(
                                            (i + (1 + 2 * f) / 3) / n_grids, stage))
                if flat is not None:
                    flat_tables.append(flat)
                    n_tables += 1
                    continue
            # Other streamed (CSV) grids are read into memory for structure analysis; the
            # cells are written from that same copy.
            grid = grid.materialize()
            structures = analyse_grid(grid, overrides)
            # Told in the file's panel with the reader's warnings: such a table was stored
            # without a word, and every question about it found nothing.
            if header_only := header_only_warning(structures):
                self.db.conn.execute("UPDATE grids SET warnings = ? WHERE id = ?",
                                     [json.dumps([*grid.warnings, header_only]), grid_id])
            n_tables += len(structures)
            if n_tables > limits.max_tables:  # a grid can hold several tables
                raise too_many_tables(name, limits)
            insert_cells(self.db.conn, grid, grid_id, structures)
            # The views read the structures' own cells, never the grid's index of them (a
            # dict entry and a key per cell, 97 MB at 1M cells): unless the caller keeps the
            # grid, it is freed before they are built, the structures left a copy without it.
            grid = dataclasses.replace(grid, cells={}, covered={})
            for structure in structures:
                structure.grid = grid
            progress((i + 2 / 3) / n_grids, "views")
            # A new file's grids have no views to replace.
            apply_structures(self.db, grid_id, sha, name, structures, overrides, fresh=True)
            del grid, structures
        ingest_cancel.check()
        index_tables(self.db, [t for t in self._table_ids("source", sha) if t not in flat_tables])
        return len(flat_tables)

    def _store_flat(self, info: SourceInfo, grid: Grid, grid_id: str,
                    overrides: dict[int, Override], limits: Limits, progress: Progress
                    ) -> str | None:
        """Stream a large CSV grid into one flat table (storage/flat_table.py); return its id,
        or None when it is not one flat table but small enough to analyse whole."""
        check_disk_space(info.name, info.bytes, self.root)
        table = store_flat(self.db, grid, grid_id, info.sha256, info.name, overrides, progress)
        if table is None and grid.cell_count > limits.max_cells:
            raise TooManyCells(info.name, f"the file has {grid.cell_count:,} filled cells and "
                               "is not one flat table (a header row, then a record per row), "
                               f"so it is analysed whole, which is limited to "
                               f"{limits.max_cells:,} cells.",
                               "Remove the title lines, blank separators or extra tables "
                               "around the table and upload it again, split it, or raise "
                               "TABLELENS_MAX_CELLS (about 1 GB of memory per million cells).")
        return table

    def sources(self) -> list[SourceInfo]:
        """Return the stored files, oldest first."""
        return [SourceInfo(**row) for row in
                self.db.query("SELECT * FROM sources ORDER BY added_at, rowid")]

    def source(self, sha256: str) -> SourceInfo | None:
        rows = list(self.db.query("SELECT * FROM sources WHERE sha256 = ?", [sha256]))
        return SourceInfo(**rows[0]) if rows else None

    def grids(self, source: str | None = None) -> list[GridInfo]:
        """Return the stored grids, of one source or of all, in reading order."""
        sql = "SELECT g.* FROM grids g JOIN sources s ON s.sha256 = g.source"
        args: list[Any] = []
        if source is not None:
            sql += " WHERE g.source = ?"
            args.append(source)
        sql += " ORDER BY s.added_at, s.rowid, g.idx"
        return [GridInfo.from_row(row) for row in self.db.query(sql, args)]

    def load_grid(self, grid_id: str) -> Grid:
        """Rebuild a stored grid with all its cells."""
        # Plain tuples of the named columns (not sqlite-utils' dicts): a big sheet has many cells.
        cursor = self.db.conn.execute(
            f"SELECT {', '.join(GRID_CELL_COLUMNS)} FROM cells WHERE grid = ? ORDER BY row, col",
            [grid_id])
        return self._grid(grid_id, CellIndex(((c.row, c.col), c)
                                             for c in map(cell_from_row, cursor)))

    def load_window(self, grid_id: str, window: tuple[int, int, int, int]) -> Grid:
        """A stored grid with only what shows in a window (first row, first column, last row,
        last column): its cells there and the merged cells that reach into it. What the app
        draws is 200 rows of a sheet that may hold a million cells, which took seconds to
        read whole on every redraw of the page."""
        r0, c0, r1, c1 = window
        columns = ", ".join(GRID_CELL_COLUMNS)
        # The window's row blocks bound the plain cells read (`storage.plain_cells`).
        inside = self.db.conn.execute(
            f"SELECT {columns} FROM cells WHERE grid = ? AND row_block BETWEEN ? AND ? "
            "AND row BETWEEN ? AND ? AND col BETWEEN ? AND ?",
            [grid_id, r0 // BLOCK_ROWS, r1 // BLOCK_ROWS, r0, r1, c0, c1])
        reaching = self.db.conn.execute(  # merged cells are never plain
            f"SELECT {columns} FROM {ROW_TABLE} WHERE grid = ? AND (rowspan > 1 OR colspan > 1) "
            "AND row <= ? AND col <= ? AND row + rowspan > ? AND col + colspan > ?",
            [grid_id, r1, c1, r0, c0])
        cells = {(c.row, c.col): c for c in map(cell_from_row, itertools.chain(inside, reaching))}
        return self._grid(grid_id, cells)

    def grid_counts(self, grid_id: str, listed: int = 12) -> tuple[int, int, list[str]]:
        """A stored grid's number of filled cells and of merged ranges, and the refs of its
        first `listed` merged ranges, counted in SQL once per process (a grid's cells never
        change; the file's hash tells apart another file stored under a freed name)."""
        found = self.db.conn.execute("SELECT source FROM grids WHERE id = ?",
                                     [grid_id]).fetchone()
        key = (self.location, grid_id, found[0] if found else "", listed)
        if key not in _GRID_COUNTS:
            if len(_GRID_COUNTS) >= 1024:
                _GRID_COUNTS.clear()
            _GRID_COUNTS[key] = self._count_grid(grid_id, listed)
        return _GRID_COUNTS[key]

    def _count_grid(self, grid_id: str, listed: int) -> tuple[int, int, list[str]]:
        # Each count through an index: the table's own rows are wide (a million of them took
        # most of a second to count).
        [cells] = self.db.conn.execute(
            f"SELECT (SELECT COUNT(*) FROM {ROW_TABLE} INDEXED BY cells_by_column "
            "WHERE grid = ?1) + (SELECT coalesce(SUM(n), 0) FROM plain_cells "
            "WHERE grid = ?1)", [grid_id]).fetchone()
        [merged] = self.db.conn.execute(  # merged cells are never plain
            f"SELECT COUNT(*) FROM {ROW_TABLE} INDEXED BY cells_merged WHERE grid = ? "
            "AND (rowspan > 1 OR colspan > 1)", [grid_id]).fetchone()
        first = [f"{a1(row, col)}:{a1(row + rowspan - 1, col + colspan - 1)}"
                 for row, col, rowspan, colspan in
                 self.db.conn.execute(
                     f"SELECT row, col, rowspan, colspan FROM {ROW_TABLE} INDEXED BY cells_merged "
                     "WHERE grid = ? AND "
                     "(rowspan > 1 OR colspan > 1) ORDER BY row, col LIMIT ?",
                     [grid_id, listed])]
        return cells, merged, first

    def _grid(self, grid_id: str, cells: Mapping[tuple[int, int], Cell]) -> Grid:
        rows = list(self.db.query(
            "SELECT g.*, s.name AS source_name FROM grids g JOIN sources s "
            "ON s.sha256 = g.source WHERE g.id = ?", [grid_id]))
        if not rows:
            raise KeyError(f"no grid {grid_id!r} in workspace {self.id}")
        g = rows[0]
        return Grid(g["source_name"], g["sheet"], g["idx"], g["n_rows"], g["n_cols"], g["kind"],
                    cells, g["caption"], json.loads(g["warnings"]) if g["warnings"] else [])

    def restructure(self, sha256: str, sheet: str, k: int, header_rows: list[int] | None,
                    header_cols: list[int] | None, *, limits: Limits = DEFAULT_LIMITS
                    ) -> TableInfo:
        """Correct table k's header rows/columns and rebuild its sheet's views; return its
        new catalog entry.

        The override is stored and the views rebuilt in one transaction (None keeps detection).
        The sheet is analysed whole, every cell in memory, so a sheet past `limits.max_cells`
        (a large CSV stored as a flat table) raises `TooManyCells` instead.
        """
        info = self.source(sha256)
        rows = list(self.db.query("SELECT id, grid FROM catalog WHERE source = ? AND sheet = ? "
                                  "AND k = ?", [sha256, sheet, k]))
        if info is None or not rows:
            raise KeyError(f"no table {k} on sheet {sheet!r} of file {sha256} "
                           f"in workspace {self.id}")
        table, grid_id = rows[0]["id"], rows[0]["grid"]
        cells = self.grid_counts(grid_id)[0]
        if cells > limits.max_cells:
            raise TooManyCells(info.name, f"correcting a header analyses the whole sheet, and "
                               f"{sheet!r} has {cells:,} filled cells; the limit is "
                               f"{limits.max_cells:,}.", "Put one header row on top of the "
                               "table in the file and upload it again, or raise "
                               "TABLELENS_MAX_CELLS (about 1 GB of memory per million cells).")
        with gc_paused(), write_transaction(self.db):  # see add_file on the collector
            remove_from_index(self.db, self._table_ids("grid", grid_id))
            set_override(self.db, sha256, sheet, k, header_rows, header_cols)
            overrides = load_overrides(self.db, sha256, sheet)
            grid = self.load_grid(grid_id)
            structures = analyse_grid(grid, overrides)
            # Rewriting the cells with their new roles and typed values is much faster than
            # updating them one by one (the stored cells rebuild the grid exactly).
            delete_cells(self.db.conn, "?", [grid_id])
            insert_cells(self.db.conn, grid, grid_id, structures)
            apply_structures(self.db, grid_id, sha256, info.name, structures, overrides)
            index_tables(self.db, self._table_ids("grid", grid_id))
            del grid, structures
        return self.table(table)

    def chunks(self, source: str | None = None) -> list[StoredChunk]:
        """Return the text chunks of the documents (of one file, or all) in reading order."""
        return read_chunks(self.db, source)

    def chunk(self, chunk_id: str) -> StoredChunk:
        """Return one stored chunk by id."""
        found = read_chunks(self.db, ids=[chunk_id])
        if not found:
            raise KeyError(f"no text chunk {chunk_id!r} in workspace {self.id}")
        return found[0]

    def tables(self) -> list[TableInfo]:
        """Return the catalog in reading order."""
        return [self._kept_tree(t) for t in read_catalog(self.db)]

    def table_ids(self, source: str | None = None) -> list[str]:
        """Return the table ids (of one file, or all) in reading order, without decoding the
        catalog's JSON (questions list the tables on every run)."""
        sql = ("SELECT c.id FROM catalog c JOIN grids g ON g.id = c.grid "
               "JOIN sources s ON s.sha256 = c.source")
        args = [source] if source else []
        if source:
            sql += " WHERE c.source = ?"
        sql += " ORDER BY s.added_at, s.rowid, g.idx, c.k"
        return [row["id"] for row in self.db.query(sql, args)]

    def table_places(self) -> dict[str, tuple[str, str]]:
        """Return each table's file name and sheet by table id, without decoding the catalog's
        JSON (the chat names tables by where they are, never by id)."""
        return {row["id"]: (row["file_name"], row["sheet"])
                for row in self.db.query("SELECT id, file_name, sheet FROM catalog")}

    def table_place(self, table_id: str) -> dict[str, str]:
        """One table's file name, sheet, region and grid, without decoding its tree (a big
        table's tree is most of a question's fixed cost)."""
        row = self.db.execute("SELECT file_name, sheet, region, grid FROM catalog WHERE id = ?",
                              [table_id]).fetchone()
        if row is None:
            raise KeyError(f"no table {table_id!r} in workspace {self.id}")
        return dict(zip(("file_name", "sheet", "region", "grid"), row, strict=True))

    def grid_of(self, table_id: str) -> str:
        """Return the grid (sheet) a table is on, without decoding its catalog entry."""
        return self.table_place(table_id)["grid"]

    def table(self, table_id: str) -> TableInfo:
        """Return one table's catalog entry."""
        rows = read_catalog(self.db, table_id)
        if not rows:
            raise KeyError(f"no table {table_id!r} in workspace {self.id}")
        return self._kept_tree(rows[0])

    def cell_paths(self, table: TableInfo, row: int, col: int) -> CellPaths | None:
        """Return the row and column paths of a table's data cell (the chat names a cited
        cell by them); None for a cell that holds no data."""
        return cell_paths(self.db, table, row, col)

    def _kept_tree(self, info: TableInfo) -> TableInfo:
        """The entry with the tree this process decoded for the same version of the table,
        if it did (`_TREES`)."""
        key = (self.location, info.id, info.version, info.source)
        with _TREES_LOCK:
            kept = _TREES.get(key)
            if kept is not None:
                _TREES.move_to_end(key)
                return dataclasses.replace(info, tree=kept[1])
            _TREES[key] = (info.n_rows, info.tree)
            while len(_TREES) > 1 and sum(n for n, _ in _TREES.values()) > TREE_ROWS_KEPT:
                _TREES.popitem(last=False)
        return info

    def _table_ids(self, column: Literal["grid", "source"], key: str) -> list[str]:
        """Return the ids of the catalog tables of one grid or one source."""
        return [row["id"] for row in
                self.db.query(f"SELECT id FROM catalog WHERE {quote_identifier(column)} = ?",
                              [key])]

    def file_path(self, sha256: str) -> Path:
        """Return where a stored file's bytes are."""
        info = self.source(sha256)
        if info is None:
            raise KeyError(f"no file {sha256} in workspace {self.id}")
        return self.files_dir / f"{sha256}.{info.ext}"

    def remove_source(self, sha256: str) -> None:
        """Delete a file and everything derived from it, in one transaction."""
        info = self.source(sha256)
        if info is None:
            return
        with write_transaction(self.db):
            remove_from_index(self.db, self._table_ids("source", sha256))
            remove_source_vectors(self.db, sha256)
            remove_source_views(self.db, sha256)
            remove_source_chunks(self.db.conn, sha256)
            delete_cells(self.db.conn, "SELECT id FROM grids WHERE source = ?", [sha256])
            self.db.execute("DELETE FROM grids WHERE source = ?", [sha256])
            self.db.execute("DELETE FROM sources WHERE sha256 = ?", [sha256])
            # The files added beside it stay, on their own: no relation names a gone file.
            self.db.execute("UPDATE sources SET beside = NULL WHERE beside = ?", [sha256])
        (self.files_dir / f"{sha256}.{info.ext}").unlink(missing_ok=True)


def _ensure_beside(conn: sqlite3.Connection) -> None:
    """Give `sources` its `beside` column (schema 8), NULL for every file stored before."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(sources)")}
    if "beside" not in columns:
        conn.execute("ALTER TABLE sources ADD COLUMN beside TEXT")


def _read_bytes(src: str | os.PathLike[str] | BinaryIO) -> bytes:
    if isinstance(src, (str, os.PathLike)):
        return Path(src).read_bytes()
    src.seek(0)
    return src.read()


def _write_atomically(path: Path, data: bytes) -> None:
    """Write bytes to path via a temporary file and rename, so no reader sees half a file."""
    if path.exists():
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".upload-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
