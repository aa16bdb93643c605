"""Call a chat model for structured output, within a run's budget, and record every call.

One `LLMClient` serves one question: it counts the requests the question makes against
`LLMSettings.max_calls` and keeps an `LLMCallRecord` of each call for the trace. The rules a
call follows, and why:

- Structured output is asked for with the best method the model has (`structured.py`). A
  4xx that names the method (`response_format`, `json_schema`, tools) means the server lacks
  it, so the next method is tried, and the method that worked is remembered per server:
  later calls start with it instead of paying for the same rejection again.
- A 5xx, a timeout or a refused connection is the server's trouble, not the request's: the
  same request is sent again after a backoff, at most `max_retries` times, and the method is
  never changed for it (a busy server would otherwise teach us a wrong method).
- A reply that does not parse is retried within the same bound, with the bad reply and the
  validation error shown to the model, which usually fixes its output.
- Every request counts against the budget; after the bound, `LLMFailure` says why in a
  sentence a user can act on, and carries the partial record.

The API key never reaches a record, an exception message or a cache key.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, TypeVar

import openai
from langchain.chat_models import init_chat_model
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import Runnable
from langchain_ollama import ChatOllama
from langchain_openai import ChatOpenAI
from langchain_openai.chat_models.base import BaseChatOpenAI
from pydantic import BaseModel, SecretStr

from agent.events import LLMCallRecord
from agent.llm.cache import CachedReply, ResponseCache, cache_key
from agent.llm.context import estimate_tokens
from agent.llm.faults import Fault, classify, error_text
from agent.llm.settings import MODEL_AT, LLMSettings
from agent.llm.structured import (
    MalformedReply,
    Method,
    bind_method,
    method_order,
    read_reply,
    rejects_method,
    repair_messages,
    schema_json,
)

T = TypeVar("T", bound=BaseModel)

FailureKind = Literal["timeout", "server_error", "connection", "malformed", "client_error",
                      "budget", "not_configured"]

PING_PROMPT = "Reply with the word ok."
PING_MAX_TOKENS = 5
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0

log = logging.getLogger(__name__)


class LLMFailure(Exception):
    """A model call that did not produce its answer; `record` is its trace so far."""

    def __init__(self, kind: FailureKind, message: str, record: LLMCallRecord) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.record = record


def build_chat_model(settings: LLMSettings) -> BaseChatModel:
    """Return the chat model `settings` name, built once per distinct configuration.

    LangChain's own retries are off (`max_retries=0`): `LLMClient` retries, so it can count
    each request against the question's budget and keep the method on a server error.
    """
    return _build(settings.model, settings.base_url, settings.api_key, settings.timeout_s,
                  settings.temperature, settings.max_output_tokens)


@functools.lru_cache(maxsize=16)
def _build(model: str | None, base_url: str | None, api_key: SecretStr | None,
           timeout_s: float, temperature: float, max_output_tokens: int) -> BaseChatModel:
    # SecretStr hashes and compares by its value, so two settings with the same key share a
    # model; the key itself stays wrapped.
    settings = LLMSettings(model=model, base_url=base_url)
    if not model:
        raise ValueError("no model is configured")
    if base_url:
        return ChatOpenAI(
            base_url=base_url, model=settings.model_name,
            api_key=api_key or SecretStr("not-needed"), timeout=timeout_s, max_retries=0,
            temperature=temperature,
            # llama.cpp ignores max_completion_tokens and runs to its context size (STACK.md
            # pitfall 19); max_tokens is what every OpenAI-compatible server honours.
            extra_body={"max_tokens": max_output_tokens},
            # Custom servers get no usage in streams unless asked; vLLM and llama.cpp answer.
            stream_usage=True)
    kwargs: dict[str, Any] = {"temperature": temperature}
    if settings.provider == "ollama":
        client_kwargs: dict[str, Any] = {"timeout": timeout_s}
        if api_key is not None:
            client_kwargs["headers"] = {"Authorization": f"Bearer {api_key.get_secret_value()}"}
        kwargs.update(num_predict=max_output_tokens, client_kwargs=client_kwargs)
    else:
        kwargs.update(timeout=timeout_s, max_retries=0, max_tokens=max_output_tokens)
        if api_key is not None:
            kwargs["api_key"] = api_key
    return init_chat_model(model, **kwargs)


# The method each server was found to support, so a new client (a new question) does not
# pay for the same rejected request again. Keyed by base URL, else provider:model.
_learned_methods: dict[str, Method] = {}
_learned_lock = threading.Lock()


def forget_learned_methods() -> None:
    """Forget which structured-output method each server supports (after a server swap)."""
    with _learned_lock:
        _learned_methods.clear()


class LLMClient:
    """The model calls of one question run: structured output with retries, method fallback,
    an optional response cache, a request budget and a record of each call."""

    def __init__(self, settings: LLMSettings, *, model: BaseChatModel | None = None,
                 cache: ResponseCache | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.records: list[LLMCallRecord] = []
        """Every call made through this client, in order (failed and cached ones too)."""
        self.requests_made = 0
        """Requests sent to the model (retries included, cache hits not)."""
        self._model = model
        self._cache = cache if settings.cache else None
        self._sleep = sleep

    # -- public calls -------------------------------------------------------------------

    def structured(self, messages: Sequence[BaseMessage], schema: type[T], *, purpose: str,
                   on_delta: Callable[[str], None] | None = None) -> tuple[T, LLMCallRecord]:
        """Ask the model for one `schema` object; return it with the call's record.

        With `on_delta`, the reply is streamed and each piece of text or tool arguments is
        passed to it as it arrives (a retried request streams again from its start). The
        record's tokens are the sum over its attempts; a cache hit has 0 attempts and 0
        tokens. Raises LLMFailure when no valid object came back.
        """
        started = time.monotonic()
        sent = list(messages)
        record = LLMCallRecord(purpose=purpose, model=self._model_label(), attempts=0,
                               messages=message_dicts(sent))
        model = self._chat_model(record, started)
        order = method_order(model)
        method = self._learned(order) or order[0]
        spec = schema_json(schema)
        asked = record.messages
        hit = self._cached(method, spec, schema, record, started)
        if hit is not None:
            return hit

        conversation = sent
        retries_left = self.settings.max_retries
        while True:
            try:
                runnable, extra = bind_method(model, method, schema)
            except NotImplementedError as exc:  # e.g. a model with no tool binding
                method = self._next_method(order, method, record, started,
                                           Fault("client_error", error_text(exc)))
                continue
            outgoing = conversation + extra
            record.method = method
            record.messages = message_dicts(outgoing)
            self._spend(record, started)
            try:
                reply = self._send(runnable, outgoing, on_delta)
            except Exception as exc:
                fault = classify(exc)
                if fault is None:
                    raise
                record.error = self._scrub(fault.text)
                if _refuses_method(fault, method):
                    method = self._next_method(order, method, record, started, fault)
                    continue
                if fault.retryable and retries_left > 0:
                    self._back_off(self.settings.max_retries - retries_left)
                    retries_left -= 1
                    continue
                raise self._failure(fault.kind, record, started, fault) from exc
            _add_usage(record, reply, outgoing)
            try:
                parsed, text = read_reply(reply, schema)
            except MalformedReply as bad:
                record.response = bad.text
                record.error = bad.reason
                if retries_left > 0:
                    retries_left -= 1
                    conversation = sent + repair_messages(bad.text, bad.reason)
                    continue
                raise self._failure("malformed", record, started) from bad
            record.response = text
            record.error = None
            record.latency_ms = _ms_since(started)
            self._learn(method)
            self._store(method, spec, asked, record)
            self.records.append(record)
            return parsed, record

    def ping(self) -> str:
        """Send one tiny request; return the model's name as the server reports it.

        One request and no retries: the Settings panel's "test connection" wants the
        server's own answer at once. Raises LLMFailure with the provider's error text.
        """
        started = time.monotonic()
        messages: list[BaseMessage] = [HumanMessage(PING_PROMPT)]
        record = LLMCallRecord(purpose="test connection", model=self._model_label(),
                               attempts=0, messages=message_dicts(messages))
        model = self._chat_model(record, started)
        self._spend(record, started)
        try:
            reply = _few_tokens(model, self.settings).invoke(messages)
        except Exception as exc:
            fault = classify(exc)
            if fault is None:
                raise
            record.error = self._scrub(fault.text)
            raise self._failure(fault.kind, record, started, fault) from exc
        _add_usage(record, reply, messages)
        record.response = reply.text
        record.latency_ms = _ms_since(started)
        self.records.append(record)
        metadata = reply.response_metadata or {}
        name = metadata.get("model_name") or metadata.get("model")
        return str(name) if name else self.settings.model_name

    # -- one request ----------------------------------------------------------------------

    def _send(self, runnable: Runnable[Sequence[BaseMessage], BaseMessage],
              messages: list[BaseMessage], on_delta: Callable[[str], None] | None
              ) -> BaseMessage:
        try:
            if on_delta is None:
                return runnable.invoke(messages)
            total: AIMessageChunk | None = None
            whole: BaseMessage | None = None
            for chunk in runnable.stream(messages):
                if not isinstance(chunk, AIMessageChunk):
                    # A model that cannot stream hands over its whole reply as one message.
                    whole = chunk if isinstance(chunk, AIMessage) else whole
                    continue
                for delta in _deltas(chunk):
                    on_delta(delta)
                total = chunk if total is None else total + chunk
            if total is None and whole is not None:
                on_delta(whole.text or "")
            return total if total is not None else whole or AIMessage(content="")
        except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
            # OpenAI's structured-output helper raises on a cut-off reply; it is still a
            # reply (with a cost), which the repair path can show the model.
            return _completion_message(exc.completion)

    def _spend(self, record: LLMCallRecord, started: float) -> None:
        """Count one request, or fail with `budget` when the question has none left."""
        if self.requests_made >= self.settings.max_calls:
            raise self._failure("budget", record, started)
        self.requests_made += 1
        record.attempts += 1

    def _back_off(self, retry: int) -> None:
        self._sleep(min(BACKOFF_BASE_S * 2 ** retry, BACKOFF_CAP_S))

    # -- methods, models, cache -------------------------------------------------------------

    def _method_key(self) -> str:
        return self.settings.base_url or self.settings.model or type(self._model).__name__

    def _learned(self, order: tuple[Method, ...]) -> Method | None:
        with _learned_lock:
            method = _learned_methods.get(self._method_key())
        return method if method in order else None

    def _learn(self, method: Method) -> None:
        with _learned_lock:
            _learned_methods[self._method_key()] = method

    def _next_method(self, order: tuple[Method, ...], method: Method, record: LLMCallRecord,
                     started: float, rejection: Fault) -> Method:
        """Return the method after `method`, remembered for this server; fail when the
        server rejected the last one too."""
        position = order.index(method)
        if position + 1 >= len(order):
            record.error = self._scrub(rejection.text)
            raise self._failure("client_error", record, started, rejection)
        following = order[position + 1]
        self._learn(following)
        return following

    def _chat_model(self, record: LLMCallRecord, started: float) -> BaseChatModel:
        if self._model is not None:
            return self._model
        if not self.settings.enabled:
            record.error = "no model is configured"
            raise self._failure("not_configured", record, started)
        try:
            self._model = build_chat_model(self.settings)
        # An unknown provider, its package missing, or no API key in the environment.
        except (ImportError, ValueError, openai.OpenAIError) as exc:
            record.error = self._scrub(error_text(exc))
            raise self._failure("not_configured", record, started) from exc
        return self._model

    def _cache_key(self, method: Method, spec: dict[str, Any],
                   messages: list[dict[str, str]]) -> str:
        return cache_key(model=self._model_label(), base_url=self.settings.base_url,
                         method=method, schema=spec, messages=messages,
                         temperature=self.settings.temperature,
                         max_output_tokens=self.settings.max_output_tokens)

    def _cached(self, method: Method, spec: dict[str, Any], schema: type[T],
                record: LLMCallRecord, started: float) -> tuple[T, LLMCallRecord] | None:
        """Return the stored answer to this exact request, when there is a usable one."""
        if self._cache is None:
            return None
        stored = self._cache.get(self._cache_key(method, spec, record.messages))
        if stored is None:
            return None
        try:
            parsed, text = read_reply(AIMessage(content=stored.response), schema)
        except MalformedReply:
            return None  # a damaged or outdated entry: ask again, and overwrite it
        record.response = text
        record.method = stored.method
        record.cached = True
        record.latency_ms = _ms_since(started)
        self.records.append(record)
        return parsed, record

    def _store(self, method: Method, spec: dict[str, Any], messages: list[dict[str, str]],
               record: LLMCallRecord) -> None:
        """Keep an answer under the method that produced it, which later calls start with
        (`messages` are the caller's, before any repair or instruction was added)."""
        if self._cache is None:
            return
        try:
            self._cache.put(self._cache_key(method, spec, messages), self._model_label(),
                            CachedReply(record.response, method, record.prompt_tokens,
                                        record.completion_tokens))
        except sqlite3.Error as exc:  # the answer stands; only the saving is lost
            log.warning("LLM response cache write failed: %s", exc)

    # -- words ----------------------------------------------------------------------------

    def _model_label(self) -> str:
        return self.settings.model or (type(self._model).__name__ if self._model else "")

    def _where(self) -> str:
        if self.settings.base_url:
            return f"{MODEL_AT}{self.settings.base_url}"
        return f"The model {self._model_label()}" if self._model_label() else "The model"

    def _failure(self, kind: FailureKind, record: LLMCallRecord, started: float,
                 fault: Fault | None = None) -> LLMFailure:
        """Finish the record, keep it, and return the exception to raise."""
        record.latency_ms = _ms_since(started)
        message = self._message(kind, record, fault)
        if kind == "budget":
            last = f" after: {record.error}" if record.error else ""
            record.error = f"out of model calls{last}"
        self.records.append(record)
        return LLMFailure(kind, message, record)

    def _message(self, kind: FailureKind, record: LLMCallRecord, fault: Fault | None) -> str:
        """Say what failed in a sentence a user can act on (record.error is already scrubbed
        of the API key)."""
        where, n = self._where(), record.attempts
        tries = f"{n} attempt{'s' if n != 1 else ''}"
        detail = record.error or ""
        if kind == "timeout":
            return (f"{where} did not answer within {self.settings.timeout_s:g} s ({tries}). "
                    "It may be overloaded or too slow: raise the timeout or try a smaller "
                    "model.")
        if kind == "connection":
            return (f"{where} could not be reached ({tries}): {detail} Check that the "
                    "server is running and the address is right.")
        if kind == "server_error":
            code = f" {fault.status}" if fault and fault.status else ""
            return f"{where} failed with a server error{code} ({tries}): {detail}"
        if kind == "malformed":
            return (f"{where} did not reply in the required form ({tries}): {detail}. "
                    "A larger or instruction-tuned model may do better.")
        if kind == "client_error":
            code = f" ({fault.status})" if fault and fault.status else ""
            return f"{where} rejected the request{code}: {detail}"
        if kind == "budget":
            spent = (f"This question used all {self.settings.max_calls} model calls it may "
                     "make (TABLELENS_LLM_MAX_CALLS)")
            if detail:
                return f"{spent}; the last one failed: {detail}"
            return f"{spent}, so no further call was sent."
        return (f"No model could be set up: {detail}. Choose a model in Settings, or set "
                "TABLELENS_LLM (and TABLELENS_LLM_BASE_URL for a local server).")

    def _scrub(self, text: str) -> str:
        """Remove the API key from a provider's error text (some echo part of it)."""
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else ""
        return text.replace(key, "[api key]") if key else text


def message_dicts(messages: Sequence[BaseMessage]) -> list[dict[str, str]]:
    """Return messages as `{"role", "content"}` dicts, as the trace shows them."""
    return [{"role": _role(message), "content": message.text} for message in messages]


def _role(message: BaseMessage) -> str:
    if isinstance(message, SystemMessage):
        return "system"
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, ToolMessage):
        return "tool"
    return message.type


def _refuses_method(fault: Fault, method: Method) -> bool:
    """Whether the server said it does not take this way of asking for structured output.

    A 4xx naming the method says so. So does a 5xx that is a validation error about
    `response_format` sent with json_schema: llama.cpp's server reports its request validation
    as a 500 (STACK.md pitfall 20), and retrying it would fail the same way every time. Any
    other 5xx is treated as transient: retried, never a reason to switch.
    """
    if fault.kind == "client_error":
        return rejects_method(method, fault.text)
    return (fault.kind == "server_error" and method == "json_schema"
            and "response_format" in fault.text.lower() and "validation" in fault.text.lower())


def _deltas(chunk: AIMessageChunk) -> Iterator[str]:
    """The text and tool-argument pieces one streamed chunk carries, in order."""
    if chunk.text:
        yield chunk.text
    for call in chunk.tool_call_chunks:
        if call.get("args"):
            yield call["args"]


def _completion_message(completion: Any) -> AIMessage:
    """The message of an OpenAI completion the SDK refused to hand over (cut off)."""
    choice = completion.choices[0] if completion.choices else None
    usage = completion.usage
    tokens = ({"input_tokens": usage.prompt_tokens, "output_tokens": usage.completion_tokens,
               "total_tokens": usage.total_tokens} if usage else None)
    return AIMessage(content=(choice.message.content or "") if choice else "",
                     usage_metadata=tokens,
                     response_metadata={"finish_reason": choice.finish_reason if choice
                                        else None})


def _add_usage(record: LLMCallRecord, reply: BaseMessage,
               sent: Sequence[BaseMessage] = ()) -> None:
    """Add a reply's token counts as the provider reports them. A server that reports none
    (llama.cpp's, when streaming) gets the estimate the prompt budget uses, characters / 4,
    and the record says the counts are estimated."""
    usage = getattr(reply, "usage_metadata", None) or {}
    if usage.get("input_tokens") or usage.get("output_tokens"):
        record.prompt_tokens += int(usage.get("input_tokens") or 0)
        record.completion_tokens += int(usage.get("output_tokens") or 0)
        return
    record.tokens_estimated = True
    record.prompt_tokens += estimate_tokens("\n".join(str(m.content) for m in sent))
    text = reply.text or json.dumps([c.get("args") for c in getattr(reply, "tool_calls", [])])
    record.completion_tokens += estimate_tokens(text)


def _few_tokens(model: BaseChatModel, settings: LLMSettings
                ) -> Runnable[Sequence[BaseMessage], BaseMessage]:
    """The model limited to a handful of output tokens, in its provider's own terms (a
    local server's in the body, as `build_chat_model` sends it)."""
    if isinstance(model, BaseChatOpenAI):
        if settings.base_url:
            return model.bind(extra_body={"max_tokens": PING_MAX_TOKENS})
        return model.bind(max_tokens=PING_MAX_TOKENS)
    if isinstance(model, ChatOllama):
        return model.bind(num_predict=PING_MAX_TOKENS)
    if type(model).__name__ == "ChatAnthropic":
        return model.bind(max_tokens=PING_MAX_TOKENS)
    return model


def _ms_since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
