"""Size limits that protect the process from hostile or accidental huge inputs."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Limits applied while reading one file. The settings object builds these from the env."""

    max_file_bytes: int = 200 * 1024 * 1024
    """Largest file accepted, in bytes (CSV files are streamed and have their own limit)."""
    max_csv_bytes: int = 1024 * 1024 * 1024
    """Largest CSV/TSV file accepted, in bytes."""
    max_unzipped_bytes: int = 512 * 1024 * 1024
    """Bytes an .xlsx may expand to when its XML parts are decompressed (zip-bomb guard)."""
    max_cells: int = 2_000_000
    """Non-empty cells per file, across all its sheets or tables."""
    max_merge_cells: int = 250_000
    """Area (rows x columns) of one merged range."""
    max_html_depth: int = 256
    """How deeply HTML elements may nest."""
    max_html_span: int = 1000
    """Largest colspan honoured in HTML (the HTML standard's own cap); larger ones are clamped."""
    max_html_rowspan: int = 65534
    """Largest rowspan honoured in HTML (the HTML standard's cap); larger ones are clamped."""


DEFAULT_LIMITS = Limits()
