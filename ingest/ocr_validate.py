"""Check OCR'd cells against their column: fix digit look-alikes, flag what stays doubtful.

A column is numeric when most of its body cells read as numbers once look-alikes are fixed.
In a numeric column (and in any cell that is a number but for look-alikes), l/I/|/!/i read
as 1, O/o as 0, S/s as 5, B as 8, Z/z as 2; "Ql"/"Hl" become Q1/H1 and "Q22024" Q2 2024
anywhere; a thousands separator with a space beside it ("1. 234", "1 ,234") is closed up;
a point grouping thousands in a column that groups them with commas becomes a comma; a dash
that stands for a minus ("—12", "–12") becomes "-" (a minus sign, "−12", is one already, and
`ingest/values.py` reads it as such). A cell changed so is flagged
"corrected" (its OCR text stays in `raw`); a cell of a numeric column that still is no
number is flagged "not_a_number"; a cell read with low confidence, "low_confidence".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

LOW_CONFIDENCE = 0.6
"""Cells whose least sure word tesseract scored under this (0-1) are flagged."""

_LOOKALIKE = str.maketrans({"l": "1", "I": "1", "|": "1", "!": "1", "i": "1",
                            "O": "0", "o": "0",
                            "S": "5", "s": "5", "B": "8", "Z": "2", "z": "2"})
_MINUS = re.compile(r"^[\u2012\u2013\u2014\u2015~]\s*(?=[\d.(])")
_NUMBER = re.compile(r"^[-+\u2212]?\(?[$€£¥]?\s?\d{1,3}(,\d{3})*(\.\d+)?\)?%?$|"
                     r"^[-+\u2212]?\(?[$€£¥]?\s?\d+(\.\d+)?\)?%?$")
_NUMBERISH = re.compile(r"^[-+\u2012-\u2015\u2212~(]?[$€£¥]?[\dlIOoDQSsBZz|!i.,\s]+\)?%?$")
_SPACED_SEPARATOR = re.compile(r"(\d)\s*([.,])\s+(\d{3})\b|(\d)\s+([.,])\s*(\d{3})\b")
_DOT_THOUSANDS = re.compile(r"^\d{1,3}(\.\d{3}){2,}$")
_STRAY_SPACE = re.compile(r"(?<=\d)\s+(?=\d{3}\b)|\s+(?=[%).,])|(?<=[(.,])\s+")
"""Spaces a number does not keep: between thousands groups ("1 234"), before "%", ")" or a
separator, after "(" or a separator. A space after a currency sign is the writer's ("$ 315")
and stays, and one between a look-alike and digits ("S 3.0") leaves the text no number."""


def is_number(text: str) -> bool:
    return bool(_NUMBER.match(text.strip()))


def fix_number(text: str) -> str:
    """The text as a number would be written, if it is one but for OCR confusions."""
    t = text.strip()
    t = _MINUS.sub("-", t)
    t = _SPACED_SEPARATOR.sub(lambda m: "".join(g for g in m.groups() if g), t)
    if not _NUMBERISH.match(t) or not any(ch.isdigit() for ch in t):
        return text
    sign = t[0] if t[0] in "-+\u2212(" else ""
    body = t[len(sign):]
    fixed = sign + body.translate(_LOOKALIKE)
    fixed = _STRAY_SPACE.sub("", fixed)
    if _DOT_THOUSANDS.match(fixed):  # "1.234.567": dots grouping thousands
        fixed = fixed.replace(".", ",")
    return fixed if is_number(fixed) else text


_COMMA_GROUPED = re.compile(r"^[-+\u2212(]?[$€£¥]?\d{1,3}(,\d{3})+(\.\d+)?\)?%?$")
_DOT_GROUPED = re.compile(r"^([-+\u2212(]?[$€£¥]?\d{1,3})\.(\d{3})\)?$")


def comma_grouped(texts: list[str]) -> bool:
    """Whether a column writes its thousands with commas ("1,234"): then "2.115" in it is a
    comma read as a point."""
    filled = [t for t in texts if t.strip()]
    return bool(filled) and sum(bool(_COMMA_GROUPED.match(t)) for t in filled) >= 0.5 * len(filled)


def numeric_columns(columns: dict[int, list[str]]) -> set[int]:
    """The columns whose body cells are mostly numbers (after fixing look-alikes)."""
    out = set()
    for col, texts in columns.items():
        filled = [t for t in texts if t.strip()]
        if len(filled) >= 2 and sum(is_number(fix_number(t)) for t in filled) >= 0.6 * len(filled):
            out.add(col)
    return out


_PERIOD = re.compile(r"\b([QH])[lI|](?=\b|\s|$)")
"""A quarter or half ("Q1", "H1") whose 1 was read as l or I (tesseract does, at conf ~50)."""


_PERIOD_YEAR = re.compile(r"\b([QH][1-4])((?:19|20)\d\d)\b")
"""A quarter and its year run together ("Q22024"): the space between them was lost."""


def check_cell(text: str, confidence: float | None, numeric: bool, grouped: bool = False
               ) -> tuple[str, tuple[str, ...]]:
    """The corrected text of one cell and its flags (`grouped`: its column writes thousands
    with commas)."""
    flags: list[str] = []
    fixed = text
    candidate = fix_number(text)
    if grouped and _DOT_GROUPED.match(candidate):
        candidate = _DOT_GROUPED.sub(r"\1,\2", candidate)
    if candidate != text and (numeric or sum(ch.isdigit() for ch in text) >= 2):
        fixed = candidate
    else:
        fixed = _PERIOD_YEAR.sub(r"\1 \2", _PERIOD.sub(r"\g<1>1", text))
    if fixed != text:
        flags.append("corrected")
    if numeric and fixed.strip() and not is_number(fixed):
        flags.append("not_a_number")
    if confidence is not None and confidence < LOW_CONFIDENCE:
        flags.append("low_confidence")
    return fixed, tuple(flags)


def uncertain(flags: Iterable[str]) -> bool:
    """Whether a cell's flags say its text may be wrong (corrected cells are likely right)."""
    return any(f in ("low_confidence", "not_a_number") for f in flags)
