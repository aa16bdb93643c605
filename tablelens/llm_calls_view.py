"""A step's LLM calls as one block of HTML: what each call was for and cost, and, opened,
exactly what was sent and what came back; and a model-written query's tries, each its SQL
and its error.

One block per step, whatever the number of calls: each call is a native <details> (closed, its
summary line; open, every message with its role and the reply, in scrollable monospace blocks).
An expander per call would be a Streamlit element each (and expanders do not nest inside the
step's own); both the recent turns (`streamlit_app.py`) and the folded ones (`turn_html.py`)
draw the same HTML. Pure functions of the stored `LLMCallRecord` dicts.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from typing import Any

CALLS_CSS = """
<style>
.tl-llm { margin: 0.3rem 0; font-size: 0.85rem; }
.tl-llm details { border-left: 3px solid rgba(128, 128, 128, 0.35); padding: 0.1rem 0.5rem;
  margin: 0.2rem 0; }
.tl-llm details.tl-llm-failed { border-left-color: rgba(244, 67, 54, 0.6); }
.tl-llm summary { cursor: pointer; }
.tl-llm .tl-role { font-weight: 600; margin-top: 0.35rem; opacity: 0.75; }
.tl-llm pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  font-size: 0.78rem; white-space: pre-wrap; word-break: break-word; max-height: 240px;
  overflow: auto; background: rgba(128, 128, 128, 0.08); padding: 0.35rem; margin: 0.1rem 0; }
.tl-llm .tl-error { background: rgba(244, 67, 54, 0.15); padding: 0.2rem 0.4rem;
  border-radius: 0.3rem; }
</style>
"""


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0


def call_summary(call: Mapping[str, Any]) -> str:
    """One call in a line: "plan the question: openai:gpt-4o-mini, 812 prompt + 64
    completion tokens, 1,240 ms, 1 attempt" (then "cached", or "failed: ...")."""
    attempts = _int(call.get("attempts")) or 1
    parts = [f"{call.get('purpose') or 'LLM call'}: {call.get('model') or 'unknown model'}",
             f"{'about ' if call.get('tokens_estimated') else ''}"
             f"{_int(call.get('prompt_tokens')):,} prompt + "
             f"{_int(call.get('completion_tokens')):,} completion tokens"
             f"{' (estimated: the server reported none)' if call.get('tokens_estimated') else ''}",
             f"{_int(call.get('latency_ms')):,} ms",
             f"{attempts} attempt{'s' * (attempts != 1)}"]
    if call.get("method"):
        parts.append(f"structured output by {call['method']}")
    if call.get("cached"):
        parts.append("cached (no request made)")
    if call.get("error"):
        parts.append(f"failed: {call['error']}")
    return ", ".join(parts)


def call_html(call: Mapping[str, Any]) -> str:
    """One call as a closed <details>: its summary, then its messages and the reply."""
    body = []
    for message in call.get("messages") or []:
        body.append(f'<div class="tl-role">{_e(message.get("role", "message"))}</div>'
                    f"<pre>{_e(message.get('content', ''))}</pre>")
    if not body:
        body.append("<div><small>No message was recorded for this call.</small></div>")
    if call.get("response"):
        body.append(f'<div class="tl-role">reply</div><pre>{_e(call["response"])}</pre>')
    if call.get("error"):
        body.append(f'<div class="tl-error">{_e(call["error"])}</div>')
    mark = "✗" if call.get("error") else "✓"
    failed = ' class="tl-llm-failed"' if call.get("error") else ""
    return (f"<details{failed}><summary>{mark} {_e(call_summary(call))}</summary>"
            f"{''.join(body)}</details>")


def calls_html(calls: Iterable[Mapping[str, Any]], *, css: bool = True) -> str:
    """All of a step's calls in one block (`css=False` where the page already has it)."""
    items = list(calls)
    if not items:
        return ""
    n = len(items)
    head = f"<div><small>LLM call{'s' * (n != 1)} of this step ({n}):</small></div>"
    return ((CALLS_CSS if css else "")
            + f'<div class="tl-llm">{head}{"".join(call_html(c) for c in items)}</div>')


def attempts_html(attempts: Iterable[Mapping[str, Any]], *, css: bool = True) -> str:
    """A model-written query's tries in one block: each its SQL and why it failed (the
    message the model was sent back), or how many rows it returned."""
    items = list(attempts)
    if not items:
        return ""
    body = []
    for i, attempt in enumerate(items, 1):
        error = attempt.get("error") or {}
        if error:
            outcome = (f'<div class="tl-error">{_e(error.get("kind", "error"))}: '
                       f'{_e(error.get("message", ""))}</div>')
        else:
            rows = _int(attempt.get("rows"))
            outcome = f"<div><small>ran: {rows:,} row{'s' * (rows != 1)}</small></div>"
        mark = "✗" if error else "✓"
        failed = ' class="tl-llm-failed"' if error else ""
        body.append(f"<details{failed} open><summary>{mark} attempt {i}</summary>"
                    f"<pre>{_e(attempt.get('sql', ''))}</pre>{outcome}</details>")
    n = len(items)
    head = f"<div><small>The model's SQL, {n} attempt{'s' * (n != 1)}:</small></div>"
    return (CALLS_CSS if css else "") + f'<div class="tl-llm">{head}{"".join(body)}</div>'
