"""LLM mode's answers from the documents' text: the model names the passage and copies the
sentence that states the answer, and the answer stands only when that sentence is in the
passage word for word and holds the answer as written.

A model's number is never taken from its memory (the mission's rule): like a plan's result,
which SQL computes, a text answer must be read from the source. So the model is asked to
quote, not to answer: `check` finds the quote in the stored passage (spaces aside) and the
answer inside the quote (case aside). A computed answer ("by how much did it grow") is
refused, since no sentence writes it; the tables' engine computes those.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict

from agent.calibration import current as current_calibration
from agent.events import Answer, LLMCallRecord, TextEvidence, TextLocation
from agent.text_answer import asks_who, only_titles

if TYPE_CHECKING:
    from agent.llm.client import LLMClient
    from storage.chunks import StoredChunk

PURPOSE = "quote the passage that answers"
PASSAGES = 8
"""Best full-text passages shown to the model."""
MAX_PASSAGE_CHARS = 1_500
CONFIDENCE = 0.7
"""A quote checked word for word, but chosen by the model alone: medium, never high."""

SYSTEM = """You answer a question about documents from the numbered passages given, and only \
from them.
If one passage states the answer, reply with verdict "quote", `passage`: its id (for example \
"p2"), `quote`: the sentence that states the answer, copied exactly as the passage writes it, \
and `answer`: the answer exactly as that sentence writes it (a number with its currency sign, \
percent sign or unit, a date, a name).
Never compute, convert, round or combine: if the answer needs a calculation, or no passage \
states it, reply with verdict "refuse" and say why in `reason`."""


class QuoteReply(BaseModel):
    """The model's reply: the passage, the quoted sentence and the answer in it, or a
    refusal."""

    model_config = ConfigDict(extra="ignore")

    verdict: Literal["quote", "refuse"]
    passage: str | None = None
    quote: str | None = None
    answer: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class Quoted:
    """What asking the model gave: the checked answer, or why there is none; the call."""

    answer: Answer | None
    problem: str | None
    record: LLMCallRecord | None
    chunk: StoredChunk | None = None


def request(question: str, passages: Sequence[StoredChunk]) -> str:
    """The user message: the question, then each passage with its id and where it is."""
    lines = [f"Question: {question}", "", "Passages:"]
    for i, passage in enumerate(passages, 1):
        c = passage.chunk
        where = ", ".join(w for w in (passage.file_name,
                                       f"page {c.page}" if c.page is not None else "",
                                       c.section or "") if w)
        lines.append(f"p{i} ({where}): {passage.text[:MAX_PASSAGE_CHARS]}")
    return "\n".join(lines)


def quote_from_text(client: LLMClient, question: str,
                    passages: Sequence[StoredChunk]) -> Quoted:
    """Ask the model which passage states the answer (one call) and check its quote."""
    from agent.llm.client import LLMFailure

    messages = [SystemMessage(SYSTEM), HumanMessage(request(question, passages))]
    try:
        reply, record = client.structured(messages, QuoteReply, purpose=PURPOSE)
    except LLMFailure as failure:
        return Quoted(None, str(failure).rstrip(". "), failure.record)
    if reply.verdict == "refuse":
        why = reply.reason.strip() or "no passage states it"
        return Quoted(None, f"the model found no passage that states it: {why}", record)
    by_id = {f"p{i}": p for i, p in enumerate(passages, 1)}
    chunk = by_id.get((reply.passage or "").strip().lower())
    if chunk is None:
        return Quoted(None, f"the model named passage {reply.passage!r}, which was not sent",
                      record)
    found = check(chunk.text, reply.quote or "", reply.answer or "")
    if isinstance(found, str):
        return Quoted(None, found, record, chunk)
    start, end, value = found
    if asks_who(question) and only_titles(value):
        return Quoted(None, f"the model's answer {value!r} is a title without the name that "
                      "follows it", record, chunk)
    c = chunk.chunk
    evidence = TextEvidence(source=chunk.file_name, file=chunk.file_slug, chunk=chunk.id,
                            location=TextLocation(page=c.page, section=c.section,
                                                  paragraph=c.paragraph, start=c.start + start,
                                                  end=c.start + end),
                            text=chunk.text[start:end])
    answer = Answer(answer=value, values=[value], evidence=[evidence], confidence=CONFIDENCE,
                    confidence_label=current_calibration().label(CONFIDENCE))
    return Quoted(answer, None, record, chunk)


def check(text: str, quote: str, answer: str) -> tuple[int, int, str] | str:
    """The quote's span in the passage and the answer as the passage writes it, or why the
    reply does not hold: the quote is not in the passage, or the answer not in the quote."""
    words = quote.split()
    if not words:
        return "the model quoted nothing"
    if not answer.strip():
        return "the model gave no answer inside its quote"
    # Spaces and line breaks aside, the quote must be the passage's own words.
    m = re.search(r"\s+".join(map(re.escape, words)), text)
    if m is None:
        return "the model's quote is not in the passage as written, so it is not used"
    # A whole token of the quote: "42" is not read out of "142" or "1.42".
    said = re.search(r"(?<![\w.,])" + r"\s+".join(map(re.escape, answer.split()))
                     + r"(?![\w]|[.,]\d)", m.group(), re.IGNORECASE)
    if said is None:
        return f"the model's answer {answer!r} is not written in the sentence it quoted"
    return m.start(), m.end(), said.group()
