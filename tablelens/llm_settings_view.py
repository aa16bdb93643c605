"""The Settings panel's LLM section as plain data: the form's fields, their checks, the words.

The app edits a chat model for one browser session (`st.session_state`), starting from the
server's environment (`Settings.llm_settings()`): one user trying a model must not change it for
everyone on the server. These pure functions turn an `LLMSettings` into the form's values and
back, say what is wrong with a field in plain words, and say what the header shows: the mode,
and where questions and table cells go. The API key is only ever carried as a `SecretStr`;
nothing here writes anything anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlparse

from pydantic import SecretStr

from agent.llm.settings import LLMSettings

OFFLINE = "Offline engine"
OPENAI = "OpenAI"
ANTHROPIC = "Anthropic"
OLLAMA = "Ollama"
COMPATIBLE = "OpenAI-compatible server"
OTHER = "Other provider"
ENGINES = (OFFLINE, OPENAI, ANTHROPIC, OLLAMA, COMPATIBLE)
"""The choices the panel offers; OTHER is added only when the server's environment names a
provider outside these (it is kept, not silently replaced)."""
PROVIDER_OF = {OPENAI: "openai", ANTHROPIC: "anthropic", OLLAMA: "ollama"}
OLLAMA_URL = "http://localhost:11434"
"""Where Ollama listens by default (and where its LangChain client goes without a URL)."""
KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
"""The provider's usual key variable, which its client reads when no key is given."""
MODEL_HINTS = {OPENAI: "gpt-4o-mini", ANTHROPIC: "claude-sonnet-4-5", OLLAMA: "qwen2.5:7b",
               COMPATIBLE: "the name the server expects", OTHER: "provider:model"}
PROVIDER_NAMES = {"openai": "OpenAI (api.openai.com)",
                  "anthropic": "Anthropic (api.anthropic.com)"}

OFFLINE_CAN = (
    "Answers questions about the tables you upload without any outside service: look up a "
    "value, total, average, count, minimum or maximum, which row is highest or lowest, "
    "differences, ratios and percentage changes, with rows and columns matched through the "
    "header tree and filters such as \"more than 5\". Every number is re-derived in SQL and "
    "cites its cells.")
OFFLINE_CANNOT = (
    "Without an LLM it cannot interpret vague or unusual wording, answer several questions in "
    "one message, join several tables, or read free text; it says so instead of guessing. "
    "Choose a model under Settings in the sidebar to try one.")


@dataclass(frozen=True)
class LLMForm:
    """What the panel's fields hold. `api_key` is what was typed here ("" = none typed)."""

    engine: str = OFFLINE
    model: str = ""
    base_url: str = ""
    api_key: str = ""
    timeout_s: float = 120.0
    max_retries: int = 2
    max_calls: int = 4
    max_output_tokens: int = 1024
    cache: bool = True


def engine_options(defaults: LLMSettings) -> list[str]:
    """The engines to choose from: the five known ones, and OTHER when the server uses it."""
    return [*ENGINES, OTHER] if form_from(defaults).engine == OTHER else list(ENGINES)


def form_from(llm: LLMSettings) -> LLMForm:
    """The form's values for these settings. The key is never put in the form: a key that
    came from the environment stays on the server's side, unseen."""
    limits = LLMForm(timeout_s=llm.timeout_s, max_retries=llm.max_retries,
                     max_calls=llm.max_calls, max_output_tokens=llm.max_output_tokens,
                     cache=llm.cache)
    if not llm.enabled:
        return limits
    model = llm.model or ""
    head = model.partition(":")[0]
    if llm.base_url:
        url = llm.base_url.rstrip("/")
        if head == "ollama":  # Ollama elsewhere, reached through its /v1 endpoint
            return replace(limits, engine=OLLAMA, model=llm.model_name,
                           base_url=url.removesuffix("/v1"))
        return replace(limits, engine=COMPATIBLE, model=llm.model_name, base_url=url)
    engine = {v: k for k, v in PROVIDER_OF.items()}.get(head)
    if engine is None:
        return replace(limits, engine=OTHER, model=model)
    return replace(limits, engine=engine, model=llm.model_name,
                   base_url=OLLAMA_URL if engine == OLLAMA else "")


def settings_from(form: LLMForm, defaults: LLMSettings
                  ) -> tuple[LLMSettings | None, dict[str, str]]:
    """The settings these values describe, or the fields that are wrong, in plain words.

    Settings the panel does not show (temperature, prompt budget) keep the server's values.
    The server's key is used only for the server's own model endpoint: a user who points the
    session at another provider or server must bring their own key, so the team's key is
    never sent somewhere the server did not choose.
    """
    errors: dict[str, str] = {}
    model, url = form.model.strip(), form.base_url.strip().rstrip("/")
    if form.engine == OLLAMA and not url:
        url = OLLAMA_URL
    if form.engine not in (*ENGINES, OTHER):
        errors["engine"] = "Choose one of the engines listed."
    if form.engine != OFFLINE:
        if not model:
            errors["model"] = f"Enter the model's name (for example {MODEL_HINTS[form.engine]})."
        elif any(ch.isspace() for ch in model):
            errors["model"] = "A model name has no spaces."
        elif form.engine == OTHER and ":" not in model:
            errors["model"] = "Write the model as provider:model."
    if form.engine in (COMPATIBLE, OLLAMA):
        problem = url_problem(url)
        if problem:
            errors["base_url"] = problem
    if form.timeout_s <= 0:
        errors["timeout_s"] = "The timeout must be more than 0 seconds."
    if not 0 <= form.max_retries <= 10:
        errors["max_retries"] = "Retries go from 0 to 10."
    if not 1 <= form.max_calls <= 50:
        errors["max_calls"] = "Calls per question go from 1 to 50."
    if form.max_output_tokens <= 0:
        errors["max_output_tokens"] = "The reply needs at least 1 token."
    if errors:
        return None, errors
    limits = {"timeout_s": form.timeout_s, "max_retries": form.max_retries,
              "max_calls": form.max_calls, "max_output_tokens": form.max_output_tokens,
              "cache": form.cache}
    if form.engine == OFFLINE:
        return defaults.model_copy(update={"model": None, "base_url": None, "api_key": None,
                                           **limits}), {}
    base_url: str | None = None
    if form.engine == COMPATIBLE:
        full, base_url = model, url
    elif form.engine == OLLAMA:
        full = f"ollama:{model}"
        base_url = None if url == OLLAMA_URL else f"{url.removesuffix('/v1')}/v1"
    elif form.engine == OTHER:
        full = model
    else:
        full = f"{PROVIDER_OF[form.engine]}:{model}"
    typed = form.api_key.strip()
    candidate = defaults.model_copy(update={"model": full, "base_url": base_url, **limits})
    if typed:
        key: SecretStr | None = SecretStr(typed)
    elif same_endpoint(candidate, defaults):
        key = defaults.api_key
    else:
        key = None
    return candidate.model_copy(update={"api_key": key}), {}


def url_problem(url: str) -> str | None:
    """What is wrong with a server URL, or None."""
    if not url:
        return "Enter the server's address, for example http://localhost:8000/v1."
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return "Write the address as http://host:port (or https://...)."
    try:
        parsed.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return "The port after the colon must be a number."
    return None


def same_endpoint(a: LLMSettings, b: LLMSettings) -> bool:
    """Whether both settings reach the same provider at the same address."""
    return a.enabled and b.enabled and a.provider == b.provider and (
        (a.base_url or "").rstrip("/") == (b.base_url or "").rstrip("/"))


def key_note(form: LLMForm, defaults: LLMSettings,
             env: Mapping[str, str] | None = None) -> str:
    """What the key field says about a key the server holds (never the key itself)."""
    env = os.environ if env is None else env
    if form.engine == OFFLINE:
        return "No key is needed offline."
    candidate, _ = settings_from(replace(form, api_key=""), defaults)
    if candidate is not None and candidate.api_key is not None:
        return ("A key is set by the server's environment; leave this empty to use it, or "
                "type your own.")
    variable = KEY_VARIABLES.get(candidate.provider if candidate else "")
    if form.engine != COMPATIBLE and variable and env.get(variable):
        return (f"A key is set by the server's environment ({variable}); leave this empty to "
                "use it, or type your own.")
    if form.engine in (OLLAMA, COMPATIBLE):
        return "Leave this empty if the server needs no key."
    return "Needed for this provider. Kept only in this browser tab's session."


def mode_label(llm: LLMSettings) -> str:
    """The header's badge: "Offline engine", or "LLM: openai:gpt-4o-mini"."""
    return f"LLM: {llm.model}" if llm.enabled else OFFLINE


def destination(llm: LLMSettings) -> str:
    """Where a model's requests go, in words: the host of its URL, or the provider."""
    if llm.base_url:
        return f"the server {urlparse(llm.base_url).netloc or llm.base_url}"
    if llm.provider == "ollama":
        return f"the Ollama server {urlparse(OLLAMA_URL).netloc}"
    return PROVIDER_NAMES.get(llm.provider, f"the provider {llm.provider!r}")


def mode_note(llm: LLMSettings) -> str:
    """The line beside the badge: what leaves the machine, and to where."""
    if not llm.enabled:
        return "Runs entirely on this machine; no question or file leaves it."
    return (f"Your questions and the relevant table cells are sent to {llm.model_name} at "
            f"{destination(llm)}. Uploaded files stay here.")


def mode_help(llm: LLMSettings) -> str:
    """The badge's tooltip."""
    if not llm.enabled:
        return "No LLM is configured: questions are answered by the offline engine."
    return ("Questions are planned by the model; every number is still computed from the cells "
            "and checked here. Change it under Settings in the sidebar.")


def mode_title(llm: LLMSettings) -> str:
    """The title of the "what the engine can do" section."""
    if not llm.enabled:
        return "What the offline engine can and cannot do"
    return f"What the engine does with {llm.model_name}"


def mode_text(llm: LLMSettings) -> list[str]:
    """The paragraphs of that section."""
    if not llm.enabled:
        return [OFFLINE_CAN, OFFLINE_CANNOT]
    return [
        "The offline rules plan first. Then, in one call, the model "
        f"{llm.model_name} checks that plan against your question, replaces it with its own "
        "(which table, rows, columns and computation), or says the tables cannot answer. The "
        "app computes every number itself from the cells, re-derives it in SQL and cites the "
        "cells; the model's sentence gets only the checked numbers. If the model fails, the "
        "rules' plan stands.",
        f"What is sent to {destination(llm)}: the question, the rules' plan, and the candidate "
        "tables, a small one whole, a larger one as its columns with sample values and its row "
        f"paths (within about {llm.prompt_budget_tokens:,} tokens). Each call is shown inside "
        "its step, with every message sent and the reply. A question makes at most "
        f"{llm.max_calls} call{'s' * (llm.max_calls != 1)}, retries included.",
    ]
