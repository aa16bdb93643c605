"""Ground a question's phrases in a table: which cell values, row groups and columns it names.

Every grounding records the question words it explains. A question whose content words are not
explained by the table is not answered offline: the engine's precision comes from refusing what
it cannot tie to the data.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Protocol

import orjson

from agent import stop
from agent.cell_scan import scan_of, text_groups, text_values
from agent.frame import Attr, Frame
from agent.question import (
    AUXILIARIES,
    DIMENSION_NOUNS,
    DIMENSION_SUPERLATIVES,
    EVERY_STEP,
    OPERATION_WORDS,
    ORDER_WORDS,
    PLACE,
    REQUEST_VERBS,
    STEP_VERBS,
    Analysis,
    top_count,
)
from agent.table_facts import TOTAL_LABEL, profile
from agent.table_profile import StoredKeys, keyed_fact, table_fact
from agent.text import (
    ABBREVIATIONS,
    AMBIGUOUS_PAST,
    IRREGULAR_PAST,
    MONTHS,
    STOP_STEMS,
    STOPWORDS,
    abbreviates,
    content_tokens,
    fold,
    label_tokens,
    month_number,
    morph_root,
    one_typo_apart,
    path_tokens,
    same_word,
    split_words,
    stem,
    unit_forms,
    word_matches,
    word_spans,
    word_tokens,
    words,
)
from ingest.labels import dotted_words, matching_label, qualified_parts
from ingest.values import as_day_first, parse_value, writes_day_first

GENERIC_WORDS = frozenset(stem(w) for w in split_words("""
value values figure figures amount amounts number numbers total data table row rows column
columns entry entries record records item items listed list shown show according report reported
sheet sheets worksheet tab
"""))
"""Words that refer to the table itself rather than to anything in it."""
_INSTRUCTION = re.compile(rf"(?:^|[.?!;:]\s+)\W*(?:please\s+)?({REQUEST_VERBS})\b")
"""An imperative that opens a sentence ("Identify the year when ...", "Calculate the total
..."): it asks for the answer, as "what is" does, and names nothing in the table. The same
word inside a sentence ("the year the rate was *determined*") stays a content word."""


_TOTALS_LEFT_OUT = re.compile(
    r"\b(?:excluding|excl\.?|ignoring|not counting|leaving out|without)\s+(?:the\s+)?"
    r"(?:(?:sub-?)?totals?(?:\s+(?:rows?|lines?))?(?:\s+and\s+(?:the\s+)?(?:grand\s+)?"
    r"totals?(?:\s+(?:rows?|lines?))?)?|all\s+[^\W\d_]+(?:\s+[^\W\d_]+){0,2}\s+(?:rows?|"
    r"totals?))(?=\s*(?:[),?.;]|$))")
"""A clause that leaves the total rows out ("excluding the total row", "(excluding subtotals
and total)", "excluding the All subjects row"): what the rules do anyway, so it names
nothing to find."""


def _words_within(text: str, spans: Iterable[tuple[int, int]]) -> set[int]:
    """The indexes, in `words(text)`, of the words that start inside one of `spans` (spans of
    `fold(text)`, which keeps the text's offsets)."""
    spans = list(spans)
    return {i for i, (start, _) in enumerate(word_spans(text))
            if any(a <= start < b for a, b in spans)}


def _totals_left_out(text: str) -> set[int]:
    """The indexes, in `words(text)`, of the words of a clause leaving the totals out."""
    return _words_within(text, (m.span() for m in _TOTALS_LEFT_OUT.finditer(fold(text))))


_COME = frozenset(("come", "comes", "came", "coming"))
_COME_WITH = frozenset(("from", "through", "via", "in", "before", "after"))


_TABLE_NOUNS = frozenset(("register", "roster", "log", "dataset", "database", "spreadsheet",
                          "file", "listing", "ledger"))
"""Nouns by which a question may call the table itself ("in the register", "on the
roster")."""


def _table_names(frame: Frame, raw_words: list[str], q_words: list[str]) -> set[int]:
    """The indexes of a noun after "in/on/from the" that calls the table itself ("recipients
    that appear *in the register*"), when the table has no such word of its own: it names no
    column or value."""
    vocab = _vocabulary(frame)
    out = set()
    for i, w in enumerate(raw_words):
        if w not in _TABLE_NOUNS or q_words[i] in vocab.stems:
            continue
        # "in the register", "in the appointment log", "in the bookshop's sales log": the
        # words between "the" and the noun stay words to find.
        for k in (1, 2, 3):
            if i - k >= 1 and raw_words[i - k] in ("the", "this") \
                    and raw_words[i - k - 1] in ("in", "on", "from", "of"):
                out.add(i)
                break
    return out


_APPEAR = frozenset(("appear", "appears", "appeared", "appearing"))
_APPEAR_WITH = frozenset(("in", "on", "most", "more", "least", "fewer", "less", "once", "twice",
                          "only", "at", "the", "as", "under", "among"))


def _linking_verbs(raw_words: list[str]) -> set[int]:
    """The indexes of a "came" that only links a figure to where or when it is ("income
    *came* from EPSRC", "sales *came* through Deliveroo", "the single that *came* after
    Undertow"): the preposition says it, and the verb names nothing. Likewise an "appears"
    that says a value is in the table, or how often ("recipients that *appear* in the
    register", "the programme that *appears* most often", "*appear* more than once"): the
    noun "appearances" stays a content word."""
    return {i for i, w in enumerate(raw_words[:-1])
            if (w in _COME and raw_words[i + 1] in _COME_WITH)
            or (w in _APPEAR and raw_words[i + 1] in _APPEAR_WITH)}


def _shares_held(raw_words: list[str]) -> set[int]:
    """The indexes of "shares" said of stock ("diluted *shares*", "shares outstanding"), a
    thing the table must name, not a share of a total ("the shares of A and B in sales",
    "what share of")."""
    return {i for i, w in enumerate(raw_words) if w == "shares" and i > 0
            and raw_words[i - 1] not in ("the", "their", "its", "what", "which", "respective")
            and (i + 1 == len(raw_words) or raw_words[i + 1] != "of")}


def _place_words(text: str) -> set[int]:
    """The indexes, in `words(text)`, of the ordinal that places an order ("the *second*
    highest", "3rd largest"): it says what to compute, as "highest" does."""
    return _words_within(text, (m.span(1) if m.group(1) else m.span(3)
                                for m in PLACE.finditer(fold(text))))


def _every_step_words(text: str) -> set[int]:
    """The indexes, in `words(text)`, of "every year" (or "each quarter", "steadily") and of
    the verbs of the rise or fall it asks about ("did sales *fall every year*"): they say what
    to check across the span, as "increase" does."""
    folded = fold(text)
    step = EVERY_STEP.search(folded)
    if step is None:
        return set()
    return _words_within(text, [step.span(), *(m.span() for m in STEP_VERBS.finditer(folded))])


def _top_words(text: str) -> set[int]:
    """The index, in `words(text)`, of the number of top places asked ("the *three*
    largest"): it says how many rows to name, as "second" says which."""
    _, span = top_count(fold(text))
    return _words_within(text, [span]) if span else set()


def _instruction_words(text: str) -> set[int]:
    """The indexes, in `words(text)`, of the sentence-opening imperatives of a question."""
    return _words_within(text, (m.span(1) for m in _INSTRUCTION.finditer(fold(text))))


ID_WORDS = frozenset(stem(w) for w in split_words("""
id code no num rank ranking pos position year season episode ep stage round week pick seed
serial zip postcode phone dbn lot ref reference heat lane bib jersey shirt
"""))
"""Header words of columns whose numbers name a row rather than measure it."""


@dataclass(frozen=True)
class ValueMatch:
    """A cell value (or row-group label) the question names."""

    attr: str
    text: str
    rows: frozenset[int]
    positions: frozenset[int]
    """Indexes of the question words it explains."""
    exact: bool


@dataclass(frozen=True)
class AttrMatch:
    """A column (or a column group) the question names."""

    attrs: tuple[str, ...]
    """One data column, or every leaf under a column group."""
    label: str
    score: float
    positions: frozenset[int]
    full: bool = False
    """Every word of the column's own header (or of the group's) is in the question."""


@dataclass
class Grounding:
    """Everything a question was tied to in one frame, and how much of it was explained."""

    frame: Frame
    q_words: list[str]
    values: list[ValueMatch] = field(default_factory=list)
    attrs: list[AttrMatch] = field(default_factory=list)
    explained: set[int] = field(default_factory=set)
    content: set[int] = field(default_factory=set)

    raw_words: list[str] = field(default_factory=list)
    """The question's words as written (folded), parallel to q_words, for messages."""
    names: set[int] = field(default_factory=set)
    """Words capitalised inside a sentence ("revenue from *Consulting*"): names of things,
    which a question never uses loosely (`written_as_names`)."""
    capitals: set[int] = field(default_factory=set)
    """Words written in capitals in a question that is not ("the *IT* budget"): an acronym,
    though folded it reads as a stopword."""
    single_capitals: set[int] = field(default_factory=set)
    """Capital letters written alone ("Line *A*"): a series' letter, not the article."""
    thresholds: set[int] = field(default_factory=set)
    """The numbers of the question's conditions ("more than *23* episodes"), which name no
    cell ("#23" of a Rank). A year's is not among them: "between 2018 and 2019" may name
    rows."""
    asks_percent: bool = False
    """The question says "%", "percent" or "percentage": of two columns it fits, "Votes" and
    "Vote %", the second."""

    def typo_of(self, word: str) -> str | None:
        """The table word a question word the table has no form of is one typing slip from
        ("nroth": "north"). Looked for only when a refusal names the word, and offered there,
        never used to answer: on bench-train, answers read through such a typo were right
        only 4 times in 6."""
        if self.in_table(word):
            return None
        return _typo_of(word, _vocabulary(self.frame)) or _question_word_typo(word)

    def in_table(self, word: str) -> bool:
        """Whether the table writes this word in some form ("Operating" of "Operating
        Expenses"), though the question's phrase around it matched no label."""
        vocab = _vocabulary(self.frame)
        return stem(word) in vocab.stems or _table_form(word, vocab) is not None

    def begins_a_category(self, word: str) -> str | None:
        """A longer word that this one begins in a column of categories, values that repeat
        over the rows ("win" of an Outcome "Winner" | "Runner-up"), else None: the question's
        word is likely that value's kin, which the rules did not tie to it."""
        folded = fold(word)
        if len(folded) < 3:
            return None
        frame = self.frame
        rows = frame.rows[:CATEGORY_ROWS]
        for attr in frame.attrs:
            if attr.measurable:
                continue
            texts = [v.text for v in frame.values_of(attr.key, rows) if v is not None]
            if len(set(texts)) > 2 / 3 * len(texts):
                continue
            for text in set(texts):
                first = words(fold(text))[:1]
                # (Not the word itself with an ending: "account" of "Accounts payable".)
                if first and len(first[0]) > len(folded) and first[0].startswith(folded) \
                        and stem(first[0]) != stem(folded):
                    return text
        return None

    @property
    def did_you_mean(self) -> str:
        typos = {w: t for w in self.unexplained if (t := self.typo_of(w)) is not None}
        return did_you_mean(typos, self.unexplained)

    @property
    def unexplained(self) -> list[str]:
        """Content words not tied to the table, as the user wrote them."""
        source = self.raw_words or self.q_words
        return [source[i] for i in sorted(self.content - self.explained)]

    def table_form(self, word_stem: str) -> str:
        """A question word's stem as the table writes it, where grounding rewrote it
        ("points" as the "pts" of a "Pts" header); else the stem itself."""
        for raw, q in zip(self.raw_words, self.q_words, strict=False):
            if q and stem(raw) == word_stem:
                return q
        return word_stem

    @property
    def named_positions(self) -> set[int]:
        """The question words a value or a column match took."""
        return {p for m in [*self.attrs, *self.values] for p in m.positions}

    @property
    def unexplained_stems(self) -> list[str]:
        return [self.q_words[i] for i in sorted(self.content - self.explained)]

    @property
    def coverage(self) -> float:
        if not self.content:
            return 0.0
        return len(self.content & self.explained) / len(self.content)


_QUESTION_WORDS = split_words("""
which where whose highest largest lowest smallest greatest biggest longest shortest
average total number difference percentage between compared fewest least""")
"""Words of a question's own wording: "whcih" and "largets" are offered back as these."""


def _question_word_typo(word: str) -> str | None:
    """The one question word (not the table's) that `word` is a typing slip from."""
    if len(word) < TYPO_MIN_LETTERS or not word.isalpha():
        return None
    found = [w for w in _QUESTION_WORDS if one_typo_apart(word.lower(), w)]
    return found[0] if len(found) == 1 else None


def did_you_mean(typos: dict[str, str], unexplained: list[str]) -> str:
    """' (did you mean "north"?)' for the unexplained words that look mistyped, else ""."""
    meant = list(dict.fromkeys(typos[w] for w in unexplained if w in typos))
    return " (did you mean " + " and ".join(f'"{w}"' for w in meant) + "?)" if meant else ""


def written_in_capitals(text: str) -> set[int]:
    """The indexes, in `words(text)`, of words of two or more capitals ("IT", "US") in a
    question that has lower-case letters too (one in capitals throughout shouts, and names
    no acronym)."""
    written = _as_written(text)
    return {i for i, w in enumerate(written) if len(w) > 1 and w.isalpha() and w.isupper()}


def _as_written(text: str) -> list[str]:
    """The question's words as written, indexed as `words(text)` indexes them; none for a
    question in capitals throughout (it shouts, and names no acronym or letter), or when
    folding changed the words (rare scripts): no claim then."""
    if not any(c.islower() for c in text):
        return []
    written = word_tokens(unicodedata.normalize("NFKC", text))
    return written if len(written) == len(words(text)) else []


def written_as_letters(text: str) -> set[int]:
    """The indexes, in `words(text)`, of capital letters standing alone after an article or
    at the end ("got *an A*", "rated B"): a grade or a class, not the article "a" or the
    pronoun "I"."""
    written = _as_written(text)
    return {i for i, w in enumerate(written) if i > 0 and len(w) == 1 and w.isupper()
            and (written[i - 1].lower() in ("a", "an", "the") or i == len(written) - 1)}


def written_as_names(text: str) -> set[int]:
    """The indexes, in `words(text)`, of words capitalised inside a sentence ("What was the
    revenue from *Consulting*?"): a name, left unmatched, means the row it names is not in
    the table. A question in title case or capitals throughout claims nothing, nor does an
    initial ("L. Gordon Crovitz")."""
    text = unicodedata.normalize("NFKC", text)
    found = word_matches(text)
    if len(found) != len(words(text)):
        return set()
    caps = [m for m in found if m.group()[:1].isupper()]
    if len(caps) > len(found) / 2:
        return set()
    out = set()
    for i, m in enumerate(found):
        before = text[:m.start()].rstrip()
        if i and m.group()[:1].isupper() and len(m.group()) > 1 \
                and not before.endswith((".", "?", "!", ":", '"', "“")):
            out.add(i)
    return out


def _occurrence_words(raw_words: list[str]) -> set[int]:
    """The "times" of "how many times" / "number of times": it counts rows, and never names a
    "Time" column (whose durations added up would be the answer)."""
    return {i for i, w in enumerate(raw_words)
            if w == "times" and i >= 2 and tuple(raw_words[i - 2:i]) in (("how", "many"),
                                                                            ("number", "of"))}


_PERCENT_ASKED = re.compile(r"%|\bper\s?cent|\bpct\b", re.IGNORECASE)


def ground(frame: Frame, analysis: Analysis) -> Grounding:
    """Tie the question to the frame's values and columns."""
    table_words(frame)  # both facts, computed (on a first question) in the order they store best
    raw_words = words(analysis.text)
    q_words = [stem(w) for w in raw_words]
    letters = written_as_letters(analysis.text)
    content = {i for i, w in enumerate(q_words)
               if w not in STOP_STEMS and w not in OPERATION_WORDS and w not in GENERIC_WORDS}
    content |= letters  # "got an A": a grade the table must hold, not an article
    content |= _shares_held(raw_words)
    content -= _instruction_words(analysis.text)
    content -= _place_words(analysis.text)
    content -= _top_words(analysis.text)
    content -= _every_step_words(analysis.text)
    content -= _linking_verbs(raw_words)
    content -= _table_names(frame, raw_words, q_words)
    left_out = _totals_left_out(analysis.text)
    content -= left_out
    occurrences = _occurrence_words(raw_words)
    content -= occurrences
    q_words = [w if i not in occurrences else "" for i, w in enumerate(q_words)]
    q_words, groups = _in_table_words(frame, raw_words, q_words, content)
    grounding = Grounding(frame, q_words, content=content, raw_words=raw_words,
                          capitals=written_in_capitals(analysis.text) | letters,
                          single_capitals={i for i, w in enumerate(_as_written(analysis.text))
                                           if len(w) == 1 and w.isupper()},
                          names=written_as_names(analysis.text),
                          asks_percent=bool(_PERCENT_ASKED.search(analysis.text)))
    grounding.explained |= left_out  # (said, and what the rules do: no arithmetic asked)
    for cond in analysis.conditions:
        _explain_condition(grounding, analysis, cond)
    _match_dates(grounding, analysis.text)
    _match_values(grounding)
    _explain_value_units(grounding)
    _drop_unsaid_totals(grounding)
    _keep_whole_cells(grounding)
    _match_numeric_keys(grounding, analysis.target_words)
    _match_month_numbers(grounding)
    _match_attrs(grounding)
    _match_dimension_words(grounding)
    _match_years_of_dates(grounding)
    _explain_unit_columns(grounding)
    _match_table_words(grounding, analysis)
    _explain_noun_phrases(grounding, analysis)
    if analysis.neighbor:
        grounding.explained.update(i for i, w in enumerate(q_words)
                                   if w in analysis.neighbor_words)
    for group in groups:
        if grounding.explained & group:
            grounding.explained.update(group)
    return grounding


def _match_dimension_words(grounding: Grounding) -> None:
    """A superlative that says its dimension ("the *lightest* camera", "the *tallest* peak")
    names the one column of numbers headed by that dimension (Weight (g), Height (m)), when
    the question names no such column itself."""
    frame = grounding.frame
    for i in sorted(grounding.content - grounding.explained):
        dimension = DIMENSION_SUPERLATIVES.get(grounding.raw_words[i])
        if dimension is None:
            continue
        nouns = {stem(w) for w in DIMENSION_NOUNS[dimension]}
        columns = [a for a in frame.data_attrs if a.measurable and a.tokens & nouns]
        if len(columns) != 1 or any(m.full and columns[0].key in m.attrs
                                    for m in grounding.attrs):
            continue  # none, several ("Height (m)", "Height (ft)"), or named already
        grounding.attrs.append(AttrMatch((columns[0].key,), columns[0].label, 1.0,
                                         frozenset({i}), full=True))
        grounding.explained.add(i)


def _explain_unit_columns(grounding: Grounding) -> None:
    """A unit the question writes in full ("in *metres*", "in *feet*") is explained by a
    column headed by that unit in any of its forms (Height > m, Height > ft): which of a
    group's columns it reads is the solver's choice."""
    heads = {fold(a.path[-1]).strip(" ()[]") for a in grounding.frame.data_attrs if a.path}
    for i in sorted(grounding.content - grounding.explained):
        said = grounding.raw_words[i]
        family = unit_forms(said) if len(said) > 2 else None
        if family is not None and heads & set(family):
            grounding.explained.add(i)


def _drop_unsaid_totals(grounding: Grounding) -> None:
    """Forget a match of a total row's label ("All ages", "Total persons") made by its other
    words alone: "aged 80-84" names the band, not the row of all ages, which a question names
    by saying "all" or "total". The words stay explained (they say what the band is)."""
    said = set(grounding.q_words)
    grounding.values = [
        vm for vm in grounding.values
        if not ((head := words(fold(vm.text))[:1]) and head[0] in _TOTAL_HEADS
                and stem(head[0]) not in said)]


_TOTAL_HEADS = frozenset({"all", "total", "overall"})


CATEGORY_ROWS = 2_000
"""Rows read to find a column's categories (a category repeats well within them)."""


def _keep_whole_cells(grounding: Grounding) -> None:
    """A label the question names ("Aged 66 years and over", quoted or not) names the cells
    that say exactly it, not longer ones it is part of ("All aged 66 years and over", "Other,
    including all aged 66 years and over"), where some cell says it whole: those are other
    categories. A longer cell that also says more of the question's words ("Cohabiting
    couple family: With dependent children" for "cohabiting couples with dependent
    children") is the one named, more fully than by the short one; a cell that lists it
    among others says it whole."""
    frame = grounding.frame
    said_words = set(grounding.raw_words)
    # (Words another match took name something else: "the 2017 restructuring charges as a
    # percentage of the total goodwill impairment and restructuring charges".)
    taken = {i for m in grounding.values for i in m.positions}
    others = {grounding.q_words[i] for i in grounding.content - taken}
    for n, vm in enumerate(grounding.values):
        said = words(fold(vm.text))  # (punctuation aside: "Adjusted EBITDA:" is the row's too)
        # (Only a label the question writes out: a month's match stands for its dates.)
        if len(vm.rows) < 2 or len(said) < 2 or not set(said) <= said_words:
            continue
        rows = sorted(vm.rows)
        texts = [v.text if v is not None else "" for v in frame.values_of(vm.attr, rows)]
        kinds: dict[str, str] = {}  # a text -> "whole", "richer" or "" (each text read once)
        for text in set(texts):
            told = words(fold(text))
            # (A list that holds the label as one item says it whole: "Dana Calvo & Robert
            # Hull" for "Dana Calvo"; an "and" may join one name's words, as in "Goodwill
            # impairment and restructuring charges".)
            items = [words(fold(part)) for part in _NAME_LIST_SEPARATOR.split(text)]
            kinds[text] = "whole" if told == said or said in items else (
                "richer" if others & {stem(w) for w in told} else "")
        whole = {r for r, t in zip(rows, texts, strict=True) if kinds[t] == "whole"}
        richer = {r for r, t in zip(rows, texts, strict=True) if kinds[t] == "richer"}
        kept = frozenset(richer or whole)
        if kept and kept != vm.rows:
            grounding.values[n] = dataclasses.replace(vm, rows=kept)


class _Words(Protocol):
    """Words by a key: a dict of sets, or the same read from the workspace key by key."""

    def get(self, key: str, default: Iterable[str] = ..., /) -> Iterable[str]: ...


@dataclass
class _Vocabulary:
    """The words a table writes in its headers, row labels and text cells, as the question's
    words are looked up against it."""

    stems: Container[str] = field(default_factory=set)
    by_root: _Words = field(default_factory=lambda: defaultdict(set))
    """Folded words by their Snowball root, to find another form of a question word."""
    by_initial: _Words = field(default_factory=lambda: defaultdict(set))
    """Folded words by their first letter, to find a short form of a question word."""
    dotted: Container[str] = field(default_factory=set)
    """Header words written with an abbreviation dot ("Qty.")."""

    def add(self, text: str, header: bool) -> bool:
        """Add a text's words (only while the vocabulary is computed, in sets); whether they
        are the words of the text as a cell (a header's are not when it has a marker)."""
        assert isinstance(self.stems, set) and isinstance(self.dotted, set)
        by_initial, by_root = self.by_initial, self.by_root
        assert isinstance(by_initial, defaultdict) and isinstance(by_root, defaultdict)
        said = matching_label(text) if header else text
        for word, word_stem, root in _word_keys(said):
            self.stems.add(word_stem)
            by_initial[word[:1]].add(word)
            by_root[root].add(word)
        if header:
            self.dotted |= dotted_words(text)
        return said == text

    def items(self) -> Iterator[tuple[str, Any]]:
        """Its keys in the workspace: each stem, the words of each root and of each initial,
        the dotted words."""
        assert isinstance(self.stems, set) and isinstance(self.dotted, set)
        assert isinstance(self.by_root, dict) and isinstance(self.by_initial, dict)
        yield "d", sorted(self.dotted)
        yield from ((f"s:{s}", 1) for s in self.stems)
        yield from ((f"r:{k}", sorted(v)) for k, v in self.by_root.items())
        yield from ((f"i:{k}", sorted(v)) for k, v in self.by_initial.items())

    @classmethod
    def stored(cls, keys: StoredKeys) -> _Vocabulary:
        """The vocabulary read from the workspace a word at a time, as questions ask."""
        return cls(_StoredSet(keys, "s:"), _StoredWords(keys, "r:"), _StoredWords(keys, "i:"),
                   set(keys.get("d") or ()))


class _StoredSet:
    """Membership in a set stored by key (`prefix` + item)."""

    def __init__(self, keys: StoredKeys, prefix: str) -> None:
        self._keys, self._prefix = keys, prefix

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and self._keys.get(self._prefix + item) is not None


class _StoredWords:
    """Words by key, stored by key (`prefix` + key)."""

    def __init__(self, keys: StoredKeys, prefix: str) -> None:
        self._keys, self._prefix = keys, prefix

    def get(self, key: str, default: Iterable[str] = (), /) -> Iterable[str]:
        found = self._keys.get(self._prefix + key)
        return default if found is None else set(found)


@lru_cache(maxsize=65536)
def _word_keys(text: str) -> tuple[tuple[str, str, str], ...]:
    """Each word of a text with its stem and its Snowball root (cached: tables repeat texts)."""
    return tuple((w, stem(w), morph_root(w)) for w in words(text))


def table_words(frame: Frame) -> None:
    """Compute (and store) the table's value phrases and vocabulary ahead of questions.

    In this order: their keys sort "value_phrases" before "vocabulary" in `table_fact_keys`,
    so each is appended after what is there. Inserted in front of the vocabulary's keys,
    whose largest values are megabytes (all the words of an initial), the phrases of a
    640,000-row table took 110 s of CPU in SQLite's B-tree code, against 1-3 s appended or
    put first (measured; records that large are a poor fit for a WITHOUT ROWID table).

    Both are made from the table's text cells grouped by column and text (`text_groups`),
    read once for the two: reading them twice took 3 s of that table's first question."""
    groups = _TextGroups(frame)
    _value_phrases(frame, groups)
    _vocabulary(frame, groups)


class _TextGroups:
    """`text_groups` of a frame, read when first asked for (a stored fact needs none)."""

    def __init__(self, frame: Frame) -> None:
        self._frame = frame

    @cached_property
    def groups(self) -> list[tuple[str, str, list[int]]]:
        return list(text_groups(self._frame))

    @cached_property
    def texts(self) -> set[str]:
        """The distinct texts, as `text_values` reads them."""
        return {text for _, text, _ in self.groups}


def _vocabulary(frame: Frame, groups: _TextGroups | None = None) -> _Vocabulary:
    """The table's vocabulary (`_read_vocabulary`), read once per table."""
    return keyed_fact(frame, "vocabulary",
                      lambda f: _read_vocabulary(f, texts=groups and groups.texts),
                      _Vocabulary.items, _Vocabulary.stored)


def _read_vocabulary(frame: Frame, *, by_sql: bool = True,
                     texts: set[str] | None = None) -> _Vocabulary:
    """The words of the table's headers, row labels and text cells: what grounds a question.
    The title is left out: it explains a word but grounds nothing, so "forecast" in a title
    must not stop "forecast" from meeting the column "Forecasting". Only header labels may
    hold dotted short forms, since "Inc." in a company's name is not short for a word. The
    distinct texts come from SQL where the table can be scanned (`agent/cell_scan.py`), or
    are `texts` when given."""
    vocab = _Vocabulary()
    for attr in frame.attrs:
        for label in attr.path:
            vocab.add(label, header=True)
    # A row label is a text cell too: one whose words as a header are its own is not split
    # again (a tall table's unique labels are most of its texts).
    added: set[str] = set()
    for path in frame.side.path_groups():
        stop.check()
        added.update(label for label in path if vocab.add(label, header=True))
    for text in stop.checked(text_values(frame, by_sql=by_sql) if texts is None else texts):
        if text not in added:
            vocab.add(text, header=False)
    return vocab


def _in_table_words(frame: Frame, raw_words: list[str], q_words: list[str],
                    content: set[int]
                    ) -> tuple[list[str], list[set[int]]]:
    """Write each content word the table does not have as the table's word it is a form of.

    Exact words stay as they are; then another inflection of one table word ("purchasing"
    for "Purchase"); then a short form ("Feb", "Qty.", "SD" for "standard deviation"). A
    word with two or more table words at its best level is left alone: a guess between them
    could tie it to the wrong column. Returns the words and the groups of positions that
    together became one table word (each explained when one of them is). A typo stays
    unknown (`Grounding.typo_of`).
    """
    vocab = _vocabulary(frame)
    out = list(q_words)
    groups = _short_forms_of_phrases(vocab, raw_words, q_words, out)
    grouped = set().union(*groups) if groups else set()
    for i in sorted(content - grouped):
        if q_words[i] in vocab.stems or q_words[i].isdigit():
            continue
        if (fiscal := _FISCAL_YEAR.fullmatch(q_words[i])) is not None:
            # "FY2022" of a statement whose columns are headed "2022": the fiscal year. (Not
            # where the table writes "FY 2024" too: the bare year may head other columns.)
            year = fiscal.group(1) if len(fiscal.group(1)) == 4 else f"20{fiscal.group(1)}"
            if year in vocab.stems and "fy" not in vocab.stems:
                out[i] = year
            continue
        form = _table_form(raw_words[i], vocab) or _doer_form(raw_words, i, vocab)
        if form is not None:
            out[i] = form
    return out, groups


_FISCAL_YEAR = re.compile(r"fy((?:19|20)\d\d|\d\d)")


def _table_form(word: str, vocab: _Vocabulary) -> str | None:
    """The stem of the one table word that `word` is an inflection of, else of the one
    table word that is its short form (or it of that word's); None when none or several."""
    forms = {stem(w) for w in vocab.by_root.get(morph_root(word), ()) if same_word(word, w)}
    if not forms and (verb := AMBIGUOUS_PAST.get(word)) is not None:
        # "drew" over a Draws column: a past form that is also a word of its own, read as
        # its verb only where the table writes the verb.
        forms = {stem(w) for w in vocab.by_root.get(morph_root(verb), ()) if same_word(verb, w)}
    if not forms:
        forms = {stem(w) for w in vocab.by_initial.get(word[:1], ())
                 if abbreviates(w, word, w in vocab.dotted) or abbreviates(word, w, False)}
    if not forms and (same := SAME_MEANING.get(word.lower())) is not None \
            and stem(same) in vocab.stems:
        forms = {stem(same)}
    return next(iter(forms)) if len(forms) == 1 else None


_PERFECT = frozenset(split_words("has have had"))
_AUXILIARY = AUXILIARIES - _PERFECT | frozenset(split_words("be been being"))


def _doer_form(raw_words: list[str], i: int, vocab: _Vocabulary) -> str | None:
    """The stem of the one table word that names who does what the question's verb says,
    when the question's own subject does it: "who *won* the time trial" of a Winner column,
    "which team *won* stage 8". Not "how many titles did he *win*" or "when was X
    *published*", whose subject is someone or something else; nor "the *winning* time",
    which the winner's name does not answer."""
    word = raw_words[i]
    if not word.isalpha() or not (word.endswith("ed") or word in IRREGULAR_PAST):
        return None  # (a past tense only: "book" is no verb of a "Booker Prize")
    before = raw_words[:i]
    if any(w in _AUXILIARY for w in before) or any(
            w in _PERFECT for j, w in enumerate(before) if j != i - 1):
        return None
    doers = _doers(word)
    forms = {stem(w) for w in vocab.by_initial.get(word[:1], ()) if w.removesuffix("s") in doers}
    return next(iter(forms)) if len(forms) == 1 else None


def _doers(verb: str) -> set[str]:
    """The nouns of who does what a verb says, as English forms them: "winner" for "won",
    "director" for "directed", "writer" for "wrote", "producer" for "produced"."""
    folded = verb.lower()
    base = IRREGULAR_PAST.get(folded) or morph_root(folded)
    if len(base) < 3:
        return set()
    bases = {base, base.removesuffix("e")}
    return {b + end for b in bases for end in ("er", "or", "r")} | {base + base[-1] + "er"}


SAME_MEANING = {"men": "male", "man": "male", "women": "female", "woman": "female",
                "males": "men", "male": "men", "females": "women", "female": "women"}
"""Words of one meaning that tables write either way ("men" in the question, "Male" in the
header): read as the table's word when the table has only that one."""


TYPO_MIN_LETTERS = 5
"""Shorter words are too often another real word one slip away ("cost"/"cast")."""


def _typo_of(word: str, vocab: _Vocabulary) -> str | None:
    """The one table word that `word` is one typing slip from, else None.

    Only words of TYPO_MIN_LETTERS or more letters, against table words as long, and with the
    same first letter (a slip rarely hits it); two candidates are a guess, so none is taken."""
    if len(word) < TYPO_MIN_LETTERS or not word.isalpha():
        return None
    # Word to word, or stem to stem: "expnse" is one slip from "expense", the stem of the
    # table's "expenses".
    word_stem = stem(word)
    found = {w for w in vocab.by_initial.get(word[:1], ())
             if len(w) >= TYPO_MIN_LETTERS and w.isalpha()
             and (one_typo_apart(word, w) or one_typo_apart(word_stem, stem(w)))}
    return next(iter(found)) if len({stem(w) for w in found}) == 1 else None


def _short_forms_of_phrases(vocab: _Vocabulary, raw_words: list[str], q_words: list[str],
                            out: list[str]) -> list[set[int]]:
    """Tie a phrase of the question to the table's short form of it ("standard deviation"
    for "SD", "year to date" for "YTD") when the table does not spell the phrase out."""
    groups: list[set[int]] = []
    taken: set[int] = set()
    for short, phrase in ABBREVIATIONS.items():
        if len(phrase) < 2 or stem(short) not in vocab.stems \
                or all(stem(w) in vocab.stems for w in phrase):
            continue
        n = len(phrase)
        for start in range(len(raw_words) - n + 1):
            span = set(range(start, start + n))
            if tuple(raw_words[start:start + n]) == phrase and not span & taken:
                for i in span:
                    out[i] = stem(short)
                groups.append(span)
                taken |= span
    return groups


_ACROSS = re.compile(
    r"\b(?:across|in|over|for|from)\s+(?:both|all|the two|all the|each of the)?\s*(?:the\s+)?"
    r"(?:(?:two|three|four|\d{1,2})\s+)?(months?|sheets?|files?|tables?|years?|quarters?|"
    r"periods?|reports?|workbooks?|tabs?)\b|\b(?:combined|together|altogether)\b")
"""A span of tables or time ("across both months", "in all sheets", "in the year 2020"),
whose words need no cell; only a plural (or "combined") asks across several tables, and
"in the 2024 sheet" names one."""


def explain_across(groundings: list[Grounding], analysis: Analysis) -> bool:
    """Explain "across both months" / "in all sheets": the question spans several tables.
    Return True when the question says so."""
    match = _ACROSS.search(analysis.folded)
    if not match:
        return False
    span = {stem(w) for w in words(match.group(0))}
    for g in groundings:
        for i, w in enumerate(g.q_words):
            if w in span:
                g.explained.add(i)
    return match.group(1) is None or match.group(1).endswith("s")


SEX_WORDS = frozenset(stem(w) for w in split_words(
    "women woman men man female females male males girls girl boys boy"))
"""Nouns of one sex: "how many *women*" selects rows (a Sex column's "F"), never names the
kind of row counted."""


_ASKS_A_NUMBER_OF = re.compile(r"\b(?:how many|number of)\b")


def _explain_noun_phrases(grounding: Grounding, analysis: Analysis) -> None:
    """Explain the counted noun ("how many *employees*") and an "of" complement of a matched
    column ("*years* of experience"): they describe what is counted or measured."""
    q = grounding.q_words
    # Only the head noun names the kind of row; "graduate" in "graduate programs" must be
    # grounded like any other word.
    entity_words = {words[-1] for words in (analysis.count_words, analysis.target_words)
                    if words} - SEX_WORDS - _joined_kinds(grounding.frame)
    if analysis.wh == "what" and analysis.op != "count":
        # "what *year* ...": only a noun that names a column; "what is the meaning of ..."
        # asks about something the table does not hold.
        names = set().union(*(a.tokens for a in grounding.frame.attrs))
        entity_words = {w for w in entity_words if w in names}
    if analysis.op == "count" and not _ASKS_A_NUMBER_OF.search(analysis.folded):
        # "the total *calorie* count": a noun said before "count" is what a column counts,
        # and a word the table never writes names nothing here.
        entity_words = {w for w in entity_words if grounding.in_table(w)}
    if analysis.op == "count" or analysis.wh in ("how many", "which", "what", "who"):
        # "how many *teams*", "which *country*": the kind of row asked about.
        for i, w in enumerate(q):
            if w in entity_words:
                grounding.explained.add(i)
    matched = {p for m in grounding.attrs if m.full for p in m.positions}
    for i in sorted(matched):
        if i + 2 < len(q) and q[i + 1] == "of" and i + 2 in grounding.content:
            if analysis.op in ("sum", "avg", "max", "min") and \
                    not grounding.in_table(q[i + 2]):
                # "the sum of Gold of *Brazil*": a name the table does not hold is a row the
                # aggregate would otherwise drop, adding up every row instead.
                continue
            grounding.explained.add(i + 2)


def _explain_condition(grounding: Grounding, analysis: Analysis, cond) -> None:
    """The number of a condition is explained by the condition itself."""
    # "older than 25": the comparison words and the number are the condition itself.
    span_words = {stem(w) for w in words(analysis.folded[cond.span[0]:cond.span[1]])}
    for i, w in enumerate(grounding.q_words):
        if w in span_words:
            grounding.explained.add(i)
            if not cond.on_year and any(ch.isdigit() for ch in w):
                grounding.thresholds.add(i)


def _find_phrase(q_words: list[str], phrase: list[str], taken: set[int]) -> list[int] | None:
    """Find phrase as consecutive question words (stopwords inside are skipped)."""
    if not phrase:
        return None
    n = len(q_words)
    for start in range(n):
        if start in taken or q_words[start] != phrase[0]:
            continue
        positions = [start]
        i, j = start + 1, 1
        while j < len(phrase) and i < n:
            if q_words[i] == phrase[j] and i not in taken:
                positions.append(i)
                j += 1
            elif q_words[i] in STOP_STEMS:
                pass
            else:
                break
            i += 1
        if j == len(phrase):
            return positions
    return None


@dataclass
class _ValuePhrases:
    """The text values of a table as phrases of question words, with the rows of each column
    that hold them, and the text each phrase was first written as."""

    candidates: dict[tuple[str, ...], dict[str, set[int]]]
    texts: dict[tuple[str, ...], str]

    # Indexes built at the first question on the table and kept with it (a table of 20,000
    # rows has as many phrases; scanning them all took 10-15 ms of every question).
    @cached_property
    def by_first_word(self) -> dict[str, list[tuple[int, tuple[str, ...]]]]:
        """Each phrase (with its place in `candidates`) under its first word."""
        index: dict[str, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
        for place, phrase in enumerate(stop.checked(self.candidates)):
            index[phrase[0]].append((place, phrase))
        return index

    @cached_property
    def listed_in(self) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
        """The phrases whose text lists an item among others ("Aeromexico, Interjet"), by
        item."""
        index: dict[tuple[str, ...], list[tuple[str, ...]]] = defaultdict(list)
        for other in stop.checked(self.candidates):
            if _LIST_SEPARATOR.search(self.texts[other]):
                for item in dict.fromkeys(tuple(content_tokens(part)) for part in
                                          _LIST_SEPARATOR.split(self.texts[other])):
                    index[item].append(other)
        return index

    def named_in(self, asked: set[str]) -> list[tuple[str, ...]]:
        """The phrases made only of the question's words, in `candidates` order."""
        found = [(place, phrase) for word in asked for place, phrase in
                 self.by_first_word.get(word, ()) if asked.issuperset(phrase)]
        return [phrase for _, phrase in sorted(found)]

    def keys_of(self, phrase: tuple[str, ...]) -> dict[str, set[int]] | None:
        """The rows of each column that hold the phrase, None when no cell does."""
        return self.candidates.get(phrase)

    def text_of(self, phrase: tuple[str, ...]) -> str:
        return self.texts[phrase]

    def listing(self, item: tuple[str, ...]) -> list[tuple[str, ...]]:
        return self.listed_in.get(item, [])

    def items(self) -> Iterator[tuple[str, Any]]:
        """Its keys in the workspace: each phrase ("p:") with its rows and text, the phrases
        by their rarest word ("w:", for `named_in`), the listing phrases by item ("l:")."""
        count: dict[str, int] = defaultdict(int)
        for phrase in self.candidates:
            for word in set(phrase):
                count[word] += 1
        by_word: dict[str, list[Any]] = defaultdict(list)
        for place, (phrase, keys) in enumerate(self.candidates.items()):
            yield f"p:{_phrase_key(phrase)}", [{k: sorted(r) for k, r in keys.items()},
                                               self.texts[phrase]]
            # A phrase the question names has all its words asked, so its rarest one too.
            by_word[min(set(phrase), key=lambda w: (count[w], w))].append([place, phrase])
        yield from ((f"w:{w}", found) for w, found in by_word.items())
        yield from ((f"l:{_phrase_key(item)}", others) for item, others in self.listed_in.items())


def _phrase_key(phrase: tuple[str, ...]) -> str:
    return orjson.dumps(phrase).decode()


class _StoredPhrases:
    """A table's value phrases (`_ValuePhrases`) read from the workspace as questions name
    them: a phrase, the phrases of a word, the phrases listing an item."""

    def __init__(self, keys: StoredKeys) -> None:
        self._keys = keys

    def named_in(self, asked: set[str]) -> list[tuple[str, ...]]:
        found = [(place, tuple(phrase)) for places in
                 self._keys.get_many(f"w:{w}" for w in sorted(asked)).values()
                 for place, phrase in places if asked.issuperset(phrase)]
        return [phrase for _, phrase in sorted(found)]

    def keys_of(self, phrase: tuple[str, ...]) -> dict[str, set[int]] | None:
        found = self._keys.get(f"p:{_phrase_key(phrase)}")
        return None if found is None else {k: set(r) for k, r in found[0].items()}

    def text_of(self, phrase: tuple[str, ...]) -> str:
        return self._keys.get(f"p:{_phrase_key(phrase)}")[1]

    def listing(self, item: tuple[str, ...]) -> list[tuple[str, ...]]:
        return [tuple(o) for o in self._keys.get(f"l:{_phrase_key(item)}") or ()]


_Phrases = _ValuePhrases | _StoredPhrases


def _value_phrases(frame: Frame, groups: _TextGroups | None = None) -> _Phrases:
    """The table's value phrases (`_read_value_phrases`), read once per table."""
    return keyed_fact(frame, "value_phrases",
                      lambda f: _read_value_phrases(f, groups=groups and groups.groups),
                      _ValuePhrases.items, _StoredPhrases)


_SENSE_WORDS = frozenset(split_words("over under above below not no without off out"))
"""Stopwords that turn a short label's meaning ("Over budget", "Not started", "Out of
stock"): such a label is named only with them."""


_YEAR_CELL = re.compile(r"\s*((?:1[89]|20)\d\d)\s*")


def year_of(text: str) -> int | None:
    """The year a cell is, its footnote marks aside ("2012", "2012 r/"), else None."""
    m = _YEAR_CELL.fullmatch(matching_label(text))
    return int(m.group(1)) if m else None


_SERIES_LETTER = re.compile(r"(?<=[^\W\d_] )[A-Z]\W*$")
"""A capital letter ending a label after a word ("Line A", "Plan A", "Vitamin A"): a series'
designator."""


def _read_value_phrases(frame: Frame, *, by_sql: bool = True,
                        groups: list[tuple[str, str, list[int]]] | None = None
                        ) -> _ValuePhrases:
    """The phrases of the table's text cells, each text made a phrase once (its cells are
    grouped by SQL where the table can be scanned, or are `groups` when given), in the order
    the cells are first met."""
    candidates: dict[tuple[str, ...], dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    texts: dict[tuple[str, ...], str] = {}
    levels = {a.key for a in frame.levels}
    for key, written, rows in stop.checked(text_groups(frame, by_sql=by_sql)
                                           if groups is None else groups):
        # A row label is a header cell: its footnote marker ("Texas[b]") is not a word. Nor
        # is a year's, wherever it is ("2012 r/" revised).
        text = matching_label(written) if key in levels or year_of(written) else written
        # (`content_tokens(text)`, from its words split once: a tall table's texts are
        # mostly unique, so no cache saves the splitting.)
        said = words(text)
        # A capital letter ending a name of a series ("Line A" beside "Line B") is no
        # article: without it "Line A" would be named by any "line" of a question.
        series = len(said) > 1 and _SERIES_LETTER.search(text) is not None
        phrase = tuple(stem(w) for i, w in enumerate(said) if w not in STOPWORDS
                       or series and i == len(said) - 1) or tuple(
            w for w in map(stem, said) if w)
        if len(said) <= 4 and not _SENSE_WORDS.isdisjoint(said):
            # "Over budget", "Not started": without its "over" or "not" the phrase would be
            # named by any "budget" or "started" of a question.
            phrase = tuple(w for w in (stem(x) for x in said) if w)
        if not phrase or len(phrase) > 12:
            continue
        candidates[phrase][key].update(rows)
        texts.setdefault(phrase, written)
    _add_class_nouns(candidates, texts)  # over the cells' own phrases: before the next two
    _add_qualifier_names(candidates, texts)
    _add_bare_ranges(candidates, texts)
    _add_labelled_values(candidates, texts)
    _add_inverted_labels(candidates, texts)
    return _ValuePhrases({p: dict(keys) for p, keys in candidates.items()}, texts)


_LABELLED = re.compile(r"^\s*(?!(?:less|add|plus|minus|of which)\s*:)"
                       r"[^\W\d_]+(?:[ '-][^\W\d_]+){0,2}\s*:\s*(\S*[^\W\d_].*)$",
                       re.IGNORECASE)
"""A cell that labels its value ("Measure: Cooling degree days", "Sex: Female"); not the
sign of a statement line ("Less: valuation allowance" is a deduction, written negative)."""


_CODED = re.compile(r"^\W*(\S.*?)\s*,\s*[A-Z]{1,5}\d{0,2}\s*$")
"""A name with a code after a comma ("Bavaria, TL2", "Île-de-France, FR1")."""


def _add_labelled_values(candidates: dict[tuple[str, ...], dict[str, set[int]]],
                         texts: dict[tuple[str, ...], str]) -> None:
    """Let a labelled cell be named by its value alone ("cooling degree days" of "Measure:
    Cooling degree days"), and a coded name by its name ("Bavaria" of "Bavaria, TL2"), unless
    another cell is written that way."""
    for phrase, keys in list(candidates.items()):
        m = _LABELLED.match(texts[phrase]) or _CODED.match(texts[phrase])
        if m is None:
            continue
        value = tuple(content_tokens(m.group(1)))
        if value and value != phrase and value not in candidates:
            candidates[value] = {key: set(rows) for key, rows in keys.items()}
            texts[value] = texts[phrase]


_RANGE_UNITS = frozenset(stem(w) for w in split_words("year years yr yrs old age aged month "
                                                      "months week weeks day days"))


_INVERTED = re.compile(r"^\s*([^\W\d_][^,;:()\d]*?),\s*([^\W\d_]+(?:\s+[^\W\d_]+)?)\s*$")
"""A statement line's label written with its qualifier last: "Inventories, net",
"Property and equipment, gross"."""


def _add_inverted_labels(candidates: dict[tuple[str, ...], dict[str, set[int]]],
                         texts: dict[tuple[str, ...], str]) -> None:
    """Let "Inventories, net" be named as it is said, "net inventories": its qualifier first."""
    for phrase, keys in list(candidates.items()):
        m = _INVERTED.match(texts[phrase])
        if m is None:
            continue
        said = words(m.group(2)) + words(m.group(1))
        turned = tuple(stem(w) for w in said if w not in STOPWORDS)
        if len(turned) < 2 or turned == phrase or turned in candidates:
            continue
        for key, rows in keys.items():
            candidates[turned][key] |= rows
        texts.setdefault(turned, texts[phrase])


def _add_bare_ranges(candidates: dict[tuple[str, ...], dict[str, set[int]]],
                     texts: dict[tuple[str, ...], str]) -> None:
    """Let a band such as "16 to 24 years" be named by its numbers alone ("women aged 16 to
    24"): the unit is what every band of the column says. Only two numbers or more, so a
    lone "55" of "55 years and over" stays a number."""
    for phrase, keys in list(candidates.items()):
        numbers = tuple(w for w in phrase if w.isdigit())
        units = [w for w in phrase if not w.isdigit()]
        if len(numbers) < 2 or not units or not set(units) <= _RANGE_UNITS:
            continue
        for key, rows in keys.items():
            if key not in candidates.get(numbers, {}):
                candidates[numbers][key] |= rows
                texts.setdefault(numbers, texts[phrase])


def _match_values(grounding: Grounding) -> None:
    """Find cell values and row-group labels named in the question, longest first."""
    frame = grounding.frame
    phrases = _value_phrases(frame)
    headers = {tuple(label_tokens(a.path[-1])) for a in frame.attrs if a.path}
    header_texts = {fold(a.path[-1]).strip() for a in frame.attrs if a.path}
    taken: set[int] = {p for v in grounding.values for p in v.positions}
    taken |= _header_numbers(frame, grounding.q_words)  # "3" of "Region 3" is no cell's "3"
    taken |= _numbers_after_a_key(frame, grounding.q_words)  # "stage 20" is no "20 July"
    taken |= grounding.thresholds
    asked = set(grounding.q_words)
    # "Which Age band ...", "Blue Party Votes": words that say a header of two or more words
    # whole, at any level, name its columns, not a value that shares one of them (the "All
    # ages" row, a Winner "Blue").
    header_words: set[int] = set()
    levels = {tuple(label_tokens(part)) for a in frame.attrs for part in a.path}
    for header in levels:
        if len(header) > 1 and set(header) <= asked:
            header_words.update(_find_phrase(grounding.q_words, list(header), taken) or ())
    # Only phrases made of the question's words can be found in it (a long table has many).
    named = phrases.named_in(asked)
    for phrase in sorted(named, key=len, reverse=True):
        if phrase in headers and (
                fold(text := phrases.text_of(phrase)).strip() in header_texts
                or tuple(label_tokens(text)) != phrase):
            # A header repeated in the body (or said by a part of a cell, "Öja (island)")
            # names the column, not a row; a whole cell written otherwise, a Status "Open"
            # beside an "Opened" column, is a value all the same.
            continue
        if phrase in levels and len(cell := words(fold(phrases.text_of(phrase)))) > len(phrase) \
                and not says_words(grounding.raw_words, cell):
            # "2023 Casualties" under a header "Casualties": the header's word, not the row
            # "All casualties" whose other word is a stopword (unless the question says it).
            continue
        positions = _find_phrase(grounding.q_words, list(phrase), taken | header_words)
        if positions is not None and len(phrase) > 1 and any(
                len(w) == 1 and w in STOP_STEMS and (p - 1 not in positions
                                                     or p not in grounding.single_capitals)
                for p, w in zip(positions, phrase, strict=False)):
            # "Line A" is said "Line A", its letter a capital right after the word: not by
            # "per line on a day shift".
            positions = None
        if positions is None:
            continue
        if len(phrase) == 1 and grounding.q_words[positions[0]] in OPERATION_WORDS | STOP_STEMS \
                and positions[0] not in grounding.capitals \
                and not _names_a_row_with(grounding, phrases.keys_of(phrase) or {}, positions[0]):
            # The word as a word ("a", "most"), unless written as a name further on: "got a
            # grade of A".
            later = [i for i in sorted(grounding.capitals) if i > positions[0] and i not in taken
                     and grounding.q_words[i] == phrase[0]]
            if not later:
                continue
            positions = [later[0]]
        taken.update(positions)
        keys = _said_column(grounding, phrases.keys_of(phrase) or {}, positions[0])
        exclusive = _said_exclusively(grounding.raw_words or grounding.q_words, positions)
        for key, rows in keys.items():
            # Cells that list the value among others ("Aeromexico, Interjet") hold it too,
            # unless the question says the value alone ("peaks in India *only*").
            listing = set() if exclusive else _rows_listing(phrases, phrase, key)
            grounding.values.append(ValueMatch(key, phrases.text_of(phrase),
                                               frozenset(rows | listing),
                                               frozenset(positions), not listing))
        grounding.explained.update(positions)
        _match_shared_head(grounding, phrases, phrase, positions, taken)


_EXCLUSIVE = frozenset(["only", "alone", "solely", "exclusively"])
_BEFORE_A_PLACE = frozenset(["in", "on", "at", "from", "by", "for", "to", "with"])


def _said_exclusively(raw: list[str], positions: list[int]) -> bool:
    """Whether the question says a value alone: "only" (or "alone", "solely") right after it
    ("in India *only*") or before it ("*only* in India", "*only* India")."""
    first, last = min(positions), max(positions)
    return (last + 1 < len(raw) and raw[last + 1] in _EXCLUSIVE
            or first >= 1 and raw[first - 1] in _EXCLUSIVE
            or first >= 2 and raw[first - 1] in _BEFORE_A_PLACE and raw[first - 2] in _EXCLUSIVE)


def _names_a_row_with(grounding: Grounding, keys: dict[str, set[int]], at: int) -> bool:
    """Whether an order word that is also a cell ("First" of a Cabin column) is said right
    beside a value already found in another column of one of its rows ("long-haul *first*"
    over Route type "Long-haul"): the two name a row together, and the word asks nothing."""
    return (grounding.raw_words or grounding.q_words)[at] in ORDER_WORDS and any(
        vm.attr not in keys and any(vm.rows & rows for rows in keys.values())
        and (at - 1 in vm.positions or at + 1 in vm.positions)
        for vm in grounding.values)


def _explain_value_units(grounding: Grounding) -> None:
    """The unit a named row states in its label ("Luxembourg (GWh)") explains the question's
    word for it ("Luxembourg's hydro generation in *GWh*")."""
    for vm in grounding.values:
        split = qualified_parts(vm.text)
        unit = set(label_tokens(split[1])) if split else set()
        # (All of it: "in USD m" is not the unit of "Ending MRR (USD k)".)
        if unit and unit <= MEASURING_UNITS and unit <= set(grounding.q_words):
            grounding.explained.update(i for i, w in enumerate(grounding.q_words)
                                       if w in unit and i in grounding.content)


def says_words(said: list[str], cell: list[str]) -> bool:
    """Whether the question's words hold a cell's words in a row, as written."""
    n = len(cell)
    return any(said[i:i + n] == cell for i in range(len(said) - n + 1))


def _said_column(grounding: Grounding, keys: dict[str, set[int]], start: int
                 ) -> dict[str, set[int]]:
    """Of the columns a value is found in, the one whose name the question says right before
    it ("the Album *Night Ferry*", a title track's name being a Title too); all of them when
    it says none, or several."""
    if len(keys) < 2:
        return keys
    before = {w for w in grounding.q_words[max(0, start - 3):start] if w not in STOP_STEMS}
    said = [k for k in keys if (tokens := grounding.frame.attr(k).tokens) and tokens <= before]
    return {said[0]: keys[said[0]]} if len(said) == 1 else keys


_COORDINATORS = frozenset({"and", "or"})


def _match_shared_head(grounding: Grounding, phrases: _Phrases, phrase: tuple[str, ...],
                       positions: list[int], taken: set[int]) -> None:
    """Values that share the words before their last with a value just found: "agricultural
    exports and imports" names "Agricultural exports" and "Agricultural imports".

    Only a last word that completes another value of the same column counts, so "the exports
    and the total" does not turn "total" into "Agricultural total"."""
    if len(phrase) < 2:
        return
    q, head = grounding.q_words, phrase[:-1]
    keys = set(phrases.keys_of(phrase) or ())
    at = positions[-1] + 1
    while at + 1 < len(q) and q[at] in _COORDINATORS and at + 1 not in taken:
        other = (*head, q[at + 1])
        found = phrases.keys_of(other)
        if not found or not keys & set(found):
            return
        taken.add(at + 1)
        for key in keys & set(found):
            grounding.values.append(ValueMatch(key, phrases.text_of(other),
                                               frozenset(found[key]), frozenset([at + 1]), True))
        grounding.explained.add(at + 1)
        at += 2


_NOT_CLASS_NOUNS = frozenset(stem(w) for w in split_words("total totals subtotal all other "
                                                            "average mean overall"))


def _add_class_nouns(candidates: dict[tuple[str, ...], dict[str, set[int]]],
                     texts: dict[tuple[str, ...], str]) -> None:
    """Let a value be named without the noun its column's values all end with ("Hull" of
    "Hull plant" beside "Leeds plant" and "Derby plant"; "North" of "North region"): that
    noun says what kind of row it is, and a reader drops it. Only when most of the column's
    values end so, and the shorter name is no other value anywhere."""
    by_key: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for phrase, keys in candidates.items():
        for key in keys:
            by_key[key].append(phrase)
    for key, phrases in by_key.items():
        # (Totals are rows of their own kind: "Leeds subtotal" beside "Leeds plant".)
        # Short names only ("Hull plant"): a long label's last word ("... change per year")
        # is part of a description, not a kind of row.
        named = [p for p in phrases if p[-1] not in _NOT_CLASS_NOUNS]
        last = Counter(p[-1] for p in named if 1 < len(p) <= 3 and "(" not in texts[p])
        if not last:
            continue
        noun, n = last.most_common(1)[0]
        if n < 2 or 3 * n < 2 * len(named):
            continue
        for phrase in phrases:
            if 1 < len(phrase) <= 3 and phrase[-1] == noun and "(" not in texts[phrase] \
                    and phrase[:-1] not in candidates:
                candidates[phrase[:-1]][key] |= candidates[phrase][key]
                texts.setdefault(phrase[:-1], texts[phrase])


def _add_qualifier_names(candidates: dict[tuple[str, ...], dict[str, set[int]]],
                         texts: dict[tuple[str, ...], str]) -> None:
    """Let the name or the qualifier of a value such as "Methane (CH4)" name its rows alone,
    when no other value of the same column has that part too (`_qualifier_names`)."""
    by_key: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for phrase, keys in candidates.items():
        for key in keys:
            by_key[key].append(phrase)
    for key, phrases in by_key.items():
        qualified = [p for p in phrases if "(" in texts[p]]
        if not qualified:
            continue
        labels = [texts[p] for p in phrases]
        for phrase, alone in zip(phrases, _qualifier_names(labels), strict=True):
            for part in alone:
                if set(part) <= MEASURING_UNITS:
                    # "(GWh)" of "Luxembourg (GWh)" names no row alone: "in USD m" after a
                    # question would pick another table's "Revenue (USD m)" band. It only
                    # says the unit of a row named otherwise (`_explain_value_units`).
                    continue
                if part not in candidates or key not in candidates[part]:
                    candidates[part][key] |= candidates[phrase][key]
                    texts.setdefault(part, texts[phrase])


def _rows_listing(phrases: _Phrases, phrase: tuple[str, ...], key: str) -> set[int]:
    """Rows of column `key` whose cell lists `phrase` among other items ("Aeromexico,
    Interjet"); "Interjet Cargo" is another name, not a list, and does not count."""
    rows: set[int] = set()
    for other in phrases.listing(phrase):
        by_key = phrases.keys_of(other) or {}
        if key in by_key and len(other) > len(phrase):
            rows |= by_key[key]
    return rows


_LIST_SEPARATOR = re.compile(r"\s*(?:[,/;&]|\band\b)\s*", re.IGNORECASE)
_NAME_LIST_SEPARATOR = re.compile(r"\s*[,;&]\s*")
"""What separates the names a cell lists ("Dana Calvo & Robert Hull")."""


def _match_numeric_keys(grounding: Grounding, analysis_target: tuple[str, ...] = ()) -> None:
    """Numbers that identify rows: a year in a year column ("in 1998"), or a number right after
    its column's name ("week 3", "Tech. Class 1"). A number that ends a header's name ("Region
    3", "Amount 2") names that header, whatever the cells hold."""
    frame = grounding.frame
    q = grounding.q_words
    taken = grounding.explained | {p for v in grounding.values for p in v.positions}
    taken |= _header_numbers(frame, q)
    for i, w in enumerate(q):
        ordinal = _ORDINAL.match(w)
        if i in taken or not (w.isdecimal() or ordinal):
            continue
        if ordinal:
            # "the 6th season": an ordinal names a row only right before its column's name.
            _match_ordinal_key(grounding, i, int(ordinal.group(1)))
            continue
        number = int(w)
        if _match_written_quantity(grounding, i):
            continue
        # A column whose whole header the question writes before the number comes first:
        # "Season 3" is the Season column's 3, not the No. in season column's.
        for attr in sorted(frame.attrs, key=lambda a: not _whole_header_before(q, i, a)):
            stop.check()
            named = _named_before(q, i, attr)
            key = row_key(attr)
            # A year names rows in a column of years ("joined in 1995" over "Year joined"):
            # a year is a date, never an amount that equals the number by chance.
            # So does a column of years the question names ("completed in 2017" over
            # "Completed").
            is_year = 1800 <= number <= 2100 and (
                bool(attr.tokens & _YEAR_HEADERS) and (
                    key or attr.key in profile(frame).year_columns)
                or attr.tokens and attr.tokens <= set(q)
                and attr.key in profile(frame).year_columns
                and grounding.raw_words[i].isdecimal())  # (not "the 1990s", a decade)
            # "which episode ..., 5 or 6": the column the question asks about holds the number.
            asked = key and bool(attr.tokens & set(analysis_target))
            if not (named or is_year or asked):
                continue
            rows = frozenset(r for r in frame.rows if (v := frame.value(r, attr.key)) is not None
                             and (v.number == number if v.number is not None
                                  else v.text.strip() == w))
            if not rows and key and _whole_header_before(q, i, attr):
                break  # "Season 9" where no row is season 9: no other column's 9 is meant
            if rows:
                positions = frozenset({i, *named})
                text = frame.value(next(iter(rows)), attr.key).text
                grounding.values.append(ValueMatch(attr.key, text, rows, positions, True))
                grounding.explained.update(positions)
                break


_YEAR_HEADERS = frozenset({"year", "season", "date"})


def _match_written_quantity(grounding: Grounding, i: int) -> bool:
    """A number and its unit written as a cell writes them ("the *800 m*" beside an Event
    column of "800 m", "1500 m"): the question names the cell by its whole text, which a
    number alone would not ("3" beside a 3 among a million amounts). Only columns of
    quantities are looked in (text cells are found as value phrases), by SQL when the table
    can be scanned: a tall table's column is not read into Python for a question."""
    q = grounding.q_words
    unit = q[i + 1] if i + 1 < len(q) else ""
    if not (unit.isalpha() and len(unit) <= 3) or unit in STOP_STEMS \
            or i + 1 in grounding.explained:
        return False
    written = {f"{q[i]}{space}{form}" for space in (" ", "")
               for form in (unit, unit.upper(), unit.capitalize())}
    frame = grounding.frame
    scan = scan_of(frame)
    for attr in frame.data_attrs:
        if not attr.measurable:
            continue
        if scan is not None and attr.col is not None:
            rows = frozenset(scan.rows_holding(attr.col, written))
        else:
            rows = frozenset(r for r in frame.rows if (v := frame.value(r, attr.key))
                             is not None and " ".join(v.text.split()) in written)
        if rows:
            text = frame.value(min(rows), attr.key).text
            grounding.values.append(ValueMatch(attr.key, text, rows, frozenset({i, i + 1}),
                                               True))
            grounding.explained.update({i, i + 1})
            return True
    return False
    written = {f"{q[i]} {unit}", f"{q[i]}{unit}"}
    frame = grounding.frame
    for attr in frame.attrs:
        stop.check()
        if attr.kind == "level":
            continue
        rows = frozenset(r for r in frame.rows if (v := frame.value(r, attr.key)) is not None
                         and " ".join(fold(v.text).split()) in written)
        if rows:
            text = frame.value(next(iter(rows)), attr.key).text
            grounding.values.append(ValueMatch(attr.key, text, rows, frozenset({i, i + 1}),
                                               True))
            grounding.explained.update({i, i + 1})
            return True
    return False


def _whole_header_before(q: list[str], i: int, attr: Attr) -> bool:
    """Whether the words right before question word `i` are the column's whole own header."""
    leaf = label_tokens(naming_path(attr.path)[-1]) if attr.path else []
    return bool(leaf) and q[max(0, i - len(leaf)):i] == leaf


def _named_before(q: list[str], i: int, attr: Attr) -> frozenset[int]:
    """The positions of the words right before question word `i` that name column `attr`, as
    the column of a row key: its whole own header ("Tech. Class 1", "Day 64"), or, for a key
    column (`row_key`), one word of its header ("week 3" before "Week no."). Empty when none:
    a word of a parent header ("Region" over "Region 3 > Q2") is no name of the column."""
    leaf = label_tokens(naming_path(attr.path)[-1]) if attr.path else []
    if leaf and q[max(0, i - len(leaf)):i] == leaf:
        return frozenset(range(i - len(leaf), i))
    if i > 0 and q[i - 1] in attr.tokens and row_key(attr):
        return frozenset({i - 1})
    return frozenset()


def _header_numbers(frame: Frame, q: list[str]) -> set[int]:
    """Positions of the question's numbers that end the name of a column or a column group it
    writes out ("Region 3", "Amount 2"): that number is part of a name, not a row's value."""
    labels = {label for a in frame.data_attrs for label in a.path}
    labels |= {node.text for node in frame.col_nodes}
    found: set[int] = set()
    for label in labels:
        words_ = label_tokens(label)
        if len(words_) < 2 or not words_[-1].isdecimal():
            continue
        positions = _find_phrase(q, words_, set())
        if positions and positions[-1] - positions[0] == len(words_) - 1:
            found.add(positions[-1])
    return found


def _numbers_after_a_key(frame: Frame, q: list[str]) -> set[int]:
    """Positions of the question's numbers right after the whole header of a column of
    numbers that names the rows ("stage 20" over Stage 1, 2, ... 21): that column's value
    (`_match_numeric_keys`), not a longer cell holding the number ("20 July")."""
    keys = [a for a in frame.attrs if a.measurable and row_key(a)]
    return {i for i, w in enumerate(q) if w.isdecimal()
            and any(_whole_header_before(q, i, a) for a in keys)}


def row_key(attr: Attr) -> bool:
    """True when a column's cells are labels of its rows, so a number in the question can name
    a row by them: the row labels, a text column, or numbers under an identifier's header
    ("Week", "No.", "Season"). A measured column names rows by a number only where the
    question writes its whole header right before it (`_named_before`): that one of its cells
    happens to equal a number ("Region 3" beside a 3 among a million amounts) says nothing,
    and would make the answer depend on the size of the table."""
    if attr.kind == "level" or not attr.measurable:
        return True
    leaf = set(label_tokens(naming_path(attr.path)[-1])) if attr.path else set()
    return bool(leaf) and leaf <= ID_WORDS | {"of", "the"}


_MONTH = "|".join(sorted({*MONTHS, *(m[:3] for m in MONTHS), "sept"}, key=len, reverse=True))
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:18|19|20)\d\d)"
_DATES = [re.compile(p) for p in (
    rf"\b{_YEAR}-(?P<month>\d{{1,2}})-{_DAY}\b",  # 2016-06-20
    rf"\b(?P<month>{_MONTH})\.?\s+{_DAY}\b(?:,?\s+{_YEAR}\b)?",  # February 25, 2016
    rf"\b{_DAY}\s+(?:of\s+)?(?P<month>{_MONTH})\b\.?(?:,?\s+{_YEAR}\b)?",  # 25 Feb 2016
    rf"\b(?P<month>{_MONTH})\.?,?\s+{_YEAR}\b",  # August 2014
)]
"""Dates as questions write them, in the folded text: ISO, month-day, day-month, and a month
of a year; the year may be left out after a day."""


_BOUND = re.compile(r"\b(?:after|before|since|until|till|prior to|from|by|following|"
                    r"through|between|to)\s+(?:the\s+)?$")
"""A date right after one of these words bounds a range ("wins after November 6"): it is no
row's date, so it picks none."""


def _question_dates(text: str) -> list[tuple[frozenset[int], str]]:
    """The dates a question names, each as the positions of its words and a pattern of the
    ISO dates it stands for ("2016-02-25", "____-03-02" with no year, "2014-08-__")."""
    folded = fold(text)
    spans = word_spans(text)
    found: list[tuple[frozenset[int], str]] = []
    used: set[int] = set()
    for pattern in _DATES:
        for m in pattern.finditer(folded):
            parts = m.groupdict()
            month = month_number(parts["month"]) or int(parts["month"])
            day = int(parts["day"]) if parts.get("day") else None
            if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
                continue
            positions = frozenset(i for i, (a, b) in enumerate(spans)
                                  if a >= m.start() and b <= m.end())
            if not positions or positions & used or _BOUND.search(folded, 0, m.start()):
                continue
            used |= positions
            year = parts.get("year") or "____"
            found.append((positions, f"{year}-{month:02d}-{day:02d}" if day else
                          f"{year}-{month:02d}-__"))
    return found


def _match_dates(grounding: Grounding, text: str) -> None:
    """A date in the question ("February 25, 2016", "Mar 3", "2016-06-20", "August 2014")
    picks the rows of a date column whose date it is, however the cells write it."""
    dates = _question_dates(text)
    if not dates:
        return
    frame = grounding.frame
    day_first = {a.key: _labels_day_first(frame, a.key) for a in frame.attrs if a.kind == "level"}
    for positions, wanted in dates:
        like = re.compile(wanted.replace("_", r"\d") + "$")
        for attr in frame.attrs:
            level = attr.kind == "level"
            rows = frozenset(r for r in frame.rows if (v := frame.value(r, attr.key))
                             is not None and like.match(
                                 _cell_date(v, level, day_first.get(attr.key, False))[:10]))
            if rows:
                value = frame.value(min(rows), attr.key).text
                grounding.values.append(ValueMatch(attr.key, value, rows, positions, True))
                grounding.explained.update(positions)


_YEAR_WORD = re.compile(r"(?:19|20)\d\d")


def _match_years_of_dates(grounding: Grounding) -> None:
    """A year left unexplained ("the average price *in 2023*") picks the rows of a column of
    dates ("Jan 2023" ... "Mar 2024") dated in it, when the column holds other years too."""
    frame = grounding.frame
    taken = grounding.explained | {p for v in grounding.values for p in v.positions}
    years = [i for i, raw in enumerate(grounding.raw_words) if i not in taken
             and i in grounding.content and _YEAR_WORD.fullmatch(raw)]
    if not years:
        return
    columns: dict[str, dict[int, str]] = {}  # each column of dates, its years by row, read once
    for attr in frame.attrs:
        level = attr.kind == "level"
        # (Only a column whose first rows are dates is read whole: a tall table's other
        # columns are not scanned for a year.)
        if not level and attr.measurable or not any(
                v is not None and _cell_date(v, level)
                for v in frame.values_of(attr.key, frame.rows[:DATED_ROWS])):
            continue
        first = level and _labels_day_first(frame, attr.key)
        columns[attr.key] = {
            r: d[:4] for r, v in zip(frame.rows, frame.values_of(attr.key, frame.rows),
                                     strict=True)
            if v is not None and (d := _cell_date(v, level, first))}
    for i in years:
        raw = grounding.raw_words[i]
        for key, dated in columns.items():
            rows = frozenset(r for r, year in dated.items() if year == raw)
            if len(rows) < 2 or len(rows) == len(dated) or len(dated) < len(frame.rows) / 2:
                continue
            grounding.values.append(ValueMatch(key, raw, rows, frozenset({i}), True))
            grounding.explained.add(i)
            break


DATED_ROWS = 50
"""The first rows of a column read to tell whether it holds dates."""


def _cell_date(value, level: bool, day_first: bool = False) -> str:
    """A cell's ISO date; a row label is stored as text, so its text is read as a date (day
    first when its column writes its dates so: `_labels_day_first`)."""
    if value.date:
        return value.date
    if not level:
        return ""
    return _text_date(as_day_first(value.text) if day_first else value.text)


def _labels_day_first(frame: Frame, key: str) -> bool:
    """Whether a column of row labels writes its "a/b/year" dates day first ("05/02/2024"
    beside "19/02/2024" is 5 February, not 2 May), as `writes_day_first` tells (read once per
    frame: the date, month and year matches all ask)."""
    memo = f"labels_day_first:{key}"
    if memo not in frame.memo:
        frame.memo[memo] = writes_day_first([v.text for v in frame.values_of(key, frame.rows)
                                             if v is not None and v.date is None])
    return frame.memo[memo]


@lru_cache(maxsize=65536)
def _text_date(text: str) -> str:
    """The ISO date a label's text writes, else ""."""
    return parse_value(text).date or "" if any(ch.isdigit() for ch in text) else ""


_MONTH_HEADERS = frozenset(stem(w) for w in split_words("month months mo mon period"))


def _match_month_numbers(grounding: Grounding) -> None:
    """A month name in the question ("in December") picks the rows of a month column that
    holds it as a number (12), when the table does not write the month as a word."""
    frame = grounding.frame
    q = grounding.q_words
    taken = grounding.explained | {p for v in grounding.values for p in v.positions}
    for i, raw in enumerate(grounding.raw_words):
        number = month_number(raw)
        if i in taken or i not in grounding.content or number is None:
            continue
        for attr in frame.attrs:
            if not attr.tokens & _MONTH_HEADERS:
                continue
            numbers = {v.number for r in frame.rows if (v := frame.value(r, attr.key))
                       is not None and v.number is not None}
            if not numbers or not numbers <= set(range(1, 13)) or q[i] != stem(raw):
                continue
            rows = frozenset(r for r in frame.rows if (v := frame.value(r, attr.key))
                             is not None and v.number == number)
            if rows:
                text = frame.value(next(iter(rows)), attr.key).text
                grounding.values.append(ValueMatch(attr.key, text, rows, frozenset({i}), True))
                grounding.explained.add(i)
                break
        else:
            _match_month_of_dates(grounding, i, number)


def _match_month_of_dates(grounding: Grounding, i: int, number: int) -> None:
    """A month name alone ("the race in July") picks the rows of the one date column whose
    dates fall in that month ("10 July", "2011-07-24"); with two date columns (start and
    end) the month could be either's, so it picks none."""
    frame = grounding.frame
    found = []
    for key, months in _months_by_column(frame).items():
        if rows := frozenset(r for r, month in months.items() if month == number):
            found.append((frame.attr(key), rows))
    if len(found) == 1:
        attr, rows = found[0]
        text = frame.value(min(rows), attr.key).text
        grounding.values.append(ValueMatch(attr.key, text, rows, frozenset({i}), False))
        grounding.explained.add(i)


def _months_by_column(frame: Frame) -> dict[str, dict[int, int]]:
    """The month of each dated cell, by column (found once per table and stored: a month
    word would otherwise parse every cell of a tall table on each question)."""
    return table_fact(frame, "months_by_column", _find_months, _dump_months, _load_months)


def _find_months(frame: Frame) -> dict[str, dict[int, int]]:
    out: dict[str, dict[int, int]] = {}
    for attr in frame.attrs:
        first = attr.kind == "level" and _labels_day_first(frame, attr.key)
        months = {r: m for r in frame.rows if (v := frame.value(r, attr.key)) is not None
                  and (m := _month_of(v.date or _text_date(as_day_first(v.text) if first
                                                           else v.text)))}
        if months:
            out[attr.key] = months
    return out


def _dump_months(found: dict[str, dict[int, int]]) -> dict[str, list[list[int]]]:
    return {k: [[r, m] for r, m in months.items()] for k, months in found.items()}


def _load_months(data: dict[str, list[list[int]]]) -> dict[str, dict[int, int]]:
    return {k: {r: m for r, m in pairs} for k, pairs in data.items()}


def _month_of(date: str | None) -> int | None:
    """The month of an ISO date as cells store it ("2011-07-24", "--07-10", "2011-07")."""
    if not date:
        return None
    parts = date.lstrip("-").split("-") if date.startswith("--") else date.split("-")[1:]
    return int(parts[0]) if parts and parts[0].isdigit() else None


def _qualifier_names(labels: list[str]) -> list[list[tuple[str, ...]]]:
    """For each label, the words of its name and of its parenthesised qualifier ("Methane
    (CH4)": ("methane",), ("ch4",)) that name it alone: a part another label also has
    ("Area (km2)" beside "Area (sq mi)", or beside "Area") does not."""
    parts = []
    qualifiers: list[tuple[str, ...]] = []
    for label in labels:
        split = qualified_parts(label)
        # A name qualified twice ("Methane (CH4) (MtCO2e)"): its inner name and qualifier too.
        inner = qualified_parts(split[0]) if split else None
        pieces = [*split, *(inner or ())] if split else []
        parts.append([t for t in (tuple(label_tokens(p)) for p in pieces) if t])
        qualifiers.append(tuple(label_tokens(split[1])) if split else ())
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    for label, names in zip(labels, parts, strict=True):
        for names_ in {*names, tuple(label_tokens(label))}:
            counts[names_] += 1
    # Nor a qualifier whose words another label holds among its own ("small" of "J - SUV
    # (small)" beside "B - Small"): the word names that one just as well. (A name is its
    # label's own: "Intensity" of "Intensity (tCO2e/MWh)" beside "Intensity change".)
    asked = {w for q in qualifiers for w in q}
    holding: dict[str, set[int]] = defaultdict(set)
    for i, label in enumerate(labels):
        for w in set(label_tokens(label)) & asked:
            holding[w].add(i)
    def shared(i: int, n: tuple[str, ...]) -> bool:
        return bool(set.intersection(*(holding[w] for w in n)) - {i})
    return [[n for n in names if counts[n] == 1 and not (
        n == qualifiers[i] and not set(n) <= MEASURING_UNITS and shared(i, n))]
            for i, names in enumerate(parts)]


_ORDINAL = re.compile(r"^(\d{1,4})(?:st|nd|rd|th)$")


def _match_ordinal_key(grounding: Grounding, i: int, number: int) -> None:
    """Tie "6th" in "the 6th season" to the rows whose "Season" cell is 6 (or "6th")."""
    frame = grounding.frame
    q = grounding.q_words
    if i + 1 >= len(q):
        return
    for attr in frame.attrs:
        # As for "week 3" (`_named_before`): a key column by a word of its header, any column
        # by its whole own header; never by a parent header's word.
        own = label_tokens(naming_path(attr.path)[-1]) if attr.path else []
        if q[i + 1] not in attr.tokens or not (row_key(attr) or own == [q[i + 1]]):
            continue
        rows = frozenset(r for r in frame.rows if (v := frame.value(r, attr.key)) is not None
                         and (v.number == number if v.number is not None
                              else v.text.strip().casefold() == q[i]))
        if rows:
            text = frame.value(next(iter(rows)), attr.key).text
            grounding.values.append(ValueMatch(attr.key, text, rows, frozenset({i, i + 1}), True))
            grounding.explained.update({i, i + 1})
            return


def _header_years(attrs: list) -> dict[str, str]:
    """The year of each column whose own header is a date or a fiscal year ("September 28,
    2019", "FY19"), kept only when no sibling column (same parent headers) has the same year:
    then the year alone names the column."""
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    for attr in attrs:
        path = naming_path(attr.path)
        value = parse_value(path[-1])
        if value.kind == "date" and value.date and re.match(r"\d{4}-", value.date):
            found[attr.key] = (path[:-1], value.date[:4])
        elif value.kind == "year" and value.number is not None and not path[-1].strip().isdigit():
            found[attr.key] = (path[:-1], str(int(value.number)))
    counts: dict[tuple[tuple[str, ...], str], int] = defaultdict(int)
    for parent_year in found.values():
        counts[parent_year] += 1
    return {k: year for k, (parent, year) in found.items() if counts[(parent, year)] == 1}


_FISCAL_LABEL = re.compile(r"^\s*FY\s?((?:19|20)\d\d)\s*$", re.IGNORECASE)


def _fiscal_years(levels: tuple[str, ...]) -> set[str]:
    """The years of header levels that name a fiscal year ("FY2024" over Q1 ... Q4): "Q3
    2024" names "FY2024 > Q3" as "Q3 2024" would."""
    return {m.group(1) for level in levels if (m := _FISCAL_LABEL.match(level))}


def _qualifier_units(label: str) -> list[str]:
    """The words of a label's bracketed qualifier when they only state a unit ("(USD)",
    "(GBP m)", "(hrs)"); none otherwise."""
    split = qualified_parts(label)
    unit = label_tokens(split[1]) if split else []
    return unit if unit and set(unit) <= MEASURING_UNITS else []


def _said_in_capitals(grounding: Grounding, label: str) -> list[str]:
    """The words of a header made of stopwords only ("IT (hrs)"), when the question writes
    them in capitals ("*IT* overtime in July"); none otherwise."""
    split = qualified_parts(label)
    raw = [stem(w) for w in words(split[0] if split else label)]
    capitals = {grounding.q_words[i] for i in grounding.capitals if i < len(grounding.q_words)}
    return raw if raw and all(w in capitals for w in raw) else []


def _said_as_written(raw_words: list[str], label: str) -> bool:
    """Whether a header of two or more words is in the question word for word."""
    phrase = words(label)
    n = len(phrase)
    return n > 1 and any(raw_words[i:i + n] == phrase for i in range(len(raw_words) - n + 1))


def _match_attrs(grounding: Grounding) -> None:
    """Score every column by how fully the question names it.

    The leaf (the column's own header) counts most: a column is *named* when all of its leaf's
    words are in the question; words of its parent headers add to the score but never name it.
    A column group (a parent header such as "H2 2024") is named when all its words are there.
    """
    frame = grounding.frame
    in_values = {p for v in grounding.values for p in v.positions}
    free = {w for i, w in enumerate(grounding.q_words) if i not in in_values}
    positions_of: dict[str, set[int]] = defaultdict(set)
    for i, w in enumerate(grounding.q_words):
        if i not in in_values:
            positions_of[w].add(i)
    matches: list[AttrMatch] = []
    named = [a for a in frame.attrs if a.path]
    paths = _naming_paths(named, grounding.asks_percent)
    qualifier_names = _qualifier_names([paths[a.key][-1] for a in named])
    years = _header_years(named)
    # The leaves written with each name before a unit: "CAC (USD)" under every year is one
    # leaf; "Overrun (USD m)" beside "Overrun (%)" are two, which "overrun" cannot tell apart.
    leaves_named: dict[frozenset[str], set[str]] = defaultdict(set)
    leaf_count = Counter(paths[a.key][-1] for a in named)
    for a in named:
        leaf = paths[a.key][-1]
        leaves_named[frozenset(set(label_tokens(leaf)) - set(_qualifier_units(leaf)))].add(leaf)
    for attr, alone in zip(named, qualifier_names, strict=True):
        path = paths[attr.key]
        leaf_words = label_tokens(path[-1]) + [
            w for w in _direction_word(path[-1]) if not free & _IMPLYING.get(w, set())
            and _has_other_direction(leaf_count, path[-1])]
        if not set(leaf_words) - MEASURING_UNITS:
            leaf_words = _said_in_capitals(grounding, path[-1]) or leaf_words
        parent = set(path_tokens(path[:-1])) | _fiscal_years(path[:-1])
        leaf_hit = [w for w in leaf_words if w in free]
        parent_hit = [w for w in parent if w in free]
        if not leaf_hit and not parent_hit and years.get(attr.key) not in free:
            continue
        score = (len(set(leaf_hit)) / len(set(leaf_words)) if leaf_words else 0.0)
        score += 0.5 * (len(parent_hit) / len(parent) if parent else 0.0)
        full = bool(leaf_words) and set(leaf_words) <= free
        name_words = set(leaf_words) - set(unit_words := _qualifier_units(path[-1]))
        if not full and name_words and name_words <= free and unit_words \
                and len(leaves_named.get(frozenset(name_words), ())) == 1 \
                and leaf_count[path[-1]] > 1:
            # "CAC" names "FY2023 > CAC (USD)": a unit in brackets is never said, and the
            # same leaf under each year leaves no part of it unique to name it alone (a leaf
            # written once is named by its unique part, `_qualifier_names`).
            full, leaf_hit = True, [w for w in leaf_words if w in name_words]
            score = 1.0 + (0.5 * len(parent_hit) / len(parent) if parent else 0.0)
        if full and len(leaf_words) > 1 and _find_phrase(grounding.q_words, leaf_words, set()):
            score += 0.5  # named as the same phrase ("unpaid amount")
        elif full and _said_as_written(grounding.raw_words, path[-1]):
            # "the All tenures figure": the header as written, "All" and all, names that
            # column over the "Tenure" group whose columns it totals.
            score += 0.5
        if not full and any(set(part) <= free for part in alone):
            # "methane" names "Methane (CH4)"; scored by the words hit, below the whole name.
            # A qualifier that only states a measuring unit ("Size (sq ft)") is not part of
            # the name: "size" names it whole.
            full = True
            leaf_hit = [w for part in alone if set(part) <= free for w in part]
            if set(leaf_words) - set(leaf_hit) <= MEASURING_UNITS:
                score = max(score, 1.0)
        elif not full and years.get(attr.key) in free:
            # "in 2019" names "September 28, 2019" or "FY19", the table's only 2019 column
            # under its parent: a period written as a date or a fiscal year.
            full = True
            leaf_hit = [years[attr.key]]
            score = max(score, 1.0)
        positions = frozenset(p for w in (leaf_hit if full else []) + parent_hit
                              for p in positions_of[w])
        matches.append(AttrMatch((attr.key,), attr.label, score, positions, full=full))
    for node in frame.col_nodes:
        if not node.children:
            continue
        words_ = set(label_tokens(node.text))
        leaves = frame.leaves_under(node.id)
        if words_ and leaves and words_ <= free:
            positions = frozenset(p for w in words_ for p in positions_of[w])
            matches.append(AttrMatch(tuple(a.key for a in leaves), node.text, 1.25, positions,
                                     full=True))
    matches.sort(key=lambda m: -m.score)
    grounding.attrs = matches
    for m in matches:
        if m.full:
            grounding.explained.update(m.positions)


_DIRECTIONS = frozenset(split_words("for in from to by"))


def _direction_word(label: str) -> list[str]:
    """The preposition a label ends with ("Goals *for*", "Transfers *in*"): a stopword, yet
    it is what tells the column from its sibling ("Goals against"), so the question must
    say it too for the column to be named."""
    found = words(matching_label(label))
    return [found[-1]] if len(found) > 1 and found[-1] in _DIRECTIONS else []


def _has_other_direction(leaves: Counter[str], leaf: str) -> bool:
    """Whether another leaf has this one's words and more ("Goals against" beside "Goals
    for", "Transfers out" beside "Transfers in"): the direction tells them apart, and must be
    said. "Directed by" beside "Written by" needs no "by"."""
    own = set(label_tokens(leaf))
    return any(other != leaf and own <= set(label_tokens(other)) for other in leaves)


_IMPLYING = {"for": {stem(w) for w in split_words("score scored scores scoring")}}
"""Verbs that say the direction themselves: "how many goals did KR *score*" names "Goals
for", not "Goals against"."""


_UNIT_WORDS = frozenset(stem(w) for w in split_words("""
dollar dollars usd eur euro gbp pound yen yuan rmb cny thousand thousands million millions
billion billions in of amount amounts 000 k m mn bn pct percent percentage unit units except
per share data
"""))


PHYSICAL_UNIT_WORDS = frozenset(split_words("""
sq ft feet foot m2 km km2 mi mile miles metre metres meter meters cm mm inch inches acre acres ha
hectare hectares kg g lb lbs tonne tonnes ton tons l litre litres liter liters ml gw mw kw kwh mwh
gwh twh hr hrs hour hours min mins minute minutes sec secs second seconds mph kmh yr yrs t kt mt
"""))
"""Units of length, area, mass, volume, energy and time ("MW", "tonnes", "hours"), as written."""
PHYSICAL_UNITS = frozenset(stem(w) for w in PHYSICAL_UNIT_WORDS)
"""Their stems (which other words share: "mines" and "min")."""
MEASURING_UNITS = _UNIT_WORDS | PHYSICAL_UNITS
"""Units a parenthesised qualifier may state ("Size (sq ft)", "Height (m)")."""


def _naming_paths(named: list[Attr], asks_percent: bool) -> dict[str, tuple[str, ...]]:
    """Each column's naming path. A question that says no percent keeps the percent level
    that tells a column from its sibling: under "2022", "Percent" beside "Number" is no more
    named by "2022" than its sibling is ("enrolments in 2022" is not the percent), where
    "Amount" beside "% of total" and a lone "Revenue > $ million" are named by the level
    above them. (Said, "percentage" is the operation's word in "as a percentage of the 2018
    total", not a column's name.)"""
    if asks_percent:
        return {a.key: naming_path(a.path) for a in named}
    siblings: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for a in named:
        siblings[tuple(a.path[:-1])].append(a.path[-1])
    paths = {}
    for a in named:
        path = naming_path(a.path)
        if len(path) < len(a.path) and _PERCENT_LEVEL.search(a.path[-1]) and any(
                not _PERCENT_LEVEL.search(leaf) for leaf in siblings[tuple(a.path[:-1])]):
            path = tuple(a.path)
        paths[a.key] = path
    return paths


_PERCENT_LEVEL = re.compile(r"%|\bper\s*cent|\bpercentage\b|\bpct\b", re.IGNORECASE)


def naming_path(path: tuple[str, ...]) -> tuple[str, ...]:
    """Drop trailing header levels that only state a unit ("$ million", "(in thousands)",
    "%"): the level above them is what names the column. A column without a header (a
    table whose header row was not found) is named by one empty level, so that its last
    level can always be read."""
    if not path:
        return ("",)
    trimmed = list(path)
    while len(trimmed) > 1 and _only_unit(trimmed[-1]):
        trimmed.pop()
    return tuple(trimmed)


_SHARE = stem("share")


def _only_unit(label: str) -> bool:
    """Whether a header level's words only state a unit: "$ million", "%", "per share",
    "(in thousands, except per share data)"; a "Share (%)" column is a share of something."""
    tokens = set(label_tokens(label))
    return tokens <= _UNIT_WORDS and (_SHARE not in tokens or "per" in words(label))


_TIME_LABEL = re.compile(r"\b(?:1[89]\d\d|20\d\d|[qh][1-4]|fy\s?\d+|jan|feb|mar|apr|may|jun|"
                         r"jul|aug|sept?|oct|nov|dec)[a-z]*\b|\b\d{4}[/-]\d{2,4}\b", re.IGNORECASE)
"""A header that names a time: a year, quarter, half, fiscal year or month."""


def names_a_time(label: str) -> bool:
    """Whether a header label names a time (`_TIME_LABEL`)."""
    return bool(_TIME_LABEL.search(label))


def measure_apart(first: tuple[str, ...], second: tuple[str, ...]) -> bool:
    """Whether two columns' header paths differ in more than their time ("Indexes > Jun.
    2024" against "Percent changes > Jun. 2023"): then they measure different things, and a
    difference or ratio of their cells means nothing. Levels that both name a time may all
    differ ("H1 2024 > Q2" against "H2 2024 > Q3"). Paths of unequal depth often come from
    a header merged over only some columns, and say nothing either way."""
    first, second = naming_path(first), naming_path(second)
    if len(first) != len(second):
        return False
    differing = [(a, b) for a, b in zip(first, second, strict=True) if a != b]
    return len(differing) > 1 and not all(
        _TIME_LABEL.search(a) and _TIME_LABEL.search(b) for a, b in differing)


# ("aged 16 and over", "5 or less": a bound of a description, no definition.)
_DEFINITION = re.compile(r"\b(?:is|are|equals|means)\b.*\b(?:divided by|multiplied by|minus|"
                         r"plus|(?<!or )less|(?<!and )(?<!or )over|per|"
                         r"as a (?:percentage|share|proportion) of)\b|"
                         r"\bdefined as\b|\bcalculated as\b|\bcomputed as\b|=",
                         re.IGNORECASE)
"""A note that defines a figure by others: its words name no column or row of the table."""
SOURCE_NOTE = re.compile(r"\W*(?:sources?|data sources?|compiled by|prepared by|data from)\b",
                          re.IGNORECASE)
"""A note naming where a table's figures come from."""


_YEAR_SPAN = re.compile(r"(?<![\d.])(?:19|20)\d\d\s*[-\u2013\u2014/]\s*(?:(?:19|20)?\d\d)(?!\.?\d)")
"""Two years written as a span ("1991-2020", "2019/20")."""
_TITLE_YEAR = re.compile(r"(?<![\d.])(?:19|20)\d\d(?!\.?\d)")
"""A year written in a table's title, sheet or file name ("..._2023.xlsx", "FY2023")."""


def _match_table_words(grounding: Grounding, analysis: Analysis) -> None:
    """Words of the table's title, sheet, file name or notes explain question words too
    ("employees" for a staff list titled "Employees"), but ground nothing. A word that narrows
    what is counted or asked for ("*graduate* programs") must be grounded in the data."""
    frame = grounding.frame
    # A note that defines a term ("Operating margin is operating profit divided by revenue")
    # names figures the table does not hold; other notes describe the table, as a title does.
    # A note saying where the figures come from ("Source: fare-card data") does not say what
    # they are: "the average *fare*" is not explained by it.
    notes = [n for n in frame.notes if not _DEFINITION.search(n) and not SOURCE_NOTE.match(n)]
    about = " ".join(filter(None, [frame.title, frame.sheet, frame.file_name, *notes]))
    table_words = set(content_tokens(about))
    # A name the question writes ("in *Scotland*") is explained by the title, sheet or file
    # name alone: a note names things the table is not about ("Rest of World includes Japan",
    # "Prices in Scotland and Wales may differ").
    heading_words = set(content_tokens(" ".join(filter(None, [
        frame.title, frame.sheet, frame.file_name]))))
    # "employment" for a title's "Employed persons": a title only explains, never grounds, so
    # a shared root of five letters or more is enough there.
    table_roots = {r for w in words(about) if not w.isdigit() and len(r := morph_root(w)) >= 5}
    modifiers = set(analysis.count_words[:-1]) | set(analysis.target_words[:-1])
    # A sheet named by a number alone ("2024" beside "2023"): the question names it so.
    sheet_number = {w for w in content_tokens(frame.sheet or "") if w.isdigit()} \
        if len(content_tokens(frame.sheet or "")) == 1 else set()
    # A title, sheet or file name dated by one year ("Generation by source, 2023") says every
    # figure is of that year: the question's "in 2023" narrows nothing. Two years there ("2019-
    # 2023") may mean figures over the span, which a year of it does not name.
    # (A span's years are not it: "Anomalies relative to 1991-2020" beside "2024".)
    named_years = set(_TITLE_YEAR.findall(_YEAR_SPAN.sub(" ", " ".join(filter(None, [
        frame.title, frame.sheet, frame.file_name])))))
    title_year = named_years if len(named_years) == 1 else set()
    joined = _joined_kinds(frame) & {w[-1] for w in (analysis.count_words,
                                                     analysis.target_words) if w}
    # The file's name written out whole ("in financial (2).xlsx") explains each of its words,
    # a number included: the one a second file of the same name was stored under.
    if frame.file_name:
        grounding.explained |= _words_within(analysis.text, (
            m.span() for m in re.finditer(re.escape(fold(frame.file_name)), fold(analysis.text))))
    for i in grounding.content - grounding.explained:
        word = grounding.q_words[i]
        if word in joined:
            continue
        # A number must match data, not a title ("Expt-1" does not pick rows of experiment 1).
        raw = grounding.raw_words[i] if i < len(grounding.raw_words) else word
        named = word in table_words or (not word.isdigit() and morph_root(raw) in table_roots)
        if named and i in grounding.names and word not in heading_words:
            continue  # "Oncology sales in *Japan*": Japan is in the rest of the world's row
        if named and word not in modifiers and (not word.isdigit() or word in sheet_number) \
                or word in title_year:
            grounding.explained.add(i)


_JOINED_KINDS = re.compile(r"\b([^\W\d_]{2,}[^\Ws])s\s*(?:\band\b|&|\bor\b)\s*"
                           r"([^\W\d_]{2,}[^\Ws])s\b", re.IGNORECASE)


def _joined_kinds(frame: Frame) -> set[str]:
    """Kinds a heading joins in the plural ("Tallest *bridges and dams*"), as stems: the rows
    are of each kind, so a question naming one ("how many dams") narrows them, which neither
    the heading nor the question's noun explains. ("Area & yield" joins figures, no kinds.)"""
    heading = " ".join(filter(None, [frame.title, frame.sheet]))
    return {stem(w.lower() + "s") for m in _JOINED_KINDS.finditer(heading)
            for w in (m.group(1), m.group(2))} - STOP_STEMS


def covers_more(a: AttrMatch, b: AttrMatch) -> bool:
    """True when `a` explains every question word `b` does and more: `b` is a weaker reading
    of the same phrase ("Land area > sq mi" against "Total area > sq mi" for "total area in sq
    mi"), not a second column the question names."""
    return b.positions < a.positions


def undominated(matches: list[AttrMatch]) -> list[AttrMatch]:
    """Drop the full matches another full match covers more than (`covers_more`)."""
    full = [m for m in matches if m.full]
    return [m for m in matches if not any(covers_more(o, m) for o in full if o is not m)]


def unnamed_columns(frame: Frame, question_stems: set[str], keys: list[str]) -> list[str]:
    """The columns of a computation over several columns that the question does not name.

    A column is named when a word of its header path that it does not share with the other
    columns is in the question ("2019" and "2018"; "total" in "total area" but not "land").
    Columns the question does not name one by one are still named together when they are
    every leaf under a header the question names ("H2 2024" over Q3 and Q4) and those leaves
    are parts of it: their labels do not recur under sibling headers. Leaves that do recur
    ("sq mi" and "km2" under each of "Total area", "Land area") are another dimension (units,
    measures, years), so adding them mixes different things.
    """
    if len(keys) < 2:
        return []
    paths = [naming_path(frame.attr(k).path) or (k,) for k in keys]
    token_sets = [set(content_tokens(" ".join(p))) for p in paths]
    shared = set.intersection(*token_sets)
    unnamed = [k for k, tokens in zip(keys, token_sets, strict=True)
               if not (tokens - shared) & question_stems]
    if not unnamed:
        return []
    depth = 0
    while all(len(p) > depth + 1 and p[depth] == paths[0][depth] for p in paths):
        depth += 1
    prefix = paths[0][:depth]
    if prefix and set(content_tokens(" ".join(prefix))) <= question_stems \
            and _parts_of(frame, keys, prefix, question_stems & (_ADDING_WORDS | _MEAN_WORDS)):
        return []
    return unnamed


_ADDING_WORDS = frozenset(stem(w) for w in ("total", "sum", "combined", "altogether", "whole",
                                             "full"))
"""Stems of a question asking to add up: a year's quarters add up only for an amount over
time, which the question says by asking for its total ("the headcount in 2023" is no sum)."""


def _parts_of(frame: Frame, keys: list[str], prefix: tuple[str, ...], adding: bool) -> bool:
    """True when `keys` are all the leaves under header `prefix` and their labels do not recur
    under another header at the same depth, or, when the question asks to add or average
    (`adding`), they are the periods of that header (each year's Q1 ... Q4), beside at most
    the header's own total column ("FY total")."""
    depth = len(prefix)
    under = {a.key for a in frame.data_attrs if naming_path(a.path)[:depth] == prefix}
    labels = {naming_path(frame.attr(k).path)[depth:] for k in keys}
    if adding and all(len(label) == 1 and period_of(label[0]) for label in labels) and \
            len({period_of(label[0])[0] for label in labels}) == 1:  # type: ignore[index]
        # Quarters, halves or months under a year are parts of that year, though each year
        # has its own Q1 ... Q4.
        return set(keys) <= under and all(
            period_total(naming_path(frame.attr(k).path)[-1]) for k in under - set(keys))
    if under != set(keys):
        return False
    for a in frame.data_attrs:
        path = naming_path(a.path)
        if a.key not in under and len(path) > depth and path[depth:] in labels:
            return False
    return True


_MEAN_WORDS = frozenset(stem(w) for w in ("average", "mean", "avg"))
_PERIOD_TOTAL = re.compile(r"^\W*(?:(?:fy|full[- ]year|annual|year|ytd|year[- ]to[- ]date)\s*)?"
                           r"(?:totals?)?\W*$", re.IGNORECASE)


def period_total(label: str) -> bool:
    """Whether a column beside a group's periods is the group's own total ("FY total", "Full
    year", "Year", "YTD", "Total")."""
    return bool(_PERIOD_TOTAL.match(label) and label.strip()) or bool(TOTAL_LABEL.search(label))


_MONTH_ORDER = tuple(m[:3] for m in MONTHS)
_PERIOD = re.compile(r"^(?:(q)([1-4])|(h)([12])|(" + "|".join(_MONTH_ORDER) + r")[a-z]*\.?)$")


def period_of(label: str) -> tuple[str, int] | None:
    """The period a header names, with its place in the year: ("q", 2) for "Q2", ("h", 1) for
    "H1", ("month", 3) for "March"; None for any other header."""
    m = _PERIOD.match(label.strip().lower())
    if m is None:
        return None
    if m.group(1):
        return "q", int(m.group(2))
    if m.group(3):
        return "h", int(m.group(4))
    return "month", _MONTH_ORDER.index(m.group(5)) + 1
