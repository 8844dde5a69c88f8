"""What litellm knows about a model, read without importing litellm (seconds saved).

Commands that call no model still need a model's token counts, context window, price or
key: `consensus review --dry-run` plans and prices a review, `consensus replay` plans the
same chunks again, `consensus doctor` says which key is missing. litellm answers all of
that from data it ships (its price map, tiktoken's encodings in its own cache folder), so
this module reads the same data directly:

- **counts**: with the `disable_hf_tokenizer_download` switch `adapters/llm.py` sets,
  litellm counts every model's text with tiktoken: o200k_base for OpenAI's newer models
  (named `gpt-4o…`, `gpt-5…`, `o1…`, or whatever tiktoken maps to it), tiktoken's own
  encoding for a name it knows, cl100k_base for everything else; in slices of 1,024
  characters (linear time), and with evenly spaced samples above 4,000,000 characters.
- **windows and prices**: litellm's bundled price map, under the model's name or its name
  without the route (`openai/gpt-5.1` is listed as `gpt-5.1` for provider openai).
- **keys**: the variables each common route needs (litellm's `validate_environment`).
- **routes**: whether litellm can route a model string at all (`unroutable`): its route
  prefix is one of litellm's providers (the `LlmProviders` enum, read from its source, and
  the providers its JSON registry adds), or a bare name is one its price map lists. A
  name litellm cannot route is caught while the review is planned, not by its calls.

Where litellm would do more than read its data (a local Ollama is asked for its model's
window, a name it resolves by its own rules, an unusual route's keys), `answers_locally`
and `missing_keys` say so and the caller asks `adapters/llm.py`. tests/test_model_map.py
holds every answer here to litellm's own.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import threading
import urllib.request
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from consensus.adapters.encodings import load_encoding
from consensus.ports import ModelPrice, TokenCounter

CHUNK_CHARS = 1024  # litellm's TIKTOKEN_ENCODE_CHUNK_SIZE_CHARS
MAX_EXACT_CHARS = 4_000_000  # litellm's TOKEN_COUNTER_MAX_EXACT_CHARS
SAMPLES = 16  # litellm's EXTRAPOLATION_SAMPLES
_VERSIONED_OPENAI = re.compile(r"(?:gpt-(?:[5-9]|[1-9]\d+)|o[1-9]\d*)(?:[.-]|$)")
ASKS_THE_SERVER = ("ollama/", "ollama_chat/")  # litellm asks a running Ollama

# route → the variables litellm accepts for its key (any one of them will do).
ROUTE_KEYS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "mistral": ("MISTRAL_API_KEY",),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "groq": ("GROQ_API_KEY",),
}

_lock = threading.Lock()


def litellm_folder() -> Path | None:
    """The installed litellm package's folder, found without importing it."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def price_map() -> Mapping[str, Mapping[str, Any]]:
    """litellm's bundled price and context-window map (the copy it reads offline)."""
    folder = litellm_folder()
    path = folder / "model_prices_and_context_window_backup.json" if folder else None
    if path is None or not path.is_file():
        return {}
    data: dict[str, Mapping[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _entry(model: str) -> Mapping[str, Any] | None:
    table = price_map()
    if model in table:
        return table[model]
    route, _, name = model.partition("/")
    listed = table.get(name) if name else None
    if listed is not None and listed.get("litellm_provider") == route:
        return listed
    return None


def context_window(model: str) -> int | None:
    """The model's input window from the map; None when unlisted. For a model
    `answers_locally` accepts."""
    entry = _entry(model)
    if entry is None:
        return None
    window = entry.get("max_input_tokens") or entry.get("max_tokens")
    return int(window) if window else None


def model_price(model: str) -> ModelPrice | None:
    """US dollars per input and output token from the map; None for an unpriced model.
    A local Ollama model the map does not list is free, as litellm prices it."""
    if model.startswith(ASKS_THE_SERVER) and not _static_ollama(model):
        return ModelPrice(input_per_token=0.0, output_per_token=0.0)
    entry = _entry(model)
    if entry is None:
        return None
    prompt, answer = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if prompt is None or answer is None:
        return None
    return ModelPrice(input_per_token=float(prompt), output_per_token=float(answer))


def answers_locally(model: str) -> bool:
    """Whether this module knows what litellm would say about `model`'s price (and, but for
    Ollama, whose server is asked, its window): a model listed under its name (or its name
    without the route), or one whose name no entry of the map mentions at all. litellm
    resolves other names by rules of its own (`claude-opus-4-1` to a dated entry)."""
    if model.startswith(ASKS_THE_SERVER):
        return not _static_ollama(model)
    if _entry(model) is not None:
        return True
    name = model.rsplit("/", 1)[-1].lower()
    return not any(name in key.lower() for key in price_map())


_ENUM = re.compile(r"^class LlmProviders\(str, Enum\):\n((?:[ \t]+.*\n|\n)+)", re.MULTILINE)
_VALUE = re.compile(r'^\s+[A-Z0-9_]+\s*=\s*"([^"]+)"', re.MULTILINE)
# Fine-tuned OpenAI models litellm routes by their prefix alone.
_FINE_TUNED = ("ft:gpt-3.5-turbo", "ft:gpt-4")


@cache
def routes() -> frozenset[str]:
    """The route prefixes litellm knows (`openai`, `anthropic`, `ollama_chat`, …): its
    providers' enum, read from its source text, and its JSON-configured providers."""
    folder = litellm_folder()
    if folder is None:
        return frozenset()
    found: set[str] = set()
    enum = _ENUM.search((folder / "types" / "utils.py").read_text(encoding="utf-8"))
    if enum is not None:
        found.update(_VALUE.findall(enum.group(1)))
    registry = folder / "llms" / "openai_like" / "providers.json"
    if registry.is_file():
        found.update(json.loads(registry.read_text(encoding="utf-8")))
    return frozenset(found)


def unroutable(model: str, api_base: str | None = None) -> str | None:
    """Why litellm could not route `model`, in words; None when it can (or when only
    litellm could tell: a bare name with an `api_base` of its own, which litellm may
    recognise). Read from litellm's data: no import."""
    known = routes()
    if not known:  # litellm is not installed where we looked: let the call say
        return None
    if "/" in model:
        route = model.split("/", 1)[0]
        if route in known:
            return None
        return f"'{route}' is not a provider litellm knows (the part before the first '/')"
    if api_base or model in price_map() or model.startswith(_FINE_TUNED):
        return None
    return f"litellm does not know the model '{model}' and it names no provider"


def missing_keys(model: str, env: Mapping[str, str]) -> list[str] | None:
    """The key variables `model`'s route needs and `env` lacks ([] when one is set); None
    for a route this table does not know (ask litellm)."""
    route = model.split("/", 1)[0] if "/" in model else None
    keys = ROUTE_KEYS.get(route or "")
    if keys is None:
        return None
    return [] if any(env.get(key) for key in keys) else list(keys)


# --------------------------------------------------------------------------- counts


def encoding_name(model: str) -> str:
    """The tiktoken encoding litellm counts `model`'s text with (see the module docstring)."""
    import tiktoken  # about 0.1 s; only a count needs it

    name = model.rsplit("/", 1)[-1]
    if "gpt-4o" in name:
        return "o200k_base"
    try:
        return str(tiktoken.encoding_name_for_model(name))
    except KeyError:
        pass
    listed = price_map().get(name, {})
    if _VERSIONED_OPENAI.match(name) or listed.get("litellm_provider") == "openai":
        return "o200k_base"
    return "cl100k_base"


@cache
def _encoding(name: str, cache: Path | None = None) -> Any:
    folder = litellm_folder()
    with _lock:
        # tiktoken reads its encodings from this folder; litellm ships them there, so a
        # count never reaches the network.
        if folder is not None and not os.environ.get("TIKTOKEN_CACHE_DIR"):
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder / "litellm_core_utils" / "tokenizers")
        return load_encoding(name, cache)


MAX_SLICES = 65_536  # about 6 MB; forgotten all at once when full


class SliceCounts:
    """Slice counts already made, by encoding and the slice's digest. litellm counts in
    slices, so a text's count is the sum of its slices' and a slice counts the same wherever
    it is: the prompts of one run share most of their slices (one chunk's diff for every
    persona and provider), and tokenizing is most of what planning a wide change costs. A
    counter keeps one for as long as it lives (a run's)."""

    def __init__(self) -> None:
        self._counted: dict[tuple[str, bytes], int] = {}

    def __len__(self) -> int:
        return len(self._counted)

    def count(self, encoding: Any, text: str) -> int:
        total = 0
        for start in range(0, len(text), CHUNK_CHARS):
            piece = text[start : start + CHUNK_CHARS]
            # surrogatepass: a hostile diff may hold lone surrogates; they still count.
            digest = hashlib.blake2b(
                piece.encode("utf-8", "surrogatepass"), digest_size=16
            ).digest()
            key = (encoding.name, digest)
            counted = self._counted.get(key)
            if counted is None:
                counted = len(encoding.encode(piece, disallowed_special=()))
                if len(self._counted) >= MAX_SLICES:
                    self._counted.clear()
                self._counted[key] = counted
            total += counted
        return total


def count_tokens(
    model: str, text: str, *, cache: Path | None = None, slices: SliceCounts | None = None
) -> int:
    """Tokens in `text` as litellm's `token_counter(model=..., text=...)` counts them; the
    encodings built from copies in `cache` when there are (adapters/encodings.py), the
    slices already counted in `slices` reused."""
    encoding = _encoding(encoding_name(model), cache)
    known = slices if slices is not None else SliceCounts()
    if len(text) <= MAX_EXACT_CHARS:
        return known.count(encoding, text)
    width = MAX_EXACT_CHARS // SAMPLES
    last = len(text) - width
    samples = [
        text[start : start + width]
        for start in (last * i // max(SAMPLES - 1, 1) for i in range(SAMPLES))
    ]
    sampled = sum(len(s) for s in samples)
    return round(sum(known.count(encoding, s) for s in samples) * len(text) / sampled)


def ollama_window(model: str, env: Mapping[str, str], *, timeout_s: float = 10.0) -> int | None:
    """What litellm reads as an Ollama model's window: its `/api/show` answer's
    `*context_length`, from $OLLAMA_API_BASE (else localhost:11434); None when the server
    does not answer. (A model litellm's map lists is not asked: `answers_locally`.)"""
    base = (env.get("OLLAMA_API_BASE") or "http://localhost:11434").rstrip("/")
    for suffix in ("/api/generate", "/api/chat", "/api/embed", "/api/embeddings", "/api/show"):
        base = base.removesuffix(suffix)
    headers = {"Content-Type": "application/json"}
    if env.get("OLLAMA_API_KEY"):
        headers["Authorization"] = f"Bearer {env['OLLAMA_API_KEY']}"
    name = model.split("/", 1)[1]
    body = json.dumps({"name": name}).encode()
    request = urllib.request.Request(f"{base}/api/show", data=body, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            shown = json.loads(answer.read())
    except (OSError, ValueError):  # not running, refused, not JSON: litellm's defaults
        return None
    info = shown.get("model_info") if isinstance(shown, dict) else None
    for key, value in (info or {}).items():
        if "context_length" in key:
            return int(value) if value else None
    return None


def _static_ollama(model: str) -> bool:
    name = model.split("/", 1)[1]
    keys = {key.lower() for key in price_map()}
    return any(n.lower() in keys for n in (model, name, f"ollama/{name}", f"ollama_chat/{name}"))


class MapTokenCounter:
    """The TokenCounter port from litellm's data, without litellm: counts with tiktoken,
    windows from the map, an Ollama model's window from the server as litellm asks it;
    `fallback` (built only when needed) for a name litellm resolves by its own rules."""

    def __init__(
        self,
        env: Mapping[str, str],
        fallback: Callable[[], TokenCounter] | None = None,
        *,
        cache: Path | None = None,
    ) -> None:
        self._env = env
        self._fallback = fallback
        self._cache = cache  # where the encodings' copies are kept
        self._slices = SliceCounts()

    def count(self, model: str, text: str) -> int:
        return count_tokens(model, text, cache=self._cache, slices=self._slices)

    def context_window(self, model: str) -> int | None:
        if model.startswith(ASKS_THE_SERVER) and not _static_ollama(model):
            return ollama_window(model, self._env)
        if self._fallback is None or answers_locally(model):
            return context_window(model)
        window: int | None = self._fallback().context_window(model)
        return window

    def price(self, model: str) -> ModelPrice | None:
        return model_price(model)
