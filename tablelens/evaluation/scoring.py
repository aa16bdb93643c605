"""Judge a predicted answer against a gold answer, by the rules of shared/bench/README.md.

The matching is denotation-style, in the spirit of the official WikiTableQuestions evaluator:

* Prediction and gold are compared as sets of items: every gold item must be matched by some
  predicted item and every predicted item must match some gold item (duplicates collapse).
* A single string on one side and a list on the other: the string is split into items
  ("1955, 62170"); two single strings that both read as lists are compared as sets too (the
  README's ranking answers "1 mg/L, 5 mg/L, 0 mg/L").
* Two items that both read as numbers (`ingest.values.parse_value`: "$", "%", thousands
  separators, "(1,234)", scale words "thousand", "k", "bn", "万", "亿") are compared by value;
  a unit written beside the number ("people", "$", "%") is not compared. A gold with d decimals
  accepts any prediction that rounds to it; an integer gold must be matched exactly.
* Two items that both read as dates are compared as (year, month, day); WTQ's canonical
  "xxxx-10-17" reads as (None, 10, 17), like "October 17".
* Anything else is compared as text after NFKC, casefold and removing punctuation.
* `scale` (TAT-QA) also accepts the gold number times its scale, and a fraction for "percent".
* `canon` (WTQ) holds an alternative spelling of each gold item, also accepted.
* `lenient` also accepts a number written without some of the gold's unit words (including its
  scale word: "587.81" for "587.81 million yuan") and ignores a leading article.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from ingest.values import TypedValue, parse_value

__all__ = ["SCALES", "match"]

Prediction = str | float | int | list[str | float | int | None] | None

SCALES: dict[str, Decimal] = {
    "": Decimal(1),
    "thousand": Decimal(1000),
    "million": Decimal(10) ** 6,
    "billion": Decimal(10) ** 9,
    # A percent gold of 12.5 also accepts the fraction 0.125: the gold is in hundredths.
    "percent": Decimal("0.01"),
}
"""TAT-QA's gold scales and the multiplier each one also accepts."""

_SCALE_WORDS = {
    Decimal(10) ** 3: "thousand",
    Decimal(10) ** 4: "万",
    Decimal(10) ** 6: "million",
    Decimal(10) ** 8: "亿",
    Decimal(10) ** 9: "billion",
    Decimal(10) ** 12: "trillion",
}

_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_WTQ_DATE = re.compile(r"(\d{4}|xxxx)-(\d{2}|xx)-(\d{2}|xx)")
_ISO_DATE = re.compile(r"(?:(\d{4})|-)(?:-(\d{2}))?(?:-(\d{2}))?")
_DECIMALS = re.compile(r"\d*\.(\d+)")
_LIST_SEPARATOR = r"[;|\n]|,(?!\d{3}(?!\d))"  # a comma inside "12,790,000" is not a separator
_SPLITTERS = (
    re.compile(rf"\s*(?:{_LIST_SEPARATOR})\s*"),
    re.compile(rf"\s*(?:{_LIST_SEPARATOR}|,?\s+and\s+|\s*&\s*)\s*", re.IGNORECASE),
)

DateTuple = tuple[int | None, int | None, int | None]
GoldItem = tuple[str, ...]
"""One gold item with its accepted spellings (the answer and, for WTQ, its canonical form)."""


@dataclass(frozen=True, slots=True)
class _Number:
    """A number as written, its scale, the words written with it and its decimal places."""

    number: Decimal
    scale: Decimal
    words: frozenset[str]
    decimals: int

    def value(self) -> Decimal:
        return self.number * self.scale


@dataclass(frozen=True, slots=True)
class _Reading:
    """Every way one item can be compared: folded text, numbers, and a date."""

    texts: frozenset[str]
    numbers: tuple[_Number, ...]
    date: DateTuple | None


@dataclass(frozen=True, slots=True)
class _Judge:
    """The rules that hold for one question: extra gold multipliers and leniency."""

    multipliers: tuple[Decimal, ...]
    lenient: bool

    def same(self, predicted: str, gold: str) -> bool:
        """Tell whether one predicted item denotes the same value as one gold spelling."""
        pred, want = _read(predicted, self.lenient), _read(gold, self.lenient)
        if pred.numbers and want.numbers:
            return any(self._same_number(p, g) for p in pred.numbers for g in want.numbers)
        if pred.date and want.date:
            return pred.date == want.date
        return bool(pred.texts & want.texts)

    def _same_number(self, pred: _Number, gold: _Number) -> bool:
        value = pred.value()
        if any(_rounds_to(value / (gold.scale * m), gold) for m in self.multipliers):
            return True
        # Lenient: the number as written, when the prediction only drops some of the gold's
        # unit words ("587.81" or "587.81 yuan" for "587.81 million yuan").
        return self.lenient and pred.words <= gold.words and _rounds_to(pred.number, gold)


def match(prediction: Prediction, gold: list[str], *, canon: list[str] | None = None,
          scale: str = "", lenient: bool = False) -> bool:
    """Return whether the prediction denotes the gold answer (see the module docstring).

    `gold` holds every item of a multi-item answer (not alternatives); `canon`, when given,
    holds an accepted alternative spelling of each item; `scale` is TAT-QA's gold scale
    ("", "thousand", "million", "billion" or "percent"). Raises ValueError for another scale.
    """
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r}; expected one of {sorted(SCALES)}")
    predicted = _prediction_items(prediction)
    if not predicted or not gold:
        return False
    judge = _Judge(multipliers=tuple({Decimal(1), SCALES[scale]}), lenient=lenient)
    return any(_sets_match(predicted, items, judge) for items in _gold_readings(gold, canon))


def _prediction_items(prediction: Prediction) -> list[str]:
    """Turn a prediction into its non-empty items, as text."""
    if prediction is None:
        return []
    raw = prediction if isinstance(prediction, list) else [prediction]
    items = [_as_text(item) for item in raw if item is not None]
    return [item for item in items if item]


def _as_text(item: str | float | int) -> str:
    return item.strip() if isinstance(item, str) else str(item)


def _gold_readings(gold: list[str], canon: list[str] | None) -> list[list[GoldItem]]:
    """List the gold answers to try: items paired with their canonical spelling when given."""
    if not canon:
        return [[(item,) for item in gold]]
    if len(canon) == len(gold):
        return [list(zip(gold, canon, strict=True))]
    # Not one canonical form per item: the canonical list is a whole alternative answer.
    return [[(item,) for item in gold], [(item,) for item in canon]]


def _sets_match(predicted: list[str], gold: list[GoldItem], judge: _Judge) -> bool:
    """Compare the items as sets, trying the splits of a single string against a list."""
    return any(_covers(p, g, judge) for p, g in _arrangements(predicted, gold))


def _arrangements(predicted: list[str], gold: list[GoldItem]
                  ) -> Iterator[tuple[list[str], list[GoldItem]]]:
    """Yield the item lists as given, then with a single string split into items."""
    yield predicted, gold
    pred_splits = _splits(predicted[0]) if len(predicted) == 1 else []
    gold_splits = ([[(piece,) for piece in split] for spelling in gold[0]
                    for split in _splits(spelling)] if len(gold) == 1 else [])
    if len(gold) > 1:
        yield from ((split, gold) for split in pred_splits)
    if len(predicted) > 1:
        yield from ((predicted, split) for split in gold_splits)
    if len(predicted) == 1 and len(gold) == 1:
        yield from ((p, g) for p in pred_splits for g in gold_splits)


def _splits(text: str) -> list[list[str]]:
    """Return the ways to read a string as a list: at commas etc., then also at "and"."""
    found: list[list[str]] = []
    for splitter in _SPLITTERS:
        pieces = [piece for piece in splitter.split(text) if piece.strip()]
        if len(pieces) > 1 and pieces not in found:
            found.append(pieces)
    return found


def _covers(predicted: list[str], gold: list[GoldItem], judge: _Judge) -> bool:
    """Tell whether every gold item is predicted and every predicted item is in the gold."""

    def same(pred: str, item: GoldItem) -> bool:
        return any(judge.same(pred, spelling) for spelling in item)

    return (all(any(same(p, g) for p in predicted) for g in gold)
            and all(any(same(p, g) for g in gold) for p in predicted))


def _rounds_to(value: Decimal, gold: _Number) -> bool:
    """Tell whether a value, in the gold's own scale, rounds to the gold number as written."""
    if gold.decimals == 0:
        # An integer gold must be matched exactly; the tolerance only absorbs float noise
        # (3139999.9999999995 from a computation is 3140000).
        return abs(value - gold.number) <= Decimal("1e-9") * max(Decimal(1), abs(gold.number))
    half_unit = Decimal(5) * Decimal(10) ** -(gold.decimals + 1)
    return abs(value - gold.number) <= half_unit


@lru_cache(maxsize=4096)
def _read(text: str, lenient: bool) -> _Reading:
    """Read one item as folded text, as numbers and as a date."""
    typed = parse_value(text)
    return _Reading(texts=_folded(text, lenient), numbers=_numbers(typed),
                    date=_wtq_date(typed.text) or _iso_date(typed.date))


def _folded(text: str, lenient: bool) -> frozenset[str]:
    """Return the text's comparison keys: NFKC, casefold, punctuation removed or spaced.

    Removing punctuation makes "U.S." equal "US"; a punctuation mark between two digits becomes
    a space instead, so the score "3-2" never equals "32". The second key, every punctuation
    mark a space, makes "1.74%-1.94%" equal "1.74% - 1.94%".
    """
    text = unicodedata.normalize("NFKC", text).casefold()
    keys = {_squash(_strip_punctuation(text)), _squash(_space_punctuation(text))}
    if lenient:
        keys = {_ARTICLE.sub("", key) for key in keys}
    return frozenset(keys)


def _strip_punctuation(text: str) -> str:
    out = []
    for i, char in enumerate(text):
        if not unicodedata.category(char).startswith("P"):
            out.append(char)
        elif 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit():
            out.append(" ")
    return "".join(out)


def _space_punctuation(text: str) -> str:
    return "".join(" " if unicodedata.category(c).startswith("P") else c for c in text)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _numbers(typed: TypedValue) -> tuple[_Number, ...]:
    """Return the numeric readings of a value: none, one, or two for a bare "5m"."""
    if typed.number is None:
        return ()
    number = Decimal(repr(typed.number))
    scale = Decimal(repr(typed.scale)) if typed.scale is not None else Decimal(1)
    words = _unit_words(typed.unit)
    if scale != 1:
        words |= {_SCALE_WORDS.get(scale, str(scale))}
    decimals = len(m.group(1)) if (m := _DECIMALS.search(typed.text)) else 0
    readings = [_Number(number, scale, frozenset(words), decimals)]
    if typed.unit == "m" and typed.scale is None:
        # The parser reads a bare "5m" as metres; in an answer it is as likely "5 million".
        readings.append(_Number(number, SCALES["million"], frozenset({"million"}), decimals))
    return tuple(readings)


def _unit_words(unit: str | None) -> set[str]:
    """Split a unit into lowercase words: "RMB/person/month" -> {"rmb", "person", "month"}."""
    if not unit:
        return set()
    if unit == "%":
        return {"%"}
    return {word.casefold() for word in re.split(r"[\s/]+", unit) if word}


def _wtq_date(text: str) -> DateTuple | None:
    """Read WTQ's canonical date "xxxx-10-17" (x = unknown) as (None, 10, 17)."""
    m = _WTQ_DATE.fullmatch(text.strip().lower())
    if not m:
        return None
    year, month, day = (None if "x" in part else int(part) for part in m.groups())
    return year, month, day


def _iso_date(iso: str | None) -> DateTuple | None:
    """Read the parser's ISO date ("2021-03-05", "--10-17", "2021-03", "1967") as a tuple."""
    m = _ISO_DATE.fullmatch(iso) if iso else None
    if not m or not any(m.groups()):
        return None
    year, month, day = (int(part) if part else None for part in m.groups())
    return year, month, day
