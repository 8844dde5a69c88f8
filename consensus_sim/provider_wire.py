"""The wire shapes of the loopback provider: one request's answer per API (OpenAI chat
completions, Anthropic messages, Ollama chat and generate), errors and server-sent events."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import Iterator

from consensus_sim.script import Api, JsonObject, Step, prompt_text


def _forced_tool(body: JsonObject) -> str | None:
    choice = body.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "tool":
        name = choice.get("name")
        return str(name) if name else None
    return None


_ANTHROPIC_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}
_ANTHROPIC_ERROR = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}
_OPENAI_ERROR = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
}


class Answer:
    """Builds the API-shaped answer to one request."""

    _ids = itertools.count(1)

    def __init__(self, api: Api, model: str, body: JsonObject) -> None:
        self.api = api
        self.model = model
        self.body = body
        self.number = next(self._ids)

    def usage(self, step: Step) -> tuple[int, int]:
        tokens_in = step.tokens_in
        if tokens_in is None:
            tokens_in = len(prompt_text(self.body)) // 4
        tokens_out = step.tokens_out if step.tokens_out is not None else len(step.text) // 4
        return tokens_in, tokens_out

    def reply(self, step: Step) -> JsonObject:
        tokens_in, tokens_out = self.usage(step)
        created = int(time.time())
        if self.api == "openai":
            return {
                "id": f"chatcmpl-fake{self.number}",
                "object": "chat.completion",
                "created": created,
                "model": self.model,
                "system_fingerprint": "fp_fake",
                "choices": [
                    {
                        "index": 0,
                        "message": self._openai_message(step),
                        "logprobs": None,
                        "finish_reason": step.finish_reason,
                    }
                ],
                "usage": {
                    "prompt_tokens": tokens_in,
                    "completion_tokens": tokens_out,
                    "total_tokens": tokens_in + tokens_out,
                },
            }
        if self.api == "anthropic":
            content, stop = self._anthropic_content(step)
            return {
                "id": f"msg_fake{self.number}",
                "type": "message",
                "role": "assistant",
                "model": self.model,
                "content": content,
                "stop_reason": stop,
                "stop_sequence": None,
                "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
            }
        ollama: JsonObject = {
            "model": self.model,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created)),
            "done": True,
            "done_reason": step.finish_reason,
            "total_duration": 1_000_000,
            "load_duration": 1_000,
            "prompt_eval_count": tokens_in,
            "prompt_eval_duration": 1_000,
            "eval_count": tokens_out,
            "eval_duration": 1_000,
        }
        if self.api == "ollama_chat":
            ollama["message"] = {"role": "assistant", "content": step.text}
            if step.tool_calls:
                calls = [{"function": {"name": n, "arguments": a}} for n, a in step.tool_calls]
                ollama["message"]["tool_calls"] = calls
                ollama["done_reason"] = "stop"
        else:
            ollama["response"] = step.text
        return ollama

    def _openai_message(self, step: Step) -> JsonObject:
        if not step.tool_calls:
            return {"role": "assistant", "content": step.text, "refusal": None}
        calls = [
            {
                "id": f"call_fake{self.number}_{n}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for n, (name, arguments) in enumerate(step.tool_calls)
        ]
        return {"role": "assistant", "content": None, "refusal": None, "tool_calls": calls}

    def _anthropic_content(self, step: Step) -> tuple[list[JsonObject], str]:
        if step.tool_calls:
            return [
                {"type": "tool_use", "id": f"toolu_fake{self.number}_{n}", "name": name, "input": a}
                for n, (name, a) in enumerate(step.tool_calls)
            ], "tool_use"
        tool = _forced_tool(self.body)
        if tool is not None:
            with contextlib.suppress(ValueError):
                parsed = json.loads(step.text)
                if isinstance(parsed, dict):
                    block = {"type": "tool_use", "id": f"toolu_fake{self.number}"}
                    return [{**block, "name": tool, "input": parsed}], "tool_use"
        stop = _ANTHROPIC_STOP.get(step.finish_reason, step.finish_reason)
        return [{"type": "text", "text": step.text}], stop

    def openai_stream(self, step: Step) -> Iterator[bytes]:
        """The reply as OpenAI server-sent events: one content chunk, then usage."""
        whole = self.reply(step)
        base = {key: whole[key] for key in ("id", "created", "model")}
        base["object"] = "chat.completion.chunk"
        delta = {"role": "assistant", "content": step.text}
        yield _sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        last = {"index": 0, "delta": {}, "finish_reason": step.finish_reason}
        yield _sse({**base, "choices": [last], "usage": whole["usage"]})
        yield b"data: [DONE]\n\n"

    def error_body(self, step: Step) -> bytes:
        if isinstance(step.body, str) and step.body.lstrip().startswith(("{", "[")):
            return step.body.encode()
        message = step.body if isinstance(step.body, str) else f"fake error {step.status}"
        if isinstance(step.body, dict):
            payload: JsonObject = step.body
        elif self.api == "openai":
            kind = _OPENAI_ERROR.get(step.status, "server_error")
            payload = {"error": {"message": message, "type": kind, "param": None, "code": kind}}
        elif self.api == "anthropic":
            kind = _ANTHROPIC_ERROR.get(step.status, "api_error")
            payload = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            payload = {"error": message}
        return json.dumps(payload).encode()


def _sse(payload: JsonObject) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


OLLAMA_SHOW: JsonObject = {
    "modelfile": "",
    "parameters": "",
    "template": "{{ .Prompt }}",
    "details": {"family": "fake"},
    "model_info": {},
}

ROUTES: dict[str, Api] = {
    "/v1/chat/completions": "openai",
    "/chat/completions": "openai",
    "/v1/messages": "anthropic",
    "/api/chat": "ollama_chat",
    "/api/generate": "ollama_generate",
}
