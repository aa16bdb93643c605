"""`tablelens ask`, `batch` and `eval` on the reference samples, offline (no LLM configured)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from agent.steptables import step_tables
from storage.workspace import Workspace
from tablelens.cli import main

OPEX = "What was the total operating expense for Q2 2024?"
SALES_HEADCOUNT = "How many employees are in Sales?"
ANSWER_KEYS = {"answer", "values", "evidence", "confidence", "confidence_label", "steps",
               "llm_calls", "prompt_tokens", "completion_tokens", "latency_ms", "ingest_ms"}
EVIDENCE_KEYS = {"table", "sheet", "ref", "text", "value"}


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No LLM, and a data directory of the test's own."""
    for name in [n for n in os.environ if n.startswith("TABLELENS_LLM")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))


def ask_json(capsys, *args: Any) -> tuple[int, dict[str, Any], str]:
    code = main(["ask", *map(str, args), "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def broken_file(folder: Path) -> Path:
    bad = folder / "broken.xlsx"
    bad.write_bytes(b"this is not a workbook")
    return bad


def assert_no_null_optional_keys(doc: dict[str, Any]) -> None:
    """Optional keys are absent when empty, never null (`answer` itself may be null)."""
    assert [k for k, v in doc.items() if v is None and k != "answer"] == []


# ---------------------------------------------------------------------------------------------
# ask --json


def test_ask_json_prints_schema_version_and_the_answer_fields(capsys, samples):
    code, doc, _ = ask_json(capsys, samples / "financial.xlsx", "--question", OPEX)
    assert code == 0
    assert doc["schema_version"] == 1
    assert set(doc) >= ANSWER_KEYS
    assert "errors" not in doc and "error" not in doc
    assert_no_null_optional_keys(doc)
    assert doc["answer"] == "375" and doc["values"] == [375]
    assert doc["confidence_label"] == "high" and doc["llm_calls"] == 0
    assert (doc["prompt_tokens"], doc["completion_tokens"]) == (0, 0)
    assert 0 <= doc["confidence"] <= 1
    for item in doc["evidence"]:
        assert set(item) == EVIDENCE_KEYS
        assert (item["table"], item["sheet"]) == ("financial__p_l__t0", "P&L")
    assert {(e["ref"], e["text"], e["value"]) for e in doc["evidence"]} == {
        ("C5", "230", 230), ("C6", "50", 50), ("C7", "95", 95)}
    # The steps are the end events of one run, in order.
    steps = doc["steps"]
    assert [s["node"] for s in steps] == ["decompose", "retrieve", "tree_navigate", "sql_step",
                                          "validate", "answer"]
    assert {s["phase"] for s in steps} == {"end"}
    assert len({s["run_id"] for s in steps}) == 1
    assert [s["seq"] for s in steps] == sorted(s["seq"] for s in steps)


def test_ask_json_reports_the_time_its_files_took_to_ingest(capsys, samples, monkeypatch):
    """`ingest_ms` is the time spent adding the files (was always 0): each add_file here takes
    250 ms on a fake clock that only add_file moves."""
    clock = [100.0]
    add_file = Workspace.add_file

    def slow_add_file(self, *args, **kwargs):
        clock[0] += 0.25
        return add_file(self, *args, **kwargs)

    monkeypatch.setattr("tablelens.cli.perf_counter", lambda: clock[0])
    monkeypatch.setattr(Workspace, "add_file", slow_add_file)
    _, doc, _ = ask_json(capsys, samples / "financial.xlsx", samples / "hr.xlsx", "-q", OPEX)
    assert doc["answer"] == "375"
    assert doc["ingest_ms"] == 500


def test_ask_json_lists_a_broken_file_and_still_answers_from_the_good_one(capsys, samples,
                                                                          tmp_path):
    bad = broken_file(tmp_path)
    missing = tmp_path / "missing.xlsx"
    code, doc, err = ask_json(capsys, samples / "hr.xlsx", bad, missing, "-q",
                              SALES_HEADCOUNT)
    assert code == 1
    assert [e["source"] for e in doc["errors"]] == [str(bad), str(missing)]
    assert all(set(e) == {"source", "message"} and e["message"] for e in doc["errors"])
    assert doc["errors"][0]["message"].startswith("broken.xlsx")
    assert "error:" in err  # and said on stderr, not on stdout
    assert doc["schema_version"] == 1
    assert doc["answer"] == "3" and doc["values"] == [3]
    assert {e["table"] for e in doc["evidence"]} == {"hr__staff__t0"}
    assert "error" not in doc


def test_ask_json_for_an_unanswerable_question(capsys, samples):
    code, doc, _ = ask_json(capsys, samples / "hr.xlsx", "-q", "What is the meaning of life?")
    assert code == 0  # the input was fine; the engine said it cannot answer
    assert doc["answer"] is None and doc["values"] == [] and doc["evidence"] == []
    assert doc["error"]["kind"] == "needs_llm"
    assert "meaning" in doc["error"]["message"]
    assert [s["node"] for s in doc["steps"]][:3] == ["decompose", "retrieve", "tree_navigate"]
    assert_no_null_optional_keys(doc)


def test_ask_keeps_the_workspace_and_its_step_tables_in_the_named_dir(capsys, samples,
                                                                      tmp_path):
    folder = tmp_path / "kept"
    code, doc, _ = ask_json(capsys, samples / "hr.xlsx", "-q",
                            "Who has the most years of experience?", "--workspace", folder)
    assert code == 0 and doc["answer"] == "Carla Diaz"
    assert (folder / "workspace.sqlite").is_file()
    run_id = doc["steps"][0]["run_id"]
    [sql_end] = [s for s in doc["steps"] if s["node"] == "sql_step"]
    ws = Workspace(folder)
    try:
        assert sql_end["table"]["name"] in step_tables(ws.db, run_id)
        assert [t.id for t in ws.tables()] == ["hr__staff__t0"]
    finally:
        ws.close()


# ---------------------------------------------------------------------------------------------
# ask (text)


def test_ask_text_shows_the_answer_and_the_cited_cells(capsys, samples):
    code = main(["ask", str(samples / "financial.xlsx"), "--question", OPEX])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "375"
    assert "confidence: high" in out
    for ref, text in (("C5", "230"), ("C6", "50"), ("C7", "95")):
        assert f"financial__p_l__t0 P&L!{ref}: {text}" in out
    assert not out.lstrip().startswith("{")  # no JSON without --json


def test_ask_text_with_steps_prints_each_step_on_stderr(capsys, samples):
    code = main(["ask", str(samples / "hr.xlsx"), "-q", "Who has the most years of experience?",
                 "--steps"])
    captured = capsys.readouterr()
    assert code == 0
    assert captured.out.splitlines()[0] == "Carla Diaz"
    assert "Staff!D4: 12" in captured.out and "Staff!B4: Carla Diaz" in captured.out
    for node in ("decompose", "retrieve", "tree_navigate", "sql_step", "validate", "answer"):
        assert f"[{node}] start" in captured.err and f"[{node}] end" in captured.err
    assert "[" not in captured.out  # the steps go to stderr only


def test_ask_text_for_an_unanswerable_question_says_why(capsys, samples):
    code = main(["ask", str(samples / "hr.xlsx"), "-q", "¿Cuántos empleados hay en ventas?"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("Needs an LLM")
    assert "confidence" not in out


def test_ask_with_only_a_broken_file_exits_1(capsys, tmp_path):
    code = main(["ask", str(broken_file(tmp_path)), "-q", SALES_HEADCOUNT, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [e["source"] for e in doc["errors"]] == [str(tmp_path / "broken.xlsx")]
    assert doc["answer"] is None


def test_ask_without_a_question_is_a_usage_error(capsys, samples):
    with pytest.raises(SystemExit) as info:
        main(["ask", str(samples / "hr.xlsx")])
    assert info.value.code == 2


def test_ask_console_script_runs_in_its_own_process(samples, tmp_path):
    env_free = {k: v for k, v in os.environ.items()
                if not k.startswith("TABLELENS_LLM")}
    result = subprocess.run(
        [sys.executable, "-m", "tablelens.cli", "ask", str(samples / "financial.xlsx"),
         "-q", "What was the net income for H2 2024?", "--json"],
        capture_output=True, text=True, cwd=tmp_path,
        env={**env_free, "TABLELENS_DATA_DIR": str(tmp_path / "data")})
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)  # stdout is the JSON document and nothing else
    assert doc["answer"] == "600"
    assert sorted(e["ref"] for e in doc["evidence"]) == ["D8", "E8"]


# ---------------------------------------------------------------------------------------------
# batch and eval


def write_suite(folder: Path, samples: Path, questions: list[dict[str, Any]]) -> Path:
    """A suite folder: tables/ with the two samples and questions.jsonl (tables relative)."""
    (folder / "tables").mkdir(parents=True)
    for name in ("hr.xlsx", "financial.xlsx"):
        shutil.copy(samples / name, folder / "tables" / name)
    (folder / "questions.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return folder


ANSWERABLE = [
    {"id": "hr-1", "table": "tables/hr.xlsx", "question": SALES_HEADCOUNT, "answers": ["3"]},
    {"id": "fin-1", "table": "tables/financial.xlsx",
     "question": "What was the revenue in Q3 2024?", "answers": ["710"]},
    {"id": "hr-2", "table": "tables/hr.xlsx", "question": "Who has the most years of experience?",
     "answers": ["Carla Diaz"]},
]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_batch_writes_one_line_per_question_with_the_answer_fields(capsys, samples, tmp_path,
                                                                   monkeypatch):
    suite = write_suite(tmp_path / "suite", samples, ANSWERABLE)
    out = tmp_path / "answers" / "a.jsonl"
    monkeypatch.chdir(tmp_path)  # table paths are relative to the questions file, not the cwd
    code = main(["batch", "--questions", str(suite / "questions.jsonl"), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out == ""  # progress and the summary go to stderr
    lines = read_jsonl(out)
    assert [line["id"] for line in lines] == ["hr-1", "fin-1", "hr-2"]
    assert [line["question"] for line in lines] == [q["question"] for q in ANSWERABLE]
    assert [line["answer"] for line in lines] == ["3", "710", "Carla Diaz"]
    assert [line["values"] for line in lines] == [[3], [710], ["Carla Diaz"]]
    for line in lines:
        assert set(line) >= ANSWER_KEYS
        assert "error" not in line
        assert line["confidence_label"] == "high" and line["llm_calls"] == 0
        assert (line["prompt_tokens"], line["completion_tokens"]) == (0, 0)
        assert line["evidence"] and all(set(e) == EVIDENCE_KEYS for e in line["evidence"])
    assert [e["ref"] for e in lines[1]["evidence"]] == ["D3"]
    assert {"B4", "D4"} <= {e["ref"] for e in lines[2]["evidence"]}


def test_batch_keeps_going_past_a_missing_table_and_a_refusal(capsys, samples, tmp_path):
    questions = [
        ANSWERABLE[0],
        {"id": "gone", "table": "tables/nowhere.xlsx", "question": SALES_HEADCOUNT},
        {"id": "life", "table": "tables/hr.xlsx", "question": "What is the meaning of life?"},
        ANSWERABLE[1],
    ]
    suite = write_suite(tmp_path / "suite", samples, questions)
    out = tmp_path / "a.jsonl"
    code = main(["batch", "--questions", str(suite / "questions.jsonl"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1  # an input failed (the missing table)
    assert "gone" in err
    lines = {line["id"]: line for line in read_jsonl(out)}
    assert list(lines) == ["hr-1", "gone", "life", "fin-1"]
    assert lines["hr-1"]["answer"] == "3" and lines["fin-1"]["answer"] == "710"
    assert lines["gone"]["answer"] is None and "nowhere.xlsx" in lines["gone"]["error"]["message"]
    assert lines["life"]["answer"] is None and lines["life"]["evidence"] == []
    assert lines["life"]["error"]["kind"] == "needs_llm"


def test_eval_prints_the_report_table(capsys, samples, tmp_path):
    questions = [*ANSWERABLE, {"id": "life", "table": "tables/hr.xlsx",
                               "question": "What is the meaning of life?", "answers": ["42"]}]
    suite = write_suite(tmp_path / "mini", samples, questions)
    code = main(["eval", str(suite)])
    out = capsys.readouterr().out
    assert code == 0
    header, row, *rest = out.splitlines()
    assert header.split()[:5] == ["suite", "n", "answered", "acc", "strict"]
    assert "p50 ms" in header and "llm calls" in header and "conf. wrong" in header
    cells = row.split()
    assert cells[:2] == ["mini", "4"]
    assert cells[2:7] == ["75.0%", "75.0%", "75.0%", "100.0%", "100.0%"]
    assert "calls p95" in header and "prompt tok" in header and "compl. tok" in header
    # no LLM calls (mean, median, p95), no tokens, nothing confidently wrong
    assert cells[-6:] == ["0.00", "0", "0", "0", "0", "0"]
    assert rest == []  # an honest refusal is not a failed input (nor scored as right)


def test_eval_json_report(capsys, samples, tmp_path):
    suite = write_suite(tmp_path / "mini", samples, ANSWERABLE)
    code = main(["eval", str(suite), "--json", "--out-dir", str(tmp_path / "out")])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert doc["schema_version"] == 1
    [report] = doc["suites"]
    assert (report["suite"], report["n"], report["answered"]) == ("mini", 3, 3)
    assert report["correct_strict"] == 3 and report["accuracy_strict"] == 1.0
    assert report["mean_llm_calls"] == 0
    assert report["median_llm_calls"] == report["p95_llm_calls"] == 0
    assert report["mean_prompt_tokens"] == report["mean_completion_tokens"] == 0
    assert "errors" not in doc and "confidently_wrong" not in report
    assert [line["id"] for line in read_jsonl(tmp_path / "out" / "mini.jsonl")] == [
        "hr-1", "fin-1", "hr-2"]


def test_eval_of_a_folder_without_questions_is_a_usage_error(capsys, tmp_path):
    assert main(["eval", str(tmp_path)]) == 2
    assert "questions.jsonl" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Spacer columns and rows inside a header block


def test_spacer_column_and_row_in_the_header_give_no_path_and_the_right_cell(capsys, tmp_path):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sales"
    rows = [("Region", 2023, None, None, 2024, None), (),  # a blank spacer row, then the quarters
            (None, "Q1", "Q2", None, "Q1", "Q2"),  # column D is a blank spacer column
            ("North", 10, 11, None, 20, 21), ("South", 30, 31, None, 40, 41),
            ("East", 50, 51, None, 60, 61)]
    for row in rows:
        ws.append(row)
    ws.merge_cells("B1:C1")
    ws.merge_cells("E1:F1")
    path = tmp_path / "quarters.xlsx"
    wb.save(path)

    assert main(["inspect", "--json", str(path)]) == 0
    [table] = json.loads(capsys.readouterr().out)["tables"]
    assert table["region"] == "A1:F6" and table["header_rows"] == [1, 3]
    paths = [["2023", "Q1"], ["2023", "Q2"], ["2024", "Q1"], ["2024", "Q2"]]
    assert table["column_paths"] == paths
    assert table["wide_column_paths"][-4:] == paths and len(table["wide_columns"]) == 6

    for question, value, ref in [("What was Q2 2024 for South?", 41, "F5"),
                                 ("What was Q1 2023 for East?", 50, "B6")]:
        code, doc, _ = ask_json(capsys, path, "--question", question)
        assert code == 0 and doc["values"] == [value], doc
        assert [e["ref"] for e in doc["evidence"]] == [ref]
