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
Steps are made with `reply`, `call_tools` (a reply asking for tools, in each API's shape),
`error`, `hang` and `drop`. Every request is recorded in
`FakeProviderServer.log`. litellm asks for ``stream: false`` unless told to stream;
``stream: true`` is served as SSE for OpenAI only (one content chunk, then usage) and
refused with a 400 elsewhere. (A request without ``stream`` is answered whole, even
for Ollama, whose real server would stream.)

Standalone, for tests that run the real CLI in a subprocess::

    python -m consensus_sim.provider_server --port 0 --script S.json --port-file P \\
        [--latency 0.3] [--log requests.jsonl]

where ``S.json`` maps a model name to a list of steps (consumed in order), to one
step (answered every time) or to ``{"judge": {"tpr", "tnr", "truth": {title: real},
"uncertain"?, "seed"?}}`` (a judge: see `judge`), plus an optional ``"default"`` step
for everything else::

    {"gpt-test": [{"status": 429, "headers": {"Retry-After": "1"}}, {"reply": "ok"}],
     "default": {"reply": "{\\"findings\\": []}"}}

Step JSON: ``{"reply": text, "delay_s"?, "tokens_in"?, "tokens_out"?,
"finish_reason"?}``, ``{"status": int, "body"?, "headers"?}``, ``{"hang": seconds}``,
``{"drop": true}``, ``{"tool_calls": [{"name", "arguments"}]}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from consensus_sim.provider_wire import OLLAMA_SHOW, ROUTES, Answer
from consensus_sim.script import (
    JsonObject,
    RecordedRequest,
    RequestLog,
    Responder,
    Script,
    Step,
    call_tools,
    drop,
    error,
    hang,
    judge,
    prompt_text,
    reply,
)

__all__ = [
    "FakeProviderServer",
    "RecordedRequest",
    "RequestLog",
    "Responder",
    "Script",
    "Step",
    "call_tools",
    "drop",
    "error",
    "hang",
    "judge",
    "prompt_text",
    "reply",
]


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
            name = str((body or {}).get("name") or (body or {}).get("model") or "")
            context = owner.show.get(name)
            info: JsonObject = {"fake.context_length": context} if context else {}
            self._send_json(200, {**OLLAMA_SHOW, "model_info": info})
            return
        api = ROUTES.get(path)
        if api is None:
            self._send_json(404, {"error": {"message": f"fake provider: no route POST {path}"}})
            return
        if body is None or not isinstance(body.get("model"), str):
            self._send_json(400, {"error": {"message": "fake provider: body needs a model"}})
            return
        with owner.in_flight():
            self._answer(Answer(api, body["model"], body))

    def _answer(self, answer: Answer) -> None:
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

    def _stream(self, answer: Answer, step: Step) -> None:
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
        show: Mapping[str, int] | None = None,
    ) -> None:
        self.script = script if script is not None else Script()
        self.show = dict(show or {})  # model → the context length Ollama's /api/show gives
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
            kwargs={"poll_interval": 0.01},  # stop() waits up to this long
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
