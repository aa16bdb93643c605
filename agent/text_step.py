"""The graph's `read_text` node: a question no table answers, read from the documents' text.

It runs after `answer` when the answer is a refusal (or "not sure"), so the text answer is part
of the checkpointed run like any other: a chat's state, and the follow-up read against it, hold
what the user was shown.

- Offline, the one sentence that clearly states the number, or the name a "who is" question
  asks for (`agent/text_answer.py`).
- In LLM mode, the model picks the passage and copies the sentence that states the answer; the
  quote must be in the passage word for word (`agent/llm/text_quote.py`).

Either way the refusal stands when no passage holds, and a refusal whose model failed is not
sent to the model again.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from agent.context import RunContext
from agent.events import Answer, with_calls
from agent.nodes import context_of
from agent.state import AgentState
from storage.workspace import Workspace


def wants_text(state: AgentState) -> bool:
    """Whether the run's answer is one the documents' text may still give: a refusal or a
    "not sure", not a stop and not a model that already failed."""
    answer = state.get("answer") or {}
    error = answer.get("error") or {}
    return answer.get("answer") is None and error.get("kind") not in ("cancelled", "llm_failed")


def read_text(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
    """Answer from the text when a passage states it; else leave the refusal as it is."""
    ctx = context_of(runtime)
    refused = Answer.model_validate(state["answer"])
    sources = _sources(ctx.workspace, state.get("only_tables"), ctx.text_sources)
    found = (_from_text(ctx, state["question"], sources) if ctx.model_name is None
             else _quoted_by_model(ctx, state["question"], sources, refused))
    if found is None:
        return _text_read_too(state, ctx.workspace, refused, sources)
    if found.answer is None:  # the model's quote did not hold: its call is shown
        return {"answer": found.to_json_dict()}
    # The answer's message replaces the refusal's (same id), so a follow-up reads the answer.
    messages = state.get("messages") or []
    last = messages[-1].id if messages and isinstance(messages[-1], AIMessage) else None
    return {"answer": found.to_json_dict(), "outcome": "answered",
            "messages": [AIMessage(content=found.answer, id=last) if last
                         else AIMessage(content=found.answer)]}


def _text_read_too(state: AgentState, workspace: Workspace, refused: Answer,
                   sources: set[str] | None) -> dict[str, Any]:
    """The refusal, saying that the documents were read too: a refusal naming only a table
    ("do not match anything in safety.docx, table 1") reads as if the memo beside it
    had never been looked at."""
    from storage.chunks import text_file_names

    names = text_file_names(workspace.db, sources)
    if refused.error is None or not names or "clearly states the answer" in refused.error.message:
        return {}  # the refusal says so already ("no uploaded file holds a table, and ...")
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    message = (refused.error.message.rstrip(". ") + f"; and no sentence of {shown} clearly "
               "states the answer.")
    answer = refused.model_copy(update={"error": refused.error.model_copy(
        update={"message": message})})
    messages = state.get("messages") or []
    last = messages[-1] if messages and isinstance(messages[-1], AIMessage) else None
    update: dict[str, Any] = {"answer": answer.to_json_dict()}
    if last is not None and last.content == refused.error.message:
        update["messages"] = [AIMessage(content=message, id=last.id)]
    return update


def _sources(workspace: Workspace, table_ids: list[str] | None,
             text_sources: list[str] | None) -> set[str] | None:
    """The files whose text a run may quote: all (None), or with `table_ids` those of the
    tables' files, of the documents beside them (`Workspace.beside`) and of `text_sources`."""
    if table_ids is None:
        return None
    marks = ", ".join("?" * len(table_ids))
    sources = {row[0] for row in workspace.db.execute(
        f"SELECT DISTINCT source FROM catalog WHERE id IN ({marks})", table_ids)}
    return sources | workspace.beside(sources) | set(text_sources or ())


def _from_text(ctx: RunContext, question: str, sources: set[str] | None) -> Answer | None:
    """The offline text answer with its step, or None."""
    from agent.text_answer import answer_from_text

    found = answer_from_text(ctx.workspace, question, sources)
    if found is None:
        return None
    cited = found.evidence[0]
    ctx.trace.emit("answer", "start", "No table answers it: reading the documents' text")
    ctx.trace.emit("answer", "end", f"Quoted from {cited.source}", retrieved=[
        {"kind": "chunk", "chunk": cited.chunk, "source": cited.source, "score": 1.0}])
    found.steps = ctx.trace.end_events()
    return found


def _quoted_by_model(ctx: RunContext, question: str, sources: set[str] | None,
                     refused: Answer) -> Answer | None:
    """The model's quote of the best passages, checked against its passage; the refusal with
    the call shown when it does not hold; None when no call is made."""
    from agent.llm.text_quote import PASSAGES, quote_from_text
    from agent.text import STOPWORDS, words
    from storage.chunks import has_chunks, search_chunks

    client = getattr(ctx.planner, "client", None)
    if client is None or not has_chunks(ctx.workspace.db) \
            or client.requests_made >= client.settings.max_calls:
        return None
    terms = [w for w in words(question) if w not in STOPWORDS and len(w) > 1]
    passages = [c for c, _ in search_chunks(ctx.workspace.db, terms, limit=PASSAGES,
                                            sources=sources)]
    if not passages:
        return None
    trace = ctx.trace
    trace.emit("answer", "start", "No table answers it: asking the model which passage does")
    quoted = quote_from_text(client, question, passages)
    calls = [quoted.record] if quoted.record is not None else []
    usage = with_calls({"llm_calls": refused.llm_calls, "prompt_tokens": refused.prompt_tokens,
                        "completion_tokens": refused.completion_tokens,
                        "llm_failed_calls": refused.llm_failed_calls}, calls)
    if quoted.answer is None:
        trace.emit("answer", "end", "No passage states it", detail=quoted.problem,
                   llm=calls or None)
        return refused.model_copy(update={"steps": trace.end_events(), **usage})
    cited = quoted.answer.evidence[0]
    trace.emit("answer", "end", f"Quoted from {cited.source}", llm=calls or None,
               detail="The model chose the passage; its quote was found in it word for word.",
               retrieved=[{"kind": "chunk", "chunk": cited.chunk, "source": cited.source,
                           "score": 1.0}])
    return quoted.answer.model_copy(update={"steps": trace.end_events(), **usage})
