"""Write a computed number the way its cited cells are written, with its unit and scale.

Pure functions, no I/O. The answer's display text follows the cells it was computed from: the
same thousands separators, the decimals they show (an average one more), the same currency
symbol or percent sign; the unit and scale the column's header path or the table's title
state ("MtCO2e", "£ billion", "in thousands") are written after the number. The raw computed
value is never changed: it stays in `Answer.values` for scorers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent import stop
from agent.frame import Attr, Value
from agent.grounding import naming_path
from ingest.values import (
    FOOTNOTE_MARK,
    scale_from_context,
    shown_rounding,
)

_NUMERAL = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")
_SPACE_GROUPS = "\u00a0\u202f "
_WRITTEN_NUMERAL = re.compile(rf"\d{{1,3}}(?:[{_SPACE_GROUPS}]\d{{3}})+(?![\d,])(?:\.\d+)?"
                              rf"|{_NUMERAL.pattern}")
"""A number as cells write it, grouped by spaces too ("8 000", "858 209"): read as "8" and a
suffix " 000", a sum would be written "12000 000"."""
_SIGNS = "-+−–()\u00a0 "
_TRAILING_GROUP = re.compile(r"[(\[]([^()\[\]]+)[)\]]\s*$")
_YEARISH = re.compile(r"\b(1[89]\d\d|20\d\d)\b|^\s*\d+\s*$")
_SCALE_WORDS = {1e2: "hundred", 1e3: "thousand", 1e4: "万", 1e5: "lakh", 1e6: "million",
                1e7: "crore", 1e8: "亿", 1e9: "billion", 1e12: "trillion"}
_CURRENCY_SYMBOLS = frozenset("$€£¥₹₩₽")


@dataclass(frozen=True)
class CellForm:
    """How a set of cells writes its numbers."""

    prefix: str = ""
    """Text before the number all cells share ("$", "£"), signs and brackets left out."""
    suffix: str = ""
    """Text after the number all cells share ("%", " million", " kg")."""
    separators: bool | None = None
    """Thousands separators: True when the cells use them, False when they write numbers of
    five digits or more without them, None when no cell is big enough to tell."""
    decimals: int = 0
    """The most decimals any cell shows."""
    group: str = ","
    """The thousands separator the cells write: "," or a space ("1 234"), "." with a decimal
    comma."""
    point: str = "."
    """The decimal mark: "," when the cells write "98,40" (a semicolon CSV's numbers)."""


_AFTER_THE_FIGURE = re.compile(r"(?<=\d)(?:\s*\([^()]*\d[^()]*\)|\s*\[[^\]]{1,8}\]|\s*[*†‡§¶]+|"
                               r"[rpe](?![^\W\d_]))+\s*$")
"""What some cells write after their figure and no computed number shares: the same figure
in another unit or as a share ("96 (3.78)", "1,234 (56%)"), a footnote mark ("[a]", "*") or
a statistics office's flag ("91.4r" revised, "201.3p" provisional)."""


def cell_form(texts: Sequence[str]) -> CellForm:
    """Read the written form of cells' numbers (texts that hold no numeral are skipped)."""
    prefixes: set[str] = set()
    suffixes: set[str] = set()
    decimals = 0
    grouped = ungrouped = False
    group, point = ",", "."
    shapes = [_AFTER_THE_FIGURE.sub("", t) for t in stop.checked(_one_per_shape(texts))]
    if _writes_decimal_comma(shapes):
        group, point = ".", ","
    for text in shapes:
        m = (_COMMA_NUMERAL if point == "," else _WRITTEN_NUMERAL).search(text)
        if m is None:
            continue
        numeral = m.group(0)
        if point == ",":
            # Read "1.234,5" as "1,234.5": the rest of the reading is the same.
            numeral = numeral.replace(".", "\0").replace(",", ".").replace("\0", ",")
        if spaced := set(numeral) & set(_SPACE_GROUPS):
            group = spaced.pop()
            numeral = numeral.replace(group, ",")
        prefixes.add(text[:m.start()].strip(_SIGNS))
        suffixes.add(text[m.end():].rstrip(_SIGNS).rstrip())
        if "." in numeral:
            decimals = max(decimals, len(numeral.split(".")[1]))
        whole = numeral.split(".")[0]
        if "," in whole:
            grouped = True
        elif len(whole) > 4:
            # "18000": written without separators on purpose. Four digits ("1800") tell
            # nothing: reports and CSV files alike write them bare and still group larger ones.
            ungrouped = True
    return CellForm(prefix=_shared(prefixes, _FLAG_BEFORE), suffix=_shared(suffixes),
                    separators=True if grouped else False if ungrouped else None,
                    decimals=decimals, group=group, point=point)


_COMMA_NUMERAL = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+(?:,\d+)?")
"""A number written with a decimal comma ("1.234,5", "98,40")."""
_COMMA_DECIMAL = re.compile(r"(?<![\d.,])(?:\d{1,3}(?:\.\d{3})+,\d+|\d+,(?:\d{1,2}|\d{4,}))"
                            r"(?![\d.,])")
"""A decimal comma no thousands separator could be (not three digits after it)."""


def _writes_decimal_comma(texts: Sequence[str]) -> bool:
    """Whether the cells write decimal commas: one at least unambiguously ("98,40"), and
    none a decimal point ("98.40")."""
    return any(_COMMA_DECIMAL.search(t) for t in texts) and not any(
        re.search(r"(?<![\d.,])\d+\.\d{1,2}(?![\d.,])", t) for t in texts)


DIGITS_AS_NINE = str.maketrans("0123456789", "9" * 10)


def _one_per_shape(texts: Sequence[str]) -> list[str]:
    """The texts that tell `cell_form` something new: one per shape (digits as 9: "1,234.5"
    and "8,802.1" read the same), except that a shape with a digit after its first numeral
    ("12 of 30") keeps all its texts, since that suffix is read as written. A tall column's
    20,000 texts have a handful of shapes; reading each one cost 50 ms per aggregate."""
    by_shape: dict[str, list[str]] = {}
    for text in texts:
        by_shape.setdefault(text.translate(DIGITS_AS_NINE), []).append(text)
    out: list[str] = []
    for shape, same in by_shape.items():
        out.extend(same[:1] if one_text_tells(shape) else same)
    return out


def one_text_tells(shape: str) -> bool:
    """Whether one text of a shape (digits as 9) tells `cell_form` what all of its texts do:
    not when a digit follows its first numeral ("12 of 30")."""
    m = _WRITTEN_NUMERAL.search(shape)
    return m is None or "9" not in shape[m.end():]


_FLAG_AFTER = re.compile(r"\([A-Za-z]{1,2}\)?|[*†‡§#]{1,3}")  # ")" may be cut as a sign
_FLAG_BEFORE = re.compile(rf"[A-Za-z]|{_FLAG_AFTER.pattern}")
"""A statistical flag a number format writes beside the number ("D 114,903", "12 (e)",
"7 *"): it marks the cell, not a computed number, so a sum of flagged cells goes without it.
A letter after the number is a scale or unit ("12 m", "5 kg"), and two before may be a
currency ("Rs 500"): those stay."""


def _shared(parts: set[str], flag: re.Pattern[str] = _FLAG_AFTER) -> str:
    """The one non-empty affix the cells use (some cells may leave it out), flags aside,
    else ""."""
    written = {p for p in parts if p and not flag.fullmatch(p.strip())}
    return written.pop() if len(written) == 1 else ""


def format_number(n: float | int, form: CellForm, extra_decimals: int = 0) -> str:
    """Write `n` as the cells write their numbers. With `extra_decimals` (an average) up to
    that many more decimals are shown; zeros past the cells' own decimals are dropped."""
    # Cells too small to tell: separate from five digits up ("1070", "6,891,168").
    grouped = form.separators if form.separators is not None else abs(n) >= 10_000
    separator = "," if grouped else ""
    text = f"{abs(n):{separator}.{form.decimals + extra_decimals}f}"
    if extra_decimals:
        whole, _, fraction = text.partition(".")
        fraction = fraction[:form.decimals] + fraction[form.decimals:].rstrip("0")
        text = whole + ("." + fraction if fraction else "")
    if form.point == ",":
        text = text.replace(",", "\0").replace(".", ",").replace("\0", ".")
    else:
        text = text.replace(",", form.group)
    sign = "-" if n < 0 and any(c in "123456789" for c in text) else ""
    return f"{sign}{form.prefix}{text}{form.suffix}"


def header_unit(attr: Attr) -> str | None:
    """The unit a column's header path states: a trailing level that only states a unit
    ("$ million", "%", "(in thousands)"), else a bracketed end of a header ("Emissions
    (MtCO2e)", "Revenue [£ billion]"); None when it states none."""
    path = tuple(p for p in attr.path if p)
    named = naming_path(path)
    stripped = " ".join(path[len(named):])
    if stripped and _states_unit(stripped):
        return _clean(stripped)
    for level in reversed(named):
        m = _TRAILING_GROUP.search(level)
        if m and _unit_like(m.group(1)) and not _GRADE.fullmatch(level[:m.start()].strip()):
            return _clean(m.group(1))
    return None


_GRADE = re.compile(r"[A-Z][A-Z0-9+\-]?")
"""A grade or class named by a letter ("A", "B+", "C1"), whose bracket describes it ("A (low)",
"D (watch)"): no unit."""


def _unit_like(text: str) -> bool:
    """A bracketed header part that can be a unit: a few words, none a number or a year,
    no comparison and no qualifier of the figures ("MtCO2e", "£ billion", "% of GDP"; not
    "2019", "total population 838.14 million", "age <15", "total", "est.")."""
    parts = text.split()
    return 0 < len(parts) <= 3 and not _YEARISH.search(text) and not any(
        _NUMERAL.fullmatch(p.strip(",;")) for p in parts) and not set(text) & set("<>=≤≥") \
        and not _QUALIFIER.fullmatch(text.strip(" .*"))


_QUALIFIER = re.compile(r"(?:total|totals|sum|est|estimated?|approx|approximate|provisional|"
                        r"revised|projected|forecast|actual|average|avg|mean|median|"
                        r"notes?|see notes?|number|numbers|no\.?|count|[abcdepr]|"
                        r"loss|losses|deficit|expense|expenses|income|gain|gains|benefit|"
                        r"provision|deficiency|decrease|increase)",
                        re.IGNORECASE)
"""Bracketed words that say how a figure was made or that it counts ("(number)"), not what it
measures, footnote or flag letters ("(e)" estimated, "(p)" provisional), and the name of a
negative figure ("Operating income (loss)", "Other income (expense)"); "(s)", "(m)" and "(g)"
stay units."""
_EXCEPTION = re.compile(r"[,;]?\s*\b(?:except|excluding|other than|unless)\b.*$", re.IGNORECASE)
""""(in thousands, except percentages)": the exception is about other cells."""


_QUANTITY = re.compile(r"\d[\d,.]*\s*(?:thousand|million|billion|trillion|bn|mn|[kmb])\b",
                       re.IGNORECASE)


def _states_scale(text: str) -> bool:
    """True when a header or title states a scale ("in thousands", "$ million") and does not
    merely hold a quantity that has a scale word ("838.14 million")."""
    return scale_from_context(text) is not None and not _QUANTITY.search(text)


def _clean(text: str) -> str:
    return _EXCEPTION.sub("", text.strip().strip("()[]")).strip()


_CURRENCY_WORDS = re.compile(r"\b(?:usd|eur|gbp|rmb|cny|jpy|yuan|yen|dollars?|euros?|pounds?)\b",
                             re.IGNORECASE)
_SCALE_STATEMENT = re.compile(r"\b(?:in|of|units?|amounts?)\b"
                              r"|\b(?:thousand|million|billion|trillion)s?\b"
                              r"|['’‘]?0{3}s?|\b(?:k|mn|bn|m)\b|[()\[\]:,]", re.IGNORECASE)


def states_currency(text: str) -> bool:
    """Whether a unit, header or title names a currency ("$", "USD", "dollars")."""
    return bool(set(text) & _CURRENCY_SYMBOLS or _CURRENCY_WORDS.search(text))


_LEADING_IN = re.compile(r"^(?:in|expressed in|measured in)\s+", re.IGNORECASE)


def _states_unit(text: str) -> bool:
    """True for a header level that states a unit or scale ("$ million", "%", "(in
    thousands)"), not for one of the other words `naming_path` passes over ("Amount")."""
    return bool(set(text) & (_CURRENCY_SYMBOLS | {"%"}) or _CURRENCY_WORDS.search(text)
                or scale_from_context(text) is not None)


_PERCENT_UNIT = re.compile(r"%|percent(?:age)?|per cent|pct\.?|in %|in percent", re.IGNORECASE)


def unit_phrase(values: Sequence[Value], attrs: Sequence[Attr], form: CellForm) -> str | None:
    """What to write beside the number: the unit the header path states and the scale a
    header or the title states ("$ thousand", "thousand", "MtCO2e"), leaving out what the
    cells write themselves. A scale applies to amounts only, never to percents."""
    header = {u for a in attrs if (u := header_unit(a))}
    unit = header.pop() if len(header) == 1 else None
    # A header "Change (%)" makes its plain cells percents: no "(USD thousands)" scale.
    amounts = bool(values) and "%" not in form.suffix and all(
        v.kind in ("number", "currency") and v.unit != "%" for v in values) and not (
        unit is not None and _PERCENT_UNIT.fullmatch(unit.strip()))
    scales = {(v.scale, v.scale_source) for v in values}
    scale, source = next(iter(scales)) if len(scales) == 1 else (None, None)
    scale = scale if source in ("header", "title") else None
    if scale is not None and source == "header" and not any(
            _states_scale(level) for a in attrs for level in a.path):
        scale = None  # "(total population 838.14 million)" is a quantity, not a scale
    # (The unit was cleaned of its brackets: "(GBP 000)" states thousands, "GBP 000" alone
    # would not.)
    if unit is not None and (stated := scale_from_context(unit)
                             or scale_from_context(f"({unit})")) is not None:
        # "$'000", "dollars in thousands", "Amounts in millions": a unit and a scale.
        scale = scale or stated
        unit = " ".join(_SCALE_STATEMENT.sub(" ", unit).split()) or None
    if unit is not None and not amounts and states_currency(unit):
        unit = None  # a percent of a money column ("% of revenue" under "dollars")
    if unit is not None:
        unit = _LEADING_IN.sub("", unit) or None  # "(in years)": the unit is "years"
    word = _SCALE_WORDS.get(scale) if amounts and scale else None
    written = (form.prefix + form.suffix).replace(" ", "")
    if unit is not None and (unit.replace(" ", "") in written
                             or form.prefix and _CURRENCY_WORDS.fullmatch(unit)):
        unit = None  # the cells write it already ("%", "$" beside "dollars")
    if unit and word:
        return f"{unit} {word}" if unit in _CURRENCY_SYMBOLS else f"{word} {unit}"
    return unit or word


def with_unit(number_text: str, unit: str | None) -> str:
    """Put a unit phrase beside a written number: "£1,234.5 billion", "12.5%", "405.5 MtCO2e"."""
    if not unit:
        return number_text
    if unit == "%":
        return number_text + "%"
    head, _, rest = unit.partition(" ")
    if head in _CURRENCY_SYMBOLS and not number_text.lstrip("-").startswith(head):
        sign = "-" if number_text.startswith("-") else ""
        return f"{sign}{head}{number_text.lstrip('-')}" + (f" {rest}" if rest else "")
    return f"{number_text} {unit}"


def answer_unit(values: Sequence[Value], attrs: Sequence[Attr], form: CellForm) -> str | None:
    """The unit the answer states, for `Answer.unit`: the header's (with its scale) or the
    cells' own unit ("%", "USD", "kg")."""
    phrase = unit_phrase(values, attrs, form)
    units = {v.unit for v in values if v.unit}
    cell = units.pop() if len(units) == 1 else None
    if phrase and cell and cell not in phrase:
        return f"{cell} {phrase}" if cell in _CURRENCY_SYMBOLS else phrase
    return phrase or cell


def shown(n: float | int, values: Sequence[Value], attrs: Sequence[Attr],
          extra_decimals: int = 0, form: CellForm | None = None) -> str:
    """The display text of a number computed from `values` (cells of columns `attrs`);
    `form` is their `cell_form` when the caller has it already."""
    form = form or cell_form([v.text for v in values])
    return with_unit(format_number(n, form, extra_decimals),
                     unit_phrase(values, attrs, form))


_CLOCK_DECIMALS = re.compile(r":\d\d[.,](\d+)\s*$")


def as_clock_time(seconds: float | int, texts: Sequence[str]) -> str:
    """Seconds computed from times written "2:07:41" or "1:45.32", written the same way (an
    average finish time is "2:17:26", not 8246): hours when the cells have them or the
    result reaches one, and as many decimals of a second as the cells show."""
    decimals = max((len(m.group(1)) for t in texts if (m := _CLOCK_DECIMALS.search(t))),
                   default=0)
    sign = "-" if seconds < 0 else ""
    total = round(abs(seconds), decimals)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    width = 3 + decimals if decimals else 2
    sec_text = f"{secs:0{width}.{decimals}f}"
    if hours or any(t.count(":") >= 2 for t in texts):
        return f"{sign}{int(hours)}:{int(minutes):02d}:{sec_text}"
    return f"{sign}{int(minutes)}:{sec_text}"


def read_as_written(value: Value, attr: Attr) -> str:
    """The display text of a cell read as it is: its text, with the header's unit."""
    if not value.numeric:
        return value.text
    text = FOOTNOTE_MARK.sub("", value.text).rstrip()
    form = cell_form([text])
    return with_unit(text, unit_phrase([value], [attr], form))


def as_written(value: Value) -> float | int | None:
    """A cell's number as the source shows it, when its format rounds a longer stored value.

    A workbook can store 257285.339936 and show "257,285": a person reading the report reads
    257,285, and an answer that reads one cell should say what they see. Only a plain
    rounding counts (`ingest.values.shown_rounding`): a text that is not a rounding of the
    stored number (a formula's stale text, a scaled or percent form) leaves the stored number.
    """
    if value.number is None or value.kind != "number":
        return value.number
    shown = shown_rounding(value.number, value.text)
    return value.number if shown is None else shown


_PLACES = re.compile(r"\b(one|two|three|four|[1-4])\s+decimal(?:\s+places?|s)\b", re.IGNORECASE)
_PLACES_IN_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}
_SHOWN_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def asked_places(instructions: Sequence[str]) -> int | None:
    """The decimal places an answer instruction asks for ("(Accurate to two decimal
    places)" -> 2), else None."""
    for text in instructions:
        if m := _PLACES.search(text):
            word = m.group(1).lower()
            return _PLACES_IN_WORDS.get(word) or int(word)
    return None


def to_places(display: str, value: float | int, places: int) -> str:
    """An answer's text with its one number written to `places` decimals, as the question
    asked ("907.9" -> "907.88"); the text as it is when it holds other than one number, or a
    number that is not the value (a scaled or converted form)."""
    found = list(_SHOWN_NUMBER.finditer(display))
    if len(found) != 1:
        return display
    m = found[0]
    shown = float(m.group().replace(",", ""))
    if abs(shown - value) > max(abs(value) * 0.01, 10 ** -places):
        return display
    written = f"{value:,.{places}f}" if "," in m.group() else f"{value:.{places}f}"
    return display[:m.start()] + written + display[m.end():]
