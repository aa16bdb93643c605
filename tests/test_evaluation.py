"""Batch answering and suite scoring (tablelens/evaluation/), with fake answer functions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.events import Answer, Evidence
from tablelens.evaluation.batch import BatchSummary, TableCache, run_batch
from tablelens.evaluation.questions import load_questions
from tablelens.evaluation.report import SuiteReport, evaluate, format_report, reports_json
from tablelens.evaluation.suites import run_eval

QUESTIONS = [
    {"id": "s-1", "table": "tables/a.csv", "question": "how many?", "answers": ["8"]},
    {"id": "s-2", "table": "tables/a.csv", "question": "explode", "answers": ["x"]},
    {"id": "s-3", "table": "tables/b.csv", "question": "what share?", "answers": ["12.5"],
     "scale": "percent", "paragraphs": ["First paragraph.", "Second paragraph."]},
]


def _write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(
        (row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows),
        encoding="utf-8")
    return path


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A suite folder: two tables and three questions (one of them makes the fake fail)."""
    folder = tmp_path / "mini"
    (folder / "tables").mkdir(parents=True)
    (folder / "tables" / "a.csv").write_text("x\n8\n", encoding="utf-8")
    (folder / "tables" / "b.csv").write_text("y\n12.5%\n", encoding="utf-8")
    _write_jsonl(folder / "questions.jsonl", QUESTIONS)
    return folder


class FakeAgent:
    """Answer from a fixed table of replies; raise for the question "explode"."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[Path], str, list[str] | None]] = []

    def __call__(self, tables: list[Path], question: str, paragraphs: list[str] | None
                 ) -> Answer:
        self.calls.append((tables, question, paragraphs))
        if question == "explode":
            raise RuntimeError("the model fell over")
        value = "8" if tables[0].name == "a.csv" else "0.125"
        return Answer(answer=value, values=[value], confidence=0.9, confidence_label="high",
                      llm_calls=2, latency_ms=40,
                      evidence=[Evidence(table="t", sheet="s", ref="A2", text=value)])


# ---------------------------------------------------------------------------------------------
# load_questions


def test_load_questions_reports_bad_lines(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "q.jsonl", [
        QUESTIONS[0], "{not json", "[1, 2]", {"id": "s-9", "question": "no table"}, "",
        QUESTIONS[0], QUESTIONS[1]])
    problems: list[dict[str, str]] = []
    questions = load_questions(path, problems=problems)
    assert [q["id"] for q in questions] == ["s-1", "s-2"]
    assert [p["source"] for p in problems] == [f"{path}:{n}" for n in (2, 3, 4, 6)]
    assert "not valid JSON" in problems[0]["message"]
    assert "table" in problems[2]["message"]
    assert "repeated id" in problems[3]["message"]


def test_load_questions_logs_when_no_list_is_given(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    path = _write_jsonl(tmp_path / "q.jsonl", ["oops", QUESTIONS[0]])
    assert len(load_questions(path)) == 1
    assert "not valid JSON" in caplog.text


# ---------------------------------------------------------------------------------------------
# run_batch


def test_run_batch_continues_after_a_failing_question(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "answers.jsonl"
    summary = run_batch(suite / "questions.jsonl", out, FakeAgent())
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == ["s-1", "s-2", "s-3"]
    assert lines[1]["answer"] is None
    assert lines[1]["error"] == {"kind": "RuntimeError", "message": "the model fell over"}
    assert "error" not in lines[0] and "error" not in lines[2]
    assert summary == BatchSummary(
        out_path=out, n=3, answered=2,
        failed=[{"source": "s-2", "message": "RuntimeError: the model fell over"}])


def test_run_batch_lines_carry_the_answer_fields(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "answers.jsonl"
    run_batch(suite / "questions.jsonl", out, FakeAgent())
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert first["id"] == "s-1" and first["question"] == "how many?"
    assert first["answer"] == "8" and first["values"] == ["8"]
    assert first["evidence"] == [{"table": "t", "sheet": "s", "ref": "A2", "text": "8"}]
    assert first["confidence_label"] == "high" and first["llm_calls"] == 2
    assert first["latency_ms"] == 40
    assert {"steps", "ingest_ms", "confidence"} <= first.keys()


def test_run_batch_resolves_tables_and_passes_paragraphs(suite: Path, tmp_path: Path) -> None:
    agent = FakeAgent()
    run_batch(suite / "questions.jsonl", tmp_path / "answers.jsonl", agent)
    tables, question, paragraphs = agent.calls[2]
    assert tables == [suite / "tables" / "b.csv"] and tables[0].is_file()
    assert question == "what share?"
    assert paragraphs == ["First paragraph.", "Second paragraph."]
    assert agent.calls[0][2] is None  # no paragraphs: None, not []


def test_run_batch_accepts_tatqa_paragraph_objects(tmp_path: Path, suite: Path) -> None:
    question = {**QUESTIONS[2], "paragraphs": [{"uid": "p1", "order": 1, "text": "Revenue."}]}
    path = _write_jsonl(suite / "raw.jsonl", [question])
    agent = FakeAgent()
    run_batch(path, tmp_path / "answers.jsonl", agent)
    assert agent.calls[0][2] == ["Revenue."]


def test_run_batch_missing_table_is_that_question_error(suite: Path, tmp_path: Path) -> None:
    path = _write_jsonl(suite / "missing.jsonl", [{**QUESTIONS[0], "table": "tables/zz.csv"},
                                                  QUESTIONS[2]])
    agent = FakeAgent()
    summary = run_batch(path, tmp_path / "answers.jsonl", agent)
    assert len(agent.calls) == 1  # the answer function is not called without a table
    assert summary.failed[0]["source"] == "s-1"
    assert summary.failed[0]["message"].startswith("FileNotFoundError")


def test_run_batch_times_an_answer_that_does_not(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "answers.jsonl"
    run_batch(suite / "questions.jsonl", out, lambda t, q, p: Answer(answer="1"))
    assert all(isinstance(json.loads(line)["latency_ms"], int)
               for line in out.read_text(encoding="utf-8").splitlines())


def test_run_batch_flushes_each_line_and_reports_progress(suite: Path, tmp_path: Path) -> None:
    out = tmp_path / "answers.jsonl"
    seen: list[tuple[int, int, int]] = []

    def progress(done: int, total: int, record: dict[str, Any]) -> None:
        # The line just written is already on disk when progress is called.
        seen.append((done, total, len(out.read_text(encoding="utf-8").splitlines())))
        assert record["id"] == QUESTIONS[done - 1]["id"]

    run_batch(suite / "questions.jsonl", out, FakeAgent(), progress=progress)
    assert seen == [(1, 3, 1), (2, 3, 2), (3, 3, 3)]


def test_run_batch_counts_bad_lines_as_errors(suite: Path, tmp_path: Path) -> None:
    path = _write_jsonl(suite / "bad.jsonl", ["{", QUESTIONS[0]])
    summary = run_batch(path, tmp_path / "answers.jsonl", FakeAgent())
    assert summary.n == 1 and summary.answered == 1
    assert [e["source"] for e in summary.errors] == [f"{path}:1"]


# ---------------------------------------------------------------------------------------------
# TableCache


def test_table_cache_ingests_each_table_once(tmp_path: Path) -> None:
    ingested: list[Path] = []

    def ingest(path: Path) -> str:
        ingested.append(path)
        return f"handle:{path.name}"

    cache = TableCache(ingest)
    first = tmp_path / "a.csv"
    assert cache.get(first) == "handle:a.csv"
    assert cache.get(tmp_path / "sub" / ".." / "a.csv") == "handle:a.csv"  # same file
    assert cache.get(str(tmp_path / "b.csv")) == "handle:b.csv"
    assert ingested == [first.resolve(), (tmp_path / "b.csv").resolve()]
    assert len(cache) == 2


def test_table_cache_remembers_a_failure(tmp_path: Path) -> None:
    calls: list[Path] = []

    def ingest(path: Path) -> str:
        calls.append(path)
        raise ValueError("broken workbook")

    cache = TableCache(ingest)
    for _ in range(2):
        with pytest.raises(ValueError, match="broken workbook"):
            cache.get(tmp_path / "bad.xlsx")
    assert len(calls) == 1 and len(cache) == 0


# ---------------------------------------------------------------------------------------------
# evaluate


def _prediction(qid: str, answer: str | None, *, latency: int, label: str = "low",
                calls: int = 1, values: list[str] | None = None,
                error: bool = False) -> dict[str, Any]:
    line: dict[str, Any] = {"id": qid, "answer": answer, "values": values or [],
                            "confidence_label": label, "latency_ms": latency,
                            "llm_calls": calls}
    if error:
        line["error"] = {"kind": "RuntimeError", "message": "boom"}
    return line


GOLD = [
    {"id": "q1", "answers": ["8"]},
    {"id": "q2", "answers": ["587.81 million yuan"]},
    {"id": "q3", "answers": ["1955", "62170"]},
    {"id": "q4", "answers": ["12.5"], "scale": "percent"},
    {"id": "q5", "answers": ["Men"]},
    {"id": "q6", "answers": ["x"]},
    {"id": "q7", "answers": ["y"]},
    {"id": "q8", "answers": ["z"]},
]

PREDICTIONS = [
    _prediction("q1", "8", latency=100, label="high", calls=2),  # right
    _prediction("q2", "587.81", latency=200, calls=3),  # right only leniently
    _prediction("q3", "1955 and 62170", values=["1955", "62170"], latency=300),  # right (values)
    _prediction("q4", "0.125", latency=400),  # right (percent fraction)
    _prediction("q5", "Women", latency=500, label="high"),  # confidently wrong
    _prediction("q6", "w", latency=600, label="medium"),  # wrong
    _prediction("q7", None, latency=700, error=True),  # errored
    # q8: no prediction at all
]


@pytest.fixture
def report() -> SuiteReport:
    return evaluate(GOLD, PREDICTIONS, suite="mini")


def test_evaluate_counts(report: SuiteReport) -> None:
    assert (report.n, report.answered) == (8, 6)
    assert (report.correct_strict, report.correct_lenient) == (3, 4)


def test_evaluate_rates(report: SuiteReport) -> None:
    assert report.answered_rate == pytest.approx(6 / 8)
    assert report.accuracy_strict == pytest.approx(3 / 8)
    assert report.accuracy_lenient == pytest.approx(4 / 8)
    assert report.precision_strict == pytest.approx(3 / 6)
    assert report.precision_lenient == pytest.approx(4 / 6)


def test_evaluate_latency_percentiles_and_llm_calls(report: SuiteReport) -> None:
    # Seven predictions (the missing one has no latency); nearest rank: 4th and 7th of 7.
    assert report.latency_p50_ms == 400
    assert report.latency_p95_ms == 700
    assert report.mean_llm_calls == pytest.approx((2 + 3 + 1 * 5) / 7)


def test_evaluate_token_means_and_llm_call_percentiles() -> None:
    gold = [{"id": f"q{i}", "answers": ["1"]} for i in range(5)]
    lines = [{**_prediction(f"q{i}", "1", latency=1, calls=calls),
              "prompt_tokens": prompt, "completion_tokens": completion}
             for i, (calls, prompt, completion) in enumerate(
                 [(1, 800, 40), (2, 1600, 90), (2, 1500, 70), (4, 3000, 200), (0, 0, 0)])]
    report = evaluate(gold, lines, suite="llm")
    assert report.mean_prompt_tokens == pytest.approx(6900 / 5)
    assert report.mean_completion_tokens == pytest.approx(400 / 5)
    assert (report.median_llm_calls, report.p95_llm_calls) == (2, 4)
    assert report.mean_llm_calls == pytest.approx(9 / 5)
    row = format_report([report]).splitlines()[1].split()
    assert row[-6:] == ["1.80", "2", "4", "1380", "80", "0"]
    suite = reports_json([report])["suites"][0]
    assert (suite["mean_prompt_tokens"], suite["mean_completion_tokens"]) == (1380, 80)
    assert (suite["median_llm_calls"], suite["p95_llm_calls"]) == (2, 4)


def test_evaluate_confidently_wrong_and_errors(report: SuiteReport) -> None:
    assert report.confidently_wrong == ["q5"]
    assert report.errors == [{"source": "q7", "message": "RuntimeError: boom"}]


def test_evaluate_prefers_values_over_answer() -> None:
    gold = [{"id": "q", "answers": ["1955", "62170"]}]
    right = _prediction("q", "two years", values=["1955", "62170"], latency=1)
    assert evaluate(gold, [right], suite="s").correct_strict == 1
    only_answer = _prediction("q", "1955, 62170", latency=1)
    assert evaluate(gold, [only_answer], suite="s").correct_strict == 1


def test_evaluate_without_predictions() -> None:
    report = evaluate(GOLD, [], suite="empty")
    assert report.answered == 0 and report.accuracy_strict == 0
    assert report.precision_strict is None and report.latency_p50_ms is None
    assert "precision_strict" not in report.to_dict()
    assert "latency_p50_ms" not in report.to_dict()


# ---------------------------------------------------------------------------------------------
# Reports


def test_format_report_shows_the_numbers(report: SuiteReport) -> None:
    text = format_report([report])
    header, row = text.splitlines()[:2]
    assert "acc strict" in header and "p95 ms" in header
    for figure in ("mini", "8", "75.0%", "37.5%", "50.0%", "66.7%", "400", "700", "1.43"):
        assert figure in row
    assert "confidently wrong: q5" in text
    assert "1 input failed" in text


def test_reports_json(report: SuiteReport) -> None:
    out = reports_json([report])
    assert out["schema_version"] == 1
    (suite,) = out["suites"]
    assert suite["suite"] == "mini" and suite["n"] == 8
    assert suite["accuracy_strict"] == pytest.approx(0.375)
    assert suite["precision_lenient"] == pytest.approx(4 / 6)
    assert suite["confidently_wrong"] == ["q5"]
    assert out["errors"] == [{"source": "q7", "message": "RuntimeError: boom"}]
    json.dumps(out)  # JSON-ready


def test_reports_json_leaves_out_empty_errors() -> None:
    clean = evaluate(GOLD[:1], PREDICTIONS[:1], suite="clean")
    out = reports_json([clean])
    assert "errors" not in out and "errors" not in out["suites"][0]
    assert "confidently_wrong" not in out["suites"][0]


# ---------------------------------------------------------------------------------------------
# run_eval


def test_run_eval_writes_answers_and_scores(suite: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "answers"
    (report,) = run_eval([suite], FakeAgent(), out_dir=out_dir)
    assert report.suite == "mini" and report.n == 3 and report.answered == 2
    assert report.correct_strict == 2  # "8", and 0.125 for 12.5 percent
    assert report.errors == [{"source": "s-2",
                              "message": "RuntimeError: the model fell over"}]
    assert len((out_dir / "mini.jsonl").read_text(encoding="utf-8").splitlines()) == 3


def test_run_eval_reports_bad_question_lines(suite: Path) -> None:
    questions = suite / "questions.jsonl"
    questions.write_text(questions.read_text(encoding="utf-8") + "{broken\n", encoding="utf-8")
    (report,) = run_eval([suite], FakeAgent())  # a temporary answers folder
    assert [e["source"] for e in report.errors] == [f"{questions}:4", "s-2"]


def test_run_eval_rejects_a_folder_without_questions(suite: Path, tmp_path: Path) -> None:
    agent = FakeAgent()
    with pytest.raises(FileNotFoundError, match="questions.jsonl"):
        run_eval([suite, tmp_path / "nothing"], agent)
    assert agent.calls == []  # checked before answering anything


def test_the_halves_of_the_split_are_fixed_and_keep_a_tables_questions_together() -> None:
    from tablelens.evaluation.halves import half_of, split

    questions = [{"id": str(i), "table": f"tables/t{i % 7}.csv"} for i in range(70)]
    halves = split("wtq", questions)
    assert len(halves["A"]) + len(halves["B"]) == 70 and halves["A"] and halves["B"]
    for half, members in halves.items():
        assert {half_of("wtq", q) for q in members} == {half}
    tables_a = {q["table"] for q in halves["A"]}
    assert not tables_a & {q["table"] for q in halves["B"]}
    # The rule is sha256("<suite>/<table>")'s first byte: even is A (stable across runs).
    import hashlib
    for q in questions:
        even = hashlib.sha256(f"wtq/{q['table']}".encode()).digest()[0] % 2 == 0
        assert half_of("wtq", q) == ("A" if even else "B")
