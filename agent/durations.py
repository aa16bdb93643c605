"""How long a row lasted: the start and end columns a table gives its rows, and what a
question asks of the time between them.

A register or a log often gives each row when it started and when it ended ("Start Date" and
"End Date", "Opened" and "Closed", "Departure" and "Arrival", "Start Time" and "End Time")
and no column of durations. Its headers say which is which by general words (`START_WORDS`,
`END_WORDS`), never by a table's or a question's own wording; the cells must hold points in
time (`agent/moments.py`). `agent/solver.py` plans a `Duration` over the pair this finds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.frame import Attr, Frame, Value
from agent.moments import Moments, Unit, clock_scale, moments_of, shows_time
from agent.question import Analysis
from agent.text import fold, same_word, stem, words

START_WORDS = re.compile(
    r"\b(?:start(?:s|ed|ing)?|begin(?:s|ning)?|began|commenc(?:e|ed|es|ement)|from|"
    r"open(?:s|ed|ing)?|created|logged|reported|raised|submitted|detected|"
    r"depart(?:s|ed|ure)?|check(?:ed)?[\s-]?in|clock(?:ed)?[\s-]?in|time[\s-]in|admitted|"
    r"admission|onset|launch(?:ed)?|kick[\s-]?off|took office|hired?|joined|entry|entered|"
    r"order(?:ed)?|booked|since)\b")
"""Header words of the column a row starts at (folded)."""
END_WORDS = re.compile(
    r"\b(?:end(?:s|ed|ing)?|finish(?:es|ed)?|complet(?:e|ed|ion)|clos(?:e|ed|es|ing|ure)|"
    r"resolv(?:e|ed)|resolution|until|till|to|arriv(?:e|es|ed|al)|check(?:ed)?[\s-]?out|"
    r"clock(?:ed)?[\s-]?out|time[\s-]out|discharg(?:e|ed)|restor(?:ed|ation)|return(?:ed)?|"
    r"fixed|expir(?:y|es|ed|ation)|left office|left|leaving|terminat(?:ed|ion)|exit(?:ed)?|"
    r"deliver(?:ed|y))\b")
"""Header words of the column a row ends at (folded)."""
_POINT_WORDS = frozenset(words("date dates time times datetime timestamp day at on of"))
"""Words beside a start or end word that say nothing about what started ("Start *date*")."""

_DURATION_HEADER = re.compile(
    r"\b(?:duration|length|lasted|elapsed|days|hours|hrs?|h|minutes|mins?|weeks|nights|"
    r"seconds|secs?|downtime|turnaround|tat|lead time|time (?:to|taken|spent|open)|"
    r"(?:resolution|response|wait(?:ing)?|cycle|run|travel|flight|journey|transit) time)\b")
"""A column that states a duration ("Duration", "Days open", "Resolution time (h)"); not a
"Day" or an "Hour", which say when."""
_DISTANCE = re.compile(r"\b(?:km|kms|kilomet(?:re|er)s?|mi|miles?|m|metres?|meters?|ft|feet|"
                       r"yards?|nm)\b")
"""Units of a length, which a "Length" column may be in ("Length (km)")."""


@dataclass(frozen=True)
class Span:
    """A start and an end column of points in time, and how their cells hold them."""

    start: Attr
    end: Attr
    moments: Moments
    scales: tuple[int, int] = (1, 1)
    timed: bool = False
    """Some date cell shows a time of day: its natural unit is hours, not days."""

    @property
    def name(self) -> str:
        return f"{self.start.label} to {self.end.label}"


def _leaf(attr: Attr) -> str:
    return fold(attr.path[-1]) if attr.path else ""


def _rest(leaf: str, pattern: re.Pattern[str]) -> frozenset[str]:
    """What a header says besides its start or end word and its date words ("reign" of
    "Reign began")."""
    return frozenset(stem(w) for w in words(pattern.sub(" ", leaf))
                     if w not in _POINT_WORDS)


def _points(frame: Frame, attr: Attr, rows: list[int]) -> tuple[Moments, int, bool] | None:
    """What a column holds on these rows: its kind of points in time, the scale of its times
    of day and whether a date shows a time; None unless most of its filled cells are points
    in time (the rest blank or a word such as "ongoing")."""
    values = [v for v in frame.values_of(attr.key, rows) if v is not None and v.text.strip()]
    held = [v for v in values if v.kind in ("date", "duration")]
    if not held or len(held) * 2 < len(values) or any(
            _digits_unread(v) for v in values if v.kind not in ("date", "duration")):
        return None
    moments = moments_of(held)
    if moments is None:
        return None
    if moments == "clock":
        return moments, clock_scale(held) or 1, False
    return moments, 1, any(shows_time(v) for v in held)


def _digits_unread(value: Value) -> bool:
    """A cell that writes something with digits that is no point in time ("03/05/2024
    2:30 PM"): not a row without an end, but a date the column's reading missed."""
    return any(ch.isdigit() for ch in value.text)


def spans(frame: Frame, rows: list[int]) -> list[Span]:
    """The table's start and end column pairs whose cells hold points in time of one kind on
    these rows; pairs whose other header words agree ("Reign began" and "Reign ended") over
    those that do not, when there are both."""
    if not rows:
        return []
    starts, ends = [], []
    for attr in frame.data_attrs:
        leaf = _leaf(attr)
        is_start, is_end = bool(START_WORDS.search(leaf)), bool(END_WORDS.search(leaf))
        if is_start == is_end:
            continue
        (starts if is_start else ends).append(attr)
    if not starts or not ends:
        return []
    read = {a.key: _points(frame, a, rows) for a in starts + ends}
    found, matched = [], []
    for start in starts:
        for end in ends:
            a, b = read[start.key], read[end.key]
            if a is None or b is None or a[0] != b[0]:
                continue
            span = Span(start, end, a[0], (a[1], b[1]), a[2] or b[2])
            found.append(span)
            if _rest(_leaf(start), START_WORDS) == _rest(_leaf(end), END_WORDS):
                matched.append(span)
    return matched or found


def stated_durations(frame: Frame, taken: set[str], rows: list[int]) -> list[Attr]:
    """Columns besides `taken` that state a duration themselves: figures under a header that
    says one ("Duration", "Days open", "Resolution hours", "Length of reign": "18 years, 34
    days"), or cells that are durations. The rules read such a column as they read any
    other. (A "Day" of weekday names states none.)"""
    out = []
    for attr in frame.data_attrs:
        leaf = fold(" ".join(attr.path))
        if attr.key in taken or _DISTANCE.search(leaf):
            continue  # a start or end, or a length ("Length (km)")
        if (START_WORDS.search(leaf) or END_WORDS.search(leaf)) \
                and _points(frame, attr, rows) is not None:
            continue  # another point in time ("Doors open"), not a duration
        if attr.derivable or _DURATION_HEADER.search(leaf) and (attr.measurable or any(
                _digits_unread(v) for v in frame.values_of(attr.key, rows) if v is not None)):
            out.append(attr)
    return out


_UNITS = {form: unit for unit, forms in (
    ("seconds", "second seconds sec secs"), ("minutes", "minute minutes min mins"),
    ("hours", "hour hours hr hrs"), ("days", "day days night nights"), ("weeks", "week weeks"))
    for form in forms.split()}
_CALENDAR = {"month": "months", "months": "months", "year": "years", "years": "years"}
_UNIT_WORD = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|nights?|months?|years?)"
_ASKED_UNIT = re.compile(rf"\bhow many ({_UNIT_WORD})\b|\bin ({_UNIT_WORD})\b|"
                         rf"\bnumber of ({_UNIT_WORD})\b|\b({_UNIT_WORD}) (?:of|open|long)\b")
"""The unit a duration is asked in: "how many days", "in hours", "minutes of downtime" (not
"what year did it end", a date)."""
_HOW_LONG = re.compile(r"\bhow long\b|\bhow much time\b|\bduration\b|\blength\b|"
                       r"\blast(?:ed|ing)\b|\b(?:did|does|do|will|would|to)\b[^?.,;]*\blast\s*"
                       r"(?:\?|$|\b(?:the\s+)?(?:longest|shortest|for|on average)\b)|"
                       r"\b(?:average|mean|typical|total|longest|shortest)\s+(?:[^\W\d_]+\s+)?"
                       r"time\b|\btime (?:to|taken|spent)\b|\b(?:downtime|turnaround|elapsed)\b")
"""Words that ask how long ("last" as a verb: "how many days did it *last*", not "which was
resolved *last*"; "the average resolution *time*"). A verb such as "took", "stayed" or
"spent" does not alone: "the total amount spent", "how many guests stayed in total"."""
_EXTREME = re.compile(r"\b(longest|shortest|maximum|minimum|max)\b")
"""("min" is minutes as often as a minimum.)"""
_AVERAGE = re.compile(r"\b(?:average|mean|avg|typical)\b")
_TOTAL = re.compile(r"\b(?:total|sum|combined|altogether|cumulative)\b")
_EACH = re.compile(r"\b(?:each|every|per|list|all)\b")
_SUBJECT = re.compile(r"\b(?:did|does|do)\s+(?:an?\s+|the\s+|each\s+|every\s+|one\s+|this\s+|"
                      r"that\s+)?(?!longest\b|shortest\b|average\b)([^\W\d_]+)")
_LONGEST_NOUN = re.compile(r"\b(?:longest|shortest)\s+([^\W\d_]+)")


@dataclass(frozen=True)
class Asked:
    """What a question asks of the rows' durations."""

    aggregate: str | None
    """"sum", "avg", "max", "min", or None (one row's, or not said)."""
    unit: Unit | None
    """The unit the question names; None when it names none."""
    calendar: str | None = None
    """A unit of the calendar the question names ("months"), whose length varies."""
    row_named: bool = False
    """"Which ticket ...": the row is asked, not the duration."""
    grouped: bool = False
    """"The longest total downtime": an extreme of sums or averages per group."""


def asked_unit(folded: str) -> tuple[Unit | None, str | None]:
    """The unit a question names ("how many days", "in hours", "minutes of"), and a calendar
    unit it names instead ("months")."""
    for m in _ASKED_UNIT.finditer(folded):
        word = next(g for g in m.groups() if g)
        if word in _CALENDAR:
            return None, _CALENDAR[word]
        return _UNITS[word], None  # type: ignore[return-value]
    return None, None


def reads_duration(analysis: Analysis) -> bool:
    """Whether a question asks how long rows lasted: "how long", "how many days", "lasted",
    "took", "duration", a unit of time to answer in, or "longest"/"shortest" (which over a
    table of start and end columns and no length is the time between them)."""
    folded = analysis.folded
    unit, calendar = asked_unit(folded)
    return bool(_HOW_LONG.search(folded) or unit or calendar
                or re.search(r"\b(?:longest|shortest)\b", folded))


def asks_how_long(analysis: Analysis) -> bool:
    """Whether a question asks for a length of time in so many words ("how long", "how many
    days", "duration"), which no date answers."""
    return bool(_HOW_LONG.search(analysis.folded) or asked_unit(analysis.folded)[0])


def what_is_asked(analysis: Analysis) -> Asked:
    """The aggregate, unit and answer a duration question asks for."""
    folded = analysis.folded
    unit, calendar = asked_unit(folded)
    extreme = _EXTREME.search(folded)
    aggregate = None
    if _AVERAGE.search(folded):
        aggregate = "avg"
    elif _TOTAL.search(folded):
        aggregate = "sum"
    elif extreme:
        aggregate = "max" if extreme.group(1) in ("longest", "maximum", "max") else "min"
    grouped = aggregate in ("avg", "sum") and extreme is not None
    row_named = aggregate in ("max", "min") and (
        analysis.wh in ("which", "who", "whom", "whose")
        or analysis.wh == "what" and analysis.superlative_noun is not None
        and analysis.superlative_noun not in _DURATION_NOUNS and unit is None)
    return Asked(aggregate, unit, calendar, row_named, grouped)


_DURATION_NOUNS = frozenset(stem(w) for w in words(
    "duration length time period span downtime stay wait delay gap interval"))


def lists_each(analysis: Analysis) -> bool:
    """"How long did each outage last": a duration per row, a list rather than one answer."""
    return bool(_EACH.search(analysis.folded))


def subject_words(analysis: Analysis) -> set[str]:
    """The stemmed noun a duration is asked of ("how many days did an *outage* last", "which
    act has the longest *set*"): what a row is, which the table need not write."""
    found = {stem(m.group(1)) for pattern in (_SUBJECT, _LONGEST_NOUN)
             for m in pattern.finditer(analysis.folded)}
    if analysis.superlative_noun:
        found.add(analysis.superlative_noun)
    return found


DURATION_WORDS = frozenset(stem(w) for w in words(
    "how long duration length last lasted lasting took take takes taken spent stay stayed "
    "stays remain remained ran run runs downtime turnaround elapsed time open opened "
    "seconds second secs sec minutes minute mins min hours hour hrs hr days day weeks week "
    "nights night average mean avg typical total sum combined altogether overall cumulative "
    "longest shortest maximum minimum max min one between"))
"""Words a duration question uses for what it asks (explained by the plan, not by a cell)."""


def ends_said(analysis: Analysis, span: Span) -> bool:
    """Whether the question keeps to rows that have ended: a participle of ending ("the
    tickets that have been *closed*", "*finished* outages", "*resolved* incidents"), or the
    end column's own word as what a row took time to do ("took the longest to *resolve*",
    "the time to *close*"); not "from opening to *closing*" or "from start to *end*", which
    say what is measured."""
    said = words(analysis.folded)
    ends = [w for w in words(_leaf(span.end)) if END_WORDS.fullmatch(w)
            and w not in ("to", "until", "till")]
    took = _TOOK_TO.search(analysis.folded)
    for i, w in enumerate(said):
        if w.endswith("ed") and END_WORDS.fullmatch(w) and w != "left":
            return True
        if took and i and said[i - 1] == "to" \
                and any(same_word(w, e) or stem(w) == stem(e) for e in ends):
            return True
    return False


_ENDED = {"end": "ended", "ends": "ended", "ending": "ended", "finish": "finished",
          "close": "closed", "closing": "closed", "closure": "closed", "complete": "completed",
          "completion": "completed", "resolve": "resolved", "resolution": "resolved",
          "arrival": "arrived", "arrive": "arrived", "return": "returned",
          "discharge": "discharged", "restoration": "restored", "expiry": "expired",
          "expiration": "expired", "termination": "terminated", "exit": "exited",
          "delivery": "delivered"}


def ended_word(label: str) -> str:
    """How a question says a row has ended, in a header's word ("Closed": "closed", "End
    date": "ended"), for a refusal to suggest; "ended" when the header has none."""
    for w in words(fold(label)):
        if END_WORDS.fullmatch(w) and w.endswith("ed"):
            return w
        if w in _ENDED:
            return _ENDED[w]
    return "ended"


_TOOK_TO = re.compile(r"\b(?:took|take|takes|taken|time)\b[^?]*\bto\b")
