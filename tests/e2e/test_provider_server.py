"""The loopback fake provider, driven through litellm as the product drives real providers."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from consensus_sim.provider_server import (
    FakeProviderServer,
    JsonObject,
    Script,
    Step,
    drop,
    error,
    hang,
    prompt_text,
    reply,
)

# Before litellm's import: otherwise it fetches its price map from the network.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm
from litellm.exceptions import (
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    InternalServerError,
    NotFoundError,
    RateLimitError,
    Timeout,
)

# litellm 1.110 declares TypedDicts with ReadOnly items (GitHub Copilot auth, thinking
# blocks, Ollama responses); pydantic warns when it builds their schemas, lazily and
# during calls. The warning is about litellm's types, not ours.
pytestmark = pytest.mark.filterwarnings(
    "ignore:Items? .* on TypedDict class .* using the `ReadOnly` qualifier:UserWarning"
)

REPO_ROOT = Path(__file__).resolve().parents[2]
MESSAGES = [
    {"role": "system", "content": "You are the security reviewer."},
    {"role": "user", "content": "Review this diff and answer in JSON."},
]
FINDINGS = '{"findings": []}'


@pytest.fixture
def script() -> Script:
    return Script(default=reply(FINDINGS))


@pytest.fixture
def server(script: Script) -> Iterator[FakeProviderServer]:
    with FakeProviderServer(script) as running:
        yield running


def complete(model: str, api_base: str, **kwargs: Any) -> Any:
    """One litellm.acompletion call, without litellm's own retries."""
    call = litellm.acompletion(
        model=model,
        api_base=api_base,
        api_key=kwargs.pop("api_key", "sk-test"),
        messages=kwargs.pop("messages", MESSAGES),
        num_retries=0,
        max_retries=0,
        **kwargs,
    )
    return asyncio.run(call)


def api_base(server: FakeProviderServer, model: str) -> str:
    """What the product passes as api_base: OpenAI-compatible bases end in /v1."""
    return server.url + "/v1" if model.startswith("openai/") else server.url


@pytest.mark.parametrize(
    ("model", "path", "provider_model"),
    [
        ("openai/gpt-test", "/v1/chat/completions", "gpt-test"),
        ("anthropic/claude-test", "/v1/messages", "claude-test"),
        ("ollama/qwen-test", "/api/generate", "qwen-test"),
        ("ollama_chat/qwen-test", "/api/chat", "qwen-test"),
    ],
)
def test_each_provider_route_gets_the_scripted_reply_and_usage(
    server: FakeProviderServer, script: Script, model: str, path: str, provider_model: str
) -> None:
    script.add(provider_model, reply('{"findings": [1]}', tokens_in=120, tokens_out=7))

    response = complete(model, api_base(server, model))

    assert response.choices[0].message.content == '{"findings": [1]}'
    assert response.choices[0].finish_reason == "stop"
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (120, 7)
    chats = [item for item in server.log.requests_for(provider_model) if item.path == path]
    assert len(chats) == 1
    assert chats[0].body is not None
    assert chats[0].body.get("stream") in (None, False)


def test_usage_defaults_to_a_quarter_of_the_characters(server: FakeProviderServer) -> None:
    response = complete("openai/gpt-test", server.url + "/v1")

    sent = server.log.requests_for("gpt-test")[0].body
    assert sent is not None
    assert response.usage.prompt_tokens == len(prompt_text(sent)) // 4
    assert response.usage.completion_tokens == len(FINDINGS) // 4


@pytest.mark.parametrize(
    ("model", "credential_header", "credential"),
    [
        ("openai/gpt-test", "authorization", "Bearer sk-test"),
        ("anthropic/claude-test", "x-api-key", "sk-test"),
    ],
)
def test_the_log_keeps_headers_bodies_and_raw_text(
    server: FakeProviderServer, model: str, credential_header: str, credential: str
) -> None:
    planted = "AKIAFAKEPLANTEDSECRET0"
    messages = [{"role": "user", "content": f"diff with {planted}"}]

    complete(model, api_base(server, model), messages=messages)

    (request,) = server.log.all()
    assert request.method == "POST"
    assert request.headers[credential_header] == credential
    assert request.model == model.split("/", 1)[1]
    assert planted in request.raw
    assert planted in server.log.all_text()
    assert request.body is not None
    assert planted in prompt_text(request.body)


def test_a_queue_is_consumed_in_order_then_the_default(
    server: FakeProviderServer, script: Script
) -> None:
    script.add("gpt-test", reply("first"), reply("second"))

    answers = [complete("openai/gpt-test", server.url + "/v1") for _ in range(3)]

    assert [answer.choices[0].message.content for answer in answers] == [
        "first",
        "second",
        FINDINGS,
    ]


def test_a_responder_answers_by_content(server: FakeProviderServer, script: Script) -> None:
    def by_persona(body: JsonObject) -> Step:
        if "security reviewer" in prompt_text(body):
            return reply("security says hi")
        return reply("someone else")

    script.respond("gpt-test", by_persona)

    security = complete("openai/gpt-test", server.url + "/v1")
    other = complete(
        "openai/gpt-test", server.url + "/v1", messages=[{"role": "user", "content": "x"}]
    )

    assert security.choices[0].message.content == "security says hi"
    assert other.choices[0].message.content == "someone else"


def test_an_unscripted_model_without_default_is_not_found() -> None:
    with FakeProviderServer(Script()) as bare, pytest.raises(NotFoundError):
        complete("openai/gpt-test", bare.url + "/v1")


@pytest.mark.parametrize(
    ("model", "provider_model"),
    [
        ("openai/gpt-test", "gpt-test"),
        ("anthropic/claude-test", "claude-test"),
        ("ollama_chat/qwen-test", "qwen-test"),
    ],
)
def test_a_429_reaches_the_client_with_its_retry_after(
    server: FakeProviderServer, script: Script, model: str, provider_model: str
) -> None:
    script.add(provider_model, error(429, headers={"Retry-After": "1"}))

    with pytest.raises(RateLimitError) as caught:
        complete(model, api_base(server, model))

    # litellm_response_headers holds the real headers for every provider; e.response
    # does only for OpenAI (Anthropic and Ollama get a synthetic, header-less response).
    # litellm sets it with setattr, so it is not in the class's type.
    headers = getattr(caught.value, "litellm_response_headers", None)
    assert headers is not None
    assert headers["retry-after"] == "1"
    assert len(server.log.requests_for(provider_model)) == 1


@pytest.mark.parametrize(
    ("step", "exception"),
    [
        (error(500), InternalServerError),
        (error(401), AuthenticationError),
        (error(400, "context too long"), BadRequestError),
    ],
)
def test_error_statuses_map_to_litellm_exceptions(
    server: FakeProviderServer, script: Script, step: Step, exception: type[Exception]
) -> None:
    script.add("gpt-test", step)

    with pytest.raises(exception):
        complete("openai/gpt-test", server.url + "/v1")


@pytest.mark.parametrize("model", ["openai/gpt-test", "anthropic/claude-test"])
def test_a_hang_past_the_timeout_is_a_litellm_timeout(
    server: FakeProviderServer, script: Script, model: str
) -> None:
    script.add(model.split("/", 1)[1], hang(5))

    with pytest.raises(Timeout):  # the hang answers after 5 s: without the timeout, no error
        complete(model, api_base(server, model), timeout=1)


def test_a_dropped_connection_is_a_litellm_error(
    server: FakeProviderServer, script: Script
) -> None:
    script.add("gpt-test", drop())

    with pytest.raises((APIConnectionError, InternalServerError)):
        complete("openai/gpt-test", server.url + "/v1")


def test_response_format_is_passed_through_to_openai(server: FakeProviderServer) -> None:
    response_format = {
        "type": "json_schema",
        "json_schema": {
            "name": "review",
            "schema": {"type": "object", "properties": {"findings": {"type": "array"}}},
            "strict": True,
        },
    }

    complete("openai/gpt-test", server.url + "/v1", response_format=response_format)

    sent = server.log.requests_for("gpt-test")[0].body
    assert sent is not None
    assert sent["response_format"] == response_format


def test_anthropic_structured_output_is_a_forced_tool_answered_with_tool_use(
    server: FakeProviderServer,
) -> None:
    schema = {"type": "object", "properties": {"findings": {"type": "array"}}}
    response_format = {"type": "json_schema", "json_schema": {"name": "review", "schema": schema}}

    response = complete("anthropic/claude-test", server.url, response_format=response_format)

    assert json.loads(response.choices[0].message.content) == {"findings": []}
    sent = server.log.requests_for("claude-test")[0].body
    assert sent is not None
    assert sent["tool_choice"]["type"] == "tool"
    assert sent["tools"][0]["input_schema"] == schema


async def stream_text(model: str, api_base: str) -> str:
    stream = await litellm.acompletion(
        model=model,
        api_base=api_base,
        api_key="sk-test",
        messages=MESSAGES,
        stream=True,
        num_retries=0,
        max_retries=0,
    )
    return "".join([chunk.choices[0].delta.content or "" async for chunk in stream])


def test_openai_streaming_is_served_as_sse(server: FakeProviderServer) -> None:
    assert asyncio.run(stream_text("openai/gpt-test", server.url + "/v1")) == FINDINGS


def test_streaming_elsewhere_is_refused(server: FakeProviderServer) -> None:
    with pytest.raises(BadRequestError, match="only OpenAI"):
        asyncio.run(stream_text("anthropic/claude-test", server.url))


def test_concurrent_requests_sleep_in_parallel(script: Script) -> None:
    async def burst(url: str) -> list[Any]:
        calls = [
            litellm.acompletion(
                model="openai/gpt-test",
                api_base=url + "/v1",
                api_key="sk-test",
                messages=[{"role": "user", "content": f"chunk {index}"}],
                num_retries=0,
                max_retries=0,
            )
            for index in range(16)
        ]
        return list(await asyncio.gather(*calls))

    with FakeProviderServer(script, latency_s=0.3) as slow:
        answers = asyncio.run(burst(slow.url))

    assert [answer.choices[0].message.content for answer in answers] == [FINDINGS] * 16
    assert slow.max_in_flight >= 8


def test_ollama_discovery_endpoints(server: FakeProviderServer, script: Script) -> None:
    script.add("qwen-test", then=reply("ok"))

    with urllib.request.urlopen(server.url + "/", timeout=5) as root:
        assert root.read() == b"Ollama is running"
    with urllib.request.urlopen(server.url + "/api/tags", timeout=5) as tags:
        names = [model["name"] for model in json.load(tags)["models"]]
    assert names == ["qwen-test"]


def test_an_unknown_route_is_404_and_logged(server: FakeProviderServer) -> None:
    request = urllib.request.Request(server.url + "/v2/nothing", data=b"{}", method="POST")

    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=5)

    assert caught.value.code == 404
    caught.value.close()
    assert [item.path for item in server.log.all()] == ["/v2/nothing"]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"reply": "x", "tokens_out": 3}, reply("x", tokens_out=3)),
        ({"status": 429, "headers": {"Retry-After": "1"}}, error(429, None, {"Retry-After": "1"})),
        ({"hang": 2}, hang(2)),
        ({"drop": True}, drop()),
    ],
)
def test_steps_parse_from_json(data: JsonObject, expected: Step) -> None:
    assert Step.from_json(data) == expected


def test_a_step_without_a_kind_is_rejected() -> None:
    with pytest.raises(ValueError, match="not a step"):
        Step.from_json({"text": "x"})


def test_the_standalone_process_serves_a_json_script(tmp_path: Path) -> None:
    script_path = tmp_path / "script.json"
    script_path.write_text(
        json.dumps(
            {
                "gpt-test": [{"status": 429, "headers": {"Retry-After": "1"}}, {"reply": "ok"}],
                "default": {"reply": FINDINGS},
            }
        )
    )
    port_file = tmp_path / "port"
    log_path = tmp_path / "requests.jsonl"
    command = [sys.executable, "-m", "consensus_sim.provider_server", "--port", "0"]
    command += ["--script", str(script_path), "--port-file", str(port_file)]
    command += ["--log", str(log_path), "--latency", "0.01"]
    process = subprocess.Popen(command, cwd=REPO_ROOT, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        url = f"http://127.0.0.1:{port_file.read_text()}"

        with pytest.raises(RateLimitError):
            complete("openai/gpt-test", url + "/v1")
        first = complete("openai/gpt-test", url + "/v1")
        then = complete("openai/other", url + "/v1")
    finally:
        process.terminate()
        process.wait(timeout=10)

    assert first.choices[0].message.content == "ok"
    assert then.choices[0].message.content == FINDINGS
    logged = [json.loads(line) for line in log_path.read_text().splitlines()]
    assert [entry["model"] for entry in logged] == ["gpt-test", "gpt-test", "other"]
    assert logged[0]["headers"]["authorization"] == "Bearer sk-test"
    assert logged[0]["body"]["messages"] == MESSAGES
