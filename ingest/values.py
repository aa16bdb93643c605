"""Typed values from the text of one table cell: numbers, percents, money, dates, years, ranges.

Pure functions, no I/O. `parse_value` runs on every cell of large workbooks, so plain numerals
("12", "-3.5", "1e3") take a one-regex fast path and every pattern is compiled once.

The contract (CONTRACTS.md): `number` is the value as written and a multiplier lives in `scale`
with where it was found; nothing is folded silently. Decisions on ambiguous cells:

* Text is NFKC-normalised (full-width digits, "％", "（万元）") and stripped; minus-sign and
  hyphen look-alikes become "-". `text` holds that normalised form.
* "" (or only spaces) is kind "empty". Placeholders ("-", "—", "N/A", "n.a.") are kind "text"
  with no number: a dash may mean zero or "not available", and only the reader of the report knows.
* Grouping: "1,234" is 1234 (comma groups win over the European reading). European numbers are
  read only when unambiguous: two or more dot groups ("1.234.567") or dot groups with a decimal
  comma ("1.234,5"); "1.234" is 1.234 and "1,5" is text. Space and apostrophe groups ("1 234,5",
  "1'234.50") and Indian groups ("1,23,456") are read too.
* Integers with a leading zero ("007", "02134") and numerals of more than 15 digits are text:
  they are codes (ZIP, account, card numbers), not quantities.
* Currency: symbols map to ISO codes where unambiguous ("€" EUR, "£" GBP, "US$" USD, "₹" INR);
  "$" and "¥" stay as written because several currencies use them. Codes stay as written ("RMB",
  "USD"); words are lowercased ("yuan", "dollars"); "元" is "yuan", "美元" is "USD".
* Scale letters: "k"/"K" thousand, "M"/"MM"/"mn" million, "B"/"b"/"bn" billion. A lowercase "m"
  is a million only beside money or a following unit ("$3.5m", "5m people"); alone ("100m") it is
  the unit metres.
* Units: a known unit may be attached ("12kg"); any other word needs a space ("3 people"; up to
  three lowercase words). "12abc" and "3rd Street" are text. "per X" / "/X" become part of the
  unit: "≥200 RMB per person per month" has unit "RMB/person/month".
* Bare integers are numbers, never years ("1932" is 1932); kind "year" needs a marker: "FY2019",
  "FY19", "2021年", "Spring 1932", "in 1932", "c. 1932". A split year ("2019/20", "2019-20",
  "FY2019/20", and "2011-12": consecutive years win over year-month) is kind "year" with date
  "2019/2020" (an ISO 8601 interval) and low/high 2019/2020.
* Dates: slash dates are month/day (US) unless the first part is over 12 ("13/05/2021"); dotted
  dates are day.month ("05.03.2021"). Two-digit years pivot like POSIX (69-99 -> 19xx). Without a
  year a date is "--MM-DD" ("October 17") or "--MM" ("October", "3月"), the ISO 8601:2000
  truncated forms. "Mar-21" is month-year (Excel's mmm-yy); "Mar 21" is 21 March. Quarters and
  halves are dates "2024-Q1", "2024-H1"; "Q1" alone is text. A time of day after an ISO date is
  kept in its date ("2024-01-04 14:52" -> "2024-01-04T14:52", seconds and a UTC offset as
  written), as is one a spreadsheet date-time shows: a duration between two such cells is in
  hours, not whole days. Midnight is dropped ("2021-03-05 00:00:00" -> "2021-03-05"): the same
  instant, and how date-only exports write their dates.
* Durations: "m:ss(.ff)" and "h:mm:ss" and "1h 30m" (two or more parts) are seconds, unit "s".
  A clock time "12:30" reads as 12 min 30 s: the text alone cannot tell. One part ("45 min") is a
  number with its unit, as written.
* Ranges: "10-20", "10–20", "10 to 20", "10~20"; bounds "<5", "≤ 10", ">100", "≥200", "65+",
  "at least 5". A range has no `number`; low/high are as written (strictness of "<" is only in
  `text`). Year ranges ("1990–1995", "1990-95") also get date "1990/1995". "555-1234" reads as a
  range: a phone number cannot be told apart from it.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from ingest.numfmt import general, round_half_up

__all__ = [
    "KINDS",
    "TypedValue",
    "apply_context_scale",
    "has_own_unit",
    "parse_raw",
    "parse_value",
    "scale_from_context",
]

KINDS = (  # every TypedValue.kind
    "number", "percent", "currency", "date", "year", "ordinal", "duration", "range", "text",
    "empty",
)

Raw = str | int | float | bool | dt.datetime | dt.date | dt.time | None
"""What a spreadsheet cell may store (the same types as `ingest.grid.Value`)."""


class TypedValue(NamedTuple):
    """The typed reading of one cell's text; see the module docstring for the rules.

    Immutable; `_replace` derives a changed copy. A named tuple rather than a frozen dataclass:
    an upload builds one per data cell, and a frozen dataclass is about four times slower to
    build.
    """

    kind: str
    number: float | int | None = None
    """The number as written: "12.5%" -> 12.5, "(1,234)" -> -1234, "1.2万" -> 1.2."""
    unit: str | None = None
    """"%", a currency ("USD", "$", "yuan"), or a unit ("kg", "people", "RMB/person/month")."""
    scale: float | None = None
    """The multiplier written with the number ("million" -> 1e6), or applied from a header."""
    scale_source: str | None = None
    """Where the scale was found: "cell", "header" or "title"."""
    date: str | None = None
    """ISO text for dates and years: "2021", "2021-03", "2021-03-05", "--10-17", "2024-Q1"; a
    date with the time of day it shows, "2021-03-05T14:30" (`_time_of_day`)."""
    low: float | None = None
    high: float | None = None
    text: str = ""
    """The NFKC-normalised, stripped cell text."""

    def value(self) -> float | None:
        """Return the number times its scale, for computing (a percent stays as written)."""
        if self.number is None or self.scale is None:
            return self.number
        # Multiply in decimal so "1.2万" gives 12000.0, not 12000.000000000002.
        return float(Decimal(repr(self.number)) * Decimal(repr(self.scale)))

    def to_dict(self) -> dict[str, Any]:
        """Return the fields that are set, as JSON-friendly values."""
        return {
            name: getattr(self, name)
            for name in self._fields
            if getattr(self, name) is not None
        }


# ---------------------------------------------------------------------------------------------
# Normalisation and the fast path

_CLEANUP = str.maketrans({
    "\u2212": "-",  # minus sign: NFKC keeps it, but it is what typeset reports use
    "\u2010": "-",  # hyphen (NFKC turns the non-breaking hyphen into this)
    "\u2012": "-",  # figure dash
    "\u2018": "'", "\u2019": "'",  # curly quotes in "Mar ’21" and "USD ’000"
    "\u301c": "~",  # wave dash in "10〜20"
    "\u200b": None, "\ufeff": None,  # zero-width space and BOM pasted from web pages
})

# Plain numerals, and "1,234.5" (comma groups are the commonest form in reports).
_PLAIN = re.compile(
    r"[-+]?(?:(?P<int>\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?"
    r"|(?P<grouped>[1-9]\d{0,2}(?:,\d{3})+)(?:\.\d+)?)"
)
_MAX_DIGITS = 15  # doubles hold 15 significant digits; longer digit runs are identifiers
# No typed value is longer than this; longer cells are prose, and skipping them bounds the work
# (splitting at each range separator is quadratic in the number of separators).
_MAX_TYPED_LENGTH = 80


def _normalise(text: str) -> str:
    """Return the NFKC form of `text` with dash look-alikes unified, stripped."""
    if text.isascii():  # NFKC leaves ASCII alone; skip it on the common path
        return text.strip()
    # A footnote's superscript after a figure ("12.3¹") is a mark, not a digit: NFKC would
    # make it "12.31".
    text = _SUPERSCRIPT_MARK.sub(lambda m: f"[{m[1]}]", text)
    return unicodedata.normalize("NFKC", text).translate(_CLEANUP).strip()


_SUPERSCRIPT_MARK = re.compile(r"(?<=[\d%)])\s?([\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)\s*$")


def _to_number(numeral: str, whole: str | None) -> int | float | None:
    """Convert a cleaned numeral, or return None for a code (leading zero, too many digits)."""
    if whole and (len(whole) > _MAX_DIGITS or (len(whole) > 1 and whole[0] == "0")):
        return None
    if "." in numeral or "e" in numeral or "E" in numeral:
        number = float(numeral)
        return number if math.isfinite(number) else None
    return int(numeral)


def parse_value(text: str) -> TypedValue:
    """Read the typed value in a cell's displayed text."""
    s = _normalise(text)
    if m := _PLAIN.fullmatch(s):
        if m["grouped"]:
            number = _to_number(s.replace(",", ""), m["grouped"].replace(",", ""))
        else:
            number = _to_number(s, m["int"])
        if number is not None:
            return TypedValue("number", number, text=s)
        return TypedValue("text", text=s)
    if not s:
        return TypedValue("empty")
    if len(s) > _MAX_TYPED_LENGTH:
        return TypedValue("text", text=s)
    if not _HAS_DIGIT.search(s):
        return _month_only(s) or TypedValue("text", text=s)
    for pattern, build in _PATTERNS:
        if (m := pattern.fullmatch(s)) and (found := build(m, s)):
            return found
    if (about := _APPROXIMATELY.match(s)) and about.end() < len(s):
        # "c. 71,000", "~2,500", "approx. 40": a figure given roughly is that figure (read
        # as text, a first row of them was taken for a header, a later one left out).
        inner = parse_value(s[about.end():])
        if inner.kind in _NUMBERS:
            return inner._replace(text=s)
    if (mark := FOOTNOTE_MARK.search(s)) and mark.start() > 0:
        # "1,284,310[a]", "57[12]": a number with a footnote's mark is the number.
        inner = parse_value(s[:mark.start()])
        if inner.kind in ("number", "percent", "currency"):
            return inner._replace(text=s)
    if (note := _WORDS_NOTE.search(s)) and note.start() > 0:
        # "0 (uninhabited)", "$350,000,000 (est.)": a figure and a word about it.
        inner = parse_value(s[:note.start()])
        if inner.kind in _NUMBERS:
            return inner._replace(text=s)
    if (pair := _WITH_CONVERSION.fullmatch(s)) is not None:
        # "14.2 (57.6)" (°C with °F), "1,234 (56%)": the figure, then the same figure in
        # another unit or as a share; the first is the cell's number.
        first, second = parse_value(pair[1]), parse_value(pair[2])
        # Two whole numbers ("5 (3)": apps and goals?) say nothing of which is the figure.
        converted = "." in pair[1] + pair[2] or second.kind == "percent"
        if first.kind in _NUMBERS and second.kind in _NUMBERS and converted:
            return first._replace(text=s)
    return _single(s) or _range(s) or TypedValue("text", text=s)


_APPROXIMATELY = re.compile(r"(?:c\.|ca\.|circa|approx\.?|approximately|about|est\.|~|≈)\s*",
                            re.IGNORECASE)
_WORDS_NOTE = re.compile(r"\s*\([^\W\d_]{2,}(?:[ .-]+[^\W\d_]+)*\.?\)$")
"""A parenthesised note of words only after a figure ("(est.)", "(uninhabited)"); a single
letter ("(a)", "(e)") is a footnote's mark or a flag (`FOOTNOTE_MARK`)."""
_WITH_CONVERSION = re.compile(r"\s*([^()]*\d[^()]*?)\s*\(\s*([^()]*\d[^()]*?)\s*\)\s*")
_NUMBERS = ("number", "percent", "currency")
FOOTNOTE_MARK = re.compile(r"(?:\s*\[(?:[a-z]|\d{1,3}|(?:n|nb|note|fn|ref) ?\d{1,3}|"
                           r"(?:citation|clarification|better source|verification) needed|"
                           r"dubious|when\?|which\?|who\?|update|failed verification)\])+$"
                           r"|\s*[*†‡§¶]+$|(?<=\d)[rpe]$|(?<=[\d%])\s?\([a-hpru]\)$",
                           re.IGNORECASE)
"""Footnote marks after a cell's figure: Wikipedia's ("[a]", "[12]", "[note 3]", "[n 1]",
"[citation needed]"), signs ("94,905*", "3.5†"), a report's lettered notes ("1.56 (a)") and a
statistics office's flags ("6,967r" revised, "10.2p" provisional, "812e" estimated, "(e)").
A bracketed year ("[1990]") is no mark, nor a letter that may be a unit ("12 (m)", "5 (k)")."""


# ---------------------------------------------------------------------------------------------
# Quantities: sign, comparator, currency, number, scale, unit

_CODES = (
    "USD|EUR|GBP|JPY|CNY|RMB|HKD|TWD|CHF|CAD|AUD|NZD|SGD|INR|KRW|SEK|NOK|DKK|BRL|MXN|ZAR|RUB"
)
_CURRENCY_NAMES = {
    "US$": "USD", "HK$": "HKD", "NT$": "TWD", "A$": "AUD", "AU$": "AUD", "C$": "CAD",
    "CA$": "CAD", "NZ$": "NZD", "S$": "SGD", "R$": "BRL", "€": "EUR", "£": "GBP", "₹": "INR",
    "₩": "KRW", "₽": "RUB", "Rs.": "Rs", "人民币": "RMB", "元": "yuan", "美元": "USD",
    "欧元": "EUR", "日元": "JPY", "港元": "HKD", "英镑": "GBP",
}
_SCALES = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "lakh": 1e5, "lac": 1e5, "million": 1e6,
    "mn": 1e6, "mln": 1e6, "mio": 1e6, "m": 1e6, "mm": 1e6, "crore": 1e7, "cr": 1e7,
    "billion": 1e9, "bn": 1e9, "bln": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12, "trn": 1e12,
    "千": 1e3, "万": 1e4, "十万": 1e5, "百万": 1e6, "千万": 1e7, "亿": 1e8, "十亿": 1e9,
    "百亿": 1e10, "千亿": 1e11, "万亿": 1e12,
}
_CJK_SCALES = "万亿|千亿|百亿|十亿|千万|百万|十万|亿|万|千"
# Units that may be written without a space; matched case-insensitively, longest first.
_KNOWN_UNITS = sorted(
    [
        "mg", "g", "kg", "t", "lb", "lbs", "oz", "mm", "cm", "m", "km", "in", "ft", "mi", "m2",
        "km2", "ha", "ml", "l", "gal", "bbl", "ms", "sec", "secs", "min", "mins", "h", "hr",
        "hrs", "yr", "yrs", "wh", "kwh", "mwh", "gwh", "twh", "w", "kw", "mw", "gw", "kb", "mb",
        "gb", "tb", "x", "bp", "bps", "pp", "ppm", "ppb", "mph", "kph", "°c", "°f", "°",
    ],
    key=len, reverse=True,
)
_UNIT_SPELLING = {
    "wh": "Wh", "kwh": "kWh", "mwh": "MWh", "gwh": "GWh", "twh": "TWh", "w": "W", "kw": "kW",
    "mw": "MW", "gw": "GW", "kb": "kB", "mb": "MB", "gb": "GB", "tb": "TB", "l": "L", "ml": "mL",
    "°c": "°C", "°f": "°F", "m2": "m²", "km2": "km²",
}
_LOW_WORDS = ("more", "greater", "at least", "over", "above")
_HIGH_OPERATORS = ("<", "<=", "≤", "≦", "⩽")

_HAS_DIGIT = re.compile(r"\d")
# Accounting negatives: one pair of parentheses around the number, "$(1,234)", "(2.1)%".
_ACCOUNTING = re.compile(r"([^()\d]*)\(([^()]*\d[^()]*)\)([^()\d]*)")
_PREFIX = re.compile(
    r"(?P<op><=|>=|[<>≤≥≦≧⩽⩾])\s*"
    r"|(?P<words>(?i:more than|greater than|less than|fewer than|at least|at most|up to|over"
    r"|under|above|below))\s+"
    r"|(?P<sign>[-+–])\s*"
    rf"|(?P<cur>US\$|HK\$|NT\$|AU?\$|CA?\$|NZ\$|S\$|R\$|Rs\.?|[$€£¥₹₩₽]|人民币|(?:{_CODES})"
    r"(?![A-Za-z]))\s*"
)
_NUMBER = re.compile(
    r"(?P<us>[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?)"
    r"|(?P<indian>[1-9]\d?(?:,\d\d)+,\d{3}(?:\.\d+)?)"
    r"|(?P<eu>[1-9]\d{0,2}(?:(?:\.\d{3}){2,}(?:,\d+)?|(?:\.\d{3})+,\d+))"
    r"|(?P<spaced>[1-9]\d{0,2}(?:[ ']\d{3})+(?:[.,]\d+)?)"
    r"|(?P<plain>(?P<int>\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"
)
_SCALE = re.compile(
    r"\s*(?:(?P<word>(?i:hundred|thousand|million|billion|trillion|lakh|lac|crore)s?"
    r"|(?i:mn|mln|mio|bn|bln|tn|trn|cr))(?![A-Za-z])"
    r"|(?P<letter>MM|[kKmMbB])(?![A-Za-z\d²³])"
    rf"|(?P<cjk>(?!千[克米瓦卡])(?:{_CJK_SCALES})))"  # 千克 is kg, not 1000 g
)
_NOT_UNIT = r"(?!(?:per|or|and|to)\b)"
_UNIT = re.compile(
    r"\s*(?:(?P<pct>%|(?i:pct|percent|per\s?cent)(?![A-Za-z]))"
    rf"|(?P<cur>(?:{_CODES})(?![A-Za-z])|美元|欧元|日元|港元|英镑|人民币|元|[$€£¥₹₩₽])"
    r"|(?P<curword>(?i:dollars?|euros?|yuan|yen|rupees?|renminbi)(?![A-Za-z]))"
    # (A lone capital "G" is no gram: "4G", "5G" name network generations.)
    rf"|(?!G(?![A-Za-z]))(?P<known>(?i:{'|'.join(map(re.escape, _KNOWN_UNITS))})(?![A-Za-z]))"
    r"|(?P<cjk>(?:(?!以[上下])[\u3400-\u9fff]){1,4}))"  # "60岁以上": the unit is 岁
    rf"|\s+(?P<word>{_NOT_UNIT}[a-z][a-z-]*(?:\s{_NOT_UNIT}[a-z][a-z-]*){{0,2}})"
)
_PER = re.compile(r"\s*(?:/|(?i:per)\s+)\s*(?P<per>[A-Za-z][A-Za-z-]*|[\u3400-\u9fff]{1,3})")
_BOUND_AFTER = re.compile(
    r"\s*(?:(?P<low>(?i:or more|or above|or over|and over|and above)|以上)"
    r"|(?P<high>(?i:or less|or fewer|or below|and under|and below)|以下))"
)


@dataclass(slots=True)
class _Quantity:
    """One number with what was written around it, while it is being read."""

    number: int | float = 0
    negative: bool = False
    currency: str | None = None
    percent: bool = False
    scale: float | None = None
    scale_word: str = ""
    unit: str | None = None
    per: str = ""
    bound: str | None = None
    """"low" for ">=5", "5+"; "high" for "<5"."""

    @property
    def kind(self) -> str:
        """Return the kind of the single value: percent, currency or number."""
        return "percent" if self.percent else "currency" if self.currency else "number"

    @property
    def label(self) -> str | None:
        """Return the unit as reported: the percent sign, currency or unit, then "/per" parts."""
        base = "%" if self.percent else self.currency or self.unit
        return (base or "") + self.per if self.per else base


def _quantity(s: str) -> _Quantity | None:
    """Read one number with its sign, comparator, currency, scale and unit, or return None."""
    q = _Quantity()
    if "(" in s or ")" in s:
        m = _ACCOUNTING.fullmatch(s)
        if m is None:
            return None
        s, q.negative = m[1] + m[2] + m[3], True
    pos = _read_prefix(s, q)
    m = _NUMBER.match(s, pos) if pos is not None else None
    if m is None:
        return None
    number = _numeral(m)
    if number is None:
        return None
    q.number = -number if q.negative else number
    return q if _read_suffix(s, m.end(), q) else None


def _read_prefix(s: str, q: _Quantity) -> int | None:
    """Consume the comparator, sign and currency before the number; return where it starts."""
    pos, signed = 0, False
    while m := _PREFIX.match(s, pos):
        group = m.lastgroup
        if group in ("op", "words"):
            if pos:  # a comparator comes first: "$<5" is not a bound
                return None
            q.bound = _bound(m[group])
        elif group == "sign":
            if signed or q.negative:  # "--5", "-(5)"
                return None
            signed, q.negative = True, m["sign"] != "+"
        elif q.currency:
            return None
        else:
            q.currency = _currency(m["cur"])
        pos = m.end()
    return pos


def _read_suffix(s: str, pos: int, q: _Quantity) -> bool:
    """Consume a bound, scale, unit and "per" parts after the number; tell if all of s was read."""
    if s.startswith("+", pos):  # "65+"
        if q.bound:
            return False
        q.bound, pos = "low", pos + 1
    if m := _SCALE.match(s, pos):
        q.scale_word = m[m.lastgroup]
        q.scale, pos = _SCALES[q.scale_word.lower().removesuffix("s")], m.end()
    if m := _UNIT.match(s, pos):
        if not _take_unit(m, q):
            return False
        pos = m.end()
    if q.scale_word == "m" and not (q.currency or q.unit or q.percent):
        q.scale, q.unit = None, "m"  # "100m" is metres; "$3.5m" and "5m people" are millions
    while m := _PER.match(s, pos):
        q.per += "/" + m["per"].lower()
        pos = m.end()
    if m := _BOUND_AFTER.match(s, pos):
        if q.bound:
            return False
        q.bound, pos = m.lastgroup, m.end()
    return pos == len(s) and not (q.percent and (q.currency or q.scale))


def _take_unit(m: re.Match[str], q: _Quantity) -> bool:
    """Record the percent sign, currency or unit matched after the number; False on a clash."""
    group = m.lastgroup
    token = m[group]
    if group == "pct":
        q.percent = True
    elif group in ("cur", "curword"):
        if q.currency:  # "$5 USD": two currencies
            return False
        q.currency = _currency(token)
    elif q.currency:  # "$5 km": the label has room for one of them, and neither may be lost
        return False
    elif group == "known":
        q.unit = _UNIT_SPELLING.get(token.lower(), token.lower())
    else:
        q.unit = token
    return True


def _numeral(m: re.Match[str]) -> int | float | None:
    """Convert a matched numeral of any grouping style to a number."""
    style, numeral = m.lastgroup, m.group()
    if style == "plain":
        return _to_number(numeral, m["int"])
    if style == "eu":
        numeral = numeral.replace(".", "").replace(",", ".")
    elif style == "spaced":
        numeral = numeral.replace(" ", "").replace("'", "").replace(",", ".")
    else:
        numeral = numeral.replace(",", "")
    return _to_number(numeral, numeral.partition(".")[0])


def _bound(operator: str) -> str:
    """Return "low" or "high": which end of a range a comparator fixes."""
    if operator in _HIGH_OPERATORS:
        return "high"
    if not operator[0].isalpha():
        return "low"
    return "low" if operator.lower().startswith(_LOW_WORDS) else "high"


def _currency(token: str) -> str:
    """Return the reported name of a currency token (ISO where unambiguous)."""
    if token in _CURRENCY_NAMES:
        return _CURRENCY_NAMES[token]
    return token.lower() if token.isalpha() and not token.isupper() else token


def _single(s: str) -> TypedValue | None:
    """Read a cell holding one quantity or one bound ("<5", "≥200 RMB")."""
    q = _quantity(s)
    if q is None:
        return None
    source = "cell" if q.scale is not None else None
    if q.bound == "low":
        return TypedValue("range", None, q.label, q.scale, source, low=q.number, text=s)
    if q.bound == "high":
        return TypedValue("range", None, q.label, q.scale, source, high=q.number, text=s)
    return TypedValue(q.kind, q.number, q.label, q.scale, source, text=s)


_RANGE_SEP = re.compile(r"\s*(?:-|–|—|~|至|\bto\b|\bthrough\b)\s*")


def _range(s: str) -> TypedValue | None:
    """Read "low-high" with any separator, the unit and scale written on either side or both."""
    for sep in _RANGE_SEP.finditer(s):
        if sep.start() == 0:  # a leading "-" is a sign
            continue
        first, second = _quantity(s[:sep.start()]), _quantity(s[sep.end():])
        if first and second:
            return _join(first, second, s)
    return None


def _join(first: _Quantity, second: _Quantity, s: str) -> TypedValue | None:
    """Make a range of two quantities that agree on unit and scale, low first."""
    if first.bound or second.bound or first.number > second.number:
        return None
    if first.label and second.label and first.label != second.label:
        return None
    if first.scale and second.scale and first.scale != second.scale:
        return None
    unit, scale = first.label or second.label, first.scale or second.scale
    low, high = first.number, second.number
    date = f"{low}/{high}" if unit is None and scale is None and _is_year(low, high) else None
    source = "cell" if scale is not None else None
    return TypedValue("range", None, unit, scale, source, date, low, high, s)


def _is_year(*numbers: float) -> bool:
    """Tell whether every number is an integer that reads as a year."""
    return all(isinstance(n, int) and 1000 <= n <= 2100 for n in numbers)


# ---------------------------------------------------------------------------------------------
# Dates, years, quarters, ordinals and durations

_MONTHS = {
    name: number
    for number, name in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
        start=1,
    )
}
_MON = (
    r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_WEEKDAY = r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
_CLOCK_TIME = (r"(?:[T ](?P<hour>\d{1,2}):(?P<minute>\d{2})(?::(?P<second>\d{2}(?:\.\d+)?))?"
               r"(?P<offset>Z|[+-]\d{2}:?\d{2})?)?")


def _regex(pattern: str) -> re.Pattern[str]:
    """Compile a case-insensitive cell pattern."""
    return re.compile(pattern, re.IGNORECASE)


_DATE_ISO = _regex(
    rf"(?P<year>\d{{4}})(?P<sep>[-/.])(?P<month>\d{{1,2}})(?P=sep)(?P<day>\d{{1,2}}){_CLOCK_TIME}"
)
_DATE_NUMERIC = _regex(r"(?P<a>\d{1,2})(?P<sep>[-/.])(?P<b>\d{1,2})(?P=sep)(?P<year>\d{4}|\d{2})")
_DATE_CJK = _regex(r"(?:(?P<year>\d{4})年)?(?P<month>\d{1,2})月(?:(?P<day>\d{1,2})[日号])?")
_DATE_MDY = _regex(rf"{_WEEKDAY}{_MON}\s*{_DAY},?\s+(?P<year>\d{{4}})")
_DATE_DMY = _regex(rf"{_WEEKDAY}{_DAY}(?:\s+of)?\s+{_MON},?\s+(?P<year>\d{{4}})")
_DATE_DMY_DASHED = _regex(rf"{_DAY}-{_MON}-(?P<year>\d{{4}}|\d{{2}})")
_DATE_MY = _regex(rf"{_MON}(?:,?\s*|-)(?P<year>\d{{4}})")
_DATE_MY_SHORT = _regex(rf"{_MON}(?:-|\s?')(?P<year>\d{{2}})")
_DATE_MD = _regex(rf"{_WEEKDAY}{_MON}\s+{_DAY}")
_DATE_DM = _regex(rf"{_DAY}(?:\s+of)?[\s-]+{_MON}")
_MONTH_ONLY = _regex(_MON)
_QUARTER = _regex(
    r"(?P<p>[QH])(?P<n>[1-4])[\s/-]*(?P<y>\d{4})|(?P<y2>\d{4})[\s/-]*(?P<p2>[QH])(?P<n2>[1-4])"
)
_YEAR_MARKED = _regex(
    r"(?P<mark>fy|cy|fiscal(?:\s+year)?|year|in|circa|c\.|ca\.|spring|summer|autumn|fall|winter)"
    r"[\s,]*'?(?P<year>\d{4}|\d{2})(?:\s*[-/–]\s*(?P<end>\d{4}|\d{2}))?"
)
_YEAR_CJK = _regex(r"(?P<year>\d{4})\s*年度?")
_YEAR_SPLIT = _regex(r"(?P<year>\d{4})\s*(?P<sep>[-/–])\s*(?P<end>\d{4}|\d{2})")
_ORDINAL = _regex(r"(?P<n>\d+)(?P<suffix>st|nd|rd|th)")
_ORDINAL_CJK = _regex(r"第\s*(?P<n>\d+)\s*[名位次届期个章节条号]?")
_CLOCK = _regex(r"(?:(?P<h>\d+):)?(?P<m>\d{1,3}):(?P<s>[0-5]\d(?:\.\d+)?)")
_HMS = _regex(
    r"(?:(?P<h>\d+(?:\.\d+)?)\s*(?:h|hrs?|hours?))?\s*"
    r"(?:(?P<m>\d+(?:\.\d+)?)\s*(?:m|mins?|minutes?))?\s*"
    r"(?:(?P<s>\d+(?:\.\d+)?)\s*(?:s|secs?|seconds?))?"
)


def _full_year(digits: str) -> int:
    """Return a four-digit year; two digits pivot like POSIX (69-99 are 19xx, else 20xx)."""
    year = int(digits)
    if len(digits) > 2:
        return year
    return year + (1900 if year >= 69 else 2000)


def _iso(year: int | None, month: int, day: int | None) -> str | None:
    """Return the ISO text of a (partial) date, or None if there is no such day."""
    try:
        dt.date(year or 2000, month, day or 1)  # 2000 is a leap year: "--02-29" exists
    except ValueError:
        return None
    head = f"{year:04d}-{month:02d}" if year else f"--{month:02d}"
    return f"{head}-{day:02d}" if day else head


def _date(s: str, year: int | None, month: int, day: int | None) -> TypedValue | None:
    """Return a date value, or None for an impossible date."""
    iso = _iso(year, month, day)
    return TypedValue("date", date=iso, text=s) if iso else None


def _calendar(m: re.Match[str], s: str) -> TypedValue | None:
    """Build a date from named groups year, month or mon, day (any may be missing)."""
    parts = m.groupdict()
    month = _MONTHS[parts["mon"][:3].lower()] if parts.get("mon") else int(parts["month"])
    year = _full_year(parts["year"]) if parts.get("year") else None
    day = int(parts["day"]) if parts.get("day") else None
    found = _date(s, year, month, day)
    if found is None or not parts.get("hour"):
        return found
    clock = _time_of_day(int(parts["hour"]), int(parts["minute"]), parts["second"],
                         parts["offset"])
    return found._replace(date=f"{found.date}T{clock}") if clock else found


def _time_of_day(hour: int, minute: int, second: str | None = None,
                 offset: str | None = None) -> str | None:
    """The ISO time of day after a date ("14:30", "14:30:05", "14:30:00+01:00", "09:00Z"):
    as written, the offset with its colon; None for midnight in UTC (the date alone is that
    instant) or for no time of day ("25:00")."""
    if hour > 23 or minute > 59 or second is not None and float(second) >= 60:
        return None
    if hour == minute == 0 and (second is None or float(second) == 0) and (
            not offset or offset == "Z" or not offset.strip("+-0:")):
        return None
    clock = f"{hour:02d}:{minute:02d}" + (f":{second}" if second is not None else "")
    if offset and offset != "Z" and ":" not in offset:
        offset = f"{offset[:3]}:{offset[3:]}"
    return clock + (offset or "")


def _numeric_date(m: re.Match[str], s: str) -> TypedValue | None:
    """Build a date from "a/b/year": month first (US) unless a > 12; "a.b.year" is day first."""
    a, b, sep, year = int(m["a"]), int(m["b"]), m["sep"], m["year"]
    if len(year) == 2 and sep == "-":  # "10-11-12" is too likely to be something else
        return None
    month, day = (b, a) if sep == "." or a > 12 else (a, b)
    return _date(s, _full_year(year), month, day)


SLASH_DATE = re.compile(r"\s*(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\b")


def writes_day_first(texts: list[str]) -> bool:
    """Whether a column's "a/b/year" dates are day first: some have a day over 12 in the
    first place ("25/07/2023") and none in the second ("07/25/2023"). Read cell by cell,
    "05/07/2023" would be 7 May beside 25 July."""
    firsts = seconds = False
    for text in texts:
        m = SLASH_DATE.match(text)
        if m:
            firsts |= int(m[1]) > 12
            seconds |= int(m[2]) > 12
    return firsts and not seconds


def as_day_first(text: str) -> str:
    """ "05/07/2023" written "05.07.2023", which `parse_raw` reads day first."""
    m = SLASH_DATE.match(text)
    return text if m is None else text[:m.start(1)] + f"{m[1]}.{m[2]}.{m[3]}" + text[m.end():]


def _month_only(s: str) -> TypedValue | None:
    """Read a month name on its own ("October", "Sept.") as "--MM"."""
    m = _MONTH_ONLY.fullmatch(s)
    return _calendar(m, s) if m else None


def _quarter(m: re.Match[str], s: str) -> TypedValue | None:
    """Build "2024-Q1" or "2024-H1"."""
    period, n, year = (m["p"], m["n"], m["y"]) if m["p"] else (m["p2"], m["n2"], m["y2"])
    if period.upper() == "H" and n > "2":
        return None
    return TypedValue("date", date=f"{year}-{period.upper()}{n}", text=s)


def _year(year: int, end: str | None, s: str) -> TypedValue | None:
    """Build a year, or a split year ("2019/20") when `end` is the next year."""
    if not 1000 <= year <= 2100:
        return None
    if end is None:
        return TypedValue("year", year, date=str(year), text=s)
    if int(end) not in (year + 1, (year + 1) % 100) or len(end) not in (2, 4):
        return None
    return TypedValue("year", date=f"{year}/{year + 1}", low=year, high=year + 1, text=s)


def _marked_year(m: re.Match[str], s: str) -> TypedValue | None:
    """Build a year with a marker ("FY2019", "Spring 1932"); two digits only after FY/CY."""
    digits = m["year"]
    if len(digits) == 2 and m["mark"].lower() not in ("fy", "cy"):
        return None
    return _year(_full_year(digits), m["end"], s)


def _cjk_year(m: re.Match[str], s: str) -> TypedValue | None:
    """Build a year from "2021年" or "2021年度"."""
    return _year(int(m["year"]), None, s)


def _split_year(m: re.Match[str], s: str) -> TypedValue | None:
    """Read "2019/20" (split year), "2021-03" (year-month) or "1990-95" (year range)."""
    year, sep, end = int(m["year"]), m["sep"], m["end"]
    if not 1000 <= year <= 2100:
        return None
    if (len(end) == 2 or sep == "/") and int(end) in (year + 1, (year + 1) % 100):
        return _year(year, end, s)
    if len(end) == 2 and sep != "–" and 1 <= int(end) <= 12:
        return _date(s, year, int(end), None)
    if len(end) == 2 and sep != "/" and int(end) > year % 100:
        high = year - year % 100 + int(end)
        return TypedValue("range", date=f"{year}/{high}", low=year, high=high, text=s)
    return None  # "2019-2020" and other four-digit pairs are ranges


def _ordinal(m: re.Match[str], s: str) -> TypedValue | None:
    """Build an ordinal; an English suffix must fit the number ("1st", not "1th")."""
    n = int(m["n"])
    suffix = m.groupdict().get("suffix")
    if suffix and suffix.lower() != _ordinal_suffix(n):
        return None
    return TypedValue("ordinal", n, text=s)


def _ordinal_suffix(n: int) -> str:
    """Return the English ordinal suffix of n."""
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _seconds(part: str) -> int | float:
    """Convert one written part of a duration to a number, keeping integers whole."""
    return float(part) if "." in part else int(part)


def _duration(total: int | float, s: str) -> TypedValue:
    """Build a duration in seconds, rounding away float noise from the sum."""
    if isinstance(total, float):
        total = round(total, 9)
    return TypedValue("duration", total, "s", text=s)


def _clock(m: re.Match[str], s: str) -> TypedValue | None:
    """Build a duration from "m:ss.ff" or "h:mm:ss"."""
    minutes = int(m["m"])
    if m["h"] and minutes >= 60:
        return None
    hours = int(m["h"]) if m["h"] else 0
    return _duration(hours * 3600 + minutes * 60 + _seconds(m["s"]), s)


def _hms(m: re.Match[str], s: str) -> TypedValue | None:
    """Build a duration from "1h 30m" or "2 hours 5 minutes"; one part alone is a number."""
    parts = [m["h"], m["m"], m["s"]]
    if sum(part is not None for part in parts) < 2:
        return None
    weighted = zip(parts, (3600, 60, 1), strict=True)
    total = sum(_seconds(part) * weight for part, weight in weighted if part)
    return _duration(total, s)


Builder = Callable[[re.Match[str], str], TypedValue | None]
_PATTERNS: tuple[tuple[re.Pattern[str], Builder], ...] = (
    (_CLOCK, _clock),
    (_HMS, _hms),
    (_DATE_ISO, _calendar),
    (_DATE_NUMERIC, _numeric_date),
    (_DATE_CJK, _calendar),
    (_DATE_MDY, _calendar),
    (_DATE_DMY, _calendar),
    (_DATE_DMY_DASHED, _calendar),
    (_DATE_MY, _calendar),
    (_DATE_MY_SHORT, _calendar),
    (_DATE_MD, _calendar),
    (_DATE_DM, _calendar),
    (_QUARTER, _quarter),
    (_YEAR_MARKED, _marked_year),
    (_YEAR_CJK, _cjk_year),
    (_YEAR_SPLIT, _split_year),
    (_ORDINAL, _ordinal),
    (_ORDINAL_CJK, _ordinal),
)
"""Whole-cell patterns tried in order before quantities and ranges."""


# ---------------------------------------------------------------------------------------------
# Spreadsheet values

def parse_raw(raw: Raw, text: str = "") -> TypedValue:
    """Read a cell from its stored value and displayed text.

    A stored number replaces the displayed one only when the display is that number rounded
    ("1,234.57" for 1234.5678), so display rounding is not computed with but a number format that
    scales ("3.5" for 3500000) is kept as written. Dates take the displayed precision when it
    agrees ("Mar 2021" -> "2021-03"), and a date-time its time of day when the display shows
    it ("15/01/2024 09:30" -> "2024-01-15T09:30"); a time is a duration in seconds.
    """
    kind = type(raw)
    if kind is int or kind is float:  # most cells of a report: skip the checks below
        return _from_number(raw, text)
    if isinstance(raw, bool):
        return TypedValue("text", text=_normalise(text) or ("TRUE" if raw else "FALSE"))
    if isinstance(raw, dt.datetime):
        return _from_datetime(raw, text)
    if isinstance(raw, dt.date):
        return _from_date(raw, text)
    if isinstance(raw, dt.time):
        return _from_time(raw, text)
    if isinstance(raw, int | float):
        return _from_number(raw, text)
    return parse_value(text if text.strip() or raw is None else raw)


def _from_date(day: dt.date, text: str) -> TypedValue:
    """Return a date, keeping the display's precision when it shows the same date."""
    iso = day.isoformat()
    shown = parse_value(text)
    if shown.kind in ("date", "year") and shown.date and iso.startswith(shown.date):
        return shown
    if shown.kind == "number" and shown.number == day.year:  # a date formatted "yyyy"
        return TypedValue("year", day.year, date=str(day.year), text=shown.text)
    return TypedValue("date", date=iso, text=shown.text or iso)


_SHOWN_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?::(\d{2}))?(?![\d:])\s*([ap])?\.?m?\.?",
                          re.IGNORECASE)


def _from_datetime(moment: dt.datetime, text: str) -> TypedValue:
    """Return a stored date-time as its date (`_from_date`), with its time of day when the
    display shows it ("15/01/2024 09:30", "2024-01-15 9:30 AM"): a format that hides the
    time shows a date, and the date is what a reader computes with."""
    found = _from_date(moment.date(), text)
    if found.kind != "date" or found.date is None or len(found.date) != 10:
        return found
    for m in _SHOWN_CLOCK.finditer(found.text):
        hour, minute = int(m[1]), int(m[2])
        if m[4]:  # "9:30 PM"
            hour = hour % 12 + (12 if m[4].lower() == "p" else 0)
        if (hour, minute) == (moment.hour, moment.minute):
            clock = _time_of_day(hour, minute, f"{moment.second:02d}" if m[3] else None)
            return found._replace(date=f"{found.date}T{clock}") if clock else found
    return found


def _from_time(time: dt.time, text: str) -> TypedValue:
    """Return a stored time as a duration in seconds (spreadsheets store durations as times)."""
    whole = time.hour * 3600 + time.minute * 60 + time.second
    seconds = whole + time.microsecond / 1e6 if time.microsecond else whole
    return TypedValue("duration", seconds, "s", text=_normalise(text) or time.isoformat())


_EXPONENT = re.compile(r"\d[eE][-+]?\d")
_DECIMAL_COMMA = re.compile(r"-?(?:\d{1,3}(?:\.\d{3})+|\d+),\d+")


_DECORATED_DECIMAL_COMMA = re.compile(
    r"\s*(?P<pre>(?:[€$£]|EUR|USD|GBP|CHF)\s?)?"
    r"(?P<num>-?(?:\d{1,3}(?:[.\u00a0\u202f ]\d{3})+|\d+),\d+)"
    r"(?P<post>\s?(?:%|€|EUR|USD|GBP|CHF))?\s*")
"""A number written with a decimal comma, bare or with its currency or percent sign ("€ 66,54",
"1.250,00 EUR", "12,5 %", "36 326,4")."""


def decimal_comma_number(text: str) -> float | None:
    """The number a field written with a decimal comma holds (`_DECORATED_DECIMAL_COMMA`), or
    None: for readers of files that write their numbers so (a semicolon CSV)."""
    m = _DECORATED_DECIMAL_COMMA.fullmatch(text)
    if m is None:
        return None
    return float(re.sub(r"[.\u00a0\u202f ]", "", m.group("num")).replace(",", "."))


def _decimal_comma_form(raw: int | float, text: str) -> TypedValue | None:
    """A field such a reader read as `raw`, typed as its sign says ("€ 66,54": 66.54 EUR;
    "12,5 %": 12.5 percent), keeping the text as written; None for any other text."""
    m = _DECORATED_DECIMAL_COMMA.fullmatch(text)
    if m is None or decimal_comma_number(text) != raw:
        return None
    dotted = f"{m.group('pre') or ''}{raw!r}{m.group('post') or ''}"
    shown = parse_value(dotted)
    if shown.kind not in ("number", "currency", "percent"):
        return None
    return shown._replace(text=_normalise(text))


def _written_with_decimal_comma(raw: int | float, text: str) -> bool:
    """Whether `text` writes the number `raw` with a decimal comma ("1.234,5" for 1234.5)."""
    s = text.strip()
    return bool(_DECIMAL_COMMA.fullmatch(s)) and \
        float(s.replace(".", "").replace(",", ".")) == raw


def _from_number(raw: int | float, text: str) -> TypedValue:
    """Return the displayed number, with the stored precision when the display rounds it."""
    if raw.__class__ is float and text == repr(raw) and "e" not in text and "n" not in text:
        # The display is the float's shortest exact form ("123.45"), as General shows most
        # non-integral numbers: the stored number is what is written (a fast path).
        return TypedValue("number", raw, None, None, None, None, None, None, text)
    if raw.__class__ is int and text == str(raw):  # a whole number in General: as above
        return TypedValue("number", raw, None, None, None, None, None, None, text)
    if text == general(raw):
        # Shown in the General format (most cells): the stored number is what is written.
        exact = int(raw) if isinstance(raw, float) and raw.is_integer() and abs(raw) < 1e15 \
            else raw
        return TypedValue("number", exact, text=text)
    shown = parse_value(text if text.strip() else repr(raw))
    if shown.kind == "text" and _written_with_decimal_comma(raw, text):
        # "412,5" from a file whose reader read it as 412.5 (a semicolon CSV): the number.
        return TypedValue("number", raw, text=_normalise(text))
    if shown.kind == "text" and (decorated := _decimal_comma_form(raw, text)) is not None:
        return decorated  # "€ 66,54", "12,5 %" from such a file
    if shown.kind == "text":
        return _flagged(raw, shown)
    if shown.kind not in ("number", "currency", "percent") or shown.scale is not None:
        return shown
    exact: int | float = raw
    if shown.kind == "percent":
        exact = raw * 100 if isinstance(raw, int) else float(Decimal(repr(raw)) * 100)
    if not _rounds_to(exact, shown.number, bool(_EXPONENT.search(shown.text))):
        return shown
    if isinstance(shown.number, int) and float(exact).is_integer():
        exact = int(exact)
    return shown._replace(number=exact)


_FLAGGED = re.compile(r"(?P<flag>[A-Za-z]{1,2}|\([A-Za-z]{1,2}\)|[*†‡§#]{1,3})\s+"
                      r"(?P<num>[-+−]?[\d.,]+)|(?P<num2>[-+−]?[\d.,]+)\s*"
                      r"(?P<flag2>\([A-Za-z]{1,2}\)|[*†‡§#]{1,3})")
"""A number shown with a statistical flag its number format writes as literal text: "D
114,903" (format \\D\\ #,##0), "498,647.8 (e)" for estimated, "12 *"."""


def _flagged(raw: int | float, shown: TypedValue) -> TypedValue:
    """A stored number whose display adds a flag (`_FLAGGED`) is that number, with the flag
    kept in its text; any other text display stays text."""
    m = _FLAGGED.fullmatch(shown.text)
    if m is None:
        return shown
    number = parse_value(m["num"] or m["num2"])
    if number.kind != "number" or number.scale is not None or not _rounds_to(
            raw, number.number, False):
        return shown
    exact = int(raw) if isinstance(raw, float) and raw.is_integer() and abs(raw) < 1e15 else raw
    return TypedValue("number", exact, text=shown.text)


def _rounds_to(exact: int | float, shown: int | float, scientific: bool) -> bool:
    """Tell whether `shown` is `exact` rounded to the digits that `shown` was written with."""
    if not math.isfinite(exact):
        return False
    written = Decimal(repr(shown))
    if scientific:
        digits = len(written.normalize().as_tuple().digits)
        return float(f"{exact:.{digits - 1}e}") == shown
    places = max(0, -int(written.as_tuple().exponent))
    if round(exact, places) == shown:
        return True
    # A tie as written ("16.755" shown as "16.76"): spreadsheets round it away from zero, while
    # round() rounds the binary value, just below the tie, down.
    return round_half_up(exact, places) == shown


def shown_rounding(exact: int | float, text: str) -> int | float | None:
    """The plain number `text` shows when it is `exact` rounded ("257,285" of 257285.34),
    else None (another number, a percent or scaled form, or no rounding at all)."""
    shown = parse_value(text)
    if shown.kind != "number" or shown.number is None or shown.number == exact:
        return None
    return shown.number if _rounds_to(exact, shown.number, bool(_EXPONENT.search(shown.text))) \
        else None


# ---------------------------------------------------------------------------------------------
# Scale from headers and titles

_CONTEXT_SCALE = re.compile(
    r"(?<!\bper\s)\b(?P<word>(?:hundred|thousand|million|billion|trillion|lakh|crore)s?"
    r"|mn|mln|bn|bln|tn|trn)\b"
    rf"|(?:[$€£¥₹]|\b(?:US\$|HK\$|{_CODES}))\s?(?P<letter>k|mm|m|b)\b"
    r"|\((?P<paren>k)\)"
    rf"|(?<![\d.,'])(?P<lead>['$(£€¥₹]|\b(?:{_CODES})\s)?(?P<zeros>000(?:,000)*)(?P<trail>'?s)?"
    r"(?![\d,.])"
    rf"|单位:?\s*(?P<unit>{_CJK_SCALES})"
    rf"|(?P<cjk>{_CJK_SCALES})(?=元|美元|欧元|港元|日元|人民币|人|吨|户|股|辆|台|亩|千瓦)",
    re.IGNORECASE,
)


OWN_UNIT = re.compile(r"\((?:in\s+)?(?:years?|months?|weeks?|days?|hours?|%|percent|"
                      r"percentage|times|x|ratio)\)|%\s*$|^\s*%|%\s+of\b|\bper share\b|"
                      r"\b(?:percent|percentage|per cent|rates?|ratios?|median|per capita|"
                      r"index)\b|\bper\s+(?:1|10|100|1,?000|10,?000|100,?000)\b",
                      re.IGNORECASE)
"""A header's own unit that no amount scale multiplies ("(years)", "(%)", "per share",
"% of FY2023 total", "Percent of GERD", "Unemployment rate", "Median weekly earnings",
"per 100,000"): ingest leaves the title's scale ("[Numbers in thousands]") off its cells, and
the answer does not write it."""


MONEY_SCALE = re.compile(r"[$€£¥₹]|\b(?:usd|eur|gbp|jpy|cny|inr|dollars?|euros?|pounds? "
                         r"sterling)\b", re.IGNORECASE)
"""A title whose scale is one of money ("Investment shown in $ millions per MW")."""
PHYSICAL_UNIT = re.compile(
    r"\b(?:[kmgt]w|[kmgt]wh|tco2e?|ktco2e?|mtco2e?|tonnes?|tons?|kg|km|km2|m2|m3|ha|hectares?|"
    r"acres?|litres?|liters?|barrels?|bbl|mmbtu|btu|gj|tj|pj|miles?|kilometres?|kilometers?)\b",
    re.IGNORECASE)
"""A header's physical unit ("Capacity added (MW)", "Total MW"): its cells count megawatts,
not the money a title's "$ millions" scales."""


COUNTED_UNIT = re.compile(r"^\s*(?:units?|pieces|pcs|items|qty|quantity|headcount)\b",
                          re.IGNORECASE)
"""A header of counted things ("Units" beside "Value ($000)"): under a title whose scale is one
of money ("Value in $ thousands"), its cells are counts, which that scale does not multiply."""


def has_own_unit(levels: Iterable[str], context: str) -> bool:
    """Whether a column's header path states a unit that a title's scale does not multiply:
    its own unit (`OWN_UNIT`), a physical one ("(MW)") under a title whose scale is one
    of money ("$ millions"), or a physical unit other than the title's ("Yield (t/ha)",
    "Total (kt)" under "thousand tonnes")."""
    levels = list(levels)
    if any(OWN_UNIT.search(level) for level in levels):
        return True
    if PHYSICAL_UNIT.search(context) and not MONEY_SCALE.search(context):
        titled = {u.lower() for u in _MEASURE_UNIT.findall(context)}
        for level in levels:
            stated = _BRACKETED_UNIT.search(level)
            units = {u.lower() for u in _MEASURE_UNIT.findall(stated.group(1))} if stated else set()
            if units and not units <= titled:
                return True
    # ("Cost per ha", "Price ($/m2)": money per a unit, which the title's scale does multiply.)
    return bool(MONEY_SCALE.search(context)) and any(
        PHYSICAL_UNIT.search(bare := _PER_UNIT.sub(" ", level)) or COUNTED_UNIT.search(bare)
        for level in levels) \
        and not any(MONEY_SCALE.search(level) for level in levels)


_PER_UNIT = re.compile(r"(?:\bper\s+|/\s*)[^\s()]+", re.IGNORECASE)
_MEASURE_UNIT = re.compile(
    r"\b(?:[kmgt]?t|[kmgt]?w|[kmgt]?wh|t?co2e?|tonnes?|tons?|kg|g|km|km2|m|m2|m3|ha|hectares?|"
    r"acres?|litres?|liters?|l|barrels?|bbl|mmbtu|btu|gj|tj|pj|miles?|kilometres?|"
    r"kilometers?)\b", re.IGNORECASE)
"""A unit of measure, as a title or a header's brackets write it ("t/ha" is "t" per "ha").
Unlike `PHYSICAL_UNIT` it takes single letters ("m", "t", "g", "l"): that one searches whole
headers, where "$ m" is millions; this one reads only a bracket or a title."""
_BRACKETED_UNIT = re.compile(r"\(([^()]*)\)\s*$")


_TITLE_SENTENCE = re.compile(r"(?<=[A-Za-z)][A-Za-z)][.;])\s+")


def title_sentences(title: str) -> list[str]:
    """A title's sentences, the title itself first ("Headcount by site. Agency spend in GBP
    thousands."): a sentence ends after a word, not after a number ("Table 3. Employed ...")."""
    return _TITLE_SENTENCE.split(title)


def scale_from_context(text: str) -> float | None:
    """Find the multiplier a header or title states ("in thousands", "USD '000", "(亿元)").

    Return None when there is none, or when two different ones are stated (nothing is guessed).
    Rates are not scales: "deaths per thousand" gives None.
    """
    text = _normalise(text)
    clauses = [c for c in _CLAUSE_BREAK.split(text) if c.strip()]
    if len(clauses) > 1 and all(_STATES_A_UNIT.search(c) for c in clauses) and any(
            not _CONTEXT_SCALE.search(c) for c in clauses):
        # "Average price in thousand EUR; transactions in number": each clause gives its own
        # columns' unit, and the thousand is not every column's.
        return None
    found = {
        scale
        for m in _CONTEXT_SCALE.finditer(text)
        if (scale := _context_scale(m)) is not None and not _states_an_amount(text, m)
    }
    return found.pop() if len(found) == 1 else None


_CLAUSE_BREAK = re.compile(r"[;\n]")
_STATES_A_UNIT = re.compile(
    r"\b(?:units?|measured)\b|\bin\s+(?:thousands?|millions?|billions?|numbers?|units?|"
    r"persons|people|percent|per cent|%|eur|euros?|usd|dollars?|gbp|pounds?|\$|€|£|tonnes?|"
    r"tons?|hectares?|ha|kg|km|lsu|hours?|days?|weeks?|months?|years?)\b", re.IGNORECASE)
"""A clause that gives a unit ("transactions in number", "area in hectares"), not any "in"
("Employment in manufacturing")."""
_AFTER_A_QUANTITY = re.compile(r"(?:\d|\b(?:a|an|one)\b)\s?$", re.IGNORECASE)
_AFTER_A_YEAR = re.compile(r"(?<![\d.,$€£¥₹])(?:1[89]|20)\d\d\s?$")


def _states_an_amount(text: str, m: re.Match[str]) -> bool:
    """Whether a scale word follows a number or "a" ("was $7.9 million" in a note, "more than
    a million visitors" on a page): it multiplies that quantity, and says nothing of the
    table's unit. A year before it ("Population 2021 thousands") is no quantity, and "£m"
    multiplies no number before its symbol ("Spending 2020 £m")."""
    before = text[:m.start()]
    return bool(m["word"] and _AFTER_A_QUANTITY.search(before)
                and not _AFTER_A_YEAR.search(before))


def _context_scale(m: re.Match[str]) -> float | None:
    """Return the multiplier one context match states."""
    if m["zeros"]:
        # "'000", "$000", "(000)", "000s" state thousands; a bare "000" states nothing.
        return 1000.0 ** (m["zeros"].count(",") + 1) if m["lead"] or m["trail"] else None
    token = m[m.lastgroup].lower()
    return _SCALES[token if token in _SCALES else token.removesuffix("s")]


def apply_context_scale(v: TypedValue, scale: float, source: str) -> TypedValue:
    """Return `v` with a header's or title's scale, unless the cell wrote its own.

    Only amounts take a context scale: numbers, currency and ranges that are not percents. A
    percent, date, year, ordinal or duration under "(in millions)" is left as it is.
    """
    if source not in ("header", "title"):
        raise ValueError(f"scale source must be 'header' or 'title', not {source!r}")
    if v.scale is not None or v.kind not in ("number", "currency", "range") or v.unit == "%":
        return v
    if v.kind == "range" and v.date:  # a year range is not an amount
        return v
    return v._replace(scale=scale, scale_source=source)
