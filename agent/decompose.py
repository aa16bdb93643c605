"""Split a message into the parts it asks for, and how to combine their answers.

Only parallel or multi-hop questions are split, and only in forms whose parts can be told
apart by their wording alone:

- an explicit list of questions ("What was X? And Y?", "X; Y"): each part, listed;
- two things joined by "and" in a lookup ("What were the salaries and rent in Q1?", "... in
  Q1 and Q2, respectively"): each thing, listed;
- a difference of two lookups ("How much higher was X than Y?", "the difference between X and
  Y"): X minus Y.

Everything else stays one question. A part that leaves out words the other states ("the
revenue in Q2 than in Q1") gets them from the other part, so each part is a whole question the
planner can ground alone. An "and" that is part of a label in the workspace ("Research and
development") never splits: `and_in_label` checks the joined words against the workspace's
search index before a split is taken.

Pure functions over text (no I/O) except `and_in_label`; the graph's `decompose` node
(`agent/nodes.py`) applies them.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from agent.events import LLMCallRecord
from agent.question import analyse, split_instructions

CombineOp = Literal["list", "difference", "sum", "ratio"]
SplitForm = Literal["list of questions", "A and B", "difference", "respectively",
                    "split by the model"]
MAX_PARTS = 4
"""More parts than this is not a question but a report; it stays whole (and is refused)."""


class Split(BaseModel):
    """The parts of a message and how their answers combine (plain data: graph state)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    parts: list[str]
    """Each part as a whole question, in order."""
    combine: CombineOp
    """list: each part's values in order; difference: part 1 - part 2; sum: their total;
    ratio: part 1 / part 2."""
    form: SplitForm
    """Which wording the split was read from (shown in the step)."""
    joined: tuple[str, str] | None = None
    """The words either side of the "and" that was split at, which must not be one label."""
    whole_first: bool = False
    """Try the whole message as one question first and use the parts only when it cannot be
    planned: a difference or an "A and B" the rules may already answer as one computation
    (a stated change, a list of two columns of one row)."""


_LIST = re.compile(r"\?\s+(?=\S)|;\s+")
_LEAD = re.compile(r"^\s*(?P<lead>(?:what|how much|how many)\s+(?:is|was|are|were)|"
                   r"(?:which|who)\s+(?:is|was|are|were))\s+(?P<body>.+?)\s*\??\s*$",
                   re.IGNORECASE)
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_BETWEEN = re.compile(r"^(?P<lead>.*?)\b(?:the\s+)?difference\s+between\s+(?P<a>.+?)\s+and\s+"
                      r"(?P<b>.+?)\s*\??\s*$", re.IGNORECASE)
_COMPARED = re.compile(r"^\s*(?:by\s+)?how\s+much\s+(?P<cmp>higher|more|lower|less|greater|"
                       r"larger|smaller|bigger)\s+(?P<verb>is|was|are|were)\s+(?P<a>.+?)\s+"
                       r"than\s+(?P<b>.+?)\s*\??\s*$", re.IGNORECASE)
_LOWER = frozenset(("lower", "less", "smaller"))
_RESPECTIVELY = re.compile(r"\s*,?\s*\brespectively\b\s*", re.IGNORECASE)
_PREPOSITION = re.compile(r"(?:^|\s)(?P<prep>in|for|of|at|on|during|from|as of|by)\s+",
                          re.IGNORECASE)
_BLOCKERS = re.compile(r"\bbetween\b|\bboth\b|\beither\b|\bneither\b|\bcombined\b|"
                       r"\btogether\b|\bas well as\b|,", re.IGNORECASE)
"""Words that make an "and" one thing (a range, a pair taken together) or a longer list."""
_WH_START = re.compile(r"^\s*(?:what|which|who|whom|whose|when|where|how|is|are|was|were|did|"
                       r"does|do|name|list|give)\b", re.IGNORECASE)
_QUESTION_START = re.compile(r"^\s*(?:and\s+|also\s+)?(?:what|which|who|whom|whose|when|where|"
                             r"how|is|are|was|were|did|does|do|in|on|for|of)\b",
                             re.IGNORECASE)
_FOLLOW_ON = re.compile(r"^\s*(?:and|also|what about|how about)\b", re.IGNORECASE)
_VERB_LEAD = re.compile(r"^\s*((?:what|which|who|how much|how many)\s+(?:is|was|are|were|did|"
                        r"does|do)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class Proposal:
    """A planner's reading of how a message splits: the split it chose (None: one question),
    the calls it made, and what the step should say about it."""

    split: Split | None
    calls: tuple[LLMCallRecord, ...] = ()
    note: str | None = None


@runtime_checkable
class Splitter(Protocol):
    """A planner that can also read how a message splits (the LLM planner: one call)."""

    def split(self, question: str, rules: Split | None) -> Proposal:
        """Return the split to use, given the rules' own (None when they keep it whole)."""
        ...


_MARKERS = re.compile(r"\?\s+\S|;\s|\band\b|\brespective(?:ly)?\b|\bdifference\b|"
                      r"\bhow (?:much|many) (?:more|less|fewer|higher|lower|greater|larger|"
                      r"smaller|bigger)\b|\bexceed(?:s|ed)?\b|\bcompared?\b|\bversus\b|\bvs\b",
                      re.IGNORECASE)
"""Wordings that may hold several parts; "more than average" is a condition, not a part."""


def could_split(question: str) -> bool:
    """Whether the wording could hold several parts at all ("and", "how much more", a second
    "?"):
    only then is a model asked how it splits, so a plain question costs no extra call."""
    return bool(_MARKERS.search(split_instructions(question)[0]))


def split_question(question: str) -> Split | None:
    """The parts of a message, or None when it is one question."""
    asked, _ = split_instructions(question)
    listed = [p.strip() for p in _LIST.split(asked) if p.strip()]
    if len(listed) > 1:
        # Every piece must be a question: "... ? Provide a yes/no answer." is one question
        # and how to answer it.
        if len(listed) > MAX_PARTS or not asked.rstrip().endswith("?") \
                or not _QUESTION_START.match(listed[0]) \
                or not all(_QUESTION_START.match(p) or _FOLLOW_ON.match(p) for p in listed):
            return None
        parts = _stand_alone(listed)
        return None if parts is None else Split(parts=parts, combine="list",
                                                form="list of questions")
    return _lookups(_difference(asked) or _conjunction(asked))


def _lookups(split: Split | None) -> Split | None:
    """The split, when each part asks for one thing the rules can read: a part that is
    itself a computation ("the maximum", "the ratio") makes the wording too loose to trust.
    (A list of whole questions is not held to this: each may ask anything.)"""
    if split is None:
        return split
    return split if all(analyse(p).op == "lookup" for p in split.parts) else None


def _stand_alone(parts: list[str]) -> list[str] | None:
    """Parts of a list as whole questions: "And the rent?" after "What was the revenue in
    Q1?" becomes "What was the rent?" (the first part's question words are lent)."""
    lead = _VERB_LEAD.match(parts[0])
    first = _LEAD.match(parts[0])
    out = [_ask(parts[0])]
    for part in parts[1:]:
        part = re.sub(r"^\s*(?:and|also|and also|what about|how about)\b[\s,]*", "", part,
                      flags=re.IGNORECASE).rstrip("?").strip()
        place = len(part.split()) == 1 or (_last_prep(part) or (1, 1))[0] == 0
        if not _WH_START.match(part) and first and place:
            # "And Q2?": the place alone; the first part says what.
            sides = _complete(first.group("body"), part)
            if sides is None:
                return None
            part = f"{first.group('lead')} {sides[1]}"
        elif not _WH_START.match(part) and lead:
            part = f"{lead.group(1)} {part}"
        out.append(_ask(part))
    return out


def _difference(asked: str) -> Split | None:
    m = _COMPARED.match(asked)
    if m:
        sides = _complete(m.group("a"), m.group("b"))
        if sides is None:
            return None
        a, b = sides
        verb = m.group("verb").lower()
        first, second = (b, a) if m.group("cmp").lower() in _LOWER else (a, b)
        return Split(parts=[_ask(f"What {verb} {first}"), _ask(f"What {verb} {second}")],
                     combine="difference", form="difference",
                     whole_first=not _apart(m.group("a"), m.group("b")))
    m = _BETWEEN.match(asked)
    if m and not _AND.search(m.group("b")) and not _AND.search(m.group("a")):
        sides = _complete(m.group("a"), m.group("b"))
        if sides is None:
            return None
        a, b = sides
        verb = "were" if re.search(r"\b(?:are|were)\b", m.group("lead"), re.IGNORECASE) \
            else "was"
        return Split(parts=[_ask(f"What {verb} {a}"), _ask(f"What {verb} {b}")],
                     combine="difference", form="difference",
                     joined=(_last_word(m.group("a")), _first_word(m.group("b"))),
                     whole_first=not _apart(m.group("a"), m.group("b")))
    return None


def _conjunction(asked: str) -> Split | None:
    respectively = bool(_RESPECTIVELY.search(asked))
    text = _RESPECTIVELY.sub(" ", asked).strip()
    m = _LEAD.match(text)
    if not m:
        return None
    body = m.group("body")
    joins = list(_AND.finditer(body))
    if len(joins) != 1 or _BLOCKERS.search(body):
        return None
    # What is asked must be a lookup: "the total of A and B" is one sum, "how many A and B"
    # one count, which the rules plan whole.
    if analyse(text).op != "lookup":
        return None
    join = joins[0]
    a, b = body[:join.start()].strip(), _without_repeated_lead(body[join.end():].strip())
    if not a or not b:
        return None
    sides = _complete(a, b)
    if sides is None:
        return None
    a, b = sides
    lead = m.group("lead")
    return Split(parts=[_ask(f"{lead} {a}"), _ask(f"{lead} {b}")], combine="list",
                 form="respectively" if respectively else "A and B",
                 joined=(_last_word(body[:join.start()]), _first_word(body[join.end():])),
                 whole_first=not _apart(body[:join.start()], body[join.end():]))


_REPEATED_LEAD = re.compile(r"^(?:what|how much|how many)\s+(?:is|was|are|were)\s+"
                            r"(?:(?:it|that|this|they|those|these)\b\s*)?", re.IGNORECASE)
"""A second side that asks again ("... in 2024 and what was it in 2023"): its question words,
and a pronoun standing for the first side's subject, which `_complete` then lends it."""


def _without_repeated_lead(b: str) -> str:
    """"what was it in 2023" -> "in 2023"; "what was HR headcount" -> "HR headcount"."""
    return _REPEATED_LEAD.sub("", b, count=1).strip()


def _complete(a: str, b: str) -> tuple[str, str] | None:
    """Lend one side the words the other states and it leaves out.

    "the revenue in Q2" / "in Q1" -> "the revenue in Q1"; "the revenue in Q1" / "Q2" ->
    "the revenue in Q2"; "the salaries" / "rent in Q1" -> "the salaries in Q1"; "2019" /
    "2018 revenue" -> "2019 revenue". Two sides that each say what and where stay as they
    are; None when it is not clear which words are shared ("the department and the type").
    """
    a, b = a.strip(), b.strip()
    a_prep, b_prep = _last_prep(a), _last_prep(b)
    if b_prep is not None and b_prep[0] == 0 and a_prep is not None:
        # "than in Q1": b is only a place; a's thing goes in front.
        return a, f"{a[:a_prep[0]].rstrip()} {b}"
    a_words, b_words = a.split(), b.split()
    if len(b_words) == 1 and _same_kind(a_words[-1], b):
        # "fiscal years 2018" / "2019": the slot word changes, the rest is shared.
        return a, " ".join([*a_words[:-1], b])
    if b_prep is None and len(b_words) <= 2 and a_prep is not None:
        return a, f"{a[:a_prep[1]].rstrip()} {b}"
    if a_prep is None and b_prep is not None and b_prep[0] > 0 and len(_content(a)) <= 2:
        return f"{a} {b[b_prep[0]:]}", b
    if len(a_words) == 1 and len(b_words) > 1 and _same_kind(a_words[0], b_words[0]):
        return f"{a} {' '.join(b_words[1:])}", b
    if a_prep is not None and b_prep is not None:
        return a, b  # each says what and where
    return None


def _apart(a: str, b: str) -> bool:
    """Whether two sides, as written, each name their own thing and their own place ("the
    revenue in Q2" / "the rent in Q1"). Then no one computation of the whole message fits (a
    difference of two rows reads one column, of two columns one row): the rules' whole plan
    would quietly drop one of the four, so the parts are asked without trying it first."""
    a_prep, b_prep = _last_prep(a.strip()), _last_prep(b.strip())
    if a_prep is None or b_prep is None or a_prep[0] == 0 or b_prep[0] == 0:
        return False
    def side(text: str, prep: tuple[int, int]) -> tuple[list[str], list[str]]:
        words = [w.lower() for w in _content(text[:prep[0]])]
        return words, [w.lower() for w in _content(text[prep[1]:])]
    (a_what, a_where), (b_what, b_where) = side(a.strip(), a_prep), side(b.strip(), b_prep)
    return bool(a_what and b_what and a_where and b_where) and a_what != b_what \
        and a_where != b_where


def _content(text: str) -> list[str]:
    return [w for w in re.findall(r"[^\W_]+", text) if w.lower() not in ("the", "a", "an")]


def _last_prep(text: str) -> tuple[int, int] | None:
    """Where the last preposition of a phrase starts and where the words after it begin."""
    found = list(_PREPOSITION.finditer(text))
    return (found[-1].start("prep"), found[-1].end()) if found else None


def _same_kind(x: str, y: str) -> bool:
    """Two slot words of one kind (years, quarters, numbers): "2019 and 2018 revenue"."""
    def kind(w: str) -> str:
        if re.fullmatch(r"\d{4}", w):
            return "year"
        if re.fullmatch(r"q[1-4]", w, re.IGNORECASE):
            return "quarter"
        return "number" if re.fullmatch(r"\d+(?:\.\d+)?", w) else "word"
    return kind(x) == kind(y) != "word"


def _ask(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip().rstrip("?").strip()
    return f"{text[:1].upper()}{text[1:]}?"


def _last_word(text: str) -> str:
    words = re.findall(r"[^\W_]+", text)
    return words[-1] if words else ""


def _first_word(text: str) -> str:
    words = re.findall(r"[^\W_]+", text)
    return words[0] if words else ""


def and_in_label(db: sqlite3.Connection, joined: tuple[str, str]) -> bool:
    """Whether "<left> and <right>" is written in a title, header, row label or cell of the
    workspace: then the "and" is part of one name ("Research and development")."""
    left, right = joined
    if not left or not right:
        return True  # nothing to check the split against: keep the question whole
    phrase = f'"{left} and {right}"'  # words only ([^\W_]+): nothing to escape
    try:
        row = db.execute("SELECT 1 FROM search_index_fts WHERE search_index_fts MATCH ? "
                         "LIMIT 1", [phrase]).fetchone()
    except sqlite3.OperationalError:
        # A workspace without a search index yet has no labels to check against.
        return False
    return row is not None
