"""The only module that imports litellm: the real ModelClient and TokenCounter.

Importing this module imports litellm (seconds), with its price map read from the
installed package rather than the network; `app/wiring.py` is the one place that loads
it, when a model is about to be called. Retries live here: rate limits, 5xx and dropped
connections are retried with exponential backoff and jitter, honouring `Retry-After`;
everything else fails at once.

Per call, the client adds as little as it can to what litellm does on the event loop:
whether a model takes a response schema is asked of litellm once per model, and the
price is the one litellm already computed for the response, not computed again. Two
things litellm would otherwise repeat on every call are done once per process:

- litellm's own token counter is off. Its Ollama reply parser counts the whole prompt
  again for every reply (the default for a missing `prompt_eval_count` is evaluated even
  when the count is there): about 20 ms of the event loop for a 20k-token prompt. The
  counts we ask for switch it on (`LitellmEdits.counting`), and a reply that comes back
  without its counts is counted here instead, as litellm would have.
- A model litellm's price map does not list gets a static entry before its first call
  (`LitellmEdits.describe`): otherwise every call walks the map and its fallbacks for the model's
  price and capabilities (to find nothing) and, for Ollama, asks the server
  (`/api/show`, synchronously, in a worker thread that holds the GIL). The entry holds
  what litellm would have found (the server's answer for Ollama, the provider alone
  otherwise), so the requests it sends, the tokens we count and the price we report
  (`model_price`: still None for a model without one) stay what they were.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from consensus.adapters.llm_errors import causes, retry_after, short, timed_out, unreachable_error
from consensus.adapters.llm_tools import (
    chat_message,
    reply_text,
    reply_tool_calls,
    tool_kwargs,
    wire_message,
)
from consensus.model.base import FailureKind
from consensus.ports import Completion, CompletionRequest, ModelCallError, ModelPrice

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOG", "ERROR")

import litellm  # after the two settings above, which it reads at import

litellm.suppress_debug_info = True
litellm.telemetry = False
# Counting tokens must never touch the network: without this, litellm downloads the
# Llama and Cohere tokenizers from Hugging Face on first use (and retries for ~20 s
# where it cannot). tiktoken's bundled encoding is close enough to plan chunks with.
litellm.disable_hf_tokenizer_download = True
# Off for the process; `LitellmEdits.counting` switches it on for the counts we ask for.
litellm.disable_token_counter = True

MAX_RETRY_AFTER_S = 60.0


class LitellmEdits:
    """What we changed in litellm's process-wide state: its token counter (on while any count
    needing it runs, in any thread) and the entries given to its price map. One per process,
    `LITELLM`, as litellm's state is: two would switch the counter off under each other."""

    def __init__(self) -> None:
        self._counting = threading.Lock()
        self._counts_open = 0  # counts in progress (any thread) that need the counter on
        self._describing = threading.Lock()
        self._described: set[str] = set()  # routes `describe` has seen to
        self._unpriced: set[str] = set()  # routes it wrote an entry for that has no price

    @contextmanager
    def counting(self) -> Iterator[None]:
        """litellm's token counter, switched on for the counts made inside this block."""
        with self._counting:
            self._counts_open += 1
            litellm.disable_token_counter = False
        try:
            yield
        finally:
            with self._counting:
                self._counts_open -= 1
                litellm.disable_token_counter = self._counts_open == 0

    def described(self, route: str) -> bool:
        return route in self._described

    def unpriced(self, route: str) -> bool:  # the entry `describe` wrote has no price
        return route in self._unpriced

    def describe(self, route: str) -> None:
        """Give litellm a static entry for a model its price map does not list, once (see
        the module docstring); a model it lists is left as it is."""
        with self._describing:
            if route in self._described:
                return
            if route.startswith("ollama_chat/"):
                entries = _ollama_entries(route)
            else:
                entries = _unknown_entry(route)
                self._unpriced.update(entries)
            if entries:
                # Not added to litellm's per-provider model lists: a name there is taken for
                # one of the provider's own models (an OpenAI one would be counted with
                # another tokenizer, and the chunks planned would change).
                litellm.register_model(entries, add_to_provider_model_sets=False)
            self._described.add(route)


LITELLM = LitellmEdits()


class _Transient(Exception):
    """A failure worth retrying, with the server's Retry-After when it sent one."""

    def __init__(self, error: ModelCallError, retry_after: float | None) -> None:
        super().__init__(error.message)
        self.error = error
        self.retry_after = retry_after


class LiteLLMClient:
    """ModelClient over litellm.acompletion with bounded, Retry-After-aware retries."""

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        attempts: int = 4,
        backoff_s: float = 1.0,
        max_backoff_s: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        edits: LitellmEdits = LITELLM,
    ) -> None:
        self._env = env
        self._edits = edits
        self._attempts = attempts
        self._sleep = sleep
        self._jitter = wait_random_exponential(multiplier=backoff_s, max=max_backoff_s)
        self._structured: dict[str, bool] = {}  # model → takes a response schema
        self._seeded: dict[str, bool] = {}  # model → honours a sampling seed
        self._tooled: dict[str, bool] = {}  # model → may be offered tools

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _Transient) and error.retry_after is not None:
            return min(error.retry_after, MAX_RETRY_AFTER_S)
        return float(self._jitter(state))

    async def complete(self, request: CompletionRequest) -> Completion:
        route = _route(request.model)
        if not self._edits.described(route):
            # Once per model and process, before litellm's first call to it; in a thread:
            # for Ollama, litellm asks the server.
            await asyncio.to_thread(self._edits.describe, route)
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._attempts),
            wait=self._wait,
            retry=retry_if_exception(lambda e: isinstance(e, _Transient)),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    return await self._once(request)
        except _Transient as exc:
            raise exc.error from None
        raise AssertionError("unreachable: tenacity either returns or raises")

    async def _once(self, request: CompletionRequest) -> Completion:
        kwargs = self._kwargs(request)  # afresh for each attempt: litellm may change it
        timeout_s = request.timeout_s
        started = time.monotonic()
        try:
            response = await asyncio.wait_for(litellm.acompletion(**kwargs), timeout=timeout_s + 5)
        except asyncio.TimeoutError:
            raise timed_out(timeout_s) from None
        except Exception as exc:  # litellm raises many types; classify them all here
            raise _classify(exc, request) from None
        latency = time.monotonic() - started
        calls = reply_tool_calls(response) if request.tools else ()
        text = reply_text(response)
        usage = getattr(response, "usage", None)
        tokens_in, tokens_out = _filled_usage(
            self._edits,
            kwargs["messages"],
            text,
            int(getattr(usage, "prompt_tokens", 0) or 0),
            int(getattr(usage, "completion_tokens", 0) or 0),
        )
        return Completion(
            text=text,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=_cost(response),
            latency_s=latency,
            tool_calls=calls,
        )

    def _kwargs(self, request: CompletionRequest) -> dict[str, Any]:
        model = request.model
        kwargs: dict[str, Any] = {
            "model": _route(model),
            "messages": [wire_message(m) or chat_message(m, model) for m in request.messages],
            "timeout": request.timeout_s,
            "num_retries": 0,  # retries are ours, so Retry-After is honoured once
            "max_retries": 0,
        }
        if request.api_base:
            kwargs["api_base"] = request.api_base
        if request.api_key_env:
            kwargs["api_key"] = self._env.get(request.api_key_env, "")
        if request.temperature is not None:
            kwargs["temperature"] = request.temperature
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        if request.seed is not None and self._takes_seed(request.model):
            kwargs["seed"] = request.seed
        if request.tools:
            # The verdict's schema is in the prompt: litellm sends a response schema to
            # Anthropic as a forced tool of its own, which would leave ours uncallable.
            if not self._takes_tools(request.model):
                raise ModelCallError(
                    FailureKind.NO_TOOLS, "litellm lists no tool calling for this model"
                )
            kwargs.update(tool_kwargs(request))
        elif request.response_schema is not None:
            kwargs["response_format"] = self._response_format(request)
        return {k: v for k, v in kwargs.items() if v is not None}

    def _takes_tools(self, model: str) -> bool:
        """Whether the model may be offered tools: not when litellm's table says it cannot
        call them; a model litellm does not know is tried (a refusal falls back)."""
        takes = self._tooled.get(model)
        if takes is None:
            route = _route(model)
            takes = self._tooled[model] = self._edits.unpriced(route) or _supports_tools(route)
        return takes

    def _takes_seed(self, model: str) -> bool:
        """Whether the provider honours a sampling seed (OpenAI, Gemini, Ollama do; Anthropic
        does not, and is sent none rather than an error). Asked of litellm once per model."""
        takes = self._seeded.get(model)
        if takes is None:
            takes = self._seeded[model] = _supports_seed(_route(model))
        return takes

    def _response_format(self, request: CompletionRequest) -> dict[str, Any] | None:
        structured = self._structured.get(request.model)
        if structured is None:  # litellm's answer scans its model map: ask once per model
            structured = self._structured[request.model] = _supports_schema(request.model)
        if structured:
            return {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.response_schema},
            }
        if request.model.startswith(("ollama/", "ollama_chat/")):
            return {"type": "json_object"}
        return None  # the schema is in the prompt


def _route(model: str) -> str:
    # litellm's `ollama/` route flattens chat into one /api/generate prompt; `ollama_chat/`
    # keeps the system and user messages apart, which is what our prompts rely on.
    return "ollama_chat/" + model[len("ollama/") :] if model.startswith("ollama/") else model


def _supports_seed(model: str) -> bool:
    try:
        name, provider, _, _ = litellm.get_llm_provider(model)
        return "seed" in (litellm.get_supported_openai_params(name, provider) or ())
    except Exception:  # an unknown route: send no seed rather than risk a refused request
        return False


def _filled_usage(
    edits: LitellmEdits,
    messages: list[dict[str, Any]],
    text: str,
    tokens_in: int,
    tokens_out: int,
) -> tuple[int, int]:
    """The reply's token counts, each one the provider left out counted as litellm counts
    it then (a prompt is never 0 tokens; a non-empty reply is not either)."""
    if tokens_in and (tokens_out or not text):
        return tokens_in, tokens_out
    with edits.counting():
        tokens_in = tokens_in or int(litellm.token_counter(messages=messages))
        tokens_out = tokens_out or (int(litellm.token_counter(text=text)) if text else 0)
    return tokens_in, tokens_out


def _ollama_entries(route: str) -> dict[str, dict[str, Any]]:
    """What litellm asks the server (`/api/show`), or its default when it cannot reach
    it, under both routes and each route's own provider name (litellm finds it only so)."""
    names = {route, "ollama/" + route[len("ollama_chat/") :]}
    if names & litellm.model_cost.keys():
        return {}
    try:
        info = litellm.get_model_info(route)
    except Exception:  # litellm could not describe it: it goes on asking per call
        return {}
    entry = {k: v for k, v in info.items() if k in _OLLAMA_FIELDS and v is not None}
    return {name: {**entry, "litellm_provider": name.split("/", 1)[0]} for name in names}


# What litellm's Ollama adapter reads from /api/show (its `get_runtime_model_info`); its
# prices are always 0, which is also what litellm gives an entry without them.
_OLLAMA_FIELDS = frozenset(
    {"mode", "supports_function_calling", "max_tokens", "max_input_tokens", "max_output_tokens"}
)


def _unknown_entry(route: str) -> dict[str, dict[str, Any]]:
    """For a model litellm knows nothing about, its provider alone: no price (litellm
    prices its calls at 0, as it did when the lookup failed), no capability."""
    try:
        litellm.get_model_info(route)
    except Exception:  # not in the map: describe it
        pass
    else:
        return {}
    try:
        provider = str(litellm.get_llm_provider(route)[1])
    except Exception:  # no provider litellm routes to: the call will say so
        return {}
    return {route: {"litellm_provider": provider, "mode": "chat"}}


def _supports_tools(route: str) -> bool:
    try:
        return bool(litellm.supports_function_calling(model=route))
    except Exception:  # a model litellm cannot describe: try, and let a refusal say so
        return True


def _supports_schema(model: str) -> bool:
    try:
        return bool(litellm.supports_response_schema(model=model))
    except Exception:  # unknown model: litellm raises instead of answering False
        return False


def _cost(response: Any) -> float:
    """The price litellm computed for this response on its way back (0 when unknown)."""
    hidden = getattr(response, "_hidden_params", None) or {}
    try:
        return float(hidden.get("response_cost") or 0.0)
    except (TypeError, ValueError):
        return 0.0


def _classify(exc: Exception, request: CompletionRequest) -> Exception:
    """Map a litellm exception to a retryable _Transient or a final ModelCallError."""
    unreachable = unreachable_error(exc, request.api_base, request.model)
    if unreachable is not None:  # a refused connection may be a server restarting: retried
        refused = any(isinstance(cause, ConnectionRefusedError) for cause in causes(exc))
        return _Transient(unreachable, None) if refused else unreachable
    message = short(exc)
    if isinstance(exc, litellm.Timeout):
        return timed_out(request.timeout_s)
    if isinstance(exc, litellm.RateLimitError):
        error = ModelCallError(FailureKind.RATE_LIMITED, message)
        return _Transient(error, retry_after(exc))
    if isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError)) or (
        "missing credentials" in message.lower()
    ):
        return ModelCallError(FailureKind.AUTH, message)
    if isinstance(exc, litellm.NotFoundError):
        return ModelCallError(
            FailureKind.NOT_FOUND,
            f"the server has no model {request.model.split('/', 1)[-1]!r} ({message})",
            fix="correct the model's name in .consensus.yml or --models (the server's list "
            "of models names the ones it has); `consensus doctor` checks each provider",
        )
    if request.tools and isinstance(exc, litellm.BadRequestError):
        # The provider refused a request that offered tools (Ollama does for a model
        # without them): the judge asks again without tools, the evidence inline.
        return ModelCallError(FailureKind.NO_TOOLS, message)
    if isinstance(exc, (litellm.ContextWindowExceededError, litellm.BadRequestError)):
        return ModelCallError(FailureKind.BAD_REQUEST, message)
    if isinstance(exc, litellm.APIConnectionError):
        return _Transient(ModelCallError(FailureKind.CONNECTION, message), None)
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status >= 500:
        return _Transient(ModelCallError(FailureKind.SERVER_ERROR, message), retry_after(exc))
    if isinstance(exc, (litellm.ServiceUnavailableError, litellm.InternalServerError)):
        return _Transient(ModelCallError(FailureKind.SERVER_ERROR, message), retry_after(exc))
    return ModelCallError(FailureKind.OTHER, message)


class LiteLLMTokenCounter:
    """Counts tokens with the model's own tokenizer where litellm knows it."""

    def __init__(self, edits: LitellmEdits = LITELLM) -> None:
        self._edits = edits

    def count(self, model: str, text: str) -> int:
        with self._edits.counting():
            return int(litellm.token_counter(model=model, text=text))

    def context_window(self, model: str) -> int | None:
        try:
            info = litellm.get_model_info(model)
        except Exception:  # unknown model: the caller falls back to the configured default
            return None
        window = info.get("max_input_tokens") or info.get("max_tokens")
        return int(window) if window else None

    def price(self, model: str) -> ModelPrice | None:
        return model_price(model)


def model_price(model: str) -> ModelPrice | None:
    """US dollars per input and output token from litellm's price map (the copy installed
    with litellm, never the network); None for a model the map does not price."""
    if LITELLM.unpriced(_route(model)):  # the entry `describe` wrote has no price
        return None
    try:
        info = litellm.get_model_info(model)
    except Exception:  # unknown model: litellm raises instead of answering None
        return None
    prompt, answer = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if prompt is None or answer is None:
        return None
    return ModelPrice(input_per_token=float(prompt), output_per_token=float(answer))


def needed_keys(model: str) -> list[str]:
    """Environment variables litellm needs for `model` and does not find."""
    try:
        found = litellm.validate_environment(model=_route(model))
    except Exception:  # unknown provider: let the call itself say what is wrong
        return []
    return [str(key) for key in found.get("missing_keys") or []]
