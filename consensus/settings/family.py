"""Provider families: who votes in consensus.

The litellm route (`openai/`, `openrouter/`, `bedrock/` …) says how a model is reached,
not who made it: an OpenAI-compatible route can serve Llama, and Claude is reachable
through four gateways. The family is the model's vendor, read from the model name.
"""

from __future__ import annotations

import re

# Checked in order against the model's own name (the last path segment).
_VENDOR_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (family, re.compile(rf"(?:^|[./:_-])(?:{pattern})", re.IGNORECASE))
    for family, pattern in (
        ("anthropic", r"claude"),
        ("openai", r"gpt-|chatgpt|o[1-9](?:-|$)|codex|davinci|text-embedding"),
        ("google", r"gemini|gemma|palm|bison"),
        ("meta", r"llama|codellama"),
        ("mistral", r"mistral|mixtral|codestral|devstral|magistral|ministral|pixtral"),
        ("qwen", r"qwen|qwq"),
        ("deepseek", r"deepseek"),
        ("xai", r"grok"),
        ("cohere", r"command-|command$|cohere"),
        ("microsoft", r"phi-?\d"),
        ("moonshot", r"kimi|moonshot"),
        ("zhipu", r"glm"),
        ("amazon", r"nova-|titan"),
    )
)

# Route prefixes that are gateways, not vendors: the segment after them may name the vendor.
_GATEWAYS = frozenset(
    {
        "openrouter",
        "together_ai",
        "bedrock",
        "vertex_ai",
        "azure",
        "azure_ai",
        "groq",
        "fireworks_ai",
        "deepinfra",
        "ollama",
        "ollama_chat",
        "openai",
        "hosted_vllm",
        "lm_studio",
        "litellm_proxy",
        "huggingface",
    }
)


def base_model(model: str) -> str:
    """The model's own name without route prefixes or vendor dots: 'claude-sonnet-4-5'."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    # bedrock style "anthropic.claude-3-5-sonnet-20240620-v1:0" (not "qwen2.5-coder")
    vendor_dot = re.match(r"^[a-z]+\.([a-z].*)$", name)
    return vendor_dot.group(1) if vendor_dot else name


def infer_family(model: str) -> str:
    """The vendor family of a litellm model string."""
    name = base_model(model)
    for family, pattern in _VENDOR_PATTERNS:
        if pattern.search(name):
            return family
    segments = [s for s in model.strip().lower().split("/") if s]
    vendors = [s for s in segments[:-1] if s not in _GATEWAYS]
    if vendors:
        return vendors[-1]
    return name.split(":", 1)[0] or model
