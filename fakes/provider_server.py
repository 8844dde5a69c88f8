"""A loopback fake LLM provider: a real HTTP server on 127.0.0.1 with scripted answers.

It speaks just enough of three wire protocols for litellm's real client path:

* OpenAI chat completions: ``POST /v1/chat/completions`` (also ``/chat/completions``).
  litellm ``openai/<name>`` with ``api_base=url + "/v1"`` posts to ``/v1/chat/completions``.
* Anthropic messages: ``POST /v1/messages``. litellm ``anthropic/<name>`` with
  ``api_base=url`` appends ``/v1/messages`` itself. When the request forces a tool
  (``tool_choice: {"type": "tool"}``, which is how litellm sends ``response_format`` for
  Anthropic) and the scripted text is a JSON object, the answer is a ``tool_use`` block.
* Ollama: ``POST /api/chat`` (litellm ``ollama_chat/<name>``), ``POST /api/generate``
  (litellm ``ollama/<name>``), ``POST /api/show``, ``GET /api/tags`` (the scripted
  model names) and ``GET /`` ("Ollama is running").

Each request's ``model`` field selects what happens, through a `Script`: a queue of
`Step` values consumed in order, or a callable answering by content, then a default.
Steps are made with `reply`, `error`, `hang` and `drop`. Every request is recorded in
`FakeProviderServer.log`. litellm asks for ``stream: false`` unless told to stream;
``stream: true`` is served as SSE for OpenAI only (one content chunk, then usage) and
refused with a 400 elsewhere. (A request without ``stream`` is answered whole, even
for Ollama, whose real server would stream.)

Standalone, for tests that run the real CLI in a subprocess::

    python -m fakes.provider_server --port 0 --script S.json --port-file P \\
        [--latency 0.3] [--log requests.jsonl]

where ``S.json`` maps a model name to a list of steps (consumed in order), to one
step (answered every time) or to ``{"judge": {"tpr", "tnr", "truth": {title: real},
"uncertain"?, "seed"?}}`` (a judge: see `judge`), plus an optional ``"default"`` step
for everything else::

    {"gpt-test": [{"status": 429, "headers": {"Retry-After": "1"}}, {"reply": "ok"}],
     "default": {"reply": "{\\"findings\\": []}"}}

Step JSON: ``{"reply": text, "delay_s"?, "tokens_in"?, "tokens_out"?,
"finish_reason"?}``, ``{"status": int, "body"?, "headers"?}``, ``{"hang": seconds}``,
``{"drop": true}``.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import hashlib
import itertools
import json
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

JsonObject = dict[str, Any]
StepKind = Literal["reply", "error", "hang", "drop"]
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
            elif isinstance(value, dict) and "judge" in value:
                spec = value["judge"]
                script.respond(model, judge(
                    {str(t): bool(r) for t, r in spec["truth"].items()},
                    tpr=float(spec["tpr"]), tnr=float(spec["tnr"]),
                    uncertain=float(spec.get("uncertain", 0.1)), seed=str(spec.get("seed", "")),
                ))  # fmt: skip
            elif isinstance(value, list):
                script.add(model, *(Step.from_json(item) for item in value))
            else:
                script.add(model, then=Step.from_json(value))
        return script


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
        digest = hashlib.sha256(f"{seed}\0{text}".encode()).digest()
        draw = int.from_bytes(digest[:8], "big") / 2**64
        right = tpr if real else tnr
        if draw < right:
            verdict = "confirmed" if real else "refuted"
        elif draw < right + (1 - right) * (1 - uncertain):
            verdict = "refuted" if real else "confirmed"
        else:
            verdict = "uncertain"
        return reply(json.dumps({"verdict": verdict, "reason": "Checked against the change."}))

    return respond


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


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def prompt_text(body: JsonObject) -> str:
    """All the prompt text of a request body, whatever its API (for usage and responders)."""
    parts = [_content_text(body.get("system")), str(body.get("prompt") or "")]
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            parts.append(_content_text(message.get("content")))
    return "\n".join(part for part in parts if part)


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


class _Answer:
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
                        "message": {"role": "assistant", "content": step.text, "refusal": None},
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
        else:
            ollama["response"] = step.text
        return ollama

    def _anthropic_content(self, step: Step) -> tuple[list[JsonObject], str]:
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


_OLLAMA_SHOW: JsonObject = {
    "modelfile": "",
    "parameters": "",
    "template": "{{ .Prompt }}",
    "details": {"family": "fake"},
    "model_info": {},
}

_ROUTES: dict[str, Api] = {
    "/v1/chat/completions": "openai",
    "/chat/completions": "openai",
    "/v1/messages": "anthropic",
    "/api/chat": "ollama_chat",
    "/api/generate": "ollama_generate",
}


class _Handler(BaseHTTPRequestHandler):
    server: _HttpServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def setup(self) -> None:
        super().setup()
        # http.server writes the headers and the body in two sends; with Nagle's algorithm
        # on, the body waits for the client to acknowledge the headers, which Linux delays
        # by 40 ms: every reply came 40 ms after the latency asked for. Providers' servers
        # send at once (nginx, Envoy, Go and uvicorn all set TCP_NODELAY); so does this one.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.owner.track(self.connection, open_=True)

    def finish(self) -> None:
        self.server.owner.track(self.connection, open_=False)
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        self._record(None, "")
        if path == "/":
            self._send(200, b"Ollama is running", "text/plain; charset=utf-8")
        elif path == "/api/tags":
            models = [
                {"name": name, "model": name, "size": 1, "digest": "fake", "details": {}}
                for name in self.server.owner.script.models()
            ]
            self._send_json(200, {"models": models})
        elif path == "/api/version":
            self._send_json(200, {"version": "0.0.0-fake"})
        else:
            self._send_json(404, {"error": f"fake provider: no route GET {path}"})

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("utf-8", errors="replace")
        try:
            parsed = json.loads(raw) if raw else {}
        except ValueError:
            parsed = None
        body: JsonObject | None = parsed if isinstance(parsed, dict) else None
        self._record(body, raw)
        path = self.path.split("?", 1)[0]
        if path == "/api/show":
            self._send_json(200, _OLLAMA_SHOW)
            return
        api = _ROUTES.get(path)
        if api is None:
            self._send_json(404, {"error": {"message": f"fake provider: no route POST {path}"}})
            return
        if body is None or not isinstance(body.get("model"), str):
            self._send_json(400, {"error": {"message": "fake provider: body needs a model"}})
            return
        with owner.in_flight():
            self._answer(_Answer(api, body["model"], body))

    def _answer(self, answer: _Answer) -> None:
        owner = self.server.owner
        step = owner.script.next_step(answer.model, answer.body)
        if step.kind == "drop":
            self._drop()
            return
        if step.kind == "hang":
            owner.sleep(step.delay_s)
            self._drop()
            return
        owner.sleep(owner.latency_s + step.delay_s)
        if step.kind == "error":
            self._send(step.status, answer.error_body(step), "application/json", step.headers)
        elif answer.body.get("stream") and answer.api != "openai":
            message = "fake provider: only OpenAI chat completions can stream; send stream: false"
            self._send_json(400, {"error": {"type": "invalid_request_error", "message": message}})
        elif answer.body.get("stream"):
            self._stream(answer, step)
        else:
            self._send_json(200, answer.reply(step))

    def _stream(self, answer: _Answer, step: Step) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        for chunk in answer.openai_stream(step):
            self.wfile.write(chunk)
            self.wfile.flush()

    def _record(self, body: JsonObject | None, raw: str) -> None:
        model = (body.get("model") or body.get("name")) if body else None
        self.server.owner.log.append(
            RecordedRequest(
                time=time.time(),
                method=self.command,
                path=self.path,
                model=model if isinstance(model, str) else None,
                headers={key.lower(): value for key, value in self.headers.items()},
                body=body,
                raw=raw,
            )
        )

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _send_json(self, status: int, payload: JsonObject) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json")

    def _send(
        self,
        status: int,
        data: bytes,
        content_type: str,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], owner: FakeProviderServer) -> None:
        self.owner = owner
        super().__init__(address, _Handler)


class FakeProviderServer:
    """The fake provider on 127.0.0.1; ``start()`` it (or use ``with``) and read ``.url``.

    ``latency_s`` delays every answer (replies and errors, not hangs or drops); each
    request sleeps in its own thread, so concurrent requests overlap. ``max_in_flight``
    is the most chat requests the server was handling at once.
    """

    def __init__(
        self,
        script: Script | None = None,
        *,
        latency_s: float = 0.0,
        port: int = 0,
        log_path: Path | None = None,
    ) -> None:
        self.script = script if script is not None else Script()
        self.latency_s = latency_s
        self.log = RequestLog(log_path)
        self.max_in_flight = 0
        self._port = port
        self._current = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HttpServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("fake provider server is not started")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` without a trailing slash or ``/v1``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeProviderServer:
        self._stopping.clear()
        self._httpd = _HttpServer(("127.0.0.1", self._port), self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"fake-provider-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening, wake sleeping handlers and close every open connection."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeProviderServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def sleep(self, seconds: float) -> None:
        """Sleep, but wake at once when the server stops."""
        if seconds > 0:
            self._stopping.wait(seconds)

    @contextlib.contextmanager
    def in_flight(self) -> Iterator[None]:
        with self._lock:
            self._current += 1
            self.max_in_flight = max(self.max_in_flight, self._current)
        try:
            yield
        finally:
            with self._lock:
                self._current -= 1

    def track(self, connection: socket.socket, *, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Loopback fake LLM provider for tests.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--script", type=Path, help="JSON: model -> step or list of steps")
    parser.add_argument("--port-file", type=Path, help="write the port here once listening")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--log", type=Path, help="append every request here as JSON lines")
    args = parser.parse_args(argv)
    script = Script()
    if args.script is not None:
        script = Script.from_json(json.loads(args.script.read_text(encoding="utf-8")))
    server = FakeProviderServer(script, latency_s=args.latency, port=args.port, log_path=args.log)
    server.start()
    if args.port_file is not None:
        temporary = args.port_file.with_name(args.port_file.name + ".tmp")
        temporary.write_text(str(server.port), encoding="utf-8")
        temporary.replace(args.port_file)
    print(f"fake provider listening on {server.url}", file=sys.stderr, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
