"""Provider families: who votes, whatever gateway reaches the model."""

from __future__ import annotations

import pytest

from consensus.settings.config import ProviderSettings, duplicate_model_warnings
from consensus.settings.family import base_model, infer_family


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("openai/gpt-5.1", "openai"),
        ("gpt-4o", "openai"),
        ("openai/o3-mini", "openai"),
        ("anthropic/claude-sonnet-4-5", "anthropic"),
        ("openrouter/anthropic/claude-3.5-sonnet", "anthropic"),
        ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", "anthropic"),
        ("vertex_ai/claude-opus-4-1", "anthropic"),
        ("gemini/gemini-2.5-pro", "google"),
        ("ollama/qwen2.5-coder:14b", "qwen"),
        ("openai/my-model", "my-model"),  # an OpenAI-compatible route is not OpenAI
        ("openrouter/meta-llama/llama-3.3-70b-instruct", "meta"),
        ("together_ai/deepseek-ai/DeepSeek-V3", "deepseek"),
        ("mistral/mistral-large-latest", "mistral"),
        ("xai/grok-4", "xai"),
        ("openrouter/acme/supermodel-7b", "acme"),  # unknown name: the vendor segment
    ],
)
def test_family_is_the_vendor_not_the_route(model: str, family: str) -> None:
    assert infer_family(model) == family


def test_configured_family_overrides_inference() -> None:
    provider = ProviderSettings(model="openai/my-model", family="llama")
    assert provider.voting_family == "llama"


def test_base_model_strips_gateways_and_vendor_dots() -> None:
    assert base_model("bedrock/anthropic.claude-3-haiku") == "claude-3-haiku"
    assert base_model("openrouter/anthropic/claude-3-haiku") == "claude-3-haiku"


def test_same_model_through_two_gateways_warns() -> None:
    providers = [
        ProviderSettings(model="anthropic/claude-3-haiku"),
        ProviderSettings(model="openrouter/anthropic/claude-3-haiku"),
        ProviderSettings(model="openai/gpt-5.1"),
    ]
    warnings = duplicate_model_warnings(providers)
    assert len(warnings) == 1
    assert "claude-3-haiku" in warnings[0]
    assert "they count once" in warnings[0]


def test_different_models_of_one_vendor_do_not_warn() -> None:
    providers = [ProviderSettings(model="openai/gpt-5.1"), ProviderSettings(model="openai/o3")]
    assert duplicate_model_warnings(providers) == []
