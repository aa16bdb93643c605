"""Offline answers from a document's text: a number (or a name, for "who is ...") quoted from
the one sentence that clearly answers the question, cited as text Evidence; otherwise nothing
("needs an LLM").

"How many employees did the company have at the end of June?" against "The company had 42
employees at the end of June." is answered "42". The rules are deliberately narrow, since a
confident wrong number is worse than a refusal (the precision goal is 90% on TAT-QA's
text-only questions of bench-train half B, `bench/documents.py`):

1. the question asks for a quantity (how many / how much / what is the amount, rate, ...);
2. a sentence of the best full-text chunks holds at least `MIN_COVERAGE` of the question's
   content words (stemmed; the chunk's section counts) and at least `MIN_MATCHED` of them;
3. that sentence (or its section) names every year of a question naming several, and a year
   of the question's when it names any; and it holds exactly one number that is not in the
   question, not a year, not a day of a date and not a footnote marker, that is a
   percentage exactly when the question asks for one (a rate, share or margin may be
   either), and no money when it asks "how many"; of several such numbers, the one the
   question's words name right beside it (`bound_number`: "$923.4 million of gross federal
   net operating loss"); and
4. no other sentence covers the question as well (one with a different number, or with no
   number or several, is a refusal).

The answer is that number as written, with its currency sign, percent sign and scale word
("$9.2 million", "14 years" reads as 14).

"Who is the head of sales?" is answered by a name when a sentence says just that, in one of
two shapes (`name_for`): "The head of sales is Maria Lopez." or "Maria Lopez is the head of
sales.", the role word for word, the question's verb (is / was), and the name (capitalised
words, after a title and initials as written: "Mr. John Smith") ending the clause. A sentence
that ties the role to the verb in any other way ("The head of sales was John Smith until
March", "In Europe, the head of sales is ..."), names another person or gives a title alone
("Mr") is a refusal.

Pure functions over text (`extract` and `decide`, `name_for` and `decide_name`), and a thin
function that reads the workspace's chunks (`answer_from_text`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.calibration import current as current_calibration
from agent.events import Answer, TextEvidence, TextLocation
from agent.text import STOPWORDS, morph_root, split_words, words
from ingest.text_chunks import sentence_spans

if TYPE_CHECKING:
    from storage.chunks import StoredChunk
    from storage.workspace import Workspace

MIN_COVERAGE = 0.8
MIN_MATCHED = 2
CHUNKS_READ = 8
CONFIDENCE = 0.85

_QUANTITY = re.compile(
    r"^\s*(?:by |in |at |to )?(how (many|much|long|large|big|old)\b|"
    r"what (is|was|were|are|has been|will be) ((the|total|our|its|their) (\w+ ){0,4}?|"
    # "What was customer churn?": without an article, a few words that are not a clause
    # ("What is included in the cost of ..." asks what, not how much).
    r"((?!(?:in|of|for|on|at|by|to|included|includes|the|a|an)\b)\w+ ){0,2}?)"
    r"(amount|number|value|"
    r"total|percentage|percent|rate|ratio|proportion|share|cost|costs|price|balance|duration|average|sum|count|size|fee|fees|expense|expenses|"
    r"revenue|income|loss|margin|term|period|life|age|capacity|headcount|increase|decrease|"
    r"change|growth|spend|spending|profit|sales|earnings|debt|churn|turnover|yield|salary|"
    r"payroll)\b)", re.IGNORECASE)
_NUMBER = re.compile(
    r"(?<![\w.,$€£])(?P<cur>(?:US|A|C|HK|NZ|S|RMB ?)?[$€£¥]\s?)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<pct>\s?%| percent\b)?(?P<scale> (?:thousand|million|billion|trillion)\b)?"
    r"(?P<unit> (?:euros?|dollars?|pounds?|yen|yuan|francs?|rupees?|seconds?|minutes?|hours?|"
    r"days?|weeks?|months?|years?|km|kilomet(?:re|er)s?|miles?|kg|kilograms?|tonnes?|tons?|"
    r"lit(?:re|er)s?|met(?:re|er)s?)\b)?"
    r"(?![\w,]*\d)")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december", "jan", "feb", "mar", "apr", "jun",
           "jul", "aug", "sep", "sept", "oct", "nov", "dec")
_GENERIC = frozenset(morph_root(w) for w in split_words("""
    many much long large big old amount number value total what company group respectively
    year years fiscal reported"""))
"""Question words a sentence need not repeat ("How many ...", "the company")."""


@dataclass(frozen=True, slots=True)
class Extracted:
    """A number quoted from one sentence of a text."""

    text: str
    """The number as written ("$9.2 million")."""
    sentence: tuple[int, int]
    """The sentence's span in the text."""
    span: tuple[int, int]
    """The number's span in the text."""
    coverage: float


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def asks_quantity(question: str) -> bool:
    """A question for one quantity ("... respectively" asks for several: refused)."""
    return bool(_QUANTITY.search(question)) and "respectively" not in question.lower()


def content_stems(text: str) -> set[str]:
    """A text's content words by their Snowball roots: "shipped" and "ship" meet, as a
    sentence and a question word them (the light `stem` keeps "shipp")."""
    return {morph_root(w) for w in words(text) if w not in STOPWORDS and not w.isdigit()}


_FORECAST = re.compile(r"\b(?:expect(?:s|ed|ing)?|forecasts?|forecasted|projected|projections?|"
                       r"anticipate[sd]?|estimates?|estimated|predicts?|predicted|targets?|"
                       r"targeted|aims?|plans? to|budgets? for|outlook|guidance|will|would|"
                       r"could|might|should|likely)\b", re.IGNORECASE)
"""Words that make a sentence's number a forecast, a plan or a guess rather than a fact
("may" is left out: it is also a month)."""


def extract(question: str, texts: Sequence[tuple[str, str | None]]
            ) -> list[list[Extracted | None]]:
    """Per text (with its section), the sentences that cover the question well enough: each
    the number it quotes, or None when it holds no candidate number or several (see `decide`).
    A content word found only in the section counts half."""
    wanted = content_stems(question) - _GENERIC
    if not wanted or not asks_quantity(question):
        return [[] for _ in texts]
    asked = {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", question)}
    wants_year = bool(re.search(r"\b(year|when)\b", question, re.IGNORECASE))
    periods = set(_PERIOD.findall(question.lower()))
    years = set(_YEAR.findall(question))
    share = _share_asked(question)
    # ("How many options were exercised" is no "$49.8 million": a count is no money.)
    counting = bool(re.search(r"\bhow many\b", question, re.IGNORECASE))
    out: list[list[Extracted | None]] = []
    for text, section in texts:
        found: list[Extracted | None] = []
        extra = content_stems(section or "")
        for start, end in sentence_spans(text):
            sentence = text[start:end]
            own = wanted & content_stems(sentence)
            matched = len(own) + 0.5 * len((wanted - own) & extra)
            coverage = matched / len(wanted)
            if len(own) < min(MIN_MATCHED, len(wanted)) or coverage < MIN_COVERAGE:
                continue
            said = set(_YEAR.findall(sentence)) | set(_YEAR.findall(section or ""))
            if (len(years) > 1 and years - said) or (said and years and not years & said):
                # "the goodwill acquired across 2018 and 2019" is not the sentence about the
                # 2019 acquisition, nor "revenue in 2019" one about 2018. (A sentence that
                # names no year speaks of the report's own year.)
                continue
            if _FORECAST.search(sentence) and not _FORECAST.search(question):
                # "We expect about 20,000 in Q4": a forecast, not what happened. It still
                # covers the question, so it keeps another sentence's number from standing
                # alone as if undisputed.
                found.append(Extracted("", (start, end), (start, start), coverage))
                continue
            numbers = [m for m in _NUMBER.finditer(sentence)
                       if _counts(m, sentence, asked, wants_year)
                       and not _of_another_period(m, sentence, periods)
                       and _same_kind(bool(m.group("pct")), share)
                       and not (counting and m.group("cur"))
                       and not _tied_to_something_else(m, sentence, wanted)]
            if len(numbers) > 1:
                numbers = bound_number(numbers, sentence, wanted, years)
            if len(numbers) != 1 or not _period_is_the_numbers(sentence, numbers[0], years,
                                                                 periods):
                found.append(Extracted("", (start, end), (start, start), coverage))
                continue
            m = numbers[0]
            found.append(Extracted(m.group().strip(), (start, end),
                                   (start + m.start(), start + m.end()), coverage))
        out.append(found)
    return out


_WHO = re.compile(r"^\s*who\s+(?P<verb>is|was)\s+(?:the\s+)?(?P<role>[^?]+?)\s*\??\s*$",
                  re.IGNORECASE)
_NAME_WORD = r"[A-Z][A-Za-z'’-]*[A-Za-z]"
_TITLES = frozenset(("Mr", "Mrs", "Ms", "Mx", "Dr", "Prof", "Sir", "Dame", "Rev", "Hon"))
_NAME = (rf"(?P<name>(?:(?:{'|'.join(sorted(_TITLES))})\.\s+)?(?:[A-Z]\.\s+)*"
         rf"(?:{_NAME_WORD}(?:\s+(?:{_NAME_WORD}|&|de|van|von|der|den|da|di|del|la|le)"
         rf")*?\s+{_NAME_WORD}|{_NAME_WORD}))")
"""A name: capitalised words ("Maria Lopez", "KPMG LLP", "Ernst & Young"), after a title
and initials as written ("Dr. Amara Okafor", "J. R. Smith")."""
_NOT_NAMES = frozenset(("The", "This", "That", "These", "Those", "It", "He", "She", "They",
                        "We", "Our", "Its", "His", "Her", "Their", "Not", "No", "None", "Also",
                        "Each", "Every", "All", "Both", "Either", "Neither", "Some", "Any",
                        "Since", "In", "At", "On", "From", "After", "Before", "As", "For",
                        "Until", "During", "By", "Today", "Currently", "Now", "Then", "There"))
"""Capitalised words that open a clause and name no one ("Since March Maria Lopez is ...")."""


_CUT_NAME = re.compile(r"(?:\b(?:Mr|Ms|Mrs|Dr|Prof|Sir|St)|\b[A-Z])\.\s*$")
"""A title or an initial that ends the text before a sentence: the sentence splitter cut a
name there."""


def asks_who(question: str) -> tuple[str, str] | None:
    """The verb and the role of "Who is/was [the] <role>?" ("is", "head of sales"), else
    None ("Who are ...", "Who was hired ..." name several or no role)."""
    m = _WHO.match(question)
    if m is None:
        return None
    role = " ".join(m.group("role").split())
    if not content_stems(role) or len(role.split()) > 8 or \
            role.split()[0].lower() in ("a", "an", "not", "also"):
        return None
    return m.group("verb").lower(), role


def only_titles(name: str) -> bool:
    """Whether a name is titles alone ("Mr", "Dr."): the rest of it is missing, so it names
    no one."""
    return all(word.rstrip(".") in _TITLES for word in name.split())


def name_for(question: str, texts: Sequence[str]) -> list[list[Extracted | None]]:
    """Per text, its sentences that tie the question's role to its verb: each the name it
    states, or None when it ties them some other way (see the module's docstring)."""
    asked = asks_who(question)
    if asked is None:
        return [[] for _ in texts]
    verb, role = asked
    said_role = r"\s+".join(re.escape(w.replace("’", "'")).replace("'", "['’]")
                          for w in role.split())
    end = r"(?=\s*(?:[.;!?]?$|[.;!?]\s|\(|,\s+[a-z]))"
    forward = re.compile(rf"(?i:the\s+)?(?i:{said_role})\s+{verb}\s+{_NAME}{end}")
    backward = re.compile(rf"{_NAME}\s+{verb}\s+(?i:the\s+)?(?i:{said_role}){end}")
    ties = re.compile(rf"\b(?:{said_role})\s+{verb}\b|\b{verb}\s+(?:the\s+)?(?:{said_role})\b",
                      re.IGNORECASE)
    out: list[list[Extracted | None]] = []
    for text in texts:
        found: list[Extracted | None] = []
        for start, stop in sentence_spans(text):
            sentence = text[start:stop]
            if not ties.search(sentence):
                continue
            m = forward.fullmatch(sentence.rstrip(".!; ")) or \
                backward.fullmatch(sentence.rstrip(".!; "))
            if m is None:  # a clause after the name, or one before the role
                m = forward.match(sentence) or backward.match(sentence)
            name = m.group("name") if m else ""
            if not name or name.split()[0] in _NOT_NAMES or only_titles(name) or \
                    _CUT_NAME.search(text, 0, start):
                # (After "Mr." or "J.", a sentence starts mid-name: "Kapuria was named ...".)
                found.append(None)
                continue
            found.append(Extracted(name, (start, stop), (start + m.start("name"),
                                                          start + m.end("name")), 1.0))
        out.append(found)
    return out


def decide(found: Iterable[Iterable[Extracted]]) -> Extracted | None:
    """The answer when every sentence that covers the question best quotes one and the same
    number; else None (a best sentence with no number or several is a refusal)."""
    hits = [f for per_text in found for f in per_text]
    if not hits:
        return None
    top = max(f.coverage for f in hits)
    best = [f for f in hits if f.coverage >= top - 1e-9]
    values = {_plain(f.text) for f in best}
    if len(values) != 1 or not best[0].text:
        return None
    return best[0]


def decide_name(found: Iterable[Iterable[Extracted | None]]) -> Extracted | None:
    """The name when every sentence that ties the role to the verb states one and the same
    (case aside); else None (one that ties them another way is a refusal)."""
    hits = [f for per_text in found for f in per_text]
    if not hits or any(f is None for f in hits) or \
            len({f.text.casefold() for f in hits if f is not None}) != 1:
        return None
    return hits[0]


_PERCENT_NAMED = re.compile(r"%|\bper ?cent(age)?s?\b", re.IGNORECASE)
_SHARE_WORDS = re.compile(r"\b(rates?|ratios?|shares?|proportions?|margins?|yields?|churn|"
                          r"attrition|retention|turnover|inflation|unemployment|occupancy|"
                          r"utili[sz]ation|cut|cuts|reduction)\b",
                          re.IGNORECASE)


def _share_asked(question: str) -> bool | None:
    """Whether the question asks for a percentage (True: it says percent), may take one (None:
    a rate, share, margin ...), or asks for an amount (False)."""
    if _PERCENT_NAMED.search(question):
        return True
    return None if _SHARE_WORDS.search(question) else False


def _same_kind(percent: bool, share: bool | None) -> bool:
    """A percentage answers only a question that can take one, and a question that says
    percent takes only a percentage: "What is the increase in cable revenue?" is not answered
    by "Cable revenue increased by 1%" (the table held the amount)."""
    return share is None or percent == share


def _counts(m: re.Match[str], sentence: str, asked: set[str], wants_year: bool) -> bool:
    """Whether a number of a sentence is a candidate answer."""
    num = m.group("num")
    plain = num.replace(",", "")
    if plain in asked:
        return False
    if (not m.group("cur") and not m.group("pct") and "." not in num and "," not in num
            and 1900 <= int(plain) <= 2100 and not wants_year):
        return False  # a year
    before = sentence[:m.start()].rstrip().lower()
    after = sentence[m.end():].lstrip().lower()
    last = before.split()[-1].strip(".,") if before.split() else ""
    first = after.split()[0].strip(".,") if after.split() else ""
    if last in _MONTHS or first in _MONTHS:
        return False  # the day of a date ("June 30, 2019", "30 June")
    if m.start() <= 1 and (sentence[m.end():m.end() + 1] in ")." or before.endswith("(")):
        return False  # a footnote or list marker: "(1) ...", "1. ..."
    if before.endswith("(") and after.startswith(")") and not m.group("cur"):
        return False  # "(2)" inside a sentence: a note marker
    # Part of a range ("30 to 90", "5-7") or a code: neither end is the answer.
    return not (after.startswith(("-", "–", "/")) or re.match(r"to [$€£]?\d", after)
                or re.search(r"\d\s*(to|-|–)$", before))


_LINK_BEFORE = re.compile(
    r"\b(?:of|was|were|is|are|totaled|totalled|totaling|totalling|amounted to|increased|"
    r"decreased|rose|fell|grew|declined)(?: by)?(?: (?:approximately|about|nearly|almost))?"
    r"\s*$")
"""A verb or "of" that ties the words before it to the number after it: "pension and benefit
credits of $2.1 billion", "selling expenses increased by $4.2 million"."""
_LINK_AFTER = re.compile(r"^\s*(?:of|in)\s+")
"""... and "of" that ties the number to the words after it: "$923.4 million of gross federal
net operating loss"."""
_CLAUSE_END = re.compile(r"[,;:()]|\bcompared\b|\bversus\b|\bwhile\b|\bwhereas\b")
_LISTED = re.compile(r"^\s*(?:,|,? and|,? or)\s+(?:US|A|C|HK)?[$€£]?\s?\d")
"""A number followed by another in a list ("$19,573 and $25,403")."""
BOUND_WORDS = 8
"""Words read on the tied side of a number, up to a comma, "and" or another number."""


def bound_number(numbers: Sequence[re.Match[str]], sentence: str, wanted: set[str],
                 years: set[str]) -> list[re.Match[str]]:
    """Of a sentence's several candidate numbers, the one the question's words name right
    beside it, through "of" or a verb ("pension and benefit credits of $2.1 billion recorded
    in 2018, compared with ... charges of $126 million in 2019"); else all of them (a
    refusal). The tied words (up to a comma, "and" or another number) must hold the
    question's content words but at most one, more of them than any other number's. When the
    sentence names a year the question does not, the number's clause (else the one year said
    before it) must name the question's year and no other; a question naming no year is
    refused over a sentence naming several, and a sentence listing numbers ("$19,573 and
    $25,403 respectively") is refused."""
    def tied(m: re.Match[str]) -> set[str]:
        before = sentence[:m.start()]
        after = sentence[m.end():]
        out: set[str] = set()
        link = _LINK_BEFORE.search(before)
        if link is not None:
            words_before = _clause(before[:link.start()], reverse=True)
            out |= content_stems(words_before)
        tail = _LINK_AFTER.match(after)
        if tail is not None:
            out |= content_stems(_clause(after[tail.end():]))
        return out & wanted

    if re.search(r"\brespectively\b", sentence, re.IGNORECASE) or any(
            _LISTED.match(sentence[m.end():]) for m in numbers):
        # "losses of $19,573 and $25,403 respectively": the words name the list, not one of
        # its numbers.
        return list(numbers)
    said = set(_YEAR.findall(sentence))
    if not years and len(said) > 1:
        return list(numbers)  # which year's number is asked for is not said
    kept = list(numbers)
    if years and said - years:
        # The sentence speaks of other years too: only a number whose clause names the
        # question's year, and no other, may be the answer.
        kept = [m for m in numbers
                if (named := _years_of(sentence, m)) & years and not named - years]
    if not kept:
        return list(numbers)
    scored = sorted(((len(tied(m)), i) for i, m in enumerate(kept)), reverse=True)
    best, i = scored[0]
    second = scored[1][0] if len(scored) > 1 else -1
    if best < max(MIN_MATCHED, (len(wanted) + 1) // 2) or best == second:
        return list(numbers)
    return [kept[i]]


def _clause(text: str, reverse: bool = False) -> str:
    """The words of `text` up to a clause's end or a number (from its end when `reverse`),
    at most BOUND_WORDS."""
    parts = _CLAUSE_END.split(text)
    piece = parts[-1] if reverse else parts[0]
    piece = re.split(r"[$€£]?\d", piece)[-1 if reverse else 0]
    ws = piece.split()
    return " ".join(ws[-BOUND_WORDS:] if reverse else ws[:BOUND_WORDS])


def _years_of(sentence: str, m: re.Match[str]) -> set[str]:
    """The years a number of a sentence is told of: those of its clause, else the last one
    said before it ("As of September 27, 2019, we had $923.4 million of ...")."""
    named = set(_YEAR.findall(_number_clause(sentence, m)))
    if named:
        return named
    earlier = set(_YEAR.findall(sentence[:m.start()]))
    return earlier if len(earlier) == 1 else set()


_COMPARED = re.compile(r"\b(?:than|compared|versus|vs|from|below|above|against|relative|"
                       r"seen|prior|previous)\b[^,;]*", re.IGNORECASE)
"""A phrase naming what a number is compared with, to the clause's end ("higher than in
Q2", "down from December")."""


def _periods_in(text: str) -> set[str]:
    """The years and the periods (quarters, halves, fiscal years, months) a text names."""
    return set(_YEAR.findall(text)) | set(_PERIOD.findall(text.lower()))


def _period_is_the_numbers(sentence: str, m: re.Match[str], years: set[str],
                           periods: set[str]) -> bool:
    """Whether the years and periods the question asks about are the number's own: named in
    its clause, else before it in the sentence. Named only elsewhere, they are what the
    number is compared with ("Net profit for 2024 was $5.2 million, higher than in 2023",
    "Churn in Q4 was 2.1%, half the rate seen in Q1", "Fuel cost for the quarter was
    £214,500, 6% higher than in Q2"), and the number is no answer for them."""
    asked = years | periods
    if not asked or not asked & _periods_in(sentence):
        return True  # the sentence does not name them: the years test above has spoken
    own = _periods_in(_number_clause(sentence, m))
    if own:
        return asked <= own
    # No period in its own clause: those said before it, and after it but outside what it
    # is compared with ("increased $13.8 million, or 5.3%, in 2019 versus a year ago").
    after = _COMPARED.sub(" ", sentence[m.end():])
    return asked <= _periods_in(sentence[:m.start()]) | _periods_in(after)


def _number_clause(sentence: str, m: re.Match[str]) -> str:
    """The part of a sentence around a number between commas, semicolons, brackets and the
    next number on either side (a bracket holds other figures: "1,842 employees on 5 April
    2024 (2023: 1,790)" tells 1,842 of 2024 only)."""
    left = re.split(r"[,;()]|[$€£]?\d[\d,.]*\s*(?:million|billion|thousand)?\b",
                    sentence[:m.start()])[-1]
    right = sentence[m.end():]
    cut = re.search(r"[,;()]|[$€£]\d|\d[\d,.]*\s*(?:million|billion|thousand)\b", right)
    return left + m.group() + (right[:cut.start()] if cut else right)


_PERIOD = re.compile(r"\b(q[1-4]|h[12]|fy\s?\d{2,4}|january|february|march|april|may|june|"
                     r"july|august|september|october|november|december)\b")
"""A period a clause can tie its number to: a quarter, a half, a fiscal year, a month."""


def _of_another_period(m: re.Match[str], sentence: str, periods: set[str]) -> bool:
    """Whether the words right after a number tie it to a period the question does not name:
    "shipped 18,450 orders in Q3 2025, up from 16,200 orders in Q2 2025" asked about Q3 keeps
    18,450 only. Only when the question names a period of its own."""
    if not periods:
        return False
    clause = re.split(r"[,;.]\s|(?<![a-z])\d", sentence[m.end():].lower(), maxsplit=1)[0]
    said = set(_PERIOD.findall(clause))
    return bool(said) and not said & periods


def _tied_to_something_else(m: re.Match[str], sentence: str, wanted: set[str]) -> bool:
    """Whether "of" after a number, or a verb or "of" before it, ties it to words none of
    which the question says: "an operating loss in 2019, primarily due to $9.8 million of
    restructuring charges" quotes the charges, not the loss; "Total expenditure was £43.5
    million, of which the majority was spent on our charitable activities" the expenditure,
    not what the activities cost."""
    tail = re.match(r"\s*of\s+", sentence[m.end():])
    if tail is not None:
        rest = sentence[m.end() + tail.end():]
        # (A part of a number, "closed 2 of our remaining 5 data centres", ties nothing.)
        if not re.match(r"[^,;:()]*?\d", rest):
            tied = content_stems(_clause(rest)) - _GENERIC
            if tied and not tied & wanted:
                return True
    before = sentence[:m.start()]
    link = _LINK_BEFORE.search(before)
    if link is None or link.group(0).split()[0] == "of":
        # (Only a verb ties it so: "... acquired in 2019 ... for total consideration of $318.0
        # million" may still quote what the sentence is about.)
        return False
    tied = content_stems(_clause(before[:link.start()], reverse=True)) - _GENERIC
    return bool(tied) and not tied & wanted


def _plain(text: str) -> str:
    return re.sub(r"[\s$€£¥,]", "", text.lower())


def answer_from_text(workspace: Workspace, question: str,
                     sources: set[str] | None = None) -> Answer | None:
    """The workspace's text answer to `question` (chunks of `sources` only, when given), or
    None when no sentence clearly answers it."""
    from storage.chunks import has_chunks, search_chunks

    who = asks_who(question) is not None
    if not (who or asks_quantity(question)) or not has_chunks(workspace.db):
        return None
    terms = [w for w in words(question) if w not in STOPWORDS and len(w) > 1]
    found = [c for c, _ in search_chunks(workspace.db, terms, limit=CHUNKS_READ,
                                         sources=sources)]
    if not found:
        return None
    extracted = (name_for(question, [c.text for c in found]) if who
                 else extract(question, [(c.text, c.chunk.section) for c in found]))
    best = decide_name(extracted) if who else decide(extracted)
    if best is None:
        return None
    chunk = next(c for c, per_text in zip(found, extracted, strict=True)
                 if any(f is best for f in per_text))
    # The answer says the number with its unit ("1.8 million euros", "4 minutes"); the
    # value is the number as a scorer reads it.
    value = _NUMBER.fullmatch(best.text)
    plain = best.text[:value.start("unit")] if value and value.group("unit") else best.text
    return Answer(answer=best.text, values=[plain], evidence=[text_evidence(chunk, best)],
                  confidence=CONFIDENCE,
                  confidence_label=current_calibration().label(CONFIDENCE))


def text_evidence(chunk: StoredChunk, found: Extracted) -> TextEvidence:
    """The cited sentence as text Evidence: its span in its paragraph (the chunk's own span
    starts at `chunk.start` of the paragraph)."""
    c = chunk.chunk
    start, end = found.sentence
    return TextEvidence(source=chunk.file_name, file=chunk.file_slug, chunk=chunk.id,
                        location=TextLocation(page=c.page, section=c.section,
                                              paragraph=c.paragraph, start=c.start + start,
                                              end=c.start + end),
                        text=c.text[start:end])
