"""Sort the exceptions a chat model call raises into the few faults a run acts on.

Providers raise their SDK's own types (openai, anthropic, ollama, httpx underneath); recent
LangChain integrations also raise `langchain_core.exceptions.Model*Error`. Each fault decides
what the client does next: a timeout, a server error or a refused connection may pass if the
same request is sent again; a client error will not (but may name a structured-output method
the server lacks). Exceptions that are none of these are bugs and are not caught.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Literal

import httpx
import openai
from langchain_core.exceptions import (
    ModelAPIError,
    ModelConnectionError,
    ModelError,
    ModelTimeoutError,
)

FaultKind = Literal["timeout", "server_error", "connection", "client_error"]

RETRYABLE: frozenset[FaultKind] = frozenset({"timeout", "server_error", "connection"})


@dataclass(frozen=True)
class Fault:
    """What went wrong with one request, and the provider's own words for it."""

    kind: FaultKind
    text: str
    status: int | None = None

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE


def classify(exc: BaseException) -> Fault | None:
    """Return the fault `exc` reports, or None when it is not a model-call fault."""
    for link in _chain(exc):
        kind = _kind(link)
        if kind is not None:
            return Fault(kind, error_text(exc), _status(link))
    return None


def error_text(exc: BaseException) -> str:
    """Return the exception's own message (its type name when it has none)."""
    text = str(exc).strip()
    return text or type(exc).__name__


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and those it was raised from (LangChain wraps SDK errors)."""
    seen: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in seen and len(seen) < 8:
        seen.append(link)
        link = link.__cause__ or link.__context__
    return seen


def _kind(exc: BaseException) -> FaultKind | None:
    # Timeouts first: openai.APITimeoutError is a subclass of APIConnectionError.
    if isinstance(exc, ModelTimeoutError | builtins.TimeoutError | httpx.TimeoutException
                  | openai.APITimeoutError) or "Timeout" in type(exc).__name__:
        return "timeout"
    if isinstance(exc, ModelConnectionError | builtins.ConnectionError | httpx.TransportError
                  | openai.APIConnectionError) or type(exc).__name__ == "APIConnectionError":
        return "connection"
    status = _status(exc)
    if isinstance(exc, ModelAPIError) or (status is not None and status >= 500):
        return "server_error"
    if status is not None and 400 <= status < 500:
        return "client_error"
    if isinstance(exc, ModelError | openai.APIError):
        return "client_error"
    return None


def _status(exc: BaseException) -> int | None:
    """The HTTP status an SDK error carries (openai, anthropic and ollama all name it so)."""
    status = getattr(exc, "status_code", None)
    if status is None:
        status = getattr(getattr(exc, "response", None), "status_code", None)
    return status if isinstance(status, int) else None
