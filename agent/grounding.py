"""Ground a question's phrases in a table: which cell values, row groups and columns it names.

Every grounding records the question words it explains. A question whose content words are not
explained by the table is not answered offline: the engine's precision comes from refusing what
it cannot tie to the data.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from agent.frame import Attr, Frame
from agent.question import OPERATION_WORDS, Analysis
from agent.text import STOPWORDS, content_tokens, split_words, stem, words

GENERIC_WORDS = frozenset(stem(w) for w in split_words("""
value values figure figures amount amounts number numbers total data table row rows column
columns entry entries record records item items listed list shown show according report reported
"""))
"""Words that refer to the table itself rather than to anything in it."""


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
    group: bool = False


@dataclass
class Grounding:
    """Everything a question was tied to in one frame, and how much of it was explained."""

    frame: Frame
    q_words: list[str]
    values: list[ValueMatch] = field(default_factory=list)
    attrs: list[AttrMatch] = field(default_factory=list)
    explained: set[int] = field(default_factory=set)
    content: set[int] = field(default_factory=set)

    @property
    def unexplained(self) -> list[str]:
        return [self.q_words[i] for i in sorted(self.content - self.explained)]

    @property
    def coverage(self) -> float:
        if not self.content:
            return 0.0
        return len(self.content & self.explained) / len(self.content)


def ground(frame: Frame, analysis: Analysis) -> Grounding:
    """Tie the question to the frame's values and columns."""
    q_words = [stem(w) for w in words(analysis.text)]
    content = {i for i, w in enumerate(q_words)
               if w not in STOPWORDS and w not in OPERATION_WORDS and w not in GENERIC_WORDS}
    grounding = Grounding(frame, q_words, content=content)
    for cond in analysis.conditions:
        _explain_condition(grounding, analysis, cond)
    _match_values(grounding)
    _match_attrs(grounding)
    _match_context(grounding)
    _explain_noun_phrases(grounding, analysis)
    return grounding


def _explain_noun_phrases(grounding: Grounding, analysis: Analysis) -> None:
    """Explain the counted noun ("how many *employees*") and an "of" complement of a matched
    column ("*years* of experience"): they describe what is counted or measured."""
    q = grounding.q_words
    if analysis.op == "count" or analysis.wh == "how many":
        for i, w in enumerate(q):
            if w in analysis.target_words:
                grounding.explained.add(i)
    matched = {p for m in grounding.attrs if m.score >= 1.0 for p in m.positions}
    for i in sorted(matched):
        if i + 2 < len(q) and q[i + 1] == "of" and i + 2 in grounding.content:
            grounding.explained.add(i + 2)


def _explain_condition(grounding: Grounding, analysis: Analysis, cond) -> None:
    """The number of a condition is explained by the condition itself."""
    number_words = set(words(analysis.folded[cond.span[0]:cond.span[1]]))
    for i, w in enumerate(grounding.q_words):
        if w in number_words and any(ch.isdigit() for ch in w):
            grounding.explained.add(i)


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
            elif q_words[i] in STOPWORDS:
                pass
            else:
                break
            i += 1
        if j == len(phrase):
            return positions
    return None


def _match_values(grounding: Grounding) -> None:
    """Find cell values and row-group labels named in the question, longest first."""
    frame = grounding.frame
    candidates: dict[tuple[str, ...], dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    texts: dict[tuple[str, ...], str] = {}
    for (row, key), value in frame.cells.items():
        if value.numeric and value.kind != "text":
            continue
        phrase = tuple(content_tokens(value.text)) or tuple(
            w for w in (stem(x) for x in words(value.text)) if w)
        if not phrase or len(phrase) > 12:
            continue
        candidates[phrase][key].add(row)
        texts.setdefault(phrase, value.text)
    taken: set[int] = set()
    for phrase in sorted(candidates, key=len, reverse=True):
        positions = _find_phrase(grounding.q_words, list(phrase), taken)
        if positions is None:
            continue
        if len(phrase) == 1 and grounding.q_words[positions[0]] in OPERATION_WORDS | STOPWORDS:
            continue
        taken.update(positions)
        for key, rows in candidates[phrase].items():
            grounding.values.append(ValueMatch(key, texts[phrase], frozenset(rows),
                                               frozenset(positions), True))
        grounding.explained.update(positions)


def _match_attrs(grounding: Grounding) -> None:
    """Score every column (and column group) by the share of its words the question has."""
    frame = grounding.frame
    free = {w: i for i, w in enumerate(grounding.q_words)
            if i not in {p for v in grounding.values for p in v.positions}}
    positions_of: dict[str, set[int]] = defaultdict(set)
    for i, w in enumerate(grounding.q_words):
        positions_of[w].add(i)
    matches: list[AttrMatch] = []
    for attr in frame.attrs:
        match = _score_words(attr.tokens, free, positions_of)
        if match:
            score, positions = match
            leaf = set(_leaf_tokens(attr))
            if leaf and leaf <= set(free):
                score += 0.5  # the leaf's own words, not just a parent's, are named
            matches.append(AttrMatch((attr.key,), attr.label, score, positions))
    for node in frame.col_nodes:
        if not node["children"]:
            continue
        leaves = frame.leaves_under(node["id"])
        match = _score_words(frozenset(content_tokens(node["text"])), free, positions_of)
        if match and leaves and match[0] >= 1.0:
            matches.append(AttrMatch(tuple(a.key for a in leaves), node["text"], match[0] + 0.25,
                                     match[1], group=True))
    matches.sort(key=lambda m: -m.score)
    grounding.attrs = matches
    for m in matches:
        if m.score >= 1.0:
            grounding.explained.update(m.positions)


def _leaf_tokens(attr: Attr) -> list[str]:
    return content_tokens(attr.path[-1]) if attr.path else []


def _score_words(attr_words: frozenset[str], free: dict[str, int],
                 positions_of: dict[str, set[int]]) -> tuple[float, frozenset[int]] | None:
    """Return (share of the attribute's words in the question, their positions)."""
    if not attr_words:
        return None
    hit = [w for w in attr_words if w in free]
    if not hit:
        return None
    positions = frozenset(p for w in hit for p in positions_of[w])
    return len(hit) / len(attr_words), positions


def _match_context(grounding: Grounding) -> None:
    """Words of the table's title, sheet, file name or notes explain question words too
    ("employees" for a staff list titled "Employees"), but ground nothing."""
    frame = grounding.frame
    context = set(content_tokens(" ".join(filter(None, [frame.title, frame.sheet,
                                                        frame.file_name, *frame.notes]))))
    for i in grounding.content - grounding.explained:
        if grounding.q_words[i] in context:
            grounding.explained.add(i)
