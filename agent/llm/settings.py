"""What a run needs to reach a chat model. `tablelens.settings.Settings` builds it from the
environment; the app's Settings panel overrides it for one browser session."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, SecretStr

MODEL_AT = "The model at "
"""How the client's messages name a server ("The model at http://... could not be
reached")."""
SERVER_NAMED = re.compile(rf"(?<={MODEL_AT})\S+")
"""The server address in such a message: the owner's network, hidden from the readers of a
share link (`tablelens/sharing.py`), whichever server the chat used at the time."""


class LLMSettings(BaseModel):
    """A chat model and the limits a run keeps to when it calls it."""

    model_config = ConfigDict(frozen=True)

    model: str | None = None
    """`provider:model` (`openai:gpt-4o-mini`, `anthropic:claude-...`, `ollama:qwen2.5:7b`);
    with `base_url`, the provider may be left out (the model name the server expects).
    None: offline, the rules only."""
    base_url: str | None = None
    """An OpenAI-compatible server (vLLM, llama.cpp, LM Studio), reached with ChatOpenAI."""
    api_key: SecretStr | None = None
    """Else the provider's usual variable (OPENAI_API_KEY, ANTHROPIC_API_KEY)."""
    timeout_s: float = Field(120.0, gt=0)
    """Per call; generous, because local models are slow."""
    max_retries: int = Field(2, ge=0, le=10)
    """Retries of one request after a timeout, a 5xx, a refused connection or output that
    does not parse."""
    max_calls: int = Field(4, ge=1, le=50)
    """The most LLM calls one question may make, retries included."""
    max_output_tokens: int = Field(1024, gt=0)
    temperature: float = Field(0.0, ge=0, le=2)
    cache: bool = True
    """Keep responses in the chat's workspace.sqlite, so a repeated question costs no call."""
    prompt_budget_tokens: int = Field(3000, gt=0)
    """A table whose whole text fits this many tokens is shown to the model whole; larger
    tables are shown as paths, types and sample values."""
    column_max_rows: int = Field(75, ge=1, le=10_000)
    """The most rows the column step sends the model to derive a column from; above it the
    question is refused with a request to narrow it. 75 rows are three batches of 25, which
    with the planning call fit the default `max_calls` of 4."""

    @property
    def enabled(self) -> bool:
        """A model is configured."""
        return bool(self.model)

    @property
    def provider(self) -> str:
        """`openai` for an OpenAI-compatible server, else the part before the first colon."""
        if self.base_url:
            return "openai"
        return (self.model or "").split(":", 1)[0]

    @property
    def model_name(self) -> str:
        """The model's name without the provider (what the server is asked for)."""
        model = self.model or ""
        head, _, rest = model.partition(":")
        if rest and head in KNOWN_PROVIDERS:
            return rest
        return model


KNOWN_PROVIDERS = ("openai", "anthropic", "ollama")
