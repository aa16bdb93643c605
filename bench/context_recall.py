"""Evidence recall of the context builder: `python -m bench.context_recall [SUITE_DIR...]`.

For each suite (default: the dev suites of ../shared/bench) and each budget (500 and 1,500
tokens), the questions whose gold answer has values written verbatim in a cell of the
question's table (the text of a data or header cell, case and spaces aside) are asked, and a
gold value counts as found when the context holds it as a whole cell (bounded by the row
line's separators, not inside another word or number). Two settings:

- **own table, too large**: the context is built over the question's own table file, and only
  questions whose whole table (every table of its file, as `render_whole` writes it) exceeds
  the budget are counted: a table that fits is sent whole and passes trivially;
- **pooled**: all of a suite's tables in one workspace, each question asked without naming its
  table (every question with a verbatim gold value counts).

Printed per suite and budget: questions counted, values found / values (micro recall), the
share of questions with every value found, and the mean context tokens.

`--half A|B` keeps only the questions of that half of a bench-train suite
(`tablelens/evaluation/halves.py`, the project's fixed split by table): tune on half A, report
half B and dev. Only the tables of the kept questions are ingested, so "pooled" then pools the
half's tables (about half the suite's).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
TRAIN = BENCH.parent / "bench-train"
BUDGETS = (500, 1_500)


@dataclass
class Tally:
    questions: int = 0
    values: int = 0
    found: int = 0
    complete: int = 0
    tokens: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def add(self, gold: Sequence[str], text: str, tokens: int, seconds: float) -> None:
        hits = [in_context(value, text) for value in gold]
        self.questions += 1
        self.values += len(gold)
        self.found += sum(hits)
        self.complete += all(hits)
        self.tokens.append(tokens)
        self.seconds.append(seconds)

    def line(self) -> str:
        if not self.questions:
            return "no questions"
        mean = sum(self.tokens) / len(self.tokens)
        ms = 1000 * sum(self.seconds) / len(self.seconds)
        return (f"{self.questions:>3} questions, values {self.found}/{self.values} "
                f"({100 * self.found / self.values:.1f}%), all values "
                f"{100 * self.complete / self.questions:.1f}%, mean {mean:.0f} tokens, "
                f"{ms:.0f} ms/question")


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold().replace("|", "/")


def in_context(value: str, text: str) -> bool:
    """Whether the context holds `value` as a whole cell or label."""
    pattern = r"(?:^|[|=>:(\n]\s?)" + re.escape(_fold(value)) + r"(?=\s?(?:[|\n<>(\[]|$))"
    return re.search(pattern, _fold_lines(text)) is not None


def _fold_lines(text: str) -> str:
    return "\n".join(" ".join(line.split()).casefold() for line in text.splitlines())


def verbatim_gold(db, tables: Sequence[str], answers: Sequence[str]) -> list[str]:
    """The gold values written as a whole cell of the tables."""
    marks = ", ".join("?" * len(tables))
    out = []
    for value in dict.fromkeys(a for a in answers if a.strip()):
        if db.execute(f"SELECT 1 FROM cells WHERE table_id IN ({marks}) AND role IN "
                      "('data', 'header') AND lower(trim(text)) = lower(?) LIMIT 1",
                      [*tables, " ".join(value.split())]).fetchone():
            out.append(value)
    return out


def whole_tokens(builder, tables: Sequence[str]) -> int:
    """Tokens of every table of a file written whole."""
    from agent.llm.context import render_whole
    from agent.llm.reply import Shown

    total = 0
    for n, table in enumerate(tables):
        text = render_whole(Shown.of(n, builder._frame(table)), 10**9)
        total += builder.counter.count(text or "")
    return total


MISSES: list[dict] = []


def run_suite(suite: Path, budgets: Sequence[int], keep: Path | None = None,
              half: str | None = None) -> dict[str, dict[int, Tally]]:
    from agent.context_builder import ContextBuilder
    from storage.embedder import shared_embedder
    from storage.vector_index import VectorIndex
    from storage.workspace import Workspace
    from tablelens.evaluation.contexts import FileContexts
    from tablelens.evaluation.halves import split
    from tablelens.evaluation.questions import load_questions

    questions = load_questions(suite / "questions.jsonl")
    if half:
        questions = split(suite.name, questions)[half]
    own = {b: Tally() for b in budgets}
    pooled = {b: Tally() for b in budgets}
    with tempfile.TemporaryDirectory(prefix="tablelens-recall-") as tmp:
        ws = Workspace(keep / (suite.name + (f"-{half}" if half else "")) if keep else tmp)
        try:
            builder = ContextBuilder(ws, vectors=VectorIndex(ws, embedder=shared_embedder()))
            files = FileContexts(ws, builder)
            start = time.perf_counter()
            by_file: dict[str, list[str]] = {}
            for q in questions:
                path = suite / q["table"]
                if str(path) not in by_file:
                    try:
                        by_file[str(path)] = files.tables_of(path)
                    except Exception as exc:  # a table the readers refuse: not counted
                        print(f"  {path.name}: {exc}", file=sys.stderr)
                        by_file[str(path)] = []
            report = builder.search.vectors.sync()
            print(f"  {suite.name}: {len(by_file)} files, {len(ws.table_ids())} tables "
                  f"ingested and indexed in {time.perf_counter() - start:.1f} s "
                  f"({report.points} points)", file=sys.stderr)
            sizes: dict[str, int] = {}
            for q in questions:
                tables = by_file[str(suite / q["table"])]
                if not tables:
                    continue
                gold = verbatim_gold(ws.db, tables, q["answers"])
                if not gold:
                    continue
                key = str(suite / q["table"])
                if key not in sizes:
                    sizes[key] = whole_tokens(builder, tables)
                for budget in budgets:
                    if sizes[key] > budget:
                        t0 = time.perf_counter()
                        c = builder.build(q["question"], budget_tokens=budget, tables=tables)
                        own[budget].add(gold, c.text, c.tokens, time.perf_counter() - t0)
                        _miss(q, gold, c, "own", budget, tables)
                    t0 = time.perf_counter()
                    c = builder.build(q["question"], budget_tokens=budget)
                    pooled[budget].add(gold, c.text, c.tokens, time.perf_counter() - t0)
                    _miss(q, gold, c, "pooled", budget, tables)
        finally:
            ws.close()
    return {"own table, too large": own, "pooled": pooled}


def _miss(q, gold, context, mode, budget, tables) -> None:
    missing = [v for v in gold if not in_context(v, context.text)]
    if missing:
        MISSES.append({"id": q["id"], "mode": mode, "budget": budget, "question": q["question"],
                       "missing": missing, "table": tables, "sent": context.tables,
                       "whole": context.whole})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.context_recall",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", metavar="SUITE_DIR")
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--half", choices=("A", "B"),
                        help="only the questions of this half of each suite (default suites: "
                             "../shared/bench-train's)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", metavar="DIR",
                        help="keep (and reuse) each suite's workspace in DIR/<suite>")
    parser.add_argument("--misses", metavar="FILE",
                        help="write the questions with a gold value missing, as JSON lines")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    root = TRAIN if args.half else BENCH
    suites = [Path(s) for s in args.suites] or sorted(
        p for p in root.iterdir() if (p / "questions.jsonl").is_file())
    results = {}
    totals = {mode: {b: Tally() for b in args.budgets}
              for mode in ("own table, too large", "pooled")}
    for suite in suites:
        results[suite.name] = run_suite(suite, args.budgets,
                                        Path(args.keep) if args.keep else None, args.half)
        for mode, per in results[suite.name].items():
            for budget, tally in per.items():
                total = totals[mode][budget]
                total.questions += tally.questions
                total.values += tally.values
                total.found += tally.found
                total.complete += tally.complete
                total.tokens += tally.tokens
                total.seconds += tally.seconds
    if args.misses:
        Path(args.misses).write_text("".join(json.dumps(m, ensure_ascii=False) + "\n"
                                             for m in MISSES), encoding="utf-8")
    if args.json:
        print(json.dumps({name: {mode: {b: t.__dict__ for b, t in per.items()}
                                 for mode, per in modes.items()}
                          for name, modes in {**results, "all": totals}.items()}))
        return 0
    print("Evidence recall of the context (gold values written verbatim in the table):")
    for name, modes in {**results, "all": totals}.items():
        for mode, per in modes.items():
            for budget, tally in per.items():
                print(f"  {name:<13} {mode:<21} {budget:>5} tokens: {tally.line()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
