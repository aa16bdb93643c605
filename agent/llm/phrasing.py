"""The model's answer sentence, with the application's numbers in it.

The model writes a sentence with `{result}` where the value goes; the application puts in the
validated result as the cells show it. Any other number in the sentence must come from the
question, the result, or the cited cells and their header paths (a year in "Q2 2024", a
row's "7. Health"); otherwise the sentence states a number no step produced, and the answer is
"could not verify" (CONTRACTS.md, "Answers").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent.events import Evidence
from agent.frame import Frame
from agent.results import Result

SLOT = "{result}"
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
MAX_SENTENCE_CHARS = 400


@dataclass(frozen=True)
class Unverified:
    """The sentence states a number that no step produced."""

    problem: str


def phrase(template: str | None, result: Result, question: str, frame: Frame,
           cited: Sequence[Evidence]) -> str | Unverified:
    """The answer text: the model's sentence with the result filled in, or the result alone
    when there is no usable sentence."""
    if not template or SLOT not in template or len(template) > MAX_SENTENCE_CHARS:
        return result.display
    sentence = " ".join(template.split())
    allowed = _numbers_in([question, result.display, *map(str, result.values),
                           *(e.text for e in cited), *_headers(frame, cited)])
    stray = [n for n in _numbers_in([sentence.replace(SLOT, " ")]) if n not in allowed]
    if stray:
        return Unverified(f"the model's sentence states {', '.join(sorted(stray))}, which no "
                          "step produced")
    return sentence.replace(SLOT, result.display)


def _numbers_in(texts: Sequence[str]) -> set[str]:
    """Each number of the texts, without thousands separators ("1,200" and "1200" alike)."""
    return {m.group().replace(",", "").rstrip(".") for t in texts for m in _NUMBER.finditer(t)}


def _headers(frame: Frame, cited: Sequence[Evidence]) -> list[str]:
    """What the cited cells' headers say: the table's title, the column and row paths."""
    texts = [frame.title or "", frame.sheet, frame.file_name]
    texts += [a.label for a in frame.attrs]
    texts += [frame.row_label(r) for r in frame.rows]
    return texts
