"""Readable, stable identifiers for files, sheets and tables (they prefix SQLite names)."""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text: str, fallback: str = "x", max_length: int = 40) -> str:
    """Return a lowercase ASCII slug: "P&L 2024.xlsx" -> "p_l_2024_xlsx"."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = _NON_WORD.sub("_", ascii_text.lower()).strip("_")[:max_length].strip("_")
    return slug or fallback


def unique(slug: str, taken: set[str]) -> str:
    """Return slug, or slug_2, slug_3, ... whichever is not taken."""
    if slug not in taken:
        return slug
    n = 2
    while f"{slug}_{n}" in taken:
        n += 1
    return f"{slug}_{n}"
