"""Render a cell's value the way a spreadsheet shows it, for the common number formats.

Only what reports use is covered: General, fixed decimals, thousands separators, percentages,
currency/literal prefixes and suffixes, accounting negatives in parentheses, thousands scaling by
trailing commas, text sections ("@", which numbers never use), and dates/times. Anything else
falls back to General, which never loses digits.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import ROUND_HALF_UP, Context, Decimal
from functools import lru_cache

_LITERAL = re.compile(r'"([^"]*)"|\\(.)|\[\$([^\]-]*)(?:-[0-9A-Fa-f]+)?\]|_.|\*.|\[[^\]]*\]')
_DATE_TOKENS = re.compile(r"yyyy|yy|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am/pm|a/p",
                          re.IGNORECASE)


def format_value(value: object, number_format: str | None) -> str:
    """Return the display text of a cell value under an Excel number format."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (dt.datetime, dt.date, dt.time, dt.timedelta)):
        return _format_temporal(value, number_format)
    if isinstance(value, (int, float)):
        if not number_format or number_format == "General":
            return general(value)
        return _numeric_formatter(number_format)(value)
    return str(value)


def general(value: int | float) -> str:
    """Format a number like Excel's General format (at most 11 significant digits)."""
    if value.__class__ is not float and isinstance(value, int):
        return str(value)
    # ".11g" writes NaN and infinities as str() does ("nan", "inf", "-inf"), so they need no
    # test of their own. A sheet's numbers are written out each time their cell's text is
    # read (`ingest.grid`), so this runs about twice a cell.
    if value.is_integer() and -1e15 < value < 1e15:
        return str(int(value))
    text = f"{value:.11g}"
    if "e" in text:
        mantissa, exp = text.split("e")
        return f"{mantissa}E{int(exp):+03d}"
    return text


@lru_cache(maxsize=512)
def _numeric_formatter(number_format: str):
    """Compile a number format into a function of the value (cached per format code)."""
    # A section holding the text placeholder @ applies to text only (Excel puts it last, as in
    # "0;-0;0;@"); a number never uses it, and a format that is only "@" shows numbers as General.
    sections = [s for s in _split_sections(number_format) if not _is_text_section(s)]
    if not sections:
        return general
    positive = _compile_section(sections[0])
    negative = _compile_section(sections[1]) if len(sections) > 1 else None
    zero = _compile_section(sections[2]) if len(sections) > 2 else None

    def render(value: int | float) -> str:
        if value < 0 and negative is not None:
            return negative(-value)
        if value == 0 and zero is not None:
            return zero(0)
        return positive(value)

    return render


def _half_up(number: int | float, decimals: int) -> int | float:
    """Move a number written as a tie ("77.25" to one decimal) off it, away from zero.

    Excel rounds a tie away from zero (77.25 shows as 77.3); Python's format rounds the binary
    value half to even (77.2). Ties are rare, so only they take the Decimal path.
    """
    if isinstance(number, int):
        return number
    written = repr(number)
    point = written.find(".")
    if point < 0 or "e" in written or len(written) - point - 1 != decimals + 1 \
            or written[-1] != "5":
        return number
    return round_half_up(number, decimals)


_WIDE = Context(prec=700)
"""Digits enough for any float at any shown precision: the default 28 cannot hold 1e28 to
the unit, and quantize then raises instead of rounding."""


def round_half_up(number: int | float, places: int) -> float:
    """A number rounded as a spreadsheet shows it: its decimal form, a tie away from zero."""
    if not math.isfinite(number):
        return number
    return float(Decimal(repr(number)).quantize(Decimal(1).scaleb(-places),
                                                rounding=ROUND_HALF_UP, context=_WIDE))


def _is_text_section(section: str) -> bool:
    """Whether a format section holds the text placeholder @ outside quotes and escapes."""
    return "@" in section and "@" in _LITERAL.sub("", section)


def _split_sections(code: str) -> list[str]:
    """Split a format code on ';' outside quotes."""
    sections, current, quoted = [], [], False
    for ch in code:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            sections.append("".join(current))
            current = []
        else:
            current.append(ch)
    sections.append("".join(current))
    return sections


def _compile_section(section: str):
    """Compile one section: literals around a digit pattern."""
    # Literal text is kept as written; layout codes (_x, *x) and colour tags are dropped.
    pieces: list[str] = []
    last = 0
    for match in _LITERAL.finditer(section):
        pieces.append(section[last:match.start()])
        quoted, escaped, currency = match.group(1), match.group(2), match.group(3)
        pieces.append("\x00" + (quoted or escaped or currency or "") + "\x01")
        last = match.end()
    pieces.append(section[last:])
    code = "".join(pieces)
    digits = re.search(r"[0#?][0#?,.]*|[.][0#?]+", re.sub(r"\x00[^\x01]*\x01", "", code))
    if digits is None:  # a text-only section such as "-" for zero
        text = re.sub(r"\x00([^\x01]*)\x01", r"\1", code)
        return lambda value: text
    pattern = digits.group(0)
    percent = "%" in re.sub(r"\x00[^\x01]*\x01", "", code)
    int_part, _, frac_part = pattern.partition(".")
    stripped_int = int_part.rstrip(",")
    scale = 1000 ** (len(int_part) - len(stripped_int))
    thousands = "," in stripped_int
    decimals = sum(1 for ch in frac_part if ch in "0#?")
    min_decimals = sum(1 for ch in frac_part if ch == "0")
    before, _, after = code.partition(pattern)
    prefix = re.sub(r"\x00([^\x01]*)\x01", r"\1", before)
    suffix = re.sub(r"\x00([^\x01]*)\x01", r"\1", after)

    def render(value: int | float) -> str:
        number = value * 100 if percent else value
        number = _half_up(number / scale, decimals)
        text = f"{number:,.{decimals}f}" if thousands else f"{number:.{decimals}f}"
        if decimals > min_decimals and "." in text:
            keep = len(text) - (decimals - min_decimals)
            text = text[:keep] + text[keep:].rstrip("0")
            text = text.rstrip(".")
        return f"{prefix}{text}{suffix}"

    return render


def _format_temporal(value: dt.datetime | dt.date | dt.time | dt.timedelta,
                     number_format: str | None) -> str:
    """Render dates and times with the format's tokens, or ISO when there is no usable format."""
    if isinstance(value, dt.timedelta):
        total = int(value.total_seconds())
        return f"{total // 3600}:{total % 3600 // 60:02d}:{total % 60:02d}"
    code = _LITERAL.sub(lambda m: m.group(1) or m.group(2) or "", number_format or "")
    if not code or code == "General" or not _DATE_TOKENS.search(code):
        return _iso(value)
    return _DATE_TOKENS.sub(lambda m: _date_token(value, m.group(0), code, m.start()), code)


def _iso(value: dt.datetime | dt.date | dt.time) -> str:
    if isinstance(value, dt.datetime) and value.time() == dt.time(0):
        return value.date().isoformat()
    return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()


def _date_token(value, token: str, code: str, pos: int) -> str:
    """Render one date/time token; 'm' means minutes right after an hour or before seconds."""
    t = token.lower()
    date = value if isinstance(value, dt.date) else None
    time = value.time() if isinstance(value, dt.datetime) else (value if isinstance(value, dt.time)
                                                                else dt.time(0))
    if t in ("m", "mm") and _is_minute(code, pos, len(token)):
        return f"{time.minute:02d}" if t == "mm" else str(time.minute)
    if date is not None:
        if t == "yyyy":
            return f"{date.year:04d}"
        if t == "yy":
            return f"{date.year % 100:02d}"
        if t == "mmmmm":
            return date.strftime("%B")[0]
        if t == "mmmm":
            return date.strftime("%B")
        if t == "dddd":
            return date.strftime("%A")
        if t == "ddd":
            return date.strftime("%a")
        if t == "mmm":
            return date.strftime("%b")
        if t == "mm":
            return f"{date.month:02d}"
        if t == "m":
            return str(date.month)
        if t == "dd":
            return f"{date.day:02d}"
        if t == "d":
            return str(date.day)
    twelve = "am/pm" in code.lower() or "a/p" in code.lower()
    hour = (time.hour % 12 or 12) if twelve else time.hour
    return {"hh": f"{hour:02d}", "h": str(hour), "ss": f"{time.second:02d}", "s": str(time.second),
            "am/pm": "AM" if time.hour < 12 else "PM",
            "a/p": "A" if time.hour < 12 else "P"}.get(t, token)


def _is_minute(code: str, pos: int, length: int) -> bool:
    before = code[:pos].lower().rstrip(": ")
    after = code[pos + length:].lower().lstrip(": ")
    return before.endswith(("h", "hh")) or after.startswith("s")
