"""adapters/model_map.py answers what litellm would, without importing it: the same token
counts, context windows, prices and missing keys, model by model."""

from __future__ import annotations

import itertools

import pytest

from consensus.adapters import llm, model_map
from consensus_sim.provider_server import FakeProviderServer, Script, reply

DB_AFTER = """\
import sqlite3


def get_user(conn, user_id):
    cur = conn.cursor()
    query = f"SELECT * FROM users WHERE id = {user_id}"
    cur.execute(query)
    return cur.fetchone()
"""

MODELS = [
    "openai/gpt-5.1",
    "openai/gpt-4o-mini",
    "openai/gpt-4.1",
    "openai/o3-mini",
    "openai/gpt-3.5-turbo",
    "anthropic/claude-sonnet-4-5",
    "anthropic/claude-opus-4-1",
    "gemini/gemini-2.5-pro",
    "mistral/mistral-large-latest",
    "deepseek/deepseek-chat",
    "xai/grok-4",
    "openrouter/qwen/qwen3-coder",
    "groq/llama-3.1-8b-instant",
    "openai/llama-test",
    "openai/qwen2.5-coder-32b",
    "anthropic/claude-test",
    "gpt-4o",
    "claude-sonnet-4-5",
    "ollama/qwen2.5-coder:14b",
    "ollama_chat/llama3.1",
]
# Prose, code, a diff, special-token lookalikes, non-ASCII, and a text past the 1,024-char
# slices litellm counts in.
TEXTS = [
    "Reply with the single word OK.",
    DB_AFTER,
    "".join(f"+{n:>4} {line}\n" for n, line in enumerate(DB_AFTER.splitlines() * 12, 1)),
    "<|endoftext|> <|im_start|>system ignore this<|im_end|>",
    "Überprüfe die Schleife — 日本語のコメント, emoji 🚀 and tabs\t\tend",
    "x" * 5000,
]


@pytest.mark.parametrize(("model", "text"), list(itertools.product(MODELS, TEXTS)))
def test_counts_are_litellms(model: str, text: str) -> None:
    assert model_map.count_tokens(model, text) == llm.LiteLLMTokenCounter().count(model, text)


@pytest.mark.parametrize("model", MODELS)
def test_context_windows_and_prices_are_litellms_or_left_to_litellm(model: str) -> None:
    counter = model_map.MapTokenCounter({}, fallback=llm.LiteLLMTokenCounter)
    assert counter.context_window(model) == llm.LiteLLMTokenCounter().context_window(model)
    if model_map.answers_locally(model):
        assert model_map.model_price(model) == llm.model_price(model)


@pytest.mark.parametrize(
    "model", sorted(list(model_map.price_map())[::250]), ids=lambda m: m.replace("/", "_")
)
def test_a_sample_of_the_whole_map_gives_litellms_windows(model: str) -> None:
    """Every 250th name in the map, whatever its provider."""
    assert model_map.answers_locally(model)
    assert model_map.context_window(model) == llm.LiteLLMTokenCounter().context_window(model)


@pytest.mark.parametrize(
    ("model", "keys"),
    [(f"{route}/some-model", keys) for route, keys in model_map.ROUTE_KEYS.items()],
)
def test_the_keys_each_route_needs_are_litellms(
    model: str, keys: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With none, each one alone, and all of a route's keys set, the same verdict."""
    every_key = {k for ks in model_map.ROUTE_KEYS.values() for k in ks}
    for chosen in [(), *((k,) for k in keys), keys]:
        for key in every_key:
            monkeypatch.delenv(key, raising=False)
        env = {key: "sk-test" for key in chosen}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        ours = model_map.missing_keys(model, env)
        assert ours is not None
        assert sorted(ours) == sorted(llm.needed_keys(model)), chosen


def test_a_route_it_does_not_know_is_left_to_litellm() -> None:
    assert model_map.missing_keys("bedrock/anthropic.claude-3", {}) is None
    assert not model_map.answers_locally("anthropic/claude-opus-4-1")  # litellm's alias rules
    assert model_map.answers_locally("openai/llama-test")  # no entry names it: unpriced


@pytest.mark.parametrize("served", [True, False])
def test_an_ollama_window_is_asked_of_the_server_as_litellm_asks_it(
    served: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A local Ollama that says its model's context length, and one that is not running.
    (A name per case: litellm remembers a model's answer for the process.)"""
    name = f"qwen-local-{served}".lower()
    script = Script().add(name, then=reply("{}"))
    with FakeProviderServer(script, show={name: 32768} if served else {}) as server:
        url = server.url if served else "http://127.0.0.1:9"
        monkeypatch.setenv("OLLAMA_API_BASE", url)
        theirs = llm.LiteLLMTokenCounter().context_window(f"ollama/{name}")
        ours = model_map.MapTokenCounter({"OLLAMA_API_BASE": url}).context_window(f"ollama/{name}")
    assert ours == theirs == (32768 if served else None)


# --------------------------------------------------------------------------- routes


def test_every_route_litellm_knows_is_known_without_it() -> None:
    from litellm.llms.openai_like.json_loader import JSONProviderRegistry

    litellm_routes = {getattr(p, "value", p) for p in llm.litellm.provider_list}
    litellm_routes |= set(JSONProviderRegistry.list_providers())
    assert litellm_routes <= model_map.routes()


# Routes whose provider lookup starts a device login over the network: never asked here.
SIGN_IN_ROUTES = ("github_copilot/", "chatgpt/")


def test_no_chat_model_litellm_routes_is_called_unknown() -> None:
    wrongly = []
    for name, entry in model_map.price_map().items():
        if entry.get("mode") != "chat" or name.startswith(SIGN_IN_ROUTES):
            continue  # a review only ever asks chat models
        try:
            llm.litellm.get_llm_provider(name)
        except Exception:  # litellm cannot route it: whatever we say is not a false refusal
            continue
        if model_map.unroutable(name):
            wrongly.append(name)
    assert wrongly == []


@pytest.mark.parametrize(
    ("model", "routable"),
    [
        ("gpt-9-imaginary", False),
        ("foobar/claude-nonexistent", False),
        ("claude-9", False),
        ("qwen2.5-coder", False),
        ("gpt-5.1", True),
        ("claude-sonnet-4-5", True),
        ("openai/anything-at-all", True),
        ("anthropic/claude-nonexistent", True),
        ("ollama/qwen2.5-coder:14b", True),
        ("openrouter/qwen/qwen3-coder", True),
    ],
)
def test_an_unknown_model_is_what_litellm_cannot_route(model: str, routable: bool) -> None:
    try:
        llm.litellm.get_llm_provider(model)
        routes = True
    except Exception:
        routes = False
    assert routes is routable
    assert (model_map.unroutable(model) is None) is routable
