"""LLM mode's cost per question, with a scripted model: `python -m bench.llm_cost`.

No capable model is reachable here, so the figures are what LLM mode *sends*, not how well a
model answers (that is measured independently through an OpenAI-compatible endpoint). The
scripted model accepts the rules' plan when there is one and refuses otherwise, and, asked
how a message splits (only messages whose wording could split are asked), agrees with the
rules' reading; so every question makes the calls a capable model would make when it agrees
with the rules; a model that
replaces a plan with an invalid one costs one repair call more (bounded by
TABLELENS_LLM_MAX_CALLS). Prompt and completion tokens are estimated as characters / 4, the
same estimate the prompt budget uses.

Prints, per dev suite: LLM calls per question (median, p95, max) and prompt and completion
tokens per question (median, p95); then the prompt tokens of one question against table size,
100 to 1M cells, on the generated workbooks of `bench/workloads.py`.
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agent.llm.context import estimate_tokens
from agent.llm.settings import LLMSettings
from agent.run import answer_question
from bench import workloads
from bench.cli import parser
from storage.workspace import Workspace
from tablelens.evaluation.questions import load_questions

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
SETTINGS = LLMSettings(model="openai:scripted", cache=False)
SIZES = [(100, 10), (1_000, 20), (10_000, 50), (100_000, 50), (1_000_000, 50)]


class AcceptingModel(BaseChatModel):
    """Accepts the rules' plan if the prompt has one, else refuses; reports token usage as
    characters / 4 of what it was sent and what it replies."""

    @property
    def _llm_type(self) -> str:
        return "scripted-accepting"

    tool: str = "PlanReply"
    """The reply's schema: the one tool the call binds (the plan, or the split)."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> AcceptingModel:
        return self.model_copy(update={"tool": tools[0].__name__})

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        sent = "\n".join(str(m.content) for m in messages)
        if self.tool == "SplitReply":
            args = _rules_split(str(messages[-1].content))
        else:
            verdict = "refuse" if "Rules plan: none" in sent else "accept"
            args = {"verdict": verdict, "reason": "scripted", "answer": "It is {result}."}
        usage = {"input_tokens": estimate_tokens(sent),
                 "output_tokens": estimate_tokens(json.dumps(args))}
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        message = AIMessage(content="", usage_metadata=usage, tool_calls=[
            {"name": self.tool, "args": args, "id": "call_1"}])
        return ChatResult(generations=[ChatGeneration(message=message)])


def _rules_split(request: str) -> dict[str, Any]:
    """The split the rules read (`agent/llm/split.py`'s request: "Rules: one question", or
    "Rules: N parts (combine): part | part")."""
    m = re.search(r"^Rules: \d+ parts \((\w+)\): (.+)$", request, re.MULTILINE)
    if m is None:
        return {"split": False, "reason": "scripted"}
    return {"split": True, "parts": m.group(2).split(" | "), "combine": m.group(1),
            "reason": "scripted"}


def _pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p * (len(ordered) - 1))))]


def suite_costs(suite: Path) -> dict[str, list[int]]:
    """Answer every question of a suite in LLM mode; the calls and tokens of each."""
    costs: dict[str, list[int]] = {"calls": [], "prompt": [], "completion": []}
    with tempfile.TemporaryDirectory(prefix="tablelens-llm-bench-") as tmp:
        ws = Workspace(Path(tmp) / "ws")
        tables: dict[str, list[str]] = {}
        try:
            for q in load_questions(suite / "questions.jsonl"):
                paths = q["table"] if isinstance(q["table"], list) else [q["table"]]
                ids: list[str] = []
                for rel in paths:
                    if rel not in tables:
                        try:
                            info = ws.add_file(suite / rel)
                            tables[rel] = ws.table_ids(info.sha256)
                        except Exception:  # an unreadable file is the eval's concern
                            tables[rel] = []
                    ids += tables[rel]
                answer = answer_question(ws, q["question"], table_ids=ids, llm=SETTINGS,
                                         chat_model=AcceptingModel())
                costs["calls"].append(answer.llm_calls)
                costs["prompt"].append(answer.prompt_tokens)
                costs["completion"].append(answer.completion_tokens)
        finally:
            ws.close()
    return costs


def table_size_tokens() -> list[tuple[int, int, bool]]:
    """(cells, prompt tokens, whole table shown) for one lookup on tables of each size."""
    out = []
    with tempfile.TemporaryDirectory(prefix="tablelens-llm-size-") as tmp:
        for cells, width in SIZES:
            path = workloads.sized_workbook(workloads.OUT, cells, width)
            ws = Workspace(Path(tmp) / f"ws{cells}")
            try:
                ws.add_file(path)
                answer = answer_question(ws, "What is Q2 of Region 1 for Item 7?", llm=SETTINGS,
                                         chat_model=AcceptingModel())
                [call] = next(s for s in answer.steps if s.node == "tree_navigate").llm or [None]
                whole = call is not None and "cells:\nrow |" in call.messages[-1]["content"]
                out.append((cells, answer.prompt_tokens, whole))
            finally:
                ws.close()
    return out


def main() -> None:
    print("LLM mode cost per question (scripted model that accepts the rules' plan or "
          "refuses; tokens estimated as characters / 4):")
    if BENCH.is_dir():
        print(f"  {'suite':<13} {'questions':>9} {'calls med/p95/max':>18} "
              f"{'prompt tok med/p95':>19} {'completion med/p95':>19}")
        everything: list[int] = []
        for suite in sorted(p for p in BENCH.iterdir() if (p / "questions.jsonl").is_file()):
            c = suite_costs(suite)
            everything += c["calls"]
            print(f"  {suite.name:<13} {len(c['calls']):>9} "
                  f"{statistics.median(c['calls']):>6.0f} / {_pct(c['calls'], 0.95):.0f} / "
                  f"{max(c['calls'])}{'':>5} {statistics.median(c['prompt']):>8.0f} / "
                  f"{_pct(c['prompt'], 0.95):<8.0f} {statistics.median(c['completion']):>8.0f}"
                  f" / {_pct(c['completion'], 0.95):.0f}")
        med, p95 = statistics.median(everything), _pct(everything, 0.95)
        print(f"  all suites: median {med:.0f} calls, p95 {p95:.0f} "
              f"({'meets' if med <= 2 and p95 <= 4 else 'misses'} the goal: median <= 2, "
              "p95 <= 4)")
    else:
        print(f"  dev suites: skipped ({BENCH} not found)")
    print("Prompt tokens of one question against table size (budget "
          f"{SETTINGS.prompt_budget_tokens} tokens for the tables):")
    for cells, tokens, whole in table_size_tokens():
        print(f"  {cells:>9,} cells: {tokens:>6,} prompt tokens "
              f"({'whole table' if whole else 'column paths, samples and first rows'})")


if __name__ == "__main__":
    parser("bench.llm_cost", __doc__).parse_args()
    main()
