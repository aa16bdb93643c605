"""Size limits that protect the process from hostile or accidental huge inputs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ingest.errors import TooManyColumns, TooManyTables
from ingest.grid import Grid

MAX_COLUMNS = 16_384
"""Columns the workspace can store: cell references are A1-style, and column letters end at
XFD (Excel's own limit)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits applied while reading one file. The settings object builds these from the env."""

    max_file_bytes: int = 200 * 1024 * 1024
    """Largest file accepted, in bytes (CSV files are streamed and have their own limit)."""
    max_csv_bytes: int = 1024 * 1024 * 1024
    """Largest CSV/TSV file accepted, in bytes."""
    max_text_bytes: int = 20 * 1024 * 1024
    """Largest prose file (.txt, .md, .html, .docx, .pdf) accepted, in bytes: its text is
    held in memory, chunked and embedded, and 20 MB is thousands of pages."""
    max_unzipped_bytes: int = 512 * 1024 * 1024
    """Bytes an .xlsx may expand to when its XML parts are decompressed (zip-bomb guard)."""
    max_cells: int = 2_000_000
    """Non-empty cells per file, across all its sheets or tables, whose structure is analysed
    whole (every cell in memory). A CSV past `flat_csv_cells` that is one flat table is
    streamed instead and counts against `max_csv_rows`, not this."""
    flat_csv_cells: int = 250_000
    """Filled cells above which a CSV is stored as one flat table: its header and column types
    are found on its first rows, and its rows are streamed into SQLite in batches, never held
    as cells in memory (storage/flat_table.py). Below it, the whole file's structure is
    analysed (titles, several tables, row groups)."""
    max_csv_rows: int = 20_000_000
    """Rows of a CSV file streamed as a flat table (about 2 GB of workspace per 10 million
    rows of ten fields)."""
    max_merge_cells: int = 250_000
    """Area (rows x columns) of one merged range."""
    max_html_depth: int = 256
    """How deeply HTML elements may nest."""
    max_html_span: int = 1000
    """Largest colspan honoured in HTML (the HTML standard's own cap); larger ones are clamped."""
    max_html_rowspan: int = 65534
    """Largest rowspan honoured in HTML (the HTML standard's cap); larger ones are clamped."""
    max_columns: int = MAX_COLUMNS
    """Columns one sheet or table may span (at most `MAX_COLUMNS`)."""
    max_tables: int = 1_000
    """Tables per file (HTML/Markdown tables, sheets, and the tables found on a sheet): each
    becomes SQL tables and views, and a page of thousands of tiny ones is more likely a
    mistake than a report."""
    max_ocr_pixels: int = 40_000_000
    """Pixels an image may have (width x height) to be read with OCR; larger ones are refused
    before their pixels are decoded (a 20000 x 20000 image would take 400 MB as grayscale)."""
    max_ingest_seconds: float | None = 300.0
    """Seconds one file's reading and storing may take (None: no limit). A 1M-cell workbook
    takes about a minute here; a file that runs for many minutes holds the chat's write lock
    all that time, and is better split."""


DEFAULT_LIMITS = Limits()


def check_grids(name: str, grids: Sequence[Grid], limits: Limits) -> None:
    """Refuse a file whose grids are too wide to store, or too many, before storing them."""
    widest = max(grids, key=lambda grid: grid.n_cols, default=None)
    if widest is not None and widest.n_cols > limits.max_columns:
        raise TooManyColumns(
            name, f"{widest.sheet!r} spans {widest.n_cols:,} columns; the limit is "
            f"{limits.max_columns:,}.",
            "Remove the empty or extra columns (a line with many delimiters, a huge colspan), "
            f"or split the table. TABLELENS_MAX_COLUMNS can be raised up to {MAX_COLUMNS:,}.")
    if len(grids) > limits.max_tables:
        raise too_many_tables(name, limits)


def too_many_tables(name: str, limits: Limits) -> TooManyTables:
    """The error for a file with more tables than the per-file limit."""
    return TooManyTables(name, f"the file has more than {limits.max_tables:,} tables.",
                         "Split it, or raise TABLELENS_MAX_TABLES.")
