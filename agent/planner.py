"""The planner seam: `tree_navigate` asks a `Planner` for a plan over the candidate tables.

`RulePlanner` is the offline engine's: it grounds the question in each table's HO-Tree, picks
the table that explains it best and applies the rules of `agent/solver.py`, adding up tables
that answer it equally when the question asks across them. A model-backed planner plugs in
behind the same protocol; the node does not change.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from agent.derived import DerivedColumn
from agent.events import LLMCallRecord
from agent.frame import Frame
from agent.grounding import Grounding, did_you_mean, explain_across, ground
from agent.plan import Plan, Refusal
from agent.question import Analysis
from agent.solver import REPHRASE, UNIT_IN_BRACKETS, combine, plan
from agent.text import content_tokens, words


@dataclass(frozen=True)
class Planning:
    """A planner's answer: a plan, or why there is none (`refusal`); and, when it chose a
    table, how the question matched it (`matched`: shown in the step, and the table a
    refusal is about)."""

    plan: Plan | None = None
    refusal: str | None = None
    matched: Grounding | None = None
    calls: tuple[LLMCallRecord, ...] = ()
    """The LLM calls made to plan (none offline), for the step to show."""
    phrasing: str | None = None
    """The model's answer sentence, with `{result}` where the computed value goes."""
    note: str | None = None
    """What the step should say about how the plan was made (a model that failed)."""
    source: Literal["rules", "model", "rules, checked by the model"] = "rules"
    failed: bool = False
    """The model failed and the rules could not answer either."""
    failure: str | None = None
    """Why the model could not be used (its failure, in words), when the rules' plan or
    refusal stands without it: the chat says so under the answer, not only in the step."""
    derived: DerivedColumn | None = None
    """The column the plan computes on that the model derives (the column step), if any."""


Progress = Callable[[str], None]
"""Told what a planner is doing while it works (a model's reply as it streams in)."""


class Planner(Protocol):
    """Turn an analysed question and its candidate tables (best first) into a plan."""

    def plan(self, analysis: Analysis, frames: Sequence[Frame],
             progress: Progress | None = None) -> Planning:
        """Return the plan for the question, or a refusal in words for the user."""
        ...


def _did_you_mean(groundings: Sequence[Grounding], unexplained: list[str]) -> str:
    """The typo suggestions of the tables, for the words all that suggest one agree on."""
    suggested: dict[str, set[str]] = {}
    for g in groundings:
        for typed in unexplained:
            if (word := g.typo_of(typed)) is not None:
                suggested.setdefault(typed, set()).add(word)
    return did_you_mean({t: next(iter(w)) for t, w in suggested.items() if len(w) == 1},
                        unexplained)


class RulePlanner:
    """The offline engine's planner: grounding and rules, no model."""

    def plan(self, analysis: Analysis, frames: Sequence[Frame],
             progress: Progress | None = None) -> Planning:
        """Plan on the table that explains the question best (or across equal ones)."""
        if not words(analysis.text):
            # "🤔🤔🤔": no word to tie to any table, which is the reason to give.
            return Planning(refusal="the question has no words to look up; ask it in words")
        groundings = [ground(frame, analysis) for frame in frames]
        if not groundings:
            # Documents without tables reach here too: their text is read after the graph.
            return Planning(refusal="no uploaded file holds a table, and no passage of text "
                                    "clearly states the answer")
        across = explain_across(groundings, analysis)
        titled = _own_title_words(groundings)
        best = max(groundings, key=lambda g: _rank(g, titled))
        if len(groundings) > 1 and not any(g.explained for g in groundings):
            # No table explains a single word: naming the one that happened to rank first
            # would suggest it was close.
            said = list(dict.fromkeys(best.unexplained))  # each word once
            missing = ", ".join(f'"{w}"' for w in said[:6])
            meant = _did_you_mean(groundings, best.unexplained)
            files = sorted({g.frame.file_name for g in groundings})
            where = (f"any of the {len(groundings)} tables of {files[0]}" if len(files) == 1
                     else f"any of the {len(groundings)} tables")
            words_ = "word" if len(said) == 1 else "words"
            verb = "does" if len(said) == 1 else "do"
            return Planning(refusal=f"the {words_} {missing} {verb} not match anything in "
                                    f"{where}{meant}; {REPHRASE}")
        outcome = plan(best, analysis)
        peers = [g for g in groundings
                 if g is not best and _same_question_shape(g, best, titled)]
        if peers and not isinstance(outcome, Refusal):
            names = ", ".join(sorted({g.frame.file_name + "/" + g.frame.sheet
                                      for g in [best, *peers]}))
            if not across:
                return Planning(refusal=f"tables in {names} answer this equally well; name "
                                        "the file or sheet, or ask across all of them")
            if len({_stated_units(g.frame) for g in [best, *peers]}) > 1:
                # "The combined solar generation" over a sheet's TWh table and its table of
                # shares (%): adding them would mix units.
                return Planning(refusal=f"tables in {names} give their figures in different "
                                        "units; ask about one of them by its title's words")
            outcome = combine([outcome, *(plan(g, analysis) for g in peers)])
        if isinstance(outcome, Refusal):
            return Planning(refusal=outcome.reason, matched=best)
        return Planning(plan=outcome, matched=best)


def _same_question_shape(a: Grounding, b: Grounding, titled: dict[int, int]) -> bool:
    """Two tables that ground the question identically (monthly sheets, two reports)."""
    def shape(g: Grounding) -> tuple:
        return (_rank(g, titled), sorted(v.text for v in g.values),
                sorted(m.label for m in g.attrs if m.full))
    return shape(a) == shape(b)


def _stated_units(frame: Frame) -> frozenset[str]:
    """The units a table's title states in brackets ("(TWh)", "(%)"), folded; not a note
    ("(January)")."""
    return frozenset(u.strip().lower() for u in re.findall(r"\(([^()]{1,12})\)",
                                                           frame.title or "")
                     if UNIT_IN_BRACKETS.search(u))


def _own_title_words(groundings: Sequence[Grounding]) -> dict[int, int]:
    """For each table (by `id` of its grounding), how many of the question's words its title
    says and no other table's title does: "harvested area" names "A. Harvested area (000
    ha)" rather than "B. Yield (t/ha)" below it on the sheet, though the file's name says
    "harvested_area" of both. (A word of both titles decides nothing: "generation" of
    "Gross generation (TWh)" and "Share of national generation (%)".)"""
    titles = {id(g): set(content_tokens(g.frame.title or "")) for g in groundings}
    out = {}
    for g in groundings:
        others = set().union(*(t for k, t in titles.items() if k != id(g)))
        own = titles[id(g)] - others
        # (Nor a word another table's cells or columns name: "crop" of B's Crop column
        # beside the sheet's title "... of principal crops" heading A's.)
        named_elsewhere = set().union(*(o.named_positions for o in groundings if o is not g))
        out[id(g)] = sum(1 for i in g.content
                         if g.q_words[i] in own and i not in named_elsewhere)
    return out


_NEGATED = re.compile(r"\b(?:not|non|excluding|without)[\s-]+([^\W\d_]+(?:\s+[^\W\d_]+)?)")
"""What a title says a table is not ("Not seasonally adjusted", "excluding LULUCF")."""


def _title_denies(g: Grounding) -> int:
    """1 when the table's title says it is not what the question says, without the
    question's own "not" ("seasonally adjusted ..." over "Not seasonally adjusted, 2023",
    beside the table that is), else 0."""
    title, asked = (g.frame.title or "").casefold(), " ".join(g.raw_words)
    for m in _NEGATED.finditer(title):
        phrase = " ".join(m.group(1).split())
        if re.search(rf"\b{re.escape(phrase)}\b", asked) \
                and not re.search(rf"\b(?:not|non|excluding|without)[\s-]+{re.escape(phrase)}\b",
                                  asked):
            return 1
    return 0


def _rank(g: Grounding, titled: dict[int, int]) -> tuple[float, int, int, int, int, int]:
    """How well a table explains the question; at a tie, the one whose title does not deny
    what the question says (`_title_denies`), then the one that leaves no name
    unexplained ("Wales" of "how many seats did the Conservatives win in Wales": the table
    of nations leaves the verb instead), then the one whose own title says more of it
    (`_own_title_words`), then the one whose cells and columns (not its title or notes) say
    more of it: "how many points" names the "Pts" column of one table rather than a note of
    another that says "deducted 3 points"."""
    return (g.coverage, -_title_denies(g), -len(g.names - g.explained), len(g.explained),
            titled.get(id(g), 0), len(g.named_positions))
