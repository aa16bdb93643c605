"""`--llm` and `--llm-base-url` on ask, batch and eval: the command's model reaches the run;
offline, the run is called as before."""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import socket

import pytest

import agent.run
import tablelens.evaluation.answerer as answerer
from tablelens.cli import main
from tests.test_cli_ask import ANSWERABLE, OPEX, write_suite

LLM_ON_MAIN = ("llm" in inspect.signature(agent.run.answer_question).parameters
               and importlib.util.find_spec("agent.llm.client") is not None)


@pytest.fixture(autouse=True)
def environment(monkeypatch, tmp_path):
    for name in [n for n in os.environ if n.startswith("TABLELENS_LLM")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(tmp_path / "data"))


@pytest.fixture
def seen(monkeypatch):
    """Record what the runs were asked with, and answer them offline."""
    calls: list[dict] = []
    real = agent.run.answer_question

    def recording(*args, llm=None, **kwargs):
        calls.append({"llm": llm})
        return real(*args, **kwargs)

    monkeypatch.setattr(agent.run, "answer_question", recording)
    monkeypatch.setattr(answerer, "answer_question", recording)
    return calls


def test_ask_passes_the_commands_model_and_nothing_offline(capsys, samples, seen,
                                                         monkeypatch):
    monkeypatch.setenv("TABLELENS_LLM_API_KEY", "env-key")
    monkeypatch.setenv("TABLELENS_LLM_MAX_CALLS", "3")
    assert main(["ask", str(samples / "financial.xlsx"), "-q", OPEX, "--json"]) == 0
    assert seen[-1]["llm"] is None  # TABLELENS_LLM unset: offline, called as before
    assert main(["ask", str(samples / "financial.xlsx"), "-q", OPEX, "--json",
                 "--llm", "qwen2.5:7b", "--llm-base-url", "http://gpu:8000/v1"]) == 0
    llm = seen[-1]["llm"]
    assert (llm.model, llm.base_url, llm.max_calls, llm.api_key) == (
        "qwen2.5:7b", "http://gpu:8000/v1", 3, None)
    monkeypatch.setenv("TABLELENS_LLM", "openai:gpt-4o-mini")
    assert main(["ask", str(samples / "financial.xlsx"), "-q", OPEX, "--llm", "offline"]) == 0
    assert seen[-1]["llm"] is None
    capsys.readouterr()


def test_batch_and_eval_ask_every_question_with_the_commands_model(capsys, samples, tmp_path,
                                                                   seen):
    suite = write_suite(tmp_path / "mini", samples, ANSWERABLE)
    assert main(["batch", "--questions", str(suite / "questions.jsonl"), "--out",
                 str(tmp_path / "a.jsonl"), "--llm", "anthropic:claude-sonnet-4-5"]) == 0
    assert [c["llm"].model for c in seen] == ["anthropic:claude-sonnet-4-5"] * 3
    seen.clear()
    assert main(["eval", str(suite), "--llm", "ollama:qwen2.5:7b"]) == 0
    assert [c["llm"].provider for c in seen] == ["ollama"] * 3
    capsys.readouterr()


def test_a_model_without_its_provider_is_a_usage_error(capsys, samples):
    assert main(["ask", str(samples / "financial.xlsx"), "-q", OPEX, "--llm", "gpt4"]) == 2
    assert "provider:model" in capsys.readouterr().err
    assert main(["ask", str(samples / "financial.xlsx"), "-q", OPEX,
                 "--llm-base-url", "http://gpu:8000/v1"]) == 2
    assert "--llm-base-url needs a model" in capsys.readouterr().err


@pytest.mark.skipif(not LLM_ON_MAIN, reason="answer_question(llm=...) and agent.llm.client "
                                            "(LLMClient) are not both on main yet")
def test_ask_with_an_unreachable_server_still_prints_an_answer_document(capsys, samples):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code = main(["ask", str(samples / "financial.xlsx"), "-q", OPEX, "--json", "--llm", "qwen",
                 "--llm-base-url", f"http://127.0.0.1:{port}/v1"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert doc["llm_calls"] >= 1
    assert {"prompt_tokens", "completion_tokens"} <= set(doc)
