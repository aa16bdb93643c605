"""Word-level normalisation shared by question analysis and grounding."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from ingest.labels import matching_label


def split_words(block: str) -> list[str]:
    """Split a whitespace-separated word list (kept as a text block for readability)."""
    return block.split()


_WORD = re.compile(r"[^\W_]+(?:[.'’][^\W_]+)*", re.UNICODE)

STOPWORDS = frozenset(split_words("""
a an the of in on at to for from by with and or as is are was were be been being do does did has
have had what which who whom whose when where how that this these those it its their there than
then into per all any each me my our your his her they them we you i about over under during
between after before since until s
"""))


def fold(text: str) -> str:
    """NFKC, casefold, and unify dashes/quotes, so comparisons ignore typography."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return text.replace("’", "'").replace("–", "-").replace("—", "-")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stemmer for English plurals and common suffixes (expenses -> expense)."""
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("ches", "ch"), ("shes", "sh")):
        if word.endswith(suffix):
            return word[: -len(suffix)] + repl
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    # Past forms and a final "e" go too, so "ranked"/"rank" and "scored"/"score" meet.
    # ("-ing" stays: "meaning" must not become "mean".)
    if word.endswith("ed") and len(word) > 4:
        word = word[:-2]
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """Return the folded words of a text, in order."""
    return _WORD.findall(fold(text))


def tokens(text: str) -> list[str]:
    """Return stemmed words (stopwords kept: callers decide)."""
    return [stem(w) for w in words(text)]


def content_tokens(text: str) -> list[str]:
    """Return stemmed words without stopwords."""
    return [stem(w) for w in words(text) if w not in STOPWORDS]


@lru_cache(maxsize=65536)
def _label_tokens(label: str) -> tuple[str, ...]:
    return tuple(content_tokens(matching_label(label)))


def label_tokens(*labels: str) -> list[str]:
    """Return the content tokens of header labels, footnote markers left out.

    "Total area[2]" gives ["total", "area"]: a header's marker is not a word the question uses.
    Each label is one header cell's text (a level of a path), so each loses its own marker.
    """
    return [t for label in labels for t in _label_tokens(label)]


def path_tokens(path: Iterable[str]) -> list[str]:
    """Return the content tokens of every level of a header path, markers left out."""
    return label_tokens(*path)


STOP_STEMS = frozenset(stem(w) for w in STOPWORDS)
"""Stopwords as `stem` leaves them, for checks on stemmed words."""


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 row", "3 rows", "1 matching table" (`many` when the plural is not word + "s")."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"
