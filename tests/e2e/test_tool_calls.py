"""Tool calling through the real adapter and litellm against the loopback providers: the
tools reach each API in its own shape, a model's calls come back typed, their results go
back as each API expects, and a model that cannot take tools says so as a failure kind."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import litellm
import pytest

from consensus.adapters.llm import LiteLLMClient
from consensus.model.base import FailureKind
from consensus.model.completion import ToolCall, ToolSpec
from consensus.ports import Completion, CompletionRequest, Message, ModelCallError
from consensus_sim.provider_server import (
    FakeProviderServer,
    Script,
    call_tools,
    error,
    prompt_text,
    reply,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* on TypedDict class .* using the `ReadOnly` qualifier:UserWarning"
)

READ_FILE = ToolSpec(
    name="read_file",
    description="Numbered lines of a file at the pull request's head.",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer"},
            "end_line": {"type": "integer"},
        },
        "required": ["path", "start_line", "end_line"],
        "additionalProperties": False,
    },
)
QUESTION = (
    Message(role="system", content="You verify one claim about a change. Answer in JSON."),
    Message(role="user", content="Title: `total` is used before it is set\nsrc/cart.py:41"),
)
VERDICT = '{"verdict": "refuted", "reason": "line 40 sets it", "evidence": []}'
ROUTES = [("openai/gpt-test", "gpt-test"), ("anthropic/claude-test", "claude-test")]


@pytest.fixture
def script() -> Script:
    return Script(default=reply(VERDICT))


@pytest.fixture
def server(script: Script) -> Iterator[FakeProviderServer]:
    with FakeProviderServer(script) as running:
        yield running


def base_of(server: FakeProviderServer, model: str) -> str:
    return server.url + "/v1" if model.startswith("openai/") else server.url


def ask(server: FakeProviderServer, model: str, *messages: Message, **extra: Any) -> Completion:
    request = CompletionRequest(
        model=model,
        messages=(*QUESTION, *messages),
        api_base=base_of(server, model),
        api_key_env="KEY",
        timeout_s=10,
        tools=(READ_FILE,),
        **extra,
    )
    return asyncio.run(LiteLLMClient({"KEY": "sk-test"}, attempts=1).complete(request))


@pytest.mark.parametrize(("model", "served"), ROUTES)
def test_a_models_tool_call_comes_back_typed_with_its_arguments(
    server: FakeProviderServer, script: Script, model: str, served: str
) -> None:
    script.add(
        served, call_tools(("read_file", {"path": "src/cart.py", "start_line": 30, "end_line": 60}))
    )

    done = ask(server, model)

    assert done.text == ""
    assert [(c.name, json.loads(c.arguments)) for c in done.tool_calls] == [
        ("read_file", {"path": "src/cart.py", "start_line": 30, "end_line": 60})
    ]
    assert done.tool_calls[0].id


def test_openai_is_sent_function_tools_and_tool_choice(
    server: FakeProviderServer, script: Script
) -> None:
    ask(server, "openai/gpt-test")

    sent = server.log.requests_for("gpt-test")[0].body
    assert sent is not None
    assert sent["tools"][0]["function"]["name"] == "read_file"
    assert sent["tools"][0]["function"]["parameters"] == READ_FILE.parameters
    assert sent["tool_choice"] == "auto"
    assert "response_format" not in sent  # the verdict's schema is in the prompt


def test_anthropic_is_sent_its_own_tools_and_no_forced_tool_of_litellms(
    server: FakeProviderServer,
) -> None:
    ask(server, "anthropic/claude-test")

    sent = server.log.requests_for("claude-test")[0].body
    assert sent is not None
    assert [t["name"] for t in sent["tools"]] == ["read_file"]
    assert sent["tools"][0]["input_schema"] == READ_FILE.parameters
    assert sent.get("tool_choice", {"type": "auto"})["type"] == "auto"


@pytest.mark.parametrize(("model", "served"), ROUTES)
def test_a_tool_result_goes_back_and_the_model_answers_in_text(
    server: FakeProviderServer, model: str, served: str
) -> None:
    call = ToolCall(id="call_1", name="read_file", arguments='{"path": "src/cart.py"}')
    done = ask(
        server,
        model,
        Message(role="assistant", content="", tool_calls=(call,)),
        Message(role="tool", content="40: total = 0\n41: total += price", tool_call_id="call_1"),
        tool_choice="none",
    )

    assert done.text == VERDICT and done.tool_calls == ()
    sent = server.log.requests_for(served)[0].body
    assert sent is not None
    assert "40: total = 0" in prompt_text(sent)
    messages = json.dumps(sent["messages"])
    assert "call_1" in messages  # the result names the call it answers, in the API's words


def test_ollama_chat_takes_tools_and_answers_with_tool_calls(
    server: FakeProviderServer, script: Script
) -> None:
    """The wire shape alone (litellm asked directly): the adapter does not offer tools to
    the loopback Ollama, whose /api/show template has no tools (see the test below)."""
    script.add(
        "qwen-test", call_tools(("read_file", {"path": "a.py", "start_line": 1, "end_line": 9}))
    )
    tools = [{"type": "function", "function": READ_FILE.model_dump()}]

    response = asyncio.run(
        litellm.acompletion(
            model="ollama_chat/qwen-test",
            api_base=server.url,
            messages=[m.model_dump(include={"role", "content"}) for m in QUESTION],
            tools=tools,
            num_retries=0,
        )
    )

    called = response.choices[0].message.tool_calls
    assert [c.function.name for c in called] == ["read_file"]
    assert json.loads(called[0].function.arguments) == {
        "path": "a.py",
        "start_line": 1,
        "end_line": 9,
    }
    sent = server.log.requests_for("qwen-test")[-1].body
    assert sent is not None and sent["tools"][0]["function"]["name"] == "read_file"


def test_a_model_litellm_lists_without_tools_is_not_sent_them(server: FakeProviderServer) -> None:
    """An Ollama model litellm cannot find tool calling for (its template names no tools):
    the call fails as `no_tools` before any chat request, so the judge asks with the
    evidence inline instead."""
    with pytest.raises(ModelCallError) as failed:
        ask(server, "ollama/qwen-test")

    assert failed.value.kind is FailureKind.NO_TOOLS
    chats = [r for r in server.log.all() if r.path in ("/api/chat", "/api/generate")]
    assert chats == []


def test_a_provider_refusing_tools_is_a_no_tools_failure(
    server: FakeProviderServer, script: Script
) -> None:
    script.add("gpt-test", error(400, "tools are not supported for this model"))

    with pytest.raises(ModelCallError) as failed:
        ask(server, "openai/gpt-test")

    assert failed.value.kind is FailureKind.NO_TOOLS
    assert len(server.log.requests_for("gpt-test")) == 1  # refused once, not retried


def test_a_request_without_tools_is_sent_as_before(server: FakeProviderServer) -> None:
    request = CompletionRequest(
        model="openai/gpt-test",
        messages=QUESTION,
        api_base=server.url + "/v1",
        api_key_env="KEY",
        timeout_s=10,
        response_schema={"type": "object"},
    )
    asyncio.run(LiteLLMClient({"KEY": "sk-test"}, attempts=1).complete(request))

    sent = server.log.requests_for("gpt-test")[0].body
    assert sent is not None
    assert "tools" not in sent and "tool_choice" not in sent
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
