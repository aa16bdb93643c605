"""The model-calling layer through the real ChatOpenAI client against a scripted local
server (tests/openai_stub.py), and through the scripted LangChain fake; only the model is
faked. Backoff sleeps are recorded, not slept."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, SecretStr

from agent.llm.cache import TABLE, ResponseCache
from agent.llm.client import (
    LLMClient,
    LLMFailure,
    build_chat_model,
    forget_learned_methods,
)
from agent.llm.settings import LLMSettings
from agent.llm.structured import REPAIR_INSTRUCTION, method_order
from storage.workspace import Workspace
from tests.llm_fakes import ScriptedChatModel, json_reply, tool_reply
from tests.openai_stub import (
    SERVER_MODEL,
    OpenAIStub,
    answer,
    openai_stub_fixture,  # noqa: F401 - provides the `openai_stub` fixture
    split,
    stall,
    status,
    text,
)

API_KEY = "sk-test-7f3a9c1e-never-on-disk"


class Plan(BaseModel):
    """How to answer a question."""

    answer: str
    count: int


PLAN = {"answer": "total revenue", "count": 3}
MESSAGES = [SystemMessage("You plan answers over tables."), HumanMessage("What is the total?")]


@pytest.fixture(autouse=True)
def _fresh_method_memory():
    forget_learned_methods()
    yield
    forget_learned_methods()


class Sleeps(list[float]):
    """An injectable sleep that only records how long it was asked to wait."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def settings_for(stub: OpenAIStub | str, **overrides) -> LLMSettings:
    base_url = stub if isinstance(stub, str) else stub.base_url
    return LLMSettings(model="stub-model", base_url=base_url, **overrides)


def client_for(settings: LLMSettings, **kwargs) -> tuple[LLMClient, Sleeps]:
    sleeps = Sleeps()
    return LLMClient(settings, sleep=sleeps, **kwargs), sleeps


# -- the real ChatOpenAI path ----------------------------------------------------------------

def test_build_chat_model_reaches_the_server_with_max_tokens():
    settings = LLMSettings(model="stub-model", base_url="http://127.0.0.1:9/v1",
                           max_output_tokens=77, timeout_s=3)
    model = build_chat_model(settings)
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "stub-model"
    assert model.max_retries == 0
    assert model.extra_body == {"max_tokens": 77}
    assert build_chat_model(settings.model_copy()) is model  # built once per configuration
    keyed = settings.model_copy(update={"api_key": SecretStr("k1")})
    assert build_chat_model(keyed) is not model
    assert build_chat_model(keyed.model_copy(update={"api_key": SecretStr("k1")})) is \
        build_chat_model(keyed)


def test_build_chat_model_through_init_chat_model():
    anthropic = build_chat_model(LLMSettings(model="anthropic:claude-test", api_key="k",
                                             max_output_tokens=99, timeout_s=7))
    assert type(anthropic).__name__ == "ChatAnthropic"
    assert (anthropic.model, anthropic.max_tokens, anthropic.max_retries) == \
        ("claude-test", 99, 0)
    assert anthropic.default_request_timeout == 7
    assert method_order(anthropic) == ("function_calling", "json_mode")

    ollama = build_chat_model(LLMSettings(model="ollama:qwen2.5:7b", max_output_tokens=50))
    assert type(ollama).__name__ == "ChatOllama"
    assert (ollama.model, ollama.num_predict) == ("qwen2.5:7b", 50)
    assert method_order(ollama)[0] == "json_schema"


def test_streamed_reply_passes_deltas_in_order_and_counts_tokens(openai_stub):
    openai_stub.reply(answer(PLAN, pieces=4, prompt_tokens=61, completion_tokens=17))
    client, _ = client_for(settings_for(openai_stub, max_output_tokens=300))
    deltas: list[str] = []

    plan, record = client.structured(MESSAGES, Plan, purpose="plan the question",
                                     on_delta=deltas.append)

    assert plan == Plan(**PLAN)
    assert deltas == split(json.dumps(PLAN), 4)
    assert (record.prompt_tokens, record.completion_tokens) == (61, 17)
    assert record.method == "json_schema" and record.attempts == 1 and not record.cached
    assert record.messages == [
        {"role": "system", "content": "You plan answers over tables."},
        {"role": "user", "content": "What is the total?"}]
    assert json.loads(record.response) == PLAN
    body = openai_stub.requests[0]
    assert body["stream"] is True
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == Plan.model_json_schema()
    assert body["max_tokens"] == 300 and "max_completion_tokens" not in body
    assert client.records == [record] and client.requests_made == 1


def test_streamed_tool_call_arguments_reach_on_delta(openai_stub):
    openai_stub.reply(status(400, "response_format is not supported by this server"),
                      answer(PLAN, pieces=3))
    client, _ = client_for(settings_for(openai_stub))
    deltas: list[str] = []

    plan, record = client.structured(MESSAGES, Plan, purpose="plan", on_delta=deltas.append)

    assert plan == Plan(**PLAN)
    assert "".join(deltas) == json.dumps(PLAN) and len(deltas) == 3
    assert record.method == "function_calling" and record.attempts == 2


def test_server_error_retries_the_same_request(openai_stub):
    openai_stub.reply(status(500, "upstream exploded"), answer(PLAN))
    client, sleeps = client_for(settings_for(openai_stub))

    plan, record = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN)
    assert len(openai_stub.requests) == 2 and client.requests_made == 2
    first, second = openai_stub.requests
    assert first == second and "response_format" in first and "tools" not in first
    assert record.attempts == 2 and record.method == "json_schema" and record.error is None
    assert sleeps == [0.5]


def test_stall_past_the_timeout_retries_then_fails_with_the_partial_record(openai_stub):
    openai_stub.reply(stall(), stall(), stall())
    client, sleeps = client_for(settings_for(openai_stub, timeout_s=0.5, max_retries=2))

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")

    failure = caught.value
    assert failure.kind == "timeout"
    assert str(failure).startswith(
        f"The model at {openai_stub.base_url} did not answer within 0.5 s (3 attempts)")
    assert failure.record.attempts == 3 and failure.record.error
    assert failure.record.messages[1]["content"] == "What is the total?"
    assert client.records == [failure.record]
    assert len(openai_stub.requests) == 3 and sleeps == [0.5, 1.0]
    assert all("response_format" in body for body in openai_stub.requests)


def test_a_400_naming_json_schema_switches_to_function_calling_and_is_remembered(openai_stub):
    openai_stub.reply(
        status(400, "'response_format' of type 'json_schema' is not supported"),
        answer(PLAN))
    client, sleeps = client_for(settings_for(openai_stub))

    plan, record = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN) and record.method == "function_calling"
    first, second = openai_stub.requests
    assert "response_format" in first and "tools" not in first
    assert "tools" in second and "response_format" not in second
    assert second["tools"][0]["function"]["name"] == "Plan"
    assert sleeps == []  # a method switch is not a retry

    openai_stub.reply(answer(PLAN))
    later, _ = client_for(settings_for(openai_stub))
    later.structured(MESSAGES, Plan, purpose="plan again")
    assert len(openai_stub.requests) == 3
    assert "tools" in openai_stub.requests[2]
    assert "response_format" not in openai_stub.requests[2]


def test_a_500_that_is_a_validation_error_about_response_format_switches_method(openai_stub):
    # llama.cpp's server answers json_schema with a 500 holding its request validation error
    # (STACK.md pitfall 20): retrying it would fail the same way, so it counts as a refusal.
    openai_stub.reply(
        status(500, "1 validation error: ('body', 'response_format', 'type') Input should be "
                    "'text' or 'json_object'"),
        answer(PLAN))
    client, sleeps = client_for(settings_for(openai_stub))

    plan, record = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN) and record.method == "function_calling"
    assert "tools" in openai_stub.requests[1] and sleeps == []


def test_a_400_on_the_last_method_is_a_client_error(openai_stub):
    openai_stub.reply(status(400, "json_schema unsupported"),
                      status(400, "tools are not supported"),
                      status(400, "response_format json_object unsupported"))
    client, _ = client_for(settings_for(openai_stub))

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")

    assert caught.value.kind == "client_error"
    assert "json_object unsupported" in str(caught.value)
    bodies = openai_stub.requests
    assert bodies[2]["response_format"] == {"type": "json_object"}
    assert "JSON schema" in bodies[2]["messages"][-1]["content"]  # json_mode's instruction


def test_a_400_about_something_else_fails_at_once(openai_stub):
    openai_stub.reply(status(404, "model 'stub-model' not found"))
    client, _ = client_for(settings_for(openai_stub))

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")

    assert caught.value.kind == "client_error"
    assert "model 'stub-model' not found" in str(caught.value)
    assert len(openai_stub.requests) == 1


def test_garbage_is_repaired_with_the_validation_error_shown(openai_stub):
    openai_stub.reply(text("The answer is probably 42."), answer(PLAN))
    client, _ = client_for(settings_for(openai_stub))

    plan, record = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN) and record.attempts == 2
    repair = openai_stub.requests[1]["messages"]
    assert repair[:2] == openai_stub.requests[0]["messages"]
    assert repair[2] == {"role": "assistant", "content": "The answer is probably 42."}
    assert repair[3]["role"] == "user"
    assert repair[3]["content"].startswith(REPAIR_INSTRUCTION.split("(")[0])
    assert record.messages[2]["content"] == "The answer is probably 42."


def test_output_that_stays_wrong_fails_as_malformed(openai_stub):
    openai_stub.reply(text("no idea"), text('{"answer": "x"}'), text('{"count": "many"}'))
    client, sleeps = client_for(settings_for(openai_stub, max_retries=2))

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")

    failure = caught.value
    assert failure.kind == "malformed"
    assert "(3 attempts)" in str(failure)
    assert failure.record.response == '{"count": "many"}'
    assert "count" in failure.record.error and "answer" in failure.record.error
    assert len(openai_stub.requests) == 3 and sleeps == []
    # the wrong fields were named to the model before the last attempt
    assert "count: Field required" in openai_stub.requests[2]["messages"][-1]["content"]


@pytest.mark.parametrize("streamed", [False, True])
def test_a_reply_cut_off_at_the_token_limit_is_repaired(openai_stub, streamed):
    cut = json.dumps(PLAN)[:12]
    openai_stub.reply(text(cut, finish="length", completion_tokens=8), answer(PLAN))
    client, _ = client_for(settings_for(openai_stub))

    plan, record = client.structured(MESSAGES, Plan, purpose="plan",
                                     on_delta=(lambda _: None) if streamed else None)

    assert plan == Plan(**PLAN) and record.attempts == 2
    repair = openai_stub.requests[1]["messages"]
    assert repair[2] == {"role": "assistant", "content": cut}
    assert "cut off (finish_reason=length)" in repair[3]["content"]
    assert record.completion_tokens == 18  # the cut-off reply cost tokens too


def test_refused_connection_fails_as_connection():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    client, sleeps = client_for(settings_for(url, timeout_s=5, max_retries=1))

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")

    assert caught.value.kind == "connection"
    assert str(caught.value).startswith(f"The model at {url} could not be reached (2 attempts)")
    assert client.requests_made == 2 and sleeps == [0.5]


def test_budget_stops_calls_without_a_request(openai_stub):
    openai_stub.reply(answer(PLAN), answer(PLAN), answer(PLAN))
    client, _ = client_for(settings_for(openai_stub, max_calls=2))
    client.structured(MESSAGES, Plan, purpose="one")
    client.structured(MESSAGES, Plan, purpose="two")

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="three")

    assert caught.value.kind == "budget"
    assert "all 2 model calls" in str(caught.value)
    assert len(openai_stub.requests) == 2 and client.requests_made == 2
    assert [r.purpose for r in client.records] == ["one", "two", "three"]
    assert client.records[2].attempts == 0


def test_budget_also_bounds_retries(openai_stub):
    openai_stub.reply(status(503, "busy"), status(503, "busy"), answer(PLAN))
    client, _ = client_for(settings_for(openai_stub, max_calls=2, max_retries=5))

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")

    assert caught.value.kind == "budget"
    assert "busy" in str(caught.value)
    assert caught.value.record.attempts == 2 and len(openai_stub.requests) == 2


def test_cache_answers_a_repeated_call_without_a_request(openai_stub, tmp_path: Path):
    openai_stub.reply(answer(PLAN, prompt_tokens=70, completion_tokens=9))
    workspace = Workspace(tmp_path / "chat")
    settings = settings_for(openai_stub, api_key=SecretStr(API_KEY))
    first, _ = client_for(settings, cache=ResponseCache(workspace.db))
    plan, record = first.structured(MESSAGES, Plan, purpose="plan")
    assert not record.cached and record.prompt_tokens == 70

    again, _ = client_for(settings, cache=ResponseCache(workspace.db))
    cached_plan, cached = again.structured(MESSAGES, Plan, purpose="plan")

    assert cached_plan == plan
    assert cached.cached and again.requests_made == 0 and cached.attempts == 0
    assert (cached.prompt_tokens, cached.completion_tokens) == (0, 0)
    assert len(openai_stub.requests) == 1
    workspace.close()
    stored = b"".join(p.read_bytes() for p in (tmp_path / "chat").glob("workspace.sqlite*"))
    assert b"total revenue" in stored  # the reply is there...
    assert API_KEY.encode() not in stored  # ...the key is not
    assert API_KEY not in record.model_dump_json() + cached.model_dump_json()


def test_cache_off_or_different_messages_make_requests(openai_stub, tmp_path: Path):
    openai_stub.reply(answer(PLAN), answer(PLAN), answer(PLAN))
    cache = ResponseCache(Workspace(tmp_path / "chat").db)
    LLMClient(settings_for(openai_stub), cache=cache).structured(MESSAGES, Plan, purpose="a")
    other = [*MESSAGES[:1], HumanMessage("And the average?")]
    LLMClient(settings_for(openai_stub), cache=cache).structured(other, Plan, purpose="b")
    off = LLMClient(settings_for(openai_stub, cache=False), cache=cache)
    off.structured(MESSAGES, Plan, purpose="c")
    assert len(openai_stub.requests) == 3 and off.requests_made == 1


def test_a_corrupt_cache_entry_is_ignored_and_replaced(openai_stub, tmp_path: Path):
    openai_stub.reply(answer(PLAN), answer(PLAN))
    workspace = Workspace(tmp_path / "chat")
    cache = ResponseCache(workspace.db)
    LLMClient(settings_for(openai_stub), cache=cache).structured(MESSAGES, Plan, purpose="a")
    with workspace.db.conn:
        workspace.db.conn.execute(f"UPDATE {TABLE} SET response = 'not json', "
                                  "prompt_tokens = 'x'")

    client = LLMClient(settings_for(openai_stub), cache=cache)
    plan, record = client.structured(MESSAGES, Plan, purpose="b")

    assert plan == Plan(**PLAN) and not record.cached and client.requests_made == 1
    (response,), = workspace.db.conn.execute(f"SELECT response FROM {TABLE}").fetchall()
    assert json.loads(response) == PLAN


def test_the_api_key_never_reaches_an_error_message(openai_stub):
    openai_stub.reply(status(401, f"Incorrect API key provided: {API_KEY}."))
    client, _ = client_for(settings_for(openai_stub, api_key=SecretStr(API_KEY)))

    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")

    assert caught.value.kind == "client_error"
    assert API_KEY not in str(caught.value)
    assert API_KEY not in caught.value.record.model_dump_json()
    assert "Incorrect API key provided" in str(caught.value)


def test_ping_returns_the_name_the_server_reports(openai_stub):
    openai_stub.reply(text("ok"))
    client, _ = client_for(settings_for(openai_stub))

    assert client.ping() == SERVER_MODEL
    body = openai_stub.requests[0]
    assert body["model"] == "stub-model" and body["max_tokens"] == 5
    assert client.records[0].purpose == "test connection"
    assert client.records[0].response == "ok"


def test_ping_failure_carries_the_servers_words(openai_stub):
    openai_stub.reply(status(401, "Invalid API key for this server"))
    client, _ = client_for(settings_for(openai_stub))

    with pytest.raises(LLMFailure) as caught:
        client.ping()

    assert caught.value.kind == "client_error"
    assert "Invalid API key for this server" in str(caught.value)
    assert len(openai_stub.requests) == 1


def test_no_model_configured():
    client = LLMClient(LLMSettings())
    with pytest.raises(LLMFailure) as caught:
        client.structured(MESSAGES, Plan, purpose="plan")
    assert caught.value.kind == "not_configured"
    assert client.requests_made == 0


def test_unknown_provider_is_not_configured():
    client = LLMClient(LLMSettings(model="nosuchprovider:model-x"))
    with pytest.raises(LLMFailure) as caught:
        client.ping()
    assert caught.value.kind == "not_configured"
    assert "nosuchprovider" in str(caught.value)


# -- the scripted LangChain fake ---------------------------------------------------------------

FAKE = LLMSettings(model="fake:scripted")


def test_fake_tool_reply_parses():
    model = ScriptedChatModel.replying([tool_reply("Plan", PLAN, prompt_tokens=12,
                                                   completion_tokens=4)])
    client = LLMClient(FAKE, model=model)

    plan, record = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN)
    assert record.method == "function_calling"
    assert (record.prompt_tokens, record.completion_tokens) == (12, 4)
    assert json.loads(record.response) == PLAN
    assert model.requests == [MESSAGES]


def test_fake_json_in_fences_parses():
    fenced = AIMessage(content=f"Here you go:\n```json\n{json.dumps(PLAN)}\n```\n")
    client = LLMClient(FAKE, model=ScriptedChatModel.replying([fenced]))

    plan, _ = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN)


def test_fake_streams_to_on_delta():
    client = LLMClient(FAKE, model=ScriptedChatModel.replying([json_reply(PLAN)]))
    deltas: list[str] = []

    plan, _ = client.structured(MESSAGES, Plan, purpose="plan", on_delta=deltas.append)

    assert plan == Plan(**PLAN) and "".join(deltas) == json.dumps(PLAN)


def test_a_model_without_tools_gets_json_mode():
    # GenericFakeChatModel cannot bind tools (STACK.md pitfall 11): the schema goes in the
    # prompt instead, and the JSON reply is read from the text.
    model = GenericFakeChatModel(messages=iter([json_reply(PLAN)]))
    client = LLMClient(FAKE, model=model)

    plan, record = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN) and record.method == "json_mode" and record.attempts == 1
    assert record.messages[-1]["role"] == "user"
    assert '"count"' in record.messages[-1]["content"]


def test_fake_timeout_is_retried():
    model = ScriptedChatModel.replying([TimeoutError("took too long"), tool_reply("Plan", PLAN)])
    client, sleeps = client_for(FAKE, model=model)

    plan, record = client.structured(MESSAGES, Plan, purpose="plan")

    assert plan == Plan(**PLAN) and record.attempts == 2 and sleeps == [0.5]
    assert len(model.requests) == 2


def test_model_bugs_are_not_swallowed():
    client = LLMClient(FAKE, model=ScriptedChatModel.replying([KeyError("a bug")]))
    with pytest.raises(KeyError):
        client.structured(MESSAGES, Plan, purpose="plan")



class _NoStream(BaseChatModel):
    """A model with no streaming of its own: LangChain hands over its whole reply as one
    message when it is streamed."""

    reply: AIMessage

    @property
    def _llm_type(self) -> str:
        return "no-stream"

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        return ChatResult(generations=[ChatGeneration(message=self.reply)])


def test_a_model_that_cannot_stream_still_answers_a_streamed_call():
    client = LLMClient(FAKE, model=_NoStream(reply=tool_reply("Plan", PLAN)))
    deltas: list[str] = []

    plan, record = client.structured(MESSAGES, Plan, purpose="plan", on_delta=deltas.append)

    assert plan == Plan(**PLAN) and record.attempts == 1 and record.prompt_tokens == 100


def test_a_reply_without_token_counts_gets_an_estimate_marked_as_such():
    # llama.cpp's server reports no usage when it streams: the counts are estimated
    # (characters / 4) and the record says so, rather than showing 0 tokens.
    reply = AIMessage(content="", tool_calls=[{"name": "Plan", "args": PLAN, "id": "1"}])
    client = LLMClient(FAKE, model=ScriptedChatModel.replying([reply]))

    _, record = client.structured(MESSAGES, Plan, purpose="plan", on_delta=lambda _: None)

    assert record.tokens_estimated and record.prompt_tokens > 5 and record.completion_tokens > 0
