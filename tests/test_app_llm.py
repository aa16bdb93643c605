"""The app's LLM settings (Streamlit AppTest): edited for one browser session over the server's
defaults, checked in plain words, tested with one call, never written anywhere; and LLM calls
drawn inside their steps."""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import socket
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from storage.workspace import Workspace
from tablelens import chat_store
from tests.test_app import (
    APP,
    QUESTION,
    answers,
    ask,
    html_of,
    markdown_of,
    no_failure,
    open_steps,
    unescape,
    upload_financial,
)
from tests.test_turn_html import LLM_EVENTS

KEY = "sk-TLTEST-zebra-93417-do-not-store"
HAS_CLIENT = importlib.util.find_spec("agent.llm.client") is not None
NEEDS_CLIENT = pytest.mark.skipif(
    not HAS_CLIENT, reason="agent.llm.client (LLMClient.ping) has not landed on main yet")


def new_session():
    """A fresh browser session of the app, reading the environment again."""
    import streamlit as st

    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    no_failure(at)
    return at


@pytest.fixture
def data_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "data"
    monkeypatch.setenv("TABLELENS_DATA_DIR", str(path))
    for name in [n for n in os.environ if n.startswith("TABLELENS_LLM")]:
        monkeypatch.delenv(name)
    return path


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def badge(at) -> str:
    return next(m for m in markdown_of(at) if "-badge[" in m and "Confidence" not in m)


BUTTONS = {"Apply": "llm_apply", "Test connection": "llm_test_connection",
           "Reset to server defaults": "llm_reset"}


def button(at, label: str):
    """A button of the Settings panel (the workspace panel has an Apply of its own)."""
    (found,) = [b for b in at.button if b.key == BUTTONS[label] and b.label == label]
    return found


def fill(at, **fields) -> None:
    """Set the LLM fields of the Settings panel (by their widget keys)."""
    for name, value in fields.items():
        key = f"llm_{name}"
        for widget in (at.selectbox, at.text_input, at.number_input, at.checkbox):
            found = [w for w in widget if w.key == key]
            if found:
                found[0].set_value(value)
                break
        else:
            raise KeyError(key)


def test_settings_changed_in_one_session_change_its_mode_and_not_the_next_sessions(data_dir):
    at = new_session()
    assert "Offline engine" in badge(at)
    fill(at, engine="OpenAI", model="gpt-4o-mini")
    button(at, "Apply").click()
    at.run()
    no_failure(at)
    assert "LLM: openai:gpt-4o-mini" in badge(at)
    assert any("sent to gpt-4o-mini at OpenAI (api.openai.com)" in c.value.replace("\\", "")
               for c in at.caption)
    assert any(e.label == "What the engine does with gpt-4o-mini" for e in at.expander)
    assert at.session_state["llm_session"].model == "openai:gpt-4o-mini"

    other = new_session()  # another browser session: the server's defaults
    assert "Offline engine" in badge(other)
    assert any(e.label == "What the offline engine can and cannot do" for e in other.expander)

    button(at, "Reset to server defaults").click()
    at.run()
    assert "Offline engine" in badge(at)
    assert [s.value for s in at.selectbox if s.key == "llm_engine"] == ["Offline engine"]


def test_the_environment_gives_the_defaults_and_its_key_is_never_shown(data_dir, monkeypatch):
    monkeypatch.setenv("TABLELENS_LLM", "ollama:qwen2.5:7b")
    monkeypatch.setenv("TABLELENS_LLM_API_KEY", KEY)
    monkeypatch.setenv("TABLELENS_LLM_MAX_CALLS", "6")
    at = new_session()
    assert "LLM: ollama:qwen2.5:7b" in badge(at)
    values = {w.key: w.value for kind in (at.selectbox, at.text_input, at.number_input)
              for w in kind if (w.key or "").startswith("llm_")}
    assert values["llm_engine"] == "Ollama" and values["llm_model"] == "qwen2.5:7b"
    assert values["llm_base_url"] == "http://localhost:11434"
    assert values["llm_max_calls"] == 6 and values["llm_api_key"] == ""
    assert any("set by the server's environment" in c.value for c in at.caption)
    assert KEY not in str([el.proto for el in at.main]) + str([el.proto for el in at.sidebar])


def test_a_wrong_field_is_said_beside_it_and_nothing_changes(data_dir):
    at = new_session()
    fill(at, engine="OpenAI-compatible server", model="", base_url="localhost:8000")
    button(at, "Apply").click()
    at.run()
    no_failure(at)
    notes = [c.value.replace("\\", "") for c in at.caption]
    assert any("Enter the model's name" in n for n in notes)
    assert any("Write the address as http://host:port" in n for n in notes)
    assert any("Not applied" in n for n in notes)
    assert "Offline engine" in badge(at)


@NEEDS_CLIENT
def test_test_connection_against_a_closed_port_shows_the_error(data_dir):
    at = new_session()
    fill(at, engine="OpenAI-compatible server", model="qwen",
         base_url=f"http://127.0.0.1:{closed_port()}/v1", timeout_s=5.0, max_retries=0)
    button(at, "Test connection").click()
    at.run()
    no_failure(at)
    assert len(at.error) == 1 and at.error[0].value.strip()
    assert "Connected" not in str([s.value for s in at.success])
    assert "Offline engine" in badge(at)  # testing is not applying


def test_the_typed_key_is_written_nowhere(data_dir, samples, caplog):
    caplog.set_level(logging.DEBUG)
    at = new_session()
    upload_financial(at, samples)
    fill(at, engine="OpenAI-compatible server", model="qwen",
         base_url=f"http://127.0.0.1:{closed_port()}/v1", api_key=KEY, timeout_s=2.0,
         max_retries=0)
    button(at, "Apply").click()
    at.run()
    no_failure(at)
    assert at.session_state["llm_session"].api_key.get_secret_value() == KEY
    ask(at, QUESTION, failing=True)  # reaches no model: the point is where the key went
    if HAS_CLIENT:
        button(at, "Test connection").click()
        at.run()
        assert at.error
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in caplog.text
    assert all(KEY not in str(value) for value in at.query_params.values())
    session = at.query_params["session"]
    workspace = Workspace.in_data_dir(data_dir, session)
    turn = chat_store.turns(workspace)[-1]
    workspace.close()
    assert turn.question["text"] == QUESTION  # the question was asked and stored


def test_a_model_that_cannot_be_reached_is_said_under_the_answer_it_did_not_check(data_dir,
                                                                                  samples):
    at = new_session()
    upload_financial(at, samples)
    url = f"http://127.0.0.1:{closed_port()}/v1"
    fill(at, engine="OpenAI-compatible server", model="qwen", base_url=url, timeout_s=2.0,
         max_retries=1)
    button(at, "Apply").click()
    at.run()
    ask(at, QUESTION)
    assert answers(at), markdown_of(at)  # the rules' answer stands
    (warning,) = [w.value for w in at.warning if "could not be reached" in w.value]
    warning = unescape(warning)
    assert warning.startswith(f"The model at {url} could not be reached (2 attempts)")
    assert warning.endswith("This answer is the offline rules' own: the model did not check it.")
    line = next(m for m in markdown_of(at) if m.startswith("### "))
    assert "2 requests to the model, all failed" in line


def test_a_steps_llm_calls_show_inside_it_and_the_answer_says_what_it_cost(data_dir,
                                                                            samples):
    at = new_session()
    upload_financial(at, samples)
    workspace = Workspace.in_data_dir(data_dir, at.query_params["session"])
    chat_store.add_question(workspace, "r", "Total rent?")
    chat_store.add_run(workspace, "r", LLM_EVENTS, answer={
        "answer": "280", "confidence": 0.9, "confidence_label": "high", "llm_calls": 3,
        "prompt_tokens": 812, "completion_tokens": 64})
    workspace.close()
    at.run()
    no_failure(at)
    assert "plan the question" not in html_of(at)  # a closed step draws no body
    open_steps(at)
    page = html_of(at)
    assert "plan the question: openai:gpt-4o-mini, 812 prompt + 64 completion tokens" in page
    assert "You plan &lt;table&gt; questions." in page and "Total rent in Q2?" in page
    assert "failed: The model&#x27;s reply did not parse." in page
    assert page.count("<details") == 2  # one block for the step, a disclosure per call
    assert any("3 requests to the model, 812 prompt + 64 completion tokens" in m
               for m in markdown_of(at))


def test_a_question_runs_with_its_sessions_model_and_offline_as_before(data_dir, samples,
                                                                       monkeypatch):
    from tablelens import runs

    asked: list[dict] = []
    real = runs.stream_question

    def recording(*args, **kwargs):
        asked.append({"llm": kwargs.pop("llm", "absent")})
        return real(*args, **kwargs)  # answered offline: the point is what the run was given

    monkeypatch.setattr(runs, "stream_question", recording)
    at = new_session()
    upload_financial(at, samples)
    ask(at)
    assert asked == [{"llm": "absent"}]
    fill(at, engine="Anthropic", model="claude-sonnet-4-5", api_key=KEY, max_calls=2)
    button(at, "Apply").click()
    at.run()
    ask(at)
    llm = asked[-1]["llm"]
    assert (llm.model, llm.max_calls, llm.api_key.get_secret_value()) == (
        "anthropic:claude-sonnet-4-5", 2, KEY)


def test_a_derived_columns_instruction_is_the_tooltip_of_its_header(data_dir, samples):
    at = new_session()
    upload_financial(at, samples)
    workspace = Workspace.in_data_dir(data_dir, at.query_params["session"])
    chat_store.add_question(workspace, "r", "How many drivers are from Germany?")
    table = {"name": "step_r_1", "columns": ["_row", "Nationality", "country", "_status"],
             "labels": ["Sheet row", "Nationality", "Country", "Derived value status"],
             "notes": [None, None, "the country this nationality implies", None],
             "rows": [[2, "German", "Germany", "ok"]], "row_count": 1,
             "title": "Country, derived from Nationality"}
    chat_store.add_run(workspace, "r", [
        {"schema_version": 1, "run_id": "r", "seq": 0, "node": "llm_column_step",
         "phase": "end", "title": "Derived country for 1 row", "table": table}],
        answer={"answer": "1", "confidence": 0.6, "confidence_label": "medium"})
    workspace.close()
    at.run()
    open_steps(at)
    [frame] = [d for d in at.dataframe if "Country" in d.value.columns]
    config = json.loads(frame.proto.columns)
    assert config["Country"]["help"] == "the country this nationality implies"
    assert "help" not in config.get("Nationality", {})
