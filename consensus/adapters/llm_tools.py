"""Messages and tool calls on litellm's wire, without litellm: a message as litellm takes it
(Anthropic's cached prefix marked), the reply's text, the OpenAI-style tool shapes litellm
takes for every provider (it maps them to Anthropic's `tool_use` blocks and Ollama's
`tool_calls`), and the calls read back from its answer.

A model's tool call is untrusted: its id, name and arguments are kept as the text it sent
(bounded), and whoever runs the tool parses the arguments.
"""

from __future__ import annotations

import json
from typing import Any

from consensus.model.base import FailureKind
from consensus.model.completion import ToolCall
from consensus.ports import CompletionRequest, Message, ModelCallError

MAX_CALLS_READ = 8  # tool calls read from one answer; the rest are not run
MAX_ARGUMENTS_CHARS = 4_000  # of one call's arguments, as the model wrote them
MAX_NAME_CHARS = 64


def tool_kwargs(request: CompletionRequest) -> dict[str, Any]:
    """The `tools` and `tool_choice` of a request that offers tools (else nothing)."""
    if not request.tools:
        return {}
    tools = [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            },
        }
        for spec in request.tools
    ]
    return {"tools": tools, "tool_choice": request.tool_choice}


def wire_message(message: Message) -> dict[str, Any] | None:
    """A message of a tool conversation as litellm takes it (OpenAI's shape), or None for
    a plain one, which the caller sends as it always has."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    if message.tool_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in message.tool_calls
            ],
        }
    return None


def reply_tool_calls(response: Any) -> tuple[ToolCall, ...]:
    """The tool calls of litellm's answer, at most MAX_CALLS_READ, each bounded; a call
    without a function name is not one."""
    try:
        calls = response.choices[0].message.tool_calls or ()
    except (AttributeError, IndexError):
        return ()
    read: list[ToolCall] = []
    for number, call in enumerate(list(calls)[:MAX_CALLS_READ], start=1):
        function = getattr(call, "function", None)
        name = getattr(function, "name", None)
        if not isinstance(name, str) or not name:
            continue
        arguments = getattr(function, "arguments", None)
        if not isinstance(arguments, str):  # some providers send the object itself
            arguments = json.dumps(arguments if arguments is not None else {})
        ident = getattr(call, "id", None)
        read.append(
            ToolCall(
                id=str(ident)[:MAX_NAME_CHARS] if ident else f"call_{number}",
                name=name[:MAX_NAME_CHARS],
                arguments=arguments[:MAX_ARGUMENTS_CHARS],
            )
        )
    return tuple(read)


def chat_message(message: Message, model: str) -> dict[str, Any]:
    # Anthropic caches only what is marked; other providers cache prefixes by themselves.
    if message.cache_prefix and is_anthropic(model):
        rest = message.content[len(message.cache_prefix) :]
        blocks: list[dict[str, Any]] = [
            {"type": "text", "text": message.cache_prefix, "cache_control": {"type": "ephemeral"}}
        ]
        if rest:
            blocks.append({"type": "text", "text": rest})
        return {"role": message.role, "content": blocks}
    return {"role": message.role, "content": message.content}


def is_anthropic(model: str) -> bool:
    lowered = model.lower()
    return lowered.startswith("anthropic/") or (
        "claude" in lowered and lowered.split("/", 1)[0] in {"bedrock", "vertex_ai"}
    )


def reply_text(response: Any) -> str:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError):
        raise ModelCallError(FailureKind.INVALID_REPLY, "the reply has no message") from None
    return content if isinstance(content, str) else ""
