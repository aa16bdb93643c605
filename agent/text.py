"""Word-level normalisation shared by question analysis and grounding."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import snowballstemmer

from ingest.labels import matching_label


def split_words(block: str) -> list[str]:
    """Split a whitespace-separated word list (kept as a text block for readability)."""
    return block.split()


_WORD = re.compile(r"[^\W_]+(?:[.'’][^\W_]+|(?<=\d),\d{3}(?!\d))*", re.UNICODE)
"""A word: letters and digits, joined across inner apostrophes and dots ("o'neil", "3.5") and
across thousands separators ("644,744" is one number, as a reader sees it, and `words` writes
it 644744, as the number is written elsewhere; "2018,2019" stays two words)."""

STOPWORDS = frozenset(split_words("""
a an the of in on at to for from by with and or as is are was were be been being do does did has
have had what which who whom whose when where how that this these those it its their there than
then into per all any each me my our your his her he she him hers they them we you i about over
under during between after before since until across among amongst s
"""))


def fold(text: str) -> str:
    """NFKC, casefold, and unify dashes/quotes, so comparisons ignore typography."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return text.replace("’", "'").replace("–", "-").replace("—", "-")


IRREGULAR_PAST = {past: base for base, *pasts in (line.split() for line in """
    build built
    sell sold
    buy bought
    pay paid
    spend spent
    make made
    teach taught
    catch caught
    fly flew flown
    drive drove driven
    write wrote written
    grow grew grown
    hold held
    win won
    lose lost
    run ran
    come came
    take took taken
    give gave given
    choose chose chosen
    begin began begun
    beat beaten
    draw drawn
    sing sang sung
    swim swam swum
    ride rode ridden
    break broke broken
    throw threw thrown
    speak spoke spoken
    steal stole stolen
    """.strip().splitlines()) for past in pasts}
"""Past forms that drop no suffix, so that the question's verb and a header's or a cell's meet
("which categories did it *win*" over a Result "Won"). Not forms that are also common names or
words of their own ("rose", "fell", "drew", "found", "left", "led", "shot")."""


AMBIGUOUS_PAST = {"drew": "draw", "rose": "rise", "fell": "fall", "led": "lead", "shot": "shoot",
                  "saw": "see", "found": "find", "left": "leave", "met": "meet",
                  "fought": "fight"}
"""Past forms that are also names or words of their own ("Rose", "fell", "left"): read as
their verb only where the table writes that verb in some form ("drew" over a Draws column,
`agent.grounding._table_form`), never by `stem`."""


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stemmer for English plurals and common suffixes (expenses -> expense)."""
    if word.endswith("'s") and len(word) > 2:
        word = word[:-2]  # a possessive: "Chen's role" asks about Chen, "Line 1's" Line 1
    if word in IRREGULAR_PAST:
        word = IRREGULAR_PAST[word]  # "Number built" answers "how many did they build"
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
    found = _WORD.findall(fold(text))
    if "," not in text:
        return found
    return [w.replace(",", "") if "," in w else w for w in found]


def word_tokens(text: str) -> list[str]:
    """The words of a text as written (not folded: case kept), in the order `words` finds
    them when folding changes no word's length."""
    return _WORD.findall(text)


def word_matches(text: str) -> list[re.Match[str]]:
    """The words of a text as written (case kept), with their places, in `words` order."""
    return list(_WORD.finditer(text))


def word_spans(text: str) -> list[tuple[int, int]]:
    """The character spans in `fold(text)` of the words `words(text)` returns, in order."""
    return [m.span() for m in _WORD.finditer(fold(text))]


def tokens(text: str) -> list[str]:
    """Return stemmed words (stopwords kept: callers decide)."""
    return [stem(w) for w in words(text)]


def content_tokens(text: str) -> list[str]:
    """Return stemmed words without stopwords."""
    return list(_content_tokens(text))


@lru_cache(maxsize=65536)
def _content_tokens(text: str) -> tuple[str, ...]:
    """`content_tokens`, cached: grounding reads every text cell of a table per question."""
    return tuple(stem(w) for w in words(text) if w not in STOPWORDS)


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


_ORDINALS = split_words("first second third fourth fifth sixth seventh eighth ninth tenth")


def ordinal(n: int) -> str:
    """ "second" for 2, up to "tenth"; "11th" after that."""
    if 1 <= n <= len(_ORDINALS):
        return _ORDINALS[n - 1]
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 row", "3 rows", "1 matching table" (`many` when the plural is not word + "s")."""
    return f"{n:,} {word if n == 1 else many or word + 's'}"


# Lexical variants: when a question word is not a table word, the table word it is a form of.

_SNOWBALL = snowballstemmer.stemmer("english")

_INFLECTIONS = frozenset(split_words("""
e s es ed d ing ings ly ies ied y
"""))
"""What may follow the shared root of two forms of one word ("purchas|ing", "purchas|e",
"end|ing"). Derivations change the meaning ("organ|ization", "oper|ation" against
"oper|ating", "play|er" against "play|ed"), so a root shared through one of them does not make
two words the same."""


@lru_cache(maxsize=65536)
def morph_root(word: str) -> str:
    """The Snowball (Porter2) root of a folded word ("purchasing" -> "purchas")."""
    # A number is its own root; a long table's labels hold many distinct ones.
    return word if word.isdigit() else _SNOWBALL.stemWord(word)


def same_word(a: str, b: str) -> bool:
    """True when two folded words are inflections of one word ("purchasing"/"purchase",
    "ending"/"end"), not words that only share a root ("endowment"/"end").

    Snowball finds the root; each word must be the root plus an inflectional ending, and the
    root at least three letters, so short words and derivations stay apart.
    """
    if a == b or a.isdigit() or b.isdigit():
        return a == b
    root = morph_root(a)
    if len(root) < 3 or root != morph_root(b):
        return False
    return all(w == root or (w.startswith(root) and _ending(root, w[len(root):])
                             in _INFLECTIONS) for w in (a, b))


def _ending(root: str, rest: str) -> str:
    """The ending after a root, less a doubled last consonant ("ship|ped" -> "ed")."""
    if len(rest) > 1 and rest[0] == root[-1] and rest[0] not in "aeiouy":
        return rest[1:]
    return rest


MONTHS = split_words("""
january february march april may june july august september october november december
""")
_MONTH_NUMBERS = {name: i for i, name in enumerate(MONTHS, 1)}
_MONTH_NUMBERS.update({name[:3]: i for i, name in enumerate(MONTHS, 1)})
_MONTH_NUMBERS["sept"] = 9


def month_number(word: str) -> int | None:
    """The month a folded word names ("december", "dec", "sept" -> 12, 12, 9), else None."""
    return _MONTH_NUMBERS.get(word)


ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    short: tuple(long.split()) for short, long in (
        ("no", "number"), ("nos", "numbers"), ("num", "number"), ("nbr", "number"),
        ("qty", "quantity"), ("amt", "amount"), ("avg", "average"), ("pct", "percent"),
        ("std", "standard deviation"), ("sd", "standard deviation"), ("se", "standard error"),
        ("stdev", "standard deviation"), ("yr", "year"), ("yrs", "years"), ("wk", "week"),
        ("hr", "hour"), ("hrs", "hours"), ("mo", "month"), ("mos", "months"),
        ("dept", "department"), ("govt", "government"), ("intl", "international"),
        ("natl", "national"), ("mgmt", "management"), ("acct", "account"),
        ("approx", "approximately"), ("cum", "cumulative"), ("pop", "population"),
        ("bal", "balance"), ("bn", "billion"), ("mn", "million"),
        ("mfg", "manufacturing"), ("max", "maximum"), ("min", "minimum"),
        ("ytd", "year to date"), ("yoy", "year over year"), ("ave", "average"),
        ("tot", "total"), ("ht", "height"), ("wt", "weight"),
        ("dist", "distance"), ("pts", "points"), ("ref", "reference"),
        ("gf", "goals for"), ("ga", "goals against"), ("gd", "goal difference"),
        ("pld", "played"), ("ft", "feet"), ("km", "kilometres"), ("kg", "kilograms"),
        ("pos", "position"), ("att", "attendance"),
        ("h1", "first half"), ("h2", "second half"), ("q1", "first quarter"),
        ("q2", "second quarter"), ("q3", "third quarter"), ("q4", "fourth quarter"),
    )
}
"""Short forms that reports use for common words, whatever the subject: the form and the
words it stands for. Only unambiguous ones ("dev" may be development or deviation, "inc"
income or incorporated, "est" estimated or established, "temp" temperature or temporary,
so none of those is here)."""


UNIT_FAMILIES = [split_words(line) for line in """
seconds second secs sec s
minutes minute mins min
hours hour hrs hr h
days day d
weeks week wks wk
months month mos mo
years year yrs yr
kilometres kilometre kilometers kilometer km
miles mile mi
metres metre meters meter m
feet foot ft
""".strip().splitlines()]
"""The written forms of each unit of time or length ("metres", "meters", "m")."""


def unit_forms(word: str) -> tuple[str, ...] | None:
    """Every written form of the unit `word` is one form of ("feet": feet, foot, ft), else
    None."""
    return next((tuple(f) for f in UNIT_FAMILIES if word in f), None)


def one_typo_apart(a: str, b: str) -> bool:
    """True when two different words differ by one typing slip: a letter left out, one too
    many, one mistyped, or two neighbours swapped ("nroth"/"north", "totl"/"total")."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diffs) == 1 or (len(diffs) == 2 and diffs[1] == diffs[0] + 1
                                   and a[diffs[0]] == b[diffs[1]] and a[diffs[1]] == b[diffs[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k, (x, y) in enumerate(zip(short, long[:len(short)], strict=True)) if x != y),
             len(short))
    return short[i:] == long[i + 1:]


def abbreviates(short: str, long: str, dotted: bool) -> bool:
    """True when the folded word `short` is a short form of the folded word `long`.

    A month's short form ("feb"/"february"); a form from `ABBREVIATIONS` that stands for that
    one word ("qty"/"quantity"); or, when the label writes it with a dot ("Dept."), the
    letters of `short` in order in `long` from its first letter, its opening kept or its
    vowels dropped ("dept"/"department", "mgmt"/"management"; not "fed"/"finished"). A
    prefix without a dot is no abbreviation: "end" is not short for "endowment".
    """
    if short == long or len(short) >= len(long):
        return False
    month = month_number(short)
    if month is not None and month == month_number(long):
        return True
    if ABBREVIATIONS.get(short) == (long,):
        return True
    if not dotted or len(short) < 3 or short[0] != long[0] or not short.isalpha():
        return False
    if short[1] != long[1] and set(short[1:]) & set("aeiou"):
        # A short form keeps the word's opening ("Fed." for federation) or drops its vowels
        # ("Mgmt.", "Pts."): "fed" is no short form of "finished".
        return False
    rest = iter(long[1:])
    return all(ch in rest for ch in short[1:])
