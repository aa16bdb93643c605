"""The model's reading of how a message splits into parts (the `decompose` step's one call).

Asked only when the wording could hold several parts (`agent.decompose.could_split`), with the
rules' own split (or that they keep it whole) in the request. The reply is a `SplitReply`
parsed with pydantic: keep the message whole, or its parts as whole questions and how their
answers combine. The parts are then planned, walked and validated like any question; the model
computes nothing. A reply that cannot be used, or a failed call, leaves the rules' split.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, Field

from agent.decompose import MAX_PARTS, Proposal, Split
from agent.llm.client import LLMClient, LLMFailure

PURPOSE = "split the question"

SYSTEM = f"""\
You read a question about tables from reports and say whether it asks several things that
are answered separately and then combined. Split ONLY:
- an explicit list of questions ("What was X? And Y?");
- two things joined by "and" that are looked up separately ("the revenues in Q1 and Q2",
  "... respectively");
- a difference of two looked-up values ("How much higher was X than Y?", "the difference
  between X and Y").
Everything else is one question: one name that contains "and" ("Research and development"),
a total, average or count over several things, a ranking, a range ("between 2018 and 2019").
Each part must be a whole question that can be answered alone (repeat the shared words).
At most {MAX_PARTS} parts. combine: list (each part's answer, in order), difference (part 1
minus part 2), sum, or ratio (part 1 divided by part 2)."""


class SplitReply(BaseModel):
    """The model's reply: keep the question whole, or its parts and how they combine."""

    model_config = ConfigDict(extra="forbid")

    split: bool = Field(description="true when the question asks several things to combine")
    parts: list[str] = Field(default_factory=list,
                             description="each part as a whole question, in order")
    combine: Literal["list", "difference", "sum", "ratio"] = Field(
        "list", description="how the parts' answers combine")
    reason: str = Field("", description="why, in a few words")


def propose_split(client: LLMClient, question: str, rules: Split | None) -> Proposal:
    """Ask the model how `question` splits; the rules' split stands when it fails."""
    messages: list[BaseMessage] = [SystemMessage(SYSTEM), HumanMessage(_request(question, rules))]
    before = len(client.records)
    try:
        reply, _ = client.structured(messages, SplitReply, purpose=PURPOSE)
    except LLMFailure as failure:
        calls = tuple(client.records[before:]) or (failure.record,)
        what = str(failure).rstrip(". ")
        return Proposal(split=rules, calls=calls,
                        note=f"{what}; the rules' reading of the question stands")
    calls = tuple(client.records[before:])
    if not reply.split:
        why = reply.reason.strip()
        return Proposal(split=None, calls=calls,
                        note="the model reads it as one question" + (f": {why}" if why else ""))
    parts = [p.strip() for p in reply.parts if p.strip()]
    problem = _unusable(parts, reply.combine)
    if problem is not None:
        return Proposal(split=rules, calls=calls,
                        note=f"the model's split cannot be used ({problem}); the rules' "
                             "reading stands")
    split = Split(parts=parts, combine=reply.combine, form="split by the model")
    return Proposal(split=split, calls=calls, note=reply.reason.strip() or None)


def _unusable(parts: list[str], combine: str) -> str | None:
    if len(parts) < 2:
        return "a split needs at least two parts"
    if len(parts) > MAX_PARTS:
        return f"{len(parts)} parts; at most {MAX_PARTS}"
    if combine != "list" and len(parts) != 2:
        return f"a {combine} needs exactly two parts"
    return None


def _request(question: str, rules: Split | None) -> str:
    if rules is None:
        rules_part = "Rules: one question"
    else:
        rules_part = (f"Rules: {len(rules.parts)} parts ({rules.combine}): "
                      + " | ".join(rules.parts))
    return f"Question: {question}\n{rules_part}"
