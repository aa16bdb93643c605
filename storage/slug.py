"""Readable, stable identifiers for files, sheets and tables (they prefix SQLite names)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

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


def unique_file_name(name: str, taken: set[str]) -> str:
    """Return name, or "name (2).ext", "name (3).ext", ... whichever is not taken: how file
    managers and browsers tell apart two files saved under one name. The extension stays
    last, so the name still says what the file is (and downloads under it)."""
    if name not in taken:
        return name
    suffix = Path(name).suffix
    stem = name[:len(name) - len(suffix)]
    n = 2
    while f"{stem} ({n}){suffix}" in taken:
        n += 1
    return f"{stem} ({n}){suffix}"


def unique_labels(labels: Iterable[Any], *, ignore_case: bool = False) -> list[str]:
    """Return labels made non-empty and unique: "x", "x (2)", "col_3" for a blank third.

    `ignore_case` compares as SQLite compares identifiers ("Total" and "total" clash).
    """
    def key(name: str) -> str:
        return name.casefold() if ignore_case else name

    taken: set[str] = set()
    out = []
    for i, label in enumerate(labels, 1):
        base = (str(label).strip() if label is not None else "") or f"col_{i}"
        name, k = base, 1
        while key(name) in taken:
            k += 1
            name = f"{base} ({k})"
        taken.add(key(name))
        out.append(name)
    return out
