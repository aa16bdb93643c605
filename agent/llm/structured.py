"""How each kind of chat model is asked for structured output, and how its reply is read.

Three methods, tried in the order a model supports them best: `json_schema` (the provider's
own constrained decoding: OpenAI's `response_format`, Ollama's `format`), `function_calling`
(one forced tool whose parameters are the schema; every tool-capable model has it) and
`json_mode` (the schema in the prompt, plus the provider's "JSON only" switch where it has
one). A reply is read the same way whatever was asked: a tool call's arguments, else JSON in
the text (fenced or not), validated by pydantic. Nothing a model writes is evaluated as code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langchain_ollama import ChatOllama
from langchain_openai.chat_models.base import BaseChatOpenAI
from pydantic import BaseModel, ValidationError

Method = Literal["json_schema", "function_calling", "json_mode"]
T = TypeVar("T", bound=BaseModel)

JSON_MODE_INSTRUCTION = (
    "Reply with only a JSON object, no other text, that matches this JSON schema:\n{schema}"
)
REPAIR_INSTRUCTION = (
    "That reply does not match the required schema ({error}). Reply again with only the "
    "JSON object the schema asks for, and nothing else."
)

# Words a provider's 4xx uses when it rejects a method itself (rather than the request), so
# the next method may succeed where retrying the same one cannot.
_REJECTION_WORDS: dict[Method, tuple[str, ...]] = {
    "json_schema": ("response_format", "json_schema", "output_config", "structured output"),
    "function_calling": ("tool", "function"),
    "json_mode": (),
}


class MalformedReply(Exception):
    """The reply holds no object of the schema; `text` is the reply as the model wrote it."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(reason)
        self.text = text
        self.reason = reason


def method_order(model: BaseChatModel) -> tuple[Method, ...]:
    """Return the methods to try for this model, best first.

    OpenAI-compatible servers and Ollama constrain decoding to a JSON schema natively. Other
    models (Anthropic, test fakes) get forced tool use first, which is what LangChain itself
    defaults to for them and which works on every Claude model.
    """
    if isinstance(model, BaseChatOpenAI | ChatOllama):
        return ("json_schema", "function_calling", "json_mode")
    return ("function_calling", "json_mode")


def rejects_method(method: Method, error_text: str) -> bool:
    """Tell whether a client error's text says the server does not support `method`."""
    text = error_text.lower()
    return any(word in text for word in _REJECTION_WORDS[method])


def schema_json(schema: type[BaseModel]) -> dict[str, Any]:
    """Return the JSON schema pydantic derives for `schema`."""
    return schema.model_json_schema()


def bind_method(model: BaseChatModel, method: Method, schema: type[BaseModel]
                ) -> tuple[Runnable[Sequence[BaseMessage], BaseMessage], list[BaseMessage]]:
    """Return the model set up for `method`, and the messages to append to the request.

    Raises NotImplementedError when the model cannot do `method` at all (no tool binding).
    """
    spec = schema_json(schema)
    name = schema.__name__
    if method == "json_schema":
        if isinstance(model, BaseChatOpenAI):
            # A dict, not the class: ChatOpenAI would otherwise parse the reply itself and
            # raise on a bad one before we could record it and ask for a repair.
            json_schema: dict[str, Any] = {"name": name, "schema": spec}
            if schema.__doc__:
                json_schema["description"] = schema.__doc__.strip()
            return model.bind(response_format={"type": "json_schema",
                                               "json_schema": json_schema}), []
        if isinstance(model, ChatOllama):
            return model.bind(format=spec), []
        raise NotImplementedError(f"{type(model).__name__} has no native JSON-schema output")
    if method == "function_calling":
        if isinstance(model, BaseChatOpenAI):
            # As LangChain's own with_structured_output: one forced tool, no parallel calls
            # (llama-cpp-python's server accepts exactly this, STACK.md pitfall 20).
            return model.bind_tools([schema], tool_choice=name, parallel_tool_calls=False), []
        return model.bind_tools([schema], tool_choice=name), []
    instruction = HumanMessage(JSON_MODE_INSTRUCTION.format(
        schema=json.dumps(spec, ensure_ascii=False)))
    if isinstance(model, BaseChatOpenAI):
        return model.bind(response_format={"type": "json_object"}), [instruction]
    if isinstance(model, ChatOllama):
        return model.bind(format="json"), [instruction]
    return model, [instruction]


def read_reply(reply: BaseMessage, schema: type[T]) -> tuple[T, str]:
    """Return the schema object a reply holds, and the reply as text (a tool call's
    arguments as JSON). Raises MalformedReply when there is none."""
    try:
        return _read(reply, schema)
    except MalformedReply as bad:
        stop = cut_off(reply)
        if stop:
            raise MalformedReply(bad.text, f"the reply was cut off ({stop}): {bad.reason}"
                                 ) from bad
        raise


def cut_off(reply: BaseMessage) -> str | None:
    """Return why the model stopped early (its output token limit, a content filter), as
    the provider says it: OpenAI's finish_reason, Anthropic's stop_reason, Ollama's
    done_reason."""
    metadata = reply.response_metadata or {}
    for field in ("finish_reason", "stop_reason", "done_reason"):
        value = metadata.get(field)
        if value in ("length", "max_tokens", "content_filter"):
            return f"{field}={value}"
    return None


def _read(reply: BaseMessage, schema: type[T]) -> tuple[T, str]:
    if isinstance(reply, AIMessage) and reply.tool_calls:
        args = reply.tool_calls[0]["args"]
        text = json.dumps(args, ensure_ascii=False)
        try:
            return schema.model_validate(args), text
        except ValidationError as exc:
            raise MalformedReply(text, brief_error(exc)) from exc
    if isinstance(reply, AIMessage) and reply.invalid_tool_calls:
        bad = reply.invalid_tool_calls[0]
        text = bad.get("args") or ""
        raise MalformedReply(text, f"the tool arguments are not JSON: {bad.get('error')}")
    text = reply.text
    refusal = reply.additional_kwargs.get("refusal") if isinstance(reply, AIMessage) else None
    if refusal and not text:
        raise MalformedReply(str(refusal), "the model refused")
    candidate = json_candidate(text)
    if candidate is None:
        raise MalformedReply(text, "no JSON object in the reply")
    try:
        return schema.model_validate_json(candidate), text
    except ValidationError as exc:
        raise MalformedReply(text, brief_error(exc)) from exc


_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def json_candidate(text: str) -> str | None:
    """Return the JSON object a text reply most likely holds: a fenced block's body, else the
    span from the first `{` to the last `}`; None when there is no brace at all."""
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start, end = body.find("{"), body.rfind("}")
    if start < 0 or end < start:
        return None
    return body[start:end + 1]


def brief_error(exc: ValidationError) -> str:
    """Summarise a validation error in one short line, for the model and the trace."""
    parts = []
    for error in exc.errors()[:3]:
        where = ".".join(str(p) for p in error["loc"]) or "the reply"
        parts.append(f"{where}: {error['msg']}")
    more = exc.error_count() - len(parts)
    if more > 0:
        parts.append(f"{more} more")
    return "; ".join(parts)[:300]


def repair_messages(reply_text: str, reason: str) -> list[BaseMessage]:
    """Return the messages that show the model its bad reply and ask for the schema only."""
    return [AIMessage(content=reply_text),
            HumanMessage(REPAIR_INSTRUCTION.format(error=reason))]
