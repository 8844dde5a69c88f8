"""The litellm adapter, at the HTTP level (respx): retries, Retry-After, caching, routes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import litellm
import pytest
import respx
import tiktoken

from consensus.adapters.llm import LiteLLMClient, model_price
from consensus.model.base import FailureKind
from consensus.ports import CompletionRequest, Message, ModelCallError, ModelPrice

OPENAI = "https://api.openai.com/v1/chat/completions"
ANTHROPIC = "https://api.anthropic.com/v1/messages"
ENV = {"OPENAI_KEY": "sk-test", "ANTHROPIC_KEY": "sk-ant-test"}


@pytest.fixture(autouse=True)
def _httpx_transport() -> Iterator[None]:
    # respx patches httpx; litellm's default aiohttp transport would slip past it.
    before = litellm.disable_aiohttp_transport
    litellm.disable_aiohttp_transport = True
    yield
    litellm.disable_aiohttp_transport = before


def openai_reply(text: str = '{"findings": []}') -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1200, "completion_tokens": 40, "total_tokens": 1240},
        },
    )


def anthropic_reply(text: str = '{"findings": []}') -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 900, "output_tokens": 30},
        },
    )


def request(model: str, key: str, **extra: Any) -> CompletionRequest:
    user = "<diff-abc>\n  41 +  x = 1\n</diff-abc>\n\nYou are the security reviewer."
    prefix = user[: user.index("</diff-abc>") + len("</diff-abc>")]
    return CompletionRequest(
        model=model,
        messages=(
            Message(role="system", content="You review code."),
            Message(role="user", content=user, cache_prefix=prefix),
        ),
        api_key_env=key,
        timeout_s=10,
        **extra,
    )


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def complete(client: LiteLLMClient, req: CompletionRequest) -> Any:
    return asyncio.run(client.complete(req))


@respx.mock
def test_a_reply_brings_its_text_and_usage() -> None:
    respx.post(OPENAI).mock(return_value=openai_reply('{"findings": [1]}'))
    done = complete(LiteLLMClient(ENV), request("openai/gpt-4o", "OPENAI_KEY"))
    assert done.text == '{"findings": [1]}'
    assert (done.tokens_in, done.tokens_out) == (1200, 40)
    # The price litellm computed on the way back, for these tokens at gpt-4o's rates.
    prompt_usd, completion_usd = litellm.cost_per_token(
        model="gpt-4o", prompt_tokens=1200, completion_tokens=40
    )
    assert done.cost_usd == pytest.approx(prompt_usd + completion_usd) and done.cost_usd > 0


@respx.mock
def test_a_429_waits_what_retry_after_says_then_succeeds() -> None:
    route = respx.post(OPENAI).mock(
        side_effect=[
            httpx.Response(429, headers={"Retry-After": "7"}, json={"error": {"message": "slow"}}),
            openai_reply(),
        ]
    )
    sleeps = Sleeps()
    done = complete(LiteLLMClient(ENV, sleep=sleeps), request("openai/gpt-4o", "OPENAI_KEY"))
    assert done.text == '{"findings": []}'
    assert route.call_count == 2
    assert sleeps.waits == [7.0]


@respx.mock
def test_server_errors_back_off_and_give_up_after_the_last_attempt() -> None:
    route = respx.post(OPENAI).mock(
        return_value=httpx.Response(503, json={"error": {"message": "overloaded"}})
    )
    sleeps = Sleeps()
    client = LiteLLMClient(ENV, attempts=3, backoff_s=0.5, sleep=sleeps)
    with pytest.raises(ModelCallError) as raised:
        complete(client, request("openai/gpt-4o", "OPENAI_KEY"))
    assert raised.value.kind is FailureKind.SERVER_ERROR
    assert route.call_count == 3
    assert len(sleeps.waits) == 2 and all(0 <= w <= 30 for w in sleeps.waits)


@respx.mock
def test_a_bad_key_fails_at_once_without_retries() -> None:
    route = respx.post(OPENAI).mock(
        return_value=httpx.Response(401, json={"error": {"message": "Incorrect API key"}})
    )
    sleeps = Sleeps()
    with pytest.raises(ModelCallError) as raised:
        complete(LiteLLMClient(ENV, sleep=sleeps), request("openai/gpt-4o", "OPENAI_KEY"))
    assert raised.value.kind is FailureKind.AUTH
    assert route.call_count == 1 and sleeps.waits == []


@respx.mock
def test_anthropic_gets_cache_control_on_the_diff_block_only() -> None:
    route = respx.post(ANTHROPIC).mock(return_value=anthropic_reply())
    complete(LiteLLMClient(ENV), request("anthropic/claude-sonnet-4-5", "ANTHROPIC_KEY"))
    sent = json.loads(route.calls.last.request.content)
    blocks = sent["messages"][0]["content"]
    assert blocks[0]["cache_control"] == {"type": "ephemeral"}
    assert blocks[0]["text"].endswith("</diff-abc>")
    assert "cache_control" not in blocks[1]
    assert "security reviewer" in blocks[1]["text"]
    assert route.calls.last.request.headers["x-api-key"] == "sk-ant-test"


@respx.mock
def test_openai_gets_plain_text_and_the_key_from_the_named_variable() -> None:
    route = respx.post(OPENAI).mock(return_value=openai_reply())
    complete(LiteLLMClient(ENV), request("openai/gpt-4o", "OPENAI_KEY"))
    sent = json.loads(route.calls.last.request.content)
    assert isinstance(sent["messages"][1]["content"], str)
    assert route.calls.last.request.headers["authorization"] == "Bearer sk-test"


@respx.mock
def test_structured_output_is_requested_where_the_model_supports_it() -> None:
    route = respx.post(OPENAI).mock(return_value=openai_reply())
    schema = {"type": "object", "properties": {"findings": {"type": "array"}}}
    complete(
        LiteLLMClient(ENV),
        request("openai/gpt-4o", "OPENAI_KEY", response_schema=schema, schema_name="review"),
    )
    sent = json.loads(route.calls.last.request.content)
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == schema


@respx.mock
def test_one_client_decides_structured_output_per_model() -> None:
    route = respx.post(OPENAI).mock(return_value=openai_reply())
    schema = {"type": "object", "properties": {"findings": {"type": "array"}}}
    client = LiteLLMClient(ENV)
    sent = []
    for model in ("openai/gpt-4o", "openai/my-own-model", "openai/gpt-4o", "openai/my-own-model"):
        complete(client, request(model, "OPENAI_KEY", response_schema=schema))
        sent.append(json.loads(route.calls.last.request.content).get("response_format"))
    assert [s and s["type"] for s in sent] == ["json_schema", None, "json_schema", None]


@respx.mock
def test_ollama_models_go_through_the_chat_endpoint() -> None:
    route = respx.post("http://127.0.0.1:11434/api/chat").mock(
        return_value=httpx.Response(
            200,
            json={
                "model": "qwen2.5-coder:14b",
                "created_at": "2026-11-30T10:00:00Z",
                "message": {"role": "assistant", "content": '{"findings": []}'},
                "done": True,
                "prompt_eval_count": 50,
                "eval_count": 5,
            },
        )
    )
    respx.post("http://127.0.0.1:11434/api/show").mock(
        return_value=httpx.Response(200, json={"model_info": {}, "template": ""})
    )
    done = complete(
        LiteLLMClient(ENV),
        CompletionRequest(
            model="ollama/qwen2.5-coder:14b",
            messages=(Message(role="system", content="s"), Message(role="user", content="u")),
            api_base="http://127.0.0.1:11434",
        ),
    )
    assert done.text == '{"findings": []}'
    sent = json.loads(route.calls.last.request.content)
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]


def test_counting_tokens_never_downloads_a_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    from consensus.adapters.llm import LiteLLMTokenCounter

    fetched: list[str] = []
    monkeypatch.setattr(  # where litellm would fetch Llama's tokenizer from Hugging Face
        litellm.utils, "_return_huggingface_tokenizer", lambda model: fetched.append(model)
    )
    assert LiteLLMTokenCounter().count("openai/llama-3.3-70b", "def f():\n    return 1\n") > 0
    assert fetched == []


def test_prices_come_from_litellms_installed_price_map() -> None:
    price = model_price("openai/gpt-4o")
    assert price is not None and 0 < price.input_per_token < price.output_per_token
    assert model_price("openai/no-such-model-anywhere") is None


@respx.mock
def test_a_sampling_seed_goes_to_providers_that_honour_one_and_not_to_anthropic() -> None:
    openai = respx.post(OPENAI).mock(return_value=openai_reply())
    anthropic = respx.post(ANTHROPIC).mock(return_value=anthropic_reply())
    client = LiteLLMClient(ENV)
    complete(client, request("openai/gpt-4o", "OPENAI_KEY", temperature=0.3, seed=1234))
    complete(client, request("anthropic/claude-sonnet-4-5", "ANTHROPIC_KEY", seed=1234))
    assert json.loads(openai.calls.last.request.content)["seed"] == 1234
    assert "seed" not in json.loads(anthropic.calls.last.request.content)  # it would refuse it
    complete(client, request("openai/gpt-4o", "OPENAI_KEY"))
    assert "seed" not in json.loads(openai.calls.last.request.content)


# ---------------------------------------------------------------- litellm's per-call work

OLLAMA = "http://127.0.0.1:11434"


def ollama_reply(counts: bool = True) -> httpx.Response:
    body: dict[str, Any] = {
        "model": "qwen2.5-coder:14b",
        "created_at": "2026-11-30T10:00:00Z",
        "message": {"role": "assistant", "content": '{"findings": []}'},
        "done": True,
    }
    if counts:
        body |= {"prompt_eval_count": 50, "eval_count": 5}
    return httpx.Response(200, json=body)


def ollama_request(model: str = "ollama/qwen2.5-coder:14b") -> CompletionRequest:
    diff = "\n".join(f"+    total = compute_{i}(value, limit={i})" for i in range(400))
    return CompletionRequest(
        model=model,
        messages=(
            Message(role="system", content="You review code."),
            Message(role="user", content=diff),
        ),
        api_base=OLLAMA,
    )


def test_litellms_own_token_counter_is_off_and_ours_still_counts() -> None:
    from consensus.adapters.llm import LiteLLMTokenCounter

    text = "def f(value):\n    return compute(value, limit=3)\n" * 20
    assert litellm.disable_token_counter is True  # set when the adapter is imported
    counted = LiteLLMTokenCounter().count("openai/gpt-4o", text)
    assert counted == len(tiktoken.get_encoding("o200k_base").encode(text))
    assert litellm.disable_token_counter is True  # switched back off after our count


@respx.mock
def test_an_ollama_reply_is_not_tokenized_again(monkeypatch: pytest.MonkeyPatch) -> None:
    respx.post(f"{OLLAMA}/api/chat").mock(return_value=ollama_reply())
    encoded: list[int] = []
    real_encode = tiktoken.Encoding.encode

    def encode(self: tiktoken.Encoding, text: str, **kwargs: Any) -> list[int]:
        encoded.append(len(text))
        return real_encode(self, text, **kwargs)

    monkeypatch.setattr(tiktoken.Encoding, "encode", encode)
    done = complete(LiteLLMClient(ENV), ollama_request())
    assert (done.tokens_in, done.tokens_out) == (50, 5)  # the server's own counts
    assert encoded == []  # litellm did not count the 400-line prompt again


@respx.mock
def test_an_ollama_reply_without_counts_is_counted_as_litellm_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    respx.post(f"{OLLAMA}/api/chat").mock(return_value=ollama_reply(counts=False))
    req = ollama_request()
    done = complete(LiteLLMClient(ENV), req)
    monkeypatch.setattr(litellm, "disable_token_counter", False)  # litellm's count, as it was
    messages = [{"role": m.role, "content": m.content} for m in req.messages]
    assert done.tokens_in == litellm.token_counter(messages=messages) > 400
    assert done.tokens_out == litellm.token_counter(text='{"findings": []}') > 0


@respx.mock
def test_ollama_is_asked_about_a_model_once_not_on_every_call() -> None:
    chat = respx.post(f"{OLLAMA}/api/chat").mock(return_value=ollama_reply())
    # litellm asks the Ollama it finds by default (OLLAMA_API_BASE), not the configured one.
    show = respx.post(url__regex=r"http://(localhost|127\.0\.0\.1):11434/api/show").mock(
        return_value=httpx.Response(
            200, json={"model_info": {"llama.context_length": 32768}, "template": "{{ .Tools }}"}
        )
    )
    model = "ollama/qwen-once:7b"  # a name no other test has described
    client = LiteLLMClient(ENV)
    complete(client, ollama_request(model))
    asked = show.call_count
    for _ in range(3):
        complete(client, ollama_request(model))
    assert chat.call_count == 4
    assert 1 <= asked <= 2 and show.call_count == asked  # at the first call, never again
    # What litellm says about the model is what the server said then.
    info = litellm.get_model_info(model)
    assert info["max_input_tokens"] == 32768 and info["supports_function_calling"] is True
    assert model_price(model) == ModelPrice(input_per_token=0.0, output_per_token=0.0)
    assert show.call_count == asked


@respx.mock
@pytest.mark.parametrize("model", ["openai/self-hosted-review-model", "ollama/qwen-count:3b"])
def test_calling_a_model_changes_nothing_litellm_says_about_it(model: str) -> None:
    from consensus.adapters.llm import LiteLLMTokenCounter

    name = model.split("/", 1)[1]
    openai_body = json.loads(openai_reply().content) | {"model": name}
    respx.post(OPENAI).mock(return_value=httpx.Response(200, json=openai_body))
    respx.post(f"{OLLAMA}/api/chat").mock(return_value=ollama_reply())
    respx.post(url__regex=r"http://(localhost|127\.0\.0\.1):11434/api/show").mock(
        return_value=httpx.Response(200, json={"model_info": {}, "template": ""})
    )
    counter, text = LiteLLMTokenCounter(), "def f(value):\n    return g(value)  # → ü\n" * 40

    def what_litellm_says() -> tuple[object, ...]:
        return (counter.count(model, text), counter.context_window(model), model_price(model))

    before = what_litellm_says()
    req = request(model, "OPENAI_KEY") if model.startswith("openai/") else ollama_request(model)
    done = [complete(LiteLLMClient(ENV), req) for _ in range(2)]
    assert what_litellm_says() == before  # the same chunks are planned, at the same price
    assert [d.cost_usd for d in done] == [0.0, 0.0]  # an unpriced or local model costs 0


@respx.mock
@pytest.mark.parametrize(
    ("provider", "url", "reply"),
    [("openai", OPENAI, openai_reply), ("anthropic", ANTHROPIC, anthropic_reply)],
)
def test_litellm_sends_the_same_request_for_a_model_once_described(
    provider: str, url: str, reply: Callable[[], httpx.Response]
) -> None:
    route = respx.post(url).mock(side_effect=lambda _: reply())
    messages = [
        {"role": "system", "content": "You review code."},
        {"role": "user", "content": [{"type": "text", "text": "<diff>+ x = 1</diff>"}]},
    ]

    def sent(model: str) -> dict[str, Any]:
        asyncio.run(
            litellm.acompletion(
                model=model, messages=messages, api_key="sk-test", temperature=0, num_retries=0
            )
        )
        body: dict[str, Any] = json.loads(route.calls.last.request.content)
        return body | {"model": "?"}

    never_described = sent(f"{provider}/review-model-a")
    described = f"{provider}/review-model-b"
    complete(LiteLLMClient(ENV), request(described, f"{provider.upper()}_KEY"))
    assert litellm.get_model_info(described)["litellm_provider"] == provider  # it has an entry
    assert sent(described) == never_described
