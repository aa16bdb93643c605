"""How the app and the command line hand a chat model to a run.

A run is told about a model only when one is configured: offline, `stream_question` and
`answer_question` are called exactly as before, so the offline engine's path never depends on
the LLM plumbing.
"""

from __future__ import annotations

from typing import Any

from agent.llm.settings import LLMSettings

OFFLINE_WORDS = frozenset({"offline", "none", "off"})
"""`--llm offline` runs the rules only, whatever the environment names."""


def llm_kwargs(llm: LLMSettings | None) -> dict[str, Any]:
    """The keyword arguments that give a run this model: `{"llm": llm}`, or none offline."""
    return {"llm": llm} if llm is not None and llm.enabled else {}


def with_overrides(base: LLMSettings, model: str | None = None,
                   base_url: str | None = None) -> LLMSettings:
    """The environment's settings with a command's `--llm` and `--llm-base-url` applied.

    `--llm` names a new model: the environment's base URL is dropped unless `--llm-base-url`
    gives one, and so is the environment's key unless the new model is on the same provider
    and address (the server's key never goes to an endpoint it was not set for).
    `--llm-base-url` alone points the environment's model at another server.
    """
    if model is None and base_url is None:
        return base
    if model is not None and model.strip().casefold() in OFFLINE_WORDS:
        return base.model_copy(update={"model": None, "base_url": None, "api_key": None})
    update: dict[str, Any] = {"base_url": (base_url or "").strip() or None}
    if model is not None:
        update["model"] = model.strip() or None
    changed = base.model_copy(update=update)
    same = (changed.provider == base.provider
            and (changed.base_url or "") == (base.base_url or ""))
    return changed if same else changed.model_copy(update={"api_key": None})
