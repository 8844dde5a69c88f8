"""What a model is asked and what it answers: one chat message, a completion request (the
tools it is offered among its parameters), the completion; the OpenAI-style function tool
and one call a model made (its arguments untrusted until the tool parses them). The model
port (ports.py) sends and receives these."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from consensus.model.findings import Usage


class ToolSpec(BaseModel):
    """A tool a model may call (OpenAI's function-tool shape): its name, what it does, and
    the JSON schema of its arguments. litellm maps it for every provider that takes tools."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    parameters: dict[str, Any]


class ToolCall(BaseModel):
    """One call a model asked for. `arguments` is the model's own JSON text: untrusted,
    parsed by whoever runs the tool."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    name: str
    arguments: str


class Message(BaseModel):
    """One chat message. `cache_prefix` marks the leading part a provider may cache; an
    assistant's message may carry the tool calls it made, and a `tool` message answers
    one of them (`tool_call_id`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    cache_prefix: str | None = None  # when set, content starts with it (the diff block)
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


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
    seed: int | None = None  # sent where the provider honours one (the adapter asks litellm)
    # Tools the model may call; "none" lets it see tools used earlier in the conversation
    # (Anthropic refuses their results without them) while it must answer in text.
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: Literal["auto", "none"] = "auto"


class Completion(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    text: str
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    from_journal: bool = False  # served from the run journal: paid for by an earlier attempt
    tool_calls: tuple[ToolCall, ...] = ()  # what the model asked to run instead of answering

    @property
    def usage(self) -> Usage:
        return Usage(
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cost_usd=self.cost_usd,
            latency_s=self.latency_s,
            calls=1,
            from_journal=1 if self.from_journal else 0,
        )
