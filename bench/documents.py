"""Evidence recall of documents' text in the context, and offline answers from text:
`python -m bench.documents [SUITE_DIR...]` (default: TAT-QA of ../shared/bench and of
../shared/bench-train).

**Pooled recall.** All of a suite's reports (each table file, and its paragraphs ingested as
a `.txt` document beside it, as `batch`, `eval` and `context` ingest them) go into one
workspace (34 dev reports, 143 bench-train); each question whose answer comes from the text
(`answer_from` is `text` or `table-text`) is asked without naming its report, at budgets of
500 and 1,500 tokens. Its text evidence is found when the context holds a chunk of its own report's
paragraphs that contains a gold answer item (case and spaces aside); for an answer no
paragraph contains verbatim (a computed one), any chunk of its own report counts. For
`table-text` questions the figure "and table" also needs a table of the report sent.

**Offline answers** on the text-only questions (the dev suite's, and half B of bench-train's,
never tuned on): answered, correct, accuracy and precision (correct / answered), through the
eval path (`FileAnswerer`, the question's paragraphs ingested beside its table).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
TRAIN = BENCH.parent / "bench-train"
BUDGETS = (500, 1_500)
GOALS = {500: 0.90, 1_500: 0.95}
TEXT_KINDS = ("text", "table-text")


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass
class Recall:
    questions: int = 0
    found: int = 0
    table_text: int = 0
    both: int = 0
    tokens: int = 0

    def line(self, budget: int) -> str:
        if not self.questions:
            return "no questions"
        share = self.found / self.questions
        goal = GOALS.get(budget)
        verdict = (f" (goal {goal:.0%}: {'meets' if share >= goal else 'misses'})"
                   if goal else "")
        both = (f"; table-text questions with text and table: {self.both}/{self.table_text}"
                f" ({100 * self.both / self.table_text:.1f}%)" if self.table_text else "")
        return (f"{self.questions} questions, text evidence {self.found}/{self.questions} "
                f"({100 * share:.1f}%){verdict}{both}, mean "
                f"{self.tokens / self.questions:.0f} tokens")


def pooled_recall(suite: Path, budgets: Sequence[int] = BUDGETS,
                  keep: Path | None = None) -> dict[int, Recall]:
    """Text evidence recall of a suite's text questions, all its reports in one workspace
    (kept in, and reused from, `keep`/<bench>-<suite> when given)."""
    from agent.context_builder import ContextBuilder
    from storage.embedder import shared_embedder
    from storage.vector_index import VectorIndex
    from storage.workspace import Workspace
    from tablelens.evaluation.batch import _paragraphs, add_paragraphs
    from tablelens.evaluation.questions import load_questions

    questions = load_questions(suite / "questions.jsonl")
    out = {b: Recall() for b in budgets}
    with tempfile.TemporaryDirectory(prefix="tablelens-documents-") as tmp:
        ws = Workspace(keep / f"{suite.parent.name}-{suite.name}" if keep else tmp)
        try:
            start = time.perf_counter()
            tables: dict[str, set[str]] = {}
            texts: dict[str, str] = {}
            shas: dict[str, str] = {}
            for q in questions:
                table = suite / q["table"]
                if q["table"] not in tables:
                    info = ws.add_file(table)
                    shas[q["table"]] = info.sha256
                    tables[q["table"]] = set(ws.table_ids(info.sha256))
                paragraphs = _paragraphs(q)
                if paragraphs and q["table"] not in texts:
                    texts[q["table"]] = add_paragraphs(ws, table, paragraphs,
                                                       beside=shas[q["table"]])
            vectors = VectorIndex(ws, embedder=shared_embedder())
            report = vectors.sync()
            print(f"  {suite.parent.name}/{suite.name}: {len(tables)} reports, "
                  f"{len(ws.table_ids())} tables, {len(ws.chunks())} chunks ingested and "
                  f"indexed in {time.perf_counter() - start:.0f} s ({report.points} points)",
                  file=sys.stderr)
            builder = ContextBuilder(ws, vectors=vectors)
            for q in questions:
                if q.get("answer_from") not in TEXT_KINDS or q["table"] not in texts:
                    continue
                own = ws.chunks(texts[q["table"]])
                answers = [_fold(a) for a in q["answers"] if a.strip()]
                gold = {c.id for c in own if any(a in _fold(c.text) for a in answers)}
                gold = gold or {c.id for c in own}
                for budget in budgets:
                    built = builder.build(q["question"], budget_tokens=budget)
                    found = bool(gold & set(built.chunks))
                    tally = out[budget]
                    tally.questions += 1
                    tally.found += found
                    tally.tokens += built.tokens
                    if q["answer_from"] == "table-text":
                        tally.table_text += 1
                        tally.both += found and bool(tables[q["table"]] & set(built.tables))
        finally:
            ws.close()
    return out


def text_answers(suite: Path, half: str | None) -> str:
    """Offline accuracy and precision on a suite's text-only questions."""
    from tablelens.evaluation.answerer import FileAnswerer
    from tablelens.evaluation.batch import _paragraphs
    from tablelens.evaluation.halves import half_of
    from tablelens.evaluation.questions import load_questions
    from tablelens.evaluation.scoring import match

    questions = [q for q in load_questions(suite / "questions.jsonl")
                 if q.get("answer_from") == "text"
                 and (half is None or half_of(suite.name, q) == half)]
    answerer = FileAnswerer()
    answered = correct = from_text = from_text_correct = 0
    try:
        for q in questions:
            answer = answerer([suite / q["table"]], q["question"], _paragraphs(q))
            if answer.answer is None:
                continue
            good = match(answer.values or answer.answer, q["answers"],
                         scale=q.get("scale") or "")
            answered += 1
            correct += good
            if any(getattr(e, "kind", None) == "text" for e in answer.evidence):
                from_text += 1
                from_text_correct += good
    finally:
        answerer.close()
    n = len(questions)
    precision = f"{100 * correct / answered:.1f}%" if answered else "n/a"
    text_precision = (f"{100 * from_text_correct / from_text:.1f}%" if from_text else "n/a")
    return (f"{n} text-only questions: {answered} answered, {correct} correct (accuracy "
            f"{100 * correct / max(1, n):.1f}%, precision {precision}); quoted from the text: "
            f"{from_text}, correct {from_text_correct} (precision {text_precision}, goal 90%)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.documents",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", metavar="SUITE_DIR")
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--keep", metavar="DIR",
                        help="keep (and reuse) each suite's workspace in DIR/<bench>-<suite>")
    parser.add_argument("--recall-only", action="store_true",
                        help="the pooled recall alone, not the offline answers")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    suites = [Path(s) for s in args.suites] or [p for p in (BENCH / "tatqa", TRAIN / "tatqa")
                                               if p.is_dir()]
    print("Documents: evidence recall of the text in pooled contexts (TAT-QA questions "
          "answered from text or table-text; all of a suite's reports in one workspace):")
    for suite in suites:
        keep = Path(args.keep) if args.keep else None
        for budget, tally in pooled_recall(suite, args.budgets, keep).items():
            print(f"  {suite.parent.name}/{suite.name} {budget:>5} tokens: {tally.line(budget)}")
    if args.recall_only:
        return 0
    print("Offline answers from documents (text-only TAT-QA questions):")
    for suite in suites:
        half = "B" if suite.parent.name == "bench-train" else None
        label = f"{suite.parent.name}/{suite.name}" + (f" half {half}" if half else "")
        print(f"  {label}: {text_answers(suite, half)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
