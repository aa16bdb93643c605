"""`LLMPlanner`: plans a question with a chat model, in one call when it can.

The rules (`RulePlanner`) plan first, offline. The model then gets, in one call, the question,
the candidate tables within its token budget (`agent/context_builder.py`: a table whole when it
fits, else its schema and the rows the question names) and the rules' plan if they had one,
and replies with a `PlanReply`: accept the rules' plan, replace it with its own, write one
SELECT when no operation fits, or refuse. Its own plan is translated into a typed `Plan`
(`agent/llm/reply.py`); a plan that names a column or row the tables do not have is sent back
once with what is wrong, within the run's call budget. Its SQL becomes a `ModelSql` plan, which
the SQL step checks, runs and traces (`agent/model_sql.py`), sending a failed query back through
`repair_sql`. A plan over a column the model derives from another's text (`derive`) is walked
only after the column step has asked for its values through `derive_batch` (`agent/derived.py`).
The plan is then walked, re-derived in SQL and validated like any other: the model chooses the
computation, the application computes every number.

When the model fails (a timeout, a server error, output that never parses), the rules' plan or
their refusal stands, and the step says what happened.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from agent.decompose import Proposal, Split
from agent.derived import DerivedColumn
from agent.frame import Frame
from agent.llm import column_step
from agent.llm.client import LLMClient, LLMFailure
from agent.llm.context import TableContext
from agent.llm.reply import (
    OPERATIONS_HELP,
    PlanReply,
    Shown,
    from_plan,
    to_derived_plan,
    to_model_sql,
    to_plan,
)
from agent.llm.split import propose_split
from agent.model_sql import CONFIDENCE, Repair
from agent.planner import Planner, Planning, Progress, RulePlanner
from agent.question import Analysis

if TYPE_CHECKING:
    from agent.context_builder import ContextBuilder

PURPOSE = "plan the question"
REPAIR_PURPOSE = "repair the SQL"

MODEL_ONLY_CONFIDENCE = 0.75
"""A plan only the model chose, over a table it saw whole: it is validated (cells, SQL), but
nothing independent agrees with the choice of rows and columns."""
SUMMARY_CONFIDENCE = 0.6
"""The same, over a table the model saw only in part."""
MAX_REPAIRS = 1
"""A plan that cannot run is sent back this many times; a model that repeats the mistake
would only spend the question's calls."""

SYSTEM = f"""\
You answer questions about tables from reports by choosing ONE computation over ONE table.
You never compute or state numbers yourself: the application runs your computation, checks
every cell and fills the result into your sentence.

Tables are given as T1, T2, ...; their columns as c1, c2, ... with header paths (parts joined
by " > "); their data rows as r<sheet row>. "row header" columns hold the row labels.
Operations:
{OPERATIONS_HELP}
Rows: list row ids, or ["all"] for every data row, and/or `where` conditions on cell text.
Leave total or subtotal rows out of a sum unless the question asks for them.

If a rules plan is given, check it against the question: verdict "accept" if it computes what
the question asks, else "replace" with your own `plan`. Without a rules plan, "replace" means
"here is my plan". Use "refuse" when these tables cannot answer the question.
When no operation fits (a join of two tables, a condition the operations cannot state),
verdict "sql" with `sql`: ONE SQLite SELECT over the tables' SQL views, using the view and
column names exactly as listed, in double quotes; text values in single quotes. Each view has
"_row", the sheet row. Use no WITH, UNION or subquery, so every value traces to its cells.
When the question needs a value the cells only imply (the country a nationality implies,
the number inside "Semifinal (5th)", whether a note says yes), verdict "replace" with
`derive`: one new column read from one source column, named d1, with an instruction, a short
name and a type; the plan then uses d1 like any column (in columns, answer_column or where).
Choose the rows first with conditions on the real columns: each row is one more value the
model is asked for.
`answer`: one short sentence with {{result}} where the computed value goes, and no digits of
your own."""


class LLMPlanner(Planner):
    """Plans with a chat model, checking the rules' plan in the same call."""

    def __init__(self, client: LLMClient, budget_tokens: int, builder: ContextBuilder,
                 rules: Planner | None = None) -> None:
        self.client = client
        self.budget_tokens = budget_tokens
        self.builder = builder
        """Writes the candidate tables for the prompt (`agent/context_builder.py`): a table
        that fits whole, else its schema and the rows the question names."""
        self.rules = rules or RulePlanner()
        self._conversation: list[BaseMessage] = []
        """The planning call's messages and reply, which a SQL repair continues."""

    def plan(self, analysis: Analysis, frames: Sequence[Frame],
             progress: Progress | None = None) -> Planning:
        rules = self.rules.plan(analysis, frames)
        if not frames:
            return rules
        context = self._context(analysis.text, frames, rules)
        messages: list[BaseMessage] = [SystemMessage(SYSTEM),
                                       HumanMessage(_request(analysis.text, context, rules))]
        self._conversation = messages
        for _ in range(MAX_REPAIRS + 1):
            try:
                reply, record = self.client.structured(
                    messages, PlanReply, purpose=PURPOSE,
                    on_delta=_Streamed(progress) if progress is not None else None)
            except LLMFailure as failure:
                return _fallback(rules, failure, tuple(self.client.records))
            self._conversation = [*messages, AIMessage(record.response)]
            outcome = self._decide(reply, rules, context)
            if not isinstance(outcome, list):
                return outcome
            problems = "; ".join(outcome)
            # An invented column or an impossible shape: say what is wrong, once.
            messages = [*messages, AIMessage(record.response),
                        HumanMessage(f"That plan cannot run: {problems}. Reply again with a "
                                     "corrected plan.")]
        return _unusable(rules, problems, tuple(self.client.records))

    def _context(self, question: str, frames: Sequence[Frame], rules: Planning
                 ) -> TableContext:
        """The candidate tables as the prompt shows them, the rules' table first (their plan
        is about it); no documents' text (planning computes over tables)."""
        chosen = rules.matched.frame.table if rules.matched is not None else None
        built = self.builder.build(question, budget_tokens=self.budget_tokens,
                                   tables=[f.table for f in frames], chunk_sources=(),
                                   lead=chosen)
        by_id = {f.table: f for f in frames}
        shown = [Shown.of(i, by_id[t]) for i, t in enumerate(built.tables)]
        return TableContext(built.text, shown, built.whole)

    def _decide(self, reply: PlanReply, rules: Planning, context: TableContext
                ) -> Planning | list[str]:
        calls = tuple(self.client.records)
        if reply.verdict == "refuse":
            why = reply.reason.strip() or "no computation over these tables answers it"
            return Planning(refusal=f"the model found no way to answer from these tables: {why}",
                            matched=rules.matched, calls=calls, source="model")
        if reply.verdict == "accept" and rules.plan is not None:
            return Planning(plan=rules.plan, matched=rules.matched, calls=calls,
                            phrasing=reply.answer, source="rules, checked by the model")
        if reply.verdict == "sql":
            if not (reply.sql or "").strip():
                return ["verdict sql needs `sql`: one SELECT"]
            return Planning(plan=to_model_sql(reply.sql or "", context.shown, CONFIDENCE),
                matched=rules.matched, calls=calls, phrasing=reply.answer, source="model")
        if reply.plan is None:
            return ["verdict replace needs a plan" if rules.plan is not None
                    else "there is no rules plan to accept; give your own plan"]
        whole = dict(zip((s.id for s in context.shown), context.whole, strict=True))
        confidence = MODEL_ONLY_CONFIDENCE if whole.get(reply.plan.table) else SUMMARY_CONFIDENCE
        if reply.derive is not None:
            derived = to_derived_plan(reply.plan, reply.derive, context.shown, confidence)
            if isinstance(derived, list):
                return derived
            plan, spec = derived
            return Planning(plan=plan, matched=rules.matched, calls=calls,
                            phrasing=reply.answer, source="model", derived=spec)
        plan = to_plan(reply.plan, context.shown, confidence)
        if isinstance(plan, list):
            return plan
        return Planning(plan=plan, matched=rules.matched, calls=calls, phrasing=reply.answer,
                        source="model")


    def split(self, question: str, rules: Split | None) -> Proposal:
        """Ask the model how the message splits into parts (one call within the run's
        budget; `agent/llm/split.py`); the rules' reading stands when it fails."""
        return propose_split(self.client, question, rules)

    def repair_sql(self, sql: str, error: str) -> Repair:
        """Send a failed query back to the model with its error, in the planning
        conversation; return its corrected query (a call within the run's budget)."""
        messages = [*self._conversation,
                    HumanMessage(SQL_REPAIR.format(sql=sql, error=error))]
        try:
            reply, record = self.client.structured(messages, PlanReply, purpose=REPAIR_PURPOSE)
        except LLMFailure as failure:
            return Repair(sql=None, record=failure.record,
                          problem=str(failure).rstrip(". "))
        self._conversation = [*messages, AIMessage(record.response)]
        if reply.verdict != "sql" or not (reply.sql or "").strip():
            why = reply.reason.strip() or f"it replied with verdict {reply.verdict}"
            return Repair(sql=None, record=record,
                          problem=f"the model gave no corrected query ({why})")
        return Repair(sql=reply.sql, record=record, phrasing=reply.answer)

    def column_limits(self) -> tuple[int, int]:
        """The most rows one question may derive, and the calls it has left."""
        settings = self.client.settings
        return settings.column_max_rows, settings.max_calls - self.client.requests_made

    def derive_batch(self, spec: DerivedColumn, source_label: str,
                     texts: Sequence[tuple[int, str]]) -> column_step.BatchCall:
        """Ask the model for one batch of a derived column's values (one call). A fresh
        conversation: the batch needs the instruction and the cells, not the planning."""
        messages: list[BaseMessage] = [
            SystemMessage(column_step.SYSTEM),
            HumanMessage(column_step.batch_request(spec, source_label, texts))]
        try:
            reply, record = self.client.structured(messages, column_step.DerivedBatch,
                                                   purpose=column_step.PURPOSE)
        except LLMFailure as failure:
            return column_step.BatchCall(None, failure.record, str(failure).rstrip(". "))
        return column_step.BatchCall(reply, record)


SQL_REPAIR = """\
That SQL failed:
{sql}
Error: {error}
Reply with verdict "sql" and a corrected `sql` (or "refuse")."""


class _Streamed:
    """Passes the model's reply on as it streams in, a few times a second at most (each
    report is a step event the chat redraws)."""

    EVERY_S = 0.25

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.text = ""
        self.last = 0.0

    def __call__(self, delta: str) -> None:
        self.text += delta
        now = time.monotonic()
        if now - self.last >= self.EVERY_S:
            self.last = now
            tail = self.text[-300:]
            self.progress(("…" if len(self.text) > 300 else "") + tail)


def _request(question: str, context: TableContext, rules: Planning) -> str:
    if rules.plan is not None:
        rules_part = ("Rules plan: " + json.dumps(from_plan(rules.plan, context.shown),
                                                   ensure_ascii=False))
    else:
        rules_part = f"Rules plan: none (the rules could not answer: {rules.refusal})"
    return f"{context.text}\n\nQuestion: {question}\n{rules_part}"


def _unusable(rules: Planning, problems: str, calls: tuple) -> Planning:
    """The model's plans could not run even after it was told why: the rules' outcome stands.
    The problems were written for the model (its step shows them); the user gets the gist."""
    return _rules_stand(rules, f"the model's plan could not run ({problems})",
                        "the model gave no plan that can run on these tables", calls)


def _fallback(rules: Planning, failure: LLMFailure, calls: tuple) -> Planning:
    """The model failed: the rules' plan or refusal stands, with what happened."""
    what = str(failure).rstrip(". ")
    return _rules_stand(rules, what, what, calls or (failure.record,), failure=what)


def _rules_stand(rules: Planning, what: str, told: str, calls: tuple,
                 failure: str | None = None) -> Planning:
    """The rules' plan, unchecked, or their refusal after `told` (for the user); the step
    says `what` happened. `failure`: the model itself failed (not just its plan), so."""
    if rules.plan is not None:
        return Planning(plan=rules.plan, matched=rules.matched, calls=calls,
                        note=f"{what}; the rules' plan stands, unchecked", source="rules",
                        failure=failure)
    return Planning(refusal=f"{told}. Without the model, the rules could not answer: "
                            f"{rules.refusal}", matched=rules.matched, calls=calls,
                    note=f"{what}; the rules could not answer either", source="rules",
                    failed=failure is not None, failure=failure)
