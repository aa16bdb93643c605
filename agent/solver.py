"""The offline engine's rules: turn a grounded question into a plan over one table.

Each rule chooses one operation of `agent/plan.py` and its arguments from what the question
was tied to (`agent/grounding.py`). When the question cannot be tied to the table without
guessing, `plan()` returns a `Refusal` that says what would help.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

import numpy as np

from agent import stop
from agent.column_doubts import column_doubt, doubt, prepare_doubts, whole_rows, without_totals
from agent.column_facts import column_counts
from agent.column_forms import column_forms
from agent.display import states_currency
from agent.durations import (
    DURATION_WORDS,
    END_WORDS,
    START_WORDS,
    Asked,
    Span,
    asks_how_long,
    ends_said,
    lists_each,
    reads_duration,
    spans,
    stated_durations,
    subject_words,
    what_is_asked,
)
from agent.frame import Attr, Frame, Value
from agent.grounding import (
    GENERIC_WORDS,
    ID_WORDS,
    MEASURING_UNITS,
    PHYSICAL_UNIT_WORDS,
    PHYSICAL_UNITS,
    SEX_WORDS,
    SOURCE_NOTE,
    AttrMatch,
    Grounding,
    ValueMatch,
    covers_more,
    measure_apart,
    names_a_time,
    naming_path,
    period_of,
    period_total,
    says_words,
    table_words,
    undominated,
    unnamed_columns,
    year_of,
)
from agent.moments import point
from agent.plan import (
    AGGREGATES_ACROSS_COLUMNS,
    COMBINABLE,
    NO_FIGURE,
    Aggregate,
    ColumnDifference,
    Combined,
    Compare,
    CompareCount,
    Count,
    CountDistinct,
    Difference,
    Duration,
    Filter,
    Frames,
    GroupSum,
    Lookup,
    Mode,
    PercentChange,
    Plan,
    Rank,
    RankChange,
    RankColumns,
    RankGroups,
    Ratio,
    ReadCells,
    ReadRows,
    Refusal,
    RowAverage,
    Steady,
    Threshold,
    column_names,
)
from agent.question import (
    EVERY_STEP,
    OPERATION_WORDS,
    ORDER_WORDS,
    QUOTED,
    Analysis,
    Condition,
    analyse,
)
from agent.results import fmt, number
from agent.table_facts import (
    AGGREGATE_LABEL,
    MONTH_LABEL,
    SUMMARY_LABEL,
    TOTAL_LABEL,
    adds_up,
    distinct_row_paths,
    profile,
    reconciling_rows,
    summary_row,
    total_labelled,
    whole_members,
)
from agent.text import (
    ABBREVIATIONS,
    IRREGULAR_PAST,
    STOP_STEMS,
    STOPWORDS,
    UNIT_FAMILIES,
    content_tokens,
    fold,
    label_tokens,
    month_number,
    ordinal,
    plural,
    split_words,
    stem,
    unit_forms,
    word_spans,
    words,
)
from ingest.labels import matching_label
from ingest.values import as_day_first, has_own_unit, parse_value, writes_day_first

TOLERATED_UNEXPLAINED = 1
"""Question words the table may leave unexplained ("which *team* ...")."""
_COUNT_WORDS = frozenset(stem(w) for w in split_words("""
number count people persons headcount quantity qty total students employees members
"""))
_VERBS = frozenset(stem(w) for w in split_words("""
came come comes won win wins got get gets made make makes ran run runs went go goes took take
takes played play plays used use uses scored score scores earned earn earns finished finish
appeared appear started start received receive held hold hosted host competed compete
"""))
"""Verbs that relate a row to the question without selecting anything."""
_MONEY_VERBS = frozenset(stem(w) for w in split_words("""
spend spent spends earn earned earns cost costs pay paid pays raise raised raises donate donated
invest invested save saved owe owed charge charged borrow borrowed lend lent
"""))
"""Verbs whose amount of money a "how much did ..." question asks for."""
_QUANTITY_VERBS = frozenset(stem(w) for w in split_words("""
export exported import imported produce produced consume consumed generate generated sell sold
sells buy bought buys
"""))
"""Verbs whose amount a "how much did ..." question asks for, which a table of that amount
says (an "Exports" column, a title of production)."""
_MONEY_NAMES = frozenset(stem(w) for w in split_words("""
budget budgets spending expenditure expenditures expense expenses cost costs price prices
revenue revenues income sales salary salaries wage wages pay fee fees fare fares funding grant
grants donation donations investment investments profit profits dollar dollars euro euros
pound pounds usd eur gbp money cash
"""))
"""Words that say a table's figures are money."""


def _about_money(frame: Frame) -> bool:
    """Whether the table's names (title, file, sheet, headers) or units say it holds money."""
    about = " ".join(filter(None, [frame.title, frame.file_name, frame.sheet,
                                   *(label for a in frame.attrs for label in a.path)]))
    return bool({stem(w) for w in words(fold(about.replace("_", " ")))} & _MONEY_NAMES) or \
        any(a.unit and any(sym in a.unit for sym in "$€£¥") for a in frame.data_attrs)
_HOW_MUCH_DID = re.compile(r"\s*how much (?:money |more |less )?(?:did|does|do|has|have|had|"
                           r"will|would|can|could|is|was|were|are)\b")
_RESULT_VERBS = frozenset(stem(w) for w in split_words("""
win wins won winning lose loses lost losing beat beats beaten defeat defeated draw drew drawn
succeed succeeds succeeded successful fail fails failed unsuccessful pass passed
"""))
"""Verbs of an outcome: in a count they select the rows won (or lost), not every row."""
_PERSON_WORDS = frozenset(stem(w) for w in split_words("""
name driver player athlete winner person candidate representative artist author coach
manager rider runner swimmer singer member employee owner director actor champion
surname forename competitor participant respondent
"""))
"""Column names that hold the person a "who" question asks for."""
_PERSON_NOUNS = _PERSON_WORDS | frozenset(stem(w) for w in split_words("""
councillor councilor mp senator mayor minister president governor captain scorer goalkeeper
politician leader chairman chair ceo teacher"""))
"""Nouns of a "which ..." question that ask for a person."""
_BETTER = re.compile(r"\b(?:best|worst|better|worse)\b")
_JUDGING = re.compile(r"\b(?:affordable|affordability|unaffordable|efficient|safe|safer|"
                      r"safest|risky|riskier|riskiest|healthy|healthiest|competitive)\b")
"""Words that judge a figure ("most affordable", "the safest"): which end of a column they
mean depends on what it measures. ("Most expensive" is the highest price or cost.)"""


def _judging_word(grounding: Grounding, analysis: Analysis) -> str | None:
    """A word of the question that judges a figure (`_JUDGING`), not part of a value or a
    column it names ("Safe, high quality care" is a row)."""
    for m in _JUDGING.finditer(analysis.folded):
        i = len(words(analysis.folded[:m.start()]))
        if not any(i in vm.positions for vm in grounding.values) and \
                not any(i in am.positions for am in grounding.attrs if am.full):
            return m.group(0)
    return None


_LOWER_IS_BETTER = frozenset(stem(w) for w in split_words("""
reject rejects rejected defect defects defective scrap downtime error errors failure failures
mishandled expense expenses
complaint complaints delay delays cost costs loss losses ppm waste injuries injury accidents
accident deaths death mortality crime crimes churn absence absences emissions outage outages
"""))
"""Words of a measure where a lower figure is the better one."""


def _lower_is_better(frame: Frame, key: str, analysis: Analysis) -> bool:
    """Whether a column measures something where lower is better, as its header, the
    question ("the best fuel cost") or, above a header that is a time alone, the title
    ("Mishandled bags per 1,000 passengers" over "2023") says."""
    attr = frame.attr(key)
    said = {stem(w) for w in words(analysis.folded)}
    titled = {stem(w) for w in words(fold(frame.title or ""))} if _headed_by_a_time(attr) \
        else set()
    return bool((attr.tokens | said | titled) & _LOWER_IS_BETTER)


_RATIO_STEMS = frozenset(stem(w) for w in ("ratio", "ratios", "rate", "rates"))
"""A figure that divides one amount by another: never the sum of a column's rows."""
_HEADCOUNT_WORDS = frozenset(stem(w) for w in split_words("""
people persons employees staff workers students members residents inhabitants passengers
visitors users customers patients voters units pieces copies tonnes tons barrels litres liters
gallons kilograms participants respondents subjects individuals households undergraduates
postgraduates graduates applicants recipients beneficiaries enrollees
"""))
"""Nouns of a headcount or a quantity: a table of people has a column of their names, and
units sold are a number in a column; a row is neither, so counting rows does not give them."""
_PLACE_WORDS = frozenset(stem(w) for w in split_words("""
venue location city country place site stadium ground town state region host arena circuit
track course address nation province county capital destination origin
"""))
"""Column names that hold the place a "where" question asks for."""
_MEANING_WORDS = split_words("""
alone solely jointly together entirely wholly fully partly partially exclusively
not no never without except excluding exclude excludes excluded besides other others same next
previous following preceding after
before consecutive straight only first last between than either or neither nor still
twice thrice double doubled triple tripled half halved quadruple
""")
_MEANINGFUL = frozenset(_MEANING_WORDS) | frozenset(stem(w) for w in _MEANING_WORDS)
"""Words that change what is asked: never left unexplained (written and stemmed, as the
unexplained words are)."""
_TRANSFORMING = frozenset(stem(w) for w in split_words("""
margin margins median variance deviation capita cagr multiple turnover remain remains remaining
remainder leftover unspent gain gained gains lose loses lost losing far concede concedes conceded
conceding budgeted forecast forecasted projected planned estimated target targeted
"""))
"""Words that make another quantity of the one named ("the net income *margin*", "the
*median* salary", "how many seats did it *lose*", "how *far* is revenue from target", "goals
*conceded*", "the *budgeted* revenue"): the named cell alone would answer something else (the
seats held, not the seats lost; the target, not the distance to it; the goals scored, not
those let in; the actual figure, not the budgeted one)."""


def _period_left_out(grounding: Grounding, result: Plan) -> str | None:
    """A column the question names by a period alone ("in *March*" naming "Mar"), beside a
    column read that names no period: the label of the period named, else None."""
    frame = grounding.frame
    read = [frame.attr(k) for k in result.measure]
    if not read or any(_FY_OR_YEAR.search(a.label) or any(period_of(p) for p in a.path)
                       for a in read):
        return None
    for m in grounding.attrs:
        if m.full and len(m.attrs) == 1 and m.attrs[0] not in result.measure \
                and (path := frame.attr(m.attrs[0]).path) and period_of(path[-1]) is not None:
            return m.label
    return None


_ORDINAL_WORD = re.compile(r"\d+(?:st|nd|rd|th)")
"""A place in an order ("3rd"), which the question's analysis reads, not a number."""
_LEADING_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _explained_enough(grounding: Grounding, analysis: Analysis) -> bool:
    """Every content word of the question is tied to the table, or at most a tolerated few
    words that only describe the rows ("which *team* won ...") are not.

    The tolerance needs two groundings, or one when the loose word is a verb ("routes that
    *used* Interjet") or the question asks for a neighbouring row ("the next *singer* after X").
    """
    missing = grounding.unexplained_stems
    if not missing:
        return True
    if grounding.names & (grounding.content - grounding.explained):
        return False  # "revenue from *Consulting*": the row it names is not in the table
    if any(_LEADING_NUMBER.match(w) and not _ORDINAL_WORD.fullmatch(w) for w in missing):
        return False  # "a budget over GBP *30m*": a number no cell or condition reads
    if grounding.frame.title and set(missing) & _measure_words(analysis.folded):
        # "What was the *GDP* of Canada" over a table titled "Hospital employment": the table
        # says what it measures, and the thing asked for is not it. (Untitled tables often
        # leave their measure unsaid: "expense" over a CSV of expense lines.)
        return False
    if _unlike_the_title(grounding):
        # "*Diastolic* blood pressure at week 24" over "Mean systolic blood pressure by
        # visit": the title's measure, with another word before it.
        return False
    if set(missing) & _rate_words(analysis.folded):
        return False  # "GDP *per person*": a rate over a quantity the table does not name
    if _HOW_MUCH_DID.match(analysis.folded) and (
            set(missing) & _QUANTITY_VERBS or
            set(missing) & _MONEY_VERBS and not _about_money(grounding.frame)):
        # "How much did tourists from China *spend*" over arrivals: the verb is the amount
        # asked for, and the table's figures are not it. ("How much more did NASA spend"
        # over a file of budgets is.)
        return False
    ranked_by = {stem(m.group(1)) for m in _RANKED_BY.finditer(analysis.folded)}
    if set(missing) & ranked_by:
        # "Which country had the highest *spending*" over a table of visits: the measure
        # ranked by is the thing the table must hold.
        return False
    if analysis.wh in ("which", "what") and set(missing) & set(analysis.target_words[:-1]):
        # "which *european* airport": a word narrowing the rows asked about, which the table
        # cannot apply.
        return False
    asked = _WHAT_IS_THE.match(analysis.folded)
    if asked and stem(asked.group(1)) in missing:
        return False  # "what was the *population* when X took office": the thing asked for
    if _names_a_condition(grounding):
        return False  # "the race *in July*": a condition the table cannot apply
    if set(missing) - _WHEN_WORDS & {stem(w) for m in _HAD_A.finditer(analysis.folded)
                                     for w in _object_words(m.group(1))}:
        return False  # "how many months *had a surplus*": what the rows must have
    if _listed_with_a_value(grounding):
        # "the combined number of *van* and HGV occupants" matched HGV occupants alone: the
        # loose word is a second item of the list, which the answer would leave out.
        return False
    if _said_beside_a_value(grounding, missing):
        # "cohabiting *couples* with dependent children" matched "With dependent children"
        # beside "Cohabiting couple family: With dependent children": the loose word is the
        # other cell's, which the question may name.
        return False
    if _narrows_a_column(grounding):
        return False  # "the *paediatrics* ward" beside an "All wards" column
    if any(grounding.begins_a_category(w) for w in grounding.unexplained):
        # "What year did he first *win* Wimbledon" beside an Outcome "Winner": the loose
        # word is kin to the table's, and dropped it would lose the rows it chooses.
        return False
    grounded = len(grounding.values) + sum(1 for m in grounding.attrs if m.full)
    needed = 1 if analysis.neighbor or all(w in _VERBS | _PROVIDING_VERBS for w in missing) \
        else 2
    return (len(missing) <= TOLERATED_UNEXPLAINED and grounded >= needed
            and not any(w in _MEANINGFUL or w in _TRANSFORMING or w in SEX_WORDS
                        or w.isdigit() or w in _NUMBER_WORDS for w in missing))


_HAD_A = re.compile(r"\b(?:had|has|have|having|saw|showed|recorded|reported|posted)\s+"
                    r"(?:an?\s+|any\s+|no\s+)?(?!(?:the|been)\b)([^\W\d_]+(?:\s+[^\W\d_]+){0,2})")
"""The thing rows are said to have ("months that *had a surplus*"): a condition on them.
(Not a time: "deals that have an expected close *date* in September" says which column the
condition reads.)"""
_WHEN_WORDS = frozenset(stem(w) for w in ("date", "dates", "time", "day", "period", "year",
                                          "month"))
_OBJECT_ENDS = frozenset(split_words("""
against in on at by for from to during with of over under per across between than since after
before into within without
"""))


def _object_words(phrase: str) -> list[str]:
    """The words of a verb's object up to the first preposition ("time *against* Project
    Gamma" is "time")."""
    out = []
    for w in phrase.split():
        if w in _OBJECT_ENDS:
            break
        out.append(w)
    return out


def _listed_with_a_value(grounding: Grounding) -> bool:
    """Whether a loose word stands beside a named value or column with "and" or "or" between
    them ("van and HGV occupants", "further study and unemployment rates"), or beside words
    the table's title explains ("killed or *seriously injured*" over a table of the seriously
    injured, stacked under one of those killed)."""
    q, loose = grounding.raw_words, grounding.content - grounding.explained
    named = {i for m in [*grounding.values, *grounding.attrs] if m.positions
             for i in m.positions} | (grounding.explained & grounding.content)
    # (A loose word before a named one qualifies it: "revenue and *bus* operating cost".)
    return any(i + 2 < len(q) and q[i + 1] in _LIST_JOINS and i + 2 in named
               or i >= 2 and q[i - 1] in _LIST_JOINS and i - 2 in named and i + 1 not in named
               for i in loose)


_LIST_JOINS = frozenset(["and", "or", "&"])

SIBLING_ROWS = 2_000
"""Rows of a column read for the words of the cells beside a named one (`_said_beside_a_value`);
a taller table is not read for it."""


def _said_beside_a_value(grounding: Grounding, missing: list[str]) -> bool:
    """Whether a word the question leaves unexplained is written in a longer cell of a column
    whose cell it names, beside that cell's whole text ("Cohabiting couple family: With
    dependent children" for "With dependent children" and "couples")."""
    frame = grounding.frame
    if len(frame.rows) > SIBLING_ROWS:
        return False
    loose = set(missing)
    for vm in grounding.values:
        named = fold(vm.text).strip()
        for value in frame.values_of(vm.attr, frame.rows):
            text = fold(value.text).strip() if value is not None else ""
            if text != named and named in text and loose & {stem(w) for w in words(text)}:
                return True
    return False


_NUMBER_WORDS = frozenset(stem(w) for w in split_words(
    "zero two three four five six seven eight nine ten eleven twelve twenty hundred"))
"""Numbers written as words ("*zero* churned logos"): a condition no rule here restates."""


_AVERAGE_STEMS = frozenset(stem(w) for w in ("average", "mean"))
_NAME_OPERATION_STEMS = frozenset(stem(w) for w in (
    "average", "mean", "avg", "min", "minimum", "max", "maximum", "lowest", "highest", "best",
    "worst", "cumulative", "list", "difference"))
"""Words that ask an operation in a question and also start or end column names ("Avg
Rating", "Max Capacity", "Duration (min)", "Personal best", "List price", "GD" for goal
difference)."""


_RANKING_NAME_STEMS = frozenset(stem(w) for w in (
    "min", "minimum", "max", "maximum", "lowest", "highest", "best", "worst"))
"""Of those, the words that may rank the rows by the column they start ("which day had the
max temperature") as well as name it."""


def _operation_words_in_a_name(grounding: Grounding) -> frozenset[str]:
    """The operation words of the question (stems) that are words of the one column it names
    best in full, each said no more often than the name has it and never outside it: "the
    total Duration (min)" sums the Duration (min) column, "the lowest Avg Rating" takes the
    lowest of Avg Rating, "the average of the Average price" keeps its own "average"."""
    full = [m for m in grounding.attrs if m.full and m.positions and len(m.attrs) == 1]
    if not full or len(full) > 1 and full[1].score == full[0].score:
        return frozenset()
    best = full[0]  # the column the question names best, not any other it touches
    # (A short form's words are its name's: "GD" is "goal difference".)
    name = [part for w in words(grounding.frame.attr(best.attrs[0]).label)
            for part in (w, *ABBREVIATIONS.get(w, ()))]
    in_name = [s for s in map(stem, name) if s in _NAME_OPERATION_STEMS]
    # (The question's own words: "goal difference" was tied to "GD" as "gd gd".)
    raw = [stem(w) for w in grounding.raw_words] or grounding.q_words
    named = set()
    for word in set(in_name):
        said = [i for i, (w, r) in enumerate(zip(grounding.q_words, raw, strict=False))
                if word in (w, r)]
        if said and len(said) <= in_name.count(word) and all(i in best.positions for i in said):
            named.add(word)
    return frozenset(named)


_ROW_OPERATION_STEMS = frozenset(stem(w) for w in (
    "change", "increase", "decrease", "difference", "growth", "decline"))
"""Words that ask a difference in a question and also start row labels of financial tables
("Change in valuation allowance", "Net increase in cash")."""
_TOTAL_STEMS = frozenset({stem("total")})
_RANK_ROW_STEMS = frozenset(stem(w) for w in ("highest", "lowest", "top", "bottom")) \
    | _AVERAGE_STEMS
"""Words that ask for a ranking or a mean and also label rows of groups or statistics
("Highest quintile", "Top 10 percent", "Annual average"): said only inside such a label,
they name its row."""


def _operation_words_in_a_row(grounding: Grounding) -> frozenset[str]:
    """The difference words of the question (stems) said only inside the label of one row it
    names: "the ratio of *change* in valuation allowance to ..." divides that row's figure,
    it takes no difference. So is "total" inside the label of the row it names (when the
    question names one cell of it), or of the one line of several blocks it names: "SA volume
    index *total* predominantly non-food stores May 2024" reads that line of one block; it
    adds up no rows. And "highest" inside "Highest quintile", or "top" in "Top 10 percent", of
    the row it names, or of the one line of several blocks: it ranks nothing."""
    named = set()
    frame = grounding.frame
    for vm in grounding.values:
        # One line under each of several blocks: "total" is its label's word there too (a
        # band "Total assets:" over its members is a total to take).
        lines = len(vm.rows) > 1 and all(_own_label(frame, r) == vm.text for r in vm.rows)
        for i in vm.positions:
            word = grounding.q_words[i]
            if len(vm.rows) != 1 and not (word in _TOTAL_STEMS | _RANK_ROW_STEMS and lines) \
                    or len(vm.rows) == 1 \
                    and word in _TOTAL_STEMS and len({m.positions for m in grounding.attrs
                                                      if m.full}) > 1:
                # ("The Total Bell Wireless revenues in 2018 and 2019": two cells of the
                # row, whose total is asked.)
                continue
            said = [j for j, w in enumerate(grounding.q_words) if w == word]
            if word in _ROW_OPERATION_STEMS | _TOTAL_STEMS | _RANK_ROW_STEMS \
                    and all(j in vm.positions for j in said):
                named.add(word)
    return frozenset(named)


_MEAN_STEMS = _AVERAGE_STEMS | {stem("avg")}


def _asks_an_operation(analysis: Analysis) -> bool:
    """Whether a question asks more than to read a cell: an operation, a highest/lowest, or
    the rows a condition picks ("which accounts have a Minimum deposit greater than 20")."""
    return analysis.op != "lookup" or analysis.superlative is not None \
        or bool(analysis.conditions)


def _without_words(text: str, stems: frozenset[str]) -> str:
    """The text with its words of these stems blanked out."""
    return re.sub(r"[^\W_]+", lambda m: " " if stem(fold(m.group())) in stems else m.group(),
                  text)


def _narrows_a_column(grounding: Grounding) -> bool:
    """Whether a word the table does not have sits right before a word that named a column of
    totals ("admissions in the *paediatrics* ward" matched to "All wards"): it names one
    member of the total, which the table does not have."""
    missing = grounding.content - grounding.explained
    frame = grounding.frame
    summaries = {p for m in grounding.attrs if m.full for p in m.positions
                 if any(SUMMARY_LABEL.search(frame.attr(k).label) for k in m.attrs)}
    return any(i + 1 in summaries for i in missing)


_RANKED_BY = re.compile(r"\b(?:highest|lowest|most|least|largest|smallest|greatest|biggest|"
                        r"fewest|top|maximum|minimum)\s+(?:number of\s+|amount of\s+)?"
                        r"([^\W\d_]{3,})")
"""The word a ranking is by ("the highest *spending*")."""

_WHAT_IS_THE = re.compile(r"^\s*what (?:is|was|are|were) (?:the|his|her|its|their) "
                          r"([^\W\d_]+) (?:when|while|as)\b")
"""The thing a "what was the X when ..." question asks for: the "when" clause picks the row
by other columns (an untitled table may leave X, its measure, unsaid; not then)."""

_CONDITION_PREPOSITIONS = frozenset(split_words("in during at on from since until"))


def _names_a_condition(grounding: Grounding) -> bool:
    """Whether an unexplained word names a time or place that selects rows: a month ("the
    race in *July*"), or the word right after "in", "at", "during"... ("won *at* Monza").
    Dropped, the answer would be over rows the question excludes."""
    raw = grounding.raw_words  # folded already (`words`)
    for i in grounding.content - grounding.explained:
        if raw[i] != "may" and month_number(raw[i]) is not None:
            return True
        # ("in *terms* of", "on *behalf* of" are phrases, not places; "the difference in
        # *medal* counts" names the measure.)
        if i > 0 and raw[i - 1] in _CONDITION_PREPOSITIONS and raw[i + 1:i + 2] != ["of"] \
                and (i < 2 or raw[i - 2] not in _MEASURE_NOUNS):
            return True
        if i > 0 and raw[i - 1] in ("for", "among") and len(raw[i]) >= 5 \
                and raw[i].endswith("s") and not raw[i].endswith("ss") \
                and raw[i + 1:i + 2] != ["of"] and not grounding.in_table(raw[i]):
            return True  # "the killed rate for *motorcyclists*": a group the table never names
        if i > 0 and raw[i] in _PERIODS and (raw[i - 1] in _PERIOD_PICKS
                                             or re.fullmatch(r"\d+(?:st|nd|rd|th)", raw[i - 1])):
            return True  # "opened in the *first quarter*", "the last month"
    return False


_PERIODS = frozenset(split_words("""
quarter quarters half week weeks month months year years season seasons term semester period
day days
"""))
_PERIOD_PICKS = frozenset(split_words("""
last this next previous past current final first second third fourth
"""))


_MEASURE_NOUNS = frozenset(split_words("""
difference differences change changes increase increases decrease decreases growth rise fall
drop decline gap gaps share
"""))
"""Nouns whose "in" names the measure ("the change *in* revenue"), not a place or time."""


_PER = re.compile(r"\bper\s+(\w+)")
_EACH = re.compile(r"\b(?:per|for each|of each|for every|in each|by each)\s+(\w+)|"
                   r"\bby\s+(?!each\b)(\w+)(?=\s*(?:$|[?,.;!]|\s(?:and|in|for|during|of|from|"
                   r"over|between|across|since|before|after)\b))")
"""The noun a figure is broken down by: "per product", "for each region", "average amount *by
category*" ("by" a noun that ends the phrase: "handled by salesperson Wu" names a value)."""


def _grouping_columns(frame: Frame, folded: str) -> list[Attr]:
    """The text columns a question breaks its figure down by ("per *product*", "for each
    *region*"): the answer would be one figure per value of the column."""
    nouns = {stem(w) for m in _EACH.findall(folded) for w in m if w}
    return [a for a in frame.attrs if not a.measurable and a.tokens & nouns] if nouns else []


def _names_each_row(frame: Frame, rows: list[int], attr: Attr) -> bool:
    """Whether a text column holds a different value in each of the rows (one row per
    flight): an average "per" that column is the average over the rows."""
    texts = [v.text for v in frame.values_of(attr.key, rows) if v is not None]
    return len(texts) == len(rows) and len(set(texts)) == len(texts)


def _rate_words(folded: str) -> set[str]:
    """The stems of the words a rate divides by ("GDP per *person*"): left unexplained, the
    answer would be the undivided amount."""
    return {stem(w) for w in _PER.findall(folded)}


def _unlike_the_title(grounding: Grounding) -> bool:
    """Whether a word the table does not have comes right before two words its title says
    together, where the title says another word before them ("diastolic blood pressure" of a
    table titled "Mean systolic blood pressure"): it names a sibling of the table's measure."""
    title = words(fold(grounding.frame.title or ""))
    raw = grounding.raw_words or grounding.q_words
    for i in grounding.content - grounding.explained:
        after = raw[i + 1:i + 3]
        if len(after) < 2 or raw[i] in title or not all(w.isalpha() for w in after):
            continue  # (years after "across" name a span, not a measure)
        for j in range(1, len(title) - 1):
            if title[j:j + 2] == after and title[j - 1] not in STOPWORDS:
                return True
    return False


_MEASURE_SLOT = re.compile(
    r"^\s*(?:what|how much)\s+(?:(?:is|was|are|were|has|had|did|does|do)\s+)?"
    r"(?:the\s+)?(?P<slot>[^?,]*?)\s+(?:of|for|in|at|on|by|from|during|between|across|among|"
    r"under|over|to|with|per)\b")
"""The words naming what a question asks for: between "what was the" (or "how much") and the
first preposition ("What was the GDP of Canada in 2019?"). "How many *students*" names what
is counted, which describes the rows instead."""


def _measure_words(folded: str) -> set[str]:
    """The stems of the words naming the quantity asked for; a tolerated unexplained word
    ("which *team* won") only describes the rows, and one of these would be the answer's
    meaning, so the table must explain them."""
    m = _MEASURE_SLOT.match(folded)
    if m is None:
        return set()
    slot = [stem(w) for w in words(m.group("slot"))]
    # ("How much research income *came* from EPSRC": the noun ends at its verb.)
    ends = [i for i, w in enumerate(slot) if i and w in _VERBS | _PROVIDING_VERBS]
    return set(slot[:ends[0]] if ends else slot)


_PROVIDING_VERBS = frozenset(stem(w) for w in split_words("""
provide provided provides contribute contributed contributes award awarded awards give gave
gives bring brought brings account accounted accounts
"""))
"""Verbs that say where an amount came from ("did EPSRC provide"), not what it is."""


def _nouns_in_table_words(grounding: Grounding, analysis: Analysis) -> Analysis:
    """The question's asked nouns written short ("which *dept*") in the words they stand for
    where the table explained them so ("department"): the rules compare them with header
    words. (Only short forms: "which team *won*" read as a Winner column asks for a team.)"""
    forms = {}
    for i, (raw, read) in enumerate(zip(grounding.raw_words, grounding.q_words, strict=True)):
        long = ABBREVIATIONS.get(raw)
        if long is not None and len(long) == 1 and stem(long[0]) == read \
                and i in grounding.explained:
            forms.setdefault(stem(raw), read)
    if not forms or not set(forms) & {*analysis.target_words, *analysis.count_words}:
        return analysis
    return analysis.model_copy(update={
        "target_words": tuple(forms.get(w, w) for w in analysis.target_words),
        "count_words": tuple(forms.get(w, w) for w in analysis.count_words)})


REPHRASE = "ask with the table's own words, or connect an LLM in Settings to read them"
"""What a reader can do about words the table does not have: offline, the question's words
must be found in the table."""


def _unmatched_words(grounding: Grounding, analysis: Analysis | None = None) -> str:
    """Why the question's words could not be tied to the table: those the table has no form
    of (with a "did you mean" for a mistyped one), apart from those it writes only inside
    labels the question's phrase did not match ("operating" of "Operating Expenses" when
    the question says "operating expnse"). A counted noun the table never writes is said
    first ("how many *employees*" of a table of fixed assets): a count's noun is let pass
    unmatched, since rows of teams need not say "team", but here it is what is missing."""
    frame = grounding.frame
    words = list(dict.fromkeys(grounding.unexplained))[:6]  # each word once
    partial = [w for w in words if grounding.in_table(w)]
    absent = [w for w in words if w not in partial]
    def quoted(ws: list[str]) -> str:
        return ", ".join(f'"{w}"' for w in ws)
    clauses = []
    if analysis is not None and (counted := _counted_noun_absent(grounding, analysis)):
        clauses.append(f"{frame.caption} names no \"{counted}\" to count")
    if absent:
        plural = len(absent) > 1
        where = "it" if clauses else frame.caption
        clauses.append(f"the word{'s' * plural} {quoted(absent)} do{'es' * (not plural)} not "
                       f"match anything in {where}{grounding.did_you_mean}")
    if partial:
        plural = len(partial) > 1
        where = "" if clauses else f" of {frame.caption}"
        clauses.append(f"{quoted(partial)} appear{'s' * (not plural)} only within longer "
                       f"labels{where} that the question's words around "
                       f"{'them' if plural else 'it'} do not match")
    said = clauses[0] if len(clauses) == 1 else ", ".join(clauses[:-1]) + ", and " + clauses[-1]
    return f"{said}; {REPHRASE}"


def _counted_noun_absent(grounding: Grounding, analysis: Analysis) -> str | None:
    """The counted noun of "how many <noun>" as written, when the table has no form of it in
    any header or cell; None otherwise. Only a one-word noun: the words after "how many" may
    run on into a verb ("how many penguins *live*"), which names nothing to count."""
    if analysis.op != "count" or len(analysis.count_words) != 1:
        return None
    noun = analysis.count_words[-1]
    for i, word in enumerate(grounding.q_words):
        if word == noun and not grounding.in_table(word) \
                and not any(i in m.positions for m in grounding.attrs) \
                and not any(i in vm.positions for vm in grounding.values):
            return grounding.raw_words[i]
    return None


def plan(grounding: Grounding, analysis: Analysis) -> Plan | Refusal:
    """Choose the computation a grounded question asks for, or refuse."""
    result = _plan_asked(grounding, analysis)
    if analysis.margin and not isinstance(result, Refusal) \
            and not (isinstance(result, Rank | Compare) and result.margin):
        # "..., and by how much?" is answered only with the one ahead of two and its lead.
        return Refusal("the question asks two things at once (which is ahead, and by how "
                       "much), which offline only a comparison of two rows answers; ask them "
                       "one at a time")
    if analysis.answer_words and not isinstance(result, Refusal) \
            and not (isinstance(result, ReadRows) and result.op in ("first", "last")):
        # "Give its address." after a ranking or a total: offline, only a first or last
        # row's cell is read in the column such a request names.
        return Refusal("the question asks for another column of the row it picks; ask for "
                       "that column in the question itself")
    return result


def _plan_asked(grounding: Grounding, analysis: Analysis) -> Plan | Refusal:
    """The plan of `plan`, before the checks that a "by how much" or a closing request
    ("Give its address.") is answered."""
    frame = grounding.frame
    analysis = _nouns_in_table_words(grounding, analysis)
    if (lasted := _plan_duration(grounding, analysis)) is not None:
        return lasted
    if not _explained_enough(grounding, analysis):
        return Refusal(_unmatched_words(grounding, analysis))
    if analysis.yes_no and analysis.relative:
        claim = _plan_claim(grounding, analysis)
        if not isinstance(claim, Refusal):
            return _checked(claim, grounding, analysis)
    if analysis.yes_no and len(analysis.conditions) == 1 and not analysis.relative \
            and (threshold := _plan_threshold(grounding, analysis)) is not None:
        return threshold
    if analysis.yes_no and not analysis.relative \
            and (direction := _plan_direction_claim(grounding, analysis)) is not None:
        return _checked(direction, grounding, analysis)
    if analysis.relative and not analysis.yes_no \
            and (compared := _plan_columns_compared(grounding, analysis)) is not None:
        return _checked(compared, grounding, analysis)
    unsupported = _unsupported(analysis, grounding)
    if unsupported:
        return Refusal(unsupported)
    swallowed = _swallowed_header(frame)
    if swallowed:
        return Refusal(f"the header of {frame.caption} seems to hold data rows ({swallowed}); "
                       "correct the table's header rows, or ask with an LLM")
    rows, filters, problem = _filter_rows(grounding, analysis)
    if problem:
        return Refusal(problem)
    op = analysis.op
    if analysis.neighbor and not _names_a_column(grounding, analysis.neighbor_words):
        # ("Which nation ranked directly below Kenya" read in the Rank column: a number for
        # "which", refused as any other plan would be.)
        return _checked(_plan_neighbor(grounding, analysis), grounding, analysis)
    either = _either_or(grounding)
    if either is not None and analysis.superlative:
        result = _plan_compare(grounding, analysis, either, set(rows))
        if not isinstance(result, Refusal):
            result.filters = filters
            doubt = _doubtful(result, grounding, analysis)
            if doubt:
                return Refusal(doubt)
        return result
    named_op_column = _column_named_like_operation(grounding)
    # ("Seats", named by the "seat" of "seat change", is a weaker reading of the same words.)
    others = [m for m in _named_columns(grounding, _used_attrs(grounding))
              if named_op_column is None or m.attrs != named_op_column.attrs
              and not covers_more(named_op_column, m)]
    if named_op_column is not None and op in ("diff", "pct_change", "sum", "avg", "ratio") \
            and len(rows) == 1 and not others \
            and _states_operation(frame.attr(named_op_column.attrs[0]), op):
        # The table already states it ("% change" column): read it rather than recompute.
        stated = Lookup(table=frame.ref, description=f"read {named_op_column.label}",
                        rows=rows, column=named_op_column.attrs[0], filters=filters)
        return _checked(stated, grounding, analysis)
    named_words = _operation_words_in_a_name(grounding) | _operation_words_in_a_row(grounding)
    again = analyse(_without_words(analysis.text, named_words)) if named_words else None
    if again is not None and (_asks_an_operation(again) or named_words <= _MEAN_STEMS
                              or named_words.isdisjoint(_RANKING_NAME_STEMS)
                              or len(rows) == 1 and again.wh not in ("which", "who")):
        # "the weighted average exercise price of options exercised", "the total Duration
        # (min)": the words name a column ("Weighted average exercise price"); its cells are
        # read, no mean or lowest is taken. The question's other words say what is done.
        # (A highest or lowest word stays the question's when no other word asks anything:
        # "which day had the max temperature" ranks the days by Max temperature; of one named
        # row, "Nuguse's personal best", it is the column's.)
        changed = again.op != analysis.op
        analysis = analysis.model_copy(update={
            "op": again.op, "superlative": again.superlative, "place": again.place,
            "superlative_noun": again.superlative_noun, "by_speed": again.by_speed})
        op = analysis.op
        if changed:
            # The rows a difference's values named were its operands; now they choose rows.
            rows, filters, problem = _filter_rows(grounding, analysis)
            if problem:
                return Refusal(problem)
    if op in ("sum", "avg") and analysis.wh in ("which", "who"):
        if analysis.superlative is None or analysis.place > 1 or analysis.top > 1:
            return Refusal("comparing groups of rows (which group has the higher total or "
                           "average) needs an LLM")
        return _plan_group_choice(grounding, analysis, rows, filters, op)
    entity = _superlative_entity(grounding, analysis)
    if entity is not None:
        # "What is the largest competition in terms of spectators": a row, not the number.
        analysis = analysis.model_copy(update={"op": "argmax" if op == "max" else "argmin",
                                               "target_words": (entity[1],)})
        op = analysis.op
    if op in ("first", "last") and _order_word_in_a_name(grounding):
        # "Views of Last Train to Osaka and Bone Dry": the "last" is a title's word, no order.
        analysis = analysis.model_copy(update={"op": "lookup"})
        op = analysis.op
    if analysis.place > 1 and op not in ("argmax", "argmin"):
        return Refusal("a place below the top of an order (\"the second highest\") is read "
                       "offline only for \"which ... has the second highest ...\"")
    if analysis.top > 1 and op not in ("argmax", "argmin"):
        return Refusal(f"a list of the top {analysis.top} is read offline only for \"which "
                       f"{analysis.top} ... have the highest ...\", naming the rows")
    builder = {"lookup": _plan_lookup, "count": _plan_count, "sum": _plan_aggregate,
               "avg": _plan_aggregate, "max": _plan_aggregate, "min": _plan_aggregate,
               "argmax": _plan_arg, "argmin": _plan_arg,
               "diff": _plan_diff, "pct_change": _plan_diff, "first": _plan_order,
               "last": _plan_order, "mode": _plan_mode, "ratio": _plan_ratio}.get(op)
    if op == "ratio" and (_ratio_column_named(grounding, analysis) is not None
                          or _ratio_titled(grounding, analysis)):
        # "What is the pupil-teacher ratio in Leeds" beside a column "Pupil-teacher ratio":
        # its cell, not one cell over another.
        analysis = analysis.model_copy(update={"op": "lookup"})
        builder = _plan_lookup
    if builder is None and op == "ambiguous":
        # "the highest and lowest", "the last year ... finished first": two readings at once.
        return Refusal("the question asks two things at once (both ends, or an order and a "
                       "place); ask them one at a time offline")
    if builder is None:
        return Refusal(f"questions asking for a {op.replace('_', ' ')} need an LLM")
    result = builder(grounding, analysis, rows)
    if analysis.top > 1 and not isinstance(result, Refusal) and \
            not (isinstance(result, Rank) and result.top == analysis.top):
        # Only a ranking of rows names a top three; a group's total, a column of a row or
        # the most rows of a value would answer one.
        return Refusal(f"the top {analysis.top} of this ranking needs an LLM; the offline "
                       "rules name the top rows of a column only")
    if not isinstance(result, Refusal):
        result.filters = filters + result.filters
        unnamed = unnamed_across(result, lambda _: frame, set(grounding.q_words),
                                 analysis.text)
        if unnamed:
            return Refusal(unnamed)
        doubt = _doubtful(result, grounding, analysis)
        if doubt:
            return Refusal(doubt)
    return result


def _checked(result: Plan | Refusal, grounding: Grounding, analysis: Analysis
             ) -> Plan | Refusal:
    """A plan, unless the checks every plan passes (`_doubtful`) doubt it; a refusal as is."""
    if isinstance(result, Refusal):
        return result
    doubt = _doubtful(result, grounding, analysis)
    return Refusal(doubt) if doubt else result


def _swallowed_header(frame: Frame) -> str | None:
    """The header label that reads like its column's data, if any (`find_swallowed_header`;
    computed once per table)."""
    return profile(frame).swallowed_header


def prepare_table(frame: Frame) -> None:
    """Compute (and store) the facts of a whole table that questions consult, so that the
    first question does not wait for them: run after an upload."""
    profile(frame)
    total_labelled(frame)
    distinct_row_paths(frame)
    table_words(frame)
    prepare_doubts(frame, DOUBTS, facts=[column_forms, column_counts])


_BY_A_MEASURE = re.compile(r"\b(?:by|in terms of)\s+(?:its\s+|their\s+|the\s+)?[^\W\d_]+\s*\??$")
"""A ranking's measure said last ("... by length", "in terms of spectators")."""


def _superlative_entity(grounding: Grounding, analysis: Analysis) -> tuple[Attr, str] | None:
    """The text column a "what is the largest X" question names by X, when X is a kind of row
    (a name column), not an amount, with X; None otherwise. X may follow the amount it is
    ranked by: "the second highest revenue *segment*"."""
    noun = analysis.superlative_noun
    if analysis.op not in ("max", "min") or not noun:
        return None
    frame = grounding.frame
    q = grounding.q_words
    named = [a for a in frame.attrs if noun in a.tokens]
    if not named and frame.levels and _BY_A_MEASURE.search(analysis.folded) \
            and not frame.levels[-1].measurable:
        # "What is the shortest structure by length": a row, ranked by the column named
        # after "by", and named by its label.
        return frame.levels[-1], noun
    if not named and frame.levels and not frame.levels[-1].measurable and noun in {
            stem(w) for w in words(" ".join(filter(None, [frame.title, frame.sheet,
                                                          frame.file_name])))}:
        # "What is the longest bridge in total length" over bridges.csv: the rows are the
        # bridges the table is about, named by their label.
        return frame.levels[-1], noun
    if not named:
        # "revenue" names no column of names; the word after it may ("revenue segment").
        after = [q[i + 1] for i, w in enumerate(q[:-1]) if w == noun]
        if len(after) != 1 or after[0] in STOP_STEMS:
            return None
        noun = after[0]
        named = [a for a in frame.attrs if noun in a.tokens]
    if len(named) != 1 or named[0].measurable:
        return None
    after = {q[i + 1] for i, w in enumerate(q[:-1]) if w == noun}
    if any(a.measurable and a.tokens & after for a in frame.attrs):
        return None  # "the shortest flight *duration*": the noun qualifies an amount
    return named[0], noun


def unnamed_across(p: Plan, frames: Frames, question_stems: set[str], text: str
                   ) -> str | None:
    """Why a plan that combines several columns is not what the question asked, or None.

    The question must name every column it adds or averages (`unnamed_columns`): sibling
    columns that share a word or a unit with the named one are not named by it. A span of
    years names those between its ends (`_span_columns`).
    """
    plans = p.parts if isinstance(p, Combined) else [p]
    for part in plans:
        if part.op not in AGGREGATES_ACROSS_COLUMNS:
            continue
        frame = frames(part.table)
        if len(part.measure) > 2 and \
                _span_columns(frame, text, [part.measure[0], part.measure[-1]]) == part.measure:
            continue
        unnamed = unnamed_columns(frame, question_stems, part.measure)
        if unnamed:
            labels = ", ".join(frame.attr(k).label for k in unnamed[:4])
            return (f"the question does not name {labels}, which the plan would "
                    f"{'add' if part.op == 'group_sum' else 'average'}; name the one column "
                    "to read")
    return None


_RATE_WORDS = frozenset(("rate", "ratio", "pct"))
"""Header words of a column of percentages besides "percent" itself (a later `_PERCENT_WORDS`
of the question's percent words used to shadow this one, so these were never read)."""


_PLURAL_NOUNS = frozenset(split_words("men women children people staff personnel police"))
"""Plural nouns no "s" ends."""


_NUMBER_SIGN_ID = re.compile(r"^\s*#\s*$|\w(?<![^s]s)\s*#\s*$", re.IGNORECASE)
""""Store #", "Pick #", "#": the number sign after a noun numbers rows. After a plural it counts
them ("Orders #" beside "Orders $"), and so does "# of staff"."""


def _identifier(frame: Frame, attr: Attr, counted: set[str] | None = None) -> bool:
    """True when a column's numbers identify rows (ids, codes, years, ranks, episode or season
    numbers) rather than measure them: adding or averaging them means nothing.

    Told by the header ("No.", "Rank", "Season"), by values that are all years, or, when the
    question counts the column's own noun ("how many *tablets*" over a "Tablet" column), by
    whole numbers that are all different."""
    leaf = _leaf_words(attr) or set(attr.tokens)
    if leaf and leaf <= ID_WORDS | {"of", "the"} and not _counts_of_id_words(attr):
        return True
    if attr.path and _NUMBER_SIGN_ID.search(naming_path(attr.path)[-1]):
        return True
    facts = profile(frame)
    if attr.key in facts.year_columns and not attr.tokens & _COUNT_WORDS:
        return True
    last = naming_path(attr.path)[-1].strip().lower() if attr.path else ""
    # "Men", "Women", "People" count people, though no "s" ends them.
    singular = bool(last) and not last.endswith("s") and \
        (words(last) or [""])[-1] not in _PLURAL_NOUNS
    return bool(counted and singular and leaf and leaf <= counted
                and attr.key in facts.distinct_whole_columns)


_PERCENT_TITLE = re.compile(r"\((?:in\s+)?(?:(?:percent|percentage)\b|%)[^)]*\)|"
                            r"\bpercentages?\s+of\b|"
                            r"\bpercent\s+of\b", re.IGNORECASE)
"""A title that says its cells are percentages ("(percent of respondents)", "(%)")."""
_PERCENT_TABLE = re.compile(rf"{_PERCENT_TITLE.pattern}|\b(?:column|row)\s+percentages\b",
                            re.IGNORECASE)
"""A title that says so, or that the table is a survey's "Column percentages" (whose base
rows are still counts: only a cell asked for as a percentage is read so)."""


def _percent_column(frame: Frame, key: str, rows: list[int]) -> bool:
    """True when a column holds percentages (its header or its cells say so): a change in
    it is in points, and it is not a number of things."""
    attr = frame.attr(key)
    if any(t.startswith("percent") for t in attr.tokens) or attr.tokens & _RATE_WORDS \
            or "%" in attr.label:
        return True
    return doubt(frame, rows, key, _percent_values)


_COUNT_UNIT = re.compile(r"\((?:number|no\.?|count|persons|people|thousands?|000s?)\)",
                         re.IGNORECASE)
"""A column's own unit of things counted ("All usual residents (number)")."""

_DASHES = str.maketrans("–—−", "---")


def _symbol_header_said(label: str, question: str) -> bool:
    """Whether a header without a word or digit ("+/–", "±", "%") stands in the question as a
    token of its own, dashes alike."""
    text = label.strip().translate(_DASHES)
    if not text or re.search(r"[^\W_]", text):
        return False
    return bool(re.search(rf"(?:^|\s){re.escape(text)}(?:\s|$|[?.,])",
                          question.translate(_DASHES)))


def _says_share(grounding: Grounding, analysis: Analysis) -> bool:
    """Whether the question asks for a share by the noun alone ("the highest vote share"), a
    word no value or column it names holds ("Share-based payments", "earnings per share")."""
    named = {p for m in [*grounding.values, *grounding.attrs] for p in m.positions}
    return any(w == _SHARE_STEM and i not in named
               and not (i > 0 and grounding.raw_words[i - 1] == "per")
               for i, w in enumerate(grounding.q_words))


def _share_unanswered(frame: Frame, result: Plan) -> bool:
    """Whether a plan answers no share asked of it: it reads amounts, divides by no whole
    ("Advertising share of total 2024 revenue" added up Advertising's quarters; "the Orange
    Line's share of system boardings" read the part alone), or compares amounts beside the
    table's own shares."""
    if result.op == "ratio" or result.op == "lookup" and _PERCENT_TABLE.search(frame.title
                                                                              or ""):
        return False  # (one cell of a table its title says is of percentages: a share)
    if result.measure and not _column_words(frame, result.measure) & _SHARE_WORDS \
            and not _percent_read(frame, result):
        return True
    if result.op in ("list", "first", "last"):
        # "Labour's vote share in Workington and Grimsby respectively" listed the Votes.
        return not (_percent_read(frame, result) or any(
            _percent_column(frame, k, result.rows) or frame.attr(k).tokens & _SHARE_WORDS
            for k in {*_answer_columns(result),
                      *(k for f in result.filters for k in f.columns if k != "_row")}))
    return (result.op in ("lookup", "sum", "multi") or (
        result.op in ("diff", "argcol", "argmax", "argmin", "max", "min")
        and any(_percent_column(frame, a.key, result.rows) for a in frame.data_attrs))) \
        and not any(_percent_column(frame, k, result.rows) or frame.attr(k).tokens
                    & _SHARE_WORDS for k in result.columns_read)


def _percent_read(frame: Frame, result: Plan) -> bool:
    """Whether the cells a plan reads are percentages: by their column (header or cells), by
    their rows' labels ("Gross margin %") or by the table's title."""
    if any(_percent_column(frame, k, result.rows) for k in result.measure):
        return True
    labels = " ".join(p for r in result.rows[:50] for p in frame.row_paths.get(r, ()))
    return bool(re.search(r"%|\bper\s?cent", labels, re.IGNORECASE)
                or _PERCENT_TITLE.search(frame.title or ""))


def _percent_values(frame: Frame, rows: list[int], key: str) -> bool:
    """True when the column's numbers on these rows are all percentages (and there is one)."""
    values = [v for v in frame.values_of(key, rows) if v is not None and v.numeric]
    return bool(values) and all(v.kind == "percent" for v in values)


def _order_key(frame: Frame, rows: list[int], exclude: set[str] = frozenset()
               ) -> tuple[str, dict[int, float]] | None:
    """The column that states the order of the rows (dates, years, ranks, numbers in order):
    "last", "next" and "after" follow it, never the order of the sheet. None when the table
    has none, or when two such columns disagree."""
    found: list[tuple[str, dict[int, float]]] = []
    partial: list[dict[int, float]] = []
    for attr in frame.attrs:
        if attr.key in exclude:
            continue
        ordinal = _identifier(frame, attr)
        values = frame.values_of(attr.key, rows)
        # Row labels are read as text: "12/04/2025" beside "18/04/2025" is 12 April, as the
        # column writes its dates, not 4 December.
        day_first = writes_day_first([v.text for v in values if v is not None and v.date is None
                                      and not v.measurable])
        keys = {}
        for r, v in zip(rows, values, strict=True):
            if v is not None and (key := _order_number(v, ordinal, day_first)) is not None:
                keys[r] = key
        if len(keys) >= max(2, len(rows) - 1) and len(keys) >= 2:
            found.append((attr.key, keys))
        elif len(keys) >= max(3, len(rows) / 2) and _in_sheet_order(keys):
            # A rank that leaves some rows out, which the table is sorted by ("Pos" 1-16,
            # then "Ret"): no order of every row, but the table's own order, which the one
            # chosen must not contradict (a car's "No.").
            partial.append(keys)
    if not found:
        return None
    orders = [sorted(k, key=lambda r, k=k: (k[r], r)) for _, k in found]
    first = orders[0]
    for other in orders[1:] + [sorted(k, key=lambda r, k=k: (k[r], r)) for k in partial]:
        shared = [r for r in first if r in set(other)]
        if shared != [r for r in other if r in set(first)] and \
                shared[::-1] != [r for r in other if r in set(first)]:
            return None
    return found[0]


def _in_sheet_order(keys: dict[int, float]) -> bool:
    """Whether the rows' keys rise (or fall) down the sheet, without a tie."""
    ordered = [keys[r] for r in sorted(keys)]
    steps = [b - a for a, b in itertools.pairwise(ordered)]
    return all(d > 0 for d in steps) or all(d < 0 for d in steps)


def _order_number(value: Value, ordinal: bool, day_first: bool = False) -> float | None:
    """A cell's place in time or rank: a date, a year the text starts with ("1996",
    "2012-13"), or the number of a rank/ordinal column; None otherwise."""
    text = as_day_first(value.text) if day_first else value.text
    date = value.date or (parse_value(text).date if not value.measurable else None)
    if date and re.match(r"\d{4}-\d\d-\d\d(?:T|$)", date):
        # A time of day orders the cells of one day ("2024-01-04T14:52"): a fraction of it.
        clock = re.match(r"T(\d\d):(\d\d)", date[10:])
        day = float(date[:10].replace("-", ""))
        return day + (int(clock[1]) * 60 + int(clock[2])) / 1440 if clock else day
    if value.measurable and (ordinal or value.kind == "ordinal"):
        return float(value.number)
    year = re.match(r"\s*(1[89]\d\d|20\d\d)(?!\d)(?:\s*[-\u2013/]\s*\d{2,4})?\s*$",
                    value.text)
    if year:
        return float(year.group(1))
    if ordinal and re.fullmatch(r"\s*\d+\s*", value.text):
        return float(value.text)
    return None


_LISTED = re.compile(r"\b(?:listed|list|table|chart|shown|appears?|below|above|sheet)\b")
_SHEET_ORDER = re.compile(r"\b(?:listed|(?:first|last|top|bottom|final) (?:row|entry|line)|"
                          r"(?:on|in) the (?:list|table))\b")
"""Words that make the order asked the table's own, even beside a date or year column."""


_LISTED_STEM = stem("listed")


def _sheet_order_said(frame: Frame, analysis: Analysis) -> bool:
    """Whether the question orders the rows as the sheet lists them (`_SHEET_ORDER`); not by
    "listed" alone beside a column that word names ("the first to be listed" over a
    "Listed date": that column's order)."""
    said = _SHEET_ORDER.search(analysis.folded)
    return said is not None and not (said.group() == "listed" and len(_SHEET_ORDER.findall(
        analysis.folded)) == 1 and any(_LISTED_STEM in a.tokens for a in frame.attrs))


def _labels_own_row(frame: Frame, row: int, path: tuple[str, ...]) -> bool:
    """Whether a row's last label is written on the row itself ("Germany" on its band row),
    not inherited from a row above (a blank Item under "East" is one of East's rows, with the
    group's label only by its merge or fill)."""
    if len(path) > len(frame.levels):
        return True  # labels beyond the levels: nothing to tell by
    value = frame.value(row, frame.levels[len(path) - 1].key)
    found = re.search(r"(\d+)$", value.ref) if value is not None and value.ref else None
    return found is None or int(found.group(1)) == row


def _group_own_row(frame: Frame, rows: list[int], group: str, key: str) -> int | None:
    """The one row among `rows` labelled by the group itself ("Germany" above its products),
    when rows under it are among them too and it holds a number in `key`; None otherwise."""
    own = [r for r in rows if (path := frame.row_paths.get(r)) and path[-1] == group
           and _labels_own_row(frame, r, path)]
    under = any(group in (frame.row_paths.get(r) or ())[:-1] for r in rows)
    if len(own) != 1 or not under:
        return None
    value = frame.value(own[0], key)
    return own[0] if value is not None and value.measurable else None


def _counts_parent_and_part(frame: Frame, rows: list[int]) -> str | None:
    """The label of a counted row with figures of its own that rows under it, counted too,
    add up to ("Theft offences" over "Burglary" and "Shoplifting"); None when no counted row
    is above another."""
    if profile(frame).row_depth < 2:
        return None
    paths = {r: frame.row_paths.get(r, ()) for r in rows}
    above = {path[:depth] for path in paths.values() for depth in range(1, len(path))}
    measurable = [a.key for a in frame.data_attrs if a.measurable]
    for r, path in paths.items():
        if path and path in above and _labels_own_row(frame, r, path) and any(
                (v := frame.value(r, k)) is not None and v.measurable for k in measurable):
            return path[-1]
    return None


def _counted_row_label(grounding: Grounding, analysis: Analysis) -> str | None:
    """"How many *theft offences* were recorded" over a row "Theft offences" with figures: the
    noun counted is one row's own label, whose cells hold the number asked; counting the rows
    under the label (the row and its indented parts) would answer 5. None otherwise ("how
    many *vans*" over a Type column of many "Van" rows counts them)."""
    if not analysis.count_words:
        return None
    frame, q = grounding.frame, grounding.q_words
    head = analysis.count_words[-1]
    for vm in grounding.values:
        if not any(q[p] == head for p in vm.positions) \
                or vm.attr not in {a.key for a in frame.levels}:
            continue
        own = [r for r in vm.rows if frame.row_paths.get(r)
               and fold(frame.row_paths[r][-1]).strip() == fold(vm.text).strip()]
        if len(own) == 1 and any(v is not None and v.measurable for a in frame.data_attrs
                                 if a.measurable and (v := frame.value(own[0], a.key))):
            return vm.text
    return None


TOTAL_COUNTED_ROWS = 2_000
"""Rows of a table up to which a count's filtered column is checked for a total row."""


_NAMING_WORDS = frozenset(stem(w) for w in split_words("name names code id description title no"))
"""Words of a header that names its rows by their noun ("Product name", "Item code")."""
_TALLY_HEADER = re.compile(r"\b(?:units?|number of|qty|quantity|headcount|fleet size)\b",
                           re.IGNORECASE)
"""A header saying its cells count things ("Fleet size (units)", "Number of staff")."""


def _tally_column(frame: Frame, rows: list[int]) -> str | None:
    """The label of a column of whole numbers above one (not ids) whose header says it counts
    things: each row is several of them."""
    for a in frame.data_attrs:
        if not a.measurable or not _TALLY_HEADER.search(a.label) or _identifier(frame, a):
            continue
        values = [v.number for v in frame.values_of(a.key, rows[:200])
                  if v is not None and v.measurable]
        if values and all(float(n).is_integer() and n >= 2 for n in values):
            return a.label
    return None


def _total_counted(frame: Frame, result: Plan) -> str | None:
    """The label of a row a count keeps that is the total of the table's other rows in the
    column a condition reads, or in two other columns of amounts (no word says so: "Group"
    under its mines, "United Kingdom" under its regions)."""
    if len(frame.rows) > TOTAL_COUNTED_ROWS:
        return None
    every = whole_rows(frame)
    keys = [f.column for f in result.filters if f.op in (">", ">=", "<", "<=", "between")
            and frame.attr(f.column).measurable]
    for key in keys:
        if doubt(frame, every, key, _holds_its_total):
            kept = _total_rows(frame, every, key) & set(result.rows)
            if kept:
                return _own_label(frame, min(kept))
        # Among the rows of the named values only: a total there closes (or opens) them, and
        # by chance one of a few rows (7 = 2 + 5 years) is the sum of the others.
        scope = _sharing_named_values(frame, result, every)
        if len(scope) >= 4 and doubt(frame, scope, key, _holds_its_total):
            kept = _total_rows(frame, scope, key) & set(result.rows) & {scope[0], scope[-1]}
            if kept:
                return _own_label(frame, min(kept))
    # Or columns of amounts beside it: "United Kingdom" adds up the regions' Electorate and
    # Votes cast, though its Turnout (%), the condition's column, is no sum. (Two columns
    # at least: one may meet half or a third of its sum by chance.)
    found: dict[int, int] = {}
    for a in frame.data_attrs:
        if a.measurable and a.key not in keys and not _percent_column(frame, a.key, every) \
                and doubt(frame, every, a.key, _holds_its_total):
            for row in _total_rows(frame, every, a.key) & set(result.rows):
                found[row] = found.get(row, 0) + 1
    twice = sorted(row for row, n in found.items() if n >= 2)
    return _own_label(frame, twice[0]) if twice else None


def _sharing_named_values(frame: Frame, result: Plan, rows: list[int]) -> list[int]:
    """The rows holding the values the plan's named ("=") conditions keep: "regions with more
    than 6000 starts" over rows of Starts and of Completions per region is a list of the
    Starts rows, whose total ("England") is no total of every row."""
    named = [f.column for f in result.filters if f.op == "="]
    if not named:
        return []
    kept = {key: {fold(v.text) for v in frame.values_of(key, result.rows) if v is not None}
            for key in named}
    return [r for r in rows if all((v := frame.value(r, key)) is not None and fold(v.text) in
                                   texts for key, texts in kept.items())]


_LEADING_FIGURE = re.compile(
    r"\s*(-?\d[\d,]*(?:\.\d+)?)(?=\s*(?:[\(\[][a-z*†‡]{1,2}[\)\]]|[*†‡])\s*$)", re.IGNORECASE)
"""The figure at the start of a cell that adds a note mark to it ("11421.4 (a)", "550.0*");
not a second figure ("20 (1)" under "Wins (majors)")."""


def _noted_figure_would_win(frame: Frame, result: Plan) -> str | None:
    """The text of a cell of the ranked column that is a figure with a note, not read as a
    number, whose figure would beat the number ranked at the place asked."""
    key = result.measure[0]
    rows = result.rows[:2_000]
    values = [v for v in frame.values_of(key, rows) if v is not None]
    numbers = [v.number for v in values if v.measurable and v.number is not None]
    if not numbers:
        return None
    high = result.op in ("argmax", "max")
    # (The figure ranked at the place asked: "the second largest" is beaten by more too.)
    place = min(getattr(result, "place", 1) or 1, len(numbers))
    best = sorted(numbers, reverse=high)[place - 1]
    for v in values:
        m = None if v.measurable else _LEADING_FIGURE.match(v.text)
        if m is not None:
            figure = float(m.group(1).replace(",", ""))
            if figure > best if high else figure < best:
                return v.text.strip()
    return None


def _own_label(frame: Frame, row: int) -> str:
    return (frame.row_paths.get(row) or (str(row),))[-1]


def _answer_columns(result: Plan) -> set[str]:
    """The columns whose cells a plan reads: the ones it computes on and its answer column."""
    return {*result.columns_read, *filter(None, [result.answer_column])}


def _amount_beside_percent_read(frame: Frame, result: Plan) -> tuple[str, str, str] | None:
    """(The shared name, the percent column, the amount column) when the plan reads a column
    of percents named by its header's "%" ("Variance %") beside a column of the same name in
    a unit ("Variance (GBP k)"), else None."""
    for key in _answer_columns(result):
        attr = frame.attr(key)
        leaf = naming_path(attr.path)[-1] if attr.path else ""
        if "%" not in leaf:
            continue
        name = _bare_name(leaf)
        twins = [a for a in frame.data_attrs if a.key != key and a.path and a.measurable
                 and "%" not in (other := naming_path(a.path)[-1])
                 and naming_path(a.path)[:-1] == naming_path(attr.path)[:-1]
                 and _bare_name(other) == name]
        if name and len(twins) == 1:
            return name, attr.label, twins[0].label
    return None


_RATE_NOUNS = frozenset(stem(w) for w in split_words(
    "rates percentages margins proportions yields returns scores shares ratios"))
"""Plurals of what a percent column holds itself ("conversion rates"): no count."""


def _count_said_of_percent(grounding: Grounding, result: Plan) -> tuple[str, str] | None:
    """(The question's word, the column) when the plan reads a column headed in percent
    ("Win %") that the question names by a plural the header writes singular ("wins"): a
    number of things, not their percentage."""
    frame = grounding.frame
    raw = grounding.raw_words or grounding.q_words
    for key in _answer_columns(result):
        attr = frame.attr(key)
        leaf = naming_path(attr.path)[-1] if attr.path else ""
        if "%" not in leaf:
            continue
        written = {w.lower() for w in words(leaf)}
        if len(written) != 1:
            continue  # "Win %", a record's percentage; not "Pay gap (%)", whose gaps it holds
        for m in grounding.attrs:
            if key in m.attrs and m.full:
                for p in m.positions:
                    word = raw[p].lower()
                    if word.endswith("s") and word not in written and word[:-1] in written \
                            and stem(word) not in _SHARE_WORDS | _RATIO_STEMS | _RATE_NOUNS:
                        return raw[p], attr.label
    return None


def _bare_name(leaf: str) -> str:
    """A header without its unit: "Variance" of "Variance %" and of "Variance (GBP k)"."""
    return " ".join(re.sub(r"\([^()]*\)|\[[^\[\]]*\]|%", " ", leaf).split())


_PAIRED_LEAF = re.compile(r"^\s*([^\W\d_]+)\s*/\s*([^\W\d_]+)\b")
"""A header naming two figures written together ("Rating/share", "W/L", "Apps/Goals")."""


def _one_of_a_pair_read(grounding: Grounding, result: Plan) -> tuple[str, str] | None:
    """(The column's label, a cell) when the plan reads a column headed by two figures
    ("Rating/share") whose cells write both ("1.9/6"), and the question says one of the two
    names only."""
    frame = grounding.frame
    said = set(grounding.q_words)
    for key in result.columns_read:
        attr = frame.attr(key)
        m = _PAIRED_LEAF.match(naming_path(attr.path)[-1]) if attr.path else None
        if m is None:
            continue
        first, second = stem(m.group(1).lower()), stem(m.group(2).lower())
        if (first in said) == (second in said):
            continue
        cell = next((t for t in _filled_texts(frame, key, result.rows[:20]) if "/" in t), None)
        if cell is not None:
            return attr.label, cell
    return None


def _top_adds_up_a_run(frame: Frame, rows: list[int], key: str) -> str | None:
    """The label of the highest row when its figure is the sum of all the rows above it
    among `rows`, three or more under one band, else None."""
    numbers = [(r, v.number) for r, v in zip(rows, frame.values_of(key, rows), strict=True)
               if v is not None and v.measurable and v.number is not None]
    if len(numbers) < 3:
        return None
    at = max(range(len(numbers)), key=lambda i: numbers[i][1])
    top = numbers[at][1]
    if top <= 0:
        return None
    # Every ranked row before it, three at least, all under one band with it: the band's
    # subtotal, closing its lines. (In a flat list of a few small counts, one is often the
    # sum of the others by chance: goals 2, 1, 3 and 6.)
    run = numbers[:at]
    paths = {frame.row_paths.get(r, ())[:-1] for r, _ in numbers[:at + 1]}
    if len(run) >= 3 and len(paths) == 1 and next(iter(paths)) \
            and adds_up([n for _, n in run], top):
        return _own_label(frame, numbers[at][0])
    return None


def _group_total_row(grounding: Grounding) -> str | None:
    """The label of a total row that names a group the question names by value ("Total
    Victoria" for "Victoria"), else None."""
    frame = grounding.frame
    for vm in grounding.values:
        said = fold(vm.text).strip()
        for r in total_labelled(frame):
            label = _own_label(frame, r)
            if r not in vm.rows and said and said in fold(label):
                return label
    return None


def _one_cell_over_rows(frame: Frame, key: str, rows: list[int]) -> str | None:
    """The reference of a cell of column `key` merged down over two or more of the rows
    (which read it once each), else None. From the table's few merged cells: the column's
    own cells are not read."""
    col = frame.attr(key).col
    if frame.source is None or col is None:
        return None
    kept = set(rows)
    for value, r0, c0, rowspan, colspan in frame.source.merged_cells():
        if rowspan > 1 and c0 <= col < c0 + colspan \
                and sum(r in kept for r in range(r0, r0 + rowspan)) > 1:
            return value.ref
    return None


_REF_ROW = re.compile(r"[A-Z]+(\d+)")


def _labelled_by_shared_cells(frame: Frame, label: Attr, rows: list[int]) -> bool:
    """Whether the rows take their labels from cells on other rows: a band above them
    ("Borough of Port Elston (1889-1974)") or a cell merged down over them. Such a label
    groups the rows; it repeats by design, unlike a name written on each row of a person's
    weeks."""
    sample = rows[:50]
    cited = [(r, m) for r, v in zip(sample, frame.values_of(label.key, sample), strict=True)
             if v is not None and v.ref and (m := _REF_ROW.match(v.ref)) is not None]
    return bool(cited) and sum(int(m.group(1)) != r for r, m in cited) * 2 > len(cited)


def _holds_its_total(frame: Frame, rows: list[int], key: str) -> bool:
    """True when one row's number is half (or a third) of the column's sum over the rows: it
    is the total of the others (or the rows hold subtotals too), whatever its label.

    A total of the others needs two rows besides it; a third of the sum needs a grand total,
    two subtotals and a member of each (five rows). With fewer, a third of the sum is only the
    middle of three evenly spaced amounts (10, 25, 40), and refusing it would make the answer
    depend on the data."""
    totals = _total_rows(frame, rows, key)
    if not totals:
        return False
    # A total row totals every column of amounts: South 210 = North 140 + East 70 in Sales,
    # while its Costs (160) are not 85 + 65, is three regions and no total.
    confirmed = False
    for other in frame.data_attrs:
        if other.key == key or not _additive(frame, other, rows):
            continue
        # Loosely: published totals of rounded figures miss their parts by a little.
        totals &= _total_rows(frame, rows, other.key, tolerance=0.02)
        if not totals:
            return False
        confirmed = True
    # Of three small counts one is often the sum of the other two (goals 3, 5, 2): with one
    # column of amounts and two rows beside it, a sum between its parts is chance; one that
    # ends the rows ("Male", "Female", "Persons") is the table's total.
    return bool(totals) and (confirmed or len(rows) > 3 or bool(totals & {rows[0], rows[-1]}))


def _ends_in_its_total(frame: Frame, rows: list[int], key: str) -> bool:
    """Of rows where `_holds_its_total`, for an average or a highest: whether the total ends
    the rows ("Net revenue expenditure") or another column of amounts totals too: of one
    column of small counts (goals 6, 2, 1, 3) the highest is often half the sum by chance."""
    totals = _total_rows(frame, rows, key)
    if not totals:
        return False
    return rows[-1] in totals or any(
        other.key != key and _additive(frame, other, rows) for other in frame.data_attrs)


_NOT_ADDED = frozenset(stem(w) for w in split_words("""
average mean median rate ratio per price share percent percentage margin index growth change
"""))


def _additive(frame: Frame, attr: Attr, rows: list[int]) -> bool:
    """A column of amounts with a number on every row: where a total row must total too.
    Rates, prices, percentages and ids are not added, and a gap says nothing."""
    if not attr.numeric or attr.tokens & _NOT_ADDED or _identifier(frame, attr) \
            or _percent_column(frame, attr.key, rows):
        return False
    return all(v is not None and v.measurable for v in frame.values_of(attr.key, rows))


def _total_rows(frame: Frame, rows: list[int], key: str, tolerance: float = 0.002) -> set[int]:
    """The rows whose number in `key` is half (or a third) of the column's sum over `rows`."""
    values = frame.values_of(key, rows)
    numbered = [(r, v.number) for r, v in zip(rows, values, strict=True)
                if v is not None and v.measurable]
    total = sum(n for _, n in numbered)
    if len(numbered) < 3 or total <= 0:
        return set()
    shares = (2, 3) if len(numbered) >= 5 else (2,)
    return {r for r, n in numbered
            if n > 0 and any(abs(n * k - total) <= tolerance * total for k in shares)}


_OP_WORDS = {"avg": "average", "max": "highest"}
_AVERAGE_WORD = re.compile(r"\b(?:average|mean)\b", re.IGNORECASE)
_WHAT_NOUN = re.compile(r"^\W*what\s+(?!(?:is|was|are|were|did|does|do|has|had|will|would|"
                        r"can|could|should|percentage|percent|share|proportion|number|amount|"
                        r"fraction|part|value|kind|type)\b)[^\W\d_]+\s+(?:is|was|are|were)\b")
""""What *station* is 21.7 km from ...": "what" used as "which", a noun right after it."""
_READS_ALL_NUMBERS = frozenset({"count", "sum", "avg", "max", "min", "argmax", "argmin",
                                "group_argmax", "group_argmin", "count_distinct"})
"""Operations over every number of their columns (rather than one or two named cells)."""


def _holds_bounds(frame: Frame, rows: list[int], key: str) -> bool:
    """Whether a column of numbers has cells that state a bound instead ("<0.001", ">100",
    "500+")."""
    return any(v is not None and v.kind == "range" and (v.text.lstrip()[:1] in "<>≤≥"
                                                        or v.text.rstrip().endswith("+"))
               for v in frame.values_of(key, rows))


def _nested(frame: Frame, rows: list[int], key: str) -> bool:
    """True when one of the rows is a group row whose number is the sum of the rows under it
    (a subtotal): adding it with its members counts them twice."""
    if profile(frame).row_depth < 2:
        return False  # one level of row labels: no row is under another (nor read)
    paths = {r: frame.row_paths.get(r, ()) for r in rows}
    # Rows by each shorter path their own path starts with: one pass, not a scan of all rows
    # for each row (quadratic in a long table).
    members: dict[tuple[str, ...], list[int]] = {}
    for r, path in paths.items():
        for depth in range(1, len(path)):
            members.setdefault(path[:depth], []).append(r)
    if not members:
        return False  # one level of row labels: no row is under another
    for r, path in paths.items():
        under = members.get(path, []) if path else []
        if not under:
            continue
        own = frame.value(r, key)
        if own is None or not own.measurable:
            continue
        parts = [v.number for c in under if (v := frame.value(c, key)) is not None
                 and v.measurable]
        if parts and abs(sum(parts) - own.number) <= 0.002 * max(abs(own.number), 1):
            return True
    return False


_SUBTOTAL_FLOOR = 100
"""Small numbers (points, sizes, ratios) often add up to a neighbour by chance; counts and
amounts large enough to be subtotals rarely do."""


def _subtotal_runs(frame: Frame, rows: list[int], key: str) -> bool:
    """True when the rows hold groups with their members: two group rows in a row, each
    equal to the sum of the rows between it and the next group (a group row above or below
    its members, with no path to say so), so adding or ranking the rows mixes the levels.
    Groups must tile like that: on a long column of unrelated amounts some row equals the sum
    of the few after it by chance, and then the answer would depend on the data. On a column
    of hundreds of thousands two such rows follow each other by chance too: there they must
    not be a rare few among the column's sums (`_tiled_groups`)."""
    numbers = [(v.number if v is not None and v.measurable else None)
               for v in frame.values_of(key, rows)]
    # A group's row may come before its members or after them (a total at the foot).
    return _tiled_groups(numbers) or _tiled_groups(numbers[::-1])


_CHANCE_ROWS = 100
"""Rows per sum (a number equal to the sum of the run after it) at which a column's sums are
as sparse as chance makes them: unrelated amounts give about one in a thousand rows (the East
rows of a generated 30 MB CSV, 224,619 amounts of 0 to 1,000 with cents: 241 sums), a
table's group rows one in ten or more (the benchmark's tables that mix groups with their
members: 5 to 27 sums in 41 to 95 rows). A sum followed by another is two sums: a column of
fewer than 200 rows is never that sparse."""

_TILED_SHARE = 4
"""Sums per sum followed by another, among sparse sums, at which the followed ones are no
chance few: a table's group rows follow one another (all but the last), while a chance sum
is followed by another as rarely as it turns up (the 30 MB CSV's 241: one followed, which
refused its average where a 5 MB file of the same columns was answered)."""


def _tiled_groups(numbers: list[float | int | None]) -> bool:
    """Whether a number equals the sum of two or more of the numbers right after it, and the
    number right after those starts another such group, unless such sums are as sparse as
    chance makes them (`_CHANCE_ROWS`) and the followed ones a chance few (`_TILED_SHARE`)."""
    ends = {i: end for i in stop.checked(_run_starts(numbers))
            if (end := _run_end(numbers, i)) is not None}
    followed = sum(end + 1 in ends for end in ends.values())
    return followed > 0 and (len(ends) * _CHANCE_ROWS > len(numbers)
                             or followed * _TILED_SHARE >= len(ends))


_LOOSE = 0.0011
"""A little wider than `_run_end`'s 0.001, so float rounding of the prefix sums never drops
a start that the exact walk would find."""


def _run_starts(numbers: list[float | int | None]) -> list[int]:
    """The indexes where `_run_end` may find a run: all of them when a number is negative (a
    run's sum can fall again), else those whose first reach of their own value after them,
    found by binary search over prefix sums, lands within the tolerance before a gap. The
    walk from every index cost 8 ms per question on a 2,000-row column (85 ms at 20,000)."""
    values = np.array([np.nan if n is None else float(n) for n in numbers])
    known = values[~np.isnan(values)]
    if len(known) < 3:
        return []  # a run is a number and two or more after it
    if known.min() < 0:
        return list(range(len(values)))
    gap = np.isnan(values)
    prefix = np.concatenate(([0.0], np.cumsum(np.where(gap, 0.0, values))))
    # The first gap at or after each index (len when none): a run stops at a gap.
    idx = np.where(gap, np.arange(len(values)), len(values))
    next_gap = np.minimum.accumulate(idx[::-1])[::-1]
    own = np.where(gap, 0.0, values)
    starts = np.nonzero(~gap & (own >= _SUBTOTAL_FLOOR))[0]
    starts = starts[starts + 2 < len(values)]
    if not len(starts):
        return []
    base = prefix[starts + 1]
    # The first j whose run (prefix[j + 1] - base) reaches own*(1 - _LOOSE), and at least i+2.
    first = np.searchsorted(prefix, base + own[starts] * (1 - _LOOSE), side="left") - 1
    j = np.maximum(first, starts + 2)
    inside = j < len(values)
    j = np.minimum(j, len(values) - 1)
    run = prefix[j + 1] - base
    ok = inside & (run <= own[starts] * (1 + _LOOSE)) & (j < next_gap[starts + 1])
    return starts[ok].tolist()


def _run_end(numbers: list[float | int | None], i: int) -> int | None:
    """The index of the last of two or more numbers after `i` that add up to numbers[i]."""
    own = numbers[i]
    if own is None or own < _SUBTOTAL_FLOOR:
        return None
    run = 0.0
    for j in range(i + 1, len(numbers)):
        value = numbers[j]
        if value is None:
            return None
        run += value
        if j > i + 1 and abs(run - own) <= 0.001 * own:
            return j
        if run > own * 1.001:
            return None
    return None


def _stated_total_beside(grounding: Grounding, result: Plan
                         ) -> tuple[str, str, str] | None:
    """A summary row among the rows a named value matches but left out of a sum, whose
    figure is not the sum of the rows added: its label, its figure and the sum, as written.
    None when there is none, or when they agree."""
    if len(set(result.measure)) != 1 or len(result.rows) < 2 or not grounding.values and (
            len(result.rows) > _SMALL_TABLE_ROWS or getattr(result, "filters", None)):
        return None  # (a condition's rows are a part, which no total of the table states)
    [key] = set(result.measure)
    frame = grounding.frame
    summary = profile(frame).summary_rows
    added = set(result.rows)
    # (Its own label or name says so: "Asia total", not every row under a band "Total
    # assets:".) With no value named, the whole column's sum beside the table's own totals
    # ("Total (Scope 1 + Scope 2 market-based + Scope 3)" over both Scope 2 rows).
    beside = [set(vm.rows) for vm in grounding.values if added <= set(vm.rows)] \
        if grounding.values else [_grand_total(frame, summary)]
    stated = sorted({row for matched in beside
                     for row in matched - added if row in summary
                     and _says_total(frame, row)
                     and (v := frame.value(row, key)) is not None and v.measurable})
    if not stated:
        return None  # (before reading the column: most sums have no total beside them)
    parts = [v for v in frame.values_of(key, result.rows) if v is not None and v.measurable]
    found = sum(v.number for v in parts)
    differ = [row for row in stated if _misses_sum(parts, frame.value(row, key).number)]
    # A stated total that agrees settles it: "East Asia subtotal" beside "Asia total" covers
    # part of the rows, and only the whole's own total is to be matched.
    if not differ or len(differ) < len(stated):
        return None
    row = differ[0]
    named = [v.text.strip() for a in frame.data_attrs if not a.measurable
             for v in [frame.value(row, a.key)]
             if v is not None and TOTAL_LABEL.search(v.text)]
    label = named[0] if named else " > ".join(
        frame.row_paths.get(row) or (frame.row_label(row),))
    return (label, frame.value(row, key).text.strip(), f"{number(round(found, 6))}")


def _grand_total(frame: Frame, summary: set[int]) -> set[int]:
    """The table's one row that says it is a total, when it has only one: a whole column's
    sum is held against it. Several ("Asia total", "Europe total") are sections' totals,
    which no whole column's sum matches."""
    totals = {row for row in summary if _says_total(frame, row)}
    return totals if len(totals) == 1 else set()


def _misses_sum(parts: list[Value], stated: float) -> bool:
    """Whether a stated total is not the sum of these parts, beyond their rounding: each
    part and the total are rounded as shown, and may differ by the parts' rounding."""
    found = sum(v.number for v in parts)
    slack = (len(parts) + 1) * max((_half_unit(v.text) for v in parts), default=0.0)
    return not _same_number(found, stated) and abs(found - stated) > slack


def _half_unit(text: str) -> float:
    """Half the last shown digit's unit of a written number ("2435.1": 0.05)."""
    digits = re.search(r"\d+(?:\.(\d+))?(?!.*\d)", text)
    places = len(digits.group(1)) if digits and digits.group(1) else 0
    return 0.5 * 10 ** -places


_SMALL_TABLE_ROWS = 2_000
"""A whole column's sum is held against the table's stated totals up to this many rows: a
report's table (a big one is data, and its sum is read in SQL, not added up here)."""


def _same_number(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(1.0, abs(b))


def _says_total(frame: Frame, row: int) -> bool:
    """Whether a row's own last label, or a text cell of it, says it is a total (not an
    average or another statistic of the rows)."""
    path = frame.row_paths.get(row) or ()
    if path and (TOTAL_LABEL.search(path[-1]) or AGGREGATE_LABEL.search(path[-1])) \
            or row in whole_members(frame):
        return True
    return any(v is not None and not v.measurable and TOTAL_LABEL.search(v.text)
               for a in frame.data_attrs if not a.measurable
               for v in [frame.value(row, a.key)])


def _parent_word_decides(grounding: Grounding, result: Plan) -> tuple[str, str, str] | None:
    """When the one column a plan computes on was chosen over a column of the same name for a
    word of its group the question says in part ("energy" of "Renewable energy > Total",
    "renewable" unsaid) while the other column has no group or one wholly said: the words
    and the two columns' labels. None otherwise."""
    keys = set(result.measure) or {k for _, k in result.operand_cells}
    if len(keys) != 1:
        return None
    [key] = keys
    frame = grounding.frame
    path = frame.attr(key).path
    if len(path) < 2:
        return None
    said = set(grounding.q_words)
    parent = set(label_tokens(*path[:-1])) - STOP_STEMS
    if not parent & said or not parent - said:
        return None
    own = [m for m in grounding.attrs if key in m.attrs and len(m.attrs) == 1 and m.positions]
    if not own:
        return None
    mine = max(own, key=lambda m: m.score)
    for m in grounding.attrs:
        # (Data columns only: a row level named "Year" is no rival of "16 to 19 years".)
        if len(m.attrs) != 1 or m.attrs[0] == key or not m.full or not m.positions \
                or not m.positions < mine.positions or frame.attr(m.attrs[0]).kind != "data":
            continue
        other = frame.attr(m.attrs[0]).path
        if len(other) == 1 or set(label_tokens(*other[:-1])) - STOP_STEMS <= said:
            words_said = " ".join(grounding.raw_words[min(mine.positions):
                                                     max(mine.positions) + 1])
            return words_said, frame.attr(m.attrs[0]).label, frame.attr(key).label
    return None


def _stronger_name_left(grounding: Grounding, result: Plan) -> AttrMatch | None:
    """A group of data columns the question names whole and better than every name of the
    one column a difference, change or ratio reads, when that column is under a sibling of
    the group: what the question named was swapped for its neighbour. None otherwise."""
    keys = {k for _, k in result.operand_cells}
    if result.op not in ("diff", "pct_change", "ratio") or len(keys) != 1:
        return None
    [key] = keys
    own = [m for m in grounding.attrs if key in m.attrs and m.positions]
    if not own:
        return None
    score = max(m.score for m in own)
    covered = set().union(*(m.positions for m in own))
    frame = grounding.frame
    read_path = tuple(frame.attr(key).path)
    for m in grounding.attrs:
        if not (m.full and m.score > score and key not in m.attrs and len(m.attrs) > 1
                and m.positions and not m.positions <= covered
                and all(frame.attr(k).kind == "data" for k in m.attrs)):
            continue
        group = _common_prefix([tuple(frame.attr(k).path) for k in m.attrs])
        # The column read is under a sibling of the named group ("Unemployed > Number" beside
        # the "Employed" named): the reading swapped one group for the other.
        if group and len(read_path) > len(group) and read_path[:len(group) - 1] == \
                group[:-1] and read_path[len(group) - 1] != group[-1]:
            return m
    return None


def _common_prefix(paths: list[tuple[str, ...]]) -> tuple[str, ...]:
    """The levels every path starts with."""
    first = paths[0] if paths else ()
    n = 0
    while n < len(first) and all(len(p) > n and p[n] == first[n] for p in paths):
        n += 1
    return first[:n]


def _nominated_filter(grounding: Grounding) -> str | None:
    """The value "Nominated" of a column of outcomes that also holds wins, when the question
    picks rows by it: as a verb "nominated" takes in the wins. None otherwise."""
    frame = grounding.frame
    for vm in grounding.values:
        if fold(vm.text).strip() in _NOMINATED:
            texts = {fold(t) for t in _filled_texts(frame, vm.attr, frame.rows)}
            if texts & _WON:
                return vm.text
    return None


_NOMINATED = frozenset({"nominated", "nominee", "nomination"})
_WON = frozenset({"won", "win", "winner", "awarded"})


def _value_read_as_a_word(grounding: Grounding) -> tuple[str, str] | None:
    """A word of the question left out of its content (an operation word: "increase") that
    is a whole value of a text column of the table's data ("Decision": Increase, Hold), where
    no value matched: the word and the column's label. None otherwise. (Row labels are left
    out, and summary words: an "Average" row is not the "average" a question asks for.)"""
    frame = grounding.frame
    # (Only words the table writes somewhere: the vocabulary is at hand, where reading the
    # text columns would load each of them whole on every question.)
    words_left = [w for i, w in enumerate(grounding.raw_words)
                  if i not in grounding.content and i not in grounding.explained
                  and w not in STOPWORDS and w.isalpha() and not SUMMARY_LABEL.search(w)
                  and grounding.in_table(w)]
    if not words_left:
        return None
    matched = {vm.attr for vm in grounding.values}
    for attr in frame.data_attrs:
        if attr.measurable or attr.key in matched:
            continue
        # (The first rows are enough to know a column's categories.)
        values = {fold(t) for t in _filled_texts(frame, attr.key, frame.rows[:500])}
        for word in words_left:
            if word in values:
                return word, attr.label
    return None


def _other_code(grounding: Grounding) -> str | None:
    """A named row's words followed by a letter or digit the question has and its label does
    not ("Widget C" matched to "Widget A"): the words as the question wrote them, else None."""
    raw = grounding.raw_words
    for vm in grounding.values:
        after = max(vm.positions) + 1
        if after < len(raw) and len(raw[after]) == 1 and raw[after].isalnum() \
                and after not in grounding.explained \
                and raw[after] not in fold(vm.text).split():
            return " ".join(raw[min(vm.positions):after + 1])
    return None


_PERCENT_LABEL = re.compile(r"%|\bper\s*cent|\bpercentage\b|\bshare\b", re.IGNORECASE)


def _tied_phrase(grounding: Grounding, result: Plan) -> str | None:
    """What one phrase of the question names equally well (whole, with the same words and
    score) when a read of cells takes one of them or another column for it, said for a
    message; None when no phrase does."""
    column = _column_read(result)
    if column is None:
        return None
    read = {column}
    by_phrase: dict[frozenset[int], list[AttrMatch]] = {}
    for m in grounding.attrs:
        if m.full and m.positions and len(m.attrs) == 1:
            by_phrase.setdefault(m.positions, []).append(m)
    # The words that name the column read (together: "2019" names a group of columns and
    # "total amount" its leaf): more words than a tied phrase's settle which one it names
    # ("Beginning Inventory in Period 4" beside Period 1 > Beginning Inventory).
    settled = frozenset().union(*(m.positions for m in grounding.attrs if set(m.attrs) & read))
    for positions, matches in by_phrase.items():
        best = max(m.score for m in matches)
        top = [m for m in matches if m.score == best]
        if not grounding.asks_percent:
            # "How many votes" over Votes and Vote %: a count is no percentage.
            top = [m for m in top if not _PERCENT_LABEL.search(m.label)]
        if len(top) < 2:
            continue
        # One of the tied columns read ("Percent of population" under the labour force and
        # under Employed) is as much a guess as another column read beside them.
        picked = bool(read & {m.attrs[0] for m in top})
        if not (positions < settled if picked else positions <= settled):
            said = " ".join(grounding.raw_words[min(positions):max(positions) + 1])
            if top[0].label == top[1].label:
                return f"\"{said}\" names {len(top)} columns headed {top[0].label}"
            return f"\"{said}\" names {top[0].label} and {top[1].label}"
    return None


def _echoed_value(grounding: Grounding, result: Plan) -> str | None:
    """The value the question names that a read would give back: the plan reads the column
    the value was matched in, on rows it matched (None when it reads something else)."""
    column = _column_read(result)
    if column is None:
        return None
    read = result.answer_rows() if isinstance(result, ReadRows) else result.rows
    for vm in grounding.values:
        if vm.attr == column and read and set(read) <= set(vm.rows) and all(
                (v := grounding.frame.value(r, column)) is not None
                and v.text.strip() == vm.text.strip() for r in read[:50]):
            # (A cell saying more than the question, the day "26.10.2023" of its "October
            # 2023", is no echo.)
            return vm.text
    return None


def _column_read(result: Plan) -> str | None:
    """The one column whose cells a plan that reads cells gives as its answer (a lookup, the
    first, last or every matching row's); None for other plans."""
    return result.column if isinstance(result, (Lookup, ReadRows)) else None


def _mixes_percentages(frame: Frame, rows: list[int], key: str) -> bool:
    """Whether a column's numbers on these rows are percentages on some rows and plain
    numbers on others ("Weight | 10%" over the students' marks)."""
    kinds = {v.kind == "percent" for v in frame.values_of(key, rows) if v is not None
             and v.numeric}
    return len(kinds) == 2


def _holds_unread_figures(frame: Frame, rows: list[int], key: str) -> bool:
    """Whether a column of numbers has cells with digits that are not read as a number
    ("3,000,000 <n1>", "approx. 12 000"): an aggregate would leave their rows out unsaid."""
    return any(v is not None and v.kind == "text" and _DIGIT.search(v.text)
               for v in frame.values_of(key, rows))


_CHANGE_ASKED = re.compile(r"\b(?:increas|decreas|rose\b|rise|risen|fell\b|fall|fallen|drop|"
                           r"grew\b|grow|declin|chang|swing)")
"""A question asking how much something changed ("increased the most", "dropped")."""
_CHANGE_VERB = re.compile(r"\b(?:increased|decreased|rose|risen|fell|fallen|dropped|grew|grown|"
                          r"declined)\b")
"""A change said with a verb: a lookup of "the fold change" reads a column of its own."""
_CHANGE_COLUMN = re.compile(r"±|\+/[-\u2212\u2013]|\bchanges?\b|\bchg\b|\bswing\b|\bgrowth\b|"
                            r"\bdiff(?:erence)?\b|\bvs\.?\b", re.IGNORECASE)
"""A column holding a change ("±pp", "Change from 2019", "+/−")."""
_PERCENT_LEAF = re.compile(r"^\s*(?:%|percent(?:age)?|share|pct)\b|%\s*$", re.IGNORECASE)
"""A column whose own header says it holds percentages ("Votes > %")."""
_PER_THING = re.compile(r"\baverage (order|unit|basket|transaction|ticket|customer|item|sale|"
                        r"visit|trip|booking) (value|revenue|price|spend|size|cost|amount)\b")
"""An amount per thing ("average order value": revenue per order)."""
_BY_A_MARGIN = re.compile(r"\bby the (?:most|least|largest|biggest|greatest|smallest|widest|"
                         r"narrowest|highest|lowest)(?:\s+(?:margin|amount|gap))?"
                         r"(?=\s*(?:$|[?.,;]|in\b|on\b|for\b|among\b|of\b|during\b|this\b|"
                         r"last\b))")
"""A ranking by how far one value passes another ("overspent by the most")."""


_MARGIN_COLUMN_WORDS = frozenset(stem(w) for w in split_words(
    "margin margins lead gap difference change variance"))
"""A column that holds a margin itself ("Margin", "Variance"), which a ranking by the most
reads as it is."""
_MARGIN_NOUNS = frozenset(stem(w) for w in split_words(
    "shortfall shortfalls overspend overspending underspend underspending surplus deficit "
    "overrun overruns variance"))
"""Nouns of one value less another: a column named so is read as such, and none else is."""


def _fits_better(frame: Frame, result: Plan, analysis: Analysis) -> tuple[str, str] | None:
    """A numeric column whose header holds every question word the measured column's does,
    and more of them: (the measured column, the better one). Of a list, a difference or a
    condition, only when the more is a kind of figure ("killed *rate*" beside Killed and
    "Killed rate per bn vehicle miles")."""
    said = {stem(w) for w in words(analysis.folded)} - STOP_STEMS
    if result.op in ("max", "min", "argmax", "argmin", "sum", "avg", "lookup"):
        keys, kinds = list(result.measure), None
    else:
        compared = [f.column for f in getattr(result, "filters", None) or []
                    if f.op in (">", ">=", "<", "<=")]
        # (A list's column is its answer column; a difference's, its operands'.)
        read = [k for k in [result.answer_column] if k is not None]
        keys, kinds = list(dict.fromkeys([*result.columns_read, *read, *compared])), \
            _FIGURE_KINDS
    data_keys = {a.key for a in frame.data_attrs}
    for key in keys:
        if key not in data_keys:
            continue
        mine = frame.attr(key).tokens & said
        if not mine:
            continue
        # (A column the plan reads as well is no better one: "from January to June" reads
        # both months.)
        for attr in frame.data_attrs:
            if attr.key not in keys and attr.measurable and attr.tokens & said > mine and (
                    kinds is None or (attr.tokens & said - mine) & kinds):
                return frame.attr(key).label, attr.label
    return None


_FIGURE_KINDS = frozenset(stem(w) for w in ("rate", "ratio", "per", "share", "percentage",
                                            "percent", "average", "mean", "index"))
"""Words that say what kind of figure a column holds, not what it is about."""


def _fraction_on_percents(frame: Frame, result: Plan) -> tuple[float, str] | None:
    """A threshold between 0 and 1 on a column of percentages written above 1 ("above 0.8"
    over 70% to 95%): (the threshold, the column)."""
    for f in result.filters:
        if f.op in (">", ">=", "<", "<=") and isinstance(f.value, float | int) \
                and 0 < f.value < 1 and f.column in {a.key for a in frame.data_attrs} \
                and _percent_column(frame, f.column, result.rows[:200] or frame.rows[:200]):
            numbers = [v.number for v in frame.values_of(f.column, frame.rows[:200])
                       if v is not None and v.number is not None]
            if numbers and max(numbers) > 1:
                return float(f.value), frame.attr(f.column).label
    return None


_EXCLUDING = re.compile(r"\b(?:excluding|exclude|excludes|except|without|other than|apart from|"
                        r"not including|besides|bar)\s+(?:for\s+)?(?:the\s+)?")
"""Words that leave out what follows them ("excluding Telvora")."""


def _excluded_value(grounding: Grounding, analysis: Analysis) -> str | None:
    """A value the question names right after "excluding" ("except", "other than", ...): the
    rows without it are asked, never its own row."""
    for m in _EXCLUDING.finditer(analysis.folded):
        after = len(words(analysis.folded[:m.end()]))
        said = words(m.group(0))[0]
        for vm in grounding.values:
            # ("Resource DEL excluding depreciation" is a row's own name.)
            if after in vm.positions and said not in words(fold(vm.text)):
                return vm.text
    return None


def _past_verb_read_as_a_value(grounding: Grounding) -> tuple[str, ValueMatch] | None:
    """A value the question names only by a past form of its word ("held" for a cell "Hold",
    "opened" for "Open"): the question's verb, not the value; (the word, the value)."""
    raw = grounding.raw_words or grounding.q_words
    for vm in grounding.values:
        written = set(words(vm.text))
        # A regular past ("opened") only beside a column of states: "weighted" for a row
        # "Weight" is the word the table means.
        states = bool(grounding.frame.attr(vm.attr).tokens & _STATE_WORDS)
        for p in vm.positions:
            if p < len(raw) and raw[p] not in written and (
                    raw[p] in IRREGULAR_PAST or states and raw[p].endswith("ed")
                    and len(raw[p]) > 4 and not any(w.endswith("ed") for w in written)):
                # ("Closed" for "closed" is the value.)
                return raw[p], vm
    return None


_STATE_WORDS = frozenset(stem(w) for w in split_words("status state stage outcome result"))
"""Header words of a column of states ("Open", "Closed", "Hold")."""


_ID_NOUNS = frozenset(stem(w) for w in split_words("id code no num number ref reference"))
"""Words that make a name an identifier ("Site ID", "Lot number")."""
_PERIOD_NOUNS = frozenset(stem(w) for w in split_words(
    "quarter quarters month months week weeks half period"))
"""Periods other than years (which `_YEAR_NOUNS` and its rule take) a "which" may ask for."""
_MONEY_ASKED = re.compile(r"\b(?:value|amount) of\b|\bhow much money\b|\bworth\b")
"""Words asking for an amount of money ("the total value of grants")."""


_ASKED_OF_THE_BEST = re.compile(
    r"^\s*(?:(?:what|which) (?:is|was|are|were) (?:the )?)?(.+?) of the [^\W\d_]+ "
    r"(?:with|that had|that has|which had|which has|having)\b")
"""A bare "<column> of the <row> with the highest ...", or asked with "what is the"."""


def _column_asked_of_the_best(frame: Frame, result: Plan, analysis: Analysis) -> str | None:
    """A column the question names before "of the <row> with the highest ..." that the
    ranking does not answer with ("Ship date of the shipment with the largest Tonnes")."""
    m = _ASKED_OF_THE_BEST.match(analysis.folded)
    if m is None:
        return None
    said = {stem(w) for w in words(m.group(1))} - STOP_STEMS
    answer = frame.attr(result.answer_column)
    if not said or said & answer.tokens:
        return None
    named = [a.label for a in frame.data_attrs
             if a.key != answer.key and a.tokens and a.tokens - _UNIT_STEMS <= said]
    return named[0] if named else None


_UNIT_STEMS = frozenset(stem(w) for w in split_words("us $ t g oz au % pct"))
"""Unit words of a header the question may leave out when it names the column ("AISC (US$/oz)")."""


_RATIO_SAYS = frozenset(stem(w) for w in split_words(
    "total average mean overall sum same lower higher greater smaller best worst highest "
    "lowest top most least maximum minimum max min largest smallest"))
"""Words before "ratio" that say what to do with it, not which ratio it is."""
_NAMED_RATIO = re.compile(r"\b([^\W\d_]+)[- ]ratios?\b")
"""A ratio named by the word before it ("loss ratio", "pupil-teacher ratio")."""


def _another_named_ratio(frame: Frame, analysis: Analysis) -> tuple[str, str] | None:
    """A ratio the question names by its noun ("the combined ratio") where the table names
    its ratios otherwise ("Net loss ratio"): (the question's word, the table's)."""
    def named(text: str) -> dict[str, str]:
        return {stem(m.group(1)): m.group(1) for m in _NAMED_RATIO.finditer(fold(text))
                if m.group(1) not in STOPWORDS and stem(m.group(1)) not in _RATIO_SAYS}
    asked = named(analysis.folded)
    if not asked:
        return None
    given = named(" ".join([frame.title or "", *(" ".join(a.path) for a in frame.attrs)]))
    if given and not set(asked) & set(given):
        return next(iter(asked.values())), next(iter(given.values()))
    return None


def _money_asked_of_a_count(frame: Frame, result: Plan, analysis: Analysis) -> str | None:
    """A measured column that holds no money where the question asks for "the value of"
    something and another numeric column holds money: the measured column's name."""
    if result.op not in ("lookup", "sum", "avg", "max", "min") or not result.measure \
            or not _MONEY_ASKED.search(analysis.folded):
        return None
    rows = result.rows[:200]
    if any(_money_column(frame, k, rows) for k in result.measure):
        return None
    if any(a.measurable and a.key not in result.measure and _money_column(frame, a.key, rows)
           for a in frame.data_attrs):
        return frame.attr(result.measure[0]).label
    return None


_PHRASE_END = frozenset(split_words("across among amongst within throughout through per by "
                                     "over under between around"))
"""Prepositions that end the phrase of what a count counts."""


def _counted_words(analysis: Analysis, verbs: bool = True) -> tuple[str, ...]:
    """The words of what a count counts, up to a preposition or a verb ("engineers" of "the
    number of engineers across all plants"; "primary schools"); with `verbs` False, words
    that may be verbs stay ("Petrol makes")."""
    out: list[str] = []
    for word in analysis.count_words:
        # (Up to a verb or a number too: "how many drivers got more than 10 points".)
        if word in _PHRASE_END or verbs and word in _VERBS or word in _AUXILIARY_WORDS \
                or not word.isalpha():
            break
        out.append(word)
    return tuple(out)


_HEAD_OF = re.compile(r"\b([a-z]+) (of|for|on|in) |\b[a-z]+'s ([a-z]+)\b")
"""A noun before "of" ("the cost of Fire claims", "the nationality of the guest in ..."), or
after a possessive ("the guest's name"): the head of its phrase, what is asked."""


_PHRASE_NOUNS = frozenset(stem(w) for w in split_words(
    "terms term kind kinds type types sort sorts part parts lot lots basis means way end"))
"""Nouns that head a phrase without naming what is asked ("in terms of", "the kind of")."""


def _head_names_other_column(grounding: Grounding, result: Plan, analysis: Analysis
                             ) -> tuple[str, str, str] | None:
    """A word heading a phrase ("cost" in "the average cost of a Fire claim") that names a
    numeric column other than the measured one, or nothing in the table, while the measured
    column is named only by words of the phrase's tail ("claim"): (the word, the measured
    column, the other column or "")."""
    frame = grounding.frame
    folded = analysis.folded
    said = {stem(w) for w in words(folded)} - STOP_STEMS
    unexplained = set(grounding.unexplained_stems)
    ranking = result.op in ("argmax", "argmin")
    for m in _HEAD_OF.finditer(folded):
        word = m.group(1) or m.group(3)
        head = stem(word)
        if head in STOP_STEMS or head in _PHRASE_NOUNS or head in OPERATION_WORDS and \
                word != "name":
            continue
        if any(head in frame.attr(k).tokens for k in result.measure) or \
                analysis.count_words[:1] == (head,):
            # ("How many units of Toner are on hand": the units counted, not Unit Cost.)
            continue
        # The tail of "the cost of Fire claims" is after the head; of "guest's name", before.
        tail = {stem(w) for w in words(folded[m.start():m.start() + len(m.group(0)) - len(word)]
                                        if m.group(3) else folded[m.end():])}
        others = [a.label for a in frame.data_attrs if a.measurable and head in a.tokens
                  and a.key not in result.measure]
        # A head the table lacks is read from "of" and the possessive alone: "spending on
        # health" over a Health column names the column by its tail.
        # Nor in a ranking, whose answer is another column: "the name of the supplier with
        # the longest remaining days" asks the name of the row the ranking picks.
        if not others and (head not in unexplained and word != "name"
                           or m.group(2) in ("for", "on", "in") or ranking
                           or not all(frame.attr(k).measurable for k in result.measure)):
            continue
        for key in result.measure:
            mine = frame.attr(key).tokens & said
            if mine and mine <= tail:
                return word, frame.attr(key).label, others[0] if others else ""
    return None


def _marks_nil(frame: Frame, rows: list[int], key: str) -> bool:
    """Whether a column of numbers has cells of a dash alone, which official tables write for
    nil (a zero) as often as for a figure not given."""
    return any(v is not None and v.kind == "text" and _DASH_ONLY.fullmatch(v.text.strip())
               for v in frame.values_of(key, rows))


_DASH_ONLY = re.compile(r"[-\u2010-\u2015]{1,2}")
_NIL_NOTE = re.compile(r"[-\u2010-\u2015][\"\u201d']?\s*(?:=|:|means|is)?\s*(?:nil|zero|none)\b|"
                       r"\bnil\b|"
                       # ('"-" = no programme activity': a dash for nothing done, a zero.)
                       r"[-\u2010-\u2015][\"\u201d']?\s*(?:=|:|means|is)\s*no\s+[a-z]",
                       re.IGNORECASE)


_SUPPRESSED_NOTE = re.compile(r"\bsuppress|\bconfidential|\bdisclos", re.IGNORECASE)
"""A note that some figures are withheld ("x = suppressed for confidentiality")."""
_SUPPRESSION_MARK = re.compile(r"\[?(?:x|c|s|\*+|\.\.)\]?", re.IGNORECASE)
"""A cell that stands for a withheld figure ("x", "[c]", "*", "..")."""


def _says_suppressed(frame: Frame) -> bool:
    """Whether the title or notes say some figures are suppressed or confidential."""
    return any(_SUPPRESSED_NOTE.search(t) for t in (frame.title, *frame.notes) if t)


def _holds_suppressed(frame: Frame, rows: list[int], key: str) -> bool:
    """Whether a column of numbers has a cell of a suppression mark ("x", "[c]", "..")."""
    return any(v is not None and v.kind == "text"
               and _SUPPRESSION_MARK.fullmatch(v.text.strip())
               for v in frame.values_of(key, rows))


def _dash_means_nil(frame: Frame) -> bool:
    """Whether the table's title or notes say a dash is nil ("- nil", "– = zero"): a dash is
    as often "did not chart" or "not played", which no figure stands for."""
    return any(_NIL_NOTE.search(t) for t in (frame.title, *frame.notes) if t)


def _unread_may_rank(frame: Frame, result: Plan, place: int) -> tuple[str, str] | None:
    """A measured column's cell with digits not read as a number ("16FL") whose leading
    figure would pass the rank asked (the highest, the third lowest): (its column, its
    text); None when no such cell could change the answer ("~7" beside periods of 70)."""
    highest = result.op in ("max", "argmax")
    for key in result.measure:
        if not frame.attr(key).measurable or \
                not doubt(frame, result.rows, key, _holds_unread_figures):
            continue
        read = sorted((v.number for v in frame.values_of(key, result.rows)
                       if v is not None and v.numeric and v.number is not None),
                      reverse=highest)
        bar = read[min(place, len(read)) - 1] if read else None
        for v in frame.values_of(key, result.rows):
            if v is None or v.kind != "text" or not (m := _NOTED_FIGURE.fullmatch(v.text)):
                continue
            figure = float(m.group(1).replace(",", ""))
            if bar is None or (figure > bar if highest else figure < bar):
                return key, v.text.strip()
    return None


_NOTED_FIGURE = re.compile(r"\s*([-+]?\d[\d,]*(?:\.\d+)?)\s?(?:[^\W\d_]{1,3}|[*†‡§]{1,2})\s*")
"""A figure with a note glued to it ("16FL", "12*"), which reading leaves as text."""


def _marks_no_figure(frame: Frame, rows: list[int], key: str) -> bool:
    """Whether a column of numbers has cells that mark a figure as not given ("..", ":",
    "n/a"): a total leaves a part out (an average of the figures given is still one)."""
    return any(v is not None and v.kind == "text" and v.text.strip()
               and NO_FIGURE.fullmatch(v.text.strip()) for v in frame.values_of(key, rows))


_DIGIT = re.compile(r"\d")
DOUBTS = (_percent_values, _holds_its_total, _nested, _subtotal_runs, _holds_bounds,
          _holds_unread_figures, _marks_no_figure, _mixes_percentages)
"""The doubts about a column that an aggregate over the whole table reads stored
(`agent/column_doubts.py`)."""


def _unused_years(frame: Frame, result: Plan, analysis: Analysis) -> str | None:
    """A year the question names ("between 2017 and 2018") that neither compared cell's row or
    column is labelled with, when the question names two or more: the change was taken between
    two rows of one year instead of one row's two years. None when every year is used."""
    asked = set(_YEAR.findall(analysis.folded))
    if len(asked) < 2:
        return None
    used: set[str] = set()
    periods: set[str] = set()
    for row, key in result.operand_cells:
        for label in (*frame.attr(key).path, *frame.row_paths.get(row, ())):
            used |= set(_YEAR.findall(label)) | _fiscal_year(label)
            periods |= {fold(w) for w in words(label) if _QUARTER.fullmatch(fold(w))}
    missing = sorted(asked - used)
    # So must each quarter or half it names ("from Q1 2023 to Q4 2024": not Q1 twice).
    said = {fold(w) for w in words(analysis.folded) if _QUARTER.fullmatch(fold(w))}
    missing += sorted(_as_said(analysis, w) for w in said - periods) if periods else []
    return missing[0] if missing else None


_QUARTER = re.compile(r"q[1-4]|h[12]")


def _fiscal_year(label: str) -> set[str]:
    """The year a header such as "FY19" or "Fiscal 2019" stands for."""
    value = parse_value(label)
    return {str(int(value.number))} if value.kind == "year" and value.number is not None \
        else set()


_DENIAL = re.compile(r"\b(?:not|no|non|never|without|none)\b|n't\b", re.IGNORECASE)


def _denied_cell(frame: Frame, result: Plan, grounding: Grounding) -> str | None:
    """A cell the plan may answer with that negates words of the question ("what was the last
    year they made the playoffs" read from "Did Not Make Playoffs"): the question's condition
    lives in that column, so its rows are not the ones asked about. None when there is none."""
    key = result.answer_column
    if result.op not in ("lookup", "first", "last", "list") or key is None:
        return None
    question = set(grounding.q_words)
    for r in result.rows:
        v = frame.value(r, key)
        if v is None or not _DENIAL.search(v.text):
            continue
        if {stem(w) for w in label_tokens(_DENIAL.sub(" ", v.text))} & question:
            return v.text.strip()
    return None


_TOTAL_COUNT = re.compile(r"\bhow many total\b|\btotal (?:number|count|amount) of\b|\bin total\b|"
                          r"\baltogether\b|\bin all\b")
_QUANTITY_WORDS = frozenset(stem(w) for w in split_words("qty quantity units pieces items"))


def _quantity_columns(frame: Frame) -> list[Attr]:
    """Columns of counts or quantities ("QTY", "Number of people", "Units"): with one of them in
    the table, "how many items in total" is as likely their sum as a count of rows."""
    return [a for a in frame.data_attrs if a.measurable and not _identifier(frame, a)
            and set(_leaf_words(a) or a.tokens) & (_COUNT_WORDS | _QUANTITY_WORDS)]


def _compares_groups(grounding: Grounding, answer: str) -> bool:
    """True when the question names two or more values of one column other than the answer
    column, each on several rows ("ADHESIVES and TOOLS: which category has the higher total"):
    it asks which group is higher, not which single row."""
    per_column: dict[str, int] = {}
    for vm in grounding.values:
        if vm.attr != answer and len(vm.rows) >= 2:
            per_column[vm.attr] = per_column.get(vm.attr, 0) + 1
    return any(n >= 2 for n in per_column.values())


_RANKS = frozenset(("argmax", "argmin", "argcol", "max", "min", "group_argmax", "group_argmin"))
_SHARE_OF = re.compile(r"\b(?:share|proportion|fraction|percentage|percent) of\b")
_SHARE_STEM = stem("share")
_SHARE_WORDS = frozenset(stem(w) for w in ("share", "proportion", "fraction", "percent",
                                           "percentage", "rate"))


def _holds_lists(frame: Frame, key: str) -> bool:
    """Whether a text column's cells list several items, one per line (the column's fact,
    read once and stored)."""
    attr = frame.attr(key)
    # (Row labels name one row each: a cell of them is never a list to choose from.)
    return attr.kind != "level" and not attr.measurable \
        and column_doubt(frame, key, _lists_in_cells)


def _lists_in_cells(frame: Frame, rows: list[int], key: str) -> bool:
    return any(v is not None and sum(1 for line in v.text.splitlines() if line.strip()) > 1
               for v in frame.values_of(key, rows))


_TIME_UNITS = frozenset({"s", "sec", "secs", "min", "mins", "h", "hr", "hrs"})
_TIME_HEADERS = frozenset(stem(w) for w in split_words("time times duration"))
_CLOCK_HEADERS = frozenset(stem(w) for w in split_words(
    "departure depart departs arrival arrive arrives start starts end ends opening closing "
    "clock scheduled kickoff"))
"""Words that make a column of times a time of day ("Departure time 08:15"), which is no
time taken: nothing in it is fast or slow."""


def _holds_times(frame: Frame, key: str, rows: list[int]) -> bool:
    """Whether a column holds times taken ("2:05:41", "9.58 s", or numbers under "Time")."""
    values = [v for v in frame.values_of(key, rows) if v is not None and v.number is not None]
    timed = all(v.kind == "duration" or (v.unit or "").lower() in _TIME_UNITS for v in values)
    tokens = frame.attr(key).tokens
    return bool(values) and not tokens & _CLOCK_HEADERS and (timed or bool(tokens & _TIME_HEADERS))


_MONEY_WORDS = frozenset(stem(w) for w in split_words(
    "dollar dollars euro euros pound pounds yen yuan cent cents money cash usd eur gbp"))


def _holds_fractions(frame: Frame, key: str, rows: list[int]) -> bool:
    """Whether a column's numbers on the first rows read include one that is not whole (an
    amount such as 760.55, not a number of things)."""
    return any(v is not None and v.measurable and not float(v.number).is_integer()
               for v in frame.values_of(key, rows[:200]))


def _money_column(frame: Frame, key: str, rows: list[int]) -> bool:
    """Whether a column holds money: a currency its header or the table's title states
    ("$ in thousands"), else currency cells among the rows read."""
    attr = frame.attr(key)
    return states_currency(" ".join(attr.path) + " " + (frame.title or "")) or any(
        v is not None and v.kind == "currency" for v in frame.values_of(key, rows))


_WHICH_IS_MORE = re.compile(r"\b(?:which|who|whom)\b.*\b(?:more|less|fewer|higher|lower|"
                            r"greater|larger|smaller|bigger|better|worse)\b")


_SPAN_WORDS = frozenset(split_words("to through thru till until"))


def _range_ends(grounding: Grounding) -> tuple[str, str] | None:
    """Two rows' values, or two columns, joined by "to" or "through" ("January to June",
    "from FY '09 to FY '18"): everything from one to the other, of which they name the ends."""
    named = _named_spans(grounding)
    joins = [i for i, w in enumerate(grounding.q_words) if w in _SPAN_WORDS]
    for i in joins:
        for before, text, kind in named:
            if i - 1 not in before:
                continue
            # (Not the "to" of a label both ends share: "aged 0 to 15" in "2011 > Aged 0 to
            # 15" and "2021 > Aged 0 to 15".)
            join = grounding.q_words[i]
            after = [t for positions, t, k in named
                     if k == kind and i + 1 in positions and t != text
                     and not any(re.search(rf"\b{re.escape(join)}\b", fold(level))
                                 for level in set(t.split(" > ")) & set(text.split(" > ")))]
            if after:
                return text, after[0]
        # "Bands A to C": the letter A, read as the article, is the first end of a span of
        # one-letter values.
        letter = [t for positions, t, _ in named if i + 1 in positions and len(t.strip()) == 1]
        if i >= 1 and grounding.q_words[i - 1] == "a" and letter and letter[0].strip() != "A":
            return "A", letter[0]
    return None


def _named_spans(grounding: Grounding) -> list[tuple[frozenset[int], str, str]]:
    """The values, whole columns and column groups the question names ("Wk 1" over its
    Covers and Revenue): their words' positions, their text and what they are (a value's
    column, "" for a column or a group)."""
    named = [(vm.positions, vm.text, vm.attr) for vm in grounding.values if vm.positions]
    return named + [(m.positions, m.label, "") for m in grounding.attrs
                    if m.full and m.positions]


def _dash_span(grounding: Grounding, text: str) -> tuple[str, str] | None:
    """Two words written as a span ("over 2015-2022", "January-April": the dash is no word)
    that name two different columns, or two values of one column: everything between them,
    of which they are the ends."""
    raw = grounding.raw_words
    named = _named_spans(grounding)
    for i in range(len(raw) - 1):
        if not re.search(rf"\b{re.escape(raw[i])}\s*[-\u2013\u2014]\s*{re.escape(raw[i + 1])}\b",
                         text, re.IGNORECASE):
            continue
        years = bool(_YEAR_WORD.fullmatch(raw[i]) and _YEAR_WORD.fullmatch(raw[i + 1]))
        first = [(t, kind) for positions, t, kind in named
                 if i in positions and i + 1 not in positions]
        last = [(t, kind) for positions, t, kind in named
                if i + 1 in positions and i not in positions]
        # (Words that are not years must end alike: two values of one column, or two columns;
        # "Stroke-Unit" or "in-patient" are one name.)
        if first and last and (years or first[0][1] == last[0][1]):
            return first[0][0], last[0][0]
    return None


_YEAR_WORD = re.compile(r"(?:fy)?(?:1[89]|20)\d\d", re.IGNORECASE)
"""A year as one word of a question: "2019", or a fiscal year "FY2019"."""


def _years_between(grounding: Grounding, text: str) -> tuple[str, str] | None:
    """Two years that are not consecutive, said "between 2016 and 2019", that name two
    columns: the years between them too, of which they are the ends (consecutive years are
    both ends and all; years of a column of years are a condition on the rows, which reads
    the whole range)."""
    m = _BETWEEN_YEARS.search(text)
    if not m or int(m[2]) - int(m[1]) <= 1:
        return None
    named = {grounding.raw_words[p] for mt in grounding.attrs
             if mt.full and len(mt.attrs) == 1 for p in mt.positions}
    return (m[1], m[2]) if {m[1], m[2]} <= named else None


def _periods_between(grounding: Grounding) -> tuple[str, str] | None:
    """Two values of one column said "between A and B" that are periods (dates, months, years,
    fiscal years), with rows between theirs that neither names: everything from one to the
    other, of which they are the ends ("the total between 2024-01-08 and 2024-01-14" over one
    row per day and region). A pair with nothing between them is both ends and all."""
    raw = grounding.raw_words
    for first in grounding.values:
        if not first.positions or not _period_value(first.text):
            continue
        start, end = min(first.positions), max(first.positions)
        if start < 1 or raw[start - 1] != "between" or end + 2 >= len(raw) \
                or raw[end + 1] != "and":
            continue
        for second in grounding.values:
            if second.attr != first.attr or second.text == first.text or \
                    not second.positions or min(second.positions) != end + 2 or \
                    not _period_value(second.text):
                continue
            ends = first.rows | second.rows
            rows = grounding.frame.rows  # in sheet order
            inside = rows[bisect.bisect_right(rows, min(ends)):bisect.bisect_left(rows, max(ends))]
            if any(r not in ends for r in inside):
                return first.text, second.text
    return _period_columns_between(grounding)


def _period_columns_between(grounding: Grounding) -> tuple[str, str] | None:
    """Two columns of periods said "between A and B" ("between 2020-21 and 2022-23", "between
    Outturn 2022-23 and Plans 2024-25") with a column of a period between them under the
    same heading: a span, as two values of a column are (`_periods_between`)."""
    raw, frame = grounding.raw_words, grounding.frame
    named = [m for m in grounding.attrs if m.full and len(m.attrs) == 1 and m.positions
             and _names_a_period(frame.attr(m.attrs[0]))]
    order = [a.key for a in frame.data_attrs]
    for first in named:
        start = min(first.positions)
        end = _consecutive_end(first.positions, start)  # ("Q1 ... 2025": the year later)
        if start < 1 or raw[start - 1] != "between" or end + 2 >= len(raw) \
                or raw[end + 1] != "and":
            continue
        for second in named:
            if second.attrs == first.attrs or end + 2 not in second.positions:
                continue
            if first.attrs[0] not in order or second.attrs[0] not in order:
                continue  # (a row level's header, not a column of figures)
            a, b = (order.index(k) for k in (first.attrs[0], second.attrs[0]))
            heading = frame.attr(first.attrs[0]).path[:-1]
            if any(frame.data_attrs[i].path[:-1] == heading
                   and _names_a_period(frame.data_attrs[i])
                   for i in range(min(a, b) + 1, max(a, b))):
                return first.label, second.label
    return None


def _consecutive_end(positions: frozenset[int], start: int) -> int:
    """The last of the consecutive positions from `start`."""
    end = start
    while end + 1 in positions:
        end += 1
    return end


def _names_a_period(attr: Attr) -> bool:
    """Whether a column's own header names a period: a year, a fiscal year, a date, a month
    or quarter, maybe after a word ("Outturn 2022-23", "Plans 2024-25")."""
    leaf = attr.path[-1] if attr.path else attr.label
    return _period_value(leaf) or bool(re.search(
        r"(?<!\d)(?:1[89]|20)\d\d(?:\s*[/\-\u2013]\s*\d{2}(?:\d{2})?)?$", leaf.strip()))


_YEAR_MARK = re.compile(r"\s*[\[(]\s*(?:p|r|e|f|provisional|revised|estimated?|forecast)\s*[\])]"
                        r"\s*$", re.IGNORECASE)
"""A year's mark in brackets after it ("2022 [p]", "2021(r)"): provisional, revised, estimated
or forecast figures of that year."""
_FISCAL_YEAR = re.compile(r"(?:fy\s*'?)?(?:1[89]|20)\d\d(?:\s*[/\-\u2013]\s*\d{2}(?:\d{2})?)?|"
                          r"fy\s*'?\d\d", re.IGNORECASE)


def _period_value(text: str) -> bool:
    """Whether a cell's text names a period of time: a date, a month, a year or a fiscal
    year ("2024-01-08", "2024-01", "Jan 2024", "2021/22", "FY2023")."""
    text = text.strip()
    return bool(_FISCAL_YEAR.fullmatch(text) or parse_value(text).date
                or period_of(text) is not None
                or re.fullmatch(r"(?:1[89]|20)\d\d[-/](?:0?[1-9]|1[0-2])", text))


_BETWEEN_FISCAL_YEARS = re.compile(
    r"\bbetween\s+(?:fy\s*)?((?:1[89]|20)\d\d)\s*[/\-\u2013]\s*\d{2,4}\s+and\s+(?:fy\s*)?"
    r"((?:1[89]|20)\d\d)\s*[/\-\u2013]\s*\d{2,4}\b", re.IGNORECASE)
"""Two fiscal years said "between 2020/21 and 2022/23"."""


def _fiscal_years_between(text: str) -> tuple[str, str] | None:
    """Two fiscal years that are not consecutive, said "between 2020/21 and 2022/23": the
    years between them too, of which they are the ends."""
    m = _BETWEEN_FISCAL_YEARS.search(text)
    if not m or int(m[2]) - int(m[1]) <= 1:
        return None
    first, second = m.group(0)[len("between"):].split(" and ", 1)
    return first.strip(), second.strip()


_BETWEEN_YEARS = re.compile(r"\bbetween\s+(?:the\s+years?\s+)?((?:1[89]|20)\d\d)\s+and\s+"
                            r"((?:1[89]|20)\d\d)\b", re.IGNORECASE)
_AGAINST = re.compile(r"(?:\b(?:is|are|was|were|be|been|being|most|least|went|go|goes|came|"
                      r"come|comes|ran|run|runs|running|stayed|stay|stays)\s+(?:under|over|within)|"
                      r"\b(?:below|above|exceed(?:s|ed|ing)?|beyond|beat|beats|beaten|missed|"
                      r"(?:more|less|fewer|higher|lower|greater|bigger|smaller) than)"
                      # "exceed or miss its target": either verb, one comparison.
                      r"(?:\s+or\s+(?:miss|missed|fall short of|fell short of|beat|exceed))?)\s+"
                      r"(?:(?:the|their|its|his|her|our|a|an)\s+)?((?:[^\W\d_]+\s*){1,3})")


def _column_compared(grounding: Grounding, analysis: Analysis) -> Attr | None:
    """The numeric column a comparison is made against ("under *budget*", "below their
    *reorder level*"), when the words after the comparison name one whole."""
    frame = grounding.frame
    for m in _AGAINST.finditer(analysis.folded):
        if re.match(r"[$£€¥]?\d", analysis.folded[m.end():]) and not re.search(
                r"\b(?:in|for|during|of|at|by)\s*$", m.group(1)):
            # "under age 30": a threshold on the column, not the column itself (but "beat
            # their commitment in 2023/24": a year after a preposition is no threshold).
            continue
        said = [stem(w) for w in m.group(1).split()]
        for n in range(len(said), 0, -1):
            head = set(said[:n]) - STOP_STEMS
            named = [a for a in frame.data_attrs if a.measurable and head
                     and head == set(_leaf_words(a) or a.tokens)]
            if named:  # ("Q1 > Budget", "Q2 > Budget": a budget all the same)
                return named[0]
        # Or part of one column's name and of no other's: "beat their *commitment*" beside
        # "Performance commitment Ml/d".
        head = set(said[:1]) - STOP_STEMS
        part = {_leaf_label(a) for a in frame.data_attrs if a.measurable and head
                and head <= set(_leaf_words(a) or a.tokens)}
        if len(part) == 1:
            return next(a for a in frame.data_attrs if _leaf_label(a) in part)
    return None


def _leaf_label(attr: Attr) -> str:
    return naming_path(attr.path)[-1] if attr.path else attr.label


_NUMBER_OF = re.compile(r"\b(?:number|numbers|count|counts|thousands|millions) of\s+([^\W\d_]+)",
                        re.IGNORECASE)


def _numbered_by_cells(frame: Frame) -> set[str]:
    """What the table's title or notes say its cells count: "Number of dwellings", "Count of
    enterprises" ({"dwell"}, {"enterpris"})."""
    said = " ".join([frame.title or "", *frame.notes])
    return {stem(m.group(1).lower()) for m in _NUMBER_OF.finditer(said)}


def _amount_beside(grounding: Grounding, analysis: Analysis, result: Plan) -> Attr | None:
    """The amount column beside a percentage column the plan reads, under the same header,
    when the question asks for no percentage or share."""
    frame = grounding.frame
    if grounding.asks_percent or _SHARE_OF.search(analysis.folded) \
            or _says_share(grounding, analysis) or analysis.op == "ratio" \
            or set(grounding.q_words) & _SHARE_WORDS:  # "the Rate" of "Rate (%)"
        return None
    for key in result.measure:
        attr = frame.attr(key)
        if len(attr.path) < 2 or not ("%" in attr.path[-1] or any(
                t.startswith("percent") for t in label_tokens(attr.path[-1]))):
            continue
        beside = [a for a in frame.data_attrs if a.measurable and a.path[:-1] == attr.path[:-1]
                  and a.key != key and not _percent_column(frame, a.key, result.rows)]
        if beside:
            return beside[0]
    return None


_ASKED_UNIT = re.compile(r"\bin (?:the )?(?:units? of )?([^\s?]+)\s*\??\s*$")
"""The unit a question ends by asking for ("... in MPa?")."""
_UNIT_WORDS = frozenset(split_words("""
km cm mm µm nm mi miles mile ft feet foot inches yd yards metres meters metre meter
kilometres kilometers kg mg tonnes tons lb lbs pounds oz ounces litres liters ml gal
gallons sec secs seconds min mins minutes hr hrs hours days weeks months years
pa kpa mpa gpa bar psi atm kw mw gw kwh mwh gwh twh pj tj gj hp kj mj kn n·m n.m kv ma hz
khz mhz ghz °c °f kelvin celsius fahrenheit degrees mph km/h kph m/s knots mm/yr
"""))
"""Units of measure a question may ask its answer in (lower case). No single letters: "in A"
or "in B" more often names a group or a column than amperes or bytes."""


_CURRENCY_ASKED = re.compile(r"\bin (?:(?:usd|gbp|eur|chf|jpy|cad|aud|dollars?|euros?)\b|[$£€¥])"
                          r"|(?:^|\s)[$£€¥]\s*(?:m|bn|k)?\b(?!\s*\d)")
"""A question asking its answer in money ("... in GBP m?", "how much in dollars")."""
_PERCENT_ASKED = re.compile(r"%|\bpercent|\bshare\b|\bproportion\b|\brate\b|\bmargin\b")
"""Words asking for a percentage, which a percent column answers even beside a currency."""


def _unit_not_given(frame: Frame, result: Plan, analysis: Analysis) -> str | None:
    """Why the answer would not be in the unit the question asks for, or None: the plan's
    columns, their units and the title never write that unit."""
    m = _ASKED_UNIT.search(analysis.folded)
    if m is None or m.group(1).strip(".") not in _UNIT_WORDS:
        return None
    asked = m.group(1).strip(".")
    keys = [*result.measure, *([result.answer_column] if result.answer_column else [])]
    # (A row read alone may state its own unit: "Luxembourg (GWh)" among countries in TWh.)
    own = frame.row_paths.get(result.rows[0], ()) if len(result.rows) == 1 else ()
    said = " ".join(filter(None, [frame.title, *(frame.attr(k).label for k in keys),
                                  *(frame.attr(k).unit or "" for k in keys), *own]))
    # (In any of its written forms: "feet" is given in a column headed "ft".)
    forms = unit_forms(asked) or (asked,)
    if any(re.search(rf"(?<![\w/]){re.escape(form)}(?![\w/])", fold(said)) for form in forms):
        # The table's unit, unless a row read states its own ("Luxembourg (GWh)" among
        # countries in TWh): its figure is not in the unit asked.
        other = next((u for r in result.rows[:200] for level in frame.row_paths.get(r, ())
                      for u in re.findall(r"\(([^()]+)\)", level)
                      if fold(u.strip()) in _UNIT_WORDS and fold(u.strip()) != asked), None)
        if other is None:
            return None
        return (f"the question asks for {_as_said(analysis, m.group(1))}, and a row read is "
                f"given in {other.strip()}")
    if not any(w in _UNIT_WORDS for w in re.findall(r"[^\s()\[\],;]+", fold(said))) \
            and not any(frame.attr(k).unit for k in keys):
        return None  # "the age of Bo in years" over an Age column that states no unit
    where = ", ".join(frame.attr(k).label for k in keys) or "the table"
    unit = _as_said(analysis, m.group(1))
    return f"the question asks for {unit}, and {where} is not given in {unit}"


_FROM_A_POINT = re.compile(
    r"^(?=.*\bfrom\b)(?=.*\b(?:distance|km|kilomet\w*|miles?|mi|metres?|meters?|mileage|"
    r"chainage)\b)", re.IGNORECASE)
"""A column of distances from one point ("Distance from Glasgow Queen Street (km)", "Miles
from London"): places along a line, whose sum means nothing."""


_TITLE_SUBJECT = re.compile(r"^\W*(?:table\s+[\w.]+\s*[.:\-–—]\s*)?(.+?)\s*(?:\(|[-–—:]\s|,|$)",
                            re.IGNORECASE)
"""The subject a title opens with ("Parasite" of "Parasite (2019 film) - Accolades")."""


def _title_subject_as_value(grounding: Grounding) -> ValueMatch | None:
    """A value condition on a column (not a band of rows) that is the subject the table's
    title opens with, before a bracket or a dash ("Parasite (2019 film) - Accolades"), and
    holds in some rows but not all: the question names the table's subject, a film or a
    player the whole table is about, not the rows whose cell repeats its name."""
    title = grounding.frame.title
    opening = _TITLE_SUBJECT.match(title or "")
    if opening is None or opening.group(1) == title.strip():
        return None  # a title that is one phrase says what the table holds, not its subject
    subject = fold(opening.group(1))
    n = grounding.frame.row_count
    return next((vm for vm in grounding.values
                 if grounding.frame.attr(vm.attr).kind == "data"
                 and fold(vm.text).strip() == subject and not subject.isdigit()
                 and len(vm.rows) < n), None)


_COUNTED_UNIT = re.compile(r"\bhow many (" + "|".join(
    sorted({w for family in UNIT_FAMILIES for w in family if len(w) > 2},
           key=len, reverse=True)) + r")\b")
"""A question counting a unit of time or length ("how *many weeks* ..."): the figure it reads
must be in that unit."""


def _counted_unit_not_given(frame: Frame, result: Plan, analysis: Analysis) -> str | None:
    """Why a figure read would not be the number of the unit a "how many weeks" (days, km,
    ...) question asks for, or None: the plan reads numbers, and neither the title nor the
    columns read (their labels, units) nor a row read write that unit in any form, and the
    figures are not years (for "how many years")."""
    m = _COUNTED_UNIT.search(analysis.folded)
    if m is None or result.op not in ("lookup", "sum", "avg", "diff", "max", "min") \
            or not result.measure \
            or any(frame.attr(k).derivable for k in result.measure):
        return None  # a count of rows, or durations and dates the column step reads
    family = unit_forms(m.group(1)) or (m.group(1),)
    own = [level for r in result.rows[:200] for level in frame.row_paths.get(r, ())]
    said = " ".join(filter(None, [frame.title, *(frame.attr(k).label for k in result.measure),
                                  *(frame.attr(k).unit or "" for k in result.measure), *own]))
    if any(re.search(rf"(?<![^\W\d_]){re.escape(w)}(?![^\W\d_])", fold(said)) for w in family):
        return None
    if family[0] == "years" and all(
            v is None or not v.measurable or float(v.number).is_integer()
            and 1000 <= v.number <= 2200
            for k in result.measure for v in frame.values_of(k, result.rows[:200])):
        return None  # years written as numbers: their difference is a number of years
    where = ", ".join(frame.attr(k).label for k in result.measure)
    return f"the question asks how many {m.group(1)}, and {where} is not given in {m.group(1)}"


def _as_said(analysis: Analysis, folded: str) -> str:
    """A folded word of the question as the question writes it ("MPa", not "mpa")."""
    found = re.search(re.escape(folded), analysis.text, re.IGNORECASE)
    return found.group(0) if found else folded


def _group_named_in_part(frame: Frame, result: Plan, analysis: Analysis
                         ) -> tuple[str, str] | None:
    """A measured column under a group whose name the question says by its last word alone
    ("offences" of "Theft offences"), beside other groups with a column of the same name:
    (the word said, the group)."""
    said = {stem(w) for w in words(analysis.folded)}
    for key in result.measure:
        path = frame.attr(key).path
        if len(path) < 2:
            continue
        # The group's own words, without its notes: "Indexes (Dec. 2005=100)" is Indexes.
        group = [t for t in label_tokens(_NOTES.sub(" ", path[-2])) if t not in STOP_STEMS]
        if len(group) < 2 or set(group) & said != {group[-1]}:
            continue
        # The words left unsaid name the group ("Theft"), not a generic word or a date
        # ("Number of claims", "National cup", "March 2023").
        if not [t for t in group[:-1] if t not in OPERATION_WORDS | GENERIC_WORDS
                | _BROAD_WORDS and month_number(t) is None and not t.isdigit()]:
            continue
        if any(a.key != key and a.path and a.path[-1] == path[-1] and a.path[:-1] != path[:-1]
               for a in frame.data_attrs):
            word = next((w for w in words(analysis.folded) if stem(w) == group[-1]), group[-1])
            return word, path[-2]
    return None


_BROAD_WORDS = frozenset(stem(w) for w in split_words(
    "national domestic overall general gross net annual monthly"))
"""Words of a group's name that do not tell it from its siblings ("National cup")."""
_NOTES = re.compile(r"\([^)]*\)|\[[^\]]*\]|\b\d+/")
"""A label's notes: parentheses, brackets and footnote marks ("Fiscal years 2/")."""


ATTRIBUTE_ROWS = 5_000
"""Rows of a sum up to which its column is checked for a figure repeated per key."""


def _attribute_of_a_key(frame: Frame, result: Plan) -> tuple[str, str] | None:
    """A summed column whose figure is the same on every row of each value of a repeating
    key (a reservoir's capacity on each of its weekly rows): (the column, the key)."""
    rows = result.rows
    if not 3 <= len(rows) <= ATTRIBUTE_ROWS or len(frame.rows) > ATTRIBUTE_ROWS:
        return None
    # (Row labels that never repeat, as the stored facts say, are no key: nothing is read.)
    keys = [a for a in (*(frame.levels[-1:] if not distinct_row_paths(frame) else ()),
                        *frame.data_attrs) if not a.measurable]
    for attr in keys:
        # A panel: each key on as many rows as the others (a reservoir once a week), so its
        # rows are one thing seen again; appointments of a type are each one more.
        every = Counter(v.text.strip() for v in frame.values_of(attr.key, frame.rows)
                        if v is not None and v.text.strip())
        if len(every) < 2 or len(set(every.values())) != 1 or min(every.values()) < 2:
            continue
        for key in result.measure:
            figures = frame.values_of(key, rows)
            groups: dict[str, set[float]] = defaultdict(set)
            sizes: Counter[str] = Counter()
            for v, label in zip(figures, frame.values_of(attr.key, rows), strict=True):
                if v is None or v.number is None or label is None or not label.text.strip():
                    continue
                groups[label.text.strip()].add(v.number)
                sizes[label.text.strip()] += 1
            repeated = [g for g, n in sizes.items() if n >= 2]
            if not repeated or any(len(groups[g]) > 1 for g in repeated):
                continue
            figures_seen = {n for g in repeated for n in groups[g]}
            # Several keys, each with its own figure; or one key's rows alone (Kielder's
            # weeks), three or more of a figure too large to repeat by chance.
            if len(repeated) >= 2 and len(figures_seen) > 1 or len(repeated) == 1 and \
                    sizes[repeated[0]] >= 3 and abs(next(iter(figures_seen))) >= 100:
                return frame.attr(key).label, attr.label
    return None


_UNIT_FORMS = {stem(w): unit for unit, forms in (
    ("hour", "hour hours hr hrs h"), ("minute", "minute minutes min mins"),
    ("tonne", "tonne tonnes ton tons t"), ("litre", "litre litres liter liters l"),
    ("megalitre", "ml megalitre megalitres"), ("kwh", "kwh"), ("mwh", "mwh"), ("gwh", "gwh"),
    ("mw", "mw"), ("km", "km kilometre kilometres"), ("mile", "mile miles"))
    for w in forms.split()}
"""Units and their short forms, as stems: "spill hours" and "Duration (hrs)" say one unit."""


def _unit_of_another_column(frame: Frame, result: Plan, analysis: Analysis
                            ) -> tuple[str, str] | None:
    """A unit the question says ("hours") that another numeric column states and the measured
    columns do not: (the word, the other column)."""
    # (Not a unit after a number: "longer than 20 km" is a condition's.)
    said = {m.group(1): _UNIT_FORMS[stem(m.group(1))]
            for m in re.finditer(r"(?<![\d.,]\s)(?<![\d.,])\b([a-z]{2,})\b", analysis.folded)
            if stem(m.group(1)) in _UNIT_FORMS}
    read = result.columns_read
    if not said or not read:
        return None
    mine = {_UNIT_FORMS[t] for k in read for t in frame.attr(k).tokens if t in _UNIT_FORMS}
    for word, unit in said.items():
        if unit in mine:
            continue
        others = [a.label for a in frame.data_attrs if a.measurable
                  and a.key not in read
                  and unit in {_UNIT_FORMS[t] for t in a.tokens if t in _UNIT_FORMS}]
        if others:
            return word, others[0]
    return None


def _named_beside_unit(grounding: Grounding, result: Plan, analysis: Analysis) -> str | None:
    """Why the unit a question asks for chose the plan's column while another column is named
    by the question's other words, or None."""
    m = _ASKED_UNIT.search(analysis.folded)
    if m is None or m.group(1).strip(".") not in _UNIT_WORDS:
        return None
    frame = grounding.frame
    unit_at = {i for i, w in enumerate(grounding.raw_words or grounding.q_words)
               if fold(w) == m.group(1).strip(".")}
    used = set(result.measure)
    chose = [a for a in grounding.attrs if set(a.attrs) & used]
    if not chose or not all(a.positions and a.positions <= unit_at for a in chose):
        return None
    other = [a for a in grounding.attrs if a.full and not set(a.attrs) & used
             and a.positions and not a.positions & unit_at
             and all(frame.attr(k).measurable for k in a.attrs)]
    if not other:
        return None
    return (f"the question names {other[0].label} but asks for {_as_said(analysis, m.group(1))}, "
            f"the unit of {frame.attr(result.measure[0]).label}; say which column")


_DIFFERENCES_OF = re.compile(r"\s*(?:differences?|gaps?)\s+(?:in|between)\b", re.IGNORECASE)
"""A header over differences between groups ("Differences in mothers' and fathers' time")."""
_DIFFERENCE_SAID = re.compile(r"\b(?:differ\w*|gaps?|more|less|fewer|higher|lower|compared?|"
                              r"versus|vs|than)\b")


LABELS_READ = 2_000
"""The most rows whose labels are read for one naming the question's words more fully."""


def _richer_label(grounding: Grounding) -> tuple[str, str, str] | None:
    """A value match with a word beside it that no match took ("diluted *shares*" of the
    row "Diluted"), where another row's label in its column says both: (the words as said,
    that label, the label matched)."""
    frame = grounding.frame
    loose = grounding.explained - grounding.named_positions
    if not loose or len(frame.rows) > LABELS_READ:
        return None
    for vm in grounding.values:
        if not vm.positions:
            continue
        said = {grounding.q_words[p] for p in vm.positions}
        # (Not a word the matched row's group says in short: "diluted EPS" of the row
        # "Diluted" under "Earnings per share".)
        initials = {"".join(w[0] for w in words(level) if w)
                    for r in list(vm.rows)[:1] for level in frame.row_paths[r][:-1]}
        beside = [p for p in (min(vm.positions) - 1, max(vm.positions) + 1)
                  if p in loose and grounding.q_words[p] not in STOP_STEMS
                  and grounding.raw_words[p] not in initials]
        for p in beside:
            word = grounding.q_words[p]
            for r in frame.rows:
                value = frame.value(r, vm.attr)
                if r in vm.rows or value is None:
                    continue
                if {word, *said} <= set(label_tokens(value.text)):
                    first, last = min(p, *vm.positions), max(p, *vm.positions)
                    return (" ".join(grounding.raw_words[first:last + 1]), value.text.strip(),
                            vm.text)
    return None


def _quote_unread(grounding: Grounding, analysis: Analysis) -> str | None:
    """A quoted phrase of the question none of whose words a value or column match took."""
    spans = word_spans(analysis.text)
    named = grounding.named_positions
    # (A quote inside a phrase a match took is its word: "urban 'A' roads".)
    within = {i for m in [*grounding.values, *grounding.attrs] if m.positions
              for i in range(min(m.positions), max(m.positions) + 1)}
    for m in QUOTED.finditer(analysis.text):
        inside = {i for i, (a, b) in enumerate(spans) if m.start() <= a and b <= m.end()}
        if inside and not inside & (named | within):
            return m.group(0).strip("\"'“”‘’ ")
    return None


_ONE_MEASURE_OPS = frozenset(("lookup", "argmax", "argmin", "max", "min", "sum", "avg"))


def _figure_word_dropped(grounding: Grounding, result: Plan) -> tuple[str, str] | None:
    """A question word that only a column of figures the plan does not read explains (no
    cell, condition or column the plan reads says it), or a group word said more often than
    the columns read say it: (the word, that column's label)."""
    frame = grounding.frame
    used = {k for k in [*result.measure, getattr(result, "answer_column", None),
                        *(k for f in result.filters for k in f.columns)] if k and k != "_row"}
    said = {w for k in used for w in frame.attr(k).tokens}
    taken = {p for v in grounding.values for p in v.positions} | {
        p for m in grounding.attrs if set(m.attrs) & used for p in m.positions}
    said |= _words_about(frame, notes=False)  # ("in the accounts payable detail list")
    leaves = {frame.attr(k).path[-1] for k in result.measure if frame.attr(k).path}
    for m in grounding.attrs:
        if set(m.attrs) & used or not all(frame.attr(k).measurable for k in m.attrs) \
                or not all(frame.attr(k).path and frame.attr(k).path[-1] in leaves
                           for k in m.attrs):
            continue
        # (Only a word of another group over the same leaf, "FSM" over its "% expected
        # standard" beside All pupils > % expected standard: a leaf's word, "Rank" or
        # "Days", or a time, "year", is read otherwise.)
        groups = {stem(w) for k in m.attrs for level in frame.attr(k).path[:-1]
                  for w in words(level)}
        for p in sorted(m.positions - taken):
            word = grounding.q_words[p]
            if word and word not in said and word in groups and word not in OPERATION_WORDS \
                    and word not in _TIME_NOUNS and not word.isdigit():
                return grounding.raw_words[p], m.label
        # A group word said twice, once for the group read and once for this one: "across
        # U.S. and Non-U.S. plans" read Non-U.S. Plans alone.
        for word in groups & said:
            times = [p for p in m.positions if grounding.q_words[p] == word]
            if len(times) > 1 and len(times) > sum(
                    label_tokens(level).count(word) for k in used if k in result.measure
                    for level in frame.attr(k).path):
                return grounding.raw_words[times[0]], m.label
    return None


def _asked_beside(frame: Frame, read: str, noun: str) -> str | None:
    """The label of another column of text that the noun a "which" question asks for names,
    when the column read does not: None otherwise."""
    if noun in frame.attr(read).tokens:
        return None
    others = [a for a in frame.attrs if a.key != read and not a.measurable
              and noun in a.tokens]
    return others[0].label if len(others) == 1 else None


_NAME_AND_BRACKETS = re.compile(r"^(.*\S)\s*\(([^()]+)\)\s*$")


def _bracketed_part_asked(frame: Frame, result: Plan, analysis: Analysis) -> str | None:
    """Why a lookup in a column headed "Director (Country)" does not answer "which country",
    whose answer is only the bracketed part of a cell such as "Nadia Haddad (Lebanon)"."""
    asked = {stem(w) for w in analysis.target_words}
    path = frame.attr(result.measure[0]).path
    header = _NAME_AND_BRACKETS.match(path[-1]) if path else None
    if not asked or header is None:
        return None
    outside, inside = set(label_tokens(header.group(1))), set(label_tokens(header.group(2)))
    if not asked <= inside or asked & outside:
        return None
    [row] = result.rows
    value = frame.value(row, result.measure[0])
    if value is None or _NAME_AND_BRACKETS.match(value.text) is None:
        return None
    return (f"{frame.attr(result.measure[0]).label} holds \"{value.text.strip()}\", and the "
            f"question asks for its part in brackets; ask an LLM to take that part")


def _both_of_one_column(grounding: Grounding, analysis: Analysis, result: Plan
                        ) -> tuple[str, str] | None:
    """Two values of one column said as "both A and B", whose rows the plan reads together
    (no row holds both), to list or count them ("the total of both A and B" adds up either's
    rows); None otherwise."""
    if not _BOTH.search(analysis.folded) or not result.rows \
            or result.op not in ("lookup", "list", "multi", "count", "count_distinct"):
        return None
    read = set(result.rows)
    by_attr: dict[str, list[ValueMatch]] = defaultdict(list)
    for vm in grounding.values:
        if vm.rows & read:
            by_attr[vm.attr].append(vm)
    for matches in by_attr.values():
        texts = {fold(vm.text) for vm in matches}
        if len(texts) >= 2 and not frozenset.intersection(*(vm.rows for vm in matches)):
            return matches[0].text, matches[1].text
    return None


_BOTH = re.compile(r"\bboth\b")
_SUMMED_SIDE = re.compile(r"\b(?:combined|together|altogether|sum of|total of)\b")


_TWO_COLUMNS_ASKED = re.compile(r"^\s*(?:which|what)\s+([^\W\d_]+)\s+and\s+([^\W\d_]+)\b")
"""A question asking for two columns of a row ("which date and shift ...")."""
_AVERAGE_PER = re.compile(r"\b(quarterly|monthly)\b")
_AVERAGE_PER_KIND = {"quarterly": "q", "monthly": "month"}
"""An average per quarter or month ("the average monthly sales"), and the period as
`period_of` names it."""


def _periods_averaged(frame: Frame, result: Plan, word: str) -> bool:
    """Whether the values a plan averages are periods of the kind `word` says ("monthly"):
    its columns (one row's quarters), its rows (a row per month), or figures a header or the
    title says are per period ("Monthly rent" over flats)."""
    kind = _AVERAGE_PER_KIND[word]
    said = {stem(w) for w in words(frame.title or "")}
    if any((frame.attr(k).tokens | said) & _PERIOD_STEMS[word[:4]] for k in result.measure):
        return True

    def is_kind(label: str | None) -> bool:
        if not label:
            return False
        if kind == "month" and _YEAR_MONTH.fullmatch(label.strip()):
            return True  # "2023-01"
        return (period := period_of(label)) is not None and period[0] == kind
    if result.op == "row_avg":
        return all(is_kind(naming_path(frame.attr(k).path)[-1]) for k in result.measure)
    # (A quarter may sit under its year: "2020 > Q1".)
    return all(any(is_kind(label) for label in frame.row_paths.get(r) or (frame.row_label(r),))
               for r in result.rows)


_YEAR_MONTH = re.compile(r"(?:19|20)\d\d-(?:0[1-9]|1[0-2])")


def _doubtful(result: Plan, grounding: Grounding, analysis: Analysis) -> str | None:
    """Why a plan the rules chose answers something else than the question, or None.

    Checks that hold whatever rule chose the plan: a "which" question is not answered with a
    computed number, identifiers are not added up, a count is not read from a percentage, a
    percentage change is on amounts, summary and nested rows are not added in."""
    frame = grounding.frame
    numeric_ops = {"count", "count_distinct", "sum", "avg", "diff", "pct_change", "group_sum",
                   "row_avg", "ratio", "row_diff"}
    if analysis.wh in ("which", "who", "whom", "whose") and result.op in numeric_ops:
        return "the question asks which one, not for a number"
    if (read := _column_read(result)) is not None and asks_how_long(analysis) and all(
            v is not None and v.kind == "date" for v in frame.values_of(read, result.rows)):
        # "How long was ticket T-2 open?" read as its Opened date: a date is no duration.
        return (f"the question asks how long, and {frame.attr(read).label} holds dates, not "
                "durations")
    if result.op in ("group_argmax", "group_argmin") and (
            pair := _TWO_COLUMNS_ASKED.match(analysis.folded)) is not None and all(
            any(stem(word) in a.tokens for a in frame.attrs) for word in pair.groups()):
        # "Which date and shift had the most rejects" ranked the dates, each shift added in:
        # the two name one row, which a total per date does not.
        return (f"the question asks which {pair.group(1)} and {pair.group(2)} together, and "
                f"the rules would rank each {pair.group(1)}'s rows added up")
    if (result.op == "row_avg" or result.op == "avg" and len(result.rows) > 1) \
            and (per := _AVERAGE_PER.search(analysis.folded)) \
            and not _periods_averaged(frame, result, per.group(1)):
        # "The average quarterly total for 2023 across all regions" averaged the regions'
        # 2023 totals: an average per quarter is over quarters, which these are not.
        return (f"\"{per.group(1)}\" asks for an average over {per.group(1)[:-2]}s, and the "
                f"values the rules would average are not {per.group(1)[:-2]}s")
    if isinstance(result, Ratio) and result.percent and (summaries := profile(
            frame).summary_rows | total_labelled(frame)) and result.operand_cells[0][0] \
            in summaries and result.operand_cells[1][0] not in summaries:
        # "What share of annual rainfall falls in October" divided the Annual row by
        # October's: a share is the part over its total.
        total = frame.row_label(result.operand_cells[0][0])
        return f"the share would divide the total row {total} by a part of it"
    if result.measure and not _DIFFERENCE_SAID.search(analysis.folded) and (
            level := next((level for k in result.measure for level in frame.attr(k).path
                           if _DIFFERENCES_OF.match(level)), None)) is not None:
        # "the lowest average hours spent by fathers" read "Differences in mothers' and
        # fathers' time use": a column of differences holds no one group's own figures.
        return f"{level} holds differences, and the question asks for no difference"
    if result.op in ("diff", "ratio", "pct_change") and len(result.operand_cells) == 2 and len(
            {_percent_column(frame, k, [r]) for r, k in result.operand_cells}) == 2:
        # "By how much did imports from Saudi Arabia change vs 2023 (%)" took Change (%) from
        # Imports (USD bn): a percentage and an amount are not of one kind.
        return "the two cells compared are a percentage and an amount"
    if result.op in ("diff", "pct_change") and (summed := _SUMMED_SIDE.search(analysis.folded)):
        # "by how much did the goods sector exceed the combined employment of construction and
        # manufacturing": one side is a sum of rows, which a difference of two cells is not.
        return (f"\"{summed.group(0)}\" makes one side of the difference a sum of several "
                "figures, which the rules do not compute")
    if (both := _both_of_one_column(grounding, analysis, result)) is not None:
        # "Which works were nominated at both the MTV awards and the Grammys": the works
        # the two awards' rows share, not every row of either.
        return (f"\"both\" asks for what the rows of {both[0]} and those of {both[1]} have in "
                "common, and the plan lists the rows of either")
    if (richer := _richer_label(grounding)) is not None:
        # "the ratio of diluted shares to basic shares" read the EPS rows "Diluted" and
        # "Basic": "shares" beside "diluted" names "Weighted-average shares outstanding —
        # diluted" more fully.
        return (f"\"{richer[0]}\" names \"{richer[1]}\" more fully than the row "
                f"\"{richer[2]}\" the plan reads; say which row")
    if (quoted := _quote_unread(grounding, analysis)) is not None:
        # "the total of all "of which" rows for income tax" read the Income tax row: the
        # quoted words name rows no match took.
        return f"the question quotes \"{quoted}\", which names no cell or column the plan reads"
    if result.op in _ONE_MEASURE_OPS and (dropped := _figure_word_dropped(grounding, result)):
        # "the highest % of FSM pupils meeting the expected standard" read All pupils > %
        # expected standard: "FSM" names the column under Free school meals instead.
        return (f"the question also says \"{dropped[0]}\" ({dropped[1]}), which the plan "
                f"would not read; say which column to read")
    if result.op == "lookup" and analysis.wh == "which" and analysis.target_words and (
            other := _asked_beside(frame, result.measure[0], analysis.target_words[-1])):
        # "Which country's film won in 2017" read Film beside Director (Country).
        return (f"the question asks which {_as_written(analysis, analysis.target_words[-1])}, "
                f"and the plan would read {frame.attr(result.measure[0]).label} beside {other}")
    if result.op == "lookup" and (part := _bracketed_part_asked(frame, result, analysis)):
        # "Which country's film won in 2017" read "Director (Country)": the cell "Nadia
        # Haddad (Lebanon)" is a name, and only its bracketed part is the country asked.
        return part
    if result.op == "lookup" and not analysis.yes_no and grounding.unexplained_stems \
            and _flag_column(frame, frame.attr(result.measure[0])):
        # "What was the ticket price for Cezanne" read Ticketed, a column of yes and no:
        # "price" found no column, and a yes is no price.
        return (f"{frame.attr(result.measure[0]).label} holds yes or no, and the question "
                f"asks for something else (\"{grounding.unexplained[0]}\")")
    if result.op == "lookup" and (extreme := _EXTREME_WORD.search(analysis.folded)) and not (
            {fold(w) for w in words(frame.attr(result.measure[0]).label)}
            & _EXTREME_FORMS[extreme.group(1)]) and (
            beside := next((a.label for a in frame.data_attrs if a.key != result.measure[0]
                            and a.path[:-1] == frame.attr(result.measure[0]).path[:-1]
                            and {fold(w) for w in words(a.label)} & _EXTREME_FORMS[
                                extreme.group(1)]), None)) is not None:
        # "Mean minimum temperature in January" read Temperature > Mean beside Mean min:
        # "minimum" names that column, not an operation of a lookup.
        return (f"\"{extreme.group(0)}\" may name {beside}, and the plan would read "
                f"{frame.attr(result.measure[0]).label}; say which column")
    if result.op in ("group_sum", "row_avg") and _units_differ(frame, result.measure):
        # "Average order value of Furniture in January" averaged GMV (USD m) with Orders
        # (thousands); "day rate cost for its days" added Day rate (USD k) to days.
        units = {_bracketed_unit(frame.attr(k).label) for k in result.measure}
        return ("the columns combined are in different units ("
                + ", ".join(sorted(u or "none stated" for u in units)) + ")")
    listed = result.columns_read or ([result.column] if isinstance(result, ReadRows) else [])
    if _GAP.search(analysis.folded) and result.op in ("lookup", "list", "multi") \
            and len(listed) + len(result.rows) > 2:
        # "Gap between male and female unemployment" listed both rates: a gap is their
        # difference.
        return "a gap is the difference of the two figures, which the plan would only list"
    if analysis.folded.startswith("how many") and not re.search(
            r"\bpercent|%|\bshare\b|\brate\b", analysis.folded) \
            and result.op in ("multi", "list") and listed \
            and all(_percent_column(frame, k, result.rows) for k in listed):
        # "How many males and females were in the total population, respectively" listed
        # Total > %: the numbers are in the n column beside it.
        return f"{frame.attr(listed[0]).label} holds percentages, not a number of things"
    if analysis.wh == "which" and result.op in ("argmax", "argmin", "group_argmax",
                                                "group_argmin") \
            and result.answer_column and analysis.target_words and (
            other := _asked_kind_elsewhere(frame, result.answer_column,
                                           analysis.target_words[-1])) is not None:
        # "Which promotion type has the highest incremental GMV" named a promotion beside a
        # Type column: the type is asked.
        return (f"the question asks which {_as_written(analysis, other[0])}, and the plan "
                f"would answer with {frame.attr(result.answer_column).label} beside {other[1]}")
    if result.op in ("group_argmax", "group_argmin") and analysis.wh == "which" \
            and len(analysis.target_words) == 1 \
            and _UNNAMED_LEVEL.fullmatch(frame.attr(result.answer).label) \
            and analysis.target_words[0] not in {stem(w) for v in _filled_texts(
                frame, result.answer, result.rows) for w in words(v)}:
        # "Which episode had the most viewers" added up the episodes under each season band
        # ("Season 1 (2019)"), a level no header names: the bands are no episodes.
        return (f"the plan adds up the rows under each band of an unnamed level, and the "
                f"question asks which {_as_written(analysis, analysis.target_words[0])}, "
                "which the bands' labels do not say they are")
    if (noun := _unnamed_kind_over_bands(frame, result, analysis)) is not None:
        # "Which band had the most entries" ranked the subjects under their bands: nothing
        # in the table calls its rows or its bands "band", so which level is asked is unsaid.
        return (f"the rows are grouped, and nothing in the table says whether \"{noun}\" means "
                "a group or a row; name the level as the table does")
    if _LIST_THE.match(analysis.folded) and (result.op in numeric_ops or (
            result.op == "lookup" and frame.attr(result.measure[0]).measurable)):
        # "List the terminals with yard utilisation below 65%" read CSP Valencia's 62%: the
        # names are asked, not a figure.
        return "the question asks to list rows by name, not for a number"
    if (ratios := _another_named_ratio(frame, analysis)) is not None:
        # "The combined ratio for Motor" over a table of loss ratios: another measure, which
        # the table does not give.
        return (f"the question asks for the {ratios[0]} ratio, and the table gives the "
                f"{ratios[1]} ratio")
    if result.op in ("lookup", "sum", "avg", "diff", "max", "min") and result.measure \
            and _CURRENCY_ASKED.search(analysis.folded) \
            and not _PERCENT_ASKED.search(analysis.folded) \
            and all(_percent_column(frame, k, result.rows) for k in result.measure):
        # "Gross profit of Bakery in GBP m" read Gross margin (%): an amount of money is
        # asked, and the column holds percentages.
        return (f"the question asks for an amount of money, and "
                f"{frame.attr(result.measure[0]).label} holds percentages")
    if (unit := _unit_not_given(frame, result, analysis)) is not None:
        # "the orbital period of Mars in years" over a column of days: the number would be
        # in the table's unit, not the one asked for.
        return unit
    if isinstance(result, Ratio) and result.percent \
            and (joined := _operands_joined(frame, result, analysis)) is not None:
        # "What percentage of the Personal loans book is rated D or E" read E over D: the two
        # are the parts asked for together, and their whole is another figure.
        return (f"the question names {joined[0]} and {joined[1]} together, as parts of one "
                "share; their share of a total needs an LLM")
    if (within := _counter_within(grounding, analysis)) is not None:
        # "How many episodes did she direct in season 1" read "No. in season" = 1: the
        # episodes that open a season, not season 1, which no column states.
        return (f"\"{within[0]}\" names a {within[1]}, and {within[2]} numbers the rows "
                f"within each {within[1]}; no column says which {within[1]} a row is in")
    if result.op in ("sum", "group_sum") and (placed := next(
            (frame.attr(k).label for k in result.measure
             if _FROM_A_POINT.search(frame.attr(k).label)), None)) is not None:
        # "How many km between Edinburgh Park and Edinburgh Waverley" added both stations'
        # distances from Glasgow: each row's figure is a place on a line, not a length.
        return (f"{placed} measures each row from one point, so its figures do not add up "
                "(the distance between two rows is their difference)")
    if result.op in ("count", "count_distinct", "sum", "avg", "max", "min") \
            and (subject := _title_subject_as_value(grounding)) is not None:
        # "How many awards did Parasite win" over "Parasite (2019 film) - Accolades": the
        # film is the table's subject, and its name in a few Recipient cells is no condition
        # the question set.
        return (f"\"{subject.text}\" is what the table is about (its title) and also a value "
                f"of {frame.attr(subject.attr).label} in some rows; say whether only those rows "
                "count")
    if analysis.wh == "how many" and result.op in ("lookup", "sum", "avg", "diff", "max", "min") \
            and (money := next((frame.attr(k).label for k in result.measure
                                if states_currency(" ".join(filter(None, [
                                    frame.attr(k).label, frame.attr(k).unit])))), None)) \
            and not states_currency(" ".join(analysis.count_words)):
        # "How many claims were paid for Homeowners" read "Paid claims (USD thousands)": an
        # amount of money, not a number of claims.
        said = re.search(r"\bhow many ([^\W\d_]+)", analysis.folded)
        return (f"{money} holds amounts of money, not a number of "
                f"{said.group(1) if said else 'things'}")
    if (unit := _counted_unit_not_given(frame, result, analysis)) is not None:
        # "How many weeks did Glass Houses spend on the UK chart" read its UK peak position:
        # the figure read is not a number of weeks.
        return unit
    if result.op in ("lookup", "sum", "avg", "max", "min", "argmax", "argmin", "diff") and (
            unit := _unit_of_another_column(frame, result, analysis)) is not None:
        # "Spill hours at Mogden in 2023" read Spills 2023, a count, beside "Duration 2023
        # (hrs)": the unit says which column is asked.
        return (f"\"{unit[0]}\" is the unit of {unit[1]}, and the plan would read "
                f"{frame.attr(result.columns_read[0]).label}; say which column")
    if result.op == "lookup" and (period := _period_left_out(grounding, result)) is not None:
        # "The market share of Tesla in March" read the H1 share: March (a month's column)
        # is named, and the column read is of no period at all.
        return (f"the question names {period}, and the plan would read "
                f"{frame.attr(result.measure[0]).label}, which is of no period; say which "
                "column")
    if (named := _named_beside_unit(grounding, result, analysis)) is not None:
        # "the torque of the BMW in kW": kW picked Power (kW), and Torque is what was asked.
        return named
    if analysis.wh in ("which", "what") \
            and result.op in ("argmax", "argmin", "group_argmax", "group_argmin") \
            and result.answer_column and set(analysis.target_words[:1]) & _PERIOD_NOUNS \
            and not _labels_are_times(frame, frame.attr(result.answer_column)) \
            and not frame.attr(result.answer_column).tokens & _PERIOD_NOUNS:
        # "Which quarter had the highest total hours" ranked the branches by their Total:
        # the quarters are the columns, and a branch is no quarter.
        return (f"the question asks which {analysis.target_words[0]}, and the plan would "
                f"answer with a {frame.attr(result.answer_column).label}")
    if result.op in ("lookup", "sum", "avg") and (group := next(
            (m for m in grounding.attrs if m.full and len(m.attrs) >= 2
             and not set(m.attrs) & set(result.measure)
             and all(frame.attr(k).measurable for k in m.attrs)), None)) is not None \
            and all(_leaf_words(frame.attr(k)) and _leaf_words(frame.attr(k))
                    <= _OPERATION_STATED["sum"] for k in result.measure):
        # "Total Events donations in October" read the month's Total beside the Events group
        # (Challenge, Gala): "total" named the operation on the group, not the column.
        return (f"the question names the group {group.label}, and the plan would read "
                f"{frame.attr(result.measure[0]).label}; adding a group's columns needs an "
                "LLM")
    if re.search(r"\bhow much of\b", analysis.folded) and result.op == "lookup" \
            and _percent_column(frame, result.measure[0], result.rows) \
            and not re.search(r"\bpercent|%|\bshare\b|\bproportion\b", analysis.folded):
        # "How much of Finance's cost was allocated" read "Allocated (%)": the amount asked
        # is the cost times that share, which no column holds.
        return (f"the question asks for a part of an amount, and "
                f"{frame.attr(result.measure[0]).label} holds its share in percent")
    if analysis.wh == "when" and result.answer_column \
            and result.op in ("argmax", "argmin", "first", "last", "lookup") \
            and not _holds_dates(frame, result.answer_column) \
            and not _labels_are_times(frame, frame.attr(result.answer_column)):
        # "When was the last iron ore shipment" answered with its Shipment ID: no date.
        return (f"the question asks when, and {frame.attr(result.answer_column).label} holds "
                "no dates")
    if result.op in ("argmax", "argmin") and result.answer_column and (
            asked := _column_asked_of_the_best(frame, result, analysis)) is not None:
        # "Ship date of the shipment with the largest Tonnes" answered with its ID: the
        # column named first is what is asked of the row the ranking picks.
        return (f"the question asks for {asked} of the row the ranking picks, and the plan "
                f"would answer with {frame.attr(result.answer_column).label}")
    if (money := _money_asked_of_a_count(frame, result, analysis)) is not None:
        # "The total value of grants awarded" read Grants awarded, a count, beside "Total
        # awarded (£)": the value is the money.
        return (f"the question asks for a value in money, and {money} holds no money; say "
                "which column")
    if analysis.wh in ("who", "whom", "whose") and result.answer_column and _labels_are_times(
            frame, frame.attr(result.answer_column)):
        # "Who had the highest vote share" over rows labelled by terms ("2017-2021"): the
        # people are in a column the rules did not find.
        return (f"the question asks who, and {frame.attr(result.answer_column).label} holds "
                "years, dates or numbers, not names")
    if (whole := _parent_word_decides(grounding, result)) is not None:
        # "Total energy consumption" read in Renewable energy > Total, for the "energy" of
        # its group, beside the table's own Total: the title's word picked the group.
        return (f"\"{whole[0]}\" may be {whole[1]} or {whole[2]}; say which (name its group)")
    if (stronger := _stronger_name_left(grounding, result)) is not None:
        # "The difference between the number employed in 2023 and 2013": "employed" names
        # the Employed group better than "number" names Unemployed > Number.
        read = frame.attr(next(k for _, k in result.operand_cells)).label
        return (f"the question names {stronger.label}, and the plan would read {read} beside "
                "it; say which column")
    if result.op in ("count", "count_distinct") \
            and (nominated := _nominated_filter(grounding)) is not None:
        # "How many awards was Saltwater nominated for" over Result = Won / Nominated: the
        # wins were nominated too, and the filter would leave them out.
        return (f"\"{nominated}\" in {frame.caption} marks nominations that did not win; "
                "say whether the wins count too")
    if (fraction := _fraction_on_percents(frame, result)) is not None:
        # "Q1 (%) above 0.8" over figures of 70 to 95: 0.8 likely means 80%, and every row
        # passes the number 0.8.
        return (f"{fraction[1]} holds percentages, and {fraction[0]:g} may mean "
                f"{fraction[0] * 100:g}%; write the threshold as a percentage")
    if (excluded := _excluded_value(grounding, analysis)) is not None:
        # "Total subscribers excluding Telvora" read Telvora's row: every row but it is asked.
        return (f"the question excludes {excluded}, and the rules would read it; ask for the "
                "rows wanted, or connect an LLM")
    if (verb := _past_verb_read_as_a_value(grounding)) is not None:
        # "How many units were held at Leeds" read the Status "Hold": the verb of the
        # question, not the rows on hold.
        return (f"\"{verb[0]}\" was read as the value {verb[1].text} of "
                f"{frame.attr(verb[1].attr).label}; say whether only those rows are meant")
    if (unread := _value_read_as_a_word(grounding)) is not None:
        # "The total Change for Increase decisions": "increase" was read as a change word,
        # and the Decision column holds it as a value: the filter it names was dropped.
        return (f"\"{unread[0]}\" is a value of {unread[1]}, which the rules read as a word "
                "of the question; ask with an LLM")
    if (code := _other_code(grounding)) is not None:
        # "Widget C" read as the row "Widget A": the letter names another row, which the
        # table does not have.
        return f"no row is \"{code}\"; the nearest labels differ in their code"
    if (tied := _tied_phrase(grounding, result)) is not None:
        # "The Time of the Women's winner" over Time after Men's winner and Time after
        # Women's winner: the phrase was dropped as ambiguous, and the plan read the other
        # column the question names.
        return f"{tied}; say which one"
    if not analysis.yes_no and (echo := _echoed_value(grounding, result)) is not None:
        # "Who was the first Minister of Defence listed" read in Portfolio, the column the
        # words matched: the answer would repeat the question's own value.
        return (f"the answer would be \"{echo}\", which the question names itself; say "
                "which column to read")
    if analysis.op == "lookup" and result.op == "sum" and len(result.rows) > 1:
        totals = [r for r in result.rows if frame.row_paths.get(r)
                  and TOTAL_LABEL.search(frame.row_paths[r][-1])]
        if totals and len(totals) < len(result.rows):
            # "The population aged 0 to 14 in Austria-North": "aged" also named "All ages";
            # a value asked for is not a total added to one of its parts.
            return (f"the rows to add include the total \"{frame.row_paths[totals[0]][-1]}\" "
                    "beside rows it already counts")
    if (amount := _amount_beside(grounding, analysis, result)) is not None:
        # "Revenue from Europe in 2019" under 2019 > Amount | % of revenue: "revenue" is said
        # by the share's header, but the question asks for no share.
        return (f"the question asks for no percentage, and the plan reads a percentage "
                f"column beside {amount.label}")
    if (against := _column_compared(grounding, analysis)) is not None and not (
            isinstance(result, Compare) and result.operands
            and {key for _, key in result.operands} == {against.key}):
        # "Which project was most under budget", "items below their reorder level": one
        # column against another, row by row, which no rule computes. ("Did the maize in
        # 2013 exceed the maize in 2010" compares two rows of the one column it names.)
        return f"the question compares a value with {_leaf_label(against)}, another column"
    if analysis.wh is None and result.op in ("max", "min") and result.measure and (
            said := set(grounding.q_words) & (_OP_STEMS["sum"] | _OP_STEMS["avg"])) \
            and not said <= _column_words(frame, result.measure):
        # "Highest average amount", "Lowest total amount": a bare superlative reads the
        # highest cell; the average (or total) asked of each group is no column's name, as
        # "Maximum Total received" names one.
        return ("the question asks for the highest or lowest of a total or average, which no "
                "column read states")
    if analysis.op == "count" and result.op in ("lookup", "sum") and \
            not set(analysis.count_words) & _MONEY_WORDS and \
            not set(_counted_words(analysis)[-1:]) & _column_words(frame, result.measure) \
            and any(_money_column(frame, k, result.rows) for k in result.measure):
        # "How many customers were in Europe" read the Europe revenue: a sum of money counts
        # no customers. (The head of what is counted: "new build homes" counts homes,
        # whatever "new build" names.)
        money = next(k for k in result.measure if _money_column(frame, k, result.rows))
        attr = frame.attr(money)
        if states_currency(" ".join(attr.path)) or not states_currency(frame.title or ""):
            return (f"{attr.label} holds amounts of money, not the number the question asks "
                    "for")
        # Only the title says money ("Units sold and revenue (USD)"): say that it is the
        # title's reading, which may not be meant for this column.
        return (f"the title (\"{frame.title}\") says the figures are money, so {attr.label} "
                "reads as amounts, not the number the question asks for; ask for the column "
                "by its name")
    read = set(result.columns_read) | {k for f in result.filters for k in f.columns}
    if result.answer_column:
        read.add(result.answer_column)
    flags = [frame.attr(m.attrs[0]) for m in grounding.attrs
             if m.full and len(m.attrs) == 1 and m.attrs[0] not in read]
    flag = next((a for a in flags if _flag_column(frame, a)), None)
    if flag is not None:
        # "The average calories of the vegetarian recipes" beside a Vegetarian column of
        # Yes and No: the word picks rows the plan does not filter.
        return (f"the question names {flag.label}, a yes/no column, and the plan does not "
                "filter on it")
    if (_SHARE_OF.search(analysis.folded) or _says_share(grounding, analysis)) \
            and _share_unanswered(frame, result):
        return "the question asks for a share of a whole, and the plan reads an amount"
    unread = [m for m in grounding.attrs if m.full and len(m.attrs) == 1
              and m.attrs[0] not in read and frame.attr(m.attrs[0]).measurable
              and result.op == "lookup" and "or" in grounding.q_words
              and any(frame.attr(m.attrs[0]).tokens < frame.attr(k).tokens
                      for k in read if k in result.measure)]
    if unread:
        # "What share agreed or strongly agreed": two columns, Agree and Strongly agree, one
        # named inside the other's name; the plan reads only the longer.
        return (f"the question names {frame.attr(unread[0].attrs[0]).label} as well as the "
                "column read; say which one, or ask for each")
    symbol = next((a for a in frame.data_attrs if a.key not in read
                   and _symbol_header_said(a.label, analysis.text)), None)
    if symbol is not None:
        # "Seats +/– for Liberal Democrats" read Seats: the header "+/–" is all symbols, so no
        # word of the question matched it, though the question says it.
        return (f"the question names the column \"{symbol.label}\", which the plan does not "
                "read")
    if grounding.asks_percent and result.op in ("lookup", "sum", "avg", "max", "min") \
            and analysis.op in ("lookup", "sum", "avg", "max", "min") and result.measure \
            and not _percent_read(frame, result):
        # "Gross margin % in January" read the Gross margin amount: the percentage asked is a
        # ratio no cell states.
        return "the question asks for a percentage, and the cells read hold amounts"
    if result.op == "multi" and _WHICH_IS_MORE.search(analysis.folded):
        # "Compare the SD of A and B - which is larger?": listing both answers no "which".
        return "the question asks which of the values is larger; the rules would list them"
    if analysis.wh in ("which", "who", "whom") and result.answer_column and \
            _holds_lists(frame, result.answer_column):
        # "Which swimmer has the fastest time" over one row per relay team: the best row's
        # Swimmers cell names four.
        return (f"{frame.attr(result.answer_column).label} lists several names in a cell; the "
                "question asks for one")
    if analysis.by_speed and result.op in ("max", "min", "argmax", "argmin") and not all(
            _holds_times(frame, k, result.rows) for k in result.measure):
        return ("\"fastest\" and \"slowest\" are read only over a column of times (the "
                "lowest time is the fastest); say highest or lowest")
    if (paired := _value_of_another_column(grounding)) is not None:
        # "How many seasons have Champions Celtic" where the Champions cells read "Celtic
        # (52)": "Celtic" was found in Third place, which is not the column the question
        # pairs it with.
        return (f"the question pairs \"{paired[1]}\" with {paired[0]}, but it is found in "
                f"{paired[2]}")
    counted_at = {i for i, w in enumerate(grounding.q_words) if w in analysis.count_words}
    if result.op in ("count", "count_distinct") and result.filters \
            and all(f.op in ("=", "in") for f in result.filters) and (unused := [
                m for m in grounding.attrs if m.full and len(m.attrs) == 1
                and frame.attr(m.attrs[0]).numeric and not m.positions & counted_at
                and not _identifier(frame, frame.attr(m.attrs[0]))
                and m.attrs[0] not in {f.column for f in result.filters}]):
        # "How many games did Mike Brown win" over one row per season: the seasons of his
        # counted, beside the Wins the question names.
        if unused[0].positions <= _total_word_positions(grounding):
            # "the total number of unemployed women" names Civilian labor force > Total by
            # its "total" alone: that column is no advice to give.
            return ("the question asks for a total, and counting rows would not give one; say "
                    "which column of numbers to add up")
        return (f"the question names {unused[0].label}, a column of numbers, and counting "
                f"rows would not read it; say \"total {unused[0].label}\" to add it up")
    filtered = {f.column for f in getattr(result, "filters", None) or []}
    # ("How many sites" names Site ID, "how many lot numbers" Lot number: an id's word aside.)
    counted = frozenset(_counted_words(analysis, verbs=False)) - _ID_NOUNS
    if result.op == "count" and analysis.count_words and (repeated := [
            a for a in (*frame.data_attrs, *frame.levels[-1:])
            if (a.tokens == {analysis.count_words[-1]}
                or counted and a.tokens - _ID_NOUNS == counted)
            and a.key not in filtered and (not a.measurable or _identifier(frame, a))
            and _repeats_over(frame, a, result.rows)]):
        # "How many weeks" over one row per week and store: the weeks are the Week column's
        # different values, not the rows. (A column of amounts, "Payment" beside "Payment
        # no.", names no things to count.)
        if _DIFFERENT.search(analysis.folded):
            return (f"{repeated[0].label} repeats over the rows, and the plan counts rows, "
                    "not its different values")
        return (f"{repeated[0].label} repeats over the rows; say \"how many different\" to "
                "count its values")
    if result.op in ("argmax", "argmin", "group_argmax", "group_argmin") and (
            asked := _WHAT_OF_THE.match(analysis.folded)) and (set(
                stem(w) for w in words(asked.group(1))) & set(grounding.unexplained_stems)):
        # "What is the lower bound of the band with the fewest employees": the row's name is
        # no lower bound, and no column was found for it.
        return (f"the question asks for the {asked.group(1)} of the best row, which no column "
                "was found for")
    if result.op in ("argmax", "argmin", "group_argmax", "group_argmin") \
            and analysis.wh in ("which", "what") \
            and (time := set(analysis.target_words[:1]) & _YEAR_NOUNS) \
            and result.answer_column is not None \
            and not time & frame.attr(result.answer_column).tokens \
            and not _holds_dates(frame, result.answer_column) \
            and not _holds_periods(frame, result.answer_column) \
            and len(_year_columns(frame)) >= 2:
        # "Which year had the highest total enrolment" over Site | 2019 ... 2023 | Total: the
        # years are columns, and the Site with the highest Total is no year.
        return (f"the question asks for a {next(iter(time))}, and the rows ranked are named by "
                f"{frame.attr(result.answer_column).label}; the years are columns")
    if (inc := _INCLUDING.search(analysis.folded)) and result.rows \
            and frame.row_count <= _SMALL_TABLE_ROWS \
            and (named := _row_saying(frame, f"{inc.group(1)} {inc.group(2)}")) is not None \
            and named not in result.rows:
        # "Total emissions in 2016 including LULUCF" read the row "LULUCF (b)" beside a row
        # "Total including LULUCF": the words name that row.
        said = _as_said(analysis, inc.group(0))
        return (f"the question says \"{said}\", which a row of its own states "
                f"(\"{frame.row_label(named)}\"), and the plan reads other rows")
    if (result.op in ("argmax", "argmin", "max", "min") and _CHANGE_ASKED.search(analysis.folded)
            or result.op == "lookup" and _CHANGE_VERB.search(analysis.folded)) \
            and not any(_CHANGE_COLUMN.search(frame.attr(k).label) for k in result.measure) \
            and (change := next((a for a in frame.data_attrs if a.measurable
                                 and a.key not in result.measure
                                 and _CHANGE_COLUMN.search(a.label)), None)) is not None:
        # "Which party's vote share increased the most" read Vote share (%) beside a "±pp"
        # column: the change is asked, which that column holds.
        return (f"the question asks for a change, and the plan reads "
                f"{frame.attr(result.measure[0]).label}, not {change.label}; say which")
    if result.op == "diff" and not grounding.asks_percent \
            and re.search(r"\bhow (?:many|much) more\b|\bdifference in\b", analysis.folded) \
            and (pct := [k for k in dict.fromkeys(k for _, k in result.operand_cells)
                         if _PERCENT_LEAF.search(frame.attr(k).path[-1]
                                                 if frame.attr(k).path else "")]) \
            and any(a.key != pct[0] and a.measurable
                    and a.path[:-1] == frame.attr(pct[0]).path[:-1]
                    for a in frame.data_attrs):
        # "How many more votes did the Conservatives get than Labour" read "Votes > %"
        # beside the votes themselves.
        return (f"the question asks for a difference of amounts, and the plan reads "
                f"{frame.attr(pct[0]).label}, a percentage; name the column")
    if result.op in ("argmax", "argmin") and analysis.wh == "which" \
            and result.answer_column is not None \
            and frame.attr(result.answer_column).kind == "data" \
            and frame.attr(result.answer_column).numeric \
            and not _identifier(frame, frame.attr(result.answer_column)) \
            and frame.attr(result.answer_column).tokens != set(analysis.target_words[:1]):
        # (Not "which district" over a District column of numbers: its own name.)
        # "Which cohort had the best month 3 retention" answered with its Cohort size: a
        # number, not the cohort's name.
        return (f"the question asks which one, and {frame.attr(result.answer_column).label} "
                "holds amounts, not names; name the column that names the rows")
    if result.op in ("argmax", "argmin") and analysis.wh == "which" \
            and result.answer_column is not None \
            and _names_dates(frame, result.answer_column, result.rows) \
            and not set(analysis.target_words[:1]) & (_TIME_NOUNS | (
                frame.attr(result.answer_column).tokens
                if frame.attr(result.answer_column).kind == "level" or not frame.levels
                else set(label_tokens(naming_path(
                    frame.attr(result.answer_column).path)[-1])[-1:]))):
        # "Which by-election had the largest majority" answered with its Date: the
        # question asks for a by-election, which no column was found to name. (So does
        # "which release" of a Release date beside the Version naming the rows: the date
        # column's noun is the date.)
        asked = re.search(r"\bwhich\s+([^\W\d_][\w-]*)", analysis.text, re.IGNORECASE)
        return (f"the question asks which {asked.group(1) if asked else 'row'}, and the rows "
                f"are named by {frame.attr(result.answer_column).label}, a date")
    if result.op in ("sum", "avg", "max", "min", "argmax", "argmin") \
            and 1 < len(result.rows) <= _LONG_TABLE_ROWS \
            and (mixed := _measures_mixed(frame, result.rows)) is not None:
        # "The total area of all crops in 2019" over year, crop, measure, value: the rows of
        # area, yield and production added together.
        return (f"the rows read are of several values of {mixed[0]} "
                f"({', '.join(mixed[1][:3])}); say which one")
    if result.op == "row_avg" and (stat := [k for k in result.measure if re.search(
            r"\b(?:mean|median|average)\b", fold(frame.attr(k).label))]):
        # "What were the mean and median pay gaps" over Mean pay gap and Median pay gap: the
        # words name the two columns, not an average of them.
        return (f"\"{frame.attr(stat[0]).label}\" is itself a statistic the question may name; "
                "averaging it with other columns is not asked for")
    if result.op == "ratio" and _both_named_as_one(grounding) and not re.search(
            r"\bratio\b|\bto\b|\bover\b|\bdivided\b|\bas an? (?:percentage|share|"
            r"proportion|fraction) of\b|\bof\b.*\bof\b", analysis.folded):
        # "What percentage of employees are in bands E and F": the two together as a share
        # of all, not F over E.
        return ("the question asks for the share of two named rows together; the rules would "
                "divide one by the other")
    if isinstance(result, Ratio) and result.percent and _SHARE_ASKED.search(analysis.folded) \
            and (parts := [v.number for r, k in result.operand_cells
                           if (v := frame.value(r, k)) is not None and v.number is not None]) \
            and len(parts) == 2 and 0 < parts[1] < parts[0]:
        # "What percentage of killed casualties were aged 0-15" divided All casualties by
        # Killed: a share is a part of its whole, never more than all of it.
        return "the share would be more than 100%: its part is not inside its whole"
    if result.op == "count" and (owned := _counted_property(grounding, analysis)):
        # "The total number of parameters of the CNN-based models": the models are the rows;
        # their parameters, which no column was found for, are no number of rows.
        return (f"the question counts the {owned} of the rows, which no column of the table "
                "was found to hold; counting the rows would not answer it")
    if result.op == "count" and (name := _counted_name(grounding, analysis)):
        # "How many Kenyans were in the final" over one row per athlete: a name the table
        # never writes picks rows no condition of the plan picks.
        return (f"the question counts {name}, which the table does not name; say which "
                "column holds it")
    if result.op in ("count", "count_distinct") and (
            unit := set(analysis.count_words[:1]) & PHYSICAL_UNITS) and (said := next(
                (w for w in re.findall(r"[^\W_]+", analysis.text)
                 if stem(w.lower()) in unit and w.lower() in PHYSICAL_UNIT_WORDS), None)):
        # "How many MW were added in 2022": an amount in a unit, which no number of rows is.
        # (The unit as written: "how many mines" shares its stem with "min".)
        return (f"the question asks for an amount in {said}, not a number of rows; name the "
                "column that holds it")
    # (A lookup too, where a count or a total was asked: "bands A to C" read band C.)
    if (result.op in ("sum", "avg", "count", "max", "min", "argmax", "argmin", "group_sum",
                      "row_avg") or result.op == "lookup" and analysis.op in ("count", "sum")) \
            and not (result.op in ("group_sum", "row_avg")
                     and len(result.measure) > 2
                     and _span_columns(frame, analysis.text,
                                       [result.measure[0], result.measure[-1]]) == result.measure) \
            and not _ranged_by_years(grounding, analysis) \
            and _row_span(grounding) is None \
            and (ends := _range_ends(grounding) or _dash_span(grounding, analysis.text)
                         or _years_between(grounding, analysis.text)
                         or _fiscal_years_between(analysis.text)
                         or _periods_between(grounding)):
        return (f"the question names a span ({ends[0]} to {ends[1]}); the rules would take "
                "its two ends alone")
    grouped = _grouping_columns(frame, analysis.folded)
    if result.op == "avg" and grouped and _names_each_row(frame, result.rows, grouped[0]):
        grouped = []  # "the average passengers per flight", one row per flight: the mean
    if grouped and result.op in ("sum", "avg", "count", "count_distinct", "max", "min"):
        # "the total revenue per product": one figure for each product, not one in all.
        return (f"the question asks for one figure per {grouped[0].label}, and the plan "
                "gives one for all rows")
    column = getattr(result, "column", None)
    if column and analysis.wh in ("who", "whom") and result.op in ("lookup", "first", "last",
                                                                     "list") \
            and _labels_are_times(frame, frame.attr(column)):
        # "Who made the first ascent" over a First ascent column of years: no one's name.
        return f"the question asks who, and {frame.attr(column).label} holds numbers or dates"
    if column and analysis.superlative and frame.attr(column).derivable \
            and _BETTER.search(analysis.folded):
        # "his best time", "the worst position": on times and places a lower number is
        # better, on most amounts a higher one; the words do not say which is meant.
        return (f"{frame.attr(column).label} holds times or places, where best and worst "
                "do not say whether higher or lower is meant")
    if analysis.superlative and (judged := _judging_word(grounding, analysis)) is not None:
        # "The most affordable area" over price-to-earnings ratios: the least of them; the
        # word judges the figure, and which end it means depends on the figure.
        return (f"\"{judged}\" does not say whether the highest or the lowest "
                f"{frame.attr(result.measure[0]).label if result.measure else 'figure'} is "
                "meant; ask for the highest or the lowest")
    if analysis.superlative and _BETTER.search(analysis.folded) and (bad := next(
            (frame.attr(k).label for k in result.measure
             if _lower_is_better(frame, k, analysis)), None)):
        # "The worst reject rate" read as the lowest: on rejects, defects, costs and delays
        # a higher figure is the worse one.
        return (f"on {bad} a lower figure is the better one; ask which has the highest or "
                "the lowest")
    if column and result.op in ("argmax", "argmin", "max", "min", "compare", "group_argmax",
                                "group_argmin") \
            and _ranks_by_place(frame.attr(column)) and _HIGH_OR_LOW.search(analysis.folded):
        # "Did it chart higher than ...", "the highest chart position": a higher place on a
        # chart or in a ranking is a smaller number; the words do not say which is meant.
        return (f"{frame.attr(column).label} holds ranks or chart positions, where higher "
                "and lower do not say whether a larger or a smaller number is meant")
    if column and result.op in ("argmax", "argmin", "max", "min", "compare", "group_argmax",
                                "group_argmin") \
            and re.search(r"\bfrequen", analysis.folded) \
            and _INTERVAL_FREQUENCY.search(frame.attr(column).label):
        # "Which route has the highest frequency" over "Frequency (mins)": minutes between
        # buses, so the most frequent route has the smallest number.
        return (f"{frame.attr(column).label} gives the time between services, so a higher "
                "frequency is a smaller number; ask for the shortest or the longest interval")
    operands = getattr(result, "operands", None)
    # (Statements with costs in parentheses are short; a tall table's ranking is not read
    # cell by cell here.)
    ranked = [(r, k) for r in result.rows for k in result.measure] \
        if result.op in _RANKS and len(result.rows) <= 200 else []
    # A ranking reads costs when every number is one in parentheses; beside positive numbers
    # ("Net income" with a loss year, "(45)") the signed order is the plain one.
    numbers = [c for c in ranked if (v := frame.value(*c)) is not None and v.measurable]
    costs = bool(numbers) and all(_in_parentheses(frame, cell) for cell in numbers)
    if (operands and result.op in ("compare", "diff", "pct_change")
            and any(_in_parentheses(frame, cell) for cell in operands) or costs) \
            and _SIZE_WORDS.search(analysis.folded):
        # "Which cost was higher", "how much did expenses increase" over "(45.0)": a cost
        # written as a negative number; higher and increase may mean its size or its sign.
        # (A ranking too: "which year was the cost of revenue highest" over "(48,200)".)
        return ("the cells are negative numbers written in parentheses (costs, losses); say "
                "whether their size or their signed value is meant")
    if operands and result.op == "ratio" and any(
            _in_parentheses(frame, c) and _costs_line(frame, c) for c in operands):
        # "Cost of revenue as a % of net revenue" over "(310,004)": a share of its size, which
        # the signed division would give as -60.51%.
        return ("a cell is a negative number written in parentheses (a cost, a loss); say "
                "whether the share of its size or of its signed value is meant")
    # (A filter on "_row" picks rows by their position, not by a column's values.)
    columns = {a.key for a in frame.attrs}
    computed_on = {*result.measure, *(k for f in result.filters for k in f.columns)} & columns
    filtered_on = {k for f in result.filters for k in f.columns}
    bounded = sorted(k for k in computed_on if (result.op in _READS_ALL_NUMBERS
                                                or k in filtered_on)
                     and frame.attr(k).measurable
                     and doubt(frame, whole_rows(frame), k, _holds_bounds))
    if bounded:
        # "How many outcomes had a P value below 0.05" beside a cell "<0.001": the bound is
        # no number, and leaving its row out would miss the smallest value of all.
        return (f"{frame.attr(bounded[0]).label} holds bounds (such as \"<0.001\" or "
                "\"500+\") beside its numbers; comparing or adding them needs an LLM")
    if result.op in _READS_ALL_NUMBERS and result.op not in ("count", "count_distinct"):
        mixed = sorted(k for k in result.measure if frame.attr(k).measurable
                       and doubt(frame, result.rows, k, _mixes_percentages))
        if mixed:
            # "The lowest HW1" over a "Weight | 10%" row above the students' marks: the
            # percentage is of another kind than the numbers it would be ranked with.
            return (f"{frame.attr(mixed[0]).label} holds percentages on some rows and plain "
                    "numbers on others; say which rows are meant")
    if result.op == "sum" and (stated := _stated_total_beside(grounding, result)) is not None:
        # "The total for Asia in 2019" over China ... Indonesia and a row "Asia total" that
        # counts countries not listed: the listed rows add up to less than the total.
        return (f"{stated[0]} states {stated[1]}, and the rows listed under it add up to "
                f"{stated[2]}; say whether the stated total or the sum of the rows is meant")
    if result.op in ("sum", "avg"):
        unread = sorted(k for k in result.measure if frame.attr(k).measurable and (
            doubt(frame, result.rows, k, _holds_unread_figures) or result.op == "sum"
            and doubt(frame, result.rows, k, _marks_no_figure)))
        if unread:
            # "Total visitors in Paris" beside a cell "3,000,000 <n1>": its row would be left
            # out of the sum without a word. (A highest or a count may not need it: "~7"
            # beside periods of 70 years changes no "longest".)
            return (f"{frame.attr(unread[0]).label} has cells without a figure read as a "
                    "number (such as \"..\" or a figure with a note); the answer would leave "
                    "their rows out")
    if result.op in ("group_argmax", "group_argmin") and result.measure and (noted := next(
            (v.text.strip() for v in frame.values_of(result.measure[0], result.rows[:2_000])
             if v is not None and not v.measurable and _LEADING_FIGURE.match(v.text)), None)):
        # "Which area had the highest total arrears" added South without its "286.6 (a)":
        # a group's total leaves the noted figure out.
        return (f"{frame.attr(result.measure[0]).label} has a figure with a note, "
                f"\"{noted}\", that is not read as a number and would be left out of a total")
    if result.op in ("argmax", "argmin", "max", "min") and result.measure and (
            noted := _noted_figure_would_win(frame, result)) is not None:
        # "Which commodity had the highest exports" skipped "11421.4 (a)", a figure with a
        # note, and named the runner-up.
        return (f"{frame.attr(result.measure[0]).label} has a figure with a note, "
                f"\"{noted}\", that is not read as a number and would change the ranking")
    for f in getattr(result, "filters", None) or []:
        if f.op in (">", ">=", "<", "<=", "between") \
                and any(a.key == f.column and a.measurable for a in frame.data_attrs) and (
                    doubt(frame, whole_rows(frame), f.column, _holds_unread_figures)
                    or f.op in ("<", "<=") and isinstance(f.value, (int, float))
                    and f.value > 0 and _dash_means_nil(frame)
                    and doubt(frame, whole_rows(frame), f.column, _marks_nil)):
            # "Points above 10" beside a cell "16FL" (16 and a note), "grants below 500"
            # beside "-" (nil: a zero, below any positive bound): their rows are neither kept
            # nor dropped by reading, so the count or the list would leave them out unsaid.
            # (A figure not given is left out of "above 75", as of any aggregate.)
            return (f"{frame.attr(f.column).label} has cells without a figure read as a "
                    "number (a mark such as \"-\" or \"..\", or a figure with a note); the "
                    "condition cannot be judged on their rows")
    if result.op in ("avg", "min", "argmin") and _dash_means_nil(frame) and (nil := sorted(
            k for k in result.measure if frame.attr(k).measurable
            and doubt(frame, result.rows, k, _marks_nil))):
        # "The average flood defence grant" beside "-" cells, which the notes call nil: zeros
        # the average and the lowest would leave out.
        return (f"{frame.attr(nil[0]).label} has cells marked \"-\", which the table calls "
                "nil; the answer would leave those zeros out (ask for the figures given, or "
                "connect an LLM)")
    margin_read = any(frame.attr(k).tokens & (_MARGIN_NOUNS | _MARGIN_COLUMN_WORDS)
                      for k in result.measure)
    if result.op in ("max", "min", "argmax", "argmin", "sum", "avg", "lookup") \
            and not margin_read and (
            margin := set(grounding.unexplained_stems) & _MARGIN_NOUNS):
        # "The biggest budget shortfall" read the Budget: a shortfall is the Budget less the
        # Actual, which no column read holds.
        return (f"the question asks for a {sorted(margin)[0]} (one value less another), which "
                "no column read holds")
    if result.op in ("avg", "sum", "max", "min", "argmax", "argmin", "lookup") and (
            per := _PER_THING.search(analysis.folded)) and not any(
                {stem(per.group(1)), stem(per.group(2))} <= frame.attr(k).tokens
                for k in result.measure) and (not any(
                stem(per.group(2)) in frame.attr(k).tokens for k in result.measure) or any(
                stem(per.group(1)) in a.tokens and a.key not in result.measure
                for a in frame.data_attrs if a.measurable)):
        # ("The average unit price" over a "Unit price" column is that column's average.)
        # ("The average unit revenue" over Revenue beside a Units column: per unit.)
        # "The average order value" read the Orders column: revenue per order is one column
        # divided by another.
        return (f"\"{per.group(0)}\" is one amount divided by another ({per.group(2)} per "
                f"{per.group(1)}), which no column read holds")
    if result.op in ("max", "min", "argmax", "argmin") and not margin_read \
            and _BY_A_MARGIN.search(analysis.folded):
        # "Which category underspent its budget by the most": ranked by how far one value
        # falls short of another, not by the Budget itself.
        return "the question ranks by a margin between two values, which no column read holds"
    if (better := _fits_better(frame, result, analysis)) is not None:
        # "The smallest intensity change" read Intensity beside "Intensity change vs
        # 2022/23 (pp)": "change" is taken for the operation, and the column with it is
        # the one asked. (So is "killed rate" beside Killed and "Killed rate per bn vehicle
        # miles", read, listed, subtracted or filtered on.)
        return (f"the question's words fit {better[1]} better than {better[0]}; say which "
                "column is meant")
    if result.op in ("lookup", "max", "min", "argmax", "argmin", "sum", "avg") and (
            head := _head_names_other_column(grounding, result, analysis)) is not None:
        # "The average cost of a Fire claim" read Claims beside avg_cost_gbp: "cost" is what
        # is asked, and "claims" only says of what.
        held = f", which {head[2]} holds," if head[2] else ""
        return (f"the question asks for the {head[0]}{held} and the plan would read "
                f"{head[1]}; say which column")
    # (Not the highest: suppression hides small counts, which never top a ranking.)
    if result.op in ("sum", "avg", "min", "argmin", "group_sum", "group_argmin") \
            and _says_suppressed(frame) and (
            hidden := next((k for k in result.measure
                            if doubt(frame, result.rows, k, _holds_suppressed)), None)):
        # "The lowest Other" beside Japan's "x", which the notes call suppressed: its
        # figure exists and may be the lowest, or change the total.
        return (f"{frame.attr(hidden).label} has figures suppressed (as the table's notes "
                "say), which the answer would leave out unsaid")
    if not grounding.asks_percent and not re.search(
            r"\bper ?cent|\bpercentage|\bpct\b|\bshares?\b|\bproportion|\brates?\b",
            analysis.folded) \
            and (twin := _amount_beside_percent_read(frame, result)) is not None:
        # "Variance for Security Hardening" read Variance % beside Variance (GBP k): the
        # question names both, and says no percent.
        return (f"\"{twin[0]}\" names {twin[1]} and {twin[2]}; say which one (\"%\" for "
                "the percentage)")
    if not grounding.asks_percent and (counted := _count_said_of_percent(grounding, result)):
        # "The difference between her wins at the Australian Open and at Wimbledon" read
        # Win %: the wins are a number of them, which the percentages are not.
        return (f"the question says \"{counted[0]}\", a number of them, and {counted[1]} "
                "holds percentages")
    if (pair := _one_of_a_pair_read(grounding, result)) is not None:
        # "What was the share of Endgame" read "1.9/6" under Rating/share (18-49): the
        # cell holds the rating and the share, and the share is asked.
        return (f"{pair[0]} holds two figures in each cell (\"{pair[1]}\"), and the question "
                "asks for one of them; the rules do not split a cell")
    if result.op in ("lookup", "sum", "avg", "max", "min", "argmax", "argmin") and (
            part := _group_named_in_part(frame, result, analysis)) is not None:
        # "How many offences did Kent record" read Theft offences > 2023/24 beside Violence
        # against the person > 2023/24: "offences" is one word of one group's name.
        return (f"\"{part[0]}\" names only part of {part[1]}, and other groups have the same "
                "columns; say which group")
    if result.op == "sum" and (fixed := _attribute_of_a_key(frame, result)) is not None:
        # "The total capacity_ml of Kielder", one row per week: the reservoir's capacity is
        # written on each of its rows; adding them counts it once per row.
        return (f"{fixed[0]} repeats the same figure on every row of each {fixed[1]}; adding "
                "its rows up would count it once per row")
    if result.op in ("max", "min", "argmax", "argmin") and (
            beaten := _unread_may_rank(frame, result,
                                       max(analysis.place, analysis.top))) is not None:
        # "The third most Points" beside "16FL": read as 16, that row would be second.
        return (f"{frame.attr(beaten[0]).label} has a cell \"{beaten[1]}\" not read as a "
                "number, whose figure would change the ranking")
    if result.op == "count_distinct" and (per := re.search(
            r"\b[^\W\d_]+-(?:months?|weeks?|years?|days?|quarters?)\b", analysis.folded)):
        # "How many site-months had spend above £35": rows of a site in a month, counted as
        # rows, not the different sites.
        return (f"the question counts rows of a thing in a period (\"{per.group(0)}\"), not "
                "its different values; say \"how many rows\"")
    if result.op == "count_distinct" and (counted := _counted_words(analysis, verbs=False)) \
            and not set(counted) & frame.attr(result.column).tokens and (value := next(
                (vm for vm in grounding.values
                 if set(counted) & {stem(w) for w in words(vm.text)}), None)):
        # "The total number of engineers across all plants": the engineers (a Role) are
        # counted, not the different plants they are in.
        return (f"the question counts {value.text}, a value of {frame.attr(value.attr).label}, "
                f"not the different {frame.attr(result.column).label}; name the column to add "
                "up, or say \"how many rows\"")
    if result.op in ("count", "count_distinct") \
            and set(grounding.unexplained_stems) & _RESULT_VERBS:
        # "How many Academy Awards did she *win*" over nominations: counting the rows would
        # count every nomination; the win is a condition no column was found for.
        return "the question counts rows won (or lost), and no column says which rows those are"
    if result.op == "count" and (parent := _counts_parent_and_part(frame, result.rows)):
        return (f"the rows counted include the group \"{parent}\" and rows under it; say "
                "whether the groups or their parts are counted")
    if result.op in ("sum", "avg", "max", "min") and \
            (parent := _counts_parent_and_part(frame, result.rows)):
        # "Average detached price in London" over London's row and its boroughs': a group's
        # figure and its parts' are of two levels, never one list to add or average.
        return (f"the rows include the group \"{parent}\" with its own figure and rows under "
                "it; say whether the group or its parts are meant")
    if result.op == "count" and (label := _counted_row_label(grounding, analysis)):
        return (f"the question counts \"{label}\", the label of a row with figures of its "
                "own: the figure is asked, not how many rows carry the label; name the column "
                "to read")
    if analysis.wh == "where" and column and frame.attr(column).measurable:
        return "the question asks where, and the column read holds numbers, not places"
    if analysis.wh in ("which", "who", "whom") and result.op in ("lookup", "multi") and \
            (analysis.superlative or _COMPARATIVE.search(analysis.folded)):
        return "the question compares values; reading one cell does not answer it"
    if (analysis.wh in ("which", "who", "whom") or _WHAT_NOUN.match(analysis.folded)) \
            and result.op == "lookup" and column \
            and frame.attr(column).measurable \
            and not set(analysis.target_words) & frame.attr(column).tokens:
        # "Which station is 21.7 km from Aldgate": a name is asked, and the number read is
        # not the one the question gives ("which year ..." reading a Year column is fine).
        return (f"the question asks which one, and the cell read is a number of "
                f"{frame.attr(column).label}")
    if analysis.wh in ("which", "who") and result.op == "lookup" and column \
            and frame.attr(column).measurable and (named := [
                a for a in frame.attrs if not a.measurable and a.key != column
                and set(analysis.target_words[:1]) & a.tokens]):
        # "Which nation ranked below Japan" read Japan's Rank: the question asks for a
        # Nation, a column of names, and a number answers no "which".
        return f"the question asks which {named[0].label}; the cell read is a number"
    if result.op in ("sum", "avg", "group_sum", "row_avg", "row_diff"):
        ids = [k for k in result.measure if _identifier(frame, frame.attr(k))]
        if ids and result.op in ("sum", "avg"):
            return (f"{frame.attr(ids[0]).label} identifies rows (ids, years, ranks); adding "
                    "or averaging it means nothing")
    if result.op in ("sum", "group_sum") and any(
            _percent_column(frame, k, result.rows)
            or (len(result.rows) > 1 or result.op == "group_sum") and _titled_percent(frame, k)
            for k in result.measure):
        # (A row's percentages over periods add up to nothing either: "total punctuality in
        # 2024" over its four quarters.)
        return "adding percentages of different totals means nothing"
    spanned = _years_spanned(frame, result) if result.op == "sum" else []
    if len(spanned) > 1 and not _ACROSS_YEARS.search(analysis.folded) \
            and not set(spanned) <= set(words(analysis.folded)):
        # "How many students did Oakwood have", one row per year: a year's figure is asked,
        # not the three years added up.
        return (f"the matching rows are of several years ({spanned[0]} to {spanned[-1]}); "
                "say which year, or \"over all years\" for their sum")
    if result.op == "avg" and len(result.rows) == 1 and \
            set(result.rows) <= profile(frame).summary_rows | total_labelled(frame) and \
            not any(_AVERAGE_WORD.search(t) for t in frame.row_paths.get(result.rows[0], ())):
        # "The average per field" that matched only the "All fields" row: the total row's
        # value is no average; the rows to average were not found. (One row whose own label
        # says "mean" or "average" is read as it is.)
        return "the one row averaged is a total row; the rows to average are not named"
    rates = [k for k in result.measure if (_RATE_LABEL.search(_stated_of(frame, k))
                                           or _RATE_NAME.search(frame.attr(k).label.replace(
                                               "_", " "))
                                           or len(result.rows) > 1
                                           and _averages_named(frame, k))
             # (One row of a column named "Combined (L/100 km)": its own cell, no sum.)
             and not (len(result.rows) == 1
                      and frame.attr(k).tokens & _OPERATION_STATED["sum"])]
    if result.op in ("sum", "group_sum") and rates:
        # "$/gal", "c/kWh", "per 1,000", "fsm_pct", a year's column under a title "funding
        # per pupil": a rate per unit does not add up, and one row's is no total.
        return (f"{frame.attr(rates[0]).label} holds a rate per unit (as the table says); "
                "adding rates up means nothing, and one is no total (ask for the average "
                "instead)")
    if result.op in ("sum", "avg") and _named_like_operation(frame.attr(result.measure[0]),
                                                             _QUANTITY_NOUNS):
        return (f"\"{frame.attr(result.measure[0]).label}\" is both the column and the operation "
                "the question names; say which amounts to add")
    if analysis.op in ("diff", "pct_change", "ratio") and result.op in ("multi", "list"):
        return "the question asks for a change or a ratio, not for the cells side by side"
    unused = _unused_years(frame, result, analysis) if result.op in ("diff", "pct_change") \
        else None
    if unused:
        return (f"the question names {unused}, but the two cells compared do not cover it; "
                "each year or period should be its own column or row")
    if result.op in ("diff", "pct_change") and result.operand_cells and frame.levels and (
            aside := next((vm.text for vm in grounding.values
                           if frame.attr(vm.attr).kind == "level"
                           and vm.attr != frame.levels[-1].key
                           and not vm.rows & {r for r, _ in result.operand_cells}), None)):
        # "The difference between Americas total revenue and EMEA total revenue" compared the
        # grand "Total revenue" with Total EMEA: the band of Americas the question names holds
        # neither cell.
        return (f"the question names \"{aside}\", which neither of the two cells compared "
                "is in; name the rows as the table does")
    denied = _denied_cell(frame, result, grounding) if not analysis.negated else None
    if denied:
        return (f"the question's words match \"{denied}\", a cell that says the opposite; "
                "the condition the question states is not one the rules can apply")
    if result.op in ("argmax", "argmin") and _compares_groups(grounding, result.answer):
        return ("the question compares groups of rows it names; ranking single rows does not "
                "answer it (the groups need adding up first)")
    if result.op in ("argmax", "argmin") and len(result.rows) < 2:
        return ("only one row matches what the question names, so there is nothing to rank; "
                "a word of the question probably names the rows to compare")
    if result.op in ("argmax", "argmin") and doubt(frame, result.rows, result.measure[0],
                                                   _holds_its_total):
        return "one of the ranked rows is the total of the others"
    if result.op in ("argmax", "max") and 2 < len(result.rows) <= _LONG_TABLE_ROWS \
            and (run := _top_adds_up_a_run(frame, result.rows, result.measure[0])):
        # "Which deferred tax asset was the largest" named "Gross deferred tax assets", the
        # sum of the seven lines above it: a subtotal no word calls one.
        return (f"the highest row, \"{run}\", is the sum of the rows above it: a subtotal, "
                "not one of them")
    if result.op == "sum" and doubt(frame, result.rows, result.measure[0], _holds_its_total):
        return "one of the rows is the total (or a subtotal) of the others"
    if result.op == "count" and analysis.count_words and (group := next(
            (m for m in grounding.attrs if m.full and len(m.attrs) >= 2
             and all(frame.attr(k).measurable for k in m.attrs)
             and any(grounding.q_words[i] == analysis.count_words[-1] for i in m.positions)),
            None)) is not None:
        # "The total number of claims" counted the models' rows beside a Claims group of
        # numbers (Powertrain, Electrical, ..., All components): the claims are its figures.
        return (f"the question counts {group.label}, which the table gives as figures in its "
                f"{group.label} columns; say which column to add up")
    if result.op == "count" and analysis.count_words and not analysis.conditions \
            and not set(analysis.count_words) & _ROWS_THEMSELVES and not any(
            not a.measurable and analysis.count_words[0] in (label := label_tokens(
                _BRACKETED.sub(" ", a.label))) and set(label) - {analysis.count_words[0]}
            <= _NAMING_WORDS for a in frame.attrs) \
            and (tally := _tally_column(frame, result.rows)) is not None:
        # "How many vehicles does UrbanBus Co have" counted its 2 rows (models) beside a
        # Fleet size (units) column: each row holds a number of vehicles. (Not where a
        # column names the rows by the noun, "how many products" over a Product column, nor
        # where a condition measures the rows: "items with a balance above 1000".)
        return (f"each row gives a number of things in {tally}; say whether to count the "
                "rows or add it up")
    if result.op in ("count", "count_distinct") and (total := _total_counted(frame, result)):
        # "Count of mines with production above 100" counting the **Group** row, which adds
        # up the mines: a total, no mine.
        return f"the rows counted include \"{total}\", the total of the others"
    if result.op in ("avg", "max") and len(result.rows) > 3 and doubt(
            frame, result.rows, result.measure[0], _holds_its_total) and \
            _ends_in_its_total(frame, result.rows, result.measure[0]):
        # (The stored doubt first: the finer check reads the columns, and only when it holds.)
        # A grand total labelled as a line ("Net revenue expenditure"): its parts' average
        # or highest is asked, which counting it among them changes.
        return (f"one of the rows is the total of the others; the {_OP_WORDS[result.op]} "
                "would count it as one of its parts")
    if result.op == "count" and _TOTAL_COUNT.search(analysis.folded):
        quantities = _quantity_columns(frame)
        if quantities:
            return (f"\"total\" may ask to add {quantities[0].label} rather than count rows; "
                    "name the column to add, or say \"how many rows\"")
    if result.op == "count" and analysis.count_words and (
            (noun := next((w for w in dict.fromkeys((analysis.count_words[0],
                                                     analysis.count_words[-1]))
                           if w in _HEADCOUNT_WORDS), None)) is not None
            or analysis.count_words[0] in _numbered_by_cells(frame)) and not any(
                a.tokens & (_PERSON_WORDS | {analysis.count_words[0], noun or ""})
                for a in frame.attrs if not a.measurable):
        # (The noun counted may follow a word that says which: "international students".)
        # "the total number of people with access ..." over rows of regions and years: no
        # row is a person, so the number is in a column, not a count of rows.
        found = re.search(r"\b(?:how many|number of)\s+(\w+(?:\s+\w+){0,3})", analysis.folded)
        said = found.group(1).split() if found else [analysis.count_words[0]]
        # To the noun counted: "international students", not "international".
        ends = [i for i, w in enumerate(said) if stem(w) == noun]
        counted = " ".join(said[:ends[0] + 1] if ends else said[:1])
        return (f"the rows of the table are not {counted}, so counting them would not give a "
                f"number of {counted}; name the column that holds it")
    if result.op in ("argmax", "argmin", "first", "last", "list") and analysis.wh == "which" \
            and analysis.target_words[-1:] and analysis.target_words[-1] in _PERSON_NOUNS \
            and result.answer_column is not None \
            and not frame.attr(result.answer_column).tokens & _PERSON_NOUNS \
            and (person := next((a for a in frame.attrs if not a.measurable
                                 and a.tokens & _PERSON_WORDS), None)) is not None:
        # "Which Green councillor received the most votes" answered with the Ward beside a
        # Winning candidate column: a councillor is a person, whom that column names.
        return (f"the question asks which {_as_written(analysis, analysis.target_words[-1])}, "
                f"a person, and the plan answers with {frame.attr(result.answer_column).label} "
                f"beside {person.label}; name the column to answer with")
    if result.op in ("lookup", "multi", "list") and (asked := _ASKED_OF.match(analysis.folded)) \
            and (head := stem(words(re.sub(r"\s+in\s+.*$", "", asked.group(1)))[-1])) \
            in grounding.unexplained_stems \
            and head not in MEASURING_UNITS and unit_forms(head) is None:
        # "Lower bound of the 95% CI for non-EU immigration" read the CI cell ("± 41"): the
        # bound is asked, which no column holds.
        return (f"the question asks for the {asked.group(1).strip()}, which no column of the "
                "table holds")
    if result.op in ("count", "count_distinct") and "%" in analysis.text \
            and not analysis.conditions and not any(
                _percent_column(frame, k, result.rows) for k in result.columns_read):
        # "How many measures are reported in %" counted every row: the "%" picks the rows
        # whose Unit is "%", which no condition here states.
        return "the question's \"%\" picks some rows, which the count does not; say which"
    if result.op == "count" and re.search(r"\bcombined\b", analysis.folded):
        return "\"combined\" asks to add numbers, not to count rows"
    if result.op in ("sum", "avg", "group_argmax", "group_argmin") \
            and 1 < len(result.rows) <= _LONG_TABLE_ROWS \
            and (merged := _one_cell_over_rows(frame, result.measure[0], result.rows)):
        # "The total attendance across all years" added each year's Attendance once per
        # stage: one cell merged down over the year's three stage rows. So would "which
        # party won the most seats" each ward's Seats, once per candidate.
        return (f"{frame.attr(result.measure[0]).label} has cells merged over several rows "
                f"({merged}); adding the rows would count each such cell once per row")
    if result.op == "avg" and len(result.rows) > 1 \
            and _RATE_LABEL.search(frame.attr(result.measure[0]).label) \
            and (own := _group_total_row(grounding)) is not None:
        # "The average yield for Victoria (all crops)" took the mean of its crops' t/ha
        # beside "Total Victoria", whose yield is the state's own: a rate of the whole is no
        # mean of its parts' rates.
        return (f"{frame.attr(result.measure[0]).label} is a rate, and \"{own}\" states the "
                "group's own; the mean of its rows' rates is another figure; say which")
    if result.op == "sum" and len(result.rows) > 1 and (said := next(
            (w for i, w in enumerate(grounding.raw_words) if stem(w) in _RATIO_STEMS
             and i not in grounding.named_positions), None)) is not None:
        # "What was the combined ratio in 2023" added every row of the 2023 column: a ratio
        # is no sum of rows, and none of them is named by it.
        return f"the question asks for a {said}, which adding up rows does not give"
    if result.op in ("sum", "avg") and doubt(frame, result.rows, result.measure[0], _nested):
        return "some of the rows are subtotals of others; adding them counts rows twice"
    if result.op in ("sum", "avg", "argmax", "argmin", "max", "min") and len(result.rows) > 2 \
            and doubt(frame, result.rows, result.measure[0], _subtotal_runs):
        return ("the rows mix groups with their members (a level of row headers the table "
                "does not mark); say which level to use")
    if result.op in ("group_sum",) and any(
            SUMMARY_LABEL.search(level) for k in result.measure if frame.attr(k).path
            for level in {naming_path(frame.attr(k).path)[-1], frame.attr(k).path[-1]}):
        # ("All" under "Private enterprise" is a total though it names no word of its own.)
        return "one of the columns to add is already a total of the others"
    if result.op == "pct_change" and any(_percent_column(frame, k, [r])
                                         for r, k in result.operand_cells):
        return "a percentage change of a percentage is ambiguous (points or relative)"
    if analysis.op == "count" and result.op == "lookup" and \
            not re.search(r"\bpercent|%", analysis.folded) and \
            (_percent_column(frame, result.column, result.rows)
             or _PERCENT_TITLE.search(frame.title or "")
             and not _COUNT_UNIT.search(frame.attr(result.column).label)):
        # (A title "share of respondents ... (percent of respondents)" says it of every cell,
        # but a column's own "(number)": "All usual residents (number)".)
        return f"{frame.attr(result.column).label} is a percentage, not a number of things"
    if result.op == "sum" and len(result.rows) >= 2 and result.measure and (
            blank := _total_left_blank(frame, result.measure[0], result.rows)) is not None:
        # "Weeks of cover for the total" added the categories' weeks: the table's Total row
        # leaves that column empty, as the figures do not add up.
        return (f"the table's {blank} row leaves {frame.attr(result.measure[0]).label} "
                "empty: its figures are not added up there")
    if result.op in ("argmax", "argmin", "max", "min") and result.measure and (
            said := _direction_in_header(frame.attr(result.measure[0]).label, result.op,
                                         analysis.folded)) is not None:
        # "Which specialty has the shortest longest wait": "longest" is Longest wait's own
        # word, and "shortest" is the direction asked.
        return (f"\"{said}\" is a word of {frame.attr(result.measure[0]).label}, and the "
                "question also says the opposite; ask for the highest or the lowest")
    if analysis.respective and result.op == "lookup" and len(result.rows) == 1:
        # "London openings and closures in FY2023 respectively" read Opened alone:
        # "closures" found no column, and one cell is no list.
        return ("the question asks for several figures, respectively, and the plan reads "
                f"one, {frame.attr(result.measure[0]).label}; name each column as the table "
                "does")
    if (plural := _plural_read_as_a_name(grounding, result)) is not None:
        # "Total capacity of London stadiums" read the London Stadium: "stadiums" is the
        # kind of row, and London is a Region.
        return (f"\"{_as_said(analysis, plural[0])}\" may name {plural[1]} or the rows of "
                f"{plural[2]}; say which")
    if result.op == "argcol" and (years := set(_YEAR.findall(analysis.folded))) and (
            unnamed := [frame.attr(k).label for k in result.measure
                        if (ys := set(_YEAR.findall(frame.attr(k).label)))
                        and not ys & years]):
        # "In which year (2020, 2021 or 2022) ... highest" compared the 1990 base year too:
        # the question names the columns to compare.
        return (f"the question names the years to compare, and the plan would compare "
                f"{unnamed[0]} too")
    if result.op == "group_sum" and _STOCK_CHANGE_VERB.search(analysis.folded) and len({
            y for k in result.measure for y in _YEAR.findall(frame.attr(k).label)}) >= 2:
        # "How many branches were closed between 2022 and 2023" added Branches 2022 and
        # Branches 2023: closing is a fall from one year to the next.
        return ("the question asks for a change between the years, and the plan would add "
                "their figures")
    if analysis.op == "sum" and result.op in ("sum", "lookup") and len(result.rows) == 1 \
            and len(result.columns_read) == 1 and _ADDS_SEVERAL.search(analysis.folded):
        # "Combined net fee income of Retail and Wealth Management" added Wealth Management
        # alone: "Retail" found no column, and one figure is no combination.
        return ("the question adds up several figures, and the plan reads one, "
                f"{frame.attr(result.columns_read[0]).label}; name each as the table does")
    if (unit_only := _named_by_its_unit_alone(grounding, result)) is not None:
        # "Sales overtime hours in May" read IT (hrs): "IT" is a stopword, and "hours"
        # alone matched the column.
        return (f"the question names only the unit of {unit_only}, not the column itself; "
                "say which column")
    negated = [m for m in re.finditer(r"\bnon[-\u2010\u2011 ]?([^\W\d_]+)", analysis.folded)
               if any(stem(m.group(1)) in frame.attr(k).tokens for k in result.columns_read)]
    if negated:
        # "Total non-penalty goals" read Penalty goals: the question asks for what the
        # column leaves out.
        return (f"\"{negated[0].group(0)}\" asks for what "
                f"{frame.attr(result.columns_read[0]).label} leaves out, which another "
                "column or an LLM would have to give")
    if result.op == "avg" and len(result.rows) == 1 and len(result.measure) == 1 \
            and (period := _PER_PERIOD.search(analysis.folded)) \
            and not (frame.attr(result.measure[0]).tokens
                     | {stem(w) for w in words(" ".join([frame.title or "", frame.row_label(
                         result.rows[0])]))}) \
            & _PERIOD_STEMS[period.group(0).split()[-1][:4]] \
            and not _ONE_PERIOD.fullmatch(frame.attr(result.measure[0]).label.strip()):
        # "Average quarterly actual sales for ready meals" averaged its FY2024 Actual, one
        # cell: the quarters' cells are the ones to average. (Not a column or a table of the
        # period's own figures: "Deaths per year", "the monthly mean in May", a row
        # "Annual average".)
        return ("the question averages over periods, and the plan would average one cell, "
                f"{frame.attr(result.measure[0]).label}")
    if result.op == "avg" and len(result.rows) == 1 and len(result.measure) == 1 \
            and not frame.attr(result.measure[0]).tokens & _MEAN_STEMS and (
            stated := next((a.label for a in frame.data_attrs if a.measurable
                            and a.key != result.measure[0]
                            and (own := {stem(w) for w in words(fold(a.label))}) & _MEAN_STEMS
                            and own - _MEAN_STEMS <= set(grounding.q_words) | _STOPWORD_STEMS),
                           None)):
        # "Average minutes per delay for Ground handling in February" averaged its one Delay
        # minutes cell beside "Avg minutes per delay", which states the average.
        return (f"an average of one cell is that cell, and {stated} states an average; "
                "say which column")
    if result.op == "avg" and result.measure and len(result.rows) > 1 and (
            said := _mean_said_by_the_column(frame, result.measure[0], grounding)) is not None:
        # "Women's mean hourly pay in the lower quartile" averaged Mean hourly pay, women
        # over the quartiles: the question's "mean" is the column's own word.
        return (f"\"{said}\" is a word of {frame.attr(result.measure[0]).label}, and the "
                "plan would average it over rows; name the row to read")
    if result.op == "avg" and result.measure and (
            stated := _stated_mean_row(frame, result, grounding)) is not None:
        # "Overall mean gender pay gap in 2023" averaged the quartiles' gaps beside a row
        # "Overall mean gap", which states it.
        return (f"the table states a row \"{stated}\", and the plan would average the "
                "other rows instead; ask for that row")
    if (noun := _ranked_noun_elsewhere(frame, result, analysis)) is not None:
        # "Smallest project by current estimate" gave the smallest estimate, and "Second
        # largest department by ..." a Dept Code: the noun names the column to answer with.
        return (f"the question asks for the {noun[0]} itself, and the plan would answer with "
                f"{noun[1]}; ask \"which {noun[0]} ...\"")
    if (unread := _named_column_unread(grounding, result)) is not None:
        # "Total fossil generation (hard coal + lignite + gas)" added Hard coal alone: the
        # question names two more columns, with words of their own, that nothing reads.
        return (f"the question also names {unread.label}, which the plan would not read; "
                "ask for one column at a time, or connect an LLM")
    return None


_HIGH_WORDS = re.compile(r"\b(?:most|highest|largest|greatest|maximum|max|biggest|longest|"
                         r"best)\b")
_LOW_WORDS = re.compile(r"\b(?:least|lowest|smallest|minimum|min|fewest|shortest|worst)\b")


def _direction_in_header(label: str, op: str, folded: str) -> str | None:
    """The superlative that set a ranking's direction when it is only a word of the ranked
    column's header ("Longest wait") and the question says the opposite one too."""
    chosen, other = (_HIGH_WORDS, _LOW_WORDS) if op in ("argmax", "max") else \
        (_LOW_WORDS, _HIGH_WORDS)
    said = chosen.findall(folded)
    header = set(chosen.findall(fold(label)))
    if said and other.search(folded) and set(said) <= header \
            and not other.search(fold(label)):
        return said[0]
    return None


_STOPWORD_STEMS = frozenset(stem(w) for w in STOPWORDS)
_PER_PERIOD = re.compile(r"\b(?:quarterly|monthly|weekly|daily|annual|yearly|per (?:quarter|month|"
                         r"week|day|year))\b")
"""An average over periods ("the average quarterly sales")."""
_PERIOD_STEMS = {p[:4]: frozenset(stem(w) for w in ws) for p, ws in (
    ("quarterly", ("quarter", "quarterly")), ("monthly", ("month", "monthly")),
    ("weekly", ("week", "weekly")), ("daily", ("day", "daily")),
    ("annual", ("annual", "year", "yearly", "annum")),
    ("year", ("annual", "year", "yearly", "annum")), ("day", ("day", "daily")))}
"""The words a column's header would say a period's rate with ("Deaths per year")."""
_ONE_PERIOD = re.compile(rf"{MONTH_LABEL.pattern}|q[1-4](?:[\s'-]*\d{{2,4}})?", re.IGNORECASE)
"""A column headed by one month or quarter: its cell is that period's figure."""
_EXTREME_WORD = re.compile(r"(?<![\d.])(?<![\d.]\s)\b(min|max)(?:imum)?\b")
_EXTREME_FORMS = {"min": {"min", "minimum", "lowest"}, "max": {"max", "maximum", "highest"}}
"""A minimum or maximum said in a question, and the words a header says it with."""


_GAP = re.compile(r"\bgap\b")


def _bracketed_unit(label: str) -> str | None:
    """The unit a header states in brackets ("GMV (USD m)": "usd m"), folded; None without,
    or when the brackets hold a note rather than a unit ("2018 (restated)")."""
    found = [u for u in re.findall(r"\(([^()]{1,20})\)", label) if UNIT_IN_BRACKETS.search(u)]
    return " ".join(found[-1].lower().split()) if found else None


def _units_differ(frame: Frame, keys: list[str]) -> bool:
    """Whether columns state different units: two units, or a unit beside a column of another
    name stating none ("Day rate (USD k)" and "Days on contract"; not "2019 (dollars in
    thousands)" and "2018", one measure over years)."""
    units = {k: _bracketed_unit(frame.attr(k).label) for k in keys}
    stated = {u for u in units.values() if u}
    if len(stated) > 1:
        return True
    def name(k: str) -> frozenset[str]:
        return frozenset(w for w in words(fold(re.sub(r"\([^()]*\)", " ", frame.attr(k).label)))
                         if not w.isdigit())
    bare = [k for k, u in units.items() if not u]
    return bool(stated) and bool(bare) and all(name(k) for k in keys) and len(
        {name(k) for k in keys}) > 1


UNIT_IN_BRACKETS = re.compile(
    r"(?:usd|gbp|eur|chf|jpy|[$£€¥%]|\b(?:thousands?|millions?|billions?|k|m|bn|mn|days?|hours?|"
    r"hrs|weeks?|months?|years|tonnes?|t|kg|km|mw|gwh|twh|units?|count|number)\b)", re.IGNORECASE)
"""Words of a bracketed unit ("USD m", "%", "days"), not of a note ("restated", "a")."""


def _as_written(analysis: Analysis, word_stem: str) -> str:
    """A stemmed question word as the question writes it ("type" for "typ")."""
    written = re.search(rf"\b{re.escape(word_stem)}\w*", analysis.text, re.IGNORECASE)
    return written.group(0) if written else word_stem


def _asked_kind_elsewhere(frame: Frame, answer: str, noun: str) -> tuple[str, str] | None:
    """(the noun, a column) when the head noun of "which X" is the last word of a column of
    labels other than the one answered with, and no word of that one."""
    if noun in frame.attr(answer).tokens:
        return None
    for a in frame.attrs:
        label = label_tokens(_BRACKETED.sub(" ", a.label))
        if a.key != answer and not a.measurable and label and label[-1] == noun:
            return noun, a.label
    return None


def _words_about(frame: Frame, *, notes: bool) -> set[str]:
    """The stems of the words the table says about itself: its title, sheet and file name
    (split at "_", "-" and "."), and its notes when asked."""
    about = [frame.title, frame.sheet, frame.file_name, *(frame.notes if notes else [])]
    return {stem(w) for w in words(re.sub(r"[_\-.]", " ", " ".join(filter(None, about))))}


def _unnamed_kind_over_bands(frame: Frame, result: Plan, analysis: Analysis) -> str | None:
    """The noun of "which X" when the plan answers with a row label of a table whose rows
    sit under bands with totals of their own, from a level that is unnamed (or named, and
    not X), and no header, title, sheet, file name or note of the table says X."""
    if analysis.wh != "which" or not analysis.target_words or result.answer_column is None \
            or result.answer_column not in {a.key for a in frame.levels} \
            or not any(len(path) > 1 for path in frame.row_paths.values()):
        return None
    if len(analysis.target_words) != 1:
        return None  # "which *rail* line": a band named, whose rows are asked
    noun = analysis.target_words[0]
    said = _words_about(frame, notes=True)
    # (A band's own label says it too: "which language" under LANGUAGES asks its rows.)
    bands = {stem(w) for path in set(frame.row_paths.values()) for level in path[:-1]
             for w in words(level)}
    if noun in said | bands or any(noun in a.tokens for a in frame.attrs):
        return None
    named = [a.key for a in frame.levels if not _UNNAMED_LEVEL.fullmatch(a.label)]
    if named and (result.answer_column not in named or len(named) == len(frame.levels)):
        return None  # a level the table names ("Region"): the other words name the other
    # (The answer a named level, "Subject" under unnamed bands, which the noun does not
    # name: "which band" asks the other level.)
    # (Only where the bands state their own figures, "Sciences subtotal" or "Total Office"
    # in a column beside codes: then a band is as likely asked as a row.)
    if len(total_labelled(frame) | profile(frame).summary_rows) < 2:
        return None
    return _as_written(analysis, noun)


def _ranked_noun_elsewhere(frame: Frame, result: Plan, analysis: Analysis
                           ) -> tuple[str, str] | None:
    """The noun right after a ranking's superlative ("largest *department*") when it names a
    column of labels the plan does not answer with: (the noun, what the plan answers with)."""
    if result.op not in ("argmax", "argmin", "max", "min"):
        return None
    m = (_HIGH_WORDS if result.op in ("argmax", "max") else _LOW_WORDS).search(analysis.folded)
    after = re.findall(r"[^\W_]+", analysis.folded[m.end():])[:1] if m else []
    if not after or after[0] in STOPWORDS:
        return None
    noun = stem(after[0])
    following = re.findall(r"[^\W_]+", analysis.folded[m.end():])[1:2]
    if following and any(stem(following[0]) in frame.attr(k).tokens for k in result.measure):
        return None  # "the largest unit capacity": "unit" qualifies the column's own word
    labels = [a for a in frame.attrs if not a.measurable and noun in a.tokens]
    if not labels or any(a.measurable and noun in a.tokens for a in frame.data_attrs):
        return None
    answer = result.answer_column
    if answer is None:
        return after[0], "a number"
    if noun in frame.attr(answer).tokens:
        return None
    label = frame.attr(answer).label
    return after[0], label if label != "row" else "the row's first label"


_SHARE_OF_ONE_TOTAL = re.compile(r"\bshare\b|\bof (?:the )?(?:\w+ )?total\b")
"""A column of shares of one whole ("Share of 2023 total (%)"): its figures add up."""


_STOCK_CHANGE_VERB = re.compile(r"\b(?:closed|opened|lost|gained|cut|added|removed|increased|"
                          r"decreased|grew|fell|rose|dropped|declined|shrank|changed)\b")
"""Verbs of a change from one period to the next."""
_ADDS_SEVERAL = re.compile(r"\b(?:combined|together|altogether)\b.*\band\b|\band\b.*\b(?:in total|"
                           r"combined|together|altogether)\b")
"""Words saying figures of things joined by "and" are added together ("combined ... of A
and B", "A and B in total"); "across both months" adds the tables, each one figure."""


def _named_by_its_unit_alone(grounding: Grounding, result: Plan) -> str | None:
    """The label of a column read that the question matched by unit words alone ("hours" of
    "IT (hrs)") while the header has other words the question does not say."""
    frame = grounding.frame
    raw = grounding.raw_words or grounding.q_words
    asked = {fold(w) for w in raw}
    units = _UNIT_WORDS | set(_UNIT_FORMS) | {"hours", "hour", "hrs"}
    for m in grounding.attrs:
        if len(m.attrs) != 1 or m.attrs[0] not in result.columns_read or not m.positions:
            continue
        said = {fold(raw[i]) for i in m.positions if i < len(raw)}
        label = frame.attr(m.attrs[0]).label
        own = [w for w in words(fold(label)) if w not in units]
        # (A unit only one column states still names it: "how many days" of Duration (days).)
        unit_of = {w for w in words(fold(label)) if w in units}
        shared = any(a.key != m.attrs[0] and a.measurable
                     and unit_of & set(words(fold(a.label))) for a in frame.data_attrs)
        if said <= units and own and not set(own) & asked and shared:
            return label
    return None


def _plural_read_as_a_name(grounding: Grounding, result: Plan
                           ) -> tuple[str, str, str] | None:
    """A value read whose match takes a plural of the question for its singular ("London
    *stadiums*" for "London Stadium") when the question's other words of it are a value of
    another column ("London", a Region): (the phrase, the value, the other value)."""
    frame = grounding.frame
    raw = grounding.raw_words or grounding.q_words
    if frame.row_count > 5_000:
        return None
    read = set(result.rows)
    for vm in grounding.values:
        if len(vm.positions) < 2 or not vm.rows & read:
            continue
        said = {i: raw[i] for i in sorted(vm.positions) if i < len(raw)}
        plural = [i for i, w in said.items() if w.endswith("s") and w[:-1] in fold(vm.text)
                  and not re.search(rf"\b{re.escape(w)}\b", fold(vm.text))]
        rest = " ".join(w for i, w in said.items() if i not in plural)
        if len(plural) != 1 or not rest:
            continue
        other = next((v.text.strip() for (_, key), v in frame.text_cells()
                      if key != vm.attr and fold(v.text.strip()) == rest), None)
        if other is not None:
            return " ".join(said.values()), vm.text, f"{other}"
    return None


def _mean_said_by_the_column(frame: Frame, key: str, grounding: Grounding) -> str | None:
    """The question's one word for a mean when the averaged column's own label says it
    ("Mean hourly pay, women (£)"): the question names the column, not an average of it."""
    said = [i for i, w in enumerate(grounding.q_words) if w in _MEAN_STEMS]
    if len(said) == 1 and grounding.q_words[said[0]] in frame.attr(key).tokens:
        raw = grounding.raw_words or grounding.q_words
        return raw[said[0]] if said[0] < len(raw) else grounding.q_words[said[0]]
    return None


def _stated_mean_row(frame: Frame, result: Plan, grounding: Grounding) -> str | None:
    """The label of a summary row outside the rows averaged that says it is a mean (or an
    average) and shares another word with the question ("Overall mean gap"), with a figure
    in the averaged column."""
    key = result.measure[0]
    asked = set(grounding.q_words) - _MEAN_STEMS
    if any(not a.measurable and (label := words(fold(a.label))) and stem(label[-1]) in asked
           for a in frame.attrs):
        return None  # "the average of the four quartile pay gaps": the rows, named
    averaged = set(result.rows)
    for row in sorted(profile(frame).summary_rows | total_labelled(frame)):
        if row in averaged or (cell := frame.value(row, key)) is None or not cell.measurable:
            continue
        for attr in frame.attrs:
            text = frame.value(row, attr.key) if not attr.measurable else None
            tokens = {stem(w) for w in words(text.text)} if text is not None else set()
            if tokens & _MEAN_STEMS and tokens & asked:
                return text.text.strip()
    return None


def _total_left_blank(frame: Frame, key: str, rows: list[int]) -> str | None:
    """The label of the table's one total row, outside the rows added, that leaves this
    column empty (or marks it as no figure) while giving figures in other columns."""
    totals = _grand_total(frame, set(total_labelled(frame))) - set(rows)
    if len(totals) != 1:
        return None
    total = next(iter(totals))
    cell = frame.value(total, key)
    if cell is not None and not NO_FIGURE.fullmatch(cell.text.strip()):
        return None
    if not any((v := frame.value(total, a.key)) is not None and v.measurable
               for a in frame.data_attrs if a.key != key and a.measurable):
        return None
    return frame.row_label(total)


def _named_column_unread(grounding: Grounding, result: Plan) -> AttrMatch | None:
    """A column of numbers beside the one a sum, average or lookup reads (under the same
    group) that the question names in full, by a word no other match explains, and that the
    plan neither computes on, answers with nor filters by."""
    frame = grounding.frame
    if result.op not in ("sum", "avg", "lookup", "list"):
        return None
    read = {*result.columns_read, *(k for f in result.filters for k in f.columns)}
    if result.answer_column:
        read.add(result.answer_column)
    groups = {frame.attr(k).path[:-1] for k in result.measure if len(frame.attr(k).path) > 1}
    covered = {p for m in grounding.attrs if set(m.attrs) & read for p in m.positions}
    covered |= {p for v in grounding.values for p in v.positions}
    for m in grounding.attrs:
        if not m.full or set(m.attrs) & read or not m.positions - covered \
                or not all(frame.attr(k).measurable for k in m.attrs):
            continue
        # A list of rows reads no figure: a column or group of figures the question names
        # ("departments that had *NHMRC grants*") is a condition it left out.
        if result.op == "list" or len(m.attrs) == 1 \
                and frame.attr(m.attrs[0]).path[:-1] in groups:
            return m
        # "The Northeast total for Grades 4-6" added Total, all grades beside Primary >
        # Grades 4-6: a total column read where the question names one of its parts.
        if result.op in ("sum", "avg") and len(m.attrs) == 1 and len(result.measure) == 1 \
                and TOTAL_LABEL.search(frame.attr(result.measure[0]).label) \
                and not TOTAL_LABEL.search(frame.attr(m.attrs[0]).label) \
                and frame.attr(m.attrs[0]).tokens & frame.attr(result.measure[0]).tokens:
            return m
        # (A lookup's rival header sharing a word with it: "protected land area in km²"
        # read Land area (km²) beside Protected land (km²).)
        if result.op == "lookup" and len(m.attrs) == 1 and frame.attr(m.attrs[0]).tokens \
                & frame.attr(result.measure[0]).tokens - _UNIT_TOKENS:
            return m
    return None


_UNIT_TOKENS = frozenset(stem(w) for w in split_words("km km2 sq m ha hrs usd gbp eur"))
"""Unit words two headers may share without naming the same thing."""


_LIST_THE = re.compile(r"\s*(?:list|name)\s+(?:all\s+)?(?!(?:the\s+)?(?:values?|figures?|"
                       r"amounts?|numbers?)\b)(?:the\s+)?[^\W\d_]+")
"""A question that asks for rows by name ("List the districts where ...")."""


_COMPARATIVE = re.compile(r"\b(?:more|less|fewer|higher|lower|greater|larger|smaller|bigger|"
                          r"most|least|highest|lowest|largest|smallest)\b")


_FORMULA = re.compile(r"\([^()]*[^\W\d_]{2,}\s+(?:/|÷|\bdivided by\b|\btimes\b|\*)\s+"
                      r"[^\W\d_]{2,}[^()]*\)")
"""A formula over named figures in parentheses ("(total hours / total headcount)"), not a
unit ("(USD/ha)")."""
_RANKED_LIST = re.compile(
    r"^\s*(?:rank|order|sort)\s+(?:the\s+|all\s+)?[^\W\d_]+(?:\s+[^\W\d_]+)?\s+by\b|\b(?:two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+"
    r"(?:[^\W\d_]+\s+){1,3}(?:with|that|which|having)\s+(?:had\s+|has\s+|have\s+)?(?:the\s+)?"
    r"(?:most|least|highest|lowest|largest|smallest|biggest|fewest|greatest|best|worst)\b")
"""An ordered list asked for: "Rank the ... by", "the three subjects with the most ..."."""
_POSITIONAL_SUBSET = re.compile(
    r"\b(?:first|last|top|bottom|past|previous|next|final|latest|earliest)\s+(?:two|three|four|"
    r"five|six|seven|eight|nine|ten|twelve|\d{1,2})\b(?!\s*(?:%|percent|st|nd|rd|th)\b)")
""""the first three months", "top 5 players": the rows are a slice of an order the rules do
not restate, so any aggregate over the matching rows would take them all."""


def _unsupported(analysis: Analysis, grounding: Grounding) -> str | None:
    """What the question asks that the rules cannot restate, so that any plan would answer
    another question (or None)."""
    if analysis.explanation:
        return "the question asks for a reason, which the cells do not state"
    if analysis.compound:
        return "the question asks two things at once; ask them one at a time offline"
    if analysis.negated:
        return "a negated condition (not, no, without) needs an LLM"
    if analysis.relative:
        return "comparing with a named row (\"more than X\", \"the same as X\") needs an LLM"
    if _FORMULA.search(analysis.folded):
        # "the average hours per volunteer (total hours / total headcount)": a formula over
        # columns, which the rules do not restate.
        return "the question gives a formula over the cells, which needs an LLM"
    # "The three largest", "the top three countries for arrivals": a top three the ranking
    # names (`top_count`), no slice of an order.
    top_named = analysis.top > 1 and analysis.op in ("argmax", "argmin")
    if not top_named and _RANKED_LIST.search(analysis.folded):
        # "Rank the languages by entries", "the three subjects with the most entries": an
        # ordered list of several rows, which the rules would cut to the first.
        return "the question asks for several rows in order, which needs an LLM"
    if not top_named and _POSITIONAL_SUBSET.search(analysis.folded):
        return ("a subset of rows by position (\"the first three\", \"top 5\") needs an LLM "
                "to say what the order is")
    if _asks_arithmetic(analysis, grounding):
        return ("the question asks for arithmetic on the cells (a part left out, a remainder, "
                "a multiple), which the offline rules do not restate; connect an LLM in Settings")
    if _BEATS.search(analysis.folded):
        # "How many asset classes beat their benchmark", "by how much did overseas equities
        # outperform the benchmark": one figure against another, row by row, which the rules
        # would read as one of them.
        return "comparing one figure with another (beat, outperform) needs an LLM"
    if _AGAINST_AVERAGE.search(analysis.folded):
        return "a comparison with the average needs the average first, which needs an LLM"
    if _TIME_BETWEEN.search(analysis.folded):
        return "the time between two dates is a difference of dates, which needs an LLM"
    named_at = grounding.named_positions
    if not analysis.conditions and any(_SIGN_WORD.fullmatch(w) and i not in named_at
                                       for i, w in enumerate(grounding.raw_words)):
        # "How many sources have a negative change": a condition on the sign, which no
        # condition here restates; counting or adding without it answers another question.
        return "a condition on the sign (negative, positive) needs an LLM"
    if _ONLY_ONE.search(analysis.folded):
        return ("\"only\" needs a check that no other row (or value) qualifies, which needs "
                "an LLM")
    if analysis.yes_no and _either_or(grounding) is None:
        return "a yes/no question needs an LLM to check the claim against the cells"
    return _unstated_rate(analysis, grounding)


_BEATS = re.compile(r"\b(?:beat|beats|beaten|outperform\w*|underperform\w*|outpac\w*|"
                    r"outstrip\w*|lagg?(?:ed|ing|s)?\s+(?:behind\s+)?(?:the|their|its)\b)")
"""Verbs comparing one figure with another ("beat their benchmark", "outperformed")."""

_SIGN_WORD = re.compile(r"(?:negative|positive)(?:ly)?")

_ARITHMETIC = re.compile(r"\b(?:minus|plus|double|doubled|twice|triple|tripled|thrice|halved|"
                         r"half of|apart from|besides|other than|not counting|excluding|except|"
                         r"left over|(?:is|are|have|has|was|were|remains?) left|left (?:of|in|"
                         r"for|over)|balance left|budget balance)\b|"
                         r"\bless (?:the |total |[a-z]+(?: [a-z]+)?'s\b)|"
                         r"\b(?:revenues?|income|sales|budget|costs?|expenses?|profits?|amount|"
                         r"assets|liabilities|price)\s+less\s+(?!than\b)\w")
""""Revenue less expenses", "the budget left", "twice X", "besides Licensing": arithmetic
or an exclusion on the cells, which a plan reading the named cell would silently drop."""
def _asks_arithmetic(analysis: Analysis, grounding: Grounding) -> bool:
    """Whether the question asks arithmetic (`_ARITHMETIC`) in its own words: not inside a
    label it names ("Resource DEL *excluding* depreciation"), quoted or not."""
    spans = word_spans(analysis.folded)
    for m in _ARITHMETIC.finditer(analysis.folded):
        inside = [i for i, (a, b) in enumerate(spans) if a < m.end() and b > m.start()]
        if not inside or not all(i in grounding.explained for i in inside):
            return True
    return False


_AGAINST_AVERAGE = re.compile(r"\b(?:above|below|over|under|than)[- ](?:the )?average\b|"
                              r"\b(?:above|below)-average\b")
""""Reps with above-average revenue": the average is a step before the comparison."""
_TIME_BETWEEN = re.compile(r"\bhow (?:many (?:days|weeks|months|years|hours|minutes)|long|much "
                           r"time)\b[^?]*\bbetween\b[^?]*\band\b")
""""How many days between the start of A and the end of B": dates subtracted, which no
duration cell states."""
_ONLY_ONE = re.compile(r"\bthe only one\b|\bonly (?:in|on|at|by|for|from|with|within)\b")
""""The only one", "only in Russia": no other row (or no other value in the row) may
qualify, which a filter on the named value does not check."""


_GROWTH_RATE = re.compile(r"\b(?:growth|change|increase|decrease|decline)\s+rates?\b|"
                          r"\brates?\s+of\s+(?:growth|change|increase|decrease|decline)\b")
_RATE = re.compile(r"\brates?\b")


_NAMED_RATE = re.compile(r"\b([^\W\d_]+)\s+rates?\b")
"""A rate named by the word before it ("churn rate", "occupancy rate")."""


def _rate_in_percents(grounding: Grounding, folded: str) -> bool:
    """Whether "the churn rate", "the occupancy rate" names a measure the table gives in
    percentages: its word is the table's or its title's ("Occupancy (%)", "Monthly churn
    rate (%)"), and it has percentages."""
    frame = grounding.frame
    titled = {stem(w) for w in words(fold(frame.title or ""))}
    named = [m.group(1) for m in _NAMED_RATE.finditer(folded)
             if m.group(1) not in STOPWORDS and (grounding.in_table(stem(m.group(1)))
                                                 or stem(m.group(1)) in titled)]
    return bool(named) and _has_percentages(frame)


def _has_percentages(frame: Frame) -> bool:
    """Whether the table gives percentages: by its title, a header's "%" or the first rows of
    its columns."""
    return "%" in (frame.title or "") or any(
        "%" in a.label or _percent_column(frame, a.key, frame.rows[:20])
        for a in frame.data_attrs[:PERCENT_LOOKS])


PERCENT_LOOKS = 60
"""Columns whose first rows are read for percentages (`_rate_in_percents`)."""


def _unstated_rate(analysis: Analysis, grounding: Grounding) -> str | None:
    """A rate the table does not state: "the income tax *rate*" where the table has only
    amounts, or "revenue *per employee*" where employees are a row of their own. The named
    cells would answer the amount, not the rate; dividing one by the other is a choice of
    operands that needs an LLM (the share and ratio questions say their operands)."""
    if analysis.op == "ratio":
        return None
    folded = analysis.folded
    if _RATE.search(_GROWTH_RATE.sub(" ", folded)) and \
            not grounding.in_table("rate") and not _rate_in_percents(grounding, folded):
        if _has_percentages(grounding.frame):
            # (The table's percentages may well hold the rate, "Unemployed > Percent of
            # labor force": its name is what the question does not give.)
            return ("the question asks for a rate, and no column of the table is named for "
                    "it; say which percentage column to read")
        return ("the question asks for a rate, and the table states no rate; computing one "
                "needs an LLM")
    # "Earnings per share" as a column's or a named row's own name is no division to do.
    # So is "per pupil" when the title says the table's figures are ("funding per pupil").
    frame = grounding.frame
    labels = " ".join([fold(" ".join(a.path)) for a in frame.attrs]
                      + [fold(v.text) for v in grounding.values]
                      + [fold(t) for t in (frame.title, *frame.notes) if t])
    for word in _PER.findall(folded):
        if analysis.op == "avg" and any(stem(word) in a.tokens and not a.measurable
                                        for a in grounding.frame.attrs):
            continue  # "the average passengers per flight": checked with the plan's rows
        # ("per billion" is the header's "per bn".)
        forms = [word, *(short for short, long in ABBREVIATIONS.items() if long == (word,))]
        if word != "cent" and not any(re.search(rf"\bper\s+{re.escape(form)}", labels)
                                      for form in forms) and \
                stem(word) not in grounding.unexplained_stems:
            return (f"\"per {word}\" asks for a division by {word}, which the offline rules do "
                    "not do; connect an LLM in Settings")
    return None


# --- rows ---------------------------------------------------------------------------------------

_SPAN_JOINS = (["to"], ["through"], ["thru"], ["until"], ["till"])


def _row_span(grounding: Grounding) -> tuple[list[ValueMatch], list[int]] | None:
    """"From March to May", "between March and May" over rows that are periods: the two
    values naming the ends (one row each, of one column) and the rows from the first to the
    second in the sheet's order, summary rows left out, each a period. None otherwise, or
    when the second comes before the first."""
    frame = grounding.frame
    singles = sorted((vm for vm in grounding.values if len(vm.rows) == 1),
                     key=lambda vm: min(vm.positions))
    if len(singles) != 2 or singles[0].attr != singles[1].attr or \
            frame.attr(singles[0].attr).measurable:
        return None
    first, second = singles
    joins = [grounding.q_words[i] for i in range(max(first.positions) + 1,
                                                 min(second.positions))]
    start = min(first.positions)
    before = grounding.q_words[start - 1] if start > 0 else ""
    if joins not in _SPAN_JOINS and not (joins == ["and"] and before == "between"):
        return None
    start, end = next(iter(first.rows)), next(iter(second.rows))
    if frame.rows.index(end) - frame.rows.index(start) < 2:
        return None
    rows = _period_rows(frame, first.attr, start, end)
    return None if rows is None else ([first, second], rows)


def _period_rows(frame: Frame, attr: str, start: int, end: int) -> list[int] | None:
    """The rows from `start` to `end` in the sheet's order (either way), summary rows left
    out, when each names a period in `attr` ("March", "Apr 2024", "2023"); else None."""
    order = list(frame.rows)
    i, j = order.index(start), order.index(end)
    step = 1 if j >= i else -1
    skipped = profile(frame).summary_rows | total_labelled(frame)
    rows = [r for r in order[i:j + step:step] if r not in skipped]
    if all((v := frame.value(r, attr)) is not None and names_a_time(v.text) for r in rows):
        return rows
    return None


def _filter_rows(grounding: Grounding, analysis: Analysis
                 ) -> tuple[list[int], list[Filter], str | None]:
    """Apply the values and conditions the question names; return the rows and the filters
    (or why a condition cannot be applied)."""
    frame = grounding.frame
    # The rows a value names are data rows: only a question that names none reads them all.
    named: set[int] | None = None
    filters: list[Filter] = []
    by_attr: dict[str, list[ValueMatch]] = {}
    asked = set(analysis.target_words[:1]) | set(analysis.count_words[-1:])
    values, problem = _one_column_per_phrase(grounding)
    if problem:
        return [], [], problem
    bounds = _year_bounds(grounding, analysis)
    facts = profile(frame)
    if analysis.op not in ("diff", "pct_change") and (span := _row_span(grounding)) is not None:
        # "Total sales from March to May" over a row per month: the months from one to the
        # other, not the two ends.
        ends, between = span
        values = [vm for vm in values if vm not in ends]
        named = set(between)
        filters.append(Filter(column="_row", op="in", values=sorted(between)))
    for vm in values:
        if (vm.attr, year_of(vm.text)) in bounds:
            # "after 2011" over rows labelled by year: 2011 is the condition's bound, not a
            # row to keep (so is each end of "between 2011 and 2013").
            continue
        if {grounding.q_words[p] for p in vm.positions} <= asked and \
                vm.rows <= (facts.summary_rows - facts.section_heads) | total_labelled(frame):
            # "Which *field* had the most ...": the noun asked for, matching only the "All
            # fields" total row, names what is ranked, not a row to keep.
            continue
        by_attr.setdefault(vm.attr, []).append(vm)
    if analysis.op not in ("diff", "pct_change"):
        for attr, matches in by_attr.items():
            selected = set().union(*(m.rows for m in matches))
            named = selected if named is None else named & selected
            if not all(m.exact for m in matches) or any(_dates_named(frame, attr, m)
                                                         for m in matches):
                # Some cells list the value among others, or are the dates a month names
                # ("June 2025" over three dates): SQL cannot restate that with "=".
                filters.append(Filter(column="_row", op="in", values=sorted(selected)))
                continue
            stored = [_stored_value(frame, attr, m) for m in matches]
            if len({type(v) for v in stored}) > 1:
                if analysis.op in ("count", "count_distinct"):
                    # "How many unemployed *women* were there in *2021*" over a Year column
                    # whose band rows say Men and Women: counting the rows of either counts
                    # a band and a year together, which nobody asks.
                    return [], [], (f"\"{matches[0].text}\" and \"{matches[1].text}\" are "
                                    f"both read in {frame.attr(attr).label}, one a label and "
                                    "one a figure; the rows to count are not said")
                # A year and a label in one column ("2026" and "Total principal payments"):
                # no one type of SQL value lists both; the rows are the filter.
                filters.append(Filter(column="_row", op="in", values=sorted(selected)))
                continue
            filters.append(Filter(column=attr, op="in", values=stored)
                           if len(matches) > 1 else
                           Filter(column=attr, op="=", value=stored[0]))
    # The data rows come in order, each once: no set of a tall table's 20,000 to sort again.
    rows = frame.rows if named is None else sorted(named)
    for cond in _row_conditions(frame, analysis):
        attr = _condition_attr(grounding, cond)
        if attr is None:
            # In the question's own words: "> 2023" read as if the user wrote a comparison
            # when they wrote "over 2023".
            said = analysis.folded[cond.span[0]:cond.span[1]].strip()
            return [], [], (f"\"{said}\" reads as a condition on a number, and the question "
                            "does not say which column it applies to")
        if _rank_direction(frame, attr, analysis.folded[cond.span[0]:cond.span[1]]):
            return [], [], (f"\"{analysis.folded[cond.span[0]:cond.span[1]].strip()}\" on "
                            f"{attr.label}, a rank, may mean a larger or a smaller number")
        if cond.scaled and any(v is not None and v.scale for v in
                               frame.values_of(attr.key, frame.rows[:5])):
            # "over 6 million" against a column written in millions ("9.6"): the cells are
            # compared as written, which the multiplied number is not.
            return [], [], (f"{attr.label} is written in a scale of its own; give the number "
                            "as the column writes it")
        if not cond.on_year:
            rows = [r for r in rows if _satisfies(frame.value(r, attr.key), cond)]
            filters.append(Filter(column=attr.key, op=cond.op, value=cond.number,
                                  high=cond.high))
            continue
        years = dict(zip(frame.rows, frame.values_of(attr.key, frame.rows), strict=True))
        rows = [r for r in rows if _satisfies(years.get(r), cond)]
        if any(v is not None and v.number is None and year_of(v.text) for v in years.values()):
            # Years written as text ("2012 r/", a row label) are none to SQL: the rows are
            # restated.
            filters.append(Filter(column="_row", op="in", values=list(rows)))
        else:
            filters.append(Filter(column=attr.key, op=cond.op, value=cond.number,
                                  high=cond.high))
    return list(rows), filters, None


def _row_conditions(frame: Frame, analysis: Analysis) -> list[Condition]:
    """The question's conditions that choose rows: not the years of a pair ("the change
    between 2018 and 2019" where years are columns, or any difference between two years)."""
    kept = []
    for cond in analysis.conditions:
        if cond.on_year and cond.op == "between" and _year_column(frame) is None \
                and len(_year_columns(frame)) >= 2 and _years_are_columns(frame, cond):
            continue  # "the change between 2018 and 2019" where years are columns: a pair
        if cond.on_year and cond.op == "between" and analysis.op in ("diff", "pct_change"):
            continue  # a difference "between 2000 and 2010" names its two years, not a range
        kept.append(cond)
    return kept


def _year_bounds(grounding: Grounding, analysis: Analysis) -> set[tuple[str, int]]:
    """The columns and years that bound a condition on years ("after 2011", "between 2011
    and 2013"), each with the column the condition applies to."""
    bounds = set()
    for cond in _row_conditions(grounding.frame, analysis):
        if cond.on_year and (attr := _condition_attr(grounding, cond)) is not None:
            bounds |= {(attr.key, int(n)) for n in (cond.number, cond.high) if n is not None}
    return bounds


def _ranged_by_years(grounding: Grounding, analysis: Analysis) -> bool:
    """Whether "between 2011 and 2013" chose the rows as a range of a column of years (all
    three years), so the span its ends name is taken whole."""
    return any(cond.op == "between" for cond in _row_conditions(grounding.frame, analysis)
               if cond.on_year) and bool(_year_bounds(grounding, analysis))


def _dates_named(frame: Frame, key: str, match: ValueMatch) -> bool:
    """Whether a match is a period over dates of different days ("June 2025"). Different
    texts under one phrase of another kind ("DC- siRNA -TNF" and "DC- siRNA + TNF") are two
    values the words do not tell apart, and stay filtered by the one text, so that the SQL
    step disagrees and nothing is answered."""
    rows = sorted(match.rows)
    if any(v.date is None and parse_value(v.text).date is None
           for v in frame.read_alone(key, rows[:1]).values()):
        # A cell that is no date answers it ("East"): the column is not read whole for the
        # rest (1.5 s of CPU for a column of 896,563 rows, of which 224,619 say "East").
        return False
    values = [v for v in frame.values_of(key, rows) if v is not None]
    # (A row label is kept as text: "Jan 2023" is read as the date it writes.)
    return len({v.text for v in values}) > 1 and all(
        v.date is not None or parse_value(v.text).date is not None for v in values)


def _one_column_per_phrase(grounding: Grounding) -> tuple[list[ValueMatch], str | None]:
    """The value matches, each phrase of the question in one column: "June 2025" found in
    Start and in End is the End's when the question says "end", else it is refused; kept in
    both, the rows would have to start and end in June. A text found in several text
    columns ("Paris" as a city and as a team) keeps its old reading: one filter per column."""
    frame = grounding.frame
    by_phrase: dict[frozenset[int], list[ValueMatch]] = {}
    for vm in grounding.values:
        by_phrase.setdefault(vm.positions, []).append(vm)
    kept: list[ValueMatch] = []
    words_said = set(grounding.q_words)
    named_columns = {m.attrs[0] for m in grounding.attrs if m.full and len(m.attrs) == 1}
    for matches in by_phrase.values():
        columns = {vm.attr for vm in matches}
        dated = [k for k in columns if frame.attr(k).kind == "data" and _holds_dates(frame, k)]
        if len(columns) >= 2 and len(named := [k for k in columns if k in named_columns]) == 1:
            # "How many pole positions did Lewis Hamilton have", his name also under Winning
            # driver: the column the question names holds the phrase; kept in both, the
            # rows would be the poles he also won.
            kept.extend(vm for vm in matches if vm.attr == named[0])
            continue
        if len(columns) >= 2 and len(dated) < 2 and (kin := _kin_columns(frame, columns)):
            # "Labour" under Previous party and Winning party: one kind of value in two
            # columns, which the question names by the words that tell them apart, or not.
            said = [k for k in kin if _own_words(frame, k, kin) & words_said]
            if len(said) != 1:
                source = grounding.raw_words or grounding.q_words
                phrase = " ".join(source[p] for p in sorted(matches[0].positions))
                labels = " and ".join(frame.attr(k).label for k in sorted(kin))
                return [], f"\"{phrase}\" is a value of {labels}; say which one the question means"
            kept.extend(vm for vm in matches if vm.attr == said[0] or vm.attr not in kin)
            continue
        if len(columns) < 2 or len(dated) < 2:
            kept.extend(matches)
            continue
        said = [k for k in dated if frame.attr(k).tokens & words_said]
        if len(said) != 1:
            labels = " and ".join(frame.attr(k).label for k in sorted(dated))
            source = grounding.raw_words or grounding.q_words
            phrase = " ".join(source[p] for p in sorted(matches[0].positions))
            return [], (f"\"{phrase}\" is a date of {labels}; say which one the question "
                        "means")
        kept.extend(vm for vm in matches if vm.attr == said[0] or vm.attr not in dated)
    return kept, None


def _kin_columns(frame: Frame, columns: set[str]) -> list[str]:
    """The text columns among these whose headers share a word ("Previous party", "Winning
    party"): columns of one kind of value."""
    text = [k for k in columns if not frame.attr(k).measurable and frame.attr(k).kind == "data"]
    return sorted(k for k in text if any(frame.attr(k).tokens & frame.attr(o).tokens
                                         for o in text if o != k))


def _own_words(frame: Frame, key: str, kin: list[str]) -> set[str]:
    """The words of a column's header that its kin columns' headers lack."""
    return set(frame.attr(key).tokens) - set().union(
        *(frame.attr(o).tokens for o in kin if o != key))


_INTERVAL_FREQUENCY = re.compile(
    r"^(?=.*\b(?:frequency|headway|interval|every)\b)(?=.*\b(?:mins?|minutes?|hrs?|hours?|"
    r"secs?|seconds?|days?)\b)", re.IGNORECASE)
"""A frequency written as the time between events ("Frequency (mins)", "Headway (min)")."""
_RANK_WORDS = frozenset(stem(w) for w in split_words(
    "rank ranking ranked position pos place placing peak chart seed standing"))
_STANDING_WORDS = _RANK_WORDS - {stem("peak")} - {stem("position")}


def _ranks_by_place(attr: Attr) -> bool:
    """Whether a column holds places, where higher means a smaller number: "Rank", "Peak",
    "Peak position", "Chart position" - not "Peak demand (MW)" or "Net position ($m)"."""
    # ("Peak (UK)": the bracket says which chart, the header is "Peak"; under a group
    # "Peak positions", each column names a chart: "Peak positions > UK".)
    levels = [set(label_tokens(_BRACKETED.sub(" ", level))) for level in attr.path if level]
    bare = set(label_tokens(_BRACKETED.sub(" ", attr.label))) or set(attr.tokens)
    return bool(attr.tokens & _STANDING_WORDS) or any(
        tokens and tokens <= _RANK_WORDS for tokens in [bare, *levels[:-1]])


_SIZE_WORDS = re.compile(r"\b(?:high|higher|highest|low|lower|lowest|more|less|larger|smaller|"
                         r"bigger|greater|increase|increased|decrease|decreased|rise|rose|"
                         r"fall|fell|grow|grew|decline|declined|drop|dropped|largest|"
                         r"smallest|biggest|greatest|most|least|maximum|minimum)\b")
"""Words that read a negative number by its size or by its sign, the reader cannot tell."""


def _in_parentheses(frame: Frame, cell: tuple[int, str]) -> bool:
    """Whether a cell writes a negative number in accounting parentheses ("(45.0)")."""
    v = frame.value(*cell)
    text = v.text.strip() if v is not None else ""
    return text.startswith("(") and text.endswith(")") and v.measurable and (v.number or 0) < 0


def _costs_line(frame: Frame, cell: tuple[int, str]) -> bool:
    """Whether a cell's row or its column writes each of its numbers in parentheses (costs
    written negative, "Dividends paid"), not a signed amount with a loss among gains ("Net
    income": 120, (45)). (A column by its first rows.)"""
    row, key = cell
    lines = ([(row, a.key) for a in frame.data_attrs], [(r, key) for r in frame.rows[:200]])
    for cells in lines:
        numbers = [c for c in cells if (v := frame.value(*c)) is not None and v.measurable]
        if numbers and all(_in_parentheses(frame, c) for c in numbers):
            return True
    return False


_HIGH_OR_LOW = re.compile(r"\b(?:high|higher|highest|low|lower|lowest|top|better|best|worse|"
                          r"worst)\b")
"""Words that rank by standing rather than by number ("charted higher", "the top seed")."""
_DIRECTION = re.compile(r"\b(?:below|above|under|over|higher|lower|better|worse|top)\b")


def _rank_direction(frame: Frame, attr: Attr, condition: str) -> bool:
    """True when a condition written as a direction ("ranked below 5", "above 10") is on a rank
    or chart-position column, where "below" is a larger number to some and a smaller to others."""
    return bool(_DIRECTION.search(condition)) and bool(attr.tokens & _RANK_WORDS)


def _condition_attr(grounding: Grounding, cond: Condition) -> Attr | None:
    """The numeric column a condition is on: named right after the number, else the only one
    the question names, else the only numeric column of the table."""
    frame = grounding.frame
    if cond.on_year:
        # "before 2010": a year column, never whatever number column the question names.
        return _year_column(frame)
    numeric = measurable = [a for a in frame.data_attrs if a.measurable]
    if cond.percent:
        # "more than 10% of the vote": the "%" column, not the Votes it is a share of.
        percents = [a for a in numeric if _percent_column(frame, a.key, frame.rows[:20])]
        if percents:
            numeric = percents
        elif cond.words_after[:1] == ("of",):
            # "Output above 80% of capacity" beside no column of percents: a share of
            # another figure, never the number 80.
            return None
    after = set(w for w in cond.words_after[:2] if w != "of")
    named = [a for a in numeric if a.tokens & after]
    if len(named) == 1 or cond.bare:
        return named[0] if len(named) == 1 else None
    # "employees with a taxable benefit exceeding 2000": the phrase the comparison follows,
    # every word of it in one numeric column's header.
    before = set(cond.words_before) - OPERATION_WORDS - GENERIC_WORDS
    # (Any number column: "an inflation rate above 3%" compares Inflation rate itself,
    # though another column holds percents.)
    named = [a for a in measurable if before and before <= a.tokens]
    if len(named) == 1:
        return named[0]
    # "Q1 of Region 6": the leaf names a column under every region, and the group the question
    # names picks one, as it does for the measure (`undominated`).
    mentioned = [frame.attr(m.attrs[0]) for m in undominated(grounding.attrs)
                 if m.full and len(m.attrs) == 1 and frame.attr(m.attrs[0]) in numeric]
    if len(mentioned) == 1:
        return mentioned[0]
    if len(numeric) != 1 or (_holds_years(frame, numeric[0]) and not all(
            1000 <= n <= 2200 for n in (cond.number, cond.high) if n is not None)):
        # "Were there at least 3 *wins*" over a table whose one number column is Year: a
        # count no year can be compared with.
        return None
    return numeric[0]


_COUNTER_WITHIN = re.compile(r"^\s*(?:no\.?|#|number|n[º°])\s+in\s+([^\W\d_]+)\s*$",
                             re.IGNORECASE)
"""A column that numbers the rows within a group ("No. in season", "# in series")."""


def _counter_within(grounding: Grounding, analysis: Analysis) -> tuple[str, str, str] | None:
    """(what the question says, the group, the column) when a number the question says after
    a group's name ("season 1") was matched in a column numbering the rows within that group
    ("No. in season"), else None."""
    frame = grounding.frame
    for vm in grounding.values:
        m = _COUNTER_WITHIN.match(frame.attr(vm.attr).label)
        said = m and re.search(rf"\b({re.escape(fold(m.group(1)))}s?\s+{re.escape(vm.text)})\b",
                               analysis.folded)
        if said:
            return said.group(1), fold(m.group(1)), frame.attr(vm.attr).label
    return None


def _holds_years(frame: Frame, attr: Attr) -> bool:
    """Whether a column's numbers (of its first 200 rows) are all years."""
    numbers = [v.number for v in frame.values_of(attr.key, frame.rows[:200])
               if v is not None and v.measurable]
    return bool(numbers) and all(float(n).is_integer() and 1000 <= n <= 2200 for n in numbers)


def _operands_joined(frame: Frame, result: Ratio, analysis: Analysis
                     ) -> tuple[str, str] | None:
    """The labels of a share's two cells when they are sibling columns the question joins
    with "or" / "and" ("rated D or E" over D (watch) and E (default)), else None."""
    (_, a), (_, b) = result.operand_cells[0], result.operand_cells[1]
    left, right = frame.attr(a), frame.attr(b)
    if a == b or left.path[:-1] != right.path[:-1] or not left.path:
        return None
    firsts = [fold(words(x.path[-1])[0]) for x in (left, right) if words(x.path[-1])]
    if len(firsts) != 2:
        return None
    joined = re.search(rf"\b(?:{re.escape(firsts[0])}|{re.escape(firsts[1])})\s+(?:or|and|&)\s+"
                       rf"(?:{re.escape(firsts[0])}|{re.escape(firsts[1])})\b", analysis.folded)
    return (left.label, right.label) if joined else None


def _lettered_leaf(grounding: Grounding, measure: AttrMatch) -> Attr | None:
    """The one column under a named group whose header starts with the letter said right
    after the group's name ("risk grade *A*" over "A (low)"), else None."""
    after = max(measure.positions, default=-1) + 1
    raw = grounding.raw_words
    if not (0 < after < len(raw)) or len(raw[after]) != 1 or not raw[after].isalpha():
        return None
    leaves = [a for k in measure.attrs if (a := grounding.frame.attr(k)).path
              and (first := words(a.path[-1])[:1]) and first[0] == raw[after]]
    return leaves[0] if len(leaves) == 1 else None


def _unit_leaf(grounding: Grounding, measure: AttrMatch, analysis: Analysis) -> Attr | None:
    """The one column under a named group headed by the unit the question asks its answer in
    ("the height in *metres*" over Height > m and Height > ft), else None."""
    m = _ASKED_UNIT.search(analysis.folded)
    forms = unit_forms(m.group(1).strip(".")) if m else None
    if forms is None:
        return None
    leaves = [a for k in measure.attrs if (a := grounding.frame.attr(k)).path
              and fold(a.path[-1]).strip(" ()[]") in forms]
    return leaves[0] if len(leaves) == 1 else None


_SUPERLATIVE_THEN_NOUN = re.compile(
    r"\b(?:most|highest|largest|greatest|biggest|longest|least|lowest|smallest|fewest|shortest|"
    r"tallest|heaviest|lightest|cheapest|widest|narrowest|deepest|shallowest)\s+([^\W\d_]+)")


def _column_after_superlative(frame: Frame, analysis: Analysis) -> Attr | None:
    """The one text column named by the noun right after the superlative of a "what was the
    heaviest *payload*" question (Payload, beside Date and Rocket): what the answer names."""
    m = _SUPERLATIVE_THEN_NOUN.search(analysis.folded)
    if analysis.wh not in ("what", None) or m is None:
        return None
    noun = stem(m.group(1))
    named = [a for a in frame.attrs if not a.measurable and a.tokens == {noun}]
    return named[0] if len(named) == 1 else None


def _without_reconciling(frame: Frame, rows: list[int]) -> list[int]:
    """The rows ranked, without those that reconcile the others to a total
    (`reconciling_rows`), when some rows remain."""
    reconciling = reconciling_rows(frame)
    kept = [r for r in rows if r not in reconciling] if reconciling else rows
    return kept or rows


_OWN_MEASURE = re.compile(r"\(([^()]*\b(?:number|points?|percent|pp|index|count|score|usd|"
                          r"gbp|eur|thousands?|millions?)\b[^()]*|%)\)\s*$", re.IGNORECASE)
"""A row label that states its own measure in a closing bracket ("Respondents (number)",
"Net promoter score (NPS, points)")."""


def _row_of_another_measure(frame: Frame, rows: list[int]) -> str | None:
    """The label of a row ranked that states a measure of its own while other rows ranked
    state none (a summary band's counts and scores below a band of ratings), else None."""
    own = [label for r in rows[:2_000] if (label := frame.row_label(r))
           and _OWN_MEASURE.search(label)]
    return own[0] if own and len(own) < min(len(rows), 2_000) else None


def _named_by_one_column(grounding: Grounding, rows: list[int]) -> Attr | None:
    """The text column the question names each of the rows ranked by ("Compare ... of
    employees “Baby, John” and “Bertrand, Jesse”. Who has a higher amount?" over Employee
    Name): the answer is said as the question said the rows, not by their ids."""
    matches = [vm for vm in grounding.values if vm.rows & set(rows)]
    keys = {vm.attr for vm in matches}
    if len(matches) < 2 or len(keys) != 1 or {r for vm in matches for r in vm.rows} != set(rows):
        return None
    attr = grounding.frame.attr(next(iter(keys)))
    return None if attr.measurable else attr


def _named_only_in_condition(grounding: Grounding, conditions: list[tuple[Condition, Attr]],
                             key: str) -> bool:
    """Whether a column is named only by the phrase a condition follows ("the cumulative
    value of all items whose *total mass* exceeds 30,000"): it is what the rows are chosen
    by, and the question's own measure ("value") is another column or none. `conditions`
    pairs each condition with its column."""
    for cond, attr in conditions:
        before = set(cond.words_before) - OPERATION_WORDS - GENERIC_WORDS
        if before and attr.key == key and before <= attr.tokens \
                and all(grounding.q_words.count(w) == 1 for w in before):
            return True
    return False


def _year_column(frame: Frame) -> Attr | None:
    """The one column whose numbers are all years (or whose header is "Year"/"Season" and
    holds numbers), else None. Found once per frame: a question's year conditions ask for it
    while choosing rows and again while doubting the plan, and each look reads every cell."""
    if "year_column" not in frame.memo:
        frame.memo["year_column"] = _find_year_column(frame)
    return frame.memo["year_column"]


def _find_year_column(frame: Frame) -> Attr | None:
    found = []
    for attr in frame.attrs:
        cells = [v for r in frame.rows if (v := frame.value(r, attr.key)) is not None
                 and v.text.strip()]
        numbers = [v.number if v.numeric else _order_number(v, False) or year_of(v.text)
                   for v in cells]
        if len(cells) < 2 or any(n is None for n in numbers):
            continue
        years = all(float(n).is_integer() and 1800 <= n <= 2099 for n in numbers)
        if attr.measurable and not years and any(not v.numeric for v in cells):
            continue  # (a year with a note mark, "2012 r/", is text among numbers)
        if years or (attr.tokens & {"year", "season"} and attr.measurable):
            found.append(attr)
    return found[0] if len(found) == 1 else None


def _year_columns(frame: Frame) -> list[Attr]:
    """Data columns named by one year ("2019", "Fiscal 2018")."""
    return [a for a in frame.data_attrs if len(_YEAR.findall(a.label)) == 1]


def _years_are_columns(frame: Frame, cond: Condition) -> bool:
    """Whether both years of "between Y1 and Y2" name year columns: "parks established
    between 1960 and 1980" beside "Area (2019)" and "Visitors (2019)" asks a range."""
    years = {int(y) for a in _year_columns(frame) for y in _YEAR.findall(a.label)}
    return cond.high is not None and {int(cond.number), int(cond.high)} <= years


def _satisfies(value: Value | None, cond: Condition) -> bool:
    if value is None:
        return False
    # (A row label that is a year is text: "2012", "2012 r/".)
    n = value.number if value.number is not None or not cond.on_year else year_of(value.text)
    if n is None:
        return False
    return {">": n > cond.number, ">=": n >= cond.number, "<": n < cond.number,
            "<=": n <= cond.number, "=": n == cond.number,
            "between": cond.high is not None and cond.number <= n <= cond.high}[cond.op]


def _total_disagrees(frame: Frame, group: ValueMatch, total: int, key: str) -> bool:
    """Whether a group's stated total row is not the sum of the group's other rows in column
    `key`, beyond their rounding (a grand total placed under the last band)."""
    if "%" in frame.attr(key).label or _RATE_LABEL.search(frame.attr(key).label) \
            or _percent_column(frame, key, [total]):
        return False  # a rate's or a share's subtotal is no sum of its rows
    members = sorted(r for r in group.rows if r != total and not summary_row(frame, r))
    parts = [v for v in frame.values_of(key, members) if v is not None and v.measurable]
    stated = frame.value(total, key)
    if not parts or stated is None or not stated.measurable:
        return False
    return _misses_sum(parts, stated.number)


def _stated_total(frame: Frame, rows: list[int], group: ValueMatch) -> int | None:
    """A row under a group that states the group's total ("Total operating expenses"), or,
    among the rows, the total row that closes the group's rows (a "Subtotal" after each
    group, a row of the sheet's level beside them rather than under them)."""
    group_words = set(label_tokens(group.text))
    for r in rows:
        label = frame.row_paths[r][-1] if frame.row_paths[r] else ""
        if TOTAL_LABEL.search(label) and (group_words & set(label_tokens(label))
                                          or matching_label(label).strip().lower()
                                          in ("total", "sum")):
            return r
    # The data row right after the group's last one (the rows are in sheet order).
    following = bisect.bisect_right(frame.rows, max(group.rows))
    if following < len(frame.rows):
        after = frame.rows[following]
        label = frame.row_paths[after][-1] if frame.row_paths[after] else ""
        if after in rows and after not in group.rows and TOTAL_LABEL.search(label):
            return after
    return None


# --- columns ------------------------------------------------------------------------------------

def _column_named_like_operation(grounding: Grounding) -> AttrMatch | None:
    """A data column whose name is itself an operation word ("Change", "% Change", "Total")."""
    frame = grounding.frame
    found = [m for m in grounding.attrs
             if m.full and len(m.attrs) == 1 and _named_like_operation(frame.attr(m.attrs[0]))]
    # "2022 > Total" and "2023 > Total" both named by "total" alone: which one is not said.
    # A question that names more of one ("total ... in 2019") names that one.
    covered: dict[tuple[str, ...], set[int]] = {}
    for m in found:
        covered.setdefault(m.attrs, set()).update(m.positions)
    best = max(map(len, covered.values()), default=0)
    top = [attrs for attrs, positions in covered.items() if len(positions) == best]
    if len(top) > 1:
        # Of columns the question names as fully, the one with no word the question lacks.
        unsaid = {attrs: _words_unsaid(grounding, next(m for m in found if m.attrs == attrs))
                  for attrs in top}
        fewest = min(unsaid.values())
        top = [attrs for attrs in top if unsaid[attrs] == fewest]
    return next(m for m in found if m.attrs == top[0]) if len(top) == 1 else None


_OPERATION_STATED = {
    "sum": frozenset(stem(w) for w in split_words("total sum combined overall whole")),
    "avg": frozenset(stem(w) for w in split_words("average mean")),
    "diff": frozenset(stem(w) for w in split_words("difference change increase decrease")),
    "pct_change": frozenset(stem(w) for w in split_words("change growth increase decrease")),
    "ratio": frozenset(stem(w) for w in split_words("ratio share proportion percent percentage")),
}
"""The words a column's name needs to hold what each operation computes: a "Total" column
holds a sum, never the share or percentage asked of it."""


def _states_operation(attr: Attr, op: str) -> bool:
    """Whether a column named with operation words holds the figure `op` computes."""
    return bool(_leaf_words(attr) & _OPERATION_STATED.get(op, frozenset()))


def _counts_of_id_words(attr: Attr) -> bool:
    """A header that is the plural of a word naming rows ("Years" of service, "Weeks" on the
    chart) counts or measures: "Year" names a row, "Years" is how many. (Values that are all
    years still make it an identifier: `year_columns`.)"""
    raw = naming_path(attr.path)[-1] if attr.path else ""
    plural = [w for w in re.findall(r"[A-Za-z]+", raw)
              if len(w) > 3 and w.lower().endswith("s") and stem(w.lower()) != w.lower()]
    return bool(plural) and all(stem(w.lower()) in ID_WORDS for w in plural)


def _texts_in(frame: Frame, rows: list[int], key: str) -> set[str]:
    """The different texts of a column over some rows ("" for an empty cell)."""
    return {v.text.strip() if v is not None else "" for v in frame.values_of(key, rows)}


def _group_words(frame: Frame, keys: Sequence[str]) -> set[str]:
    """The words of the header levels the columns share above their own ("Medals" over Gold,
    Silver, Bronze and Total)."""
    paths = [frame.attr(k).path for k in keys]
    shared = 0
    while all(len(p) > shared + 1 for p in paths) and len({p[shared] for p in paths}) == 1:
        shared += 1  # (of one column: every level above its own)
    return {w for level in paths[0][:shared] for w in label_tokens(level)}


def _total_leaves(frame: Frame, keys: Sequence[str]) -> list[str]:
    """The one column of a group headed "Total" (or "All"), measurable; none when there is
    not exactly one."""
    found = [k for k in keys if frame.attr(k).measurable and frame.attr(k).path
             and fold(frame.attr(k).path[-1]).strip() in ("total", "all", "overall")]
    return found if len(found) == 1 else []


def _leaf_words(attr: Attr) -> set[str]:
    return set(label_tokens(naming_path(attr.path)[-1])) if attr.path else set()


_QUANTITY_NOUNS = frozenset(stem(w) for w in ("amount", "value", "figure"))
"""Operation words that also name what a column measures: "the total Amount" adds the
Amount column, where "the total Total" could not say which amounts to add."""


def _ratio_column_named(grounding: Grounding, analysis: Analysis) -> AttrMatch | None:
    """The column a "ratio" question names whole, its own name saying "ratio"
    ("Pupil-teacher ratio"), when the question names no operands ("the ratio of A to B")."""
    if re.search(r"\bratio (?:of|between)\b|\bto\b|\bover\b|\bdivided\b", analysis.folded):
        return None
    found = [m for m in grounding.attrs if m.full and len(m.attrs) == 1
             and "ratio" in grounding.frame.attr(m.attrs[0]).tokens
             and any(grounding.q_words[i] == "ratio" for i in m.positions)]
    return found[0] if len({m.attrs for m in found}) == 1 else None


def _ratio_titled(grounding: Grounding, analysis: Analysis) -> bool:
    """Whether "the ratio" of a question is the measure the table's title names ("Housing
    affordability ratio" over columns of years), asked with no operands ("the ratio of A to
    B") or as a list ("respectively")."""
    if not re.search(r"\bratios?\b", analysis.folded) or re.search(
            r"\bratio (?:of|between)\b|\bto\b|\bover\b|\bdivided\b", analysis.folded) \
            and not re.search(r"\brespectively\b", analysis.folded):
        return False
    return bool(re.search(r"\bratios?\b", fold(grounding.frame.title or "")))


def _named_like_operation(attr: Attr, measured: frozenset[str] = frozenset()) -> bool:
    """Whether a data column's name is only operation words ("Total", "Change"), apart from
    the words in `measured`, which count as the column's own name."""

    leaf = set(label_tokens(naming_path(attr.path)[-1])) if attr.path else set()
    return attr.kind == "data" and bool(leaf) and leaf <= OPERATION_WORDS - measured


def _measures(grounding: Grounding, exclude: set[str]) -> list[AttrMatch]:
    """Data columns the question names (best first), excluding ones used as filters.

    A weaker reading of a phrase another column reads more fully ("Region 3 > Q1" beside
    "Region 4 > Q1" for "Q1 of Region 4") is left out before the exclusion: once the better
    column is a filter's, the weaker one is still not named."""
    frame = grounding.frame
    out = []
    for m in undominated(grounding.attrs):
        if not m.full or any(k in exclude for k in m.attrs):
            continue
        if all(frame.attr(k).kind == "data" for k in m.attrs):
            out.append(m)
    return out


_TOTAL_WORDS = frozenset(stem(w) for w in ("total", "sum", "overall"))


def _total_word_positions(grounding: Grounding) -> set[int]:
    """The positions of the question's words that ask for a total ("total", "sum")."""
    return {i for i, w in enumerate(grounding.q_words) if w in _TOTAL_WORDS}


def _best_measure(grounding: Grounding, exclude: set[str], numeric: bool,
                  fallback: bool = True) -> AttrMatch | None:
    frame = grounding.frame
    candidates = [m for m in _measures(grounding, exclude)
                  if not numeric or all(frame.attr(k).measurable for k in m.attrs)]
    if not candidates:
        if numeric and fallback and not any(m.full for m in _measures(grounding, exclude)):
            # (A named column of text, "Attendance" holding "9,500 / 12,000", is what was
            # asked: the table's one number column is then another figure.)
            only = [a for a in frame.data_attrs if a.measurable]
            if len(only) == 1:
                return AttrMatch((only[0].key,), only[0].label, 0.5, frozenset())
        return None
    best = candidates[0]
    if (apart := _measure_apart_from_rows(grounding, candidates)) is not None:
        best = apart
    rivals = [m for m in candidates[1:] if m.score == best.score and m.attrs != best.attrs]
    if rivals:
        # "the total yam production" beside "All crops > Total (kt)": a column named by the
        # operation's own word alone ("total") is not asked for when another column is
        # named by a word of its own; "total" is then what is done with that one.
        by_word = [m for m in [best, *rivals] if not m.positions <= _total_word_positions(
            grounding)]
        if len(by_word) == 1 and len(rivals) == 1:
            return by_word[0]
        # "the mean CRP in the Drug A group": "Drug A > Mean" and "Drug B > Mean" both read
        # "mean" and "drug", but only the second has a word the question lacks ("b").
        # "Which group had the most Agree responses": "group" names the rows' Group labels;
        # it does not also say "Percent of group > Agree" rather than "Responses > Agree".
        rows_named = {p for m in grounding.attrs if m.full
                      and all(frame.attr(k).kind == "level" for k in m.attrs) for p in m.positions}
        apart = [m for m in [best, *rivals] if not m.positions & rows_named]
        if rows_named and len(apart) == 1:
            return apart[0]
        tied = sorted([best, *rivals], key=lambda m: _words_unsaid(grounding, m))
        if _words_unsaid(grounding, tied[0]) < _words_unsaid(grounding, tied[1]) and (
                _words_said(grounding, tied[0]) > _words_said(grounding, tied[1])
                or any(TOTAL_LABEL.search(level) for k in tied[0].attrs
                       for level in frame.attr(k).path)):
            # (Not "available beds" over "General & acute > Available" and "Maternity >
            # Available": the shorter group name is no better said. "The population in
            # 2021" is All ages > 2021, the whole beside the age groups.)
            return tied[0]
        # "How many votes" beside "Votes" and "Vote %" (one name, one with "%"): the count,
        # unless "%" is said.
        fits = [m for m in tied if grounding.asks_percent == any(
            "%" in frame.attr(k).label for k in m.attrs)]
        if len(fits) == 1 and len({_column_words(frame, m.attrs) - MEASURING_UNITS
                                   for m in tied}) == 1:
            return fits[0]
        # "When was the Westgate store opened" beside "Store #": "store" says what Westgate
        # is; the numbers that count the stores are not what is asked.
        measured = [m for m in tied if not any(_identifier(frame, frame.attr(k))
                                               for k in m.attrs)]
        if len(measured) == 1:
            return measured[0]
        if (crossed := _levels_crossed(frame, [best, *rivals])) is not None:
            return crossed
    return None if rivals else best


def _measure_apart_from_rows(grounding: Grounding, candidates: list[AttrMatch]
                             ) -> AttrMatch | None:
    """The column named by more of the question's words than the best-scored one, when the
    best one leads only by a word that names the rows: "Which promotion delivered the highest
    sales uplift?" ranks by "Uplift vs Baseline > Sales %"; its "promotion" names the rows'
    Promotion labels and does not also choose "Promotion Period > Sales ($)"."""
    frame = grounding.frame
    rows_named = {p for m in grounding.attrs if m.full
                  and all(frame.attr(k).kind == "level" for k in m.attrs) for p in m.positions}
    best = candidates[0]
    if not best.positions & rows_named:
        return None
    own = {id(m): len(m.positions - rows_named) for m in candidates}
    most = max(own.values())
    leaders = [m for m in candidates if own[id(m)] == most]
    if own[id(best)] < most and len(leaders) == 1 and leaders[0].full:
        return leaders[0]
    return None


def _columns_tied(grounding: Grounding, used: set[str]) -> str | None:
    """Why the question names no one column when it names a header found under several
    ("Percent of population" under Civilian labor force and under Employed): the places, to
    say which. None when the tie is not of a few columns of that one name."""
    frame = grounding.frame
    candidates = _measures(grounding, used)
    if not candidates:
        return None
    best = candidates[0]
    tied = [m for m in candidates if m.score == best.score]
    keys = list(dict.fromkeys(k for m in tied for k in m.attrs))
    paths = [[" ".join(level.split()) for level in naming_path(frame.attr(k).path)]
             for k in keys]
    leaves = {fold(path[-1]) for path in paths if path}
    if not 2 <= len(keys) <= 4 or len(leaves) != 1 or any(len(path) < 2 for path in paths):
        return None
    places = [" > ".join(path) for path in paths]
    return (f"the question names {paths[0][-1]}, a header of {len(keys)} columns: "
            + ", ".join(places[:-1]) + f" and {places[-1]}; say which")


def _levels_crossed(frame: Frame, tied: list[AttrMatch]) -> AttrMatch | None:
    """The one column under every header the question names, when it names headers of
    several levels ("the Disposal of fixed assets for Land and buildings in 2020" over
    2020 > Land and buildings > Disposal of fixed assets): each phrase alone reads many
    columns (the leaf recurs under every group and year), together they cross at one.

    Each phrase (its words' positions) stands for the union of the columns it reads; None
    unless the phrases are apart, at least two, and meet in exactly one column."""
    by_phrase: dict[frozenset[int], set[str]] = defaultdict(set)
    for m in tied:
        by_phrase[m.positions].update(m.attrs)
    phrases = list(by_phrase)
    if len(phrases) < 2 or any(a & b for a, b in itertools.combinations(phrases, 2)):
        return None
    common = set.intersection(*by_phrase.values())
    if len(common) != 1:
        return None
    [key] = common
    return AttrMatch((key,), frame.attr(key).label, tied[0].score,
                     frozenset().union(*phrases), full=True)


def _column_words(frame: Frame, keys: Sequence[str]) -> frozenset[str]:
    """The header words of columns (a matched column, or a group's)."""
    return frozenset().union(*(frame.attr(k).tokens for k in keys))


def _words_unsaid(grounding: Grounding, match: AttrMatch) -> int:
    """How many words of a matched column's header path the question does not have (a unit,
    "sq ft", is no word of the name)."""
    said = set(grounding.q_words)
    return len(_column_words(grounding.frame, match.attrs) - said - MEASURING_UNITS)


def _words_said(grounding: Grounding, match: AttrMatch) -> int:
    """How many words of a matched column's header path the question has."""
    return len(_column_words(grounding.frame, match.attrs) & set(grounding.q_words))


def _entity_attr(grounding: Grounding, analysis: Analysis, exclude: set[str]) -> Attr | None:
    """The column whose value names the row: the one the question asks for ("which team"),
    else the row label (the deepest row level), else the first text column."""
    frame = grounding.frame
    named = _asked_attr(grounding, analysis, exclude)
    if named is not None:
        return named
    if (place := _place_attr(grounding, analysis, exclude)) is not None:
        return place
    if analysis.wh in ("who", "whom", "whose"):
        # "Who has the highest bonus": the Name, not the Employee ID that labels the rows.
        people = [a for a in frame.attrs if a.tokens & _PERSON_WORDS and not a.measurable
                  and a.key not in exclude and not a.tokens & ID_WORDS]
        if len(people) == 1:
            return people[0]
    noun = set(analysis.target_words[-1:])
    if frame.levels and not (noun and not noun & _TIME_NOUNS
                             and _labels_are_times(frame, frame.levels[-1])):
        if (named := _name_beside_codes(frame, exclude)) is not None \
                and not frame.levels[-1].tokens & ID_WORDS & set(grounding.q_words):
            # "Which laptop has the most units in stock" over rows labelled by SKU ("LT-100")
            # beside a Product column: the laptop's name, not its code (unless the question
            # asks for it: "Give its Risk ID").
            return named
        return frame.levels[-1]
    # "Which *film* had the highest box office" over rows labelled by year: a film's name, in
    # the first column of names, not the year that labels its row.
    text = [a for a in frame.data_attrs if not a.measurable and a.key not in exclude
            and not _labels_are_times(frame, a)]
    if text and (named := _name_beside_codes(frame, exclude, text[0])) is not None \
            and not text[0].tokens & ID_WORDS & set(grounding.q_words):
        # "Which component ..." over a Part Number of codes beside a Description: the name.
        return named
    return text[0] if text else None


def _name_beside_codes(frame: Frame, exclude: set[str], label: Attr | None = None
                       ) -> Attr | None:
    """The one column of names (Product, Name, Title, Item, Description, Model) beside a row
    label (or `label`, the first column of text) of codes: its header an id word or "SKU",
    or, in a table of at most CODED_ROWS rows, every one of its first labels a code
    ("LT-100"); None otherwise. (A tall table's labels would have its row tree decoded: 80 ms
    at 20,000 rows.)"""
    label = label or frame.levels[-1]
    coded = len(frame.rows) <= CODED_ROWS and all(
        # (The first labels but a total's: "Total material cost" under the part numbers.)
        _CODE.fullmatch(t) for t in _filled_texts(frame, label.key,
                                                  without_totals(frame, frame.rows[:50])))
    if not label.tokens & (ID_WORDS | _CODE_WORDS) and not coded:
        return None
    text = [a for a in frame.data_attrs if not a.measurable and a.key not in exclude
            and a.key != label.key]
    names = [a for a in text if a.tokens & _ITEM_NAME_WORDS]
    if not names and coded:
        # The one column of text beside labels that are codes ("E08000003" beside "Local
        # authority"), or the one of them that names each row once (not a Region beside it);
        # not beside seasons or ranks, whose header is an id word.
        timeless = [a for a in text if not _labels_are_times(frame, a)]
        names = timeless if len(timeless) == 1 else [
            a for a in timeless if not _repeats_over(frame, a, list(frame.rows))]
    return names[0] if len(names) == 1 else None


CODED_ROWS = 1_000
_CODE_ASKED = frozenset(stem(w) for w in split_words("number numbers codes ids references"))
"""Words that ask for a column of codes by what it holds ("list the test *numbers*")."""
_CODE = re.compile(r"[A-Z]{1,5}(?:[-_/][A-Z]{1,5})*[-_/]?\d{1,10}[A-Z]?")
"""A code: capitals then digits ("LT-100", "E08000003", "HP-HSG-001")."""
_CODE_WORDS = frozenset(stem(w) for w in split_words("sku upc ean isbn asin"))
_ITEM_NAME_WORDS = frozenset(stem(w) for w in split_words(
    "name product item title description model"))


def _when_column(grounding: Grounding, used: set[str]) -> Attr | None:
    """"When did Chen Wei start": the one dated column whose name the question says but for
    the date itself ("Start date"), which "when" asks for."""
    frame = grounding.frame
    said = set(grounding.q_words)
    dated = [a for a in frame.data_attrs if a.key not in used and a.tokens & said
             and set(_leaf_words(a)) - said <= _TIME_NOUNS and _holds_dates(frame, a.key)]
    return dated[0] if len(dated) == 1 else None


_TIME_NOUNS = frozenset(stem(w) for w in split_words(
    "year date season month day time period quarter edition era decade week"))
_DATE_NOUNS = frozenset(stem(w) for w in ("date", "day"))


def _asks_a_date(analysis: Analysis) -> bool:
    """Whether the question asks when, or for a date or day ("on what date ...")."""
    return analysis.wh == "when" or analysis.wh in ("what", "which") \
        and bool(analysis.target_words) and analysis.target_words[0] in _DATE_NOUNS


def _labels_are_times(frame: Frame, attr: Attr) -> bool:
    """Whether a column's first cells are years, dates, scores or other numbers, not names."""
    cells = [v for v in frame.values_of(attr.key, frame.rows[:5]) if v is not None
             and v.text.strip()]
    return bool(cells) and all(v.numeric or v.date is not None or parse_value(v.text).kind in
                               ("number", "year", "date", "range")
                               or not re.search(r"[^\W\d_]", v.text) for v in cells)


def _stored_value(frame: Frame, key: str, match: ValueMatch) -> str | float | int:
    """What the wide view holds for a matched cell: its number when the cell is a quantity
    ("1500 m" is stored as 1500), else its text."""
    value = frame.value(min(match.rows), key)
    if value is not None and value.numeric and value.number is not None:
        return value.number
    return match.text


_STANDING = re.compile(r"\bwhere\s+(?:does|did|do|is|was|were|are)\b[^?]*\b(?:rank|ranks|ranked|"
                       r"place|placed|finish|finished|come|came|stand|stood|sit|sat|position)\b")
"""A "where" asking for a place in an order ("Where does X rank on ...?")."""


def _place_attr(grounding: Grounding, analysis: Analysis, exclude: set[str]) -> Attr | None:
    """For "where ...": the one text column named as a place ("Venue", "City"), else None.
    Not for a standing ("where does Sheffield *rank*", "where did she *finish*"): a place in
    an order, which no place column holds."""
    if analysis.wh != "where" or _STANDING.search(analysis.folded):
        return None
    places = [a for a in grounding.frame.attrs if a.tokens & _PLACE_WORDS
              and not a.measurable and a.key not in exclude]
    return places[0] if len(places) == 1 else None


def _asked_attr(grounding: Grounding, analysis: Analysis, exclude: set[str]) -> Attr | None:
    """The column the question asks for by name ("which *metal composition* ...")."""
    target = set(analysis.target_words)
    if not target:
        return None
    frame = grounding.frame
    named = [a for a in frame.attrs if a.tokens & target and a.key not in exclude
             and not _only_a_length(a, target)]
    best = [a for a in named if a.tokens <= target] or named
    if len(best) > 1:
        # "Which hospital type ...": "Hospital type", not "Hospital", which says less of it.
        widest = max(len(a.tokens & target) for a in best)
        best = [a for a in best if len(a.tokens & target) == widest]
    if len(best) > 1:
        # "Which school ...": of "School Name" and "School Type", the column of names.
        best = [a for a in best if a.tokens & _NAME_WORDS and not a.measurable] or best
    if len(best) == 1 and frame.levels and best[0].key != frame.levels[-1].key \
            and frame.levels[-1].key not in exclude \
            and _identifier(frame, best[0]) and not _identifier(frame, frame.levels[-1]) \
            and best[0].numeric and not _repeats_over(frame, best[0], whole_rows(frame)):
        # "Which store closed first" over "Store #" beside rows labelled by location: the
        # store is named by its label; its number only counts it. Not when the question
        # named the row by that label ("what year was Undertow released"): it asks for
        # something else of the row than the name it gave. Nor when the numbers repeat
        # ("which week had the most hours" over weeks 1-4 of each person): they group rows.
        # Nor for a code ("MW-03" of a Well ID beside a Location): it names the row.
        return frame.levels[-1]
    return best[0] if len(best) == 1 else None


_LENGTH_OF = re.compile(r"\d[-\u2010\u2011 ]([^\W\d_]+)")


def _only_a_length(attr: Attr, target: set[str]) -> bool:
    """Whether the question's noun is in a column's name only as a length of time ("which
    *month*" against "All items, 12-month percent change"): the column is no list of months."""
    lengths = {stem(m.group(1).lower()) for m in _LENGTH_OF.finditer(attr.label)}
    return bool(lengths) and attr.tokens & target <= lengths


_NAME_WORDS = frozenset(stem(w) for w in ("name", "title"))


def _used_attrs(grounding: Grounding) -> set[str]:
    return {vm.attr for vm in grounding.values}


# --- operations ---------------------------------------------------------------------------------

def _row_name(grounding: Grounding, row: int) -> str:
    """A row as the question named it: its row path when that holds a value the question
    named ("Operating Expenses > Salaries"), else the named values with their columns
    ("order_id 12345", not the region that happens to label the row), else its sheet row."""
    frame = grounding.frame
    path = frame.row_paths[row]
    named = sorted((vm for vm in grounding.values if row in vm.rows),
                   key=lambda vm: min(vm.positions))
    if path and (not named or any(vm.text in path for vm in named)):
        return " > ".join(path)
    if named:
        return ", ".join(f"{frame.attr(vm.attr).label} {vm.text}" for vm in named)
    return f"sheet row {row}"


_LIST_TARGET = re.compile(r"^\s*(which|what|list|name|give|show)\s+(?:me\s+)?(?:all\s+)?"
                          r"(?:(?:of\s+)?the\s+)?([^\W\d_]+)\b")
LIST_LIMIT = 25
"""The most rows a list answer names; more is a table to filter, not an answer to read."""


def _listed_attr(grounding: Grounding, analysis: Analysis, used: set[str]) -> Attr | None:
    """The column a question asks to list ("which *flights* were on time", "list the
    departments with ..."): a plural noun after which/what, or any noun after list/name/give,
    that names one text column the question does not filter on."""
    m = _LIST_TARGET.match(analysis.folded)
    if m is None:
        return None
    verb, noun = m.groups()
    if verb in ("which", "what") and not (noun.endswith("s") and stem(noun) != noun):
        return None
    named = [a for a in grounding.frame.attrs if stem(noun) in a.tokens
             and not a.measurable and a.key not in used]
    return named[0] if len(named) == 1 else None


def _plan_lookup(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    frame = grounding.frame
    if not rows:
        return Refusal("no row matches everything the question names")
    used = _used_attrs(grounding)
    listed = _listed_attr(grounding, analysis, used) if len(rows) > 1 else None
    if len(rows) > 1 and _unstated_change(grounding):
        # "Which staff groups decreased in FTE": the rows whose value fell, which no
        # condition here states; listing the matching rows would name them all.
        return Refusal("listing the rows whose value rose or fell needs an LLM")
    # (A number a column's name holds, "2021" of "Residents 2021", is no loose number.)
    in_values = {p for vm in grounding.values for p in vm.positions} | {
        p for m in grounding.attrs if m.full for p in m.positions}
    compared = {n for c in analysis.conditions for n in (c.number, c.high) if n is not None}
    loose_number = any(w.isdigit() and i not in in_values and float(w) not in compared
                       for i, w in enumerate(grounding.q_words))
    if listed is not None and not (grounding.values or analysis.conditions) or loose_number:
        listed = None  # a list of every row, or one that may drop "a paid amount of 0"
    if listed is not None and listed.tokens & ID_WORDS \
            and not (listed.tokens & ID_WORDS | _CODE_ASKED) & set(grounding.q_words):
        # "Which customers in Beaverton are wholesale accounts" over a Customer ID beside
        # Company and Contact Name: the customers' codes are not the names asked for, and
        # which column names them is not said.
        named = [a for a in frame.data_attrs if a.key != listed.key and not a.measurable
                 and listed.tokens - ID_WORDS <= a.tokens]
        if len(named) == 1:
            listed = named[0]
        elif len(frame.rows) <= CODED_ROWS and any(
                not _labels_are_times(frame, a) and not _repeats_over(frame, a, frame.rows)
                for a in frame.data_attrs if a.key != listed.key and not a.measurable):
            # (Over orders named by their Order ID alone, the IDs are the answer.)
            return Refusal(f"{listed.label} holds codes, and the question does not say which "
                           "column names the rows to list")
    if listed is not None:
        data = without_totals(frame, rows)
        if len(data) > LIST_LIMIT:
            return Refusal(f"{len(data)} rows match, too many to list in an answer; open the "
                           "table, or narrow the question")
        return ReadRows(op="list", table=frame.ref, rows=data, column=listed.key,
                        description=f"list {listed.label} of the matching rows")
    several = _named_columns(grounding, used)
    if len(rows) == 1 and len(several) >= 2 and _listed_together(grounding, several):
        keys = [m.attrs[0] for m in several]
        return ReadCells(table=frame.ref, rows=rows, columns=keys,
                         description="read " + ", ".join(frame.attr(k).label for k in keys))
    measure = _best_measure(grounding, used, numeric=False)
    if measure is None:
        entity = _entity_attr(grounding, analysis, used) if analysis.asks_for_entity else None
        if entity is not None and analysis.conditions:
            return ReadRows(op="list", table=frame.ref, rows=rows, column=entity.key,
                            description=f"list {entity.label} of the matching rows")
        named = _asked_attr(grounding, analysis, used)
        if named is None and analysis.wh == "who":
            people = [a for a in frame.attrs if a.tokens & _PERSON_WORDS and a.key not in used
                      and not a.measurable]
            named = people[0] if len(people) == 1 else None
        if named is None and analysis.wh == "when":
            named = _when_column(grounding, used)
        if named is not None and len(rows) == 1:
            # "Which year was the team in division 2", "who drove the Saab": the row's name
            # (or the column the question asks for) is the answer.
            return Lookup(table=frame.ref, rows=rows, column=named.key, confidence=0.85,
                          description=f"read {named.label} of the matching row")
        labels = [m for m in undominated(grounding.attrs) if m.full and len(m.attrs) == 1
                  and frame.attr(m.attrs[0]).kind == "level" and m.attrs[0] not in used]
        if len(labels) == 1 and len(rows) == 1:
            # "What is the store code of Kingston Bentall": the row's label in the column
            # named, found by a value in another one.
            return Lookup(table=frame.ref, rows=rows, column=labels[0].attrs[0],
                          confidence=0.85,
                          description=f"read {labels[0].label} of the matching row")
        held = _only_value(grounding, rows)
        if held is not None:
            # A form ("Client:" | "Elmford Port"): the label names the row, and the row holds
            # one value, which is what "who is the client" asks.
            return Lookup(table=frame.ref, rows=rows, column=held.key,
                          description=f"read the value of {_row_name(grounding, rows[0])}")
        return Refusal(_columns_tied(grounding, used)
                       or "the question does not name a column to read")
    place = _place_attr(grounding, analysis, used)
    # (A column of names is read as the place asked: "where are the headquarters of Globex"
    # reads Headquarters, "Lyon", not the Country beside it.)
    unplaced = analysis.wh == "where" and all(
        _labels_are_times(frame, frame.attr(k)) for k in measure.attrs)
    if unplaced and place is not None and place.key not in measure.attrs:
        # "Where did he score against Malta": the Venue, not the Score the verb names.
        measure = AttrMatch((place.key,), place.label, 1.0, frozenset())
    elif unplaced and not any(frame.attr(k).tokens & _PLACE_WORDS for k in measure.attrs):
        return Refusal(f"the question asks where, and {measure.label} names no place")
    if _asks_a_date(analysis) and not any(
            _holds_dates(frame, k) or _holds_years(frame, frame.attr(k)) for k in measure.attrs):
        # ("When was Acme founded?" over years: 1998.)
        # "On what date was meter M-103 read in October 2023": the Reading Date, though the
        # month named the row in it; never the Meter Reading that "read" names.
        dated = _when_column(grounding, set())
        if dated is None or len(rows) != 1:
            return Refusal(f"the question asks for a date, and {measure.label} holds none")
        measure = AttrMatch((dated.key,), dated.label, 1.0, frozenset())
    keys = list(measure.attrs)
    if len(rows) == 1:
        what = f"{measure.label} of {_row_name(grounding, rows[0])}"
        if len(keys) == 1:
            return Lookup(table=frame.ref, rows=rows, column=keys[0], description="read " + what)
        if (leaf := _lettered_leaf(grounding, measure)
                or _unit_leaf(grounding, measure, analysis)) is not None:
            # "SME term loans in risk grade A" over Risk grade > A (low), B, ...: the letter
            # (a stopword as a word) names one column of the group, not the group's sum; so
            # does the unit asked, "the height of Rakaposhi in metres" over Height > m, ft.
            return Lookup(table=frame.ref, rows=rows, column=leaf.key,
                          description=f"read {leaf.label} of {_row_name(grounding, rows[0])}")
        if not all(frame.attr(k).numeric for k in keys):
            return Refusal("the column group holds text; an LLM should read it")
        return GroupSum(table=frame.ref, rows=rows, columns=keys, description="sum of " + what)
    group = _group_match(grounding, rows)
    if group is not None and len(rows) > 1 and _each_named(grounding, rows) and (
            analysis.respective
            or set(rows) != {r for r in frame.rows if group.text in frame.row_paths[r][:-1]}):
        # "Wheat yields in the North East and North West": two rows of the Wheat group, each
        # named, are no sum of the group's; listed when "respectively" says so. ("Minor
        # incidents (category 3 and 4)" names every row of Minor: its sum.)
        group = None
    if group is not None and len(keys) == 1 and frame.attr(keys[0]).measurable:
        total = _stated_total(frame, rows, group)
        if total is not None and _total_disagrees(frame, group, total, keys[0]):
            # "The Sales of the Remasters" under a last band holding one game and a "Total"
            # of every game: no total of the band, whose one row is its figure.
            return Refusal(f"the \"{_own_label(frame, total)}\" row under {group.text} is not "
                           f"the sum of {group.text}'s rows; say which row to read")
        if total is not None:
            return Lookup(table=frame.ref, rows=[total], column=keys[0],
                          description=f"read the stated total row for {group.text}")
        own = _group_own_row(frame, rows, group.text, keys[0])
        if own is not None:
            # "Americas exports in 2023", "median earnings in Lower-skilled occupations": the
            # band row states the group's figure (its rows may not add up to it: a median,
            # or members not listed).
            return Lookup(table=frame.ref, rows=[own], column=keys[0],
                          description=f"read {measure.label} of {group.text}, the group's "
                                      "own row")
        children = [r for r in rows if group.text in frame.row_paths[r][:-1]]
        strays = [r for r in rows if r not in children and frame.row_paths[r] != (group.text,)]
        if strays:
            # "revenue per employee": the Employees row is not one of Revenue's lines.
            return Refusal(f"the question names {group.text} and rows outside it "
                           f"({_row_name(grounding, strays[0])}); adding them up is not asked")
        held = {v.ref if (v := frame.value(r, keys[0])) is not None else None
                for r in children}
        if len(children) > 1 and len(held) == 1 and None not in held:
            # "What was Canada's time": one merged cell spans the rows of the relay's four
            # swimmers; it is the group's one value, not one per row to add up.
            return Lookup(table=frame.ref, rows=children[:1], column=keys[0],
                          description=f"read {measure.label} of {group.text}, one cell over "
                                      "its rows")
        paths = [frame.row_paths[r] for r in children]
        if len(set(paths)) < len(paths):
            # "The Ct value of CD40 for Set B in Experiment 1": CD40 > Set B repeats under
            # each experiment's band, which the rows' paths do not hold; adding the repeats
            # up is no total of CD40's rows.
            twice = next(p for p in paths if paths.count(p) > 1)
            return Refusal(f"{paths.count(twice)} rows are each {' > '.join(twice)} (the "
                           "table repeats them, under bands its row labels do not hold); an "
                           "LLM should read which one is meant")
        return Aggregate(op="sum", table=frame.ref, rows=children, column=keys[0],
                         description=f"sum {measure.label} over the rows under {group.text}",
                         confidence=0.85)
    if analysis.respective and len(keys) == 1 and _each_named(grounding, rows):
        # "the shares owned by A and B respectively": one value per named row, listed in
        # the order the question names them (not the sheet's).
        said_at: dict[int, int] = {}
        for vm in _naming_one_of(grounding, rows):  # (a row two values match is said where
            for r in vm.rows:                       # first named)
                said_at[r] = min(said_at.get(r, min(vm.positions)), min(vm.positions))
        rows = sorted(rows, key=lambda r: (said_at.get(r, 0), r))
        return ReadRows(op="list", table=frame.ref, rows=rows, column=keys[0],
                        description=f"list {measure.label} of each named row")
    if len(keys) == 1 and not frame.attr(keys[0]).measurable and not analysis.count_words \
            and not grounding.unexplained and len(texts := _texts_in(frame, rows, keys[0])) == 1 \
            and "" not in texts:
        # "What commodity is Pilbara Hub" over its five reserve rows, each "Iron ore": every
        # row the question names says the same, so which one is read does not matter.
        return Lookup(table=frame.ref, rows=rows[:1], column=keys[0],
                      description=f"read {measure.label}, the same in all {len(rows)} "
                                  "matching rows")
    if grounding.unexplained:
        # "revenue for Scooters" where no row says Scooters: the word that names no row is
        # why no one row was chosen, not the number of rows left.
        return Refusal(f"{len(rows)} rows match and the question does not say which one to "
                       f"read: {_unmatched_words(grounding)}")
    return Refusal(f"{len(rows)} rows match; the question does not say which one to read")


def _only_value(grounding: Grounding, rows: list[int]) -> Attr | None:
    """The one data column holding a value in the one row the question names by its row
    label, in a table whose data columns have no names of their own (a form's values), else
    None."""
    frame = grounding.frame
    if len(rows) != 1 or not grounding.values or not all(
            frame.attr(vm.attr).kind == "level" for vm in grounding.values):
        return None
    if any(a.path for a in frame.data_attrs):
        return None  # named columns: the question must say which one it reads
    filled = [a for a in frame.data_attrs
              if (v := frame.value(rows[0], a.key)) is not None and v.text.strip()]
    return filled[0] if len(filled) == 1 else None


def _each_named(grounding: Grounding, rows: list[int]) -> bool:
    """True when every row is one the question names by its own value ("A and B"), perhaps
    inside a group it names too ("Wheat yields in the North East and North West")."""
    named = _naming_one_of(grounding, rows)
    return len(named) == len(rows) and {r for vm in named for r in vm.rows} & set(rows) \
        == set(rows)


def _naming_one_of(grounding: Grounding, rows: list[int]) -> list[ValueMatch]:
    """The values the question names that pick out one of these rows each."""
    kept = set(rows)
    return [vm for vm in grounding.values if len(set(vm.rows) & kept) == 1]


def _listed_together(grounding: Grounding, matches: list[AttrMatch]) -> bool:
    """True when the named columns are a list ("in 2019 and 2018", "... respectively")."""
    q = grounding.q_words
    if "respectively" in q or "both" in q:
        return True
    # Words the two names share ("Total ... ECFs") do not separate them; their own words do.
    shared = matches[0].positions & matches[1].positions
    own = [sorted(m.positions - shared) for m in matches[:2]]
    if not own[0] or not own[1]:
        return False
    first, second = sorted(own, key=lambda p: p[0])
    return "and" in q[first[-1] + 1:second[0]]


def _named_columns(grounding: Grounding, exclude: set[str]) -> list[AttrMatch]:
    """Single data columns the question names, one per named phrase, in question order.

    When a phrase names several columns ("2019" under "Year ended" and under "% Change"), the
    one sharing its parent header with the other named columns wins; a tie left is ambiguous
    and that phrase is dropped.
    """
    frame = grounding.frame
    by_phrase: dict[frozenset[int], list[AttrMatch]] = {}
    for m in _measures(grounding, exclude):
        if len(m.attrs) == 1 and frame.attr(m.attrs[0]).kind == "data":
            by_phrase.setdefault(m.positions, []).append(m)
    chosen: list[AttrMatch] = []
    # In the order of each phrase's own words: "the 2023 Total ... was Women" names Total
    # before Women, though "2023" (shared) is the first word of both.
    shared = [p for p in set().union(*by_phrase) if sum(p in ps for ps in by_phrase) > 1]
    groups = sorted(by_phrase.values(), key=lambda ms: min(
        min(set(m.positions) - set(shared), default=min(m.positions)) for m in ms))
    parents = [naming_path(frame.attr(m.attrs[0]).path)[:-1] for ms in groups for m in ms]
    for candidates in groups:
        best = max(m.score for m in candidates)
        top = [m for m in candidates if m.score == best]
        if len(top) > 1:
            shared = [m for m in top
                      if parents.count(naming_path(frame.attr(m.attrs[0]).path)[:-1]) > 1]
            top = shared if len(shared) == 1 else top
        if len(top) > 1 and "total" in grounding.q_words:
            # "the total labour force in 2023" over "Total > 2023 | Mexican > 2023 | ...": the
            # group headed Total is the one asked for; the others are its parts.
            totals = [m for m in top if any(TOTAL_LABEL.search(label) for label in
                                            frame.attr(m.attrs[0]).path[:-1])]
            top = totals if len(totals) == 1 else top
        if len(top) == 1:
            chosen.append(top[0])
    return chosen


def _group_match(grounding: Grounding, rows: list[int]) -> ValueMatch | None:
    """The value match that is a row group (a label above several rows), if it is the only
    one: "Germany and Poland" name two groups, and neither's total answers for both."""
    groups = _group_matches(grounding, rows)
    return groups[0] if len(groups) == 1 else None


def _group_matches(grounding: Grounding, rows: list[int]) -> list[ValueMatch]:
    """The value matches that are row groups (a label above several rows)."""
    frame = grounding.frame
    found = []
    for vm in grounding.values:
        attr = frame.attr(vm.attr)
        if TOTAL_LABEL.search(vm.text) and not _heads_its_rows(frame, vm):
            continue  # "Subtotal", repeated under each group, names no group
        if attr.kind == "level" and len(vm.rows) > 1 and (
                attr.index < len(frame.levels) - 1
                or any(len(frame.row_paths[r]) > attr.index + 1 for r in rows)):
            found.append(vm)
    return found


def _heads_its_rows(frame: Frame, vm: ValueMatch) -> bool:
    """Whether a matched label is one group's own: one row labelled by it and every other
    row under it ("All manufacturing industries" above its industries), not a "Subtotal"
    written under each group."""
    paths = [frame.row_paths.get(r) or () for r in vm.rows]
    own = [p for p in paths if p and p[-1] == vm.text]
    return len(own) == 1 and all(p == own[0] or p[:len(own[0])] == own[0] for p in paths)


_CHANGE_WORDS = re.compile(r"\b(?:increase[sd]?|decrease[sd]?|rise|rose|risen|fall|fell|"
                           r"fallen|grow|grew|grown|decline[sd]?|drop|dropped|gain|gained|"
                           r"lose|lost|improve[sd]?|worsen(?:ed)?)\b")


def _names_by_own_words(grounding: Grounding, attr: Attr, noun_at: set[int]) -> bool:
    """Whether the question has every word of a count column's header besides its count
    word ("Number built": "build"), apart from the counted noun and from any other column's
    whole name ("typical *offer*" names Typical offer, not Offers)."""
    own = (_leaf_words(attr) or set(attr.tokens)) - _COUNT_WORDS
    at = {i for i, w in enumerate(grounding.q_words) if w in own}
    taken = {p for m in grounding.attrs if m.full for p in m.positions}
    return bool(own) and own <= {grounding.q_words[i] for i in at - noun_at - taken}


_RANKED_CHANGE_WORDS = re.compile(r"\b(?:increase[sd]?|decrease[sd]?|rise|rose|risen|fall|fell|"
                                  r"fallen|grow|grew|grown|growth|decline[sd]?|drop|dropped)\b")
"""A rise or fall a ranking can be by ("increased the most"); not "gained" or "lost", which
also say a level ("gained the most points")."""


def _unstated_change(grounding: Grounding, words: re.Pattern[str] = _CHANGE_WORDS) -> bool:
    """Whether the question picks rows by a rise or fall ("declined", "increase") that no
    column or value it names states."""
    named_at = grounding.named_positions
    return any(words.fullmatch(w) and i not in named_at
               for i, w in enumerate(grounding.raw_words))


def _said_as_one_run(q_words: list[str], said: tuple[str, ...] | list[str]) -> bool:
    """Whether the question says these words one right after another."""
    n = len(said)
    return any(tuple(q_words[i:i + n]) == tuple(said) for i in range(len(q_words) - n + 1))


def _plan_count(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    frame = grounding.frame
    if analysis.superlative:
        return Refusal("a count that depends on a largest/smallest value needs an LLM")
    if _unstated_change(grounding):
        # "How many departments had a budget increase", "how many age groups declined
        # between 2010 and 2020": rows whose value went up or down, a comparison of two
        # columns per row that no condition here states (a column named "Increase" would).
        return Refusal("counting the rows whose value rose or fell needs an LLM")
    used = _used_attrs(grounding) | {a for c in analysis.conditions
                                     if (a := _condition_key(grounding, c))}
    target = set(analysis.count_words) | set(analysis.target_words)
    # The noun right after "how many" says what is counted: "gold medals" reads the Gold
    # column; "players picked" counts players, whatever a "Pick #" column holds.
    head = {analysis.count_words[0]} if analysis.count_words else set(analysis.target_words[:1])
    # As the table writes it: "points" is the "Pts" of the header ("how many points").
    head = {grounding.table_form(w) for w in head}
    # (A header of a kind of thing, "Product" over Taskflow, Boardwise ... and their features'
    # cells: not a measure, "Number of papers published" over the years, or "Medals" over
    # Gold, Silver, Bronze, whose numbers are the count.)
    across = [node.text for node in frame.col_nodes if node.children
              and len(leaves := frame.leaves_under(node.id)) >= 2
              and head & set(tokens := label_tokens(node.text)) and len(tokens) <= 2
              and not set(tokens) & _COUNT_WORDS
              and not all(leaf.measurable for leaf in leaves)
              and not any(re.search(r"\d", leaf.label) for leaf in leaves)]
    if across and not any(head & level.tokens for level in frame.levels):
        # "How many products include a Gantt chart view" over features by row under a
        # "Product" header over each product's column: the products are columns, and a
        # count of rows counts features.
        return Refusal(f"the question counts {across[0]}, which are the table's columns, not "
                       "its rows; counting across a row needs an LLM")
    # The noun counted is the plural: "how many locomotives listed" counts locomotives, and
    # "cardiology admissions" counts admissions, so a Cardiology column of all-different
    # numbers is no list of cardiologies.
    counted_noun = head if any(re.search(rf"\b{re.escape(w)}(?:s|es)\b", analysis.folded)
                               for w in head) else set(analysis.count_words[-1:]) or head
    # (Not a column of amounts over rows that are the things counted: "how many payments"
    # beside "Payment no." and a Payment column of 760.55s counts the payments, one a row.)
    rows_counted = not head & (_MONEY_WORDS | MEASURING_UNITS) and (_rows_are(frame, head) or any(
        a.measurable and head & a.tokens and _numbers_rows(frame, a.key, rows)
        for a in frame.data_attrs))
    counted = [m for m in _measures(grounding, used)
               if all(frame.attr(k).measurable
                      and not _identifier(frame, frame.attr(k), counted_noun) for k in m.attrs)
               and head & set().union(*(_leaf_words(frame.attr(k)) for k in m.attrs))
               and not (rows_counted and any(_holds_fractions(frame, k, rows)
                                             for k in m.attrs))]
    if not counted and len(rows) == 1:
        # "How many medals did France win (in total)" over Medals > Gold | Silver | Bronze |
        # Total: the group's Total is the number; adding its columns would count twice.
        counted = [AttrMatch(attrs=(k,), label=frame.attr(k).label, score=m.score,
                             positions=m.positions, full=m.full)
                   for m in _measures(grounding, used)
                   if head & _group_words(frame, m.attrs)
                   for k in _total_leaves(frame, m.attrs)][:1]
    several = _named_columns(grounding, used)
    if len(rows) == 1 and len(several) >= 2 and _listed_together(grounding, several) \
            and all(frame.attr(m.attrs[0]).measurable for m in several):
        keys = [m.attrs[0] for m in several]
        return GroupSum(table=frame.ref, rows=rows, columns=keys,
                        description="add " + " and ".join(frame.attr(k).label for k in keys))
    numeric_named = [m for m in several if frame.attr(m.attrs[0]).measurable
                     and not _named_like_operation(frame.attr(m.attrs[0]))
                     and not _identifier(frame, frame.attr(m.attrs[0]), counted_noun)]
    one_row = len(rows) == 1 and bool(grounding.values)
    column_total = not grounding.values and re.search(r"\btotal number\b", analysis.folded)
    if not counted and len(numeric_named) == 1 and (one_row or column_total) \
            and not analysis.conditions and not analysis.superlative:
        # "How many visitors did Lille have in 2019": one row and a named number column is a
        # reading; "total number of visitors in 2019" with no row named is a column total.
        read = frame.attr(numeric_named[0].attrs[0])
        # ("residential *customers*", "migrants *went*": the noun, not a word beside it.)
        nouns = [w for w in analysis.count_words if w not in _VERBS]
        noun = {grounding.table_form(w) for w in nouns[-1:]} or head
        header = read.path[-1] if read.path else read.label
        by_year = _period_label(header)
        # The noun as the question writes it ("nights", not the stem "night").
        stems = {stem(w) for w in noun}
        written = [raw for raw in grounding.raw_words if stem(raw) in stems]
        # The title says what a column headed by a year alone holds ("Rental vacancy rate").
        stated = fold(" ".join(filter(None, [frame.title if by_year else None, read.label,
                                             read.unit])))
        if analysis.wh == "how many" and not _PERCENT_WORDS & (noun | head) and (
                _percent_column(frame, read.key, rows) or _NOT_A_COUNT.search(stated)):
            # "How many vacancies were there in Northgate in 2023" over vacancy rates (%),
            # "how many delays did SkyJet have" over average delays in minutes.
            return Refusal(f"{read.label} holds rates, averages or percentages (as the table "
                           f"says), not a number of {next(iter(written), 'things')}")

        if analysis.wh == "how many" and noun \
                and not noun & (_COUNT_WORDS | MEASURING_UNITS | {"percent", "per"}) \
                and by_year and not any(grounding.in_table(w) for w in noun) \
                and not _title_says(frame, written):
            # "How many *nights* did tourists from Germany spend in 2022" over arrivals by
            # year: the noun is what the number would count, and the table never says it.
            return Refusal(f"the table does not say it counts "
                           f"{next(iter(written), next(iter(noun)))}; the number in "
                           f"{read.label} may count something else")
        counted = numeric_named
    if len(counted) > 1 and counted[1].score == counted[0].score:
        # "How many votes" over "Votes" and "Vote %": a count is no percentage.
        amounts = [m for m in counted if not any(
            "%" in frame.attr(k).label or _percent_column(frame, k, rows) for k in m.attrs)]
        if len({_column_words(frame, m.attrs) for m in counted}) == 1:
            counted = amounts or counted
    if len(counted) > 1 and counted[1].score == counted[0].score:
        # "How many females were employed in Fairleigh" over "2022 > Female" and "2023 >
        # Female": the question does not say which.
        return Refusal(f"{counted[0].label} and {counted[1].label} both fit the question; "
                       "say which (a year, or the group above it)")
    if counted:
        # "How many gold medals did China win": the number is in a column, not a row count.
        keys = list(counted[0].attrs)
        besides = [m for m in numeric_named if not set(m.attrs) & set(keys)]
        if besides and not analysis.conditions:
            # "How many copies of Emma are available" beside Copies and Available: each word
            # names a column of counts, and reading the first would drop the second.
            return Refusal(f"the question names {counted[0].label} and {besides[0].label}; "
                           "say which one to read")
        if len(rows) == 1:
            read = f"read {counted[0].label}"
            return (Lookup(table=frame.ref, rows=rows, column=keys[0], description=read)
                    if len(keys) == 1 else
                    GroupSum(table=frame.ref, rows=rows, columns=keys, description=read))
        repeated = [vm for vm in grounding.values if len(vm.rows) > 1
                    and frame.attr(vm.attr).kind == "level" and not any(
                        ch.isdigit() for ch in vm.text)
                    and len({(frame.row_paths.get(r) or ("",))[-1] for r in vm.rows}) == 1]
        year = _year_column(frame) if repeated else None
        if len(grounding.values) > 1 or year is not None and all(
                len({(v.text if (v := frame.value(r, year.key)) else "") for r in vm.rows})
                == len(vm.rows) for vm in repeated):
            # "in 2010 and 2012": the question names the rows to add; a Year column tells
            # the rows apart, which the years' own check says.
            repeated = []
        if repeated and not _ALL_OF.search(analysis.folded):
            # "the number of options granted" over a roll-forward with a Granted row for each
            # year: one of them is meant, not their sum.
            return Refusal(f"{repeated[0].text} is the label of {len(repeated[0].rows)} rows "
                           "(one per period or section); say which one")
        if len(keys) == 1:
            return Aggregate(op="sum", table=frame.ref, rows=without_totals(frame, rows),
                             column=keys[0], confidence=0.8,
                             description=f"sum {counted[0].label} over the matching rows")
        return Refusal("the question names a column group to count in but no single row")
    if grounding.values and not analysis.conditions and \
            len(flagged := _flag_columns(grounding, analysis, frame)) == 1 and \
            _yes_no(frame, rows, flagged[0]):
        # "How many interchange stations are on the Red line": the Red rows whose
        # Interchange says yes, not every Red row.
        return _count_flagged(frame, rows, flagged[0])
    if not grounding.values and not analysis.conditions:
        if _counts_every_row(grounding, analysis):
            rows = without_totals(frame, list(frame.rows))
            named = [frame.attr(m.attrs[0]) for m in grounding.attrs
                     if m.full and len(m.attrs) == 1]
            noun = head | set(analysis.count_words[-1:])
            grounded = grounding.named_positions
            said_more = {i for i in grounding.content - grounded
                         if grounding.q_words[i] not in noun}
            if said_more and not _rows_are(frame, noun) and \
                    not _SHEET_ORDER.search(analysis.folded):
                # "How many spectators attended the race" over one row per driver: the rows
                # are not spectators, so their number is none of the asked one. ("How many
                # episodes" over "Eps #" says no more than the rows' kind.)
                return Refusal("the question counts something the table's columns and title "
                               "do not name; say which column holds it")
            flagged = _flag_columns(grounding, analysis, frame)
            if len(flagged) == 1:
                # "How many *interchange* stations": the rows whose Interchange says yes.
                return _count_flagged(frame, rows, flagged[0])
            noun_at = {i for i, w in enumerate(grounding.q_words) if w in noun}
            aside = [m for m in grounding.attrs if not m.full and not m.positions & noun_at
                     and not any(frame.attr(k).tokens & noun for k in m.attrs)]
            if aside:
                # "How many drivers retired" beside a "Time/Retired" column: the rows with some
                # value there, which no condition here states; counting them all ignores it.
                return Refusal(f"the question names {aside[0].label} but no value of it to "
                               "count by; say which value counts")
            having = [a for a in named if not a.tokens & noun]
            if len(having) > 1:
                return Refusal("the question names several columns besides what it counts; "
                               "say which rows to count")
            if having and not any(noun & a.tokens for a in frame.attrs if not a.measurable):
                # "How many goals were scored": goals are no rows of the table, so the rows
                # with a Score do not count them.
                return Refusal("the question counts something the rows are not; say which "
                               "column holds it")
            if having:
                # "How many parties have a leader", "how many titles charted in AUS": the rows
                # whose cell of the named column holds something.
                return _count_having(frame, rows, having[0])
            named_text = [a for a in named if not a.measurable]
            tally = bool(head & _TALLY_WORDS) and not _rows_are(frame, head) \
                and not _SHEET_ORDER.search(analysis.folded)
            if len(named_text) == 1 and not tally:
                # "drivers listed under the entrant column": the different values of a column.
                return _count_values(frame, analysis, rows, named_text[0])
            keys = [a for a in named if a.tokens == noun]
            if _DIFFERENT.search(analysis.folded) and len(keys) == 1:
                # "How many different weeks" over a Week column of numbers: its values.
                return _count_values(frame, analysis, rows, keys[0])
            if _DIFFERENT.search(analysis.folded):
                # "How many different directors" beside "Directed by": the different values
                # of a column the words do not name; counting rows counts repeats.
                return Refusal("the question counts different values, and names no column "
                               "that holds them")
            if tally:
                # ("How many locations are *listed*": the question says the rows are those.)
                # "How many wins did they have in total" over one row per season: the rows
                # are seasons, so their number is no number of wins.
                return Refusal("the rows of the table are not what the question counts; name "
                               "the column that holds the number")
            return Count(table=frame.ref, rows=rows, description="count every row of the table",
                         confidence=0.8)
        return Refusal("the question does not say which rows to count")
    rows = without_totals(frame, rows)
    if not rows:
        return Refusal("no row matches everything the question names")
    if not analysis.conditions and grounding.values and all(
            len(vm.rows) == 1 for vm in grounding.values):
        # Counting rows the question names one by one answers nothing; it asks for a number
        # in those rows, which the question does not tie to a column.
        return Refusal("the question names the rows but not the column that holds the number")
    counting_columns = [a for a in frame.data_attrs if a.measurable and a.tokens & _COUNT_WORDS]
    figures = [a for a in frame.data_attrs if a.measurable and head & a.tokens]
    if figures and len(rows) == 1 and not head & GENERIC_WORDS \
            and not _names_rows_by_column(frame, head):
        # "the number of claims for Pet in 2024" beside "Claims paid (GBP m)", one row per
        # line and year: claims are figures of the rows, not the rows; counting gives 1.
        said = next((w for w, q in zip(grounding.raw_words, grounding.q_words, strict=False)
                     if q in head), " ".join(sorted(head)))
        return Refusal(f"the question counts {said}, which the table gives "
                       f"as figures ({figures[0].label}), not as rows; counting rows would not "
                       "answer it")
    noun_at = {i for i, w in enumerate(grounding.q_words) if w in head}
    tallies = [m for m in grounding.attrs if len(m.attrs) == 1
               and frame.attr(m.attrs[0]) in counting_columns
               and _names_by_own_words(grounding, frame.attr(m.attrs[0]), noun_at)
               and not _identifier(frame, frame.attr(m.attrs[0]))]
    if len(tallies) == 1 and not analysis.conditions:
        # "How many aircraft did Embraer build" beside "Number built": the verb names a column
        # of counts, whose numbers are the answer; counting the rows would give the models.
        key = tallies[0].attrs[0]
        if len(rows) == 1:
            return Lookup(table=frame.ref, rows=rows, column=key,
                          description=f"read {tallies[0].label}")
        return Aggregate(op="sum", table=frame.ref, rows=rows, column=key, confidence=0.8,
                         description=f"sum {tallies[0].label} over the matching rows")
    if len(rows) == 1 and counting_columns:
        # One row left and a column of counts ("Number of People"): the answer is probably in
        # that column, which the question does not name.
        return Refusal(f"one row matches; its count may be in {counting_columns[0].label}, "
                       "which the question does not name")
    if len(rows) == 1 and grounding.values and not analysis.conditions \
            and not _rows_are(frame, head | set(analysis.count_words[-1:])) \
            and any(a.measurable for a in frame.data_attrs):
        # "How many girls were in primary school in the West": the rows are regions' levels,
        # not girls; the one row named holds the number in a cell, which no word ties to a
        # column ("girls" is no "Female"), and counting it answers 1.
        return Refusal("one row matches, and the rows are not what the question counts; its "
                       "number is in a column the question does not name")
    counted_words = head | set(analysis.count_words)
    phrase = head | set(_counted_phrase(grounding))
    held = [m for m in grounding.attrs if m.full and len(m.attrs) == 1 and m.positions
            and not analysis.conditions and m.attrs[0] not in used
            and (not frame.attr(m.attrs[0]).measurable
                 or _dated(frame, frame.attr(m.attrs[0]), rows))
            and not frame.attr(m.attrs[0]).tokens & phrase
            and min(m.positions) > 0
            and grounding.q_words[min(m.positions) - 1] in _HOLDING_VERBS]
    if len(held) == 1:
        # "How many Office employees *completed* Forklift Cert" over a matrix of completion
        # dates: the Office rows with a date there.
        return _count_having(frame, rows, frame.attr(held[0].attrs[0]))
    distinct = [a for a in frame.attrs if not a.measurable and a.key not in used
                and a.tokens and a.tokens <= (head or target)]
    if not distinct and len(analysis.count_words) > 1 \
            and _said_as_one_run(grounding.q_words, analysis.count_words):
        # "How many *primary schools*": the noun is the last word, the first qualifies it.
        # (Not "the number of visitors to Wyoming parks": the parks are where they went.)
        noun = {analysis.count_words[-1]}
        distinct = [a for a in frame.attrs if not a.measurable and a.key not in used
                    and a.tokens and a.tokens <= noun]
    amounts = [m for m in grounding.attrs if m.full and len(m.attrs) > 1 and m.positions
               and all(frame.attr(k).measurable for k in m.attrs)]
    if len(distinct) == 1 and amounts and not analysis.conditions:
        # "the total number of theft offences recorded in 2021" over Offence | 2021 > Number
        # of offences, Rate: the number is in the year's columns, not the offences listed.
        return Refusal(f"the question names {amounts[0].label}, columns of amounts; counting "
                       f"the different {distinct[0].label} would not read them")
    if len(distinct) == 1:
        return _count_values(frame, analysis, rows, distinct[0])
    quantity = [m for m in numeric_named if not _identifier(frame, frame.attr(m.attrs[0]))
                and not _percent_column(frame, m.attrs[0], rows)]
    if quantity:
        # "How many people ... in the labor force": the number is in a named column; counting
        # the rows would answer "how many rows".
        return Refusal(f"the question names {frame.attr(quantity[0].attrs[0]).label}, a column "
                       "of amounts; counting rows would not answer it")
    grounded = grounding.named_positions
    inside = [grounding.raw_words[i] for i in sorted(noun_at - grounded)
              if grounding.in_table(grounding.raw_words[i])]
    if inside and len(analysis.count_words) == 1 and not _rows_are(frame, head):
        # "How many Grammys has she won" over award rows: "Grammy" is part of some rows'
        # labels ("Grammy Awards"), a condition the question does not state as a value.
        return Refusal(f"\"{inside[0]}\" appears within labels of the rows, but names none "
                       "of them whole; say which value to count")
    aside = [m for m in grounding.attrs if m.full and len(m.attrs) == 1
             and not analysis.conditions and not frame.attr(m.attrs[0]).measurable
             and m.attrs[0] not in used
             and not frame.attr(m.attrs[0]).tokens & counted_words]
    if aside:
        # "How many tickets did Elena close" beside a "Closed" column: Elena's tickets with
        # some condition on it, which no value states; counting all of hers ignores it. (So
        # too "how many *women* ..." matched to a Sex column: the women are a value of it.)
        return Refusal(f"the question names {aside[0].label} but no value of it to count by; "
                       "say which value counts")
    condition_keys = {a for c in analysis.conditions if (a := _condition_key(grounding, c))}
    holding = [a for a in frame.data_attrs if a.measurable and head
               and head <= set(_leaf_words(a)) and a.key not in condition_keys
               and not _percent_column(frame, a.key, rows) and not _identifier(frame, a)]
    if holding and not _rows_are(frame, head):
        # "The total number of passes at schools with a pass rate above 80%" beside a Passed
        # column: the passes are its figures, not the schools that match.
        return Refusal(f"the question counts what {holding[0].label} holds; say \"the total "
                       f"{holding[0].label}\" to add it up, or name the rows to count")
    if head & _TALLY_WORDS and not _rows_are(frame, head):
        # "How many wins did they have in the Second Division" over one row per season: the
        # seasons that match are not wins; the wins are in a column (W) no word named.
        return Refusal("the rows of the table are not what the question counts; name the "
                       "column that holds the number")
    for level in frame.levels:
        if level.key in used or analysis.count_words[-1:] != (stem("year"),) \
                or not _labels_are_times(frame, level):
            continue
        if _repeats_over(frame, level, rows):
            # "How many years had attendance above 80,000" over a row per stage of each year:
            # the years the rows are under, each counted once per stage.
            name = _level_name(frame, level, rows)
            return Refusal(f"{name} repeats over the matching rows, so counting rows would "
                           "count it more than once; say \"how many different ...\", or how "
                           "many rows")
    label = _deepest_label(frame, rows)
    if label is not None and label.key not in used and not label.measurable \
            and not _identifier(frame, label) and not head & _TALLY_WORDS \
            and not _rows_are(frame, head) and _repeats_over(frame, label, rows) \
            and not _labelled_by_shared_cells(frame, label, rows):
        # "How many people worked on Apollo" over a row per person and week: Apollo's ten
        # rows are three people, and counting the rows counts their weeks.
        name = _level_name(frame, label, rows)
        return Refusal(f"{name} repeats over the matching rows, so counting rows would "
                       "count it more than once; say \"how many different ...\", or how many "
                       "rows")
    if _DIFFERENT.search(analysis.folded) and not _rows_are(frame, head):
        # "How many different directors worked on season 2" over a row per episode: the
        # directors are in a column no word named, and counting its rows counts episodes.
        return Refusal("the question counts different values of a column it does not name; "
                       "name the column")
    return Count(table=frame.ref, rows=rows, description="count the rows that match")


def _level_name(frame: Frame, level: Attr, rows: list[int]) -> str:
    """A level of row labels as a reader knows it: its header, or, unnamed, its first
    label ('the row label "Main Stage"')."""
    if not _UNNAMED_LEVEL.fullmatch(level.label):
        return level.label
    first = next((t for t in _filled_texts(frame, level.key, rows[:50])), "")
    return f"the row label \"{first}\"" if first else "a row label"


_UNNAMED_LEVEL = re.compile(r"row(?: group \d+)?")
"""The name the frame gives a level of row labels no header names."""


_DIFFERENT = re.compile(r"\b(?:different|distinct|unique|separate|various)\b")
_NONE = re.compile(r"(?:none|nil|n/?a|not applicable|[-—–]+)$")
"""A cell that says the row has no value ("none", "n/a", "-")."""


def _says_none(text: str, attr: Attr) -> bool:
    """Whether a cell says its row has no value: "none", "n/a", a dash, or "no" and the
    column's own name ("no genealogy" under Genealogy; "No Doubt" under Band is a name)."""
    folded = fold(text).strip()
    if _NONE.match(folded):
        return True
    said = words(folded)
    return (len(said) > 1 and said[0] == "no"
            and set(content_tokens(" ".join(said[1:]))) <= attr.tokens)


_TALLY_WORDS = frozenset(stem(w) for w in split_words("""
win wins victories losses defeats draws ties points goals assists votes seats medals runs hits
rebounds steals blocks tries wickets appearances caps
"""))
"""Nouns of a tally a row carries in a column ("W", "Pts"), seldom the rows themselves."""


def _column_names_rows(frame: Frame, noun: set[str]) -> bool:
    """Whether a column that names the rows (text, or the rows' own numbers: "how many
    *stages*" over Stage 1-24) has the counted noun in its header ("how many *players*" over a
    Player column). (Not by a bracketed note: "Top scorer (goals)" holds scorers, not goals.)"""
    return any(noun & set(label_tokens(_BRACKETED.sub(" ", a.label))) for a in frame.attrs
               if not a.measurable or _identifier(frame, a))


def _names_rows_by_column(frame: Frame, noun: set[str]) -> bool:
    """Whether a column names the rows by the counted noun (`_column_names_rows`), or the
    title says the rows are such ("Logo retention by signup *cohort*")."""
    by = _TITLE_BY.search(frame.title or "")
    return _column_names_rows(frame, noun) or bool(by and noun & set(content_tokens(by.group(1))))


_TITLE_BY = re.compile(r"\bby\s+([^,;:()]+)", re.IGNORECASE)
"""What a title says its rows are ("... by signup cohort", "by market and contract type")."""


_ROWS_THEMSELVES = frozenset(stem(w) for w in split_words(
    "row rows record records entry entries"))
"""Nouns that count the rows themselves ("how many rows have region North")."""


def _rows_are(frame: Frame, noun: set[str]) -> bool:
    """Whether the counted noun names the table's rows: a text column's name ("how many
    *players*" over a Player column), the table's title, sheet or file name ("how many
    *episodes*" in episodes.csv), or the rows themselves ("how many *rows*")."""
    if noun & GENERIC_WORDS:
        return True
    about = " ".join(filter(None, [frame.title, frame.sheet, frame.file_name]))
    return _column_names_rows(frame, noun) or bool(noun & set(content_tokens(about)))


def _flag_columns(grounding: Grounding, analysis: Analysis, frame: Frame) -> list[Attr]:
    """The named columns whose whole header modifies the counted noun ("how many
    *interchange* stations" beside an Interchange column), the noun being the rows' kind."""
    named = [frame.attr(m.attrs[0]) for m in grounding.attrs if m.full and len(m.attrs) == 1
             and frame.attr(m.attrs[0]).kind == "data"]  # (a row level "School" is no flag)
    modifiers = set(analysis.count_words[:-1]) - set(analysis.count_words[-1:])
    return [a for a in named if modifiers and a.tokens <= modifiers
            and _rows_are(frame, set(analysis.count_words[-1:]) - GENERIC_WORDS)]


_BRACKETED = re.compile(r"\([^()]*\)|\[[^\]]*\]")


_YES = frozenset(("yes", "y", "true", "✓", "✔", "x"))
_NO = frozenset(("no", "n", "false", "", "-", "–", "—"))


def _yes_no(frame: Frame, rows: list[int], attr: Attr) -> bool:
    """Whether a column holds only yes and no marks on these rows."""
    return all((v.text.strip() if v is not None else "").lower() in _YES | _NO
               for v in frame.values_of(attr.key, rows))


def _flag_column(frame: Frame, attr: Attr) -> bool:
    """A column of yes and no marks over the whole table, with a yes among them (a text
    column's fact, read once and stored: a column of numbers is none)."""
    return not attr.measurable and column_doubt(frame, attr.key, _says_yes_and_no)


def _says_yes_and_no(frame: Frame, rows: list[int], key: str) -> bool:
    return _yes_no(frame, rows, frame.attr(key)) and any(
        v is not None and v.text.strip().lower() in _YES for v in frame.values_of(key, rows))


def _count_flagged(frame: Frame, rows: list[int], attr: Attr) -> Plan | Refusal:
    """The rows whose yes/no column says yes ("how many interchange stations" over an
    Interchange column of Yes and No); refused when the column holds anything else."""
    texts = {r: (v.text.strip() if (v := frame.value(r, attr.key)) is not None else "")
             for r in rows}
    said = {t for t in texts.values()}
    yes = [t for t in said if t.lower() in _YES]
    if len(yes) != 1 or not all(t.lower() in _YES | _NO for t in said):
        return Refusal(f"{attr.label} holds more than yes and no; say which value counts")
    return Count(table=frame.ref, rows=[r for r, t in texts.items() if t == yes[0]],
                 filters=[Filter(column=attr.key, op="=", value=yes[0])], confidence=0.8,
                 description=f"count the rows whose {attr.label} is {yes[0]}")


def _count_having(frame: Frame, rows: list[int], attr: Attr) -> Plan | Refusal:
    """The rows whose cell of a named column holds a value (not blank, "n/a" or a dash). A
    zero in a column of numbers may mean "none" or may be a value: that count is refused."""
    values = {r: frame.value(r, attr.key) for r in rows}
    # In a column of numbers or times, a word ("DNF") is no value either.
    held = [r for r, v in values.items()
            if v is not None and v.text.strip() and not _says_none(v.text, attr)
            and (v.measurable or not attr.measurable)]
    if attr.measurable and any(values[r].number == 0 for r in held):  # type: ignore[union-attr]
        return Refusal(f"some rows hold 0 in {attr.label}; say whether a 0 counts")
    return Count(table=frame.ref, rows=held, held=attr.key, confidence=0.8,
                 description=f"count the rows with a {attr.label}")


def _count_values(frame: Frame, analysis: Analysis, rows: list[int], attr: Attr
                  ) -> Plan | Refusal:
    """"How many salespersons ...": count the column's values. When a value repeats over the
    rows, "how many different ..." counts values and a plain "how many" is refused (rows
    or names?); when none repeats, both are the number of rows. A yes/no column's values
    are no things to count: "how many events" over an Event column counts its yes rows
    ("how many different" still counts its values)."""
    if _yes_no(frame, rows, attr) and not _DIFFERENT.search(analysis.folded):
        return _count_flagged(frame, rows, attr)
    held = [r for r in rows if (v := frame.value(r, attr.key)) is not None
            and not _says_none(v.text, attr)]
    absent = len(held) < len([r for r in rows if frame.value(r, attr.key) is not None])
    texts = [v.text for r in held if (v := frame.value(r, attr.key)) is not None]
    bare = {_BRACKETED.sub("", t).strip().casefold() for t in texts}
    if len(bare) < len(set(texts)):
        # "Marco Neri (14)" and "Marco Neri (19)": one name with a figure beside it, which
        # counting the cells' texts would count twice.
        return Refusal(f"{attr.label} writes figures or notes beside its names, so equal "
                       "names differ; an LLM should count them")
    if _DIFFERENT.search(analysis.folded) or len(set(texts)) == len(texts):
        # "No genealogy", "none" or "n/a" says the row has no value: it is not one more.
        return CountDistinct(table=frame.ref, rows=held, column=attr.key,
                             description=f"count the different {attr.label}"
                             + (" (cells saying there is none left out)" if absent else ""))
    year = _year_column(frame)
    if year is not None and year.key != attr.key and _LIST_COUNT.search(analysis.folded):
        # "The total number of competitions listed": the rows, each a year's competition,
        # or the different names? The words ask for what the list holds; say which.
        return Refusal(f"{attr.label} repeats over the years; say \"how many different\" to "
                       "count its values, or \"how many rows\"")
    if year is not None and year.key != attr.key and attr.tokens & _PERIOD_NOUNS:
        # "How many months had overtime above 6000": a month of each year is a month apart,
        # so its different names (Jan, Nov) undercount them.
        return Refusal(f"{attr.label} repeats over the years; say \"how many different\" to "
                       "count its names, or \"how many rows\"")
    if year is not None and year.key != attr.key:
        # "How many primary schools": each school once per year, so the schools are its
        # different values, not its rows.
        pairs = [(v.text, y.text if (y := frame.value(r, year.key)) else "")
                 for r in held if (v := frame.value(r, attr.key)) is not None]
        if len(set(pairs)) == len(pairs):
            return CountDistinct(table=frame.ref, rows=held, column=attr.key,
                                 description=f"count the different {attr.label} (each is "
                                             f"listed once per {year.label})")
    return Refusal(f"{attr.label} repeats over the rows; say \"how many different\" to count "
                   "its values")


_LIST_COUNT = re.compile(r"\b(?:listed|entries|total number|in total|altogether)\b")
"""Words of a count of what a list holds ("the total number of competitions listed")."""


def _names_a_column(grounding: Grounding, words_: tuple[str, ...]) -> bool:
    """Whether "previous" or "next" is part of a column's name the question says whole
    ("what was the *previous team* of X"), or of a row's ("Income *before* income taxes"):
    a column or a row to read, not the row before."""
    at = {i for i, w in enumerate(grounding.q_words) if w in words_}
    return any(m.full and m.positions & at for m in grounding.attrs) \
        or any(len(vm.positions) > 1 and any(min(vm.positions) <= i <= max(vm.positions)
                                             and grounding.q_words[i] in map(stem, words(vm.text))
                                             for i in at) for vm in grounding.values)


_OF_THE_BEST = re.compile(r"^\s*what (?:is|was|are|were) the (.+?) of (?:the|a|an) "
                          r"([^\W\d_]+(?: [^\W\d_]+)?) (?:with|that|which|whose|having)\b")
""""What is the <column> of the <row> with ...": a cell of the row a ranking picks."""


def _asked_of_best(grounding: Grounding, analysis: Analysis, used: set[str]) -> Attr | None:
    """The column asked of the best row in "what is the A of the B with the highest C": A,
    named in full, not a number (a figure of the best row is refused elsewhere); else
    None."""
    m = _OF_THE_BEST.match(analysis.folded)
    if m is None:
        return None
    frame = grounding.frame
    said = set(label_tokens(m.group(1)))
    named = [a for a in grounding.attrs if a.full and len(a.attrs) == 1 and a.attrs[0] not in used
             and not frame.attr(a.attrs[0]).measurable
             and set(label_tokens(frame.attr(a.attrs[0]).label)) == said]
    return frame.attr(named[0].attrs[0]) if len(named) == 1 else None


def _dated(frame: Frame, attr: Attr, rows: list[int]) -> bool:
    """Whether a column's cells on the first rows are dates."""
    values = [v for v in frame.values_of(attr.key, rows[:10]) if v is not None and v.text.strip()]
    return bool(values) and all(v.date for v in values)


def _asked_of(grounding: Grounding, analysis: Analysis, entity: str, used: set[str]
              ) -> Attr | None:
    """In "what is the A of the B ...", the text column A, named in full before the column B
    (`entity`) that names the rows: what is asked of the row; None when the question is not
    so."""
    at = min((min(m.positions) for m in grounding.attrs
              if m.attrs == (entity,) and m.positions), default=None)
    frame = grounding.frame
    besides = [m for m in _named_columns(grounding, used | {entity})
               if m.full and m.positions and not frame.attr(m.attrs[0]).measurable]
    first = min(besides, key=lambda m: min(m.positions), default=None)
    if analysis.wh != "what" or first is None or at is None or min(first.positions) > at \
            or not re.search(r"\bof\s+(?:the\s+)?", " ".join(
                grounding.q_words[max(first.positions) + 1:at])):
        return None
    return frame.attr(first.attrs[0])


def _plan_neighbor(grounding: Grounding, analysis: Analysis) -> Plan | Refusal:
    """The row just before or after the one the question names, in the order a column states
    (dates, years, ranks); in sheet order only when the question says the order is the
    table's ("listed after"). Refused when the question counts or adds rather than reads
    ("how many came after X"), or asks for the anchor ("X is next after whom?")."""
    frame = grounding.frame
    if analysis.op not in ("lookup", "first", "last"):
        return Refusal("counting or adding the rows before/after a row needs an LLM")
    if re.search(r"\b(?:after|before|following|preceding)\s+(?:whom|who|what|which)\b",
                 analysis.folded):
        return Refusal("the question asks which row the named one follows; the offline engine "
                       "reads the row after a named one only")
    anchors = [vm for vm in grounding.values if len(vm.rows) == 1]
    if len(anchors) != 1 or len(grounding.values) != 1 or analysis.conditions:
        return Refusal("before/after needs exactly one named row to start from")
    anchor = anchors[0]
    row = next(iter(anchor.rows))
    # "Which ship was commissioned right after Kittiwake": the named date column orders the
    # rows, and the answer is a row of the named one's kind.
    by = _named_order_column(grounding)
    order = _row_order(frame, list(frame.rows), analysis,
                       {anchor.attr} if by is None else {a.key for a in frame.attrs
                                                         if a.key != by})
    if isinstance(order, Refusal):
        return order
    if row not in order:
        return Refusal(f"{anchor.text} has no place in the order of the rows")
    position = order.index(row) + analysis.neighbor
    if not 0 <= position < len(order):
        return Refusal(f"there is no row {'before' if analysis.neighbor < 0 else 'after'} "
                       f"{anchor.text}")
    used = {anchor.attr}
    asked = _asked_attr(grounding, analysis, used)
    measure = _best_measure(grounding, used, numeric=False)
    if frame.attr(anchor.attr).tokens <= set(analysis.target_words) \
            and (measure is None or not measure.full) \
            and (asked is None or not asked.tokens <= set(analysis.target_words)):
        # "What *station* is listed after Hollywood/Vine": the named row's own column, said
        # whole, is the answer's, not one holding the word in a longer label ("Distance from
        # Union Station").
        asked = measure = None
    key = asked.key if asked is not None else (
        measure.attrs[0] if measure is not None and len(measure.attrs) == 1 else anchor.attr)
    order_key = _order_key(frame, list(frame.rows), {anchor.attr})
    if asked is None and analysis.wh in ("who", "whom") and key != anchor.attr and \
            measure is not None and measure.full and not frame.attr(key).measurable and \
            re.fullmatch(r"\d+", anchor.text.strip()):
        # "Who led the general classification after stage 1": the leader once stage 1 was
        # run (its own row) or at the next stage? The words do not say.
        return Refusal(f"\"{_which_word(analysis)} {anchor.text}\" may mean {anchor.text}'s own "
                       f"row or the next one for {frame.attr(key).label}; ask for the row")
    if asked is None and (analysis.wh in ("who", "whom") or by is not None or (
            order_key is not None and key == order_key[0])):
        # "who was before John Adams", "the island next in rank after Austra": the answer is
        # the same kind of thing as the named row, not the column that orders the rows.
        key = anchor.attr
    # "What is the Took office of the Governor after X": the Governor names the rows.
    key = getattr(_asked_of(grounding, analysis, key, used), "key", key)
    which = _which_word(analysis)
    return Lookup(table=frame.ref, rows=[order[position]], column=key, confidence=0.8,
                  description=f"read {frame.attr(key).label} of the row {which} {anchor.text}")


def _which_word(analysis: Analysis) -> str:
    return "before" if analysis.neighbor < 0 else "after"


def _row_order(frame: Frame, rows: list[int], analysis: Analysis, exclude: set[str],
               named: str | None = None) -> list[int] | Refusal:
    """The rows in the order the table states: by its date, year or rank column, else in
    sheet order when the question says so ("listed", "on this chart"). Ties, or no stated
    order, are refused: the order of the sheet is not time."""
    if len(rows) == 1:
        return rows  # "the first runner-up in 1970": one row, nothing to order
    if _sheet_order_said(frame, analysis):
        # "the first year listed", "the last row": the order of the table, whatever its
        # years say (a list newest first).
        return rows
    found = _named_order_key(frame, rows, named) or _order_key(frame, rows, exclude)
    if found is None:
        if _LISTED.search(analysis.folded):
            return rows
        return Refusal("the table states no one order of its rows (no date, year or rank "
                       "column, or two that disagree); say \"listed after\" to use the order "
                       "of the rows")
    _, keys = found
    ranked = sorted((r for r in rows if r in keys), key=lambda r: (keys[r], r))
    if analysis.neighbor:
        tied = [r for r in ranked if sum(keys[o] == keys[r] for o in ranked) > 1]
        if tied:
            return Refusal("several rows share a place in the order")
    return ranked


def _named_order_key(frame: Frame, rows: list[int], named: str | None
                     ) -> tuple[str, dict[int, float]] | None:
    """The order of the dated column the question names, over the rows that have a date in
    it: "which task started first" with Start and End dates follows Start, and "which store
    closed first" ranks the stores that closed, though Opened dates every row."""
    if named is None:
        return None
    keys = {r: key for r in rows if (v := frame.value(r, named)) is not None
            and (key := _order_number(v, False)) is not None}
    return (named, keys) if len(keys) >= 2 else None


def _named_order_column(grounding: Grounding) -> str | None:
    """The one column of dates or years the question names by a word of its header
    ("started" for Start, "ends" for End), if one: of "Term start" and "Term end", the one
    whose every word it says."""
    frame = grounding.frame
    stems = set(grounding.q_words)
    years = profile(frame).year_columns

    def dated(a: Attr) -> bool:
        return _holds_dates(frame, a.key) or a.key in years

    named = [a for a in frame.data_attrs if a.tokens & stems and dated(a)]
    if len(named) > 1:
        named = [a for a in named if a.tokens <= stems]
    return named[0].key if len(named) == 1 else None


_YEAR_NOUNS = frozenset(stem(w) for w in split_words("year years season seasons"))


def _holds_periods(frame: Frame, key: str) -> bool:
    """Whether a column names periods ("Jan", "Q2", "2021/22"), by its first rows."""
    return any(v is not None and (period_of(v.text) is not None or _period_value(v.text))
               for v in frame.values_of(key, frame.rows[:5]))


_MEASURE_NAME = re.compile(r"(?:measure|indicator|variable|metric)s?", re.IGNORECASE)
"""The column of a long table that says what each row's value is ("measure": area,
yield, production)."""
_LONG_TABLE_ROWS = 20_000
"""Rows read at most to tell whether they mix measures (a long table's question names its
measure; a taller one is checked no further here)."""


def _measures_mixed(frame: Frame, rows: list[int]) -> tuple[str, list[str]] | None:
    """A long table's measure column (`_MEASURE_NAME`) with several values over these rows:
    (its label, the values); None otherwise."""
    for attr in frame.attrs:
        if attr.measurable or not _MEASURE_NAME.fullmatch(fold(attr.label).strip()):
            continue
        kinds = sorted({t for v in frame.values_of(attr.key, rows)
                        if v is not None and (t := v.text.strip())})
        if len(kinds) > 1:
            return attr.label, kinds
    return None


def _names_dates(frame: Frame, key: str, rows: list[int]) -> bool:
    """Whether a column's cells (a row label's text too) write dates, by the first of these
    rows (the plan's: the frame's own rows would decode the whole row tree)."""
    return any(v is not None and (v.date or parse_value(v.text).date)
               for v in frame.values_of(key, rows[:5]))


def _holds_dates(frame: Frame, key: str) -> bool:
    """Whether a column holds dates, by its first rows (no column is read whole for this)."""
    return any(v is not None and v.date is not None
               for v in frame.values_of(key, frame.rows[:5]))


def _tied_at_end(frame: Frame, rows: list[int], key: str, last: bool,
                 places: dict[int, float] | None) -> bool:
    """True when the first (or last) place of the order is shared by rows whose answers
    differ: which one is "the last" is then not stated ("2012-13" on several rows is fine
    when the question reads the season itself)."""
    if places is None or len(rows) < 2:
        return False
    end = rows[-1] if last else rows[0]
    shared = [r for r in rows if places.get(r) == places.get(end)]
    answers = {frame.value(r, key).text if frame.value(r, key) else "" for r in shared}
    return len(answers) > 1


def _either_or(grounding: Grounding) -> tuple[ValueMatch, ValueMatch] | None:
    """Two values of one column joined by "or" ("1967 or 1968", "Rasht or Kerman")."""
    q = grounding.q_words
    values = sorted(grounding.values, key=lambda vm: min(vm.positions))
    for a, b in zip(values, values[1:], strict=False):
        between = q[max(a.positions) + 1:min(b.positions)]
        if a.attr == b.attr and a.text != b.text and "or" in between:
            return a, b
    return None


_COMPARED_NOUN = re.compile(r"\b(?:more|fewer|less)\s+(\w+)")


def _plan_compare(grounding: Grounding, analysis: Analysis,
                  either: tuple[ValueMatch, ValueMatch], rows: set[int]) -> Plan | Refusal:
    """Which of two named values has more (or less) of something, or more rows (among the
    rows the rest of the question selects: "more *players* in Red or Blue")."""
    frame = grounding.frame
    a, b = either
    measure = _best_measure(grounding, {a.attr}, numeric=True, fallback=False)
    word = "more" if analysis.superlative == "max" else "less"
    if measure is not None:
        if len(a.rows) != 1 or len(b.rows) != 1 or len(measure.attrs) != 1:
            return Refusal("each of the two compared values must name one row")
        key = measure.attrs[0]
        ahead = ", and by how much" if analysis.margin else ""
        return Compare(table=frame.ref, rows=sorted(a.rows | b.rows), column=key,
                       description=f"which of {a.text} or {b.text} has {word} "
                                   f"{frame.attr(key).label}{ahead}", margin=analysis.margin,
                       answer=a.attr, direction=analysis.superlative or "max",
                       operands=((next(iter(a.rows)), key), (next(iter(b.rows)), key)))
    counted = _COMPARED_NOUN.search(analysis.folded)
    if counted and stem(counted.group(1)) in grounding.unexplained_stems:
        # "Which venue had more *wins*": wins are not rows, so more rows would not say.
        return Refusal(f"the table has no column of {counted.group(1)} to count")
    return CompareCount(table=frame.ref, rows=sorted((a.rows | b.rows) & rows),
                        description=f"which of {a.text} or {b.text} has {word} rows",
                        answer=a.attr, direction=analysis.superlative or "max",
                        groups=((a.text, sorted(a.rows & rows)), (b.text, sorted(b.rows & rows))))


_ACROSS_YEARS = re.compile(r"\b(?:all|the|these|those|both|three|two|four|five|several)\s+"
                           r"(?:years|seasons)\b|\bcombined\b|\bcumulative(?:ly)?\b|"
                           r"\baltogether\b|\bin all\b|\bbetween\b|\bfrom\b[^?]*\bto\b")
"""Words that ask for a sum over several years."""


def _years_spanned(frame: Frame, result: Plan) -> list[str]:
    """The different years of the rows a sum adds, by the table's year column (none when the
    table has no year column, or the rows are of one year)."""
    # The stored facts say which columns hold only years: no column is read to find out.
    years = [k for k in profile(frame).year_columns if k not in result.measure]
    if len(years) != 1:
        return []
    year = frame.attr(years[0])
    if not _one_row_per_year(frame, result.rows, year):
        return []
    found = {v.text.strip() for v in frame.values_of(year.key, result.rows) if v is not None}
    # Calendar years only: a "Years" column of durations (12, 7) is an amount, not a time.
    return sorted(found) if all(_YEAR.fullmatch(t) for t in found) else []


def _one_row_per_year(frame: Frame, rows: list[int], year: Attr) -> bool:
    """Whether the rows repeat a thing once per year (a school's row for 2022, 2023, 2024): a
    text column whose values repeat over the rows, never twice in one year. A "Year joined"
    beside one row per person is a fact of each row, not the table's time."""
    years = [v.text.strip() if v else "" for v in frame.values_of(year.key, rows)]
    for attr in frame.attrs:
        if attr.measurable or attr.key == year.key:
            continue
        names = [v.text.strip() if v else "" for v in frame.values_of(attr.key, rows)]
        pairs = list(zip(names, years, strict=True))
        if len(set(names)) < len(names) and len(set(pairs)) == len(pairs):
            return True
    return False


_PRICE_PER = re.compile(r"(?:[$£€¥]|\b(?:usd|eur|gbp|cents?|pence)\b)\s*(?:per|/)\s*[^\W\d_]+",
                        re.IGNORECASE)
"""Money per a unit in a title ("US$ per tonne", "USD/FEU"); not "Sales per region"."""


def _headed_by_a_time(attr: Attr) -> bool:
    """Whether a column's own header is a time alone ("2023", "Jan-24"): its figures are
    whatever the title says the table measures."""
    return _period_label(attr.path[-1] if attr.path else attr.label)


def _titled_percent(frame: Frame, key: str) -> bool:
    """Whether a column whose header is a time alone ("Jan") sits under a title that says its
    figures are percentages ("On-time delivery by carrier (%)")."""
    return bool(_headed_by_a_time(frame.attr(key)) and (
        _PERCENT_TITLE.search(frame.title or "")
        or any(_PERCENT_NOTE.search(text) for text in (frame.title or "", *frame.notes))))


_PERCENT_NOTE = re.compile(r"[,;:]\s*(?:in\s+)?(?:%|percent(?:age)?s?)\W*$|"
                           r"^\W*(?:figures|values|all figures)\s+(?:are\s+)?(?:in\s+)?"
                           r"(?:%|percent(?:age)?s?)\b", re.IGNORECASE)
"""A note stating the table's unit as percent ("... arriving on schedule, %", "Figures in
percent")."""


def _stated_of(frame: Frame, key: str) -> str:
    """What a column's figures are, as the table states it: its label, and the title too when
    its header is a time alone ("2022-23" under "Core schools funding per pupil") and states
    no unit of its own ("Capacity added (MW) > 2023" under a note of "$ millions per MW")."""
    attr = frame.attr(key)
    title = frame.title or ""
    if _headed_by_a_time(attr) and not has_own_unit(attr.path, title) \
            and (per := _PER_HEAD.search(title) or _PRICE_PER.search(title)):
        # ("Bunker fuel surcharge (US$ per tonne)" over "Jan-24": a price per tonne.)
        return f"{attr.label} {per.group(0)}"
    return attr.label


_PER_HEAD = re.compile(r"\bper\s+(?:pupil|head|capita|person|student|resident|inhabitant|"
                       r"employee|household|patient|bed|member|1,?000|10,?000|100,?000|"
                       r"thousand|hundred|million)\b", re.IGNORECASE)
"""A title's rate per head of something ("funding per pupil"), not per a row's kind ("Sales
per region")."""


_AVERAGE_NAME = re.compile(
    r"\b(?:adr|revpar|unit price|(?:average|avg|mean|median)\s+(?:\w+\s+)?(?:price|cost|rate|"
    r"fare|wage|salary|earnings|income|length|duration|delay|time|size|age|score|value))\b",
    re.IGNORECASE)
"""A column of averages of prices, rates or sizes, or of prices per unit ("avg_cost_gbp",
"ADR (EUR)", "RevPAR", "Average length of stay"). (An average count, "Avg Daily Riders" of
each route, adds up over the routes.)"""


def _averages_named(frame: Frame, key: str) -> bool:
    """Whether a column holds averages or prices per unit, as its header says (or the title,
    above a header that is a time alone: "Average length of stay" over "2024")."""
    attr = frame.attr(key)
    if _AVERAGE_NAME.search(attr.label.replace("_", " ")):
        return True
    return bool(_headed_by_a_time(attr) and frame.title
                and _AVERAGE_NAME.search(frame.title.split("\n")[0]))


_RATE_NAME = re.compile(r"\b(?:pct|rate|ratio)\s*$", re.IGNORECASE)
"""A column named as a rate at its end ("fsm_pct", "attendance_rate", "Pupil-teacher ratio")."""
_RATE_LABEL = re.compile(r"[$£€¥%a-z]\s*/\s*(?:\d[\d,]*\s*)?[a-z]{1,4}\b|\bper\s+(?!cent\b)\w",
                         re.IGNORECASE)
"""A header stating a rate per unit ("Gasoline ($/gal)", "Deaths per 1,000", "Combined
(L/100 km)")."""


_CLAIM = re.compile(r"\b(more|higher|greater|larger|bigger|less|fewer|lower|smaller)\b"
                    r"[^?]*?\bthan\b|\b(?:exceed|surpass)(?:ed|es|s)?\b")
"""The comparative of a yes/no claim about two rows ("Does A have more beds than B?", "Did
the yield in 2021 exceed the yield in 2011?"). ("older", "earlier" are left out: an older row
has the lower year.)"""


def _claim_word(m: re.Match[str]) -> str:
    """The comparative a claim makes: its word, or "higher" for "exceed"."""
    return m.group(1) or "higher"


_MORE_WORDS = frozenset(split_words("more higher greater larger bigger"))
_EITHER_WAY = re.compile(r"\b(more|higher|greater|larger|bigger|less|fewer|lower|smaller)\s+or\s+"
                         r"(more|higher|greater|larger|bigger|less|fewer|lower|smaller)\b")


_THRESHOLD_WORDS = {">": "above", ">=": "at least", "<": "below", "<=": "at most"}
_SIDE = r"(?:above|below|over|under|more|less|fewer|higher|lower|greater|smaller)"
_CHOICE_OF_SIDES = re.compile(rf"\b{_SIDE}\s*(?:/|\bor\b)\s*{_SIDE}\b")
"""Two sides of a number offered ("above/below 12", "more or less than 5")."""


def _plan_threshold(grounding: Grounding, analysis: Analysis) -> Plan | Refusal | None:
    """"Did Day Surgery admissions in Q2 2024 exceed 1900?": the one cell the question names
    without its condition, held against the condition's number (Yes or No, with the cell);
    None when the question names no one cell of numbers."""
    [cond] = analysis.conditions
    if cond.op not in _THRESHOLD_WORDS or cond.high is not None or cond.on_year or cond.bare \
            or _CHOICE_OF_SIDES.search(analysis.folded):
        return None  # ("above/below 12" asks which side, not yes or no)
    read = plan(grounding, analysis.model_copy(update={"conditions": [], "yes_no": False}))
    if not isinstance(read, Lookup) or not grounding.frame.attr(read.column).measurable:
        return None
    frame = grounding.frame
    if cond.percent and not _percent_column(frame, read.column, read.rows):
        return Refusal(f"the question holds {frame.attr(read.column).label} against a "
                       "percentage, and the column holds no percentages")
    cell = frame.value(read.rows[0], read.column)
    if cond.scaled and cell is not None and cell.scale:
        # (As a condition's: "over 6 million" against "9.6" in a column of millions.)
        return Refusal(f"{frame.attr(read.column).label} is written in a scale of its own; "
                       "give the number as the column writes it")
    return Threshold(table=frame.ref, rows=read.rows, column=read.column,
                     comparison=cond.op, number=cond.number, confidence=read.confidence,
                     description=f"whether {read.description.removeprefix('read ')} is "
                                 f"{_THRESHOLD_WORDS[cond.op]} {fmt(cond.number)}")


def _plan_claim(grounding: Grounding, analysis: Analysis) -> Plan | Refusal:
    """"Does Cardiology have more beds than Oncology?": the two named rows compared on the
    one numeric column the question names; Yes or No, with both cells."""
    m = _CLAIM.search(analysis.folded)
    values = sorted(grounding.values, key=lambda vm: min(vm.positions))
    if m is not None and len(values) == 1 and not analysis.conditions:
        return _plan_column_claim(grounding, analysis, m, values[0])
    if m is None or len(values) != 2 or analysis.conditions:
        return Refusal("the claim does not name two rows and one comparison")
    a, b = values
    if a.attr != b.attr or len(a.rows) != 1 or len(b.rows) != 1 or a.rows == b.rows:
        return Refusal("each side of the claim must name one row of the same column")
    than = len(words(analysis.folded[:m.end()])) - 1
    if not min(a.positions) < than < min(b.positions):
        return Refusal("the claim's second row does not follow \"than\"")
    measure = _best_measure(grounding, {a.attr}, numeric=True, fallback=False)
    if measure is None or len(measure.attrs) != 1:
        return Refusal("the claim does not name one numeric column")
    key = measure.attrs[0]
    direction = "max" if _claim_word(m) in _MORE_WORDS else "min"
    either = _EITHER_WAY.search(analysis.folded, m.start())
    choices = None
    if either is not None and either.start() == m.start():
        # "is A's purse more or less than B's": the word that holds, not yes or no.
        first, second = either.groups()
        if (first in _MORE_WORDS) == (second in _MORE_WORDS):
            return Refusal("the two words of the question's choice say the same")
        choices = (first, second) if first in _MORE_WORDS else (second, first)
    rows = (next(iter(a.rows)), next(iter(b.rows)))
    return Compare(table=grounding.frame.ref, rows=sorted(rows), column=key, answer=a.attr,
                   direction=direction, claim=True, choices=choices,
                   operands=((rows[0], key), (rows[1], key)),
                   description=f"whether {a.text} has {_claim_word(m)} {measure.label} than "
                               f"{b.text}")


def _plan_direction_claim(grounding: Grounding, analysis: Analysis) -> Plan | Refusal | None:
    """"Did Teesside leakage increase from 2021/22 to 2022/23?": one row's cells in the two
    named columns, the newer against the older; Yes when it moved the way the question says
    (an unchanged figure neither rose nor fell). None when the question is not worded so."""
    folded = analysis.folded
    up, down = _UP_WORDS.search(folded), _DOWN_WORDS.search(folded)
    if bool(up) == bool(down) or any(not c.on_year for c in analysis.conditions) \
            or _MOST_WORDS.search(folded) or _LEAST_WORDS.search(folded):
        return None
    frame = grounding.frame
    if EVERY_STEP.search(folded) is not None and (
            steady := _plan_steady_rows(grounding, bool(up))) is not None:
        return steady
    single = [vm for vm in grounding.values if len(vm.rows) == 1]
    if len(single) != 1 or any(next(iter(single[0].rows)) not in vm.rows
                               for vm in grounding.values):
        return Refusal("the question does not name the one row whose change it asks about")
    row = next(iter(single[0].rows))
    columns = _newer_and_older(grounding, analysis, {single[0].attr},
                               "a rise or a fall needs the two columns it runs between, named "
                               "by the question")
    if isinstance(columns, Refusal) and EVERY_STEP.search(folded) is not None and \
            (periods := _periods_under(grounding, {single[0].attr})) is not None:
        # "Did visits at Eastgate increase every quarter in 2023?": the quarters under 2023.
        heading, span = periods
        return Steady(table=frame.ref, rows=[row], cells=[(row, k) for k in span],
                      direction="up" if up else "down",
                      description=f"whether {single[0].text} {'rose' if up else 'fell'} at "
                                  f"every step of {heading}")
    if isinstance(columns, Refusal):
        return columns
    new, old = columns
    if (each := EVERY_STEP.search(folded)) is not None and not _one_step(frame, new, old):
        # "Did revenue increase every year from 2017 to 2019": each year's step, not only the
        # two ends, which rose even where a year between fell.
        span = _span_of_periods(frame, old, new)
        if span is None:
            return Refusal(f"\"{each.group(0)}\" asks about each step between the two "
                           "columns, and the columns between them are not one period each")
        way = "rose" if up else "fell"
        return Steady(table=frame.ref, rows=[row], cells=[(row, k) for k in span],
                      # (The two ends' claim, checked at each step: its prior, 0.9.)
                      direction="up" if up else "down",
                      description=f"whether {single[0].text} {way} at every step from "
                                  f"{frame.attr(old).label} to {frame.attr(new).label}")
    word = "higher" if up else "lower"
    return Compare(table=frame.ref, rows=[row], column=new, answer=single[0].attr,
                   direction="max" if up else "min", claim=True,
                   operands=((row, new), (row, old)),
                   description=f"whether {frame.attr(new).label} is {word} than "
                               f"{frame.attr(old).label} for {single[0].text}")


def _plan_steady_rows(grounding: Grounding, up: bool) -> Plan | Refusal | None:
    """"Did unique visitors increase every month from January to June?" over one row per
    month: the named column's cells in the rows from the first named period to the second, in
    the sheet's order (either way), each row a period; Yes when each step rose (fell). None
    when the question does not name two such rows of one column and nothing else."""
    frame = grounding.frame
    values = sorted(grounding.values, key=lambda vm: min(vm.positions))
    if len(values) != 2 or values[0].attr != values[1].attr or \
            any(len(vm.rows) != 1 for vm in values) or values[0].rows == values[1].rows:
        return None
    attr = values[0].attr
    measure = _best_measure(grounding, {attr}, numeric=True, fallback=False)
    if measure is None or len(measure.attrs) != 1:
        return Refusal("the question does not name the one column whose steps it asks about")
    start, end = (next(iter(vm.rows)) for vm in values)
    rows = _period_rows(frame, attr, start, end)
    if rows is None or len(rows) < 3:
        return Refusal("the rows between the two named periods are not one period each")
    labels = [frame.value(r, attr).text for r in rows]  # type: ignore[union-attr]
    years = [[int(y) for y in _FY_OR_YEAR.findall(t)][:1] for t in labels]
    if all(years) and any(a[0] > b[0] for a, b in itertools.pairwise(years)):
        return Refusal("the rows between the two named periods do not run from the first to "
                       "the second")
    key = measure.attrs[0]
    return Steady(table=frame.ref, rows=sorted(rows), cells=[(r, key) for r in rows],
                  direction="up" if up else "down",
                  description=f"whether {measure.label} {'rose' if up else 'fell'} at every "
                              f"step from {values[0].text} to {values[1].text}")


def _periods_under(grounding: Grounding, exclude: set[str]) -> tuple[str, list[str]] | None:
    """The one header the question names that heads three or more period columns of one
    measure ("2023" over Q1 to Q4), with those columns in the order of their periods, which
    must be the sheet's: (the header's label, the columns). None otherwise."""
    frame = grounding.frame
    found = []
    for m in grounding.attrs:
        keys = [k for k in m.attrs if k not in exclude]
        if len(keys) < 3 or len(keys) != len(m.attrs):
            continue
        paths = [naming_path(frame.attr(k).path) for k in keys]
        if len({len(p) for p in paths}) != 1:
            continue
        apart = {i for i in range(len(paths[0])) if len({p[i] for p in paths}) > 1}
        if len(apart) != 1:
            continue
        level = next(iter(apart))
        places = [period_of(p[level]) for p in paths]
        if any(p is None for p in places) or len({p[0] for p in places}) != 1:  # type: ignore[index]
            continue
        order = [p[1] for p in places]  # type: ignore[index]
        if order != sorted(order) or len(set(order)) != len(order):
            continue  # the sheet's order must be the periods'
        found.append((m.label, keys))
    return found[0] if len(found) == 1 else None


def _span_of_periods(frame: Frame, old: str, new: str) -> list[str] | None:
    """The columns from `old` to `new`, oldest first, in the sheet's order (either way): those
    that measure what the two ends do, differing from them only in headers that name a time
    ("Revenue > 2018" between "Revenue > 2017" and "Revenue > 2019"; other measures between
    them, "Units > 2018", are passed over). None when fewer than three, or when their years
    do not run one way from the old to the new."""
    keys = [a.key for a in frame.data_attrs]
    if old not in keys or new not in keys:
        return None
    ends = [naming_path(frame.attr(k).path) for k in (old, new)]
    if len(ends[0]) != len(ends[1]):
        return None
    timed = {i for i, (a, b) in enumerate(zip(*ends, strict=True)) if a != b}
    if not timed or not all(names_a_time(ends[0][i]) and names_a_time(ends[1][i])
                            for i in timed):
        return None
    i, j = keys.index(old), keys.index(new)
    step = 1 if j > i else -1
    span = []
    for key in keys[i:j + step:step]:
        path = naming_path(frame.attr(key).path)
        if len(path) != len(ends[1]) or any(path[n] != ends[1][n] for n in range(len(path))
                                            if n not in timed):
            continue  # another measure between the periods
        if not all(names_a_time(path[n]) for n in timed):
            return None  # a "Change" or "Total" column inside the span
        span.append(key)
    years = [[int(y) for y in _FY_OR_YEAR.findall(frame.attr(k).label)][:1] for k in span]
    if all(years) and any(a[0] > b[0] for a, b in itertools.pairwise(years)):
        return None  # years that do not run from the old column to the new
    return span if len(span) >= 3 else None


def _one_step(frame: Frame, new: str, old: str) -> bool:
    """Whether two columns are a single step apart: each names one year, the years one
    apart."""
    years = [set(_FY_OR_YEAR.findall(frame.attr(k).label)) for k in (new, old)]
    if any(len(y) != 1 for y in years):
        return False
    high, low = int(next(iter(years[0]))), int(next(iter(years[1])))
    return abs(high - low) == 1


def _plan_column_claim(grounding: Grounding, analysis: Analysis, m: re.Match[str],
                       value: ValueMatch) -> Plan | Refusal:
    """"Were Girassol's reserves higher in 2021 than in 2023?": one row's cells in two named
    columns, the first named before "than" and the other after it; Yes or No, with both."""
    frame = grounding.frame
    if len(value.rows) != 1:
        return Refusal(f"\"{value.text}\" names several rows; say which one")
    columns = _columns_around_than(grounding, analysis, m, {value.attr})
    if isinstance(columns, Refusal):
        return columns
    a, b = columns
    row = next(iter(value.rows))
    if _percent_column(frame, a, [row]) != _percent_column(frame, b, [row]):
        return Refusal("one compared column is of percentages and the other is not")
    if _EITHER_WAY.search(analysis.folded, m.start()):
        return Refusal("a choice of two words about two columns needs an LLM")
    direction = "max" if _claim_word(m) in _MORE_WORDS else "min"
    return Compare(table=frame.ref, rows=[row], column=a, answer=value.attr,
                   direction=direction, claim=True, operands=((row, a), (row, b)),
                   description=f"whether {frame.attr(a).label} is {_claim_word(m)} than "
                               f"{frame.attr(b).label} for {value.text}")


def _columns_around_than(grounding: Grounding, analysis: Analysis, m: re.Match[str],
                         exclude: set[str], numeric: bool = False) -> tuple[str, str] | Refusal:
    """The two columns a comparison names, the first before its "than" and the other after
    it ("higher *in 2021* than *in 2023*", "more *bronze medals* than *silver medals*"), each
    by words only it is named by; they must measure the same kind of thing. `numeric`: only
    columns of numbers count (the "nations" of "how many nations" names the rows counted)."""
    frame = grounding.frame
    named = [n for n in _named_columns(grounding, exclude)
             if not numeric or frame.attr(n.attrs[0]).measurable]
    than = len(words(analysis.folded[:m.end()])) - 1
    if len(named) != 2 and numeric:
        return _columns_either_side(grounding, than, exclude)
    if len(named) != 2:
        return Refusal("the claim does not name two columns of the row")
    # Each column by the words only it is named by ("Q2" and "Q1" of "Q2 2024 ... Q1 2024").
    own = [n.positions - o.positions for n, o in (named, named[::-1])]
    if not all(own):
        return Refusal("the claim does not name two columns of the row")
    (first, first_at), (second, second_at) = sorted(zip(named, own, strict=True),
                                                    key=lambda pair: min(pair[1]))
    if not (max(first_at) < than < min(second_at)):
        return Refusal("the claim's second column does not follow \"than\"")
    return _alike(frame, first.attrs[0], second.attrs[0])


def _columns_either_side(grounding: Grounding, than: int, exclude: set[str]
                         ) -> tuple[str, str] | Refusal:
    """Where a phrase names a group of columns ("2022" over Number of offences and Rate per
    100,000): on each side of "than", the one column of numbers that the words of that side
    name best ("fewer recorded offences in 2022 than in 2021": Number of offences under 2022,
    and under 2021, each named by "offences" and its year)."""
    frame = grounding.frame
    sides: list[list[AttrMatch]] = [[], []]
    for match in grounding.attrs:
        if len(match.attrs) != 1 or match.attrs[0] in exclude or not match.positions \
                or frame.attr(match.attrs[0]).kind != "data" \
                or not frame.attr(match.attrs[0]).measurable:
            continue
        sides[max(match.positions) > than].append(match)
    chosen = []
    for side in sides:
        best = max((match.score for match in side), default=None)
        top = [match for match in side if match.score == best]
        if len(top) != 1:
            return Refusal("the claim does not name one column on each side of \"than\"")
        chosen.append(top[0].attrs[0])
    return _alike(frame, chosen[0], chosen[1])


def _alike(frame: Frame, a: str, b: str) -> tuple[str, str] | Refusal:
    """Two compared columns, unless they measure different things."""
    if a == b:
        return Refusal(f"both sides of the claim name {frame.attr(a).label}")
    if measure_apart(frame.attr(a).path, frame.attr(b).path):
        return Refusal(f"{frame.attr(a).label} and {frame.attr(b).label} differ in more than "
                       "one header, so they measure different things")
    return a, b


_COUNTED_THEN_VERB = re.compile(r"\bhow many\b.*\b(?:had|have|has|were|was|are|is|did|do|"
                                r"does|got|get|gets|saw|see|sees|[^\W\d_]{3,}ed)\b")
"""The rows a count names, then the verb that says what they did ("how many sites *had*",
"how many of the industries listed *had*")."""
_COMPARED_ROWS_ASKED = re.compile(r"^\s*(?:(?:in|for|of|on|at)\s+)?(?:how many|which|what|list|"
                                  r"name|give|show)\b")
"""Questions that count or name the rows a comparison of two columns keeps."""


def _plan_columns_compared(grounding: Grounding, analysis: Analysis) -> Plan | Refusal | None:
    """"How many sites had a higher count in 2023 than in 2020?", "Which categories have
    fewer available units than their reorder level?": the rows whose cell in one named column
    is more (or less) than their cell in the other, counted or named; each row compared with
    itself, never with a named row. None when the question is not worded so, for the
    refusal of a comparison with a named row to stand."""
    m = _CLAIM.search(analysis.folded)
    if m is None or m.group(1) is None or analysis.conditions or analysis.superlative \
            or not _COMPARED_ROWS_ASKED.match(analysis.folded) \
            or analysis.op not in ("count", "lookup"):
        return None
    if analysis.op == "count" and not _COUNTED_THEN_VERB.search(analysis.folded[:m.start()]):
        # "How many percentage points higher was it among men than among women": a
        # difference in a unit, no rows counted ("how many sites *had* a higher count").
        return None
    frame = grounding.frame
    columns = _columns_around_than(grounding, analysis, m, {vm.attr for vm in grounding.values},
                                   numeric=True)
    if isinstance(columns, Refusal):
        return None
    a, b = columns
    rows, filters, problem = _filter_rows(grounding, analysis)
    if problem:
        return Refusal(problem)
    rows = without_totals(frame, rows)
    for key in (a, b):
        attr = frame.attr(key)
        if not attr.measurable or _identifier(frame, attr):
            return Refusal(f"{attr.label} holds no amounts to compare")
        if attr.tokens & _RANK_WORDS:
            return Refusal(f"{attr.label} is a rank, where more may mean a larger or a "
                           "smaller number")
    if _percent_column(frame, a, rows) != _percent_column(frame, b, rows):
        return Refusal("one compared column is of percentages and the other is not")
    more = _claim_word(m) in _MORE_WORDS
    kept = [r for r in rows
            if (x := frame.value(r, a)) is not None and (y := frame.value(r, b)) is not None
            and x.measurable and y.measurable
            and (x.number > y.number if more else x.number < y.number)]
    said = f"{frame.attr(a).label} is {'higher' if more else 'lower'} than {frame.attr(b).label}"
    compared = Filter(column=a, op=">" if more else "<", other=b)
    if analysis.op == "count":
        label = _deepest_label(frame, rows)
        if label is not None and not label.measurable and _repeats_over(frame, label, rows):
            return Refusal(f"{_level_name(frame, label, rows)} repeats over the rows, so "
                           "counting rows would count it more than once")
        return Count(table=frame.ref, rows=kept, filters=[*filters, compared],
                     description=f"count the rows whose {said}")
    listed = _listed_attr(grounding, analysis, {a, b, *(vm.attr for vm in grounding.values)})
    if listed is None:
        return Refusal("the question does not say which column names the rows to list")
    if not kept:
        return Refusal(f"no row's {said}")
    if len(kept) > LIST_LIMIT:
        return Refusal(f"{len(kept)} rows match, too many to list in an answer; open the "
                       "table, or narrow the question")
    return ReadRows(op="list", table=frame.ref, rows=kept, column=listed.key,
                    filters=[*filters, compared],
                    description=f"list {listed.label} of the rows whose {said}")


_HOLDING_VERBS = frozenset(stem(w) for w in split_words(
    "completed took taken finished passed attended has have had"))
"""Verbs saying a row holds something in the column named right after them."""
_AUXILIARY_WORDS = frozenset(split_words("did do does were are was is have has had will can"))


def _counted_phrase(grounding: Grounding) -> list[str]:
    """The words (stems) after "how many" up to its first verb: "how many Office employees
    *completed* Forklift Cert" counts Office employees; the rest says which of them."""
    q, raw = grounding.q_words, grounding.raw_words or grounding.q_words
    start = next((i + 1 for i in range(len(q) - 1) if q[i] == "how" and q[i + 1] == "many"),
                 None)
    if start is None:
        return []
    phrase = []
    for i in range(start + 1, len(q)):
        word = raw[i] if i < len(raw) else q[i]
        if word in _AUXILIARY_WORDS or q[i] in _VERBS or word.endswith("ed") and len(word) > 4:
            break
        phrase.append(q[i])
    return phrase


def _counts_every_row(grounding: Grounding, analysis: Analysis) -> bool:
    """"How many episodes are listed?", "total number of rows": a count with nothing to
    filter on, whose counted noun is fully explained (it names the rows, or a text column)."""
    if not analysis.count_words or grounding.unexplained_stems:
        return False
    frame = grounding.frame
    if any(len(path) > 1 for path in frame.row_paths.values()):
        return False  # grouped rows: which level is counted is not clear
    counted = set(_counted_phrase(grounding) or analysis.count_words)
    # (The title's words, or the file's, describe the table: "how many councils are in the
    # *waste* table".)
    about = _words_about(frame, notes=False) | _TABLE_WORDS
    if any(grounding.q_words[i] not in counted | about
           for i in grounding.content & grounding.explained - grounding.named_positions):
        # "How many matches went to *penalties*": a word only the notes explain ("Pens =
        # penalty shoot-out score") narrows the rows, and no condition restates it.
        return False
    return any(m.full for m in grounding.attrs) or not grounding.attrs


_TABLE_WORDS = frozenset(stem(w) for w in split_words("table list sheet report data shown"))
"""Words that name the table itself."""


def _condition_key(grounding: Grounding, cond: Condition) -> str | None:
    attr = _condition_attr(grounding, cond)
    return attr.key if attr else None


_SPAN_OF_YEARS = re.compile(
    r"(?:\bfrom\s+(?:fy\s?)?(?P<a>(?:19|20)\d\d)\s+(?:to|through|thru|until|till)|"
    r"\bbetween\s+(?:fy\s?)?(?P<b>(?:19|20)\d\d)\s+and|"
    r"\b(?:fy\s?)?(?P<c>(?:19|20)\d\d)\s*(?:[-\u2013\u2014]|\s(?:through|thru)\s))"
    r"\s*(?:fy\s?)?(?P<end>(?:19|20)\d\d)(?![\d/])", re.IGNORECASE)
"""A span of years with its ends ("from 2019 to 2021", "between 2018 and 2023", "over
2018-2023")."""


_STATUS_MARK = re.compile(r"\s*\((?:[a-z]{1,2}|provisional|prov\.?|est\.?|estimated?|revised|"
                          r"prelim(?:inary)?)\)\s*$", re.IGNORECASE)
"""A mark of a figure's status after a header ("(p)", "(provisional)", "(est.)")."""


def _span_columns(frame: Frame, text: str, keys: list[str]) -> list[str]:
    """Every column of a span of years the question names by its two ends, when the two named
    columns are those ends and each year between has its own column written the same way
    ("Starts 2021" ... "Starts 2023", not "Completions 2022"); else none."""
    m = _SPAN_OF_YEARS.search(text)
    if m is None or len(keys) != 2:
        return []
    first, last = int(m["a"] or m["b"] or m["c"]), int(m["end"])
    if last - first < 2:
        return []
    paths = [naming_path(frame.attr(k).path) for k in keys]
    if len(paths[0]) != len(paths[1]):
        return []
    differ = [i for i, (a, b) in enumerate(zip(*paths, strict=True)) if a != b]
    if len(differ) != 1:
        return []
    level = differ[0]
    def template(label: str) -> tuple[str, int] | None:
        label = _STATUS_MARK.sub("", label)  # "Completions 2023 (p)" is 2023's completions
        years = _FY_OR_YEAR.findall(label)
        return (_FY_OR_YEAR.sub("{}", label), int(years[0])) if len(years) == 1 else None
    ends = [template(p[level]) for p in paths]
    if None in ends or ends[0][0] != ends[1][0] or \
            {ends[0][1], ends[1][1]} != {first, last}:  # type: ignore[index]
        return []
    pattern, prefix = ends[0][0], paths[0]  # type: ignore[index]
    by_year: dict[int, list[str]] = defaultdict(list)
    for attr in frame.data_attrs:
        path = naming_path(attr.path)
        if len(path) == len(prefix) and all(path[i] == prefix[i] for i in range(len(path))
                                            if i != level) \
                and (t := template(path[level])) is not None and t[0] == pattern:
            by_year[t[1]].append(attr.key)
    span = range(first, last + 1)
    if any(len(by_year.get(year, [])) != 1 for year in span):
        return []
    return [by_year[year][0] for year in span]


_OP_STEMS = {"sum": frozenset(stem(w) for w in ("total", "sum")), "avg": _AVERAGE_STEMS}


def _period_columns(frame: Frame, keys: list[str]) -> list[str]:
    """The columns of a group that are its periods (Q1 ... Q4, Jan ... Dec, H1 and H2), in
    order, when every other column of it is the group's total; else none."""
    periods: list[tuple[tuple[str, int], str]] = []
    for key in keys:
        leaf = naming_path(frame.attr(key).path)[-1]
        period = period_of(leaf)
        if period is not None:
            periods.append((period, key))
        elif not period_total(leaf):
            return []
    kinds = {kind for (kind, _), _ in periods}
    places = [place for (_, place), _ in periods]
    if len(periods) < 2 or len(kinds) != 1 or len(set(places)) != len(places):
        return []
    return [key for _, key in sorted(periods)]


def _across_columns(grounding: Grounding, op: str, rows: list[int],
                    named: list[AttrMatch], text: str) -> Plan | Refusal:
    """One row's figures added or averaged across the columns the question names, or across
    every year of a span whose ends it names ("from 2019 to 2021": 2019, 2020 and 2021)."""
    if op not in ("sum", "avg"):
        # "the lowest England winter barley yield between 2019 and 2023": no plan takes the
        # highest or lowest of one row's columns (an average of them is no lowest).
        return Refusal("the highest or lowest of one row's figures across columns is not "
                       "computed offline; connect an LLM in Settings")
    frame = grounding.frame
    keys = [m.attrs[0] for m in named]
    keys = _span_columns(frame, text, keys) or keys
    what = f"{op} of {', '.join(frame.attr(k).label for k in keys)}"
    across = GroupSum if op == "sum" else RowAverage
    return across(table=frame.ref, rows=rows, columns=keys, description=what)


def _plan_aggregate(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    frame = grounding.frame
    used = _used_attrs(grounding)
    # The columns the conditions are on choose the rows; another named column is what the
    # question adds up ("the total salary of employees whose benefit exceeds 2000").
    conditions = [(c, a) for c in analysis.conditions if (a := _condition_attr(grounding, c))]
    conditioned = {a.key for _, a in conditions}
    measure = (_best_measure(grounding, used | conditioned, numeric=True, fallback=False)
               if conditioned else None) or _best_measure(grounding, used, numeric=True)
    several = _named_columns(grounding, used)
    if measure is None and len(rows) == 1 and len(several) >= 2 and \
            analysis.op in ("sum", "avg") and not _column_words(
                frame, [k for m in several for k in m.attrs]) & _OP_STEMS[analysis.op]:
        # "the average accrued warranty for 2019 and 2020": two columns named alike (a tie,
        # so no one measure), one row: the row's figures across them. (Not when a column's
        # own name holds the operation's word: "the sum of the moving average forecast and
        # the standard error" is read as neither.)
        return _across_columns(grounding, analysis.op, rows, several, analysis.text)
    if measure is None:
        return Refusal("the question does not name a numeric column to aggregate")
    if not rows:
        return Refusal("no row matches everything the question names")
    if len(measure.attrs) == 1 and _named_only_in_condition(grounding, conditions,
                                                            measure.attrs[0]):
        return Refusal(f"the question names {measure.label} only in its condition; it does "
                       "not say which column to aggregate")
    op = analysis.op
    if op in ("max", "min") and _DIMENSION.search(analysis.folded) and len(measure.attrs) == 1 \
            and frame.attr(measure.attrs[0]).tokens & _RANK_WORDS:
        # "What is the shortest suspension bridge" read the lowest Rank: a rank is no length.
        return Refusal(f"{measure.label} holds ranks, not the dimension the question asks "
                       "for; name the column to compare (a length, a height, a time)")
    if op in ("max", "min") and _DIMENSION.search(analysis.folded) and \
            len(measure.attrs) == 1 and _numbers_rows(frame, measure.attrs[0], rows):
        # "What was the longest stage" over Stage 1, 2, 3, ...: the stage with the longest
        # distance, not the highest stage number.
        return Refusal(f"{measure.label} numbers the rows rather than measuring them; name "
                       "the column to compare (a distance, a height, a time)")
    periods = _period_columns(frame, list(measure.attrs)) if len(rows) == 1 else []
    totals = [k for k in measure.attrs if k not in periods]
    if periods and op == "sum" and len(totals) == 1:
        # "the total grant income for Economics in 2023" beside 2023's "FY total": the
        # group's own total column states it.
        return Lookup(table=frame.ref, rows=rows, column=totals[0],
                      description=f"read {frame.attr(totals[0]).label}, the stated total of "
                                  f"{frame.row_label(rows[0])}")
    if len(rows) == 1 and len(measure.attrs) > 1 and op == "sum":
        return GroupSum(table=frame.ref, rows=rows, columns=list(measure.attrs),
                        description=f"sum {measure.label} of one row")
    if len(rows) == 1 and len(several) >= 2:
        return _across_columns(grounding, op, rows, several, analysis.text)
    if periods and op == "avg":
        # "the average punctuality of Coastal Rail in 2023" over 2023's Q1 ... Q4: the row's
        # figures across the periods of the group, its total column left out.
        kind = {"q": "quarters", "h": "halves", "month": "months"}[
            period_of(naming_path(frame.attr(periods[0]).path)[-1])[0]]  # type: ignore[index]
        return RowAverage(table=frame.ref, rows=rows, columns=periods,
                          description=f"average of {measure.label}'s {len(periods)} {kind} "
                                      f"for {frame.row_label(rows[0])}")
    if len(measure.attrs) > 1:
        return Refusal("aggregating a column group over several rows is ambiguous")
    group = _group_match(grounding, rows)
    if group is not None and op == "sum":
        total = _stated_total(frame, rows, group)
        if total is not None and _total_disagrees(frame, group, total, measure.attrs[0]):
            return Refusal(f"the \"{_own_label(frame, total)}\" row under {group.text} is not "
                           f"the sum of {group.text}'s rows; say which rows to add")
        if total is not None and re.search(r"\bsum\b|\badd(?:ed|ing)?\b", analysis.folded) \
                and _percent_column(frame, measure.attrs[0], rows) \
                and not _SHARE_OF_ONE_TOTAL.search(fold(frame.attr(measure.attrs[0]).label)):
            # "The sum of the Variance (%) column across Corporate Services": the group's
            # stated percentage is not the sum of its members' percentages asked for.
            return Refusal("adding percentages of different totals means nothing")
        if total is not None:
            return Lookup(table=frame.ref, rows=[total], column=measure.attrs[0],
                          description=f"read the stated total row for {group.text}")
        own = _group_own_row(frame, rows, group.text, measure.attrs[0])
        if own is not None:
            return Lookup(table=frame.ref, rows=[own], column=measure.attrs[0],
                          description=f"read {group.text}'s own row, the group's figure")
    # A total row the question names whole is one of its operands ("the sum of Goodwill and
    # Total assets"); "per field" does not name "All fields".
    named = {t for vm in grounding.values if SUMMARY_LABEL.search(vm.text)
             and (not TOTAL_LABEL.search(vm.text)
                  or says_words(grounding.raw_words, words(fold(vm.text))))
             for t in label_tokens(vm.text)}
    target_rows = without_totals(frame, rows, named)
    if op in ("sum", "avg") and len(target_rows) == 1 and \
            (unnamed := _unnamed_operand(grounding)) is not None:
        return Refusal(f"the question adds \u201c{unnamed}\u201d to "
                       f"{' > '.join(frame.row_paths[target_rows[0]])}, but "
                       f"\u201c{unnamed}\u201d does not name a row on its own")
    if op == "avg" and not grounding.values and _percent_column(frame, measure.attrs[0], rows):
        # (Said of rows the question names, "the average of the quartile pay gaps", the mean
        # of their figures is what it asks.)
        stated = [r for r in rows if r not in target_rows and r in total_labelled(frame)
                  and TOTAL_LABEL.search(_own_label(frame, r))  # (not "Requirement")
                  and (v := frame.value(r, measure.attrs[0])) is not None and v.measurable]
        if stated:
            # "The average on-time rate" of depots whose Total row states 94.5%: the mean of
            # the rows' rates (94.33%) weighs a small depot as a large one; which is meant is
            # not said.
            total = frame.value(stated[0], measure.attrs[0])
            return Refusal(f"the table states the overall {measure.label} in its "
                           f"\u201c{_own_label(frame, stated[0])}\u201d row ({total.text}), "
                           "and the mean of the rows' percentages is another figure; ask for "
                           "that row's value, or for the mean of the rows")
    what = {"avg": "average", "max": "highest", "min": "lowest"}.get(op, op)
    return Aggregate(op=op, table=frame.ref, rows=target_rows, column=measure.attrs[0],
                     description=f"{what} of {measure.label} over "
                                 f"{plural(len(target_rows), 'row')}")


def _value_of_another_column(grounding: Grounding) -> tuple[str, str, str] | None:
    """A text column named right before a value ("Champions Celtic") whose cells write the
    value inside more ("Celtic (52)"), when the value was found whole in another column:
    (the named column, the value, where it was found)."""
    frame = grounding.frame
    for vm in grounding.values:
        if not vm.positions or frame.attr(vm.attr).measurable:
            continue
        for m in grounding.attrs:
            if m.full and len(m.attrs) == 1 and m.positions and m.attrs[0] != vm.attr \
                    and max(m.positions) + 1 == min(vm.positions) \
                    and not frame.attr(m.attrs[0]).measurable \
                    and frame.attr(m.attrs[0]).kind != "level" \
                    and _written_inside(frame, m.attrs[0], vm.text):
                return m.label, vm.text, frame.attr(vm.attr).label
    return None


def _written_inside(frame: Frame, key: str, text: str) -> bool:
    """Whether some cell of a column writes `text` as its first words, followed by more
    ("Celtic (52)" for "Celtic"); a report's table only (its column is read whole here)."""
    if frame.row_count > _SMALL_TABLE_ROWS:
        return False
    said = fold(text).strip()
    return any(v is not None and (cell := fold(v.text).strip()).startswith(said)
               and len(cell) > len(said) and not cell[len(said)].isalnum()
               for v in frame.values_of(key, frame.rows))


_ASKED_OF = re.compile(r"^\s*(?:what (?:is|was|are|were) (?:the |its |their )?)?"
                       r"((?:[^\W\d_]+\s+){0,2}?[^\W\d_]+) of (?:the|a|an)\b")
""""<Something> of the ...", alone or after "what is the": the something is what is asked."""
_WHAT_OF_THE = re.compile(r"^\s*what (?:is|was|are|were) (?:the|its|their) ((?:\w+\s+){0,3}?\w+) "
                          r"of (?:the|a|an) ")
""""What is the <something> of the <row> with ...": the something is the answer."""


_INCLUDING = re.compile(r"\b(including|excluding)\s+([^\W\d_]+)")


def _row_saying(frame: Frame, phrase: str) -> int | None:
    """The one row whose own label says `phrase` ("Total including LULUCF"), else None."""
    found = [r for r in frame.rows
             if phrase in fold(" ".join(frame.row_paths.get(r) or (frame.row_label(r),)))]
    return found[0] if len(found) == 1 else None


def _both_named_as_one(grounding: Grounding) -> bool:
    """Whether two values of one column are named "A and B" ("bands E and F")."""
    raw = grounding.raw_words
    for first in grounding.values:
        for second in grounding.values:
            if first is not second and first.attr == second.attr and first.positions \
                    and second.positions \
                    and min(second.positions) == max(first.positions) + 2 \
                    and raw[max(first.positions) + 1] in ("and", "&"):
                return True
    return False


def _counted_property(grounding: Grounding, analysis: Analysis) -> str | None:
    """The noun a count counts, as written, when the table has no form of it and the question
    says it belongs to something else ("the number of *parameters* of the models"); else
    None."""
    if not analysis.count_words:
        return None
    noun = analysis.count_words[0]
    raw = grounding.raw_words or grounding.q_words
    for i, word in enumerate(grounding.q_words[:-1]):
        if word == noun and raw[i + 1] == "of" and not grounding.in_table(raw[i]):
            return raw[i]
    return None


def _counted_name(grounding: Grounding, analysis: Analysis) -> str | None:
    """The noun a count counts, as written, when it is a name (capitalised inside the
    sentence: "Kenyans", "Poles") that neither the table nor its title writes."""
    if not analysis.count_words:
        return None
    noun = analysis.count_words[-1]
    for i, word in enumerate(grounding.q_words):
        if word == noun and i in grounding.names and not grounding.in_table(word):
            written = (grounding.raw_words or grounding.q_words)[i]
            if not _title_says(grounding.frame, [written]):
                return written.capitalize()
    return None


def _title_says(frame: Frame, said: list[str]) -> bool:
    """Whether the table's title, sheet, file name or notes write one of these words, or a
    word that starts as it does ("migrants" in a title of "Migration flows", five letters in
    common)."""
    notes = [n for n in frame.notes if not SOURCE_NOTE.match(n)]
    named = [frame.title, frame.sheet, (frame.file_name or "").rsplit(".", 1)[0], *notes]
    about = {w for w in words(fold(" ".join(filter(None, named)).replace("_", " ")))
             if not w.isdigit()}
    return any(fold(w) in about or len(w) >= 5 and any(
        len(t) >= 5 and t[:5] == fold(w)[:5] for t in about) for w in said)


_PERCENT_WORDS = frozenset(stem(w) for w in ("percent", "percentage", "percentages", "%"))
_NOT_A_COUNT = re.compile(r"%|\b(?:rate|rates|average|averages|mean|median|percent|percentage|"
                          r"share|index|ratio|per)\b")
"""Words of a title or header saying its figures are no count of things."""


def _period_label(text: str) -> bool:
    """Whether a header is a time alone ("2022", "FY2019", "2019/20", "Q2", "June"): a column
    of such a header holds whatever the table measures, which the header does not say."""
    folded = fold(text).strip()
    return bool(re.fullmatch(r"(?:fy\s*)?\d{4}(?:\s*[/-]\s*\d{2,4})?", folded)
                or _MONTH_YEAR.fullmatch(folded)) or period_of(folded) is not None


_MONTH_YEAR = re.compile(r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
                         r"[\s-]*'?(?:\d{2}|\d{4})")
"""A month and its year ("Jan-24", "March 2024", "Sep '23")."""


_ALL_OF = re.compile(r"\b(?:total|in all|altogether|combined|all|overall|sum|cumulative"
                     r"(?:ly)?|together|every|each)\b")
"""Words asking for every matching row together."""


def _unnamed_operand(grounding: Grounding) -> str | None:
    """A word beside "and" that names no row or column while the word on the other side
    names a row: "the sum of *cash* and short-term investments" found only the second row, so
    a sum over it would drop the first (None when there is no such word)."""
    q = grounding.q_words
    source = grounding.raw_words or q
    rows = {p for vm in grounding.values for p in vm.positions}
    named = grounding.named_positions
    content = sorted(grounding.content)
    for i, w in enumerate(q):
        if w != "and":
            continue
        # The nearest content word on each side ("D&A and ...": past the "a" of "D&A").
        left = max((p for p in content if p < i), default=None)
        right = min((p for p in content if p > i), default=None)
        if left is None or right is None:
            continue
        for near, far in ((left, right), (right, left)):
            if near not in named and far in rows:
                return source[near]
    return None


_DIMENSION = re.compile(r"\b(?:longest|shortest|tallest|heaviest|lightest|widest|narrowest|"
                        r"deepest|biggest|largest|smallest|fastest|slowest|oldest|youngest)\b")


def _numbers_rows(frame: Frame, key: str, rows: list[int]) -> bool:
    """Whether a column's numbers count the rows off (1, 2, 3, ... down the sheet, a few
    rows such as a prologue "P" aside): an ordinal, not a measure."""
    def counted(part: list[int]) -> list[float]:
        numbers = [v.number for v in frame.values_of(key, part)
                   if v is not None and v.measurable]
        return numbers if all(b - a == 1 for a, b in zip(numbers, numbers[1:],
                                                          strict=False)) else []
    # (The first rows first: a measure of a tall table fails there, without reading it all.)
    if len(rows) > 50 and not counted(rows[:50]):
        return False
    numbers = counted(rows)
    return len(numbers) >= 3 and len(numbers) >= 0.8 * len(rows)


_WIDTH_SUPERLATIVE = re.compile(r"\b(?:widest|narrowest)\b")
_WIDTH_STEMS = frozenset(stem(w) for w in split_words(
    "width wide breadth range interval spread gap span diameter"))
"""Header words of a figure that is a width: what "the widest" ranks."""


def _plan_arg(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    frame = grounding.frame
    if _unstated_change(grounding, _RANKED_CHANGE_WORDS) and not any(
            _CHANGE_COLUMN.search(text) for text in (
                *(vm.text for vm in grounding.values),
                *(a.label for a in frame.data_attrs),
                frame.title or "", frame.sheet or "")):
        # "Which non-current asset line increased the most in 2023" ranked the 2023 balances:
        # the largest level, not the largest rise, which needs the column it rose from. (Not
        # where the table states changes: "the highest real wage growth in 2010" under a band
        # "Real Wage (% change per year)", in a table titled "Like-for-like sales growth by
        # brand", or beside a "±pp" column, which the later checks weigh.)
        return Refusal("the question ranks rows by a rise or fall; name the two columns it "
                       "runs between (\"from 2022 to 2023\")")
    ranking = [i for i, w in enumerate(grounding.q_words) if w in _SUPERLATIVE_STEMS]
    in_names = {p for m in grounding.attrs if m.full for p in m.positions}
    if ranking and analysis.conditions and all(i in in_names for i in ranking):
        # "Which banks have a Minimum deposit greater than 20?": the word is the column's
        # name, and the condition picks the rows; nothing is ranked.
        return Refusal(f"\"{grounding.raw_words[ranking[0]]}\" is part of a column's name "
                       "here, not a ranking; listing the rows a condition picks needs an LLM")
    outside = [grounding.q_words[i] for i in ranking if i not in in_names]
    if outside and len(outside) < len(ranking) \
            and any(_RANK_DIRECTION.get(w) != analysis.superlative for w in outside):
        # "Which island has the lowest highest point": "highest" names Highest point; the
        # ranking is the other word, which the question's reading did not take ("the
        # highest Max temperature" ranks as it reads).
        return Refusal(f"\"{grounding.raw_words[next(i for i in ranking if i in in_names)]}\" "
                       "is part of a column's name here; ask with another word for it")
    used = _used_attrs(grounding)
    asked = _asked_attr(grounding, analysis, used)
    noun = set(analysis.target_words[:1])
    of = _FIGURE_OF.match(analysis.folded)
    if of:
        noun |= {stem(w) for w in words(of.group(1) or of.group(2)) if w not in STOPWORDS}
    if analysis.wh == "what" and (asked.measurable if asked else any(
            a.measurable and a.tokens & noun for a in grounding.frame.data_attrs)):
        # "What is the GDP of the country with the longest life expectancy": a number of the
        # best row, not its name; the rules answer only "which ..." with the row's name.
        return Refusal("the question asks for a figure of the row with the highest (or "
                       "lowest) value; ask which row that is first, then for its figure")
    exclude = used | ({asked.key} if asked else set())
    # "Which store is the largest" beside a "Store #" column: the noun asks which store; the
    # numbers that count the stores are nothing to rank them by.
    exclude |= {m.attrs[0] for m in grounding.attrs if m.positions and len(m.attrs) == 1
                and {grounding.q_words[p] for p in m.positions} <= set(analysis.target_words[:1])
                and _identifier(frame, frame.attr(m.attrs[0]))}
    measure = _best_measure(grounding, exclude, numeric=True, fallback=False)
    if measure is None and len(rows) == 1 and (grounding.values or analysis.conditions):
        # One row, named or chosen by a condition: which of its columns is highest.
        if analysis.place > 1 or analysis.top > 1:
            return Refusal("the second (or later) highest column of a row needs an LLM")
        return _plan_arg_across(grounding, analysis, rows[0])
    if measure is None and analysis.op == "argmax" and analysis.place == 1 and analysis.top == 1:
        counted = _most_rows_of(grounding, analysis, asked, rows)
        if counted is not None:
            return counted
    if (measure is not None and len(measure.attrs) > 1 and len(rows) == 1 and grounding.values
            and analysis.place == 1 and analysis.top == 1
            and _PERIOD_KINDS.keys() & set(analysis.target_words)):
        # "Which quarter of 2023 had the longest wait for Cardiology": "2023" heads Q1-Q4
        # under it; the periods of that one header, in the named row, are compared.
        return _plan_arg_across(grounding, analysis, rows[0], among=set(measure.attrs))
    if measure is None or len(measure.attrs) != 1:
        return Refusal("the question does not name one numeric column to rank by")
    if measure.positions and all(grounding.q_words[p] in _SUPERLATIVE_STEMS
                                 for p in measure.positions):
        # "Which year had the best ranking" beside a column headed "Best": the word ranks,
        # it does not name the figure ranked.
        return Refusal(f"\"{frame.attr(measure.attrs[0]).label}\" is named only by the word "
                       "that asks for the ranking; say which figure to rank by")
    if (wide := _WIDTH_SUPERLATIVE.search(analysis.folded)) is not None \
            and not frame.attr(measure.attrs[0]).tokens & _WIDTH_STEMS:
        # "Which area has the widest confidence interval for male life expectancy" ranked
        # the life expectancy: the width asked for is another figure (Upper minus Lower CI).
        return Refusal(f"\"{wide.group(0)}\" ranks a width, and "
                       f"{frame.attr(measure.attrs[0]).label} is no width")
    entity = asked or _named_by_one_column(grounding, rows) \
        or _column_after_superlative(frame, analysis) \
        or _entity_attr(grounding, analysis, used | set(measure.attrs))
    if entity is None:
        return Refusal("the table has no column that names its rows")
    if entity is asked and frame.levels and entity.key == frame.levels[-1].key \
            and entity.tokens & ID_WORDS and not entity.tokens & ID_WORDS & set(grounding.q_words) \
            and (named := _name_beside_codes(frame, used | set(measure.attrs))) is not None \
            and named.tokens & _ITEM_NAME_WORDS:
        # "Which item has the highest stock value" over "Item No." codes beside a Description:
        # the item's name, not the number the question leaves unsaid. (Not a Location beside
        # a Well ID's codes: "which well" asks for the well, which its code names.)
        entity = named
    if not grounding.values and (crossed := _total_both_ways(frame, measure.attrs[0], entity,
                                                              analysis)) is not None:
        # (Rows the question names, "For E. coli, which sample ...", are the ones ranked.)
        return Refusal(crossed)
    entity = _years_above(frame, entity, analysis, rows) or entity
    # "What is the Release Date of the version (the Title) with the most open bugs": the
    # column named first is what is asked of the row the ranking picks, which its row names
    # (or the column named after "of the") tell apart.
    shown = _asked_of_best(grounding, analysis, used | set(measure.attrs))
    if shown is not None and entity.key == shown.key:
        # The asked column is the one found to name the rows: another column tells the rows
        # apart; with none ("What is the name of the player with the most goals"), the asked
        # column names them itself.
        other = _entity_attr(grounding, analysis, used | set(measure.attrs) | {shown.key})
        if other is None or other.key == shown.key:
            shown = None
        else:
            entity = other
    if shown is None and analysis.wh == "when":
        dated = [a for a in frame.attrs if a.key != entity.key and _dated(frame, a, rows)]
        if len(dated) != 1:
            return Refusal("the question asks when, and the table has no one column of dates "
                           "to read it from")
        shown = dated[0]  # "When was the release with the most open bugs released"
    other = [m.label for m in _named_columns(grounding, used | set(measure.attrs) | {entity.key})
             if m.full and not frame.attr(m.attrs[0]).measurable
             and (shown is None or m.attrs[0] != shown.key)]
    shown = shown or entity
    if asked is None and analysis.wh in ("who", "whom", "whose") and other:
        # "Who heads the department with the most beds": the department's name or the head's?
        return Refusal(f"the question names {other[0]} as well as {entity.label}, and the "
                       "rules cannot tell which one it asks for; ask \"which "
                       f"{other[0]} ...\" or \"which {entity.label} ...\"")
    if (group := _upper_level_named(frame, entity, analysis)) is not None:
        return Refusal(f"the question asks for a group of rows like \"{group}\", not a single "
                       "row; ranking the groups needs an LLM")
    target_rows = _without_reconciling(frame, without_totals(frame, rows))
    if (other := _row_of_another_measure(frame, target_rows)) is not None:
        # "Highest rated attribute for family visitors" over ratings, then a Summary band
        # with "Respondents (number)" and "Net promoter score (NPS, points)": those rows hold
        # other measures, which a ranking of ratings would take in.
        return Refusal(f"the row \"{other}\" states a measure of its own, unlike the other "
                       "rows ranked with it; name the rows to rank")
    deepest_repeats = analysis.place == 1 and bool(
        _SAID_TOTAL.search(analysis.folded) or _GROUP_TOTAL.search(analysis.folded)) \
        and _deepest_level_repeats(frame, entity, target_rows)
    if deepest_repeats and not _SAID_TOTAL.search(analysis.folded) \
            and _GROUP_TOTAL.search(analysis.folded) \
            and not frame.levels[-2].tokens & set(grounding.q_words):
        # (Not "which make and fuel combination had the fewest": a row is asked.)
        # "Which practice had the most appointments" over Month > Practice: its best month,
        # or its months added up?
        return Refusal(f"{entity.label} repeats under each {frame.levels[-2].label}; say \"in "
                       f"total\" to add up its rows, or name the {frame.levels[-2].label}")
    if analysis.place == 1 and analysis.top == 1 and (
            _repeats_over(frame, entity, target_rows) or (
            deepest_repeats and _SAID_TOTAL.search(analysis.folded))):
        if asked is None and not _SAID_TOTAL.search(analysis.folded) and (
                pair := _names_rows_with(frame, entity, target_rows)) is not None:
            # "Which segment had the most survey responses" over Route type and Cabin: a row
            # (a route type's cabin) or a route type's rows added up? The question named
            # neither.
            return Refusal(f"the question does not say whether it asks for a row (its "
                           f"{entity.label} and {pair.label}) or a {entity.label} with its "
                           "rows added up; name the column")
        if shown is not entity:
            # "What is the Region of the museum with the most visitors" where the rows' names
            # repeat: a group's total names the group, not one row's Region.
            return Refusal(f"{entity.label} repeats over the rows, so the {entity.label} with "
                           f"the most {measure.label} is a group of rows, which has no one "
                           f"{shown.label}")
        # "Which city had the most visitors", one row per museum: the cities' totals.
        return _plan_group_rank(grounding, analysis, target_rows, measure.attrs[0], entity,
                                "sum")
    word = "highest" if analysis.op == "argmax" else "lowest"
    if analysis.place > 1:
        word = f"{ordinal(analysis.place)} {word}"
    with_value = analysis.value_words is not None
    if with_value and set(analysis.value_words or ()) - _FIGURE_WORDS - \
            frame.attr(measure.attrs[0]).tokens:
        # "..., and what was its population?" over a ranking by area: another column's figure.
        return Refusal("the question asks two things at once; ask them one at a time offline")
    of = f" of the {entity.label}" if shown is not entity else ""
    described = f"the {shown.label}{of} with the {word} {measure.label}"
    if analysis.top > 1:
        described = (f"the {shown.label}{of} of the {analysis.top} rows with the {word} "
                     f"{measure.label}, {word} first")
    if analysis.margin:
        described += ", and how far ahead of the other it is"
    return Rank(op=analysis.op, table=frame.ref, rows=target_rows, column=measure.attrs[0],
                answer=shown.key, by=entity.key if of else None, place=analysis.place,
                top=analysis.top, value=with_value, margin=analysis.margin,
                description=described + (f", and its {measure.label}" if with_value else ""))


_FIGURE_WORDS = frozenset(stem(w) for w in split_words("""
    value amount figure number count total rate percentage percent level score result size
    highest lowest maximum minimum max min largest smallest peak"""))
"""Words that ask for the ranked number itself ("and what was its value?")."""


_SUPERLATIVE_STEMS = frozenset(stem(w) for w in split_words(
    "best worst highest lowest top most least maximum minimum max min largest smallest"))
_RANK_DIRECTION = {**{stem(w): "max" for w in split_words("highest top most maximum max largest")},
                   **{stem(w): "min" for w in split_words("lowest least minimum min smallest")}}
"""The way a superlative ranks ("best" and "worst" depend on the column: none)."""

_ROW_WORDS = frozenset(stem(w) for w in ("entries", "records", "rows", "listings"))
"""Nouns that call a table's rows by what they are in any table ("the most entries")."""
_MOST_NOUN = re.compile(r"\bthe (?:most|(?:largest|highest|greatest|biggest) number of) (\w+)")


_OUTCOME = re.compile(r"^(?:w|l|d|won|win|lost|loss|draw|drawn|tie|nominated|winner|runner-up)$",
                      re.IGNORECASE)


def _records_outcomes(frame: Frame) -> bool:
    """Whether a text column records each row's outcome ("Won" / "Nominated", "W" / "L"):
    then a row is a match or a nomination, not a win, and counting rows counts no wins. (A
    column's first rows are enough to tell.)"""
    for attr in frame.attrs:
        if not attr.measurable:
            texts = [v.text.strip() for v in frame.values_of(attr.key, frame.rows[:20])
                     if v is not None]
            if texts and sum(bool(_OUTCOME.match(t)) for t in texts) >= len(texts) / 2:
                return True
    return False


def _upper_level_named(frame: Frame, entity: Attr, analysis: Analysis) -> str | None:
    """The label of an upper row level that "which *zone*" names ("NORTHERN ZONE" and
    "SOUTHERN ZONE" over their regions), when the answer column is a lower level: the best
    row would be a region, not a zone. None when no two groups carry the noun (one band over
    every row, "Occupational group", names the rows' kind, not groups to rank)."""
    noun = set(analysis.target_words[-1:])
    if noun & _GROUP_NOUNS and not noun & entity.tokens:
        # "Which field group had the most graduates" over fields indented under their groups:
        # the best row would be a field.
        # (Unless the table calls some rows by the noun: a band "Occupational group" over
        # the groups says what its rows are, and the rules below read it.)
        paths = frame.side.path_groups()
        under: dict[str, int] = {}
        for path in paths:
            if len(path) > 1:
                under[path[0]] = under.get(path[0], 0) + 1
        groups = sorted(g for g, n in under.items() if n > 1)  # (not a note over one row)
        if len(groups) >= 2 and not any(noun & set(label_tokens(label))
                                        for path in paths for label in path):
            return groups[0]
    if not noun or len(frame.levels) < 2 or entity.kind != "level" and (
            noun & entity.tokens or _name_beside_codes(frame, set()) != entity):
        return None
    if entity.kind != "level":
        entity = frame.levels[-1]  # (the name beside the codes that label the rows)
    if noun & entity.tokens:
        # "Region / Category" over region bands and their categories: "which region" names
        # the first, upper level; one "Region" merged over both levels names either.
        parts = [set(label_tokens(p)) for p in re.split(r"\s*/\s*", entity.label)]
        shared = any(noun & level.tokens for level in frame.levels if level.key != entity.key)
        if not shared and (len(parts) < 2 or not noun & parts[0] or noun & parts[-1]):
            return None
        groups = sorted({path[0] for path in frame.side.path_groups() if len(path) > 1})
        return groups[0] if len(groups) >= 2 else None
    # The distinct row paths, not every row: their labels above the last are the groups.
    named = sorted({label for path in frame.side.path_groups() for label in path[:-1]
                    if noun & set(label_tokens(label))})
    return named[0] if len(named) >= 2 else None


_GROUP_NOUNS = frozenset(stem(w) for w in split_words(
    "group groups section sections category categories type types class classes division "
    "divisions kind kinds branch branches"))
"""Nouns that ask for a group of rows, whatever the table calls its groups."""


def _most_rows_of(grounding: Grounding, analysis: Analysis, asked: Attr | None,
                  rows: list[int]) -> Plan | None:
    """"Which team won the most races" over one row per race: the team named on the most
    rows. The noun after "the most" must be a text column holding a different value in each
    row (each row is one race); counting rows would not count circuits that repeat."""
    frame = grounding.frame
    m = _MOST_NOUN.search(analysis.folded)
    if asked is None or m is None or _records_outcomes(frame):
        return None
    noun = stem(m.group(1))
    named = [a for a in frame.attrs if not a.measurable and a.key != asked.key
             and a.tokens == {noun}]
    target_rows = without_totals(frame, rows)
    if len(named) != 1 and (noun in _ROW_WORDS or noun not in GENERIC_WORDS
                            and _rows_are(frame, {noun})):
        # "Which region had the most outages" in utility_outages.xlsx: the title says a row
        # is an outage, and a key column (Outage ID) holds a different value in each row, so
        # the rows are single outages, not a summary with a row per region and month.
        keys = [a for a in frame.attrs if not a.measurable and a.key != asked.key
                and _names_each_row(frame, target_rows, a)]
        # Said as "one row per Outage ID": a column headed as an id or by the noun first,
        # then one of names, a date last.
        keys.sort(key=lambda a: (not a.tokens & (ID_WORDS | {noun}),
                                 _holds_dates(frame, a.key)))
        named = keys[:1]
    if (len(named) != 1 or not _names_each_row(frame, target_rows, named[0])
            or not _repeats_over(frame, asked, target_rows)
            or not _names_groups(frame, asked, target_rows)):
        return None
    return Mode(table=frame.ref, rows=target_rows, column=asked.key, confidence=0.85,
                description=f"the {asked.label} named on the most rows, one row per "
                            f"{named[0].label}")


_GROUP_TOTAL = re.compile(r"\b(?:total|combined|overall|altogether|in all|cumulative|most|"
                          r"fewest|least)\b")
"""Words that ask which group adds up to the most ("the most visitors", "the highest total
attendance"); "the highest attendance" alone may mean the best single row."""


_FIGURE_OF = re.compile(r"^\s*what (?:is|was|are|were) (?:the )?(.+?) (?:of|in|for|at|on) "
                        r"(?:the|a|an) [^\W\d_]+ (?:with|that|which|whose|where)\b|"
                        r"^\s*what (?:is|was|are|were) (?:the )?(.+?) of (?:the|a|an)\b")
""""What is the *GDP per capita* of the most populous country": the figure asked of a row."""


def _plan_group_choice(grounding: Grounding, analysis: Analysis, rows: list[int],
                       filters: list[Filter], op: str) -> Plan | Refusal:
    """"Which department has the highest average salary", "which region had the highest
    total sales": the groups of a repeating column ranked by their average (or total)."""
    frame = grounding.frame
    used = _used_attrs(grounding)
    asked = _asked_attr(grounding, analysis, used)
    measure = _best_measure(grounding, used | ({asked.key} if asked else set()), numeric=True,
                            fallback=False)
    if asked is None or measure is None or len(measure.attrs) != 1:
        return Refusal("comparing groups of rows needs the group column and one numeric "
                       "column named")
    target_rows = without_totals(frame, rows)
    if not _repeats_over(frame, asked, target_rows):
        return Refusal(f"each row has its own {asked.label}: there are no groups to compare")
    result = _plan_group_rank(grounding, analysis, target_rows, measure.attrs[0], asked,
                              "avg" if op == "avg" else "sum")
    if not isinstance(result, Refusal):
        result.filters = filters
        doubt = _doubtful(result, grounding, analysis)
        if doubt:
            return Refusal(doubt)
    return result


def _deepest_label(frame: Frame, rows: list[int]) -> Attr | None:
    """The deepest level that labels these rows (a band of other rows may add a level
    below), read in their first rows."""
    return next((a for a in reversed(frame.levels)
                 if any(v is not None for v in frame.values_of(a.key, rows[:50]))), None)


def _repeats_over(frame: Frame, attr: Attr, rows: list[int]) -> bool:
    """Whether a column's value repeats over the rows (one row per museum, several per city);
    a deepest row level under others names each row by its whole path."""
    if attr.kind == "level" and frame.levels[-1].key == attr.key and (
            len(frame.levels) > 1 or distinct_row_paths(frame)):
        # "Q1" under 2023 and under 2024: two rows, not one group; and a lone row label that
        # the stored facts say never repeats needs no column read.
        return False
    texts = _filled_texts(frame, attr.key, rows)
    return len(set(texts)) < len(texts)


def _names_rows_with(frame: Frame, entity: Attr, rows: list[int]) -> Attr | None:
    """Another text column that, with a repeating one, names each row (Route type and Cabin:
    "Short-haul", "Economy"), itself repeating as a category does; else None."""
    names = frame.values_of(entity.key, rows)
    for attr in frame.attrs:
        if attr.key == entity.key or attr.measurable:
            continue
        others = frame.values_of(attr.key, rows)
        pairs = [(a.text.strip(), b.text.strip()) for a, b in zip(names, others, strict=True)
                 if a is not None and b is not None]
        if len(pairs) == len(rows) and len(set(pairs)) == len(pairs) \
                and len({b for _, b in pairs}) < len(pairs) and _names_groups(frame, attr, rows):
            return attr
    return None


def _deepest_level_repeats(frame: Frame, attr: Attr, rows: list[int]) -> bool:
    """Whether a column is the deepest row level and its labels repeat under the levels
    above it (each practice under each month; at most half as many labels as rows, not
    "Springfield" under two states): a rank of its labels over the rows ranks a
    label's rows one by one, unless the question says to add them up ("which practice had
    the highest *total*": a practice's months added up, `_SAID_TOTAL`)."""
    return attr.kind == "level" and len(frame.levels) > 1 \
        and frame.levels[-1].key == attr.key \
        and len(set(texts := _filled_texts(frame, attr.key, rows))) <= len(texts) / 2


_SAID_TOTAL = re.compile(r"\b(?:total|combined|overall|altogether|in all|cumulative)\b")


def _filled_texts(frame: Frame, key: str, rows: list[int]) -> list[str]:
    """A column's non-blank texts over the rows, stripped."""
    return [t for v in frame.values_of(key, rows) if v is not None and (t := v.text.strip())]


def _names_groups(frame: Frame, attr: Attr, rows: list[int]) -> bool:
    """Whether a column's values group the rows: short one-line names, each shared by rows
    ("London" over three museums), not descriptions that now and then coincide."""
    texts = _filled_texts(frame, attr.key, rows)
    return (bool(texts) and len(set(texts)) <= 2 / 3 * len(texts)
            and all(len(t) <= 40 and "\n" not in t for t in texts))


_TWO_LEVELS_ASKED = re.compile(r"\b(?:which|what)\s+([^\W\d_]+)\s+and\s+([^\W\d_]+)\b")


def _plan_group_rank(grounding: Grounding, analysis: Analysis, rows: list[int], key: str,
                     answer: Attr, aggregate: Literal["sum", "avg"]) -> Plan | Refusal:
    """Which value of a repeating column has the most (or least) of a measure over its rows,
    added up (or averaged) per value; refused when adding the measure means nothing or the
    question does not say the rows are to be added up."""
    frame = grounding.frame
    attr = frame.attr(key)
    if (both := _TWO_LEVELS_ASKED.search(analysis.folded)) is not None and sum(
            any(stem(w) in level.tokens for level in frame.levels) for w in both.groups()) == 2:
        # "Which year and quarter had the highest total": one row, named by both levels, not
        # a year's quarters added up.
        return Refusal(f"the question asks for a {both.group(1)} and a {both.group(2)}: one row, "
                       "named by both, which the offline rules do not rank")
    if not _names_groups(frame, answer, rows) or _COUNTER_WITHIN.match(answer.label):
        # ("No. in season" numbers the episodes within each season: its 1s are no group.)
        return Refusal(f"{answer.label} repeats over some rows, but its values do not group "
                       "them; adding the rows up per value would compare accidents")
    if aggregate == "sum" and not _GROUP_TOTAL.search(analysis.folded):
        return Refusal(f"{answer.label} repeats over the rows: say \"the most\" or \"in total\" "
                       f"to add {attr.label} up per {answer.label}")
    if _identifier(frame, attr) or (aggregate == "sum" and (
            _percent_column(frame, key, rows) or _RATE_LABEL.search(attr.label))):
        return Refusal(f"{attr.label} does not add up per {answer.label}")
    best = analysis.op in ("argmax", "sum", "avg") and analysis.superlative != "min" \
        if analysis.superlative is None else analysis.superlative == "max"
    what, how = ("total", "added up") if aggregate == "sum" else ("average", "averaged")
    return RankGroups(op="group_argmax" if best else "group_argmin", table=frame.ref, rows=rows,
                      column=key, answer=answer.key, aggregate=aggregate,
                      description=f"the {answer.label} with the {'highest' if best else 'lowest'}"
                                  f" {what} {attr.label}, its rows {how}")


_SUMMARY_COLUMN_WORDS = frozenset(stem(w) for w in split_words(
    "total sum combined cumulative average mean avg median change growth share percent "
    "percentage ratio difference increase decrease"))
"""Words of a column that summarises others (its total, average, change or share)."""


_PERIOD_KINDS = {stem("month"): "month", stem("quarter"): "q", stem("half"): "h"}
"""What "which month / quarter / half" asks for, as `period_of` names it."""


def _years_above(frame: Frame, entity: Attr, analysis: Analysis, rows: list[int]
                 ) -> Attr | None:
    """The row level above the rows ranked, when the question asks which year and the rows
    are one label under each year ("In which year was the annual trade balance the lowest"
    over 2019 > Annual, 2020 > Annual ...): the years name them."""
    levels = frame.levels
    if not set(analysis.target_words[:1]) & _YEAR_NOUNS or len(levels) < 2 \
            or entity.key != levels[-1].key or len(rows) < 2:
        return None
    own = {v.text.strip() for r in rows if (v := frame.value(r, entity.key)) is not None}
    years = [v.text.strip() for r in rows if (v := frame.value(r, levels[-2].key)) is not None
             and year_of(v.text)]
    if len(own) == 1 and len(years) == len(rows) == len(set(years)):
        return levels[-2]
    return None


def _total_both_ways(frame: Frame, key: str, entity: Attr, analysis: Analysis) -> str | None:
    """Why ranking rows by a total column is a guess in a cross table totalled both ways
    (a pivot's "Grand Total" column beside its "Grand Total" row): "which city has the highest
    Grand Total" may rank the columns along that row, when the rows' names are not what the
    question asks for ("city" beside rows of people under "Row Labels"); None otherwise."""
    leaf = fold(frame.attr(key).path[-1]).strip() if frame.attr(key).path else ""
    if not TOTAL_LABEL.search(leaf) or not set(analysis.target_words[:1]) - entity.tokens \
            - GENERIC_WORDS - _ROW_NOUNS:
        return None  # ("which *name* has the lowest Grand Total": any row's name)
    # (The rows labelled as totals, found once per table: not every row path of a tall one.)
    if not any((path := frame.row_paths.get(r)) and fold(path[-1]).strip() == leaf
               for r in total_labelled(frame)):
        return None
    return (f"\"{frame.attr(key).path[-1]}\" is both a column and a row of this cross table, "
            f"and the rows ranked are {entity.label}, not what the question asks for; ask "
            f"\"which {entity.label} ...\" or name the row to read across")


_ROW_NOUNS = frozenset(stem(w) for w in ("name", "one", "label", "category", "line"))
"""Nouns that ask for a row's name without saying what the rows are."""


def _plan_arg_across(grounding: Grounding, analysis: Analysis, row: int,
                     among: set[str] | None = None) -> Plan | Refusal:
    """Rank the columns of one named row ("which year had the highest revenue" when years are
    columns, "which sector has the highest Trading (%)"); the answer is a column's name.

    The columns ranked are those whose headers carry the word the question asks for ("which
    *sector*", "which *year*": a year in the name), else every numeric column but totals;
    only those `among` the columns a header the question names heads, when given ("which
    quarter *of 2023*").
    """
    frame = grounding.frame
    target = set(analysis.target_words)
    numeric = [a for a in frame.data_attrs if a.measurable and not _named_like_operation(a)]
    level = next((a for a in frame.levels if target & set(_leaf_words(a) or a.tokens)), None)
    if level is not None:
        # "Which group had the most respondents" over Group labels: a row is asked for, and
        # the question named one ("All respondents"), so there is no column to name.
        return Refusal(f"the question asks which {level.label}, and names one row of them")
    if "year" in target:
        # A year's own column ("2023", "2017/2018"), not "Change 2022-2023 (%)".
        # Nor "Total 2021-2024" or "Share of 2024 (%)": a summary of the years, not one.
        chosen = [a for a in numeric if _FY_OR_YEAR.search(a.label)
                  and not a.tokens & _OPERATION_STATED["pct_change"]
                  and not (_leaf_words(a) or a.tokens) & _SUMMARY_COLUMN_WORDS]
        # Columns headed by a year alone ("2019" ... "2024") beside one that also says what
        # it holds ("Entries 2024"): the years' own columns are the series compared.
        bare = [a for a in chosen if len(a.path) == 1 and _FISCAL_YEAR.fullmatch(
            _YEAR_MARK.sub("", a.label).strip().lower())]
        if len(bare) >= 2:
            chosen = bare
        # "Which year had more *women*" under years > Men | Women: the Women of each year.
        asked = [a for a in chosen if _leaf_words(a) & set(grounding.q_words)
                 and not _FY_OR_YEAR.search(naming_path(a.path)[-1])]
        # Of "Pass" and "Conditional pass", the leaf the question names with all its words
        # and the most of them; two such leaves are two measures, not one over the years.
        said = set(grounding.q_words)
        whole = [a for a in asked if _leaf_words(a) <= said]
        most = max((len(_leaf_words(a)) for a in whole), default=0)
        leaves = {naming_path(a.path)[-1] for a in whole if len(_leaf_words(a)) == most}
        if len(leaves) > 1 or asked and not whole:
            return Refusal("the question names more than one of the years' columns; say which "
                           "one to compare")
        asked = [a for a in whole if naming_path(a.path)[-1] in leaves]
        if len(asked) >= 2:
            chosen = asked
        elif any(not _FY_OR_YEAR.search(naming_path(a.path)[-1]) for a in chosen):
            return Refusal("the years' columns are split further, and the question does not "
                           "say which of their columns to compare")
    elif kind := next((_PERIOD_KINDS[w] for w in target if w in _PERIOD_KINDS), None):
        # "In which month was output highest" over Jan ... Jun: the columns of that period.
        chosen = [a for a in numeric if a.path and (
            p := period_of(naming_path(a.path)[-1])) is not None and p[0] == kind
            and (among is None or a.key in among)]
        # Refused only when a period recurs under them (Q1 of 2023 and of 2024): "H1 2024 >
        # Q1, Q2" and "H2 2024 > Q3, Q4" are four quarters, one each.
        leaves = {fold(naming_path(a.path)[-1]).strip() for a in chosen}
        if len({naming_path(a.path)[:-1] for a in chosen}) > 1 and len(leaves) < len(chosen):
            return Refusal("the periods' columns sit under more than one header, and each "
                           "period is under several; say which header")
    elif target:
        chosen = [a for a in numeric if a.tokens & target]
        said = set(grounding.q_words)
        if len({naming_path(a.path)[-1] for a in chosen}) < len(chosen):
            # "Which academic grade has the most *male* staff" over grade > Female | Male:
            # the leaf the question names under each grade, which the grade then names.
            chosen = [a for a in chosen if _leaf_words(a) and _leaf_words(a) <= said]
    else:
        chosen = []
    if len(chosen) < 2:
        return Refusal("the question does not say which columns to compare")
    if not _one_name_each(frame, chosen):
        # "In which year was generation the highest" over Generation > 2019 ... 2023 beside
        # Share > 2019, 2023: the years under the header the question names.
        # (Of amounts and their shares, both headed "generation": the amounts, unless the
        # question asks for a share.)
        said = set(grounding.q_words)
        chosen = [a for a in chosen if said & {t for label in naming_path(a.path)[:-1]
                                               for t in label_tokens(label)}]
        if not _one_name_each(frame, chosen) and not _SHARE_ASKED.search(analysis.folded):
            chosen = [a for a in chosen if not _percent_column(frame, a.key, [row])]
    if len(chosen) < 2 or not _one_name_each(frame, chosen):
        return Refusal("the compared columns do not have one name each; say which of their "
                       "columns to compare")
    word = "highest" if analysis.op == "argmax" else "lowest"
    return RankColumns(table=frame.ref, rows=[row], columns=[a.key for a in chosen],
                       direction="max" if analysis.op == "argmax" else "min",
                       description=f"the column with the {word} value in "
                                   f"{' > '.join(frame.row_paths[row])}")


_SHARE_ASKED = re.compile(r"\b(?:share|percent(?:age)?|proportion|rate)\b|%")
"""Words that ask for a share or a rate rather than an amount ("what percentage of the
killed were aged 0-15": a part of a whole)."""


def _one_name_each(frame: Frame, chosen: list[Attr]) -> bool:
    """Whether the compared columns answer with names no two of them share."""
    return len(set(column_names(frame, [a.key for a in chosen]).values())) == len(chosen)


def _plan_order(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    """The first or last matching row, in the order a date, year or rank column states."""
    frame = grounding.frame
    rows = without_totals(frame, rows)  # "which constituency is listed last" is no Total
    used = _used_attrs(grounding)
    measure = _best_measure(grounding, used, numeric=False)
    entity = _entity_attr(grounding, analysis, used)
    key = measure.attrs[0] if measure is not None and len(measure.attrs) == 1 else (
        entity.key if entity else None)
    if (place := _place_attr(grounding, analysis, used)) is not None:
        key = place.key  # "where was the last ... held": the venue, not a named column
    named_order = _named_order_column(grounding)
    found = (_named_order_key(frame, rows, named_order) or _order_key(frame, rows, set())
             ) if len(rows) > 1 else None
    if found is not None and analysis.wh in ("what", "which") and \
            set(analysis.target_words[:1]) & frame.attr(found[0]).tokens:
        # "In what year was the first competition": the order column (Year) is what is asked,
        # not the named Competition that says which rows.
        key = found[0]
    elif analysis.wh in ("what", "which") and measure is not None and (
            noun := _chosen_after_order_noun(grounding, analysis, measure)) is not None \
            and (found[0] if found is not None else noun.key) == noun.key:
        # "What was the last week ending with more than 2,250 attendances", "the most recent
        # month in which the vegetables index was below 141": the week (month) is the order
        # column's cell, or the row's label; the column named after it only chooses the rows.
        key = noun.key
    elif found is not None and analysis.wh == "when" and named_order == found[0]:
        key = found[0]  # "when does the last task end": the End date itself
    elif found is not None and (analysis.wh in ("which", "who") or _what_noun(analysis)) and (
            key in (found[0], named_order) or named_order == found[0]
            or key is not None and _holds_dates(frame, key)):
        # "Which department opened first", "which title had the earliest air date": the
        # named column (Opened, Original air date) is the order itself; the answer is the
        # department or the title, never the date.
        asked = _asked_attr(grounding, analysis, used | {found[0], named_order or ""})
        key = asked.key if asked is not None else None
    elif found is not None and key == found[0] and named_order != found[0] \
            and analysis.wh != "when" \
            and not set(grounding.q_words) & frame.attr(found[0]).tokens:
        # "What was the first album on the Parlophone label": the order column (Year) was
        # chosen for want of a named one; the question asks for the row's name, not its year.
        asked = _asked_attr(grounding, analysis, used | {found[0]})
        key = asked.key if asked is not None else None
    if analysis.answer_words:
        # "Which property was the first to be listed? Give its address.": the Address. (A
        # request no column answers to leaves the column the question chose.)
        asked = [a for a in frame.attrs if set(analysis.answer_words) <= a.tokens]
        if len(asked) > 1:
            return Refusal("the request after the question names several columns of the "
                           "table; say which one to answer with")
        key = asked[0].key if asked else key
    if key is None or not rows:
        return Refusal("the question does not name what to read from the first/last row")
    if measure is None and place is None and entity is not None and key == entity.key \
            and not set(grounding.q_words) & frame.attr(key).tokens \
            and _repeats_over(frame, entity, rows):
        # "What was her last final?" over finals with a Result of Win or Loss: the column
        # read for want of a named one does not name the rows, so its cell is no answer.
        return Refusal("the question does not name what to read from the first/last row; "
                       f"{entity.label} repeats over the rows")
    if len(rows) == 1 and (inside := _ordinal_of_something_else(grounding, analysis)):
        # "Tiger Woods' last round" over one row per player: the rounds are inside his row's
        # cell, no order of the rows; reading his row would give the whole cell.
        return Refusal(f"\"{inside}\" names something the table does not list as rows")
    order = _row_order(frame, rows, analysis, set(), named_order)
    if isinstance(order, Refusal):
        return order
    ranks = [a for a in frame.attrs if a.key != found[0] and _ranks_by_place(a)] \
        if found is not None else []
    if ranks and named_order is None and _order_unsaid(analysis) and (
            order[0] != rows[0] if analysis.op == "first" else order[-1] != rows[-1]):
        # "The name of the first bridge" over bridges listed by Rank, beside a Year opened:
        # the first listed and the first opened are two rows, and "first" says neither. (A
        # list without ranks, "the last match" over matches newest first, follows the date.)
        end, by_time = ("first", "earliest") if analysis.op == "first" else ("last", "latest")
        return Refusal(f"the {end} row listed is not the {end} by {frame.attr(found[0]).label}; "
                       f"say \"listed {end}\" or \"{by_time}\"")
    places = found[1] if found and not _sheet_order_said(frame, analysis) else None
    if _tied_at_end(frame, order, key, analysis.op == "last", places):
        return Refusal("several rows share the first (or last) place in the order")
    which = "first" if analysis.op == "first" else "last"
    return ReadRows(op=analysis.op, table=frame.ref, rows=order, column=key, confidence=0.8,
                    description=f"read {frame.attr(key).label} of the {which} matching row")


_ORDER_NOUN = re.compile(r"\b(?:first|last|earliest|latest|most recent)\s+([^\W\d_]+)\b"
                         r"(?!['’])")
"""The noun a first or last is said of ("the last *week* ending ..."), not a possessive."""


def _chosen_after_order_noun(grounding: Grounding, analysis: Analysis, measure: AttrMatch
                             ) -> Attr | None:
    """The column of text or dates a first or last is said of ("the last *week* ending with
    ...", not a possessive "last week's"), when a condition follows with the column it names
    said after the noun (that column only chooses the rows): its cell is what is asked."""
    m = _ORDER_NOUN.search(analysis.folded)
    if m is None or not analysis.conditions:
        return None
    word, noun = stem(m.group(1)), len(words(analysis.folded[:m.start(1)]))
    columns = [a for a in grounding.frame.attrs if word in a.tokens and not a.measurable]
    if len(columns) != 1 or grounding.q_words[noun:noun + 1] != [word] \
            or analysis.conditions[0].span[0] < m.end() \
            or not measure.positions or min(measure.positions) <= noun:
        return None
    return columns[0]


def _order_word_in_a_name(grounding: Grounding) -> bool:
    """Whether every word of an order ("last", "first") the question says is part of a cell
    value it names ("Last Train to Osaka", "First Direct")."""
    said = {i for i, w in enumerate(grounding.raw_words or grounding.q_words)
            if w in ORDER_WORDS}
    # (Grounding takes a lone order word for a cell only when it is written as a name or
    # said beside another cell of its row: "long-haul *first*".)
    in_values = {i for m in grounding.values for i in m.positions}
    return bool(said) and said <= in_values


def _ordinal_of_something_else(grounding: Grounding, analysis: Analysis) -> str | None:
    """"first round", "final lap": an ordinal before a noun the table has no word for, as the
    question writes them; None when there is none."""
    m = _ORDINAL_NOUN.search(analysis.folded)
    if m and m.group(2) not in STOPWORDS and not grounding.in_table(m.group(2)):
        return m.group(0)
    return None


_ORDINAL_NOUN = re.compile(rf"\b({'|'.join(ORDER_WORDS)})\s+([^\W\d_]+)")


def _order_unsaid(analysis: Analysis) -> bool:
    """Whether "first"/"last" is said without what orders the rows: neither the sheet
    ("listed") nor time ("earliest", "most recent", "oldest")."""
    return not (_SHEET_ORDER.search(analysis.folded) or _LISTED.search(analysis.folded)
                or _TIME_ORDER.search(analysis.folded))


_TIME_ORDER = re.compile(r"\b(?:earliest|latest|most recent|oldest|newest|recently|"
                         r"chronologically)\b")


def _what_noun(analysis: Analysis) -> bool:
    """"What was the first *stamp* issued": "what" with a noun of a kind of row (not a time),
    read as "which"."""
    m = _WHAT_ORDINAL_NOUN.match(analysis.folded)
    noun = set(analysis.target_words[:1]) | ({stem(m.group(1))} if m else set())
    return analysis.wh == "what" and bool(noun) and not noun & _TIME_NOUNS


_WHAT_ORDINAL_NOUN = re.compile(r"^\s*what (?:is|was|are|were) (?:the|his|her|its|their) "
                                r"(?:first|last|earliest|latest|newest|oldest|final|"
                                r"most recent) "
                                r"([^\W\d_]+)")


_MOST_WORDS = re.compile(r"\b(?:largest|biggest|greatest|highest|most|steepest|sharpest|"
                         r"strongest|fastest)\b")
_LEAST_WORDS = re.compile(r"\b(?:smallest|lowest|least|weakest|slowest|fewest)\b")
_UP_WORDS = re.compile(r"\b(?:increase[sd]?|rise|rises|rose|risen|growth|grow|grows|grew|grown|"
                       r"gain(?:ed|s)?|improve(?:d|ment)|(?:go|goes|went|gone)\s+up)\b")
_DOWN_WORDS = re.compile(r"\b(?:decrease[sd]?|decline[sd]?|drop(?:ped|s)?|fall|fell|falls|fallen|"
                         r"reduction|reduced|loss|lost|shr[ai]nk|shrunk|contraction|contracted|"
                         r"(?:go|goes|went|gone)\s+down)\b")
_PERCENT_CHANGE = re.compile(r"\bpercent(?:age)?\b|%|\bin percent\b|\brelative\b|\bgrowth rate\b")


def _newer_and_older(grounding: Grounding, analysis: Analysis, exclude: set[str],
                     unnamed: str) -> tuple[str, str] | Refusal:
    """The two columns a change runs between, newer first (`_new_and_old`), when the question
    names exactly two that measure the same thing; else why not (`unnamed` when it does not
    name two)."""
    frame = grounding.frame
    named = _named_columns(grounding, exclude)
    if len(named) != 2:
        return Refusal(unnamed)
    new, old = _new_and_old(frame, analysis, named[0].attrs[0], named[1].attrs[0])
    if new is None or old is None:
        return Refusal("the question does not say which of the two columns is the newer")
    if measure_apart(frame.attr(new).path, frame.attr(old).path):
        return Refusal(f"{frame.attr(new).label} and {frame.attr(old).label} differ in more "
                       "than one header, so they measure different things")
    return new, old


def _plan_rank_change(grounding: Grounding, analysis: Analysis, rows: list[int]
                      ) -> Plan | Refusal | None:
    """"Which crop had the largest increase in area between 2018 and 2023": the row whose
    change between the two named columns is the largest (a rise) or the most negative (a
    fall), by amount or by percentage. None when the question is not worded so."""
    folded = analysis.folded
    most, least = _MOST_WORDS.search(folded), _LEAST_WORDS.search(folded)
    up, down = _UP_WORDS.search(folded), _DOWN_WORDS.search(folded)
    if analysis.wh not in ("which", "who") or not (most or least) or not (up or down):
        return None
    if least or (up and down):
        # "the smallest drop": the least negative change, or the smallest of the falls?
        return Refusal("the question asks for the smallest change or for rises and falls at "
                       "once; the rules rank only the largest rise or the largest fall")
    frame = grounding.frame
    if any(len(vm.rows) == 1 for vm in grounding.values):
        return Refusal("the question names one row, and asks which row changed most")
    columns = _newer_and_older(grounding, analysis, set(),
                               "a change needs the two columns it runs between, named by the "
                               "question")
    if isinstance(columns, Refusal):
        return columns
    new, old = columns
    percent = bool(_PERCENT_CHANGE.search(folded))
    if not percent and any(_states_operation(a, "pct_change") or _states_operation(a, "diff")
                           for a in frame.data_attrs):
        # Beside a "Change (%)" column, "the biggest decline" may be read in it, in percent,
        # as well as in the amounts: they can pick different rows.
        return Refusal("the table states each row's change in a column of its own, and the "
                       "question does not say whether the largest change is in percent or "
                       "in amount")
    # The rows the question's values name ("which *vaccine-preventable* disease"): values of
    # one column name rows together, values of different columns narrow them.
    by_attr: dict[str, set[int]] = {}
    for vm in grounding.values:
        by_attr[vm.attr] = by_attr.get(vm.attr, set()) | vm.rows
    named_rows = [r for r in rows if all(r in chosen for chosen in by_attr.values())]
    target = [r for r in without_totals(frame, named_rows)
              if frame.value(r, new) is not None or frame.value(r, old) is not None]
    if percent and (_percent_column(frame, new, target) or _percent_column(frame, old, target)):
        return Refusal("a percentage change of percentages is ambiguous (points or percent)")
    entity = _entity_attr(grounding, analysis, {new, old})
    if entity is None:
        return Refusal("the table has no column that names its rows")
    if (group := _upper_level_named(frame, entity, analysis)) is not None:
        return Refusal(f"the question asks for a group of rows like \"{group}\", not a single "
                       "row; ranking the groups needs an LLM")
    direction = "max" if up else "min"
    word = "largest rise" if up else "largest fall"
    return RankChange(table=frame.ref, rows=target, columns=(new, old), answer=entity.key,
                      direction=direction, percent=percent,
                      description=f"the {entity.label} with the {word}"
                                  f"{' in percent' if percent else ''} from "
                                  f"{frame.attr(old).label} to {frame.attr(new).label}")


def _plan_diff(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    """Two cells: two rows in one column, or two columns of one row, in question order."""
    frame = grounding.frame
    if (ranked := _plan_rank_change(grounding, analysis, rows)) is not None:
        return ranked
    # ("By how many points did it change" asks the change in points: no rows are counted.)
    if analysis.wh == "how many" and not re.search(
            r"\bhow many (?:more|less|fewer)\b|\bby how many\b", analysis.folded):
        return Refusal("counting the rows whose value changed needs an LLM")
    measures = [m for m in _measures(grounding, set()) if len(m.attrs) == 1
                and frame.attr(m.attrs[0]).measurable]
    value_rows = [vm for vm in grounding.values if len(vm.rows) == 1]
    absolute = analysis.op == "diff" and "difference" in analysis.folded
    named = _named_columns(grounding, set())
    stated = _column_named_like_operation(grounding)
    if stated is not None and len(named) > 2:
        # "the change in the Police budget from FY2024 to FY2025" beside a "Change" column:
        # the word names the operation; the two budgets are its operands.
        named = [m for m in named if m.attrs != stated.attrs]
    if len(named) >= 2 and not value_rows:
        # "the labour force of men 16 and over in 2023 and 2022": a group and a label, each
        # over several rows, that together name one row; the two columns give the two cells.
        value_rows = _one_row_together(grounding)
    if len(named) >= 2 and len(value_rows) == 1:
        row = next(iter(value_rows[0].rows))
        # (Not a unit the question states, "(USD m)", found as another table's qualifier.)
        if any(row not in vm.rows for vm in grounding.values
               if not vm.positions & value_rows[0].positions
               and not {grounding.q_words[p] for p in vm.positions} <= MEASURING_UNITS):
            # "Germany postpaid" where the Germany row is its Prepaid one: a value the row
            # lacks would be dropped.
            return Refusal("no row matches everything the question names")
        a, b = named[0].attrs[0], named[1].attrs[0]
        if measure_apart(frame.attr(a).path, frame.attr(b).path):
            return Refusal(f"{frame.attr(a).label} and {frame.attr(b).label} differ in more "
                           "than one header, so they measure different things")
        compared = _compared(analysis)
        if compared is not None and analysis.op == "diff":
            # "How much lower was it in 2019 than in 2020": the question's own order, not
            # time's (the first named minus the other, or the other minus it).
            # (By the words only each is named by: "North" names both "North > Female" and
            # "North > Male" of "in the North, how many more women than men".)
            pair = named[:2]
            own = [m.positions - o.positions or m.positions for m, o in (pair, pair[::-1])]
            first, second = (m for _, m in sorted(zip(own, pair, strict=True),
                                                  key=lambda p: min(p[0], default=0)))
            new, old = first.attrs[0], second.attrs[0]
            if compared == "less":
                new, old = old, new
        else:
            new, old = _new_and_old(frame, analysis, a, b)
        if new is None:
            return Refusal("the question does not say which of the two values is the newer")
        if analysis.op == "diff" and compared is None and _DECREASE.search(analysis.folded):
            new, old = old, new  # "how much did it decrease": the old value minus the new
        description = _difference_words(frame.attr(new).label, frame.attr(old).label, absolute,
                                        f" for {value_rows[0].text}")
        if analysis.op == "pct_change":
            # "By what percentage did emissions fall": the size of the fall, as "how much did
            # it decrease" gives the old value minus the new.
            fall = compared is None and bool(_DECREASE.search(analysis.folded))
            if fall:
                description = (f"the fall from {frame.attr(old).label} to "
                               f"{frame.attr(new).label}, in percent of the first, for "
                               f"{value_rows[0].text}")
            return PercentChange(table=frame.ref, rows=[row], operands=((row, new), (row, old)),
                                 fall=fall, description=description)
        return Difference(table=frame.ref, rows=[row], operands=((row, new), (row, old)),
                          absolute=absolute, description=description)
    if len(named) >= 2 and not value_rows and len(rows) >= 2 and analysis.op == "diff" \
            and _ROW_DIFFERENCE.search(analysis.folded):
        return _plan_column_difference(grounding, analysis, rows, named[0], named[1])
    if len(value_rows) == 2 and measures:
        # ("the total wholesale ECL allowance" over Stage 1, 2, 3 and Total > ECL allowance:
        # the one the words choose, else none; never the first found.)
        best = _best_measure(grounding, set(), numeric=True, fallback=False) \
            if len({m.attrs for m in measures}) > 1 else measures[0]
        if best is None or len(best.attrs) != 1:
            return Refusal(_columns_tied(grounding, set())
                           or "the question names several columns and does not say which one")
        key = best.attrs[0]
        first, second = sorted(value_rows, key=lambda vm: min(vm.positions))
        compared = _compared(analysis)
        if compared is not None:
            if compared == "less":
                first, second = second, first  # "how many fewer in A than in B": B minus A
        elif (exceeded := _exceeded(grounding, first, second)) is not None:
            # "did the CET1 ratio exceed the regulatory minimum at Q4 2024": the row after
            # the verb is what is exceeded, whichever is named first or is later.
            first, second = exceeded
        else:
            if _FROM_TO.search(analysis.folded):
                first, second = second, first  # "from 2012 to 2013": the later one minus the first
            elif _later_period(second.text, first.text):
                # "the change between FY2019 and FY2023" over rows of years: time's order,
                # the newer minus the older, as for two columns of years (`_new_and_old`).
                first, second = second, first
            if _DECREASE.search(analysis.folded):
                first, second = second, first  # "how much did it fall": the old minus the new
        r1, r2 = next(iter(first.rows)), next(iter(second.rows))
        if analysis.op == "pct_change":
            return Refusal("a percentage change between two rows needs an LLM to say which is "
                           "the base")
        return Difference(table=frame.ref, rows=[r1, r2], operands=((r1, key), (r2, key)),
                          absolute=absolute, names=(first.text, second.text),
                          description=_difference_words(first.text, second.text, absolute,
                                                        f" in {frame.attr(key).label}"))
    return Refusal("a difference needs two cells the question names unambiguously")


_FROM_TO = re.compile(r"\bfrom\b.+\b(?:to|through|thru|until|till)\b")
"""A span said from its start ("from 2012 to 2013", "from march through july")."""
_EXCEED_STEMS = frozenset(stem(w) for w in split_words(
    "exceed exceeded exceeds surpass surpassed surpasses outnumber outnumbered outnumbers"))


def _exceeded(grounding: Grounding, first: ValueMatch, second: ValueMatch
              ) -> tuple[ValueMatch, ValueMatch] | None:
    """The two rows of "A exceed B" as (A, B): B the one named first after the verb, A the
    other; None when no such verb comes before one of them."""
    said = grounding.q_words
    verbs = [i for i, w in enumerate(said) if w in _EXCEED_STEMS]
    if len(verbs) != 1:
        return None
    after = [vm for vm in (first, second) if min(vm.positions) > verbs[0]]
    if not after:
        return None
    exceeded = min(after, key=lambda vm: min(vm.positions))
    return (second, first) if exceeded is first else (first, second)


_COMPARED = re.compile(r"\bhow (?:much|many)\s+(?:(more|higher|greater|bigger|larger)|"
                       r"(less|fewer|lower|smaller))\b[^?]*\bthan\b")
"""A comparison with "than": "how much more A than B" is A minus B, "how much lower (less,
fewer, smaller) A than B" is B minus A."""


def _later_period(a: str, b: str) -> bool:
    """Whether the row label `a` names a later period than `b`: two dates, two years (or
    fiscal years, "2021/22", "FY2023"), or two quarters, halves or months of the same kind."""
    keys = [_period_key(a), _period_key(b)]
    return keys[0] is not None and keys[1] is not None and keys[0][0] == keys[1][0] \
        and keys[0] > keys[1]


def _period_key(text: str) -> tuple[str, object] | None:
    """A period's kind and its place in time, for ordering two row labels; None for a label
    that names no period."""
    text = text.strip()
    if _FISCAL_YEAR.fullmatch(text):
        year = re.search(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)", text)  # "FY2023" too
        return ("year", int(year.group(0))) if year else None
    date = parse_value(text).date
    if date:
        return "date", date
    period = period_of(text)
    return (period[0], period[1]) if period else None


def _compared(analysis: Analysis) -> str | None:
    """"more" or "less" for a comparison with "than" (`_COMPARED`), else None."""
    m = _COMPARED.search(analysis.folded)
    return None if m is None else "more" if m.group(1) else "less"


def _difference_words(first: str, second: str, absolute: bool, where: str) -> str:
    """A difference's plan in words: "A minus B", or for its size "the difference between
    A and B (its size)", which is what it reports whichever is larger."""
    if absolute:
        return f"the difference between {first} and {second}{where} (its size)"
    return f"{first} minus {second}{where}"


def _one_row_together(grounding: Grounding) -> list[ValueMatch]:
    """The question's value matches as one match of one row, when they are on different
    columns (a row group and a row label) and only one row has them all; else none."""
    values = grounding.values
    if len(values) < 2 or len({vm.attr for vm in values}) != len(values):
        return []
    together = set.intersection(*(set(vm.rows) for vm in values))
    if len(together) != 1:
        return []
    row = next(iter(together))
    return [ValueMatch(attr=values[-1].attr, text=" > ".join(grounding.frame.row_paths[row]),
                       rows=frozenset(together), exact=all(vm.exact for vm in values),
                       positions=frozenset().union(*(vm.positions for vm in values)))]


_ROW_DIFFERENCE = re.compile(r"\b(?:average|mean|total|largest|biggest|greatest|smallest|"
                             r"highest|lowest)\s+(?:difference|margin|gap|spread)\b")
"""An aggregate of per-row differences ("the average margin"), not a difference of totals."""
_ROW_AGGREGATE = [("avg", re.compile(r"\b(?:average|mean)\b")),
                  ("sum", re.compile(r"\b(?:total|sum|combined|altogether)\b")),
                  ("max", re.compile(r"\b(?:largest|highest|biggest|greatest|maximum|longest)\b")),
                  ("min", re.compile(r"\b(?:smallest|lowest|least|minimum|shortest)\b"))]


def _plan_column_difference(grounding: Grounding, analysis: Analysis, rows: list[int],
                            first: AttrMatch, second: AttrMatch) -> Plan | Refusal:
    """"The average difference between home and away goals": per row, the first named column
    minus the second, then the aggregate the question names (refused when it names none or
    several: a list of differences per row is not one answer)."""
    frame = grounding.frame
    asked = _ROW_DIFFERENCE.search(analysis.folded)
    words = [name for name, pattern in _ROW_AGGREGATE if asked and pattern.search(asked.group(0))]
    a, b = first.attrs[0], second.attrs[0]
    if len(words) != 1 or not (frame.attr(a).measurable and frame.attr(b).measurable):
        return Refusal("a difference of two columns over several rows needs the question to "
                       "say how to combine the rows (average, total, largest)")
    rows = without_totals(frame, rows)
    what = {"avg": "average", "sum": "total", "max": "largest", "min": "smallest"}[words[0]]
    absolute = "difference" in analysis.folded
    if absolute:
        gaps = [frame.value(r, a).number - frame.value(r, b).number for r in rows
                if frame.value(r, a) and frame.value(r, b) and frame.value(r, a).measurable
                and frame.value(r, b).measurable]
        signs = {g > 0 for g in gaps if g != 0}
        if len(signs) > 1:
            return Refusal("the difference changes sign between rows; say which column is "
                           "subtracted")
        if signs == {False}:
            a, b = b, a
    return ColumnDifference(table=frame.ref, rows=rows, columns=(a, b), aggregate=words[0],
                            confidence=0.85,
                            description=f"{what} of {frame.attr(a).label} minus "
                                        f"{frame.attr(b).label} over {plural(len(rows), 'row')}")


_FROM_ROW_TO_ROW = re.compile(r"\b(?:consecutive|gaps?|in a row|previous|next|since the last|"
                              r"after the last|apart)\b")
"""Words of a time from one row to another, which a row's duration is not."""
SPAN_ROWS = 200
"""The first rows read to tell whether two columns hold a row's start and end."""
_SAYS_TIME = re.compile(r"\bduration\b|\blast|\btook\b|\btake|\bstay|\bran\b|\brun|\bopen|"
                        r"\bdowntime\b|\belapsed\b|\bturnaround\b|\bspent\b|\bremain")
"""Words of time, which "how long" and "longest" alone are not (a length may be asked)."""
_LENGTH_HEADER = re.compile(r"\b(?:length|distance|km|kms|kilomet(?:re|er)s?|mi|miles?|metres?|"
                            r"meters?|m|ft|feet|height|span|size|pages|words)\b")
"""A column a "longest" may rank by without a word of time: a length, not a duration."""


def _plan_duration(grounding: Grounding, analysis: Analysis) -> Plan | Refusal | None:
    """"On average, how many days did an outage last?", "Which act has the longest set?",
    "How many days did ticket T-104 stay open?": the time from a row's start column to its
    end column (`agent/durations.py`), averaged, added up, the longest or shortest (or its
    row), or one named row's. None when the question asks no duration, the table has no
    start and end columns, or it states durations itself (the other rules read those)."""
    frame = grounding.frame
    if analysis.yes_no or analysis.relative or analysis.neighbor or frame.wide is None \
            or not reads_duration(analysis):
        return None
    found = spans(frame, frame.rows[:SPAN_ROWS])
    if not found:
        return None
    taken = {k for s in found for k in (s.start.key, s.end.key)}
    if stated_durations(frame, taken, frame.rows[:SPAN_ROWS]):
        return None
    asked = what_is_asked(analysis)
    timed = bool(asked.unit or asked.calendar or _SAYS_TIME.search(analysis.folded))
    named = {k for m in grounding.attrs if m.full for k in m.attrs} - taken
    if not timed and (any(frame.attr(k).measurable for k in named) or any(
            a.measurable and _LENGTH_HEADER.search(fold(" ".join(a.path)))
            for a in frame.data_attrs)):
        # "Which bridge has the longest span", "how long is the Main Street scheme" beside
        # Opened and Closed columns, and a length: the length.
        return None
    if len(found) > 1:
        said = set(grounding.q_words) | {stem(w) for w in grounding.raw_words}
        shared = set.intersection(*({*s.start.tokens, *s.end.tokens} for s in found))
        picked = [s for s in found if ({*s.start.tokens, *s.end.tokens} - shared) & said]
        if len(picked) != 1:
            return Refusal("the table has several start and end columns ("
                           + "; ".join(s.name for s in found)
                           + "); say which the duration is between")
        found = picked
    span = found[0]
    between = re.search(r"\bbetween\b([^?]*)", analysis.folded)
    if _FROM_ROW_TO_ROW.search(analysis.folded) or between and not (
            START_WORDS.search(between.group(1)) and END_WORDS.search(between.group(1))):
        # "The shortest gap between two outages", "between January and March": not the
        # time from a row's start to its own end.
        return Refusal("the time from one row to another (or over a range of dates) needs "
                       "an LLM")
    # (The time between a row's start and its end is what is computed here: "how many days
    # between opening and closing" is not refused as a difference of dates.)
    unsupported = _unsupported(analysis.model_copy(update={"folded": re.sub(
        r"\bbetween\b", "from", analysis.folded)}), grounding)
    if unsupported:
        return Refusal(unsupported)
    if analysis.value_words is not None:
        return Refusal("the question asks two things at once; ask them one at a time offline")
    if analysis.conditions:
        return Refusal("choosing rows by how long they lasted (\"more than 3 days\") needs an "
                       "LLM")
    if asked.calendar:
        return Refusal(f"a duration in {asked.calendar} depends on which {asked.calendar} "
                       "(they differ in length); ask in days or weeks")
    # The words of the duration are the plan's: how long, the unit, the start and end
    # columns' own words and words of starting and ending ("from *opening* to *closing*"),
    # and the noun of what lasted ("an *outage*", "the longest *set*"), which the header of
    # the rows' names or the file may say ("*tickets*" of "Ticket ID", helpdesk_tickets.xlsx).
    tolerated = DURATION_WORDS | subject_words(analysis) | span.start.tokens | span.end.tokens
    tolerated |= {t for a in frame.levels for t in a.tokens} | {
        stem(w) for w in words(f"{frame.title or ''} {frame.file_name.rsplit('.', 1)[0]}")
        if not any(ch.isdigit() for ch in w)}
    if asked.row_named:
        tolerated |= set(analysis.target_words[:1])  # "which *ticket*", named by Ticket ID
    # So is a word beside a named row that says what the row is ("ticket HD-1004", "the
    # Ochre Sky set"), unless it is a name itself.
    beside = {p + d for v in grounding.values for p in (min(v.positions), max(v.positions))
              for d in (-1, 1) if p + d not in v.positions} - grounding.names
    explained = {i for i in grounding.content - grounding.explained
                 if grounding.q_words[i] in tolerated or i in beside
                 or stem(grounding.raw_words[i]) in tolerated
                 or START_WORDS.fullmatch(grounding.raw_words[i])
                 or END_WORDS.fullmatch(grounding.raw_words[i])}
    if not _explained_enough(_with_explained(grounding, explained), analysis):
        return Refusal(_unmatched_words(_with_explained(grounding, explained), analysis))
    grounding.explained |= explained
    # The rows are chosen as for an aggregate: "how many *minutes*" counts nothing.
    rows, filters, problem = _filter_rows(grounding, analysis.model_copy(update={
        "op": "sum", "count_words": ()}))
    if problem:
        return Refusal(problem)
    rows = without_totals(frame, rows)
    planned = _duration_plan(grounding, analysis, span, rows, filters, asked)
    if isinstance(planned, Duration):
        used = {*planned.columns, *(k for f in planned.filters for k in f.columns), planned.answer,
                *(vm.attr for vm in grounding.values)}
        levels = {a.key for a in frame.levels}  # the rows' names: "the longest *shift*"
        left = [m for m in grounding.attrs if m.full and not (used | levels) & set(m.attrs)]
        if left:
            # "The average outage length by region": a column the duration would not read.
            return Refusal(f"the question also names {left[0].label}, which the duration "
                           "would not read; ask about it on its own")
    return planned


def _with_explained(grounding: Grounding, positions: set[int]) -> Grounding:
    """The grounding with these question words explained too (a copy)."""
    return replace(grounding, explained=grounding.explained | positions)


def _duration_plan(grounding: Grounding, analysis: Analysis, span: Span, rows: list[int],
                   filters: list[Filter], asked: Asked) -> Duration | Refusal:
    """The `Duration` a duration question asks over `span` and the rows it chose."""
    frame = grounding.frame
    unit = asked.unit or ("minutes" if span.moments == "clock" else
                          "hours" if span.timed else "days")
    kept = ""
    if ends_said(analysis, span):
        # "Among the tickets that have been closed": the rows without an end are not asked
        # about (a row without a start still is, and is refused).
        ended = [r for r in rows if point(frame.value(r, span.end.key), span.moments)
                 is not None]
        if len(ended) < len(rows):
            point_word = "date" if span.moments == "date" else "time"
            kept = (f" (the {len(ended):,} with a {span.end.label} {point_word}, as the "
                    "question asks)")
            rows = ended
    if not rows:
        return Refusal("no rows to measure")
    columns = (span.start.key, span.end.key)
    between = f"from {span.start.label} to {span.end.label} in {unit}"
    base = {"table": frame.ref, "rows": rows, "columns": columns, "moments": span.moments,
            "scales": span.scales, "unit": unit, "filters": filters, "confidence": 0.9}
    if asked.aggregate is None:
        if len(rows) != 1 and grounding.unexplained:
            # "the averge time": the word that would say how to combine the rows, mistyped.
            return Refusal(_unmatched_words(grounding, analysis))
        if len(rows) != 1 and analysis.asks_for_entity:
            return Refusal("finding rows by how long they lasted needs an LLM")
        if len(rows) != 1 or lists_each(analysis):
            return Refusal("a duration for each of several rows is a list; ask for their "
                           "average, total, longest or shortest, or name one row")
        return Duration(**base, aggregate="one",
                        description=f"the time {between} for {frame.row_label(rows[0])}")
    if asked.grouped:
        return Refusal("the longest or shortest of rows added up or averaged per group needs "
                       "an LLM")
    words = {"avg": "average", "sum": "total", "max": "longest", "min": "shortest"}
    what = words[asked.aggregate]
    over = f"over {plural(len(rows), 'row')}{kept}"
    if not asked.row_named:
        if analysis.wh in ("which", "who", "whom", "whose"):
            return Refusal(f"comparing groups of rows by their {what} duration needs an LLM")
        return Duration(**base, aggregate=asked.aggregate,
                        description=f"the {what} time {between} {over}")
    answer = _entity_attr(grounding, analysis, set(columns))
    if answer is None:
        return Refusal("the table has no column that names its rows")
    return Duration(**base, aggregate=asked.aggregate, answer=answer.key,
                    description=f"the {answer.label} with the {what} time {between} {over}")


def _plan_mode(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    """"The most common nationality": the most frequent value of the column the question
    names after "most common" (over the matching rows, summary rows left out)."""
    frame = grounding.frame
    noun = analysis.superlative_noun
    used = _used_attrs(grounding)
    named = [a for a in frame.attrs if noun and noun in a.tokens and a.key not in used]
    if len(named) != 1:
        asked = _asked_attr(grounding, analysis, used)
        named = [asked] if asked is not None else []
    if len(named) != 1 or not rows:
        return Refusal("the question does not name one column whose values to compare")
    attr = named[0]
    rows = without_totals(frame, rows)
    return Mode(table=frame.ref, rows=rows, column=attr.key, confidence=0.85,
                description=f"the most frequent {attr.label} over {plural(len(rows), 'row')}")


def _group_as_its_total(frame: Frame, match: ValueMatch, deepest: str | None) -> ValueMatch:
    """A group's label ("Asia and Pacific" over China, Japan, ... and "Asia and Pacific,
    total") as the one summary row of its rows, whose figure is the group's in a share; the
    match as it is otherwise."""
    if len(match.rows) < 2 or match.attr == deepest or frame.attr(match.attr).kind != "level":
        return match
    summaries = profile(frame).summary_rows | total_labelled(frame)
    totals = [r for r in match.rows if r in summaries]
    if len(totals) != 1 or totals[0] != max(match.rows) and totals[0] != min(match.rows):
        return match  # (a total at either end of the group, or none of its own)
    # Its own total names it ("Asia and Pacific, total"), not the table's, which may close
    # the last group ("Total gross carrying value" under "Other intangible assets:").
    named = set(content_tokens(match.text))
    if not named or not named <= set(content_tokens(frame.row_label(totals[0]).split(" > ")[-1])):
        return match
    return dataclasses.replace(match, rows=frozenset(totals))


_NO_OPERANDS = "a ratio needs two cells the question names unambiguously"


def _plan_ratio(grounding: Grounding, analysis: Analysis, rows: list[int]) -> Plan | Refusal:
    """A ratio of two named cells, in question order ("the ratio of A to B"), or a share of
    a stated total ("what percentage of the total is A": A over the total row). When the
    named rows do not give two cells, a group's label is read as its own total row ("what
    share of total arrivals came from Asia and Pacific")."""
    planned = _plan_ratio_of(grounding, analysis, list(grounding.values))
    if isinstance(planned, Refusal) and planned.reason == _NO_OPERANDS \
            and _PERCENT_TABLE.search(grounding.frame.title or "") \
            and isinstance(read := _plan_lookup(
                grounding, analysis.model_copy(update={"op": "lookup"}), rows), Lookup):
        # "What percentage of those aged 16-24 were very satisfied?" over a table titled
        # "Column percentages": the percentage is a cell, the share already taken.
        return read
    if isinstance(planned, Refusal) and planned.reason == _NO_OPERANDS:
        deepest = grounding.frame.levels[-1].key if grounding.frame.levels else None
        totals = [_group_as_its_total(grounding.frame, vm, deepest) for vm in grounding.values]
        if totals != list(grounding.values) and not isinstance(
                again := _plan_ratio_of(grounding, analysis, totals), Refusal):
            return again
    return planned


def _plan_ratio_of(grounding: Grounding, analysis: Analysis, values: list[ValueMatch]
                   ) -> Plan | Refusal:
    """`_plan_ratio` over these value matches."""
    frame = grounding.frame
    # ("... (to two decimal places, as a percent)": an instruction may ask for percent too.)
    # A share or a proportion is told as a percentage too ("What share of traffic was cars?":
    # 75.73%), as people (and statistics offices) write one; a fraction or a ratio stays a
    # fraction.
    percent = bool(re.search(r"\bpercent(?:age)?\b|%|\bshare\b|\bproportion\b", " ".join(
        [analysis.folded, *(fold(i) for i in analysis.instructions)]))) \
        and not re.search(r"\bfraction\b", analysis.folded)
    deepest = frame.levels[-1].key if frame.levels else None
    several = [vm for vm in values if len(vm.rows) > 1 and (
        vm.attr == deepest or frame.attr(vm.attr).kind != "level")]
    if several:
        # "Cloud Solutions" under both Net revenue and Operating income: a ratio of two
        # cells cannot leave the named row out, nor guess which one it is. (A group's label,
        # "Other intangible assets:" over its rows, names its rows together.)
        return Refusal(f"\"{several[0].text}\" names several rows; say which one")
    named = _named_columns(grounding, set())
    value_rows = sorted((vm for vm in values if len(vm.rows) == 1),
                        key=lambda vm: min(vm.positions))
    # (A group's label and its own total's label name one row: one operand.)
    value_rows = [vm for i, vm in enumerate(value_rows)
                  if all(vm.rows != other.rows for other in value_rows[:i])]
    measures = [m for m in _measures(grounding, _used_attrs(grounding)) if len(m.attrs) == 1
                and frame.attr(m.attrs[0]).measurable]
    operands: tuple[tuple[int, str], tuple[int, str]] | None = None
    stated_total = False  # the operands are the named cell, then the total row
    if len(value_rows) == 1 and len(named) == 2 and (
            qualified := _total_qualifies(grounding, named)) is not None:
        # "the share of total leavers in IT" beside a Headcount "Total" column: "total" says
        # which whole the leavers are a share of (their total row), not a second column.
        named, measures = [], [qualified]
    if len(value_rows) == 1 and len(named) == 2:
        row = next(iter(value_rows[0].rows))
        # In the order the question says them ("what share of the sector's total emissions
        # was methane": the total, then the part), not by how fully each is named.
        said = sorted(named, key=lambda m: min(m.positions, default=0))
        operands = ((row, said[0].attrs[0]), (row, said[1].attrs[0]))
        repeated = [y for y in _YEAR.findall(frame.attr(named[0].attrs[0]).label)
                    if analysis.folded.count(y) > 1]
        if repeated:
            # "2023 obligations as a percentage of the total due in 2023": the total is the
            # column's total row, not the row's "Total" column; which one is not clear.
            return Refusal(f"{repeated[0]} names both sides of the ratio")
    elif len(value_rows) == 2 and len(measures) == 1:
        key = measures[0].attrs[0]
        operands = ((next(iter(value_rows[0].rows)), key), (next(iter(value_rows[1].rows)), key))
    elif len(value_rows) == 1 and len(measures) == 1 and any(
            w == _TOTAL_STEM and i not in value_rows[0].positions
            for i, w in enumerate(grounding.q_words)):
        # (Not the "total" of the row's own name, "Total cost of shares repurchased".)
        key, row = measures[0].attrs[0], next(iter(value_rows[0].rows))
        if grounding.q_words[max(value_rows[0].positions) + 1:][:1] == [_TOTAL_STEM]:
            # "Florida's total enrollment": the row's own total, in its total column, not
            # the table's total row.
            own = [a for a in frame.data_attrs if a.measurable and _TOTAL_STEM in a.tokens
                   and a.key != key]
            if len(own) != 1:
                return Refusal(f"\"{value_rows[0].text}\" and \"total\" name the row's own "
                               "total, which no one column of the table holds")
            operands, stated_total = ((row, key), (row, own[0].key)), True
        elif (group := _group_said_with_total(grounding, row)) is not None:
            # "the share of total *cereal* production", "the 2023 total for *bulk minerals*":
            # the whole is that group's own total row, not the table's.
            total = _named_group_total(frame, key, row, group)
            if total is None:
                return Refusal(f"no one row of the table holds the total of \"{group.text}\"")
            operands, stated_total = ((row, key), (total, key)), True
        elif (total := _grand_total_row(frame, key, row, _total_phrase(grounding))) is not None:
            operands, stated_total = ((row, key), (total, key)), True
    if operands is None:
        return Refusal(_NO_OPERANDS)
    if any(_percent_column(frame, k, [r]) for r, k in operands):
        return Refusal("a ratio of percentages is ambiguous")
    if _WHOLE_FIRST.search(analysis.folded) and not stated_total:
        operands = (operands[1], operands[0])  # "what percentage of revenue was salaries"
    (r1, k1), (r2, k2) = operands
    return Ratio(table=frame.ref, rows=sorted({r1, r2}), operands=operands, percent=percent,
                 confidence=0.85,
                 description=f"{frame.attr(k1).label} of {frame.row_label(r1)} over "
                             f"{frame.attr(k2).label} of {frame.row_label(r2)}")


_TOTAL_STEM = stem("total")
_PHRASE_ENDS = frozenset(stem(w) for w in split_words(
    "was were is are in for from by to at on during across"))


def _total_phrase(grounding: Grounding) -> set[str]:
    """The words said after "total", up to a verb or a preposition (their stems): what the
    whole is ("total *gross property and equipment* in 2019")."""
    said = grounding.q_words
    start = said.index(_TOTAL_STEM) + 1 if _TOTAL_STEM in said else len(said)
    phrase: set[str] = set()
    for word in said[start:]:
        if word in _PHRASE_ENDS:
            break
        phrase.add(word)
    return phrase


def _total_qualifies(grounding: Grounding, named: list[AttrMatch]) -> AttrMatch | None:
    """Of two named columns, the second when the first is named by the word "total" alone
    and that word stands right before the second's words ("total *leavers*")."""
    q = grounding.q_words
    for total, other in (named, named[::-1]):
        at = sorted(total.positions)
        if len(at) == 1 and q[at[0]] == _TOTAL_STEM and at[0] + 1 in other.positions:
            return other
    return None


def _group_said_with_total(grounding: Grounding, row: int) -> ValueMatch | None:
    """The row group (a label over several rows, `row` among them) the question names within
    three words of "total" ("total cereal production", "the total for bulk minerals", "the
    Industry sector's total")."""
    frame, q = grounding.frame, grounding.q_words
    totals = [i for i, w in enumerate(q) if w == _TOTAL_STEM]
    groups = [vm for vm in grounding.values if len(vm.rows) > 1 and row in vm.rows
              and frame.attr(vm.attr).kind == "level"
              and any(t < min(vm.positions) <= t + 3 or t - 3 <= max(vm.positions) < t
                      for t in totals)]
    return min(groups, key=lambda vm: len(vm.rows)) if groups else None


def _named_group_total(frame: Frame, key: str, row: int, group: ValueMatch) -> int | None:
    """The group's own total: of its head row (the label over the others, when it holds a
    figure) and its summary rows with a number in `key`, the one highest in its tree, when only
    one is."""
    paths = frame.row_paths
    head = min(len(paths[r]) for r in group.rows)
    rows = [r for r in group.rows if r != row
            and (summary_row(frame, r) or len(paths[r]) == head)
            and (v := frame.value(r, key)) is not None and v.number is not None]
    if not rows:
        return None
    top = min(len(paths[r]) for r in rows)
    heads = [r for r in rows if len(paths[r]) == top]
    return heads[0] if len(heads) == 1 else None


def _grand_total_row(frame: Frame, key: str, row: int, phrase: set[str]) -> int | None:
    """The table's total row for a share of "the total": its only summary row; beside
    others, the one whose label the words after "total" spell out (`phrase`, their stems),
    else the one of them called a total, else the one whose figure in column `key` is the
    sum of every other row's (subtotals are sums of fewer rows; the grand total is the one
    that adds up)."""
    totals = [r for r in frame.rows if r != row and summary_row(frame, r)]
    if len(totals) <= 1:
        return totals[0] if totals else None
    # "the proportion of total gross property and equipment": "Total property and equipment,
    # gross", not "Property and equipment, net" (which adds up too, the depreciation taken).
    spelled = [r for r in totals if (label := set(label_tokens(frame.row_label(r)))
                                     - {_TOTAL_STEM}) and label <= phrase]
    if len(spelled) == 1:
        return spelled[0]
    # "What percentage of the total was land": the one summary row called a total, not
    # "Property and equipment, net" below it.
    called = [r for r in totals if _TOTAL_STEM in label_tokens(frame.row_label(r))]
    if len(called) == 1:
        return called[0]
    def number(r: int) -> float | None:
        value = frame.value(r, key)
        return value.number if value is not None else None
    parts = [n for r in frame.rows if not summary_row(frame, r) and (n := number(r)) is not None]
    whole = sum(parts)
    adding_up = [r for r in totals if (n := number(r)) is not None and parts
                 and abs(n - whole) <= max(1.0, 0.002 * abs(whole))]
    return adding_up[0] if len(adding_up) == 1 else None


_WHOLE_FIRST = re.compile(r"^\W*(?:(?:for|in|among|at|within|across) [^,?]{1,40},\s*)?"
                          r"(?:what|which|how much)\s+(?:percentage|percent|share|proportion|"
                          r"fraction|part)\s+of\s[^?]*?\b(?:is|was|are|were|did|does|do|went|"
                          r"goes|came|comes|live|lives|work|works|[^\W\d_]{2,}ed)\b")
"""A share asked whole first, with a verb after it ("What percentage of revenue was
salaries?", "What proportion of the North East's population lived in Durham?", also after a
leading "For waste management, ..."): the cell named first is the whole, the denominator.
Otherwise the first is the part ("salaries as a percentage of revenue", "the percentage of A
in total sales", "the ratio of A to B")."""
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_DECREASE = re.compile(r"^(?!.*\bincrease)(?!.*\bthan\b).*\b(?:decrease|decreased|decline|declined|"
                       r"drop|dropped|fall|fell|reduce|reduced)\b")
"""A question asking how much something went down (not "increase / (decrease)", not "how
many more ... than"): its answer is the old value minus the new."""


_FY_OR_YEAR = re.compile(r"(?:\b|(?<=fy)|(?<=FY))(1[89]\d\d|20\d\d)\b")
"""A year, alone or in a fiscal year's name ("FY2024")."""


def _new_and_old(frame: Frame, analysis: Analysis, a: str, b: str
                 ) -> tuple[str | None, str | None]:
    """Order two columns as (newer, older): by the years in their names, else by "from A to
    B" (A older), else by "B compared with A" / "A from B" (first named is newer)."""
    if a == b:
        return None, None  # one column named twice: each year must name its own column
    # A header path may carry other years ("Billions of chained (2012) dollars > 2000"): when
    # the question names years, the ones each column shares with it are what order them.
    asked = set(_FY_OR_YEAR.findall(analysis.folded))
    years = [_FY_OR_YEAR.findall(frame.attr(k).label) for k in (a, b)]
    if asked and all(len(set(y) & asked) == 1 for y in years):
        years = [sorted(set(y) & asked) for y in years]
    # ("from 2023 back to 2019", "from 2022 down to 2020": the direction is still stated.)
    stated = re.search(r"\bfrom\W+(?:fiscal\s+|fy\s*)?(\d{4})\s+(?:(?:back|down|up|all the "
                       r"way|forward)\s+)?to\s+(?:fiscal\s+|fy\s*)?(\d{4})\b", analysis.folded)
    if all(len(y) == 1 for y in years) and years[0] != years[1]:
        if stated and {stated.group(1), stated.group(2)} == {years[0][0], years[1][0]}:
            # "from 2019 to 2018": the question states the direction, the later-named is new
            return (a, b) if years[0][0] == stated.group(2) else (b, a)
        return (a, b) if years[0][0] > years[1][0] else (b, a)
    if _FROM_TO.search(analysis.folded):
        return b, a
    if re.search(r"\b(?:compared (?:with|to)|versus|vs\.?|over|from)\b", analysis.folded):
        return a, b
    periods = [_period(frame.attr(k)) for k in (a, b)]
    if years[0] == years[1] and periods[0] and periods[1] and periods[0][0] == periods[1][0] \
            and periods[0][1] != periods[1][1]:
        # "between Q2 and Q3" of one year: quarters, halves and months have their order.
        return (a, b) if periods[0][1] > periods[1][1] else (b, a)
    return None, None


def _period(attr: Attr) -> tuple[str, int] | None:
    """A column's own period, when its last header names one (`period_of`)."""
    return period_of(attr.path[-1]) if attr.path else None


def combine(plans: list[Plan | Refusal]) -> Plan | Refusal:
    """Add up the same computation over several tables (monthly sheets, two reports)."""
    usable = [p for p in plans if not isinstance(p, Refusal)]
    if len(usable) != len(plans):
        return Refusal("the question can be answered in one of the tables but not in all")
    if any(p.op not in COMBINABLE for p in usable):
        return Refusal(f"combining a {usable[0].op.replace('_', ' ')} across tables needs an LLM")
    first = usable[0]
    return Combined(table=first.table, rows=[], parts=usable,
                    description=f"add {first.description} across {len(usable)} tables",
                    confidence=min(p.confidence for p in usable))
