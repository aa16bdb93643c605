"""Twenty dev questions through a real chat model (opt-in: `pytest -m live_llm`).

Start a model first, e.g. `make llm-server` (llama.cpp serving Gemma 3 270M on
http://127.0.0.1:8081/v1), then run `TABLELENS_LIVE_LLM_BASE_URL=http://127.0.0.1:8081/v1
pytest -m live_llm`. Set TABLELENS_LIVE_LLM_MODEL for another server's model name. A weak base
model gets most questions wrong or refused; what this checks is the plumbing: every question
ends in a well-formed answer or a clear failure, never a crash, and an answer's numbers were
all checked against cited cells.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.llm.settings import LLMSettings
from agent.run import answer_question
from storage.workspace import Workspace

BASE_URL = os.environ.get("TABLELENS_LIVE_LLM_BASE_URL")
MODEL = os.environ.get("TABLELENS_LIVE_LLM_MODEL", "gemma-3-270m")
DEV = Path(__file__).resolve().parents[2] / "shared" / "bench"
SUITES = ("wtq", "sstqa", "realhitbench", "tatqa")
PER_SUITE = 5
ERROR_KINDS = {"needs_llm", "llm_failed", "refused", "not_verified", "low_confidence",
               "no_answer", "cancelled", "error"}

pytestmark = [
    pytest.mark.live_llm,
    pytest.mark.skipif(not BASE_URL, reason="set TABLELENS_LIVE_LLM_BASE_URL (make llm-server)"),
    pytest.mark.skipif(not DEV.is_dir(), reason=f"needs the dev questions in {DEV}"),
]


def _questions() -> list[tuple[str, Path, str]]:
    out = []
    for suite in SUITES:
        lines = (DEV / suite / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        for line in lines[:PER_SUITE]:
            item = json.loads(line)
            out.append((item["id"], DEV / suite / item["table"], item["question"]))
    return out


@pytest.mark.parametrize(("qid", "table", "question"), _questions() if DEV.is_dir() else [])
def test_a_real_model_gives_a_checked_answer_or_a_clear_failure(tmp_path, qid, table, question):
    workspace = Workspace(tmp_path / "ws")
    workspace.add_file(table)
    llm = LLMSettings(model=MODEL, base_url=BASE_URL, timeout_s=120, max_output_tokens=256,
                      cache=False)
    answer = answer_question(workspace, question, llm=llm)
    assert answer.steps and answer.steps[-1].node == "answer", qid
    if answer.answer is None:
        assert answer.error is not None and answer.error.kind in ERROR_KINDS, qid
        assert answer.error.message.strip(), qid
        return
    # An answer is a verified one: validate checked its values against the cited cells and
    # a second derivation (an unverified result has no `answer`, only its error).
    assert answer.error is None and answer.values, qid
    assert answer.evidence or answer.evidence_sets, qid
