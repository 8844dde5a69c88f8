"""What a model is offered to call and what it asks to run: the OpenAI-style function
tool, and one call a model made (its arguments untrusted until the tool parses them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


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
