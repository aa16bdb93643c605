"""Deterministic question analysis: the operation asked for, its conditions and numbers.

English only, by design: a question this lexicon does not understand is sent to an LLM (or
answered "needs an LLM"), never guessed at.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agent.text import STOPWORDS, fold, split_words, stem, words

Ask = Literal["lookup", "count", "sum", "avg", "max", "min", "argmax", "argmin", "diff",
              "pct_change", "ratio", "first", "last", "mode", "ambiguous"]
"""What a question asks for, as the lexicon reads it. A planner turns it into a plan's
operation (`agent/plan.py`), which need not be the same: a "sum" over one row with a stated
total is a lookup."""

_OPS: list[tuple[Ask, re.Pattern[str]]] = [
    ("pct_change", re.compile(r"\bpercent(?:age)?\s+(?:change|increase|decrease|growth)\b|"
                              r"%\s*(?:change|increase|decrease)|\bgrowth rate\b|"
                              r"\bby (?:what|how many|how much) (?:(?:percent|percentage|per cent)"
                              r"\b|%)(?!\s*points?\b)|"
                              # "grow from Q1 to Q4 in percent", "increase in % from ...":
                              # a change asked as a percent.
                              r"\b(?:grow|grew|increase|increased|decrease|decreased|change|"
                              r"changed|rise|rose|fall|fell|drop|dropped|decline|declined)\b"
                              r"[^?]*\bin (?:percent|percentage|%)(?!\s*of\b)(?:\s|\?|$)|"
                              r"\bwhat percent(?:age)? did\b.*\b(?:grow|increase|decrease|"
                              r"decline|rise|fall|drop)\b|"
                              # "By how much, in percentage terms, did it grow?"
                              r"\bby how much\b[^?]*\bin (?:percent(?:age)?|relative) "
                              r"terms\b")),
    ("diff", re.compile(r"\bdifference\b|\bincrease\s*/\s*\(?\s*decrease|"
                        r"\bhow (?:much|many) (?:more|less|fewer|higher|lower|"
                        r"greater|bigger|larger|smaller)\b|\bchange (?:in|of|from|between)\b|"
                        r"\b(?:increase|decrease|decline|rise|drop) (?:in|of|from)\b|"
                        # "How much did income change (between 2017 and 2018)?"
                        r"\bhow much did\b[^?]*\b(?:change|increase|decrease|grow|decline|"
                        r"rise|fall|drop)\b|"
                        # "By how many points did the loss ratio change": not a count.
                        r"\bby how (?:much|many)\b(?!\s+times\b)[^?]*\b(?:change|changed|"
                        r"increase|increased|decrease|decreased|grow|grew|decline|declined|"
                        r"rise|rose|fall|fell|drop|dropped|exceed|exceeded|surpass|surpassed|"
                        r"outnumber|outnumbered)\b|"
                        # "What was net cash from operations less net cash used in
                        # investing?": a subtraction, not the lesser of the two.
                        # (Not "the less expensive option", "much less".)
                        r"^\W*(?:what|how much)\s+(?:is|was|are|were)\b[^?]*?(?<!\bthe)(?<!\ban)"
                        r"(?<!\ba)(?<!\bmuch)(?<!\bfar)(?<!\bno)(?<!\bany)(?<!\beven)"
                        r"\s(?:less|minus)\s+(?!than\b)(?:the\s+)?[^\W\d_]|"
                        # "How did traffic at Coral Bay change between 2022 and 2023?"
                        r"\bhow (?:did|has|have|does|do)\b[^?]*\bchanged?\s*(?:between|from|"
                        r"over|\?|$)")),
    # ("Ave" is not among them: "the price of Sunset Ave" names an avenue.)
    ("avg", re.compile(r"\baverage\b|\bmean\b|\bavg\b")),
    # A ratio named by its noun ("the loss ratio", "the current ratio") is a measure to
    # read; the operation is "the ratio of/between", "the A to B ratio", or "ratio" after a
    # function word.
    ("ratio", re.compile(r"\bratio (?:of|between)\b|\bto \w+ ratios?\b|"
                         r"(?:^|\b(?:the|a|an|what|what's|is|was|are|were|s|its|their)\s+)"
                         r"ratios?\b|\bproportion\b|\bpercentage of\b|"
                         r"\bwhat (?:share|part|fraction) of\b|"
                         r"\bas an? (?:share|fraction|part) of\b")),
    ("count", re.compile(r"\bhow many\b|\bnumber of\b|\bcount\b")),
    ("sum", re.compile(r"\b(?:sub)?total\b|\bsum\b|\bcombined\b|\baltogether\b|\bin all\b|"
                       r"\btot\b|\bcumulative\b")),
]
_MODE = re.compile(r"\bmost (?:common|frequent|frequently|often)\b|\bappears? (?:the )?most\b|"
                   r"\bmost (?:times|occurrences)\b")
"""The most frequent value of a column ("the most common nationality")."""
# ("Most recent" is no superlative of a number: `_LAST`, the latest row.)
_MAX = re.compile(r"\b(?:most(?!\s+recent)|highest|largest|greatest|maximum|max|biggest|longest|"
                  r"best|more|tallest|heaviest|widest|deepest)\b")
_MIN = re.compile(r"\b(?:least|lowest|smallest|minimum|min|fewest|shortest|worst|less|fewer|"
                  r"lightest|cheapest|narrowest|shallowest)\b")
DIMENSION_SUPERLATIVES = {"tallest": "height", "heaviest": "weight", "widest": "width",
                          "deepest": "depth", "lightest": "weight", "cheapest": "price",
                          "narrowest": "width", "shallowest": "depth"}
"""Superlatives that say the dimension ranked ("the *lightest* camera": the lowest weight):
grounded by the one column of numbers that names it (`grounding._match_dimension_words`)."""
DIMENSION_NOUNS = {"height": {"height", "tall", "elevation"}, "weight": {"weight", "mass"},
                   "width": {"width", "wide", "breadth"}, "depth": {"depth", "deep"},
                   "price": {"price", "cost", "fare", "fee"}}
_BOTH_EXTREMES = re.compile(
    r"\b(?:highest|largest|greatest|maximum|max|biggest|most|best|lowest|smallest|least|"
    r"minimum|min|fewest|worst)\s+(?:and|or|&|vs\.?|versus)\s+(?:the\s+)?(?:highest|largest|"
    r"greatest|maximum|max|biggest|most|best|lowest|smallest|least|minimum|min|fewest|worst)\b")
"""Both ends asked at once ("the years with the highest and lowest share"): two answers,
which one extreme would not give."""
_SPEED_LOW = re.compile(r"\b(?:fastest|quickest)\b")
_SPEED_HIGH = re.compile(r"\bslowest\b")
"""Superlatives of speed: over a column of times "fastest" is the lowest; over anything else
(a column of speeds, a time of day) the solver refuses them (`Analysis.by_speed`)."""
_MAX_COMPARED = re.compile(r"\b(?:higher|larger|greater|bigger|longer)\b")
_MIN_COMPARED = re.compile(r"\b(?:lower|smaller|shorter)\b")
"""Comparatives that pick one of several only in a "which" question ("in which year was it
larger"); elsewhere they are part of a name ("bachelor's degree and higher")."""
_THAN = re.compile(r"\b(?:more|less|fewer|higher|lower|greater|larger|smaller|bigger)\b"
                   r"[^?]*?\bthan\b")
"""A comparative with "than" is a condition or a comparison, not "which is the most"."""
_VALUE_SUPERLATIVE = re.compile(
    r"^\s*(?:(?:in|for|among|during|across|within|as of|at|on) [^,?]{1,40}, )?"
    r"(?:what|how much|how many) (?:is|was|are|were) (?:the|his|her|its|their) "
    r"(?:[^\W\d_]+ )?(?:most|highest|"
    r"largest|greatest|maximum|max|biggest|longest|least|lowest|smallest|minimum|min|fewest|"
    r"shortest|fastest|slowest|best|worst)\b")
_BARE_SUPERLATIVE = re.compile(
    r"^\s*(?:the )?(?:most|highest|largest|greatest|maximum|max|biggest|longest|least|lowest|"
    r"smallest|minimum|min|fewest|shortest|fastest|slowest)\b")
"""A question typed as a bare phrase, "Maximum resolution hours", "lowest CTR": the value, as
"what is the maximum ..." asks, unless its noun (its last word before what places it, "in
2021") names a kind of row ("highest spend campaign": `_superlative_entity`)."""
_PLACING = re.compile(r"\b(?:in|for|of|during|by|from|on|at|between|since|before|after|among|"
                      r"with|per|across|over|under)\b")
"""The words that start what places a bare phrase's noun ("... region *in* 2021")."""
_PLACES = {w: i for i, w in enumerate(split_words(
    "second third fourth fifth sixth seventh eighth ninth tenth"), 2)}
PLACE = re.compile(
    r"\b(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|([2-9]|10)(?:nd|rd|th))"
    r"[\s-]+(?:most|least|highest|lowest|largest|smallest|biggest|greatest|fewest|longest|"
    r"shortest|best|worst|top|oldest|youngest|tallest|fastest|slowest|heaviest|lightest|"
    r"richest|poorest|earliest|latest|last|to last|from last)\b|\b(penultimate)\b")
"""A place below the top ("the second highest", "3rd largest", "second to last")."""
_FIRST = re.compile(r"\b(?:first|earliest)\b")
_LAST = re.compile(r"\b(?:last|latest|most recent)\b|\bfinal\b(?=\s+(?!(?:after|before|at|"
                   r"in|of|on|against|between|for|with|was|is|were|are|held|played|and|or|"
                   r"vs|versus|that|which|where|when|to|from|by)\b)[^\W\d_])")
"""The last of an order; "final" only before a noun ("the final season"): "the final at
Wimbledon", "the final after 2009" name a match, not an end of the order."""
_WH = re.compile(r"^\s*(?:in |on |at |for |of |from |by |to )?(what|which|who|whom|whose|when|"
                 r"where|how many|how much|how long|how old|is|are|was|were|did|does|do|"
                 r"has|have|had|name|list|give)\b")
_HOW_MANY_FIRST = re.compile(r"^\W*(?:(?:in|of|for|among|at) )?how many\b")
_AN_AVERAGE = re.compile(r"\b(?:a|an)\s+(?:\S+\s+){0,3}?(?<!\bon )(?:average|mean)\b")
"""An average said as a noun with an article: a figure of each row, not a mean to take (not
"on average": "how many hours is a shift on average" takes one)."""
_AVERAGE_VERB = re.compile(r"\b(?:did|do|does)\b[^?]*\baverage\b")
"""'Average' said as a verb ("how many points did Ana average in games ..."): the mean is
asked, and the condition picks the rows it is taken over."""
_HOW_MUCH_MORE = re.compile(r"\bhow (?:much|many) more\b")

_WH_AFTER_CLAUSE = re.compile(r"^[^?]{3,200}?[,.][\"'”’)\]]*\s*(what|which|who|whom|whose|when|"
                              r"where|how many|how much|how long|how old)\b")
"""The question word after a leading clause or sentence ("For the Stress group, which
treatment ...", "Compare A and B. Which one is higher?"), also when the sentence ends inside
a quote or bracket ("... and “TOOLS.” Which ...")."""

REQUEST_VERBS = r"identify|calculate|compute|determine|find|provide|state|indicate|specify"
"""Verbs that open a request for the answer, as "what is" opens a question."""
_IMPERATIVE = re.compile(rf"^\s*(?:please\s+)?(?:{REQUEST_VERBS})\s+(?:the\s+)?")
"""A request phrased as an imperative ("Identify the year when ...", "Calculate the average
..."), which asks what its question form asks."""
_CHOICE_NOUN = re.compile(r"([^\W\d_]+)\s+(?:with|that|which|who|whose|when|where|having|"
                          r"in which)\b")
"""After an imperative, a noun and a clause that picks it ("the *year when* ...", "the
*industry with* the highest ..."): the question form is "which year ...", a choice."""


def _as_question(folded: str) -> str:
    """The question form of a request phrased as an imperative: "identify the industry with
    the highest ..." reads "which industry with the highest ...", "calculate the average ..."
    reads "what is the average ..."; any other text is returned as it is."""
    m = _IMPERATIVE.match(folded)
    if not m:
        return folded
    rest = folded[m.end():]
    return f"which {rest}" if _CHOICE_NOUN.match(rest) else f"what is the {rest}"


_NUMBER = r"[$£€¥]?(-?\d[\d,]*(?:\.\d+)?)"
_YEAR_NUMBER = r"(1[89]\d\d|20\d\d)"
"""A year as a question writes it (1800-2099)."""
Comparison = Literal["between", ">=", "<=", ">", "<", "="]

_CONDITIONS: list[tuple[Comparison, re.Pattern[str]]] = [
    ("between", re.compile(rf"\bbetween {_NUMBER} and {_NUMBER}")),
    (">=", re.compile(rf"\b(?:at least|no (?:less|fewer) than|or more than|"
                      rf"{_NUMBER} or (?:more|higher|greater|above|over|larger|bigger|better))"
                      rf"\s*{_NUMBER}?")),
    ("<=", re.compile(rf"\b{_NUMBER} or (?:less|fewer|lower|below|under|smaller)\b")),
    ("<=", re.compile(rf"\b(?:at most|no more than|up to)\s+{_NUMBER}")),
    (">", re.compile(rf"\b(?:more than|greater than|higher than|larger than|over|above|"
                     rf"exceed(?:s|ed|ing)?|bigger than|longer than|older than)\s+{_NUMBER}")),
    ("<", re.compile(rf"\b(?:less than|fewer than|lower than|smaller than|under|below|"
                     rf"shorter than|younger than)\s+{_NUMBER}")),
    ("=", re.compile(rf"\b(?:exactly|equal to|equals)\s+{_NUMBER}")),
    ("<", re.compile(rf"\b(?:before|prior to|until|till)\s+{_YEAR_NUMBER}\b")),
    (">", re.compile(rf"\b(?:after)\s+{_YEAR_NUMBER}\b")),
    (">=", re.compile(rf"\b(?:since)\s+{_YEAR_NUMBER}\b")),
]

OPERATION_WORDS = frozenset(stem(w) for w in split_words("""
total subtotal sum combined cumulative altogether average mean avg ave tot count number many
much how
most highest largest
greatest maximum max biggest top longest best least lowest smallest minimum min fewest shortest
worst difference change increase decrease decline rise drop percent percentage ratio proportion
first earliest last latest recent final more less fewer higher lower greater bigger larger
smaller than over above under below exceed between exactly equal value amount figure name list
give tell show respectively both altogether overall growth rate whole only grow grew grown
older younger common frequent frequently often different distinct unique ratio share
fastest quickest slowest longer shorter
"""))
"""Words that say what to compute rather than what to compute it on."""
ORDER_WORDS = ("first", "last", "final", "earliest", "latest")
"""Words of an order ("the last game"), which are also names of cells ("Long-haul | First")."""


class Condition(BaseModel):
    """A numeric condition in the question: "more than 5 years" -> (">", 5, ["year"])."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    op: Comparison
    number: float
    high: float | None
    words_after: tuple[str, ...]
    """Stemmed words right after the number ("years of experience")."""
    words_before: tuple[str, ...] = ()
    """Stemmed words right before the comparison, back to the first stopword or verb ("a
    *taxable benefit* exceeding 2000"), in question order."""
    span: tuple[int, int]
    on_year: bool = False
    """The numbers are years ("before 2010", "between 2018 and 2019"): the condition is on a
    year or date column, or, when years are the table's columns, names those columns."""
    percent: bool = False
    """The number is a percentage ("more than 10% of the vote"): the condition is on a column
    of percentages."""
    scaled: bool = False
    """The number was written with a scale word ("over 6 million"), already multiplied out."""
    bare: bool = False
    """Written with no comparison word ("how many seasons had 24 episodes"): an equality on the
    column the words after the number name, and on no other."""


class Analysis(BaseModel):
    """What a question asks, as far as the lexicon can tell (plain data: kept in the graph
    state, so the question is analysed once per run)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    folded: str
    op: Ask
    wh: str | None
    target_words: tuple[str, ...]
    """Stemmed words after "which"/"what" naming the attribute asked for ("which team")."""
    conditions: list[Condition] = Field(default_factory=list)
    superlative: Literal["max", "min"] | None = None
    count_words: tuple[str, ...] = ()
    """Stemmed content words after "how many" / "number of": what is counted."""
    neighbor: int = 0
    """-1 for "before X" / "previous", +1 for "after X" / "next": the row beside a named one."""
    neighbor_words: tuple[str, ...] = ()
    superlative_noun: str | None = None
    """The stemmed word right after the superlative of "what is the largest X"."""
    instructions: tuple[str, ...] = ()
    """Answer instructions the question ends with ("(Answer to two decimal places)"): format,
    not part of what is asked."""
    yes_no: bool = False
    """Asked for yes or no ("Is ...?", "Did ...?", "(yes / no)")."""
    respective: bool = False
    """"... respectively", "the respective ...", "each had": list one value per named item."""
    compound: bool = False
    """Asks a second thing in the same sentence ("which ..., and what was the count?")."""
    value_words: tuple[str, ...] | None = None
    """"Which school had the highest score, and what was the score?": the stemmed words of the
    figure asked after the row (None when no such clause). Only a ranking answers it, with the
    row's name and its ranked number."""
    answer_words: tuple[str, ...] = ()
    """"Which property was the first to be listed? Give its address.": the stemmed words of
    the column a closing request names for the answer (none when there is no such request).
    Only a first or last row answers it, with that column's cell."""
    margin: bool = False
    """"Which year had more bankruptcies, and by how much?": a comparison of two rows whose
    answer is the one ahead and how far ahead it is. Only a ranking of two rows answers it."""
    negated: bool = False
    """Says "not", "no", "without", "never": a condition the rules cannot restate."""
    relative: bool = False
    """Compares with a named row, not a number ("higher than Wayne Gilchrest", "same ... as")."""
    explanation: bool = False
    """Asks why or for a reason, which cells do not state."""
    place: int = 1
    """Which place of an order is asked: 2 for "the second highest", "second to last"."""
    top: int = 1
    """How many places from the top are asked: 3 for "the top three", "the three largest",
    "which three shipments were the heaviest"."""
    by_speed: bool = False
    """The superlative is "fastest" or "slowest": read as the lowest (highest) of a column of
    times taken, and refused over any other column."""

    @property
    def asks_for_entity(self) -> bool:
        return self.wh in ("which", "who", "whom", "whose", "what", "name", "list", "give",
                           "where", "when")


def analyse(question: str) -> Analysis:
    """Analyse a question (English)."""
    question, instructions = split_instructions(question)
    question, margin = _split_margin_clause(question)
    question, answer_words = _split_answer_request(question)
    question, value_words = _split_value_clause(question)
    folded = fold(question).strip()
    asking = _as_question(folded)
    wh_match = _WH.match(asking) or _WH_AFTER_CLAUSE.search(asking)
    wh = wh_match.group(1) if wh_match else None
    conditions = _conditions(folded)
    cond_free = folded
    for cond in conditions:
        cond_free = cond_free[: cond.span[0]] + " " * (cond.span[1] - cond.span[0]) + \
            cond_free[cond.span[1]:]
    op: Ask = "lookup"
    for name, pattern in _OPS:
        if pattern.search(cond_free):
            op = name
            break
    if op == "avg" and _HOW_MANY_FIRST.match(folded) \
            and (conditions or _AN_AVERAGE.search(folded)) and not _AVERAGE_VERB.search(folded):
        # "How many wards had an average stay above 5 days": the rows a condition on an
        # average picks are counted; no mean is taken. Nor in "How many stations reported a
        # PM2.5 annual mean in 2019?": "a mean" is the figure each row reports.
        op = "count"
    if op == "count" and folded.startswith("how many"):
        conditions = conditions + _bare_counts(folded, conditions)
    superlative: Literal["max", "min"] | None = None
    superlative_noun: str | None = None
    comparing = _THAN.search(cond_free) or _HOW_MUCH_MORE.search(cond_free)
    choosing = wh in ("which", "who", "whom", "whose")
    top, _ = top_count(cond_free)
    if (_MAX.search(cond_free) or choosing and _MAX_COMPARED.search(cond_free)
            or top > 1 and op == "lookup" and not _MIN.search(cond_free)) and not comparing:
        superlative = "max"
    elif (_MIN.search(cond_free) or choosing and _MIN_COMPARED.search(cond_free)) \
            and not comparing:
        superlative = "min"
    by_speed = superlative is None and not comparing and bool(
        _SPEED_LOW.search(cond_free) or _SPEED_HIGH.search(cond_free))
    if by_speed:
        superlative = "min" if _SPEED_LOW.search(cond_free) else "max"
    if wh is None and _BARE_SUPERLATIVE.match(cond_free):
        op = "lookup"  # "Maximum Total received": the column's name says "total", not the op
    # "Which team scored the most goals" picks a row; "how many ... the most" stays a count.
    picks_row = op == "lookup" or (op in ("sum", "count")
                                   and wh in ("which", "who", "what", "name", "list"))
    if superlative and picks_row:
        op = "argmax" if superlative == "max" else "argmin"
        # "What is the shortest loan term ..." asks for the value itself, not the row.
        value_superlative = _VALUE_SUPERLATIVE.match(cond_free) or (
            _BARE_SUPERLATIVE.match(cond_free) if wh is None else None)
        if value_superlative:
            op = "max" if superlative == "max" else "min"
            rest = cond_free[value_superlative.end():]
            if wh is None:  # a bare phrase ends on its noun: "highest spend campaign"
                # (before what places it: "highest sales region in 2021")
                rest = _PLACING.split(rest, maxsplit=1)[0]
            after = re.findall(r"[^\W_]+", rest)
            if wh is None:
                after = [w for w in after if w not in STOPWORDS][-1:]
            after = after[:1]
            superlative_noun = stem(after[0]) if after and after[0] not in STOPWORDS else None
    if _BOTH_EXTREMES.search(cond_free):
        op = "ambiguous"  # two questions: ask the highest and the lowest one at a time
    if op == "lookup":
        first, last = _FIRST.search(cond_free), _LAST.search(cond_free)
        if first and last:
            op = "ambiguous"  # "the last year ... finished first": an order and a place
        elif first:
            op = "first"
        elif last:
            op = "last"
    mode = _MODE.search(cond_free)
    if mode and op in ("lookup", "argmax", "max", "count", "sum") and not comparing:
        op = "mode"
        after = re.findall(r"[^\W_]+", cond_free[mode.end():])[:1]
        superlative, superlative_noun = None, (
            stem(after[0]) if after and after[0] not in STOPWORDS else None)
    neighbor, neighbor_words = _neighbor(cond_free)
    if neighbor:
        # "the next venue listed after 2013": the year names the row to start from.
        conditions = [c for c in conditions if not (c.on_year and c.op in ("<", ">"))]
    yes_no = wh in AUXILIARIES or any(_YES_NO.search(fold(i)) for i in instructions)
    respective = bool(_RESPECTIVE.search(folded))
    if respective and op in ("sum", "avg", "count"):
        op = "lookup"  # "the shares owned by A and B respectively": one value each, listed
    compound = bool(_COMPOUND.search(folded))
    if value_words is not None and op not in ("argmax", "argmin"):
        # "How many ..., and what is the amount?": two questions, not a row and its figure.
        compound, value_words = True, None
    if margin and (op not in ("argmax", "argmin") or value_words is not None
                   or top > 1 or _place(cond_free) > 1):
        # "What was the total in 1970 and 1973, and by how much did it increase?": two
        # questions, not which of two is ahead and by how much.
        compound, margin = True, False
    if set(answer_words) <= set(_target_words(asking, wh)):
        answer_words = ()  # "Which region had the most? State the region.": said already
    return Analysis(text=question, folded=folded, op=op, wh=wh,
                    # (The noun after "list"/"name" only where a ranking asks for rows:
                    # "list the test numbers of ..." names a column to read, not the rows.)
                    target_words=_target_words(asking, wh)
                    if wh not in ("list", "name") or superlative else (),
                    conditions=conditions,
                    superlative=superlative, count_words=_count_words(folded), neighbor=neighbor,
                    neighbor_words=neighbor_words, superlative_noun=superlative_noun,
                    instructions=instructions, yes_no=yes_no,
                    respective=respective, compound=compound, value_words=value_words,
                    margin=margin, answer_words=answer_words,
                    negated=bool(_NEGATION.search(QUOTED.sub(" ", cond_free))),
                    relative=bool(_RELATIVE.search(cond_free)
                                  or _EXCEEDS_ITS_OWN.search(cond_free))
                    and op not in ("diff", "pct_change"),
                    explanation=bool(_EXPLANATION.search(folded)),
                    place=_place(cond_free), top=top, by_speed=by_speed)


EVERY_STEP = re.compile(r"\b(?:in\s+)?(?:every|each)\s+(?:single\s+)?(?:year|quarter|month|"
                        r"period|season|week|day|time)\b|\b(?:consistently|continuously|"
                        r"steadily|successively|sequentially|year[- ](?:on|over|after)[- ]year)"
                        r"\b")
"""Words asking whether a figure rose (or fell) at each step of a span, not from end to end."""
STEP_VERBS = re.compile(r"\b(?:increase[sd]?|rise|rises|rose|risen|grow|grows|grew|grown|"
                        r"decrease[sd]?|decline[sd]?|drop(?:ped|s)?|fall|falls|fell|fallen|"
                        r"(?:go|goes|went|gone)\s+(?:up|down))\b")
"""The verbs of a rise or a fall, which such a question asks about ("did sales *fall* every
year"): they say what to check, as "increase" does."""

_COUNT_WORDS = {w: i for i, w in enumerate(split_words(
    "two three four five six seven eight nine ten"), 2)}
_N = r"(two|three|four|five|six|seven|eight|nine|ten|[2-9]|10)(?![-\w.,%])"
_SUPERLATIVES = (r"(?:most(?!\s+recent)|highest|largest|greatest|biggest|longest|best|tallest|"
                 r"heaviest|widest|deepest|least|lowest|smallest|fewest|shortest|worst|"
                 r"lightest|cheapest|narrowest|shallowest|oldest|youngest|fastest|slowest|"
                 r"busiest|richest|poorest)")
"""Superlatives that rank by a figure ("the three largest"); not an order in time ("the two
most recent", "the three latest"), which is a slice."""
_TOP_BEFORE_SUPERLATIVE = re.compile(
    # "the three largest sources", "3 most visited", "the top three largest"
    rf"\b{_N}\s+(?=(?:[^\W\d_]+\s+)?{_SUPERLATIVES}\b)|"
    # "which three shipments were the heaviest", "list the three districts with the highest"
    rf"\b(?:which|what|name|list|give|show)\s+(?:(?:are|were|is|was)\s+)?(?:the\s+)?{_N}\s+"
    rf"(?=[^?]*\b{_SUPERLATIVES}\b)")
_TOP_ALONE = re.compile(rf"\btop\s+{_N}")
_SLICE = re.compile(rf"\b(?:first|last|top|bottom|past|previous|next|final|latest|earliest)"
                    rf"\s+{_N}")
"""A slice of an order ("the first three months", "top 5 players")."""


def top_count(folded: str) -> tuple[int, tuple[int, int] | None]:
    """How many of the top of an order the question asks for (1 when it says none), with
    the span of the number's word: a number word or figure (2 to 10) before a superlative
    ("the three largest"), after "which"/"list" with a superlative later ("which three
    shipments were the heaviest"), or after "top" in a question with no superlative ("the
    top three countries for arrivals"). A slice with a superlative of its own ("among the top
    5 players, who has the most assists") ranks within the slice: 1, and the slice is
    refused elsewhere. ("Of the two teams, which scored more" asks one: a comparative is no
    superlative.)"""
    m = _TOP_BEFORE_SUPERLATIVE.search(folded)
    if m is not None:
        group = 1 if m.group(1) else 2
        if any(s.span(1) != m.span(group) for s in _SLICE.finditer(folded)):
            return 1, None
    elif (m := _TOP_ALONE.search(folded)) is not None and \
            not re.search(rf"\b{_SUPERLATIVES}\b", folded) and len(_SLICE.findall(folded)) == 1:
        group = 1
    else:
        return 1, None
    word = m.group(group)
    return (_COUNT_WORDS.get(word) or int(word)), m.span(group)


def _place(folded: str) -> int:
    """The place of an order the question asks for: 1 (the top) unless it says "second
    highest", "3rd largest", "second to last" or "penultimate"."""
    m = PLACE.search(folded)
    if m is None:
        return 1
    if m.group(3):
        return 2
    return int(m.group(2)) if m.group(2) else _PLACES[m.group(1)]


AUXILIARIES = frozenset(("is", "are", "was", "were", "did", "does", "do", "has", "have", "had"))
_YES_NO = re.compile(r"\byes\b\s*(?:/|or)\s*\bno\b|\btrue\b\s*(?:/|or)\s*\bfalse\b")
_RESPECTIVE = re.compile(r"\brespective(?:ly)?\b|\beach (?:had|has|have|got|won|scored)\b")
_COMPOUND = re.compile(r"\band\s+(?:what|how|which|who|when|where)\s+(?:is|was|are|were|did|does|"
                       r"do|many|much|has|had)\b|,\s*and\s+(?:what|how|which|who|by how)\b|"
                       r"\band by how much\b")
_VALUE_CLAUSE = re.compile(r"\s*,?\s*\band\s+(?:(?:what|how much)\s+(?:is|was|are|were)\s+"
                           r"(?:(?:the|its|their|that|this|his|her)\s+((?:[^\W_]+[\s/-]*){1,6}?)"
                           r"|it)|(?:state\s+|give\s+)?(?:its|their)\s+(?:corresponding\s+|"
                           r"respective\s+)?((?:[^\W_]+[\s/-]*){1,6}?))[\s?.!]*$",
                           re.IGNORECASE)
"""The figure asked of the row a question picks: "..., and what was the score?", "... and
its corresponding points total"."""


_ANSWER_REQUEST = re.compile(r"(?<=[?.])\s+(?:please\s+)?(?:give|state|provide|name|report)\s+"
                             r"(?:its|their|the)\s+((?:[^\W\d_]+\s*){1,3}?)[\s.!]*$",
                             re.IGNORECASE)
"""A closing request naming the column to answer with: "... listed? Give its address."."""


def _split_answer_request(question: str) -> tuple[str, tuple[str, ...]]:
    """Split "Give its address." off a question asking for a first or last row: the stemmed
    words of the column it names. (After a ranking, "Give its Risk ID" stays a word of the
    question, which names the column of codes to answer with.)"""
    m = _ANSWER_REQUEST.search(question)
    if m is None or not (_FIRST.search(fold(question[:m.start()]))
                         or _LAST.search(fold(question[:m.start()]))):
        return question, ()
    named = tuple(stem(w) for w in words(m.group(1))
                  if w not in STOPWORDS and stem(w) not in _REQUEST_GENERIC)
    return (question[:m.start()].rstrip(), named) if named else (question, ())


_REQUEST_GENERIC = frozenset(stem(w) for w in split_words(
    "name names full answer answers value values figure figures result number"))
"""Words of a closing request that name no column ("Give the full name.", "State the
answer.")."""


_MARGIN_CLAUSE = re.compile(
    r"\s*[,;]?\s*\band\s+(?:by\s+how\s+(?:much|many)|what\s+(?:is|was)\s+the\s+difference|"
    r"how\s+(?:much|many)\s+(?:more|less|fewer|higher|lower|greater|larger|smaller|bigger))"
    r"(?:\s+(?:more|less|fewer|higher|lower|greater|larger|smaller|bigger))?"
    r"(?:\s+(?:is|was|does|did)\s+it)?[\s?.!]*$", re.IGNORECASE)
"""How far ahead the row a comparison picks is: "..., and by how much?", "... and what is the
difference?"."""


def _split_margin_clause(question: str) -> tuple[str, bool]:
    """Split "..., and by how much?" off a question: whether it asked how far ahead."""
    m = _MARGIN_CLAUSE.search(question)
    if m is None or m.start() == 0:
        return question, False
    return question[:m.start()].rstrip(" ,;") + "?", True


def _split_value_clause(question: str) -> tuple[str, tuple[str, ...] | None]:
    """Split "..., and what was the score?" off a question: the figure asked of the row the
    first part picks (its stemmed words), or None when the question ends otherwise."""
    m = _VALUE_CLAUSE.search(question)
    if m is None or m.start() == 0:
        return question, None
    return question[:m.start()].rstrip(" ,") + "?", tuple(
        stem(w) for w in words(m.group(1) or m.group(2) or "") if w not in STOPWORDS)


QUOTED = re.compile(r"[\"“”][^\"“”]+[\"“”]|(?<!\w)['‘][^'‘’]+['’](?!\w)")
"""A quoted label ("the individuals reported as 'No religion'"): a name, whatever its words."""
_NEGATION = re.compile(r"\b(?:not|never|without|none|neither|nor)\b|n't\b|"
                       r"\bno\b(?!\s*\.|\s*\d)")
_NOT_IN_A_NAME = (r"(?:had|has|have|was|were|is|are|did|does|do|with|in|on|at|for|of|from|"
                  r"to|by|and|or|a|an|the|its|their)")
"""Words that end a row's name in a question: a verb or a preposition starts the rest."""
_RELATIVE = re.compile(r"\b(?:more|less|fewer|higher|lower|greater|larger|smaller|bigger|"
                       r"longer|shorter|older|younger|earlier|later)\b[^?]*?\bthan\s+"
                       r"(?![$£€¥]?-?\d)(?!the (?:average|mean|total)\b)[^\W\d_]|"
                       r"\bsame\b[^?]*\bas\b|"
                       # "above the EU-27 value", "below France's share": a named row's figure.
                       # (A name of up to four words: "under Class A had a Score", "over the
                       # year had an Index" name a group and a column, no row's figure.)
                       r"\b(?:above|below|over|under|exceed(?:ed|s)?|beyond)\s+(?:that of\s+)?"
                       r"(?:the\s+)?(?![$£€¥]?-?\d)(?!(?:the\s+)?(?:average|mean|total|median)\b)"
                       r"[^\W\d_][\w.-]*(?:\s+(?!" + _NOT_IN_A_NAME + r"\b)[\w.-]+){0,3}?"
                       r"(?:'s?\s+|\s+)(?:value|level|figure|share|rate|index|"
                       r"number|amount|score|average|total)\b")
_EXCEEDS_ITS_OWN = re.compile(r"\b(?:the\s+)?(?P<measure>[^\W\d_]+(?:\s+[^\W\d_]+){0,2})\s+"
                              r"(?:\S+\s+){1,4}?(?:exceed|surpass|top)(?:ed|s)?\s+the\s+"
                              r"(?P=measure)\b")
""""Did *the maize yield* in 2021 exceed *the maize yield* in 2011": one measure, said twice,
of two rows."""
_EXPLANATION = re.compile(r"^\s*why\b|\breasons?\b|\bexplain\b|\bhow does (?:it|this|that) "
                          r"compare\b")
_TRAILING_COMMA = re.compile(r"\s*[,;]\s*$")
_INSTRUCTION = re.compile(r"\s*\(([^()]*)\)\s*([.,?]?)\s*$")
"""A parenthesis at the question's end, before any full stop or question mark."""
_ASKED_FORMAT = re.compile(r"^\s*(?:answer|round|give|report|express|in percent|as an?\b|yes\b|"
                           r"to\b|nearest\b|\d+\s+decimal|in (?:millions?|thousands?|billions?)"
                           r"\s*$|percentage points?\s*$|pp\s*$|%\s*$)", re.IGNORECASE)
"""A parenthesis before the question mark that is a format, not the end of a label ("(in
percentage points)?", but not "in US dollars (Millions)?", a column's own words)."""
_INSTRUCTION_SENTENCE = re.compile(
    r"(?<=[?.!])\s+((?:please\s+)?(?:provide|give|answer|respond|reply|write|express|round|"
    r"keep|retain|report|(?:the\s+)?final answer|(?:the\s+)?(?:final\s+)?(?:answers?|results?)"
    r"\s+(?:should|must|shall|will|is|are|needs?\s+to|has\s+to|have\s+to))\b([^?.!]*))"
    r"[.!?]?\s*$", re.IGNORECASE)
"""A sentence after the question that says how to write the answer ("... in 2023? Provide a
yes/no answer.", "The answer should be rounded to two decimal places.", "Keep the answer to
three decimal places?"): an instruction when the words after its opening are those of one
("Give the reason." is not)."""
_INSTRUCTION_WORDS = re.compile(
    r"\b(?:answer|round(?:ed)?|decimals?|places?|d\.?p\.?|dp|integer|whole number|"
    r"significant (?:figures?|digits?)|yes|no|true|false|in (?:millions?|thousands?|"
    r"billions?|percent(?:age)?|%)|units?|format|express(?:ed)?|give|report|%|"
    r"millions?|thousands?|billions?|percentage points?|pp)\b", re.IGNORECASE)


_CHAT_INSTRUCTION = re.compile(
    r"[,;]\s*((?:(?:please|pls)\s+)?(?:round(?:ed)?\s+(?:it\s+)?to\s+(?:\d|one|two|three|four)"
    r"\s*(?:dp|d\.p\.|decimals?(?:\s+places?)?)|(?:just|only)\s+(?:the\s+)?(?:number|figure|"
    r"value|amount)|yes\s+or\s+no)(?:,?\s+(?:please|pls|thanks|thx))?)\s*[.?!]?\s*$",
    re.IGNORECASE)
"""An instruction typed as the last clause of a chat question ("..., round to 2dp", "..., just
the number pls", "..., yes or no")."""
_CHAT_SHORTHAND = [
    (re.compile(r"\bno\.?\s+of\b", re.IGNORECASE), "number of"),
    (re.compile(r"\bpct\b", re.IGNORECASE), "percent"),
    (re.compile(r"\b(\d)\s*dp\b", re.IGNORECASE), r"\1 decimal places"),
]
"""Chat shorthand, written out: "no. of" is "number of" (not the negation "no"), "pct" is
"percent", "2dp" two decimal places."""
_COURTESIES = [
    re.compile(r"^\W*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b(?:\s+there\b)?"
               r"[\s,!.:;-]*", re.IGNORECASE),
    re.compile(r"[\s,.!;-]*\b(?:many )?(?:thanks|thank you|thx|cheers|ty)\b(?: (?:so much|very "
               r"much|a lot|in advance))?[\s.!]*$", re.IGNORECASE),
    re.compile(r"^\W*(?:(?:can|could|would) you\s+(?:(?:please|pls|kindly)\s+)?(?:tell|show|"
               r"give|find|get) me|(?:please\s+)?(?:tell|show) me|i(?:'d| would) like to know|"
               r"i want to know)\s+", re.IGNORECASE),
    re.compile(r"(?:,\s*)?\b(?:please|kindly)\b,?\s*(?=\S)|[\s,]+\b(?:please|pls|plz)\b"
               r"(?=[\s?.!]*$)", re.IGNORECASE),
]
"""Courtesies that ask nothing: a greeting before the question ("Hi!"), thanks after it,
"can you tell me" before what is asked, and "please" anywhere."""


def _written_out(question: str) -> str:
    """The question without its courtesies, its chat shorthand written out."""
    for pattern in _COURTESIES:
        question = pattern.sub("", question)
    for pattern, written in _CHAT_SHORTHAND:
        question = pattern.sub(written, question)
    return question


def split_instructions(question: str) -> tuple[str, tuple[str, ...]]:
    """Split off the answer instructions a question ends with ("What is X? (Answer to two
    decimal places)", "... (in millions)", "(yes / no)"): they say how to write the answer,
    so they are neither a second question nor words to find in the table. A parenthesis
    that names something else ("Methane (CH4)") is kept. Courtesies are dropped and chat
    shorthand is written out first (`_written_out`)."""
    found: list[str] = []
    question = _written_out(question)
    text = question.rstrip()
    if m := _CHAT_INSTRUCTION.search(text):
        found.append(m.group(1).strip())
        text = text[:m.start()].rstrip()
    if (m := _INSTRUCTION_SENTENCE.search(text)) and _INSTRUCTION_WORDS.search(m.group(2)):
        found.append(m.group(1).strip())
        text = text[:m.start()].rstrip()
    while (m := _INSTRUCTION.search(text)) and _INSTRUCTION_WORDS.search(m.group(1)) and (
            m.group(2) != "?" or _ASKED_FORMAT.match(m.group(1))):
        found.insert(0, m.group(1).strip())
        text = text[:m.start()].rstrip()
    text = _TRAILING_COMMA.sub("", text)
    return (text or question), tuple(found)


_BEFORE = re.compile(r"\b(?:(?:directly|right|immediately|just) )?(before|preceding|previous|"
                     r"prior to)\b|\b(?:directly|right|immediately|just) above\b")
_AFTER = re.compile(r"\b(?:(?:directly|right|immediately|just) )?(after|next|following)\b"
                    r"|\b(?:directly|right|immediately|just) (?:below|beneath|under)\b")
"""("just below Japan" in a ranking is the row after it; a bare "below" is a condition.)"""


_SEASON_SPAN = re.compile(r"(?:19|20)\d\d\s*[-\u2010-\u2015/]\s*\d\d(?!\d)")
"""A season or financial year written as a span ("2011-12", "2011–12", "2019/20")."""


def _neighbor(folded: str) -> tuple[int, tuple[str, ...]]:
    """Detect "the one before/after X" (table order); a number after the word is a condition,
    not a neighbour ("after 2002")."""
    before, after = _BEFORE.search(folded), _AFTER.search(folded)
    if bool(before) == bool(after):
        return 0, ()
    match = before or after
    rest = folded[match.end():].split()
    if rest and rest[0][:1].isdigit() and not _SEASON_SPAN.match(rest[0]):
        # (A season is a row's name, no number: "the season after 2011-12" is the next row.)
        return 0, ()
    return (-1 if before else 1), tuple(stem(w) for w in match.group(0).split())


_PREPOSITIONS = frozenset(("from", "by", "in", "at", "to", "for", "with", "on", "the", "a",
                           "an", "as", "during", "since", "after", "before"))


_COUNTED = re.compile(r"(?:\b(?:how many|number of)|^\W*(?:please\s+)?count(?!\s+of\b)(?:\s+up)?"
                      r"(?:\s+all)?(?:\s+the)?(?:\s+(?:total|combined|overall))?"
                      r"(?:\s+number\s+of)?)\s+(?:(?:total|combined|overall)\s+)?"
                      r"((?:[^\W_]+\s*){1,5})")
"""What is counted: after "how many" or "number of", or "count" opening a request ("count
the rows where ...", not the noun of "Count of mines with ...", read as before)."""


_NOUN_COUNT = re.compile(r"\b([^\W\d_]+)\s+count\b")
"""A noun before "count" ("France's total *medal* count"): what is counted."""


def _count_words(folded: str) -> tuple[str, ...]:
    m = _COUNTED.search(folded)
    if not m:
        noun = _NOUN_COUNT.search(folded)
        return (stem(noun.group(1)),) if noun and noun.group(1) not in STOPWORDS \
            and noun.group(1) not in ("total", "overall", "combined", "final") else ()
    out = []
    phrase = m.group(1).split()
    if phrase[0] == "times":
        return ()  # "how many times did ...": occurrences, that is rows
    following = re.findall(r"[^\W_]+", folded[m.end():])[:1]
    for i, word in enumerate(phrase):
        after = (phrase[i + 1:] + following)[:1]
        verb = out and _past_verb(word, after)
        # ("how many regions *of* Spain": the complement names rows, it is not the noun;
        # "how many *of* the films" has its noun after it.)
        if word in ("are", "were", "is", "was", "did", "does", "do", "have", "has", "had", "in",
                    "for", "with", "that", "who", "which", "there", "on", "at", "from", "by",
                    "during", "since", "after", "before", "between") or verb \
                or word == "of" and out:
            # ("how many flights depart *on* Tuesday": the day is a condition, not the noun.)
            break
        if word not in STOPWORDS and not _DISTINCT_WORDS.fullmatch(word):
            out.append(stem(word))
    return tuple(out)


def _past_verb(word: str, after: list[str]) -> bool:
    """Whether a word after a noun is a verb in the past: "players *picked* from ...",
    "tickets *breached* their SLA", "tickets *escalated*": a past form followed by a
    preposition, a determiner or nothing."""
    return word.endswith("ed") and (not after or after[0] in _PREPOSITIONS
                                    or after[0] in _DETERMINERS)


_DETERMINERS = frozenset(("the", "a", "an", "their", "its", "his", "her", "our", "your", "my",
                          "this", "that", "these", "those"))


_DISTINCT_WORDS = re.compile(r"different|distinct|unique|separate|various|individual")
"""Adjectives of "how many different X": X is what is counted."""


_BARE_EQUAL = re.compile(rf"\b(?:had|have|has|having|with|scored|won|recorded|took|lasted)\s+"
                         rf"{_NUMBER}(?=\s+(?!(?:or|and|to|more|less|fewer|times|percent|per|"
                         rf"of|in|on|at|by|hundred|thousand|million|billion|trillion|k|m|bn)\b)"
                         rf"[^\W\d_])")
"""A count's condition written with no comparison word: "how many seasons had *24 episodes*"."""


_OR_MORE = re.compile(r"\s+[^\W\d_]+\s+(?:or|and)\s+(?:more|less|fewer|over|under|above|"
                      r"below|higher|lower|greater|up)\b")
"""A bound written after the noun ("24 episodes *or more*"): no equality."""


def _bare_counts(folded: str, conditions: list[Condition]) -> list[Condition]:
    """The equalities a count question states without a comparison word, outside the
    conditions already found; never a year ("with 2010 ...")."""
    found = []
    for m in _BARE_EQUAL.finditer(folded):
        start, end = m.start(1), m.end(1)
        if any(start < c.span[1] and end > c.span[0] for c in conditions):
            continue
        number = _to_number(m.group(1))
        if number.is_integer() and 1800 <= number <= 2099 or _OR_MORE.match(folded, end):
            continue
        after = [stem(w) for w in re.findall(r"[^\W_]+", folded[end:])[:4]]
        found.append(Condition(op="=", number=number, high=None, words_after=tuple(after),
                               words_before=(), span=(start, end), bare=True))
    return found


_SPAN_AFTER = re.compile(r"\s*[-\u2013\u2014]\s*\d")


def _conditions(folded: str) -> list[Condition]:
    found: list[Condition] = []
    # A quoted label ("the “50 or less” category") is a name, not a comparison.
    taken: list[tuple[int, int]] = [m.span() for m in QUOTED.finditer(folded)]
    for op, pattern in _CONDITIONS:
        for m in pattern.finditer(folded):
            if any(m.start() < end and m.end() > start for start, end in taken):
                continue
            numbers = [g for g in m.groups() if g]
            if not numbers or op != "between" and _SPAN_AFTER.match(folded, m.end()):
                # ("over 2018-2023" is a span of years, not a bound.)
                continue
            low = _to_number(numbers[0])
            high = _to_number(numbers[1]) if op == "between" and len(numbers) > 1 else None
            rest, end = folded[m.end():], m.end()
            if (scale := _SCALE_AFTER.match(rest)) is not None and op != "between":
                # "over 6 million visitors": 6,000,000, and "million" names no column.
                low *= _SCALES_WORDS[scale.group(1) or scale.group(2)]
                rest, end = rest[scale.end():], end + scale.end()
            after = [stem(w) for w in re.findall(r"[^\W_]+", rest)[:4]]
            years = [n for n in (low, high) if n is not None]
            on_year = all(n.is_integer() and 1800 <= n <= 2099 for n in years) and (
                op == "between" or _YEAR_NUMBER in pattern.pattern)
            found.append(Condition(op=op, number=low, high=high, words_after=tuple(after),
                                   words_before=_words_before(folded[:m.start()]),
                                   span=(m.start(), end), on_year=on_year,
                                   scaled=scale is not None and op != "between",
                                   percent=bool(re.match(r"\s*(?:%|percent|per cent)",
                                                         folded[end:]) or
                                                "%" in folded[m.start():m.end()])))
            taken.append((m.start(), end))
    return found


_LINKING = frozenset(split_words("""
have has had having is are was were be been being do does did with whose where that
"""))


def _words_before(text: str) -> tuple[str, ...]:
    """The stemmed words at the end of `text` up to three, back to the first stopword or
    linking verb: the phrase a comparison follows ("employees with a *taxable benefit*")."""
    out: list[str] = []
    for word in reversed(re.findall(r"[^\W_]+", text)[-3:]):
        if word in STOPWORDS or word in _LINKING or word.isdigit():
            break
        out.append(stem(word))
    return tuple(reversed(out))


_SCALE_AFTER = re.compile(r"\s*(thousand|million|billion|trillion)\b|(k|mn|m|bn|b)\b")
"""A scale after a condition's number: a word ("over 6 million") or a letter written on it
("more than £10bn", "exceed 200k")."""
_SCALES_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
                 "k": 1e3, "m": 1e6, "mn": 1e6, "bn": 1e9, "b": 1e9}


def _to_number(text: str) -> float:
    return float(text.replace(",", ""))


_CHANGE_VERBS = frozenset(split_words("""
gained gains lost loses dropped rose fell grew declined shrank
"""))
"""Verbs that follow the noun of "which party lost ...": the noun asked for ends before them."""


_TOP_COUNT = (r"(?:(?:top\s+)?(?:two|three|four|five|six|seven|eight|nine|ten|[2-9]|10)\s+"
              rf"(?:{_SUPERLATIVES}\s+)?)?")
"""The number of a top list, and its superlative, before the noun asked for ("which *three*
shipments", "name the *three largest* sources")."""
_TARGETS = {"which": re.compile(rf"\bwhich\s+{_TOP_COUNT}((?:[^\W\d_]+\s+){{0,2}}[^\W\d_]+)"),
            **dict.fromkeys(("list", "name"), re.compile(
                rf"^\s*(?:list|name)\s+(?:the\s+)?{_TOP_COUNT}((?:[^\W\d_]+\s+){{0,2}}"
                r"[^\W\d_]+)")),
            "what": re.compile(
                r"\bwhat\s+(?:(?:is|was|are|were) the (?:only |first |last |name of the )?"
                r"(?=[^\W\d_]+ (?:that|which|who|when|where|of|in|for)\b))?"
                r"((?:[^\W\d_]+\s+){0,2}[^\W\d_]+)"),
            # "Give the site ID of the site with ...": the column named before "of the".
            **dict.fromkeys(("give", "show"), re.compile(
                r"^\s*(?:give|show)\s+(?:me\s+)?the\s+((?:[^\W\d_]+\s+)?[^\W\d_]+)"
                r"(?=\s+of\s+the\b)")),
            "how many": re.compile(
                r"\bhow many\s+(?!times\b)((?:[^\W\d_]+\s+){0,2}[^\W\d_]+)")}
"""The noun asked for after each question word (compiled with the module: a new process's
first question compiled each, a millisecond or so in all)."""


def _target_words(folded: str, wh: str | None) -> tuple[str, ...]:
    """The noun after "which"/"what" (or "how many"): the attribute or entity asked for."""
    pattern = _TARGETS.get(wh or "")
    if pattern is None:
        return ()
    m = pattern.search(folded)
    if not m:
        return ()
    out = []
    phrase = m.group(1).split()
    following = re.findall(r"[^\W_]+", folded[m.end():])[:1]
    for i, word in enumerate(phrase):
        after = (phrase[i + 1:] + following)[:1]
        # (Not before a preposition: "which titles *premiered* in November" keeps the verb,
        # which may name a column, "Premiered".)
        ends = out and _past_verb(word, after) and (not after or after[0] in _DETERMINERS)
        if word in STOPWORDS or word in ("was", "were", "is", "are", "did", "does", "had", "has") \
                or word in _CHANGE_VERBS or ends:
            break  # "which party *lost* the most seats": the verb ends the noun
        out.append(stem(word))
    return tuple(out)
