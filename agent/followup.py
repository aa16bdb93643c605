"""Follow-up questions: "and for Q3?", "what about Rent?", "And the revenue?", "and the
average?" after a question that was answered.

A follow-up is a message that opens with a continuation ("and ...", "what about ...", "how
about ...", "same for ...") and is not a whole question of its own ("And what was the rent in
Q1?" is). It is asked as the previous question with one part swapped, so the engine plans it
like any question and the trace can show exactly what was asked:

- a column the fragment names replaces the columns the previous question named ("Q2 2024" ->
  "Q3");
- a row label it names replaces the previous question's labels of the same column
  ("operating expense" -> "rent");
- an operation word it names ("average", "total") replaces the previous one, or goes in
  front of what was asked.

Anything the fragment names that the previous question's table does not have leaves the
message as it is (and it is then refused or answered as written). Pure functions over the
frame; the `decompose` node applies them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.frame import Frame
from agent.grounding import ground
from agent.question import analyse
from agent.text import fold, word_spans

_CUE = re.compile(r"^\s*(?:(?P<about>(?:and\s+)?(?:what|how)\s+about)|(?P<and>and|also|"
                  r"same\s+for))\b[\s,]*", re.IGNORECASE)
_WHOLE = re.compile(r"^(?:what|which|who|whom|whose|when|where|how|why|is|are|was|were|did|"
                    r"does|do|can|could|name|list|give|show|tell)\b", re.IGNORECASE)
_OPERATION = re.compile(r"\b(?:total|sum|average|mean|median|count|number\s+of|maximum|"
                        r"minimum|max|min|highest|lowest|largest|smallest)\b", re.IGNORECASE)


@dataclass(frozen=True)
class FollowUp:
    """A follow-up read against the previous question."""

    question: str
    """The previous question with the fragment's part swapped in: what is asked."""
    carried: str
    """What was kept from the previous question, in words for the trace."""


def fragment_of(message: str) -> str | None:
    """The part after the continuation when `message` is a follow-up fragment, else None."""
    m = _CUE.match(message)
    if m is None:
        return None
    rest = message[m.end():].strip().rstrip("?").strip()
    if not rest or (m.group("and") and _WHOLE.match(rest)):
        return None
    return rest


def without_leading_and(message: str) -> str:
    """A whole question opened with "and" or "also" ("And what was the revenue in Q4?"),
    without that word: the conjunction ties it to the chat, not to a second question."""
    m = _CUE.match(message)
    if m is None or not m.group("and"):
        return message
    rest = message[m.end():].strip()
    return rest[:1].upper() + rest[1:] if _WHOLE.match(rest) else message


def follow_up(message: str, previous: str, frame: Frame) -> FollowUp | None:
    """Read `message` as a follow-up of `previous` (asked over `frame`), or None."""
    fragment = fragment_of(message)
    if fragment is None:
        return None
    asked_now, asked_before = analyse(fragment), analyse(previous)
    now, before = ground(frame, asked_now), ground(frame, asked_before)
    now_words, before_words = _Words(asked_now.text), _Words(asked_before.text)
    swaps: list[tuple[set[int], str]] = []  # (previous word positions, replacement)
    swapped: list[str] = []
    explained: set[int] = set()
    # A header said with a value of its column describes the value ("the South *region*"
    # after "... for North in Q4 2024"): it is no column to swap for the quarter.
    held = {v.attr for v in now.values}
    describing = [a for a in now.attrs if set(a.attrs) <= held]
    for attr in describing:
        explained |= attr.positions
    columns = [a for a in now.attrs if a not in describing]
    if columns:
        best = columns[0]
        explained |= best.positions
        new = now_words.phrase(best.positions)
        old = _same_level_words(frame, best.attrs, new, before_words)
        if not old:
            old = set().union(*(a.positions for a in before.attrs))
            old -= set().union(*(v.positions for v in before.values))
        swaps.append((old, new))
        swapped.append(_said(before_words, old, swaps[-1][1]))
    for value in now.values:
        explained |= value.positions
        # The previous labels of the same column; else its labels of any (a row group's
        # label, "Operating Expenses", is another column's value than "Rent" below it).
        same = [v for v in before.values if v.attr == value.attr] or before.values
        # Each label whole, with the small words inside it: "Sales and marketing" is one
        # phrase, though "and" is none of its matched words.
        old = set().union(*(range(min(v.positions), max(v.positions) + 1) for v in same))
        swaps.append((old, now_words.phrase(value.positions)))
        swapped.append(_said(before_words, old, swaps[-1][1]))
    operation = _OPERATION.search(now_words.text)
    if operation is not None:
        old_op = _OPERATION.search(before_words.text)
        word = operation.group(0).lower()
        if old_op is not None:
            swaps.append((before_words.within(old_op.span()), word))
        else:  # a lookup: the operation goes in front of what was asked
            front = before_words.front()
            swaps.append(({front}, f"{word} {before_words.word(front)}") if front is not None
                         else (set(), word))
        swapped.append(_said(before_words, swaps[-1][0] if old_op is not None else set(),
                             word))
    # Operation words are the operation's swap, not words the table must place.
    if not swaps or now.content - explained - _operation_positions(now_words):
        return None  # nothing, or not all, of the fragment is in the previous table
    question = before_words.rewrite(swaps)
    return FollowUp(question=question,
                    carried=f"from the previous question \u201c{previous.strip()}\u201d: "
                            + "; ".join(dict.fromkeys(swapped)))


def _same_level_words(frame: Frame, keys: tuple[str, ...], new: str, before: _Words
                      ) -> set[int]:
    """The previous question's words naming a sibling of the header level the fragment names:
    "2023" after "Gross additions to fixed assets in 2022" swaps the year alone, where the
    year heads every column of the path. Empty when the fragment is no one level's label or
    the previous question names no sibling of it."""
    wanted = fold(new).strip()
    levels = {i for key in keys for i, label in enumerate(frame.attr(key).path)
              if fold(label).strip() == wanted}
    if len(levels) != 1:
        return set()
    [level] = levels
    siblings = {fold(a.path[level]).strip() for a in frame.attrs
                if a.kind == "data" and len(a.path) > level and a.path[level]} - {wanted}
    found: set[int] = set()
    n = len(before.spans)
    for start in range(n):
        for end in range(min(n, start + 6), start, -1):
            if fold(before.phrase({start, end - 1})).strip() in siblings:
                found |= set(range(start, end))
                break
    return found


def _said(before: _Words, old: set[int], new: str) -> str:
    """One swap in words: \u201cQ3\u201d for \u201cQ2 2024\u201d, or \u201cQ3\u201d added."""
    if not old:
        return f"\u201c{new}\u201d added"
    return f"\u201c{new}\u201d for \u201c{' '.join(before.word(i) for i in sorted(old))}\u201d"


def _operation_positions(words: _Words) -> set[int]:
    found: set[int] = set()
    for m in _OPERATION.finditer(words.text):
        found |= words.within(m.span())
    return found


class _Words:
    """A question's words with their places in its text, to swap some for others."""

    def __init__(self, text: str) -> None:
        self.text = text
        # fold() may change the length of some characters; then the folded text is used.
        folded = fold(text)
        self.source = text if len(folded) == len(text) else folded
        self.spans = word_spans(text)

    def phrase(self, positions: set[int] | frozenset[int]) -> str:
        ordered = sorted(positions)
        return self.source[self.spans[ordered[0]][0]:self.spans[ordered[-1]][1]]

    def word(self, position: int) -> str:
        start, end = self.spans[position]
        return self.source[start:end]

    def front(self) -> int | None:
        """The word an operation goes before: the first after "the", else after the
        question's verb ("What was rent ..." -> "rent")."""
        lowered = [self.word(i).lower() for i in range(len(self.spans))]
        if "the" in lowered and lowered.index("the") + 1 < len(lowered):
            return lowered.index("the") + 1
        for i, w in enumerate(lowered[:-1]):
            if w in ("is", "was", "are", "were"):
                return i + 1
        return None

    def within(self, span: tuple[int, int]) -> set[int]:
        """The word positions inside a character span of the text."""
        return {i for i, (a, b) in enumerate(self.spans) if a >= span[0] and b <= span[1]}

    def rewrite(self, swaps: list[tuple[set[int], str]]) -> str:
        """The text with each swap's words removed and its replacement written where the
        first of them stood (at the end of the question when it had none)."""
        out = self.source.strip().rstrip("?").rstrip()
        edits: list[tuple[int, int, str]] = []
        appended: list[str] = []
        for positions, replacement in swaps:
            if not positions:
                appended.append(replacement)
                continue
            ordered = sorted(positions)
            first = True
            for run in _runs(ordered):
                start, end = self.spans[run[0]][0], self.spans[run[-1]][1]
                edits.append((start, end, replacement if first else ""))
                first = False
        for start, end, replacement in sorted(edits, reverse=True):
            out = out[:start] + replacement + out[end:]
        out = re.sub(r"\s{2,}", " ", out).strip()
        if appended:
            out += " for " + " and ".join(appended)
        return out + "?"


def _runs(ordered: list[int]) -> list[list[int]]:
    """Consecutive positions as runs: [3, 4, 7] -> [[3, 4], [7]]."""
    runs: list[list[int]] = []
    for i in ordered:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs

