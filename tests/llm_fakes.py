"""Scripted LangChain chat models for tests: the only faked part of LLM mode.

`ScriptedChatModel` replies with the given messages in order and records every request it
got, so a test can assert what left the machine and how many calls a question made. A reply
may be an exception, which the call raises (a timeout, a server error).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import PrivateAttr


class ScriptedChatModel(GenericFakeChatModel):
    """Replies from a script; `requests` holds each list of messages it was sent."""

    _requests: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @classmethod
    def replying(cls, replies: Sequence[AIMessage | str | Exception]) -> ScriptedChatModel:
        return cls(messages=iter(list(replies)))

    @property
    def requests(self) -> list[list[BaseMessage]]:
        return self._requests

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        # GenericFakeChatModel has no tool binding (STACK.md pitfall 11); the script already
        # holds the tool calls it will answer with.
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        self._requests.append(list(messages))
        reply = next(self.messages)
        if isinstance(reply, Exception):
            raise reply
        return _result(reply)


    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None,
                **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        # Streamed as a server streams: the text word by word, then the tool calls' arguments
        # and the usage in a last chunk (GenericFakeChatModel streams no tool calls).
        message = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        text = str(message.content)
        for word in re.findall(r"\S+\s*", text):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))
        yield ChatGenerationChunk(message=AIMessageChunk(
            content="", usage_metadata=message.usage_metadata,
            tool_call_chunks=[{"name": call["name"], "args": json.dumps(call["args"]),
                               "id": call["id"], "index": i}
                              for i, call in enumerate(message.tool_calls)]))


def _result(reply: AIMessage | str) -> ChatResult:
    message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
    return ChatResult(generations=[ChatGeneration(message=message)])


def tool_reply(name: str, args: dict[str, Any], prompt_tokens: int = 100,
               completion_tokens: int = 20) -> AIMessage:
    """A reply that calls the tool `name` (how function-calling structured output answers),
    with token usage as providers report it."""
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": "call_1"}],
                     usage_metadata={"input_tokens": prompt_tokens,
                                     "output_tokens": completion_tokens,
                                     "total_tokens": prompt_tokens + completion_tokens})


def json_reply(payload: dict[str, Any], prompt_tokens: int = 100,
               completion_tokens: int = 20) -> AIMessage:
    """A reply whose text is JSON (how JSON mode answers)."""
    return AIMessage(content=json.dumps(payload),
                     usage_metadata={"input_tokens": prompt_tokens,
                                     "output_tokens": completion_tokens,
                                     "total_tokens": prompt_tokens + completion_tokens})
