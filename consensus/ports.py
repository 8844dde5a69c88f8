"""The narrow ports through which the core reaches the outside world.

The core never imports litellm or PyGithub: it talks to a `ModelClient`. The real
adapter lives in `llm_client.py`; tests and benchmarks plug in fakes with the same shape,
and a run journal can wrap any client without the core noticing.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from consensus.models import FailureKind


class Message(BaseModel):
    """One chat message. `cache_prefix` marks the leading part a provider may cache."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant"]
    content: str
    cache_prefix: str | None = None  # when set, content starts with it (the diff block)


class CompletionRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    messages: tuple[Message, ...]
    response_schema: dict[str, Any] | None = None  # JSON schema for structured output
    schema_name: str = "reply"
    api_base: str | None = None
    api_key_env: str | None = None
    timeout_s: float = 120.0
    temperature: float | None = None
    max_tokens: int | None = None


class Completion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0


class ModelCallError(Exception):
    """A call that failed after the adapter's own retries, classified for the report."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class ModelClient(Protocol):
    """Sends one chat completion. Raises ModelCallError; retries are its own business."""

    async def complete(self, request: CompletionRequest) -> Completion: ...


class TokenCounter(Protocol):
    """Counts tokens the way a given model does, and knows its context window."""

    def count(self, model: str, text: str) -> int: ...

    def context_window(self, model: str) -> int | None: ...


class SourceReader(Protocol):
    """The head version of a file, for the code around a finding (working tree, or the
    contents API on GitHub). None when the file cannot be read."""

    def read(self, path: str) -> str | None: ...
