"""What the loopback provider answers: scripted steps per model, and the request log.

A `Script` holds, per model name, a queue of `Step` values consumed in order, or a
responder choosing by content, then a default. Steps are made with `reply`, `call_tools`,
`error`, `hang` and `drop`. `RequestLog` records every request the server received.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import re
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

JsonObject = dict[str, Any]
StepKind = Literal["reply", "error", "hang", "drop"]
ToolRequest = tuple[str, JsonObject]  # a tool call a scripted model makes: name, arguments
Api = Literal["openai", "anthropic", "ollama_chat", "ollama_generate"]

DEFAULT_FINISH_REASON = "stop"


@dataclasses.dataclass(frozen=True)
class Step:
    """One scripted answer. Build it with `reply`, `error`, `hang` or `drop`."""

    kind: StepKind
    text: str = ""
    delay_s: float = 0.0
    tokens_in: int | None = None
    tokens_out: int | None = None
    finish_reason: str = DEFAULT_FINISH_REASON
    status: int = 200
    body: JsonObject | str | None = None
    headers: Mapping[str, str] = dataclasses.field(default_factory=dict)
    tool_calls: tuple[ToolRequest, ...] = ()  # a reply that asks for tools instead

    @classmethod
    def from_json(cls, data: JsonObject) -> Step:
        """Parse the step notation of the standalone ``--script`` file."""
        if "reply" in data:
            return reply(
                str(data["reply"]),
                delay_s=float(data.get("delay_s", 0.0)),
                tokens_in=data.get("tokens_in"),
                tokens_out=data.get("tokens_out"),
                finish_reason=str(data.get("finish_reason", DEFAULT_FINISH_REASON)),
            )
        if "tool_calls" in data:
            return call_tools(*((str(c["name"]), dict(c["arguments"])) for c in data["tool_calls"]))
        if "status" in data:
            return error(int(data["status"]), data.get("body"), data.get("headers"))
        if "hang" in data:
            return hang(float(data["hang"]))
        if data.get("drop"):
            return drop()
        raise ValueError(f"not a step (need reply, status, hang or drop): {data!r}")


def reply(
    text: str,
    delay_s: float = 0.0,
    tokens_in: int | None = None,
    tokens_out: int | None = None,
    finish_reason: str = DEFAULT_FINISH_REASON,
) -> Step:
    """Answer with ``text`` after ``delay_s`` (added to the server's latency).

    Usage defaults to ``len(text) // 4`` tokens each way (the prompt's text for input).
    ``finish_reason`` is OpenAI's word ("stop", "length"); it is translated per API.
    """
    return Step(
        "reply",
        text=text,
        delay_s=delay_s,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        finish_reason=finish_reason,
    )


def call_tools(*calls: ToolRequest) -> Step:
    """Answer by asking to run tools, each ``(name, arguments)``, as the API calls them:
    OpenAI's ``tool_calls``, Anthropic's ``tool_use`` blocks, Ollama's ``tool_calls``."""
    return Step("reply", tool_calls=calls, finish_reason="tool_calls")


def error(
    status: int,
    body: JsonObject | str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Step:
    """Answer with HTTP ``status``; without ``body``, the API's usual error object."""
    return Step("error", status=status, body=body, headers=dict(headers or {}))


def hang(seconds: float) -> Step:
    """Say nothing for ``seconds`` (for client timeouts), then close the connection."""
    return Step("hang", delay_s=seconds)


def drop() -> Step:
    """Close the connection without answering."""
    return Step("drop")


Responder = Callable[[JsonObject], Step]


class Script:
    """What each model answers: per model a queue of steps or a responder, then a default.

    Model names are as the provider sees them (litellm strips ``openai/``,
    ``anthropic/``, ``ollama/``). Without any default, an unscripted model gets a 404.
    """

    def __init__(self, default: Step | None = None) -> None:
        self._lock = threading.Lock()
        self._queues: dict[str, collections.deque[Step]] = {}
        self._responders: dict[str, Responder] = {}
        self._model_defaults: dict[str, Step] = {}
        self.default = default

    def add(self, model: str, *steps: Step, then: Step | None = None) -> Script:
        """Queue ``steps`` for ``model``; once used up, answer ``then`` (or the default)."""
        with self._lock:
            self._queues.setdefault(model, collections.deque()).extend(steps)
            if then is not None:
                self._model_defaults[model] = then
        return self

    def respond(self, model: str, responder: Responder) -> Script:
        """Let ``responder(request_body)`` choose each step for ``model`` (after its queue)."""
        with self._lock:
            self._responders[model] = responder
        return self

    def models(self) -> list[str]:
        """Every model name the script mentions."""
        with self._lock:
            names = {*self._queues, *self._responders, *self._model_defaults}
        return sorted(names)

    def next_step(self, model: str, body: JsonObject) -> Step:
        """Consume and return the step for one request."""
        with self._lock:
            queue = self._queues.get(model)
            if queue:
                return queue.popleft()
            responder = self._responders.get(model)
            fallback = self._model_defaults.get(model, self.default)
        if responder is not None:
            return responder(body)
        if fallback is not None:
            return fallback
        return error(404, f"fake provider: no scripted step for model {model!r}")

    @classmethod
    def from_json(cls, data: JsonObject) -> Script:
        """Build from ``{model: [step, ...] | step, "default": step}``."""
        script = cls()
        for model, value in data.items():
            if model == "default":
                script.default = Step.from_json(value)
            elif isinstance(value, list):
                script.add(model, *(Step.from_json(item) for item in value))
            elif isinstance(value, dict) and "judge" in value:
                spec = value["judge"]
                script.respond(model, judge(
                    {str(t): bool(r) for t, r in spec["truth"].items()},
                    tpr=float(spec["tpr"]), tnr=float(spec["tnr"]),
                    uncertain=float(spec.get("uncertain", 0.1)), seed=str(spec.get("seed", "")),
                ))  # fmt: skip
            else:
                script.add(model, then=Step.from_json(value))
        return script


@dataclasses.dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    time: float
    method: str
    path: str
    model: str | None  # the body's "model" ("name" for /api/show)
    headers: dict[str, str]  # every header, names lower-cased
    body: JsonObject | None
    raw: str

    def to_json(self) -> JsonObject:
        return dataclasses.asdict(self)


class RequestLog:
    """Thread-safe record of every request; optionally mirrored to a JSONL file."""

    def __init__(self, jsonl_path: Path | None = None) -> None:
        self._lock = threading.Lock()
        self._items: list[RecordedRequest] = []
        self._jsonl_path = jsonl_path

    def append(self, item: RecordedRequest) -> None:
        with self._lock:
            self._items.append(item)
            if self._jsonl_path is not None:
                with self._jsonl_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(item.to_json()) + "\n")

    def all(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._items)

    def requests_for(self, model: str) -> list[RecordedRequest]:
        """Requests whose ``model`` field (provider prefix stripped by the client) matches."""
        return [item for item in self.all() if item.model == model]

    def all_text(self) -> str:
        """Every raw request body, concatenated (search it for planted secrets)."""
        return "\n".join(item.raw for item in self.all())

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or blocks (Anthropic's tool results hold
    blocks or a string of their own)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            content_text(part["content"]) if "content" in part else str(part.get("text", ""))
            for part in content
            if isinstance(part, dict)
        )
    return ""


def prompt_text(body: JsonObject) -> str:
    """All the prompt text of a request body, whatever its API (for usage and responders)."""
    parts = [content_text(body.get("system")), str(body.get("prompt") or "")]
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            parts.append(content_text(message.get("content")))
    return "\n".join(part for part in parts if part)


VERIFY_TITLE = re.compile(r"^Title: (?P<title>.*)$", re.M)


def judge(
    truth: Mapping[str, bool],
    *,
    tpr: float,
    tnr: float,
    uncertain: float = 0.1,
    seed: str = "",
    review: Step | None = None,
) -> Responder:
    """A model acting as a judge, as LLM judges are: asked whether a claim is real (the
    verification prompt's ``Title:`` line, looked up in ``truth``), it confirms a real one
    with probability ``tpr`` and refutes a false one with probability ``tnr``; a wrong
    answer is ``uncertain`` with probability ``uncertain``, else the opposite verdict. Each
    answer is drawn from a hash of the seed and the prompt: the same question gets the same
    answer. A claim not in ``truth`` is answered ``uncertain``; a request that is not a
    verification gets ``review`` (default: no findings)."""

    def respond(body: JsonObject) -> Step:
        text = prompt_text(body)
        found = VERIFY_TITLE.search(text)
        if found is None or "verdict" not in text:
            return review or reply(json.dumps({"findings": []}))
        real = truth.get(found["title"].strip())
        if real is None:
            return reply(json.dumps({"verdict": "uncertain", "reason": "not a claim I know"}))
        verdict = drawn_verdict(real, tpr, tnr, uncertain, drawn(seed, text))
        return reply(json.dumps({"verdict": verdict, "reason": "Checked against the change."}))

    return respond


def drawn(seed: str, text: str) -> float:
    """A uniform draw in [0, 1) from a hash of the seed and the text: the same question,
    the same draw."""
    digest = hashlib.sha256(f"{seed}\0{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def drawn_verdict(real: bool, tpr: float, tnr: float, uncertain: float, draw: float) -> str:
    """A judge's verdict at `draw`: right with its rate (a real claim confirmed with `tpr`, an
    invented one refuted with `tnr`); a wrong answer `uncertain` with that probability, else
    the opposite verdict."""
    right = tpr if real else tnr
    if draw < right:
        return "confirmed" if real else "refuted"
    if draw < right + (1 - right) * (1 - uncertain):
        return "refuted" if real else "confirmed"
    return "uncertain"
