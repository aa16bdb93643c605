"""The Settings panel's LLM fields as data: env defaults into the form and back, plain-words
checks, the server's key kept to the server's endpoint, and the header's words per mode."""

from __future__ import annotations

from dataclasses import replace

import pytest
from pydantic import SecretStr

from agent.llm.settings import LLMSettings
from tablelens import llm_settings_view as v
from tablelens.llm_options import llm_kwargs, with_overrides
from tablelens.settings import Settings

OFFLINE = LLMSettings()


@pytest.mark.parametrize(("llm", "engine", "model", "base_url"), [
    (LLMSettings(), v.OFFLINE, "", ""),
    (LLMSettings(model="openai:gpt-4o-mini"), v.OPENAI, "gpt-4o-mini", ""),
    (LLMSettings(model="anthropic:claude-sonnet-4-5"), v.ANTHROPIC, "claude-sonnet-4-5", ""),
    (LLMSettings(model="ollama:qwen2.5:7b"), v.OLLAMA, "qwen2.5:7b", v.OLLAMA_URL),
    (LLMSettings(model="ollama:qwen2.5:7b", base_url="http://gpu:11434/v1"), v.OLLAMA,
     "qwen2.5:7b", "http://gpu:11434"),
    (LLMSettings(model="qwen2.5:7b", base_url="http://localhost:8000/v1/"), v.COMPATIBLE,
     "qwen2.5:7b", "http://localhost:8000/v1"),
    (LLMSettings(model="groq:llama3"), v.OTHER, "groq:llama3", ""),
])
def test_the_form_shows_the_settings_and_gives_them_back(llm, engine, model, base_url):
    form = v.form_from(llm)
    assert (form.engine, form.model, form.base_url, form.api_key) == (engine, model, base_url,
                                                                      "")
    back, errors = v.settings_from(form, llm)
    assert errors == {}
    assert (back.model, back.provider, back.model_name) == (llm.model, llm.provider,
                                                            llm.model_name)
    assert (back.base_url or "").rstrip("/") == (llm.base_url or "").rstrip("/")
    assert (v.OTHER in v.engine_options(llm)) == (engine == v.OTHER)


def test_limits_come_from_the_form_and_the_rest_from_the_server():
    server = LLMSettings(model="openai:gpt-4o-mini", temperature=0.5, prompt_budget_tokens=900)
    form = replace(v.form_from(server), timeout_s=5.0, max_retries=0, max_calls=9,
                   max_output_tokens=64, cache=False)
    chosen, errors = v.settings_from(form, server)
    assert errors == {}
    assert (chosen.timeout_s, chosen.max_retries, chosen.max_calls, chosen.max_output_tokens,
            chosen.cache) == (5.0, 0, 9, 64, False)
    assert (chosen.temperature, chosen.prompt_budget_tokens) == (0.5, 900)


@pytest.mark.parametrize(("form", "field", "words"), [
    (v.LLMForm(engine=v.OPENAI), "model", "Enter the model's name (for example gpt-4o-mini)"),
    (v.LLMForm(engine=v.ANTHROPIC, model="claude sonnet"), "model", "no spaces"),
    (v.LLMForm(engine=v.OTHER, model="llama3"), "model", "provider:model"),
    (v.LLMForm(engine=v.COMPATIBLE, model="m"), "base_url", "Enter the server's address"),
    (v.LLMForm(engine=v.COMPATIBLE, model="m", base_url="localhost:8000"), "base_url",
     "http://host:port"),
    (v.LLMForm(engine=v.COMPATIBLE, model="m", base_url="http://h:port"), "base_url",
     "must be a number"),
    (v.LLMForm(engine=v.OPENAI, model="m", timeout_s=0), "timeout_s", "more than 0"),
    (v.LLMForm(max_calls=0), "max_calls", "from 1 to 50"),
    (v.LLMForm(max_retries=11), "max_retries", "from 0 to 10"),
    (v.LLMForm(max_output_tokens=0), "max_output_tokens", "at least 1 token"),
])
def test_a_wrong_field_is_named_in_plain_words(form, field, words):
    chosen, errors = v.settings_from(form, OFFLINE)
    assert chosen is None
    assert list(errors) == [field] and words in errors[field]


def test_ollama_without_an_address_is_the_local_one_and_elsewhere_its_v1_endpoint():
    local, _ = v.settings_from(v.LLMForm(engine=v.OLLAMA, model="qwen2.5:7b"), OFFLINE)
    assert (local.model, local.base_url, local.provider) == ("ollama:qwen2.5:7b", None, "ollama")
    remote, _ = v.settings_from(
        v.LLMForm(engine=v.OLLAMA, model="qwen2.5:7b", base_url="http://gpu:11434/"), OFFLINE)
    assert (remote.base_url, remote.model_name) == ("http://gpu:11434/v1", "qwen2.5:7b")


def test_the_servers_key_goes_only_to_the_servers_endpoint():
    server = LLMSettings(model="openai:gpt-4o-mini", api_key=SecretStr("server-key"))
    same, _ = v.settings_from(replace(v.form_from(server), model="gpt-4o"), server)
    assert same.api_key is not None and same.api_key.get_secret_value() == "server-key"
    elsewhere = v.LLMForm(engine=v.COMPATIBLE, model="m", base_url="http://evil.example:80")
    other, _ = v.settings_from(elsewhere, server)
    assert other.api_key is None
    typed, _ = v.settings_from(replace(elsewhere, api_key=" mine "), server)
    assert typed.api_key.get_secret_value() == "mine"
    offline, _ = v.settings_from(v.LLMForm(), server)
    assert not offline.enabled and offline.api_key is None


def test_the_key_note_says_a_server_key_exists_without_showing_it():
    server = LLMSettings(model="openai:gpt-4o-mini", api_key=SecretStr("server-key"))
    note = v.key_note(v.form_from(server), server, env={})
    assert "set by the server's environment" in note and "server-key" not in note
    anthropic = v.LLMForm(engine=v.ANTHROPIC, model="claude-sonnet-4-5")
    assert "ANTHROPIC_API_KEY" in v.key_note(anthropic, server,
                                             env={"ANTHROPIC_API_KEY": "x"})
    assert "Needed for this provider" in v.key_note(anthropic, server, env={})
    assert "needs no key" in v.key_note(
        v.LLMForm(engine=v.COMPATIBLE, model="m", base_url="http://h:1"), OFFLINE, env={})
    assert "No key is needed offline" in v.key_note(v.LLMForm(), server, env={})


def test_the_header_says_the_mode_and_where_questions_go():
    assert v.mode_label(OFFLINE) == "Offline engine"
    assert "no question or file leaves it" in v.mode_note(OFFLINE)
    assert v.mode_title(OFFLINE) == "What the offline engine can and cannot do"
    openai = LLMSettings(model="openai:gpt-4o-mini")
    assert v.mode_label(openai) == "LLM: openai:gpt-4o-mini"
    assert "sent to gpt-4o-mini at OpenAI (api.openai.com)" in v.mode_note(openai)
    served = LLMSettings(model="qwen", base_url="http://10.0.0.5:8000/v1")
    assert "at the server 10.0.0.5:8000" in v.mode_note(served)
    assert "at most 4 calls" in " ".join(v.mode_text(served))
    assert "localhost:11434" in v.destination(LLMSettings(model="ollama:qwen2.5:7b"))


def test_a_run_is_told_about_a_model_only_when_one_is_configured():
    assert llm_kwargs(None) == {} and llm_kwargs(OFFLINE) == {}
    openai = LLMSettings(model="openai:gpt-4o-mini")
    assert llm_kwargs(openai) == {"llm": openai}


def test_command_line_overrides_replace_the_environments_model():
    env = Settings.from_env({"TABLELENS_LLM": "qwen", "TABLELENS_LLM_BASE_URL": "http://h:1/v1",
                             "TABLELENS_LLM_API_KEY": "k", "TABLELENS_LLM_MAX_CALLS": "7"}
                            ).llm_settings()
    assert with_overrides(env) is env
    openai = with_overrides(env, "openai:gpt-4o-mini")
    assert (openai.model, openai.base_url, openai.api_key, openai.max_calls) == (
        "openai:gpt-4o-mini", None, None, 7)
    moved = with_overrides(env, base_url="http://other:2/v1")
    assert (moved.model, moved.base_url, moved.api_key) == ("qwen", "http://other:2/v1", None)
    same = with_overrides(env, "qwen-big", "http://h:1/v1")
    assert same.api_key is not None
    assert not with_overrides(env, "offline").enabled
